/*
 * server.c - a minimal iperf3 server built on libiperf.
 * Usage: server <port> [tests]
 * Serves `tests` tests (default: forever), resetting between them, and
 * gives up after 5 errors in a row.
 */
#include <stdio.h>
#include <stdlib.h>

#include <iperf_api.h>

int
main(int argc, char **argv)
{
	struct iperf_test *test;
	long tests, served = 0;
	int errors = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s <port> [tests]\n", argv[0]);
		return 2;
	}
	tests = argc > 2 ? strtol(argv[2], NULL, 10) : -1;
	test = iperf_new_test();
	if (test == NULL) {
		fprintf(stderr, "%s: error - %s\n", argv[0], iperf_strerror(i_errno));
		return 1;
	}
	iperf_defaults(test);
	iperf_set_test_role(test, 's');
	iperf_set_test_server_port(test, (int)strtol(argv[1], NULL, 10));
	while (tests < 0 || served < tests) {
		int rc = iperf_run_server(test);

		if (rc < 0) {
			fprintf(stderr, "%s: error - %s\n\n", argv[0],
			    iperf_strerror(i_errno));
			if (rc < -1 || ++errors >= 5) {
				fprintf(stderr, "%s: too many errors, exiting\n",
				    argv[0]);
				break;
			}
		} else {
			errors = 0;
		}
		served++;
		iperf_reset_test(test);
	}
	iperf_free_test(test);
	return errors >= 5 ? 1 : 0;
}
