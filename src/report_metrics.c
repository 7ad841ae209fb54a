/*
 * report_metrics.c - the --metrics FILE sink (report_out.h): at the end of
 * each test, the results as OpenMetrics text (gauges named iperf3_*, base
 * units, one series per direction for the sum of the streams, "# EOF"),
 * made from -J's "end" record.  The file is replaced atomically, for
 * node_exporter's textfile collector: written to FILE.tmp.<pid> in the
 * same directory, synced, then renamed over FILE.  The metric list is in
 * docs/iperf3.1, --metrics.
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
#include "proto.h"
#include "report_out.h"
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
} gauges[] = {
	{ "iperf3_sent_bytes",
	    "Bytes sent, as the sender counted them.",
	    FROM_SENT, "bytes", 1 },
	{ "iperf3_received_bytes",
	    "Bytes received, as the receiver counted them.",
	    FROM_RECEIVED, "bytes", 1 },
	{ "iperf3_sent_bits_per_second",
	    "Average sending rate.",
	    FROM_SENT, "bits_per_second", 1 },
	{ "iperf3_received_bits_per_second",
	    "Average receiving rate.",
	    FROM_RECEIVED, "bits_per_second", 1 },
	{ "iperf3_retransmits",
	    "TCP retransmissions of the sender.",
	    FROM_SENT, "retransmits", 1 },
	{ "iperf3_duration_seconds",
	    "Length of the measured period.",
	    FROM_EITHER, "seconds", 1 },
	{ "iperf3_udp_packets",
	    "UDP datagrams the receiver accounted for (received or lost).",
	    FROM_RECEIVED, "packets", 1 },
	{ "iperf3_udp_lost_packets",
	    "UDP datagrams lost.",
	    FROM_RECEIVED, "lost_packets", 1 },
	{ "iperf3_udp_jitter_seconds",
	    "UDP jitter (RFC 3550) at the receiver.",
	    FROM_RECEIVED, "jitter_ms", 0.001 },
	{ "iperf3_udp_lost_in_receiver_packets",
	    "UDP datagrams the receiving host's socket buffer dropped.",
	    FROM_RECEIVED, "lost_in_receiver", 1 },
};

/* The sum records of one direction of the test. */
struct metrics_dir {
	const char *direction;
	const cJSON *sent;
	const cJSON *received;
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

/* host, port, protocol: the labels every series has */
static void
put_common(FILE *f, const struct iperf_test *test)
{
	char port[16], proto[8] = "";
	const char *host = test->opt.role == 's' ? test->run.peer_host :
	    test->opt.server_hostname;
	size_t i;

	for (i = 0; test->proto != NULL && test->proto->name[i] != '\0' &&
	    i < sizeof(proto) - 1; i++)
		proto[i] = (char)(test->proto->name[i] | 0x20); /* lower case */
	(void)snprintf(port, sizeof(port), "%d", test->opt.server_port);
	put_label(f, "host", host);
	(void)fputs(",", f);
	put_label(f, "port", port);
	(void)fputs(",", f);
	put_label(f, "protocol", proto);
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

/* One series: name{labels,direction="d",stream="sum"[,quantile="q"]} v */
static void
series(FILE *f, const struct iperf_test *test, const char *name,
    const char *direction, const char *quantile, double v)
{
	(void)fprintf(f, "%s{", name);
	put_common(f, test);
	(void)fputs(",", f);
	put_label(f, "direction", direction);
	(void)fputs(",", f);
	put_label(f, "stream", "sum");
	if (quantile != NULL) {
		(void)fputs(",", f);
		put_label(f, "quantile", quantile);
	}
	(void)fputs("}", f);
	put_value(f, v);
}

static void
gauge(FILE *f, const struct iperf_test *test, const struct metrics_gauge *g,
    const struct metrics_dir *dirs, int ndirs)
{
	int i, have, announced = 0;

	for (i = 0; i < ndirs; i++) {
		const cJSON *rec = g->from == FROM_RECEIVED ? dirs[i].received :
		    dirs[i].sent;
		double v;

		if (rec == NULL && g->from == FROM_EITHER)
			rec = dirs[i].received;
		v = num(rec, g->key, &have);

		if (!have)
			continue;
		if (!announced++)
			family(f, g->name, "gauge", g->help);
		series(f, test, g->name, dirs[i].direction, NULL, v * g->scale);
	}
}

/* The sender's round trips (our rtt_us object) as a summary in seconds. */
static void
rtt_summary(FILE *f, const struct iperf_test *test,
    const struct metrics_dir *dirs, int ndirs)
{
	static const char *const q[][2] = {
		{ "0.5", "p50" }, { "0.9", "p90" }, { "0.99", "p99" },
	};
	const char *name = "iperf3_rtt_seconds";
	int i, have, announced = 0;
	size_t k;

	for (i = 0; i < ndirs; i++) {
		const cJSON *rtt = cJSON_GetObjectItemCaseSensitive(dirs[i].sent,
		    "rtt_us");
		double n = num(rtt, "samples", &have);

		if (!have || n <= 0)
			continue;
		if (!announced++)
			family(f, name, "summary", "TCP round trips the sender "
			    "sampled (quantiles).");
		for (k = 0; k < sizeof(q) / sizeof(q[0]); k++)
			series(f, test, name, dirs[i].direction, q[k][0],
			    num(rtt, q[k][1], &have) / 1e6);
		series(f, test, "iperf3_rtt_seconds_count", dirs[i].direction,
		    NULL, n);
	}
}

/* A server has its own side of each direction only (stock servers too
 * put zeros for the client's side in "end"): the receiver's figures of
 * upload, the sender's of download. */
static void
own_side_only(const struct iperf_test *test, struct metrics_dir *d)
{
	if (test->opt.role != 's')
		return;
	if (strcmp(d->direction, "upload") == 0)
		d->sent = NULL;
	else
		d->received = NULL;
}

/* The directions: the test's (with --bidir: upload), then download. */
static int
directions(const struct iperf_test *test, const cJSON *end,
    struct metrics_dir *dirs)
{
	int bidir = test->settings.bidirectional;

	dirs[0].direction = test->settings.reverse && !bidir ? "download" :
	    "upload";
	dirs[0].sent = cJSON_GetObjectItemCaseSensitive(end, "sum_sent");
	dirs[0].received = cJSON_GetObjectItemCaseSensitive(end,
	    "sum_received");
	own_side_only(test, &dirs[0]);
	if (!bidir)
		return 1;
	dirs[1].direction = "download";
	dirs[1].sent = cJSON_GetObjectItemCaseSensitive(end,
	    "sum_sent_bidir_reverse");
	dirs[1].received = cJSON_GetObjectItemCaseSensitive(end,
	    "sum_received_bidir_reverse");
	own_side_only(test, &dirs[1]);
	return 2;
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

static void
timestamps(FILE *f, const struct iperf_test *test,
    const struct metrics_state *st, double seconds)
{
	static const char *const names[] = {
		"iperf3_test_start_timestamp_seconds",
		"iperf3_test_end_timestamp_seconds",
	};
	static const char *const helps[] = {
		"Wall-clock time the test started (Unix time).",
		"Wall-clock time the test ended: the start plus its length.",
	};
	int i;

	for (i = 0; i < 2; i++) {
		family(f, names[i], "gauge", helps[i]);
		(void)fprintf(f, "%s{", names[i]);
		put_common(f, test);
		(void)fputs("}", f);
		put_value(f, st->start_s + (i == 1 ? seconds : 0));
	}
}

static void
write_metrics(FILE *f, const struct iperf_test *test,
    const struct metrics_state *st)
{
	struct metrics_dir dirs[2];
	int ndirs = directions(test, st->end, dirs);
	size_t i;

	for (i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++)
		gauge(f, test, &gauges[i], dirs, ndirs);
	rtt_summary(f, test, dirs, ndirs);
	timestamps(f, test, st, test_seconds(dirs, ndirs));
	(void)fputs("# EOF\n", f);
}

/* FILE.tmp.<pid> written whole and synced, then renamed over FILE. */
static int
write_atomically(const struct iperf_test *test,
    const struct metrics_state *st, const char *path)
{
	char tmp[4096];
	FILE *f;
	int fd, rc, saved;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd == -1)
		return -1;
	f = fdopen(fd, "w");
	if (f == NULL) {
		saved = errno;
		(void)close(fd);
		goto out_unlink;
	}
	write_metrics(f, test, st);
	rc = fflush(f) == 0 && !ferror(f) && fsync(fd) == 0 ? 0 : -1;
	saved = errno;
	if (fclose(f) == 0 && rc == 0 && rename(tmp, path) == 0)
		return 0;
	if (rc == 0)
		saved = errno;
out_unlink:
	(void)unlink(tmp);
	errno = saved;
	return -1;
}

static int
metrics_wanted(const struct iperf_test *test)
{
	return test->opt.metrics_file != NULL;
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

/* Nothing to write when the test ended before its summary. */
static int
metrics_finish(struct iperf_test *test, void *vst)
{
	struct metrics_state *st = vst;

	if (st->end == NULL)
		return 0;
	return write_atomically(test, st, test->opt.metrics_file);
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
	.wanted = metrics_wanted,
	.open = metrics_open,
	.interval = metrics_interval,
	.summary = metrics_summary,
	.finish = metrics_finish,
	.release = metrics_release,
};
