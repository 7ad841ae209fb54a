/*
 * options.c - the parser.  options_parse() builds the getopt_long()
 * arrays from the option table (options_table.c), applies the options in
 * argv order (the parse-time checks of iperf3 3.21, first failure wins),
 * then runs the post-parse rules (options_check.c).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "iperf.h"
#include "iperf_error.h"
#include "options.h"
#include "options_int.h"
#include "report.h"
#include "test.h"
#include "units.h"
#include "util.h"
#include "test_config.h"
#include "banned.h"

#define OPT_SHORT_MAX 128

/* The short option string: each short key once, ':' when the short form
 * takes an argument (only required arguments; "-d" takes none). */
static void
build_short(char *buf, size_t len)
{
	size_t i, n = 0;
	int key;

	for (i = 0; i < options_table_len; i++) {
		key = options_table[i].key;
		if (key <= 0 || key >= OPT_KEY_LONG ||
		    memchr(buf, key, n) != NULL || n + 3 > len)
			continue;
		buf[n++] = (char)key;
		if (options_table[i].has_arg == required_argument)
			buf[n++] = ':';
	}
	buf[n] = '\0';
}

/* The getopt_long array: every row whose long name exists in this build. */
static void
build_long(struct option *lo, size_t cap)
{
	size_t i, n = 0;

	for (i = 0; i < options_table_len && n + 1 < cap; i++) {
		if (options_table[i].name == NULL || !options_table[i].has_long)
			continue;
		lo[n].name = options_table[i].name;
		lo[n].has_arg = options_table[i].has_arg;
		lo[n].flag = NULL;
		lo[n].val = options_table[i].key;
		n++;
	}
	memset(&lo[n], 0, sizeof(lo[n]));
}

static const struct opt_row *
row_for_key(int key)
{
	size_t i;

	for (i = 0; i < options_table_len; i++) {
		if (options_table[i].key == key && options_table[i].apply != NULL)
			return &options_table[i];
	}
	return NULL;
}

/*
 * One getopt_long() result.  Returns 0 to go on, 1 to stop with *action
 * set, -1 on a parameter error.
 */
static int
apply_one(struct iperf_test *test, int key, enum options_action *action)
{
	const struct opt_row *row = row_for_key(key);
	int rc;

	if (row == NULL) { /* '?' or ':': getopt printed the reason */
		*action = OPTIONS_GETOPT_ERROR;
		return 1;
	}
	rc = row->apply(test, optarg);
	switch (rc) {
	case 0:
		options_mark(test, row->id);
		return 0;
	case OPT_APPLY_HELP:
		*action = OPTIONS_HELP;
		return 1;
	case OPT_APPLY_VERSION:
		*action = OPTIONS_VERSION;
		return 1;
	case OPT_APPLY_USAGE:
		*action = OPTIONS_GETOPT_ERROR;
		return 1;
	default:
		return -1;
	}
}

/*
 * A parameter error: leave errno as recorded (0 for all of them), so
 * that a caller printing iperf_strerror(i_errno) shows the bare ": " of
 * the errno-bearing texts exactly as 3.21 does, not a stale errno.
 */
static int
parse_failed(struct iperf_test *test)
{
	errno = test->run.err.sys_errno;
	return -1;
}

int
options_parse(struct iperf_test *test, int argc, char **argv,
    enum options_action *action)
{
	struct option lo[OPTIONS_TABLE_MAX + 1];
	char so[OPT_SHORT_MAX];
	int key, rc;

	*action = OPTIONS_RUN;
	build_short(so, sizeof(so));
	build_long(lo, sizeof(lo) / sizeof(lo[0]));
	memset(test->cfg->opt.opt_seen, 0, sizeof(test->cfg->opt.opt_seen));
	optind = 0; /* full re-initialisation, so we can be called again */
	opterr = 1;
	while ((key = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		rc = apply_one(test, key, action);
		if (rc == 1)
			return 0;
		if (rc == -1)
			return parse_failed(test);
	}
	if (options_check(test) == -1)
		return parse_failed(test);
	test_update_mode(test);
	report_select(test);
	return 0;
}
