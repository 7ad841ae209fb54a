/* options.c - command line parsing (stub until implemented). */
#include "config.h"

#include <stdio.h>

#include "iperf.h"
#include "iperf_error.h"
#include "options.h"
#include "banned.h"

int
options_parse(struct iperf_test *test, int argc, char **argv,
    enum options_action *action)
{
	(void)argc;
	(void)argv;
	*action = OPTIONS_RUN;
	return iperf_fail(test, IEUNIMP, 0);
}

void options_print_usage(FILE *f) { (void)f; }
void options_print_help(FILE *f) { (void)f; }
void options_print_version(FILE *f) { (void)f; }
void options_features(char *buf, size_t len) { if (len) buf[0] = '\0'; }
