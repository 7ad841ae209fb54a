/* report_json.c - JSON reports (stub until implemented). */
#include "config.h"

#include <stdio.h>

#include "iperf.h"
#include "report.h"
#include "banned.h"

static void
text_error(struct iperf_test *test, const char *msg)
{
	char ts[128];

	report_timestamp(test, ts, sizeof(ts));
	(void)fflush(stdout);
	(void)fprintf(test->opt.logfile != NULL && test->outfile != NULL ?
		test->outfile : stderr, "%siperf3: %s\n", ts, msg);
}

static void nop_test(struct iperf_test *t) { (void)t; }
static void nop_stream(struct iperf_stream *sp) { (void)sp; }

const struct report_ops report_json = {
	.begin = nop_test,
	.server_listening = nop_test,
	.on_params = nop_test,
	.on_connect = nop_test,
	.on_new_stream = nop_stream,
	.on_test_start = nop_test,
	.interval = nop_test,
	.summary = nop_test,
	.finish = nop_test,
	.error = text_error,
};
