/*
 * iperf_output.c - the output side of the public API: the default
 * callbacks, the JSON document, flushing, error messages, and upstream's
 * exiting error helpers.
 *
 * The default callbacks forward to the test's reporter (text or JSON).
 * iperf_defaults() installs them; the core calls whatever is installed.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "api_cli.h"
#include "iperf.h"
#include "iperf_time.h"
#include "report.h"
#include "stats.h"
#include "stream.h"
#include "test_config.h"
#include "banned.h"

#define IPERF_ERR_MSG_MAX 1000 /* 999 bytes of message, as upstream */

void
iperf_on_new_stream(struct iperf_stream *sp)
{
	sp->test->reporter->on_new_stream(sp);
}

void
iperf_on_test_start(struct iperf_test *test)
{
	test->reporter->on_test_start(test);
}

void
iperf_on_connect(struct iperf_test *test)
{
	test->reporter->on_connect(test);
}

void
iperf_on_test_finish(struct iperf_test *test)
{
	(void)test;
}

void
connect_msg(struct iperf_stream *sp)
{
	sp->test->reporter->on_new_stream(sp);
}

/* Take an interval of every stream now (the interval timer's work). */
void
iperf_stats_callback(struct iperf_test *test)
{
	(void)stats_sample(test, iperf_time_now_us(), 0);
}

/* Print (or add to the JSON document) the newest interval. */
void
iperf_reporter_callback(struct iperf_test *test)
{
	test->reporter->interval(test);
}

/* A fresh JSON document ("start", "intervals", "end"). */
int
iperf_json_start(struct iperf_test *test)
{
	report_json.begin(test);
	return test->run.rep.json_top != NULL ? 0 : -1;
}

/* Emit the document to the output (or the JSON callback). */
int
iperf_json_finish(struct iperf_test *test)
{
	if (test->run.rep.json_top == NULL)
		return -1;
	report_json.finish(test);
	return 0;
}

int
iflush(struct iperf_test *test)
{
	return test->outfile != NULL ? fflush(test->outfile) : 0;
}

void
iperf_err(struct iperf_test *test, const char *fmt, ...)
{
	char msg[IPERF_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (test == NULL) {
		(void)fprintf(stderr, "iperf3: %s\n", msg);
		return;
	}
	test->reporter->error(test, msg);
}

/*
 * Upstream's exiting helpers.  Their whole contract is to end the
 * process, so they do, after the message (and in JSON mode the document)
 * is out and the PID file is gone.  Nothing in the library calls them.
 */
void
iperf_exit(struct iperf_test *test, int exit_code, const char *fmt,
    va_list argp)
{
	char msg[IPERF_ERR_MSG_MAX];

	(void)vsnprintf(msg, sizeof(msg), fmt, argp);
	if (test == NULL) {
		(void)fprintf(stderr, "iperf3: %s\n", msg);
		exit(exit_code);
	}
	test->reporter->error(test, msg);
	if (test->opt->json_output && test->run.rep.json_top != NULL)
		report_json.finish(test);
	(void)iflush(test);
	(void)iperf_delete_pidfile(test);
	exit(exit_code);
}

void
iperf_errexit(struct iperf_test *test, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	iperf_exit(test, 1, fmt, ap);
	/* not reached */
}

void
iperf_signormalexit(struct iperf_test *test, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	iperf_exit(test, 0, fmt, ap);
	/* not reached */
}

void
iperf_cli_json_incremental(struct iperf_test *test, int on)
{
	test->cfg->opt.json_incremental = on != 0;
}
