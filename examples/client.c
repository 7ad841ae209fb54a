/*
 * client.c - a minimal iperf3 client built on libiperf.
 * Usage: client <host> <port> [seconds]
 * Runs one TCP test with JSON output and reports how much JSON it got.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iperf_api.h>

int
main(int argc, char **argv)
{
	struct iperf_test *test;
	char *json;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: %s <host> <port> [seconds]\n", argv[0]);
		return 2;
	}
	test = iperf_new_test();
	if (test == NULL) {
		fprintf(stderr, "%s: error - %s\n", argv[0], iperf_strerror(i_errno));
		return 1;
	}
	iperf_defaults(test);
	iperf_set_test_role(test, 'c');
	iperf_set_test_server_hostname(test, argv[1]);
	iperf_set_test_server_port(test, (int)strtol(argv[2], NULL, 10));
	iperf_set_test_duration(test, argc > 3 ? (int)strtol(argv[3], NULL, 10) : 2);
	iperf_set_test_json_output(test, 1);
	rc = iperf_run_client(test);
	if (rc < 0)
		fprintf(stderr, "%s: error - %s\n", argv[0], iperf_strerror(i_errno));
	json = iperf_get_test_json_output_string(test);
	if (json != NULL)
		fprintf(stderr, "%zu bytes of JSON emitted\n", strlen(json));
	iperf_free_test(test);
	return rc < 0 ? 1 : 0;
}
