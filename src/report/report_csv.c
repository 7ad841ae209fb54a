/*
 * report_csv.c - the --csv reporter: in place of the text report, one
 * header row, then a row per stream per interval (and the interval's sum
 * when a direction has more than one stream), then the summary rows: per
 * stream and the sums, sender and receiver.  The rows are built from the
 * records the JSON reporter makes (report_json_interval/report_json_end),
 * so every figure equals the -J one.  Columns: docs/iperf3.1, --csv.
 *
 * Nothing but CSV goes to the output: no banners, no connection lines;
 * errors go to stderr ("iperf3: error - ...").  A server prints its
 * header once, then the rows of every test, the `test` column telling
 * them apart (with --max-tests several tests' rows interleave).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "csv.h"
#include "iperf.h"
#include "report.h"
#include "report_int.h"
#include "banned.h"

/* The figure columns: the key in an interval record, in a summary one. */
static const struct csv_col {
	const char *name;
	const char *iv_key;  /* NULL: empty in interval rows */
	const char *end_key; /* NULL: empty in summary rows */
} cols[] = {
	{ "start", "start", "start" },
	{ "end", "end", "end" },
	{ "seconds", "seconds", "seconds" },
	{ "bytes", "bytes", "bytes" },
	{ "bits_per_second", "bits_per_second", "bits_per_second" },
	{ "retransmits", "retransmits", "retransmits" },
	{ "snd_cwnd", "snd_cwnd", "max_snd_cwnd" },
	{ "rtt_us", "rtt", "mean_rtt" },
	{ "rtt_p50_us", "rtt_us.p50", "rtt_us.p50" },
	{ "jitter_ms", "jitter_ms", "jitter_ms" },
	{ "lost_packets", "lost_packets", "lost_packets" },
	{ "packets", "packets", "packets" },
	{ "lost_percent", "lost_percent", "lost_percent" },
	{ "lost_in_receiver", "lost_in_receiver", "lost_in_receiver" },
	{ "omitted", "omitted", NULL },
};

#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static const char *const meta_cols[] = {
	"test", "host", "title", "kind", "stream", "direction", "role",
};

#define NMETA (sizeof(meta_cols) / sizeof(meta_cols[0]))

/* What a row says before its figures. */
struct csv_what {
	const char *kind;      /* "interval" or "summary" */
	const char *stream;    /* socket number or "sum" */
	const char *direction; /* "upload" (client to server) or "download" */
	const char *role;      /* "sender" or "receiver" */
	int summary;
};

static void header_once(struct iperf_test *test);

/* Write a finished row as it is (no title, timestamp or [T<n>] prefix);
 * the header goes first, with the first row (a client that never got
 * a row writes nothing: an earlier file given to --logfile keeps its
 * last line). */
static void
emit_row(struct iperf_test *test, struct csv_row *row)
{
	if (test->opt->role == 'c')
		header_once(test);
	if (csv_row_end(row) == 0)
		report_write_plain(test, row->buf, row->len);
	csv_row_reset(row);
}

static void
header_once(struct iperf_test *test)
{
	struct csv_row row = { 0 };
	size_t i;

	if (test->csv_header_done)
		return;
	test->csv_header_done = 1;
	for (i = 0; i < NMETA; i++)
		csv_row_text(&row, meta_cols[i]);
	for (i = 0; i < NCOLS; i++)
		csv_row_text(&row, cols[i].name);
	emit_row(test, &row);
	csv_row_release(&row);
	report_flush(test);
}

/* A member by "a" or "a.b" path; NULL when absent. */
static const cJSON *
lookup(const cJSON *rec, const char *path)
{
	const char *dot = strchr(path, '.');
	char first[32];

	if (dot == NULL)
		return cJSON_GetObjectItemCaseSensitive(rec, path);
	if ((size_t)(dot - path) >= sizeof(first))
		return NULL;
	memcpy(first, path, (size_t)(dot - path));
	first[dot - path] = '\0';
	return cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(rec, first), dot + 1);
}

static void
figure(struct csv_row *row, const cJSON *rec, const char *key)
{
	const cJSON *v = key != NULL ? lookup(rec, key) : NULL;

	if (v != NULL && cJSON_IsNumber(v))
		csv_row_num(row, v->valuedouble);
	else if (cJSON_IsBool(v))
		csv_row_text(row, cJSON_IsTrue(v) ? "1" : "0");
	else
		csv_row_text(row, NULL);
}

static void
meta(struct iperf_test *test, struct csv_row *row, const struct csv_what *w)
{
	int server = test->opt->role == 's';

	if (server && test->server_test_number > 0)
		csv_row_num(row, test->server_test_number);
	else
		csv_row_text(row, NULL);
	csv_row_text(row, server ? test->run.srv.peer_host :
	    test->opt->server_hostname);
	csv_row_text(row, server ? NULL : test->settings.title);
	csv_row_text(row, w->kind);
	csv_row_text(row, w->stream);
	csv_row_text(row, w->direction);
	csv_row_text(row, w->role);
}

static void
record_row(struct iperf_test *test, struct csv_row *row,
    const struct csv_what *w, const cJSON *rec)
{
	size_t i;

	meta(test, row, w);
	for (i = 0; i < NCOLS; i++)
		figure(row, rec, w->summary ? cols[i].end_key : cols[i].iv_key);
	emit_row(test, row);
}

/* The direction of data this host sends (local_sends) or receives. */
static const char *
direction(const struct iperf_test *test, int local_sends)
{
	return local_sends == (test->opt->role == 'c') ? "upload" : "download";
}

static int
local_sends(const cJSON *rec)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "sender"));
}

/* One row for a stream's record; its socket number names it. */
static void
stream_row(struct iperf_test *test, struct csv_row *row, struct csv_what *w,
    const cJSON *rec)
{
	const cJSON *sock = cJSON_GetObjectItemCaseSensitive(rec, "socket");
	char name[32];

	(void)snprintf(name, sizeof(name), "%d",
	    cJSON_IsNumber(sock) ? sock->valueint : -1);
	w->stream = name;
	w->direction = direction(test, local_sends(rec));
	record_row(test, row, w, rec);
}

/* The interval's sum in one direction, when it has several streams. */
static void
interval_sum(struct iperf_test *test, struct csv_row *row,
    const cJSON *iv, const char *key)
{
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(iv, key), *s;
	int sends = local_sends(sum), n = 0;
	struct csv_what w = { "interval", "sum", NULL, NULL, 0 };

	if (sum == NULL)
		return;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(iv, "streams"))
		n += local_sends(s) == sends;
	if (n < 2)
		return;
	w.direction = direction(test, sends);
	w.role = sends ? "sender" : "receiver";
	record_row(test, row, &w, sum);
}

static void
csv_interval(struct iperf_test *test)
{
	cJSON *iv = report_json_interval(test);
	const cJSON *s;
	struct csv_row row = { 0 };
	struct csv_what w = { "interval", NULL, NULL, NULL, 0 };

	if (iv == NULL)
		return;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(iv, "streams")) {
		w.role = local_sends(s) ? "sender" : "receiver";
		stream_row(test, &row, &w, s);
	}
	interval_sum(test, &row, iv, "sum");
	interval_sum(test, &row, iv, "sum_bidir_reverse");
	csv_row_release(&row);
	cJSON_Delete(iv);
	report_flush(test);
}

/* A stream of the end record: sender and receiver (TCP, SCTP), or its
 * one "udp" object, whose role is this host's. */
static void
end_stream(struct iperf_test *test, struct csv_row *row, const cJSON *st)
{
	static const char *const roles[] = { "sender", "receiver" };
	struct csv_what w = { "summary", NULL, NULL, NULL, 1 };
	const cJSON *rec = cJSON_GetObjectItemCaseSensitive(st, "udp");
	size_t i;

	if (rec != NULL) {
		w.role = local_sends(rec) ? "sender" : "receiver";
		stream_row(test, row, &w, rec);
		return;
	}
	for (i = 0; i < 2; i++) {
		rec = cJSON_GetObjectItemCaseSensitive(st, roles[i]);
		if (rec == NULL)
			continue;
		w.role = roles[i];
		stream_row(test, row, &w, rec);
	}
}

/* The sums, always (with one stream too): sum_sent and sum_received are
 * the test's direction (with --bidir: upload), the _bidir_reverse ones
 * download. */
static void
end_sums(struct iperf_test *test, struct csv_row *row, const cJSON *end)
{
	static const struct {
		const char *key;
		const char *role;
		int reverse;
	} sums[] = {
		{ "sum_sent", "sender", 0 },
		{ "sum_received", "receiver", 0 },
		{ "sum_sent_bidir_reverse", "sender", 1 },
		{ "sum_received_bidir_reverse", "receiver", 1 },
	};
	int down = test->settings.reverse && !test->settings.bidirectional;
	struct csv_what w = { "summary", "sum", NULL, NULL, 1 };
	size_t i;

	for (i = 0; i < sizeof(sums) / sizeof(sums[0]); i++) {
		const cJSON *rec = cJSON_GetObjectItemCaseSensitive(end,
		    sums[i].key);

		if (rec == NULL)
			continue;
		w.role = sums[i].role;
		w.direction = sums[i].reverse || down ? "download" : "upload";
		record_row(test, row, &w, rec);
	}
}

static void
csv_summary(struct iperf_test *test)
{
	cJSON *end = report_json_end(test);
	const cJSON *st;
	struct csv_row row = { 0 };

	if (end == NULL)
		return;
	cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(end, "streams"))
		end_stream(test, &row, st);
	end_sums(test, &row, end);
	csv_row_release(&row);
	cJSON_Delete(end);
	report_flush(test);
}

/* A one-test server's header (a --max-tests server's dispatcher prints
 * it once, from its banner event); a client's comes with its first row. */
static void
csv_begin(struct iperf_test *test)
{
	test->run.start_wall_ms = 0;
	if (test->mrun == NULL && test->opt->role == 's')
		header_once(test);
}

static void
csv_server_listening(struct iperf_test *test)
{
	header_once(test);
}

/* Errors on stderr, even with --logfile (the file holds CSV only). */
static void
csv_error(struct iperf_test *test, const char *msg)
{
	char ts[128];

	report_timestamp(test, ts, sizeof(ts));
	if (test->tag > 0)
		report_stderr(test, "%s[T%d] iperf3: %s\n", ts, test->tag, msg);
	else
		report_stderr(test, "%siperf3: %s\n", ts, msg);
}

static void
nop_test(struct iperf_test *test)
{
	(void)test;
}

static void
nop_stream(struct iperf_stream *sp)
{
	(void)sp;
}

const struct report_ops report_csv = {
	.begin = csv_begin,
	.server_listening = csv_server_listening,
	.on_params = nop_test,
	.on_connect = nop_test,
	.on_new_stream = nop_stream,
	.on_test_start = nop_test,
	.interval = csv_interval,
	.summary = csv_summary,
	.finish = nop_test,
	.error = csv_error,
};
