/*
 * options_util.c - what the apply functions and the checks share:
 * argument conversions, and which options the command line gave.
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

#include "iperf.h"
#include "iperf_error.h"
#include "options_int.h"
#include "units.h"
#include "util.h"
#include "test_config.h"
#include "banned.h"


int
options_units(struct iperf_test *test, const char *arg, enum units_kind kind,
    double *out)
{
	if (units_parse(arg, kind, out) == -1)
		return iperf_fail_arg(test, IEUNITVAL, arg);
	return 0;
}

/* Copy of `arg` split at the first `sep`: returns the copy (the part
 * before), *rest points after the separator or is NULL. */
char *
options_split(const char *arg, int sep, char **rest)
{
	char *copy = str_dup(arg), *p;

	*rest = NULL;
	if (copy != NULL && (p = strchr(copy, sep)) != NULL) {
		*p = '\0';
		*rest = p + 1;
	}
	return copy;
}

int
options_string(struct iperf_test *test, char **field, const char *arg)
{
	if (str_replace(field, arg) == -1)
		return iperf_fail(test, IENEWTEST, ENOMEM);
	return 0;
}

int
options_int_strict(struct iperf_test *test, const char *option,
    const char *arg, int *out)
{
	char what[128];
	char *end = NULL;
	long v;

	errno = 0;
	v = arg != NULL && *arg != '\0' && *arg != ' ' && *arg != '\t' ?
	    strtol(arg, &end, 10) : 0;
	if (end == NULL || *end != '\0' || errno != 0 || v < INT_MIN ||
	    v > INT_MAX) {
		(void)snprintf(what, sizeof(what), "%.32s: '%.80s'", option,
		    arg != NULL ? arg : "");
		return iperf_fail_arg(test, IEOPTVALUE, what);
	}
	*out = (int)v;
	return 0;
}

int
options_clamp_int(double v)
{
	if (isnan(v))
		return 0;
	if (v >= (double)INT_MAX)
		return INT_MAX;
	if (v <= (double)INT_MIN)
		return INT_MIN;
	return (int)v;
}

uint64_t
options_clamp_u64(double v)
{
	if (isnan(v) || v <= 0)
		return 0;
	if (v >= 18446744073709551615.0)
		return UINT64_MAX;
	return (uint64_t)v;
}

void
options_mark(struct iperf_test *test, enum opt_id id)
{
	unsigned int i = (unsigned int)id;

	test->cfg->opt.opt_seen[i / 64] |= UINT64_C(1) << (i % 64);
}

int
options_seen(const struct iperf_test *test, enum opt_id id)
{
	unsigned int i = (unsigned int)id;

	return (test->cfg->opt.opt_seen[i / 64] >> (i % 64)) & 1u;
}

int
options_list_add(struct iperf_test *test, char ***list, int *count,
    const char *arg)
{
	char **l, *copy = str_dup(arg);

	if (copy == NULL)
		return iperf_fail(test, IENEWTEST, ENOMEM);
	l = realloc(*list, ((size_t)*count + 1) * sizeof(*l));
	if (l == NULL) {
		free(copy);
		return iperf_fail(test, IENEWTEST, ENOMEM);
	}
	l[(*count)++] = copy;
	*list = l;
	return 0;
}
