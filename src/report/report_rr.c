/*
 * report_rr.c - the --rr figures (rr.h) in the text and JSON reports.
 *
 * Text: --rr replaces the stock tables by its own (report_rows.h
 * report_fmt_rr_*): interval rows with transactions per second and the
 * interval's p50/p90/p99, a summary with the transactions, their rate and
 * p50/p90/p99/p99.9/max; [SUM] rows with -P > 1.  JSON: every stock key
 * stays; an "rr" object joins each interval's streams[i] and sum, each
 * end.streams[i], and end itself.
 *
 * Who knows what: the requester (the end whose stream sends: the client,
 * the server with -R, either with --bidir) counts its transactions and
 * times them; the answerer counts the requests it answered, and learns
 * the requester's round trips (and UDP losses) from its results
 * document, so its intervals have no latencies and its summary has the
 * requester's.  With --bidir, end.rr merges both directions (rr.h).
 */
#include "config.h"

#include <cjson/cJSON.h>

#include "iperf.h"
#include "latstat.h"
#include "report.h"
#include "report_calc.h"
#include "report_int.h"
#include "report_rows.h"
#include "rr.h"
#include "stats.h"
#include "stream.h"
#include "banned.h"

#define RR_LAT_FIELDS (LATSUM_MIN | LATSUM_PCT | LATSUM_P999 | LATSUM_MAX | \
	LATSUM_MEAN)

/* Whole-test figures of one stream or of the test. */
struct rr_figs {
	uint64_t trans, lost, stale;
	double seconds;
	int has_lat;
	int requester;     /* this end's round trips: it counts stale answers */
	struct latsum lat; /* ns */
};


static void
stream_figs(const struct iperf_stream *sp, struct rr_figs *f)
{
	f->trans = sp->final.rr_trans - sp->base_omit.rr_trans;
	f->lost = sp->final.rr_lost - sp->base_omit.rr_lost;
	f->stale = sp->final.rr_stale - sp->base_omit.rr_stale;
	f->seconds = stats_local_seconds(sp);
	f->has_lat = 0;
	f->requester = sp->sender;
	if (sp->rr == NULL)
		return;
	if (sp->sender) {
		latstat_summary(&sp->rr->total, &f->lat);
		f->has_lat = 1;
	} else if (sp->rr->peer.present) {
		f->lat = sp->rr->peer.lat;
		f->lost = sp->rr->peer.lost;
		f->has_lat = 1;
	}
}

/* Does the end answer on any stream? */
static int
test_answers(const struct iperf_test *test)
{
	const struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next)
		if (sp->rr != NULL && !sp->sender)
			return 1;
	return 0;
}

/* --bidir: the streams this end answers, from the requester's histograms
 * (rr.h), merged into all; their losses added to *lost. */
static void
answered_totals(const struct iperf_test *test, struct latstat *all,
    uint64_t *lost)
{
	const struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (sp->rr == NULL || sp->sender || !sp->rr->peer.present)
			continue;
		(void)latstat_merge(all, &sp->rr->peer_hist);
		*lost += sp->rr->peer.lost;
	}
}

static void
test_figs(const struct iperf_test *test, struct rr_figs *f)
{
	const struct iperf_stream *sp;
	struct latstat all;
	uint64_t trans = 0;

	f->trans = f->lost = f->stale = 0;
	f->seconds = report_first_local_time(test);
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		f->trans += sp->final.rr_trans - sp->base_omit.rr_trans;
		f->stale += sp->final.rr_stale - sp->base_omit.rr_stale;
	}
	f->has_lat = 0;
	f->requester = rr_test_requests(test);
	if (f->requester) {
		latstat_init(&all);
		(void)rr_test_totals(test, &all, &trans, &f->lost);
		if (test_answers(test))
			answered_totals(test, &all, &f->lost);
		latstat_summary(&all, &f->lat);
		latstat_free(&all);
		f->has_lat = 1;
	} else if (test->run.rr_peer.present) {
		f->lat = test->run.rr_peer.lat;
		f->lost = test->run.rr_peer.lost;
		f->has_lat = 1;
	}
}

static void
interval_figs(const struct iperf_stream *sp, const struct interval_result *ir,
    struct rr_figs *f)
{
	f->trans = ir->rr_trans;
	f->lost = ir->rr_lost;
	f->stale = ir->rr_stale;
	f->seconds = (double)ir->seconds;
	f->lat = ir->rr_lat;
	f->has_lat = f->requester = sp->sender;
}

/* The merged round trips of the last interval of every stream. */
static void
interval_sum_figs(const struct iperf_test *test, struct rr_figs *f)
{
	const struct iperf_stream *sp;
	struct latstat all;

	latstat_init(&all);
	f->trans = f->lost = f->stale = 0;
	f->seconds = (double)test->run.streams->last_interval->seconds;
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		const struct interval_result *ir = sp->last_interval;

		if (ir == NULL || sp->rr == NULL)
			continue;
		f->trans += ir->rr_trans;
		f->lost += ir->rr_lost;
		f->stale += ir->rr_stale;
		(void)latstat_merge(&all, &sp->rr->interval);
	}
	latstat_summary(&all, &f->lat);
	latstat_free(&all);
	f->has_lat = f->requester = rr_test_requests(test);
}

/* ---- text ------------------------------------------------------------------ */

static void
rr_cells(const struct iperf_test *test, const struct rr_figs *f,
    enum report_rr_kind kind, struct report_rr *x)
{
	x->trans = f->trans;
	x->rate = rr_rate(f->trans, f->seconds);
	x->has_lat = f->has_lat;
	x->lat_ns[0] = f->lat.p50;
	x->lat_ns[1] = f->lat.p90;
	x->lat_ns[2] = f->lat.p99;
	x->lat_ns[3] = kind == RR_ROW_SUMMARY ? f->lat.p999 : 0;
	x->lat_ns[4] = kind == RR_ROW_SUMMARY ? f->lat.max : 0;
	/* losses are the client's, as the round trips */
	x->datagram = report_is_datagram(test) && f->has_lat;
	x->lost = f->lost;
}

static void
print_row(struct iperf_test *test, enum report_rr_kind kind,
    const struct report_row *r, const struct rr_figs *f)
{
	char line[REPORT_LINE_LEN];
	struct report_rr x;

	rr_cells(test, f, kind, &x);
	(void)report_fmt_rr_row(line, sizeof(line), kind, r, &x);
	report_text_line(test, line);
}

static void
print_header(struct iperf_test *test, enum report_rr_kind kind, int has_lat)
{
	char line[REPORT_LINE_LEN];

	(void)report_fmt_rr_header(line, sizeof(line), kind, has_lat,
	    report_is_datagram(test) && has_lat);
	report_text_line(test, line);
}

/* Interval, Transfer and Bitrate of an interval row (sp NULL: [SUM]);
 * role holds the row's --bidir tag. */
static void
interval_cols(const struct iperf_test *test, const struct iperf_stream *sp,
    const struct interval_result *ir, double bytes, struct report_row *r,
    char role[REPORT_ROLE_LEN])
{
	role[0] = '\0';
	if (sp != NULL)
		report_role_tag(test, sp, role);
	r->id = sp != NULL ? sp->socket : REPORT_SUM_ID;
	r->role = role;
	r->start = ir->start;
	r->end = ir->end;
	r->seconds = (double)ir->seconds;
	r->bytes = bytes;
	r->fmt = test->opt->unit_format;
	r->tail = ir->omitted ? "(omitted)" : "";
}

void
report_rr_text_interval(struct iperf_test *test)
{
	char line[REPORT_LINE_LEN], role[REPORT_ROLE_LEN];
	struct iperf_stream *sp;
	struct rr_figs f;

	if (!test->run.rep.header_printed) {
		print_header(test, RR_ROW_INTERVAL, rr_test_requests(test));
		test->run.rep.header_printed = 1;
	} else if (report_want_sums(test)) {
		(void)report_fmt_separator(line, sizeof(line));
		report_text_line(test, line);
	}
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		const struct interval_result *ir = sp->last_interval;
		struct report_row r = { 0 };

		if (ir == NULL)
			continue;
		interval_figs(sp, ir, &f);
		interval_cols(test, sp, ir, (double)ir->bytes, &r, role);
		print_row(test, RR_ROW_INTERVAL, &r, &f);
	}
	if (report_want_sums(test) && test->run.streams->last_interval) {
		struct report_row r = { 0 };
		double bytes = 0;

		for (sp = test->run.streams; sp != NULL; sp = sp->next)
			if (sp->last_interval != NULL)
				bytes += (double)sp->last_interval->bytes;
		interval_sum_figs(test, &f);
		interval_cols(test, NULL, test->run.streams->last_interval,
		    bytes, &r, role);
		print_row(test, RR_ROW_INTERVAL, &r, &f);
	}
	test->run.rep.intervals_printed++;
}

void
report_rr_text_summary(struct iperf_test *test)
{
	char line[REPORT_LINE_LEN], role[REPORT_ROLE_LEN];
	struct iperf_stream *sp;
	struct report_row r = { 0 };
	struct rr_figs f;

	(void)report_fmt_separator(line, sizeof(line));
	report_text_line(test, line);
	if (test->opt->verbose)
		(void)iperf_printf(test, "Test Complete. Summary Results:\n");
	test_figs(test, &f);
	print_header(test, RR_ROW_SUMMARY, f.has_lat);
	r.role = role;
	r.fmt = test->opt->unit_format;
	r.tail = "";
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct rr_figs sf;

		stream_figs(sp, &sf);
		report_role_tag(test, sp, role);
		r.id = sp->socket;
		r.end = r.seconds = sf.seconds;
		r.bytes = (double)stats_local_bytes(sp);
		print_row(test, RR_ROW_SUMMARY, &r, &sf);
	}
	if (!report_want_sums(test))
		return;
	r.id = REPORT_SUM_ID;
	r.role = "";
	r.end = r.seconds = f.seconds;
	r.bytes = 0;
	for (sp = test->run.streams; sp != NULL; sp = sp->next)
		r.bytes += (double)stats_local_bytes(sp);
	print_row(test, RR_ROW_SUMMARY, &r, &f);
}

/* ---- JSON ------------------------------------------------------------------ */

static cJSON *
rr_json(const struct iperf_test *test, const struct rr_figs *f, int *err)
{
	cJSON *o = cJSON_CreateObject();

	report_json_num(o, "transactions", (double)f->trans, err);
	report_json_num(o, "transactions_per_second",
	    rr_rate(f->trans, f->seconds), err);
	if (f->has_lat)
		report_json_attach(o, "latency_us", latsum_to_json(&f->lat,
		    1000.0, RR_LAT_FIELDS), err);
	if (report_is_datagram(test) && f->has_lat) {
		report_json_num(o, "lost", (double)f->lost, err);
		if (f->requester)
			report_json_num(o, "stale", (double)f->stale, err);
	}
	return o;
}

void
report_rr_json_interval_stream(const struct iperf_test *test,
    const struct iperf_stream *sp, cJSON *o, int *err)
{
	const struct interval_result *ir = sp->last_interval;
	struct rr_figs f;

	if (!test->settings.rr || ir == NULL)
		return;
	interval_figs(sp, ir, &f);
	report_json_attach(o, "rr", rr_json(test, &f, err), err);
}

void
report_rr_json_interval_sum(const struct iperf_test *test, cJSON *o,
    int *err)
{
	struct rr_figs f;

	if (!test->settings.rr || test->run.streams == NULL ||
	    test->run.streams->last_interval == NULL)
		return;
	interval_sum_figs(test, &f);
	report_json_attach(o, "rr", rr_json(test, &f, err), err);
}

void
report_rr_json_end_stream(const struct iperf_test *test,
    const struct iperf_stream *sp, cJSON *o, int *err)
{
	struct rr_figs f;

	if (!test->settings.rr)
		return;
	stream_figs(sp, &f);
	report_json_attach(o, "rr", rr_json(test, &f, err), err);
}

void
report_rr_json_end(const struct iperf_test *test, cJSON *end, int *err)
{
	struct rr_figs f;
	cJSON *o;

	if (!test->settings.rr || test->run.streams == NULL)
		return;
	test_figs(test, &f);
	o = rr_json(test, &f, err);
	report_json_num(o, "request_bytes", test->settings.blksize, err);
	report_json_num(o, "response_bytes", test->settings.rr_response, err);
	report_json_attach(end, "rr", o, err);
}
