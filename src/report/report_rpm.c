/* report_rpm.c - the --rpm figures in the text and JSON reports
 * (rpm_calc.h struct rpm_result, set by the client at the end). */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "report_int.h"
#include "rpm_calc.h"
#include "banned.h"

/* One line, comparable with networkQuality's "Responsiveness: ... RPM". */
void
report_rpm_text(struct iperf_test *test)
{
	const struct rpm_result *r = &test->run.cli.rpm_res;
	char line[320];

	if (!r->used)
		return;
	(void)snprintf(line, sizeof(line),
	    "Responsiveness: %.0f RPM (aggregate %.1f ms: self %.1f, "
	    "foreign connect %.1f, foreign request %.1f ms; %d load streams, "
	    "%.1f Mbit/s%s)\n", floor(r->rpm + 0.5), r->aggregate_ms,
	    r->self.trimmed_us / 1000, r->fconn.trimmed_us / 1000,
	    r->frr.trimmed_us / 1000, r->load_streams, r->goodput_bps / 1e6,
	    r->stable ? "" : "; not stable");
	report_text_line(test, line);
}

static cJSON *
dist_json(const struct rpm_dist *d, int *err)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL) {
		*err = 1;
		return NULL;
	}
	report_json_num(o, "samples", (double)d->samples, err);
	report_json_num(o, "p50", d->p50_us, err);
	report_json_num(o, "p90", d->p90_us, err);
	report_json_num(o, "trimmed_mean", d->trimmed_us, err);
	return o;
}

/* end.rpm = {rpm, draft, aggregate_ms, self_us, foreign_connect_us,
 * foreign_rr_us, foreign_failed, load_streams, goodput_bps, window_s,
 * stable}. */
void
report_rpm_json(const struct iperf_test *test, cJSON *end, int *err)
{
	const struct rpm_result *r = &test->run.cli.rpm_res;
	cJSON *o;

	if (!r->used)
		return;
	o = cJSON_CreateObject();
	if (o == NULL) {
		*err = 1;
		return;
	}
	report_json_num(o, "rpm", floor(r->rpm + 0.5), err);
	if (cJSON_AddStringToObject(o, "draft", RPM_DRAFT) == NULL)
		*err = 1;
	report_json_num(o, "aggregate_ms", r->aggregate_ms, err);
	report_json_attach(o, "self_us", dist_json(&r->self, err), err);
	report_json_attach(o, "foreign_connect_us", dist_json(&r->fconn, err),
	    err);
	report_json_attach(o, "foreign_rr_us", dist_json(&r->frr, err), err);
	report_json_num(o, "foreign_failed", (double)r->foreign_failed, err);
	report_json_num(o, "load_streams", r->load_streams, err);
	report_json_num(o, "goodput_bps", r->goodput_bps, err);
	report_json_num(o, "window_s", r->window_s, err);
	report_json_flag(o, "stable", r->stable, err);
	report_json_attach(end, "rpm", o, err);
}
