/*
 * options_apply_server.c - the options of a server for operators:
 * admission by source (--allow, --deny, --allow-file,
 * --max-tests-per-prefix, --accept-rate), a port range (-p A-B), the
 * audit trail (--audit-log) and live metrics (--metrics-listen).  Each
 * value is checked here, so a bad one stops the program at start with
 * an iperf3-style error; server/ applies them.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "cidr.h"
#include "http.h"
#include "iperf.h"
#include "iperf_error.h"
#include "options_int.h"
#include "tbucket.h"
#include "test_config.h"
#include "util.h"
#include "banned.h"

/* Most ports one server listens on (-p A-B), and the highest port. */
#define OPT_MAX_PORT_RANGE 128
#define OPT_MAX_PORT 65535

static int
server_opt_fail(struct iperf_test *test, const char *option, const char *arg,
    const char *why)
{
	char msg[300];

	(void)snprintf(msg, sizeof(msg), "invalid value for %s: '%.120s'%s%s",
	    option, arg, why != NULL ? " - " : "", why != NULL ? why : "");
	return iperf_fail_arg(test, IESERVEROPT, msg);
}

/* A CIDR checked, then kept in its list (--allow or --deny). */
static int
add_cidr(struct iperf_test *test, const char *option, char ***list,
    int *count, const char *arg)
{
	struct cidr c;

	if (cidr_parse(arg, &c) == -1)
		return server_opt_fail(test, option, arg,
		    "an address or ADDRESS/PREFIX");
	return options_list_add(test, list, count, arg);
}

int
opt_apply_allow(struct iperf_test *test, const char *arg)
{
	return add_cidr(test, "--allow", &test->cfg->opt.allow,
	    &test->cfg->opt.allow_count, arg);
}

int
opt_apply_deny(struct iperf_test *test, const char *arg)
{
	return add_cidr(test, "--deny", &test->cfg->opt.deny,
	    &test->cfg->opt.deny_count, arg);
}

/* The file is read now, so that a bad one stops the server at start;
 * the server reads it again when it opens, and on SIGHUP. */
int
opt_apply_allow_file(struct iperf_test *test, const char *arg)
{
	char err[256], msg[512];
	struct acl *a = acl_new();
	int rc;

	if (a == NULL)
		return iperf_fail(test, IENEWTEST, ENOMEM);
	rc = acl_load_file(a, arg, err, sizeof(err));
	acl_free(a);
	if (rc == -1) {
		(void)snprintf(msg, sizeof(msg), "unable to use --allow-file "
		    "%.120s: %s", arg, err);
		return iperf_fail_arg(test, IESERVEROPT, msg);
	}
	return options_string(test, &test->cfg->opt.allow_file, arg);
}

int
opt_apply_max_tests_per_prefix(struct iperf_test *test, const char *arg)
{
	int v;

	if (options_int_strict(test, "--max-tests-per-prefix", arg, &v) == -1)
		return -1;
	if (v < 1 || v > IPERF_MAX_TESTS)
		return server_opt_fail(test, "--max-tests-per-prefix", arg,
		    "a number of tests from 1 to 64");
	test->cfg->opt.max_tests_per_prefix = v;
	return 0;
}

int
opt_apply_accept_rate(struct iperf_test *test, const char *arg)
{
	double rate, burst;

	if (tbucket_parse(arg, &rate, &burst) == -1)
		return server_opt_fail(test, "--accept-rate", arg,
		    "N[/SECONDS][:BURST], N from 1 to 1000000");
	test->cfg->opt.accept_rate = rate;
	test->cfg->opt.accept_burst = burst;
	return 0;
}

int
opt_apply_audit_log(struct iperf_test *test, const char *arg)
{
	if (arg[0] == '\0')
		return server_opt_fail(test, "--audit-log", arg, "a file or -");
	return options_string(test, &test->cfg->opt.audit_log, arg);
}

int
opt_apply_metrics_listen(struct iperf_test *test, const char *arg)
{
	char addr[128], msg[300];
	int port;

	if (!http_built()) {
		(void)snprintf(msg, sizeof(msg), "--metrics-listen is not "
		    "available: this iperf3 was built without libmicrohttpd "
		    "(HTTP support)");
		return iperf_fail_arg(test, IESERVEROPT, msg);
	}
	if (http_parse_listen(arg, "127.0.0.1", addr, sizeof(addr), &port) ==
	    -1 || port == 0)
		return server_opt_fail(test, "--metrics-listen", arg,
		    "[ADDRESS:]PORT");
	return options_string(test, &test->cfg->opt.metrics_listen, arg);
}

/* -p A-B (a server's range).  Returns 1 when arg is not a range. */
int
options_port_range(struct iperf_test *test, const char *arg)
{
	const char *dash = strchr(arg, '-');
	char *end;
	long a, b;

	if (dash == NULL || dash == arg)
		return 1;
	errno = 0;
	a = strtol(arg, &end, 10);
	if (end != dash || errno != 0)
		return 1;
	b = strtol(dash + 1, &end, 10);
	if (*end != '\0' || dash[1] < '0' || dash[1] > '9' || errno != 0 ||
	    a < 1 || b > OPT_MAX_PORT || a > b)
		return server_opt_fail(test, "-p", arg,
		    "a port range is FIRST-LAST, from 1 to 65535");
	if (b - a >= OPT_MAX_PORT_RANGE)
		return server_opt_fail(test, "-p", arg,
		    "a range has at most 128 ports");
	test->cfg->opt.server_port = (int)a;
	test->cfg->opt.server_port_last = a == b ? 0 : (int)b;
	return 0;
}
