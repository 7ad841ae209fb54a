/*
 * options.h - the command line: a declarative option table, parsing in
 * argv order with the per-option checks of iperf3 3.21, then the
 * post-parse rules, and the help/usage/version texts.
 */
#ifndef IPERF_OPTIONS_H
#define IPERF_OPTIONS_H

#include <stdio.h>

struct iperf_test;

enum options_action {
	OPTIONS_RUN = 0,     /* run the test */
	OPTIONS_HELP,        /* -h seen: print usage_long to stdout, exit 0 */
	OPTIONS_VERSION,     /* -v seen: print the version, exit 0 */
	OPTIONS_GETOPT_ERROR /* getopt printed its message: usage, exit 1 */
};

/*
 * Parse argv into the test (settings and local options).  Returns 0 with
 * *action set, or -1 with the parameter error recorded on test->err (the
 * caller prints "iperf3: parameter error - <msg>").
 */
int options_parse(struct iperf_test *test, int argc, char **argv,
    enum options_action *action);

/* Short usage (2 lines) and the full help text. */
void options_print_usage(FILE *f);
void options_print_help(FILE *f);
/* The three -v lines. */
void options_print_version(FILE *f);
/* "Optional features available: ..." list (without the prefix). */
void options_features(char *buf, size_t len);

#endif /* IPERF_OPTIONS_H */
