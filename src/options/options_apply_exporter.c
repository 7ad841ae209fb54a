/*
 * options_apply_exporter.c - the options of iperf3 --exporter (the
 * role 'e', exporter/): the listening address, the allowed targets and
 * the caps of a probe.  Each value is checked here, so that a bad one
 * stops the program at start; names in --exporter-allow are resolved
 * when the exporter starts.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "iperf.h"
#include "iperf_error.h"
#include "options_int.h"
#include "test_config.h"
#include "units.h"
#include "util.h"
#include "banned.h"

/* The longest period an operator may allow (a day), the most probes at
 * once. */
#define EXP_MAX_PERIOD_CAP_S 86400.0
#define EXP_MAX_PROBES_CAP 64
#define EXP_ALLOW_MAX_LEN 253

static int
exporter_opt_fail(struct iperf_test *test, const char *option,
    const char *arg, const char *why)
{
	char what[200];

	(void)snprintf(what, sizeof(what), "%s: '%.80s' (%s)", option, arg, why);
	return iperf_fail_arg(test, IEOPTVALUE, what);
}

/* --exporter [ADDR:]PORT: this process is the exporter. */
int
opt_apply_exporter(struct iperf_test *test, const char *arg)
{
	char addr[64];
	int port;

	if (http_parse_listen(arg, "127.0.0.1", addr, sizeof(addr), &port) == -1)
		return exporter_opt_fail(test, "--exporter", arg, "[ADDR:]PORT, "
		    "ADDR a numeric address, [ADDR] for IPv6, PORT 0 to 65535");
	return options_string(test, &test->cfg->opt.exporter_listen, arg);
}

/* --exporter-allow HOST|CIDR (repeatable): a prefix, or a name resolved
 * when the exporter starts. */
int
opt_apply_exporter_allow(struct iperf_test *test, const char *arg)
{
	if (arg[0] == '\0' || arg[0] == '-' || strlen(arg) > EXP_ALLOW_MAX_LEN)
		return exporter_opt_fail(test, "--exporter-allow", arg,
		    "a host name, an address or ADDRESS/PREFIX");
	return options_list_add(test, &test->cfg->opt.exporter_allow,
	    &test->cfg->opt.exporter_allow_count, arg);
}

/* --exporter-max-period SECS: the longest period a probe may ask. */
int
opt_apply_exporter_max_period(struct iperf_test *test, const char *arg)
{
	char *end = NULL;
	double v;

	errno = 0;
	v = arg[0] != '\0' && arg[0] != ' ' ? strtod(arg, &end) : -1.0;
	if (end == NULL || *end != '\0' || errno != 0 || !(v > 0) ||
	    v > EXP_MAX_PERIOD_CAP_S)
		return exporter_opt_fail(test, "--exporter-max-period", arg,
		    "seconds, above 0 and at most 86400");
	test->cfg->opt.exporter_max_period = v;
	return 0;
}

/* --exporter-max-bitrate RATE: -b's units; 0 is no cap. */
int
opt_apply_exporter_max_bitrate(struct iperf_test *test, const char *arg)
{
	double v;

	if (options_units(test, arg, UNITS_RATE, &v) == -1)
		return -1;
	if (!(v >= 0 && v < 9.2e18))
		return exporter_opt_fail(test, "--exporter-max-bitrate", arg,
		    "a rate such as 100M, 0 for none");
	test->cfg->opt.exporter_max_bitrate = options_clamp_u64(v);
	return 0;
}

/* --exporter-max-probes N: probes at once (more are answered 503). */
int
opt_apply_exporter_max_probes(struct iperf_test *test, const char *arg)
{
	int v;

	if (options_int_strict(test, "--exporter-max-probes", arg, &v) == -1)
		return -1;
	if (v < 1 || v > EXP_MAX_PROBES_CAP)
		return exporter_opt_fail(test, "--exporter-max-probes", arg,
		    "1 to 64");
	test->cfg->opt.exporter_max_probes = v;
	return 0;
}
