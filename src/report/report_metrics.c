/*
 * report_metrics.c - the --metrics FILE sink (report_out.h): at the end of
 * each test, the results as OpenMetrics text (gauges named iperf3_*, in
 * Prometheus' base units, bytes and seconds; one series per direction for
 * the sum of the streams (stream="sum") and one per stream
 * (stream="<id>", -J's "socket"); "# EOF"), made from -J's "end" record, with
 * iperf3_success 1; a test that failed writes iperf3_success 0 and the
 * time of the attempt only, so that a scraper never takes the figures of
 * an older test for current ones.  report_out.c replaces the file
 * atomically (node_exporter's textfile collector reads it).  The metric
 * list is in docs/iperf3.1, --metrics.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "csv.h"
#include "iperf.h"
#include "iperf_time.h"
#include "proto_ops.h"
#include "report_out.h"
#include "test.h"
#include "banned.h"

struct metrics_state {
	cJSON *end;          /* the last end record (a copy) */
	double start_s;      /* wall time of the test's start */
};

enum { FROM_SENT, FROM_RECEIVED, FROM_EITHER };

/* A gauge taken from the sum record of each direction. */
static const struct metrics_gauge {
	const char *name;
	const char *help;
	int from;            /* FROM_SENT, FROM_RECEIVED, FROM_EITHER */
	const char *key;
	double scale;
	int udp;             /* a stream's "udp" record has it (either end) */
} gauges[] = {
	{ "iperf3_sent_bytes",
	    "Bytes sent, as the sender counted them.",
	    FROM_SENT, "bytes", 1, 0 },
	{ "iperf3_received_bytes",
	    "Bytes received, as the receiver counted them.",
	    FROM_RECEIVED, "bytes", 1, 0 },
	{ "iperf3_sent_bytes_per_second",
	    "Average sending rate.",
	    FROM_SENT, "bits_per_second", 0.125, 0 },
	{ "iperf3_received_bytes_per_second",
	    "Average receiving rate.",
	    FROM_RECEIVED, "bits_per_second", 0.125, 0 },
	{ "iperf3_retransmits",
	    "TCP retransmissions of the sender.",
	    FROM_SENT, "retransmits", 1, 0 },
	{ "iperf3_duration_seconds",
	    "Length of the measured period.",
	    FROM_EITHER, "seconds", 1, 0 },
	{ "iperf3_udp_packets",
	    "UDP datagrams the receiver accounted for (received or lost).",
	    FROM_RECEIVED, "packets", 1, 1 },
	{ "iperf3_udp_lost_packets",
	    "UDP datagrams lost.",
	    FROM_RECEIVED, "lost_packets", 1, 1 },
	{ "iperf3_udp_jitter_seconds",
	    "UDP jitter (RFC 3550) at the receiver.",
	    FROM_RECEIVED, "jitter_ms", 0.001, 1 },
	{ "iperf3_udp_lost_in_receiver_packets",
	    "UDP datagrams the receiving host's socket buffer dropped.",
	    FROM_RECEIVED, "lost_in_receiver", 1, 1 },
};

/* The records of one series set: a direction's sums, or one stream. */
struct metrics_dir {
	const char *direction;
	const cJSON *sent;
	const cJSON *received;
	const cJSON *udp;    /* a UDP stream's record */
	char stream[16];     /* "sum" or the stream's id */
};

/* A summary (quantiles) from a latency object of a record. */
static const struct metrics_summary {
	const char *name;
	const char *help;
	int from;
	const char *key;
} summaries[] = {
	{ "iperf3_rtt_seconds",
	    "TCP round trips the sender sampled (quantiles).",
	    FROM_SENT, "rtt_us" },
	{ "iperf3_udp_delay_variation_seconds",
	    "UDP one-way delay above its minimum at the receiver "
	    "(quantiles).", FROM_RECEIVED, "delay_var_us" },
};

/* label value: backslash, double quote and newline escaped */
static void
put_label(FILE *f, const char *name, const char *v)
{
	(void)fprintf(f, "%s=\"", name);
	for (; v != NULL && *v != '\0'; v++) {
		if (*v == '\\' || *v == '"')
			(void)fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			(void)fputs("\\n", f);
		else
			(void)fputc(*v, f);
	}
	(void)fputc('"', f);
}

/* host, port, protocol (and a server's test): the labels every series
 * has */
static void
put_common(FILE *f, const struct iperf_test *test)
{
	char port[16], proto[8] = "", id[16];
	const char *host = test->opt->role == 's' ? test->run.srv.peer_host :
	    test->opt->server_hostname;
	size_t i;

	for (i = 0; test->proto != NULL && test->proto->name[i] != '\0' &&
	    i < sizeof(proto) - 1; i++)
		proto[i] = (char)(test->proto->name[i] | 0x20); /* lower case */
	(void)snprintf(port, sizeof(port), "%d", test_server_port(test));
	put_label(f, "host", host);
	(void)fputs(",", f);
	put_label(f, "port", port);
	(void)fputs(",", f);
	put_label(f, "protocol", proto);
	if (test->opt->role == 's') {
		(void)snprintf(id, sizeof(id), "%d", test->server_test_number);
		(void)fputs(",", f);
		put_label(f, "test", id);
	}
}

static void
put_value(FILE *f, double v)
{
	char num[64];

	csv_num_format(v, num, sizeof(num));
	(void)fprintf(f, " %s\n", num);
}

static void
family(FILE *f, const char *name, const char *type, const char *help)
{
	(void)fprintf(f, "# TYPE %s %s\n# HELP %s %s\n", name, type, name, help);
}

static double
num(const cJSON *rec, const char *key, int *have)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, key);

	*have = v != NULL && cJSON_IsNumber(v);
	return *have ? v->valuedouble : 0;
}

/* One series: name{labels,direction="d",stream="s"[,quantile="q"]} v */
static void
series(FILE *f, const struct iperf_test *test, const char *name,
    const struct metrics_dir *d, const char *quantile, double v)
{
	(void)fprintf(f, "%s{", name);
	put_common(f, test);
	(void)fputs(",", f);
	put_label(f, "direction", d->direction);
	(void)fputs(",", f);
	put_label(f, "stream", d->stream);
	if (quantile != NULL) {
		(void)fputs(",", f);
		put_label(f, "quantile", quantile);
	}
	(void)fputs("}", f);
	put_value(f, v);
}

/* The record a gauge or summary reads in d (NULL: none). */
static const cJSON *
record_of(const struct metrics_dir *d, int from, int udp)
{
	const cJSON *rec = from == FROM_RECEIVED ? d->received : d->sent;

	if (rec == NULL && from == FROM_EITHER)
		rec = d->received;
	if (rec == NULL && udp)
		rec = d->udp;
	return rec;
}

static void
gauge(FILE *f, const struct iperf_test *test, const struct metrics_gauge *g,
    const struct metrics_dir *dirs, int ndirs)
{
	int i, have, announced = 0;

	for (i = 0; i < ndirs; i++) {
		double v = num(record_of(&dirs[i], g->from, g->udp), g->key,
		    &have);

		if (!have)
			continue;
		if (!announced++)
			family(f, g->name, "gauge", g->help);
		series(f, test, g->name, &dirs[i], NULL, v * g->scale);
	}
}

/* A latency object in us (rtt_us, delay_var_us) as a summary in
 * seconds. */
static void
summary(FILE *f, const struct iperf_test *test,
    const struct metrics_summary *m, const struct metrics_dir *dirs,
    int ndirs)
{
	static const char *const q[][2] = {
		{ "0.5", "p50" }, { "0.9", "p90" }, { "0.99", "p99" },
	};
	char count[64];
	int i, have, announced = 0;
	size_t k;

	(void)snprintf(count, sizeof(count), "%s_count", m->name);
	for (i = 0; i < ndirs; i++) {
		const cJSON *lat = cJSON_GetObjectItemCaseSensitive(
		    record_of(&dirs[i], m->from, 1), m->key);
		double n = num(lat, "samples", &have);

		if (!have || n <= 0)
			continue;
		if (!announced++)
			family(f, m->name, "summary", m->help);
		for (k = 0; k < sizeof(q) / sizeof(q[0]); k++)
			series(f, test, m->name, &dirs[i], q[k][0],
			    num(lat, q[k][1], &have) / 1e6);
		series(f, test, count, &dirs[i], NULL, n);
	}
}

/* A server has its own side of each direction only (stock servers too
 * put zeros for the client's side in "end"): the receiver's figures of
 * upload, the sender's of download. */
static void
own_side_only(const struct iperf_test *test, struct metrics_dir *d)
{
	if (test->opt->role != 's')
		return;
	if (strcmp(d->direction, "upload") == 0)
		d->sent = NULL;
	else
		d->received = NULL;
}

/* One stream of end.streams[]: its direction (with --bidir: a client
 * uploads on the streams it sends on, a server on those it receives on)
 * and records. */
static int
stream_dir(const struct iperf_test *test, const cJSON *st,
    const char *single_dir, struct metrics_dir *d)
{
	const cJSON *udp = cJSON_GetObjectItemCaseSensitive(st, "udp");
	const cJSON *snd = cJSON_GetObjectItemCaseSensitive(st, "sender");
	const cJSON *own = udp != NULL ? udp : snd;
	int have, sends = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(own,
	    "sender"));
	double id = num(own, "socket", &have);

	if (!cJSON_IsObject(own) || !have)
		return 0;
	memset(d, 0, sizeof(*d));
	(void)snprintf(d->stream, sizeof(d->stream), "%.0f", id);
	d->direction = single_dir;
	if (test->settings.bidirectional)
		d->direction = sends == (test->opt->role == 'c') ? "upload" :
		    "download";
	if (udp != NULL) {
		d->udp = udp;
		d->sent = sends ? udp : NULL;
		d->received = sends ? NULL : udp;
		return 1;
	}
	d->sent = snd;
	d->received = cJSON_GetObjectItemCaseSensitive(st, "receiver");
	own_side_only(test, d);
	return 1;
}

/* The directions' sums: the test's (with --bidir: upload), then
 * download; then each stream.  dirs has room for 2 + the streams. */
static int
directions(const struct iperf_test *test, const cJSON *end,
    struct metrics_dir *dirs)
{
	int bidir = test->settings.bidirectional, n = bidir ? 2 : 1;
	const cJSON *st;

	memset(dirs, 0, 2 * sizeof(*dirs));
	(void)snprintf(dirs[0].stream, sizeof(dirs[0].stream), "sum");
	(void)snprintf(dirs[1].stream, sizeof(dirs[1].stream), "sum");
	dirs[0].direction = test->settings.reverse && !bidir ? "download" :
	    "upload";
	dirs[0].sent = cJSON_GetObjectItemCaseSensitive(end, "sum_sent");
	dirs[0].received = cJSON_GetObjectItemCaseSensitive(end,
	    "sum_received");
	own_side_only(test, &dirs[0]);
	dirs[1].direction = "download";
	dirs[1].sent = cJSON_GetObjectItemCaseSensitive(end,
	    "sum_sent_bidir_reverse");
	dirs[1].received = cJSON_GetObjectItemCaseSensitive(end,
	    "sum_received_bidir_reverse");
	own_side_only(test, &dirs[1]);
	cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(end, "streams"))
		n += stream_dir(test, st, dirs[0].direction, &dirs[n]);
	return n;
}

/* The latest "end" of the sums: the length of the test. */
static double
test_seconds(const struct metrics_dir *dirs, int ndirs)
{
	double longest = 0, v;
	int i, have;

	for (i = 0; i < ndirs; i++) {
		v = num(dirs[i].sent, "end", &have);
		longest = v > longest ? v : longest;
		v = num(dirs[i].received, "end", &have);
		longest = v > longest ? v : longest;
	}
	return longest;
}

/* A gauge without a direction: name{labels} v */
static void
single(FILE *f, const struct iperf_test *test, const char *name,
    const char *help, double v)
{
	family(f, name, "gauge", help);
	(void)fprintf(f, "%s{", name);
	put_common(f, test);
	(void)fputs("}", f);
	put_value(f, v);
}

static void
timestamps(FILE *f, const struct iperf_test *test,
    const struct metrics_state *st, double seconds, int ok)
{
	single(f, test, "iperf3_test_start_timestamp_seconds",
	    "Wall-clock time the test started, or was tried (Unix time).",
	    st->start_s);
	if (ok)
		single(f, test, "iperf3_test_end_timestamp_seconds",
		    "Wall-clock time the test ended: the start plus its "
		    "length.", st->start_s + seconds);
}

static int
metrics_render(struct iperf_test *test, void *vst, FILE *f)
{
	const struct metrics_state *st = vst;
	struct metrics_dir *dirs = NULL;
	int ok = st->end != NULL && test->run.abort == ABORT_NONE;
	int ndirs;
	size_t i;

	if (ok) {
		dirs = calloc(2 + (size_t)cJSON_GetArraySize(
		    cJSON_GetObjectItemCaseSensitive(st->end, "streams")),
		    sizeof(*dirs));
		if (dirs == NULL)
			return -1;
	}
	single(f, test, "iperf3_success", "1 if the test ran to its end, 0 if "
	    "it failed (then no figures follow).", ok ? 1 : 0);
	if (ok) {
		ndirs = directions(test, st->end, dirs);
		for (i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++)
			gauge(f, test, &gauges[i], dirs, ndirs);
		for (i = 0; i < sizeof(summaries) / sizeof(summaries[0]); i++)
			summary(f, test, &summaries[i], dirs, ndirs);
		timestamps(f, test, st, test_seconds(dirs,
		    test->settings.bidirectional ? 2 : 1), 1);
	} else {
		timestamps(f, test, st, 0, 0);
	}
	(void)fputs("# EOF\n", f);
	free(dirs);
	return 0;
}

static const char *
metrics_path(const struct iperf_test *test)
{
	return test->opt->metrics_file;
}

static void *
metrics_open(struct iperf_test *test)
{
	struct metrics_state *st = calloc(1, sizeof(*st));

	(void)test;
	if (st != NULL)
		st->start_s = (double)(iperf_time_wall_us() / 1000) / 1000.0;
	return st;
}

static void
metrics_interval(struct iperf_test *test, void *st, const cJSON *iv)
{
	(void)test;
	(void)st;
	(void)iv;
}

static void
metrics_summary(struct iperf_test *test, void *vst, const cJSON *end)
{
	struct metrics_state *st = vst;
	cJSON *copy = cJSON_Duplicate(end, 1);

	if (copy == NULL)
		return;
	(void)test;
	cJSON_Delete(st->end);
	st->end = copy;
}

static void
metrics_release(void *vst)
{
	struct metrics_state *st = vst;

	cJSON_Delete(st->end);
	free(st);
}

const struct out_sink report_metrics = {
	.name = "--metrics",
	.path = metrics_path,
	.open = metrics_open,
	.interval = metrics_interval,
	.summary = metrics_summary,
	.render = metrics_render,
	.release = metrics_release,
};
