/* report_latency.c - the --latency figures in the text and JSON reports. */
#include "config.h"

#include <stdio.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "latstat.h"
#include "report_int.h"
#include "banned.h"

#define LAT_FIELDS (LATSUM_MIN | LATSUM_PCT | LATSUM_MAX | LATSUM_MEAN)

static double
ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* Two lines after the summary: idle, then loaded with the increase. */
void
report_latency_text(struct iperf_test *test)
{
	const struct latsum *idle = &test->run.ses.latency.idle;
	const struct latsum *loaded = &test->run.ses.latency.loaded;
	char line[256];

	if (!test->run.ses.latency.used)
		return;
	(void)snprintf(line, sizeof(line),
	    "Latency idle:   p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  "
	    "(%llu probes)\n", ms(idle->p50), ms(idle->p90), ms(idle->p99),
	    (unsigned long long)idle->samples);
	report_text_line(test, line);
	if (loaded->samples == 0 || idle->samples == 0) {
		(void)snprintf(line, sizeof(line),
		    "Latency loaded: p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  "
		    "(%llu probes)\n", ms(loaded->p50), ms(loaded->p90),
		    ms(loaded->p99), (unsigned long long)loaded->samples);
	} else {
		(void)snprintf(line, sizeof(line),
		    "Latency loaded: p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  "
		    "(%llu probes), p50 %+.3f ms over idle\n", ms(loaded->p50),
		    ms(loaded->p90), ms(loaded->p99),
		    (unsigned long long)loaded->samples,
		    ms(loaded->p50) - ms(idle->p50));
	}
	report_text_line(test, line);
}

/* end.latency = {idle_us, loaded_us, samples_idle, samples_loaded}. */
void
report_latency_json(const struct iperf_test *test, cJSON *end, int *err)
{
	const struct latsum *idle = &test->run.ses.latency.idle;
	const struct latsum *loaded = &test->run.ses.latency.loaded;
	cJSON *o;

	if (!test->run.ses.latency.used)
		return;
	o = cJSON_CreateObject();
	if (o == NULL) {
		*err = 1;
		return;
	}
	report_json_attach(o, "idle_us", latsum_to_json(idle, 1000.0,
	    LAT_FIELDS), err);
	report_json_attach(o, "loaded_us", latsum_to_json(loaded, 1000.0,
	    LAT_FIELDS), err);
	report_json_num(o, "samples_idle", (double)idle->samples, err);
	report_json_num(o, "samples_loaded", (double)loaded->samples, err);
	report_json_attach(end, "latency", o, err);
}
