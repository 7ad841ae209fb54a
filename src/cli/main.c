/*
 * main.c - the iperf3 program: arguments, signals, the server loop and
 * the exit status (--exporter: exporter/).  The only file that calls
 * exit().
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_cli.h"
#ifdef HAVE_EXPORTER
#include "exporter.h"
#endif
#include "iperf_api.h"

/* The test the signal handler interrupts (process-level, CLI only). */
static struct iperf_test *current_test;

static void
on_signal(int sig)
{
	if (current_test != NULL)
		iperf_test_interrupt(current_test, sig);
}

static int
run_client(struct iperf_test *test)
{
	if (iperf_run_client(test) < 0)
		return iperf_get_test_interrupt_signal(test) != 0 ? 0 : 1;
	return 0;
}

/* -D: detach as daemon(3) with nochdir=1, noclose=0 (3.17+). */
static int
become_daemon(struct iperf_test *test)
{
	if (!iperf_get_test_daemon(test))
		return 0;
#ifdef HAVE_DAEMON
	if (daemon(1, 0) == 0)
		return 0;
#else
	errno = ENOSYS;
#endif
	iperf_err(test, "error - %s", iperf_strerror(IEDAEMON));
	return -1;
}

/* -I: after daemon() (the pid changes), before the run. */
static int
write_pidfile(struct iperf_test *test)
{
	if (iperf_create_pidfile(test) == 0)
		return 0;
	if (errno == EEXIST)
		iperf_err(test, "Another instance of iperf3 appears to be running");
	else
		iperf_err(test, "error - %s", iperf_get_test_error_string(test));
	return -1;
}

static int
run_server(struct iperf_test *test)
{
	for (;;) {
		int rc = iperf_run_server(test);

		if (iperf_get_test_interrupt_signal(test) != 0)
			return 0;
		if (rc == -2) {
			if (!iperf_get_test_json_output(test))
				(void)fprintf(stderr, "iperf3: exiting\n");
			return 1;
		}
		/* -1 serves one test; a refused authentication is not one. */
		if (iperf_get_test_one_off(test) &&
		    !(rc < 0 && i_errno == IEAUTHTEST))
			return 0;
		iperf_reset_test(test);
	}
}

int
main(int argc, char **argv)
{
	struct iperf_test *test;
	int rc;

	(void)signal(SIGPIPE, SIG_IGN);
	test = iperf_new_test();
	if (test == NULL) {
		(void)fprintf(stderr, "iperf3: error - %s\n",
		    iperf_strerror(IENEWTEST));
		return 1;
	}
	iperf_defaults(test);
	if (iperf_parse_arguments(test, argc, argv) < 0) {
		(void)fflush(stdout);
		(void)fprintf(stderr, "iperf3: parameter error - %s\n\n",
		    iperf_get_test_error_string(test));
		usage();
		iperf_free_test(test);
		return 1;
	}
	if (iperf_open_logfile(test) < 0) {
		if (!(iperf_get_test_json_output(test) &&
			iperf_get_test_role(test) == 'c'))
			(void)fprintf(stderr, "iperf3: error - %s\n",
			    iperf_get_test_error_string(test));
		iperf_free_test(test);
		return 1;
	}
	if (become_daemon(test) == -1 || write_pidfile(test) == -1) {
		iperf_free_test(test);
		return 1;
	}
	/* -J goes out as the run goes (the library keeps it whole). */
	iperf_cli_json_incremental(test, 1);
	current_test = test;
	iperf_catch_sigend(on_signal);
#ifdef HAVE_EXPORTER
	if (iperf_get_test_role(test) == 'e')
		rc = exporter_main(test);
	else
#endif
	if (iperf_get_test_role(test) == 'c')
		rc = run_client(test);
	else
		rc = run_server(test);
	current_test = NULL;
	(void)iperf_delete_pidfile(test);
	iperf_free_test(test);
	return rc;
}
