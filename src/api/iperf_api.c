/* iperf_api.c - public lifecycle: new/defaults/free/reset/run, errors. */
#include "config.h"

#include <sys/types.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "affinity.h"
#include "client.h"
#include "ctrl.h"
#include "evloop.h"
#include "iperf.h"
#include "iperf_error.h"
#ifdef HAVE_MULTICAST
#include "mcast_listen.h"
#endif
#include "options.h"
#include "proto.h"
#include "report.h"
#include "run.h"
#include "server.h"
#include "server_accept.h"
#include "server_multi.h"
#include "stream.h"
#include "test.h"
#include "util.h"
#include "test_config.h"
#include "banned.h"

/*
 * The stock library's data object `version`: a NUL-terminated array that
 * bindings read directly (iperf3-python: (c_char * 30).in_dll(lib,
 * "version")) and print or compare as the iperf version.  It holds what
 * the stock 3.21 library holds there, "iperf 3.21", the same text as the
 * JSON start.version, not our own name (that is in `iperf3 -v`).  Its size
 * (11 bytes) is also that of the stock object, so a program linked
 * against the stock library with a copy relocation of it gets the whole
 * text and its NUL.  Deliberately not declared in iperf_api.h (nor is it
 * in upstream's header): a declaration would claim the name `version` in
 * every program that includes the header.  Exported through
 * src/libiperf.sym; tests/scripts/abi.test pins its type and size.
 */
extern const char version[];
const char version[] = "iperf " IPERF_VERSION_COMPAT;

struct iperf_test *
iperf_new_test(void)
{
	return test_new();
}

int
iperf_defaults(struct iperf_test *test)
{
	struct iperf_local *o = &test->cfg->opt;

	test_settings_defaults(test);
	o->server_port = IPERF_DEFAULT_PORT;
	o->domain = AF_UNSPEC;
	o->reporter_interval = 1.0;
	o->stats_interval = 1.0;
	o->unit_format = 'a';
	o->affinity = -1;
	o->connect_timeout_ms = -1;
	o->rcv_timeout_ms = DEFAULT_NO_MSG_RCVD_TIMEOUT;
	o->bitrate_limit_interval = 5.0;
	test->on_new_stream = iperf_on_new_stream;
	test->on_test_start = iperf_on_test_start;
	test->on_connect = iperf_on_connect;
	test->on_test_finish = iperf_on_test_finish;
	report_select(test);
	return 0;
}

void
iperf_reset_test(struct iperf_test *test)
{
	server_abandon_run(test);
	/* A pending interrupt survives the reset: the process is stopping. */
	test_run_release(test);
	test_run_init(test);
	/* A server takes these from each client's parameters. */
	if (test->cfg->opt.role == 's')
		test_settings_defaults(test);
	error_publish(IENONE);
}

void
iperf_free_test(struct iperf_test *test)
{
	if (test == NULL)
		return;
	server_release_test(test);
	if (test->own_outfile && test->outfile != NULL)
		fclose(test->outfile);
	test_delete(test);
}

/* getopt_long() keeps its state in process globals (optind, optarg...):
 * one parse at a time, whichever thread asks. */
static pthread_mutex_t getopt_lock = PTHREAD_MUTEX_INITIALIZER;

int
iperf_parse_arguments(struct iperf_test *test, int argc, char **argv)
{
	enum options_action action = OPTIONS_RUN;
	int rc;

	pthread_mutex_lock(&getopt_lock);
	rc = options_parse(test, argc, argv, &action);
	pthread_mutex_unlock(&getopt_lock);
	if (rc == -1)
		return test_api_fail(test);
	switch (action) {
	case OPTIONS_HELP:
		options_print_help(stdout);
		exit(0); /* upstream-compatible CLI behaviour of this call */
	case OPTIONS_VERSION:
		options_print_version(stdout);
		exit(0);
	case OPTIONS_GETOPT_ERROR:
		(void)fputc('\n', stderr);
		options_print_usage(stderr);
		exit(1);
	case OPTIONS_RUN:
	default:
		break;
	}
	return 0;
}

int
iperf_open_logfile(struct iperf_test *test)
{
	FILE *f;

	if (test->cfg->opt.logfile == NULL)
		return 0;
	f = fopen(test->cfg->opt.logfile, "a+");
	if (f == NULL)
		return iperf_fail(test, IELOGFILE, errno) == -1 ? test_api_fail(test) : -1;
	if (test->own_outfile && test->outfile != NULL)
		fclose(test->outfile);
	test->outfile = f;
	test->own_outfile = 1;
	return 0;
}

void
iperf_close_logfile(struct iperf_test *test)
{
	if (test->own_outfile && test->outfile != NULL)
		fclose(test->outfile);
	test->own_outfile = 0;
	test->outfile = stdout;
}

int
iperf_run_client(struct iperf_test *test)
{
	test->out_failed = 0;
	/* a --plot or --metrics file that could not be written fails the
	 * run, after its report (report_out.c) */
	if (client_run(test) == -1 || test->out_failed)
		return test_api_fail(test);
	return 0;
}

int
iperf_run_server(struct iperf_test *test)
{
	int rc;

	test->cfg->opt.role = 's'; /* whatever the caller had set */
#ifdef HAVE_MULTICAST
	/* --multicast-listen: a receiver, no control connection */
	if (test->opt->mcast_listen != NULL)
		rc = mcast_listen_run(test);
	else
#endif
	rc = server_multi_wanted(test) ? server_multi_run(test) :
					 server_run(test);

	if (rc < 0)
		(void)test_api_fail(test);
	return rc;
}

void
iperf_test_interrupt(struct iperf_test *test, int sig)
{
	if (test != NULL)
		test_interrupt(test, sig);
}

int
iperf_get_test_errno(struct iperf_test *test)
{
	return test->run.err.code;
}

const char *
iperf_get_test_error_string(struct iperf_test *test)
{
	iperf_error_format(&test->run.err, test->errbuf, sizeof(test->errbuf));
	return test->errbuf;
}

int
iperf_get_test_interrupt_signal(struct iperf_test *test)
{
	return test->interrupt_sig;
}

void
iperf_catch_sigend(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGHUP, &sa, NULL);
}

void
usage(void)
{
	options_print_usage(stderr);
}

void
usage_long(FILE *f)
{
	options_print_help(f);
}

void
warning(const char *msg)
{
	(void)fprintf(stderr, "warning: %s\n", msg);
}
