/*
 * fuzz_options.c - command lines: the input is split at NUL bytes into at
 * most 64 arguments, parsed on a fresh test (as iperf_parse_arguments
 * would, without its exits).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "iperf.h"
#include "options.h"

#define FUZZ_MAX_ARGS 64

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_strndup(data, size);
	char *argv[FUZZ_MAX_ARGS + 2];
	int argc = 1;
	size_t i, start = 0;
	struct iperf_test *t;
	enum options_action action;
	static int quiet;
	static char prog[] = "iperf3";

	if (!quiet) {
		/* getopt and warnings print to stderr; keep the run readable */
		quiet = freopen("/dev/null", "w", stderr) != NULL;
	}
	argv[0] = prog;
	for (i = 0; i <= size && argc <= FUZZ_MAX_ARGS; i++) {
		if (i == size || buf[i] == '\0') {
			argv[argc++] = buf + start;
			start = i + 1;
		}
	}
	argv[argc] = NULL;
	t = iperf_new_test();
	if (t == NULL)
		abort();
	iperf_defaults(t);
	(void)options_parse(t, argc, argv, &action);
	iperf_free_test(t);
	free(buf);
	return 0;
}
