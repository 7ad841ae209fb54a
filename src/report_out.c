/*
 * report_out.c - the tee reporter in front of the text, JSON or CSV one
 * when side outputs (--plot, --metrics) are asked for, and the dispatch of
 * records to their sinks (report_out.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "iperf_error.h"
#include "report.h"
#include "report_int.h"
#include "report_out.h"
#include "report_plot.h"
#include "stream.h"
#include "banned.h"

/* Every sink this build has, in the order they are fed. */
static const struct out_sink *const sinks[] = {
	&report_metrics,
	&report_plot_sink,
	NULL,
};

#define NSINKS (sizeof(sinks) / sizeof(sinks[0]) - 1)

struct report_out {
	void *st[NSINKS + 1]; /* per sink: its state, NULL when not wanted */
};

int
report_out_wanted(const struct iperf_test *test)
{
	size_t i;

	for (i = 0; sinks[i] != NULL; i++)
		if (sinks[i]->wanted(test))
			return 1;
	return 0;
}

void
report_out_release(struct iperf_test *test)
{
	struct report_out *o = test->run.out;
	size_t i;

	if (o == NULL)
		return;
	for (i = 0; sinks[i] != NULL; i++)
		if (o->st[i] != NULL)
			sinks[i]->release(o->st[i]);
	free(o);
	test->run.out = NULL;
}

static void
tee_begin(struct iperf_test *test)
{
	struct report_out *o;
	size_t i;

	test->report_main->begin(test);
	report_out_release(test); /* a server's previous test */
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return;
	for (i = 0; sinks[i] != NULL; i++)
		if (sinks[i]->wanted(test))
			o->st[i] = sinks[i]->open(test);
	test->run.out = o;
}

static void
tee_interval(struct iperf_test *test)
{
	struct report_out *o = test->run.out;
	cJSON *iv;
	size_t i;

	test->report_main->interval(test);
	if (o == NULL)
		return;
	iv = report_json_interval(test);
	if (iv == NULL)
		return;
	for (i = 0; sinks[i] != NULL; i++)
		if (o->st[i] != NULL)
			sinks[i]->interval(test, o->st[i], iv);
	cJSON_Delete(iv);
}

static void
tee_summary(struct iperf_test *test)
{
	struct report_out *o = test->run.out;
	cJSON *end;
	size_t i;

	test->report_main->summary(test);
	if (o == NULL)
		return;
	end = report_json_end(test);
	if (end == NULL)
		return;
	for (i = 0; sinks[i] != NULL; i++)
		if (o->st[i] != NULL)
			sinks[i]->summary(test, o->st[i], end);
	cJSON_Delete(end);
}

/* Write each file; a failure is an error line on stderr and the exit
 * status 1 (the report itself is complete). */
static void
tee_finish(struct iperf_test *test)
{
	struct report_out *o = test->run.out;
	size_t i;

	test->report_main->finish(test);
	if (o == NULL)
		return;
	for (i = 0; sinks[i] != NULL; i++) {
		if (o->st[i] == NULL || sinks[i]->finish(test, o->st[i]) == 0)
			continue;
		report_stderr(test, "iperf3: error - unable to write the %s "
		    "file: %s\n", sinks[i]->name, strerror(errno));
		/* the client's iperf_run_client() fails with it */
		(void)iperf_fail(test, IEOUTFILE, errno);
		test->out_failed = 1;
	}
	report_out_release(test);
}

/* The events the sinks do not need, passed on. */
static void
tee_server_listening(struct iperf_test *test)
{
	test->report_main->server_listening(test);
}

static void
tee_on_params(struct iperf_test *test)
{
	test->report_main->on_params(test);
}

static void
tee_on_connect(struct iperf_test *test)
{
	test->report_main->on_connect(test);
}

static void
tee_on_new_stream(struct iperf_stream *sp)
{
	sp->test->report_main->on_new_stream(sp);
}

static void
tee_on_test_start(struct iperf_test *test)
{
	test->report_main->on_test_start(test);
}

static void
tee_error(struct iperf_test *test, const char *msg)
{
	test->report_main->error(test, msg);
}

const struct report_ops report_tee = {
	.begin = tee_begin,
	.server_listening = tee_server_listening,
	.on_params = tee_on_params,
	.on_connect = tee_on_connect,
	.on_new_stream = tee_on_new_stream,
	.on_test_start = tee_on_test_start,
	.interval = tee_interval,
	.summary = tee_summary,
	.finish = tee_finish,
	.error = tee_error,
};
