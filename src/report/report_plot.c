/*
 * report_plot.c - the --plot FILE sink (report_out.h): from each interval
 * record it keeps the compact numbers plot.h draws (per stream: bits/s
 * and RTT; per direction: summed bits/s, retransmits, UDP loss and
 * jitter, a UDP sender's from "peer_udp"), from the end record a note
 * line per direction, and at the end of the test it writes plot_svg()'s
 * document to FILE.  Omitted (-O)
 * intervals are not drawn: the time axis is the measured one, as in the
 * summary; nor is an interval shorter than a tenth of the one before (the
 * last few ms a server may report after the end).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "iperf_error.h"
#include "plot.h"
#include "proto_ops.h"
#include "report_int.h"
#include "report_out.h"
#include "report_plot.h"
#include "banned.h"

struct plot_sink {
	struct plot_data *d;
	int err;       /* an allocation failed: finish() reports ENOMEM */
	int omitted;   /* omitted intervals seen */
	int drawn;     /* intervals drawn */
	int dated;     /* start is the run's start time */
	double last_secs; /* length of the last interval drawn */
	double iv_start;  /* start of the interval being added */
	time_t start;
};

static double
num(const cJSON *o, const char *key, int *found)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*found = cJSON_IsNumber(v);
	return *found ? v->valuedouble : 0;
}

/* Client's view: upload is client to server (the sender flag of a record
 * says which side this end is on). */
static int
is_upload(const struct iperf_test *test, const cJSON *o)
{
	int sender = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o,
	    "sender"));

	return sender == (test->opt->role == 'c');
}

static void
add(struct plot_sink *ps, enum plot_panel panel, const char *label,
    enum plot_style style, int color, int dashed, double x, double y)
{
	struct plot_series *s;

	s = plot_series_get(ps->d, panel, label, style, color, dashed);
	if (s == NULL)
		ps->err = 1;
	/* A line starts at the start of its first interval (points are at
	 * interval ends: the first interval was left empty); bars span
	 * their interval already. */
	else if (s->n == 0 && s->pend_n == 0 && style != PLOT_BARS &&
	    ps->iv_start < x && plot_series_add(s, ps->iv_start, y) != 0)
		ps->err = 1;
	else if (plot_series_add(s, x, y) != 0)
		ps->err = 1;
}

/* In ms: with --rr the median transaction time, else our rtt_us median
 * where it has samples, else the kernel's smoothed rtt (0: unknown). */
static double
stream_rtt_ms(const cJSON *s, int *found)
{
	const cJSON *rr = cJSON_GetObjectItemCaseSensitive(s, "rr");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(s, "rtt_us");
	double v = num(cJSON_GetObjectItemCaseSensitive(rr, "latency_us"),
	    "p50", found);

	if (!*found && num(d, "samples", found) > 0)
		v = num(d, "p50", found);
	else if (!*found)
		v = num(s, "rtt", found);
	*found = *found && v > 0;
	return v / 1000;
}

static void
add_stream(struct plot_sink *ps, const struct iperf_test *test,
    const cJSON *s, int index)
{
	int bidir = test->settings.bidirectional, up = is_upload(test, s);
	int dashed = bidir && !up, found;
	double x = num(s, "end", &found), y;
	char label[48];

	if (!found)
		return;
	(void)snprintf(label, sizeof(label), "stream %d%s",
	    (int)num(s, "socket", &found), !bidir ? "" : up ? " (up)" :
	    " (down)");
	y = num(s, "bits_per_second", &found);
	if (found && test->settings.num_streams > 1)
		add(ps, PLOT_RATE, label, PLOT_THIN, index, dashed, x, y);
	y = stream_rtt_ms(s, &found);
	if (found)
		add(ps, PLOT_RTT, label, PLOT_THIN, index, dashed, x, y);
}

/* What a direction's sum gives, and where it is drawn. */
static const struct sum_key {
	const char *key;
	enum plot_panel panel;
} sum_keys[] = {
	{ "bits_per_second", PLOT_RATE },
	{ "retransmits", PLOT_RETR },
	{ "lost_percent", PLOT_LOSS },
	{ "jitter_ms", PLOT_JITTER },
};

static void
add_sum(struct plot_sink *ps, const struct iperf_test *test, const cJSON *s)
{
	int bidir = test->settings.bidirectional, up = is_upload(test, s);
	int dashed = bidir && !up, found;
	const char *label = !bidir ? "total" : up ? "upload" : "download";
	double x = num(s, "end", &found), y;
	size_t i;

	if (!found)
		return;
	for (i = 0; i < sizeof(sum_keys) / sizeof(sum_keys[0]); i++) {
		const struct sum_key *k = &sum_keys[i];

		y = num(s, k->key, &found);
#ifdef HAVE_PEERIVAL
		/* a UDP sender: the loss and jitter our server measured */
		if (!found)
			y = num(cJSON_GetObjectItemCaseSensitive(s, "peer_udp"),
			    k->key, &found);
#endif
		if (!found)
			continue;
		if (k->panel == PLOT_RETR) /* bars: red, orange */
			add(ps, k->panel, label, PLOT_BARS, up ? 3 : 1, 0, x, y);
		else
			add(ps, k->panel, label, PLOT_THICK, PLOT_COLOR_SUM,
			    dashed, x, y);
	}
}

static void
plot_interval(struct iperf_test *test, void *st, const cJSON *iv)
{
	struct plot_sink *ps = st;
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(iv, "sum");
	const cJSON *s;
	uint64_t ms;
	double secs;
	int i = 0, found;

	if (sum == NULL ||
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "omitted"))) {
		ps->omitted++;
		return;
	}
	secs = num(sum, "seconds", &found);
	if (found && secs < ps->last_secs / 10)
		return; /* a sliver after the end: its rate is noise */
	ps->last_secs = secs;
	ps->drawn++;
	ps->iv_start = num(sum, "start", &found);
	if (!ps->dated) {
		report_wall_time(test, &ps->start, &ms);
		ps->dated = 1;
	}
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(iv, "streams"))
		add_stream(ps, test, s, i++);
	add_sum(ps, test, sum);
	sum = cJSON_GetObjectItemCaseSensitive(iv, "sum_bidir_reverse");
	if (sum != NULL)
		add_sum(ps, test, sum);
}

static void
rate_text(char *buf, size_t len, double bps)
{
	double div;
	const char *unit = plot_rate_unit(bps, &div);
	size_t n = plot_fmt_fixed(buf, len, bps / div, 2);

	(void)snprintf(buf + n, len - n, " %s", unit);
}

/* "upload: sent 9.41 Gbit/s, received 9.40 Gbit/s, 12 retransmits" (a
 * UDP receiver: jitter and loss); an end with no bytes says nothing. */
static void
direction_note(char *buf, size_t len, const cJSON *sent, const cJSON *rcvd,
    const char *prefix)
{
	char r[32];
	size_t n = 0;
	int found;
	double v;

	buf[0] = '\0';
#define PUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, \
	__VA_ARGS__), n = n < len ? n : len - 1)
	PUT("%s", prefix);
	if (num(sent, "bytes", &found) > 0) {
		rate_text(r, sizeof(r), num(sent, "bits_per_second", &found));
		PUT("sent %s", r);
	}
	if (num(rcvd, "bytes", &found) > 0) {
		rate_text(r, sizeof(r), num(rcvd, "bits_per_second", &found));
		PUT("%sreceived %s", n > strlen(prefix) ? ", " : "", r);
		v = num(rcvd, "jitter_ms", &found);
		if (found) {
			(void)plot_fmt_fixed(r, sizeof(r), v, 3);
			PUT(", jitter %s ms, lost %lld/%lld", r,
			    (long long)num(rcvd, "lost_packets", &found),
			    (long long)num(rcvd, "packets", &found));
		}
	}
	v = num(sent, "retransmits", &found);
	if (found && n > strlen(prefix))
		PUT(", %lld retransmit%s", (long long)v, v == 1 ? "" : "s");
#undef PUT
	if (n == strlen(prefix))
		buf[0] = '\0';
}

static void
plot_summary(struct iperf_test *test, void *st, const cJSON *end)
{
	struct plot_sink *ps = st;
	int bidir = test->settings.bidirectional;
	char note[200];

	direction_note(note, sizeof(note),
	    cJSON_GetObjectItemCaseSensitive(end, "sum_sent"),
	    cJSON_GetObjectItemCaseSensitive(end, "sum_received"),
	    bidir ? "upload: " : "");
	if (plot_set_note(ps->d, 0, note[0] != '\0' ? note : NULL) != 0)
		ps->err = 1;
	if (!bidir)
		return;
	direction_note(note, sizeof(note),
	    cJSON_GetObjectItemCaseSensitive(end, "sum_sent_bidir_reverse"),
	    cJSON_GetObjectItemCaseSensitive(end, "sum_received_bidir_reverse"),
	    "download: ");
	if (plot_set_note(ps->d, 1, note[0] != '\0' ? note : NULL) != 0)
		ps->err = 1;
}

/* "iperf3 TCP upload to host:5201, 4 streams, 2026-11-25 10:00:00 UTC";
 * a server names its client. */
static void
title(struct iperf_test *test, struct plot_sink *ps, char *buf, size_t len)
{
	const char *dir = test->settings.bidirectional ? "bidirectional" :
	    test->settings.reverse ? "download" : "upload";
	const char *proto = test->proto != NULL ? test->proto->name : "TCP";
	int n = test->settings.num_streams;
	char when[40] = "", peer[300];
	struct tm tm;
	uint64_t ms;

	if (!ps->dated)
		report_wall_time(test, &ps->start, &ms);
	if (gmtime_r(&ps->start, &tm) != NULL)
		(void)strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (test->opt->role == 'c')
		(void)snprintf(peer, sizeof(peer), "%s to %s:%d", dir,
		    test->opt->server_hostname != NULL ?
		    test->opt->server_hostname : "?", test->opt->server_port);
	else
		(void)snprintf(peer, sizeof(peer), "%s from %s", dir,
		    test->run.srv.peer_host);
	(void)snprintf(buf, len, "iperf3%s %s %s, %d stream%s%s, %s",
	    test->opt->role == 'c' ? "" : " server:", proto, peer, n,
	    n == 1 ? "" : "s", test->settings.bidirectional ? " each way" : "",
	    when);
}

/* A run that failed after some intervals says so under its title. */
static void
failure_note(struct iperf_test *test, struct plot_sink *ps)
{
	char msg[256], note[300];
	struct iperf_err_state e = test->run.err;

	if (test->run.abort == ABORT_NONE)
		return;
	if (e.code != 0)
		iperf_error_format(&e, msg, sizeof(msg));
	else
		(void)snprintf(msg, sizeof(msg), "interrupted");
	(void)snprintf(note, sizeof(note), "the test ended early: %s", msg);
	if (plot_set_note(ps->d, PLOT_MAX_NOTES - 2, note) != 0)
		ps->err = 1;
}

/* Nothing drawn (the test failed before its first interval): an earlier
 * plot in the file stays; the error went where errors go. */
static int
plot_render(struct iperf_test *test, void *st, FILE *f)
{
	struct plot_sink *ps = st;
	char buf[512], *svg;
	size_t len;
	int rc;

	if (ps->drawn == 0)
		return 1;
	title(test, ps, buf, sizeof(buf));
	if (ps->omitted > 0) {
		if (plot_set_note(ps->d, PLOT_MAX_NOTES - 1,
		    "omitted intervals (-O) not drawn") != 0)
			ps->err = 1;
	}
	failure_note(test, ps);
	if (ps->err || plot_set_title(ps->d, buf) != 0 ||
	    (svg = plot_svg(ps->d, &len)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	rc = fwrite(svg, 1, len, f) == len ? 0 : -1;
	free(svg);
	return rc;
}

static const char *
plot_path(const struct iperf_test *test)
{
	return test->opt->plot_file;
}

static void *
plot_open(struct iperf_test *test)
{
	struct plot_sink *ps = calloc(1, sizeof(*ps));

	(void)test;
	if (ps == NULL)
		return NULL;
	if ((ps->d = plot_data_new()) == NULL) {
		free(ps);
		return NULL;
	}
	return ps;
}

static void
plot_release(void *st)
{
	struct plot_sink *ps = st;

	plot_data_free(ps->d);
	free(ps);
}

const struct out_sink report_plot_sink = {
	.name = "--plot",
	.path = plot_path,
	.open = plot_open,
	.interval = plot_interval,
	.summary = plot_summary,
	.render = plot_render,
	.release = plot_release,
};
