/* report_owd.c - the --owd figures in the text and JSON reports: one-way
 * delay each way, corrected by the clock offset fitted over the probe's
 * timestamped exchanges (measure/clockoff.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clockoff.h"
#include "iperf.h"
#include "latstat.h"
#include "report_int.h"
#include "stats_dist.h"
#include "stream.h"
#include "banned.h"

#define OWD_FIELDS (LATSUM_SAMPLES | LATSUM_MIN | LATSUM_PCT | LATSUM_MAX)

/* What one report says: the fit, each direction, and why not reliable. */
struct owd_view {
	struct clockoff_fit fit;
	struct latsum fwd, rev;
	int fwd_ok, rev_ok; /* 10 * bound <= the direction's p50 */
	const char *reason; /* NULL when reliable */
};

static int
dir_ok(const struct owd_view *v, const struct latsum *s)
{
	return s->samples > 0 && (uint64_t)v->fit.bound_ns <= s->p50 / 10;
}

/* The view of the loaded exchanges; -1 on no memory. */
static int
owd_view(const struct iperf_test *test, struct owd_view *v)
{
	struct latstat fwd, rev;
	struct clockoff_counts n;
	int rc;

	memset(v, 0, sizeof(*v));
	clockoff_fit(test->run.ses.owd, &v->fit);
	latstat_init(&fwd);
	latstat_init(&rev);
	rc = clockoff_dists(test->run.ses.owd, &v->fit, 0, UINT64_MAX, 1,
	    &fwd, &rev, &n);
	latstat_summary(&fwd, &v->fwd);
	latstat_summary(&rev, &v->rev);
	latstat_free(&fwd);
	latstat_free(&rev);
	v->fwd_ok = dir_ok(v, &v->fwd);
	v->rev_ok = dir_ok(v, &v->rev);
	if (!v->fit.valid || n.samples == 0)
		v->reason = "no_samples";
	else if (v->fit.absurd)
		v->reason = "absurd";
	else if (v->fit.step)
		v->reason = "step";
	else if (n.clamped * 100 > n.samples * 2)
		v->reason = "clamped"; /* over 1 % of the 2 * samples */
	else if (!v->fwd_ok || !v->rev_ok)
		v->reason = "bound";
	return rc;
}

static double
ms(int64_t ns)
{
	return (double)ns / 1e6;
}

static void
dir_line(struct iperf_test *test, const struct owd_view *v, const char *dir,
    const struct latsum *s, int ok)
{
	char line[256];

	if (v->reason != NULL && strcmp(v->reason, "absurd") == 0)
		(void)snprintf(line, sizeof(line), "OWD %s: not reliable "
		    "(clock offset %+.3f ms is absurd: over an hour)\n", dir,
		    ms(v->fit.offset_ns));
	else if (v->reason != NULL && strcmp(v->reason, "step") == 0)
		(void)snprintf(line, sizeof(line), "OWD %s: not reliable (the "
		    "clock stepped during the test)\n", dir);
	else if (s->samples == 0)
		(void)snprintf(line, sizeof(line), "OWD %s: no samples\n",
		    dir);
	else if (!ok)
		(void)snprintf(line, sizeof(line), "OWD %s: not reliable "
		    "(clock offset %+.3f ms +/- %.3f ms: the bound is over 10 %% "
		    "of the delay)\n", dir, ms(v->fit.offset_ns),
		    ms(v->fit.bound_ns));
	else
		(void)snprintf(line, sizeof(line), "OWD %s: p50 %.3f ms  "
		    "p90 %.3f ms  p99 %.3f ms  (clock offset %+.3f ms +/- "
		    "%.3f ms, drift %.1f ppm)\n", dir, ms((int64_t)s->p50),
		    ms((int64_t)s->p90), ms((int64_t)s->p99),
		    ms(v->fit.offset_ns), ms(v->fit.bound_ns),
		    v->fit.drift_ppm);
	report_text_line(test, line);
}

/* UDP data direction: figures of several streams together; the
 * percentiles are the streams' own, weighted by their samples. */
static void
data_merge(struct latsum *acc, const struct latsum *s)
{
	uint64_t a = acc->samples, b = s->samples, n = a + b;

	if (b == 0)
		return;
	if (a == 0) {
		*acc = *s;
		return;
	}
	acc->p50 = (acc->p50 * a + s->p50 * b) / n;
	acc->p90 = (acc->p90 * a + s->p90 * b) / n;
	acc->p99 = (acc->p99 * a + s->p99 * b) / n;
	acc->min = s->min < acc->min ? s->min : acc->min;
	acc->max = s->max > acc->max ? s->max : acc->max;
	acc->samples = n;
}

/*
 * The one-way delays (us) of the UDP datagrams of one direction, from
 * each datagram's send and arrival time: rev, those our client received
 * (the server's clock is offset ahead of the client's, so + offset);
 * else those our server received and reported ("owd_raw", - offset).
 * *clamped: how many at least came out below 0.
 */
static void
data_dir(const struct iperf_test *test, const struct clockoff_fit *f,
    int rev, struct latsum *out, uint64_t *clamped)
{
	const struct iperf_stream *sp;
	int64_t theta = f->offset_ns / 1000, ref;
	struct latsum rel, c;

	memset(out, 0, sizeof(*out));
	*clamped = 0;
	for (sp = test->run.streams; sp != NULL && f->valid; sp = sp->next) {
		if (rev && !sp->sender && stats_dist_owd_raw(sp, &ref, &rel))
			*clamped += clockoff_correct(&rel, ref, theta, &c);
		else if (!rev && sp->sender && sp->peer.has_owd)
			*clamped += clockoff_correct(&sp->peer.owd,
			    sp->peer.owd_ref_us, -theta, &c);
		else
			continue;
		data_merge(out, &c);
	}
}

static void
data_line(struct iperf_test *test, const struct clockoff_fit *f, int rev)
{
	struct latsum s;
	uint64_t clamped;
	char line[256];

	data_dir(test, f, rev, &s, &clamped);
	if (s.samples == 0)
		return;
	(void)snprintf(line, sizeof(line), "OWD %s data: p50 %.3f ms  p90 "
	    "%.3f ms  p99 %.3f ms  (%llu datagrams, %llu below 0)\n",
	    rev ? "reverse" : "forward", (double)s.p50 / 1e3,
	    (double)s.p90 / 1e3, (double)s.p99 / 1e3,
	    (unsigned long long)s.samples, (unsigned long long)clamped);
	report_text_line(test, line);
}

/* end.owd.forward_data / reverse_data, when UDP datagrams went that way. */
static void
data_json(const struct iperf_test *test, const struct clockoff_fit *f,
    cJSON *o, int *err)
{
	static const char *const keys[] = { "forward_data", "reverse_data" };
	struct latsum s;
	uint64_t clamped;
	cJSON *j;
	int rev;

	for (rev = 0; rev <= 1; rev++) {
		data_dir(test, f, rev, &s, &clamped);
		if (s.samples == 0)
			continue;
		j = latsum_to_json(&s, 1.0, OWD_FIELDS);
		if (j != NULL)
			report_json_num(j, "clamped", (double)clamped, err);
		report_json_attach(o, keys[rev], j, err);
	}
}

/* One line per direction after the summary. */
void
report_owd_text(struct iperf_test *test)
{
	struct owd_view v;

	if (test->run.ses.owd == NULL)
		return;
	(void)owd_view(test, &v);
	dir_line(test, &v, "forward", &v.fwd, v.fwd_ok);
	dir_line(test, &v, "reverse", &v.rev, v.rev_ok);
	data_line(test, &v.fit, 0);
	data_line(test, &v.fit, 1);
}

/* end.owd (see docs/iperf3-json.schema.json). */
void
report_owd_json_end(const struct iperf_test *test, cJSON *end, int *err)
{
	struct owd_view v;
	cJSON *o;

	if (test->run.ses.owd == NULL)
		return;
	o = cJSON_CreateObject();
	if (o == NULL || owd_view(test, &v) == -1) {
		cJSON_Delete(o);
		*err = 1;
		return;
	}
	report_json_attach(o, "forward", latsum_to_json(&v.fwd, 1000.0,
	    OWD_FIELDS), err);
	report_json_attach(o, "reverse", latsum_to_json(&v.rev, 1000.0,
	    OWD_FIELDS), err);
	report_json_num(o, "clock_offset_us", (double)v.fit.offset_ns / 1e3,
	    err);
	report_json_num(o, "clock_offset_bound_us",
	    (double)v.fit.bound_ns / 1e3, err);
	report_json_num(o, "clock_drift_ppm", v.fit.drift_ppm, err);
	data_json(test, &v.fit, o, err);
	report_json_flag(o, "reliable", v.reason == NULL, err);
	if (v.reason != NULL)
		report_json_str(o, "unreliable_reason", v.reason, err);
	report_json_attach(end, "owd", o, err);
}

/* intervals[].owd: each direction's p50 over the interval's exchanges,
 * with the offset fitted so far; nothing when none came back. */
void
report_owd_json_interval(const struct iperf_test *test, cJSON *iv, int *err)
{
	const struct iperf_stream *sp = test->run.streams;
	const struct interval_result *ir;
	struct clockoff_fit f;
	struct clockoff_counts n;
	struct latstat fwd, rev;
	uint64_t from;
	cJSON *o;

	if (test->run.ses.owd == NULL || sp == NULL ||
	    (ir = sp->last_interval) == NULL)
		return;
	from = sp->start_us + (uint64_t)(ir->start * 1e6 + 0.5);
	clockoff_fit(test->run.ses.owd, &f);
	latstat_init(&fwd);
	latstat_init(&rev);
	if (clockoff_dists(test->run.ses.owd, &f, from,
		from + (uint64_t)((double)ir->seconds * 1e6 + 0.5), 0, &fwd,
		&rev, &n) == -1)
		*err = 1;
	if (n.samples > 0) {
		o = cJSON_AddObjectToObject(iv, "owd");
		if (o == NULL)
			*err = 1;
		else
			report_json_num(o, "forward_p50_us",
		    (double)latstat_percentile(&fwd, 50) / 1e3, err);
		if (o != NULL)
			report_json_num(o, "reverse_p50_us",
			    (double)latstat_percentile(&rev, 50) / 1e3, err);
	}
	latstat_free(&fwd);
	latstat_free(&rev);
}
