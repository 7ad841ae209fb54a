/*
 * options_apply_misc.c - apply functions of the output, timeout, server,
 * authentication and socket-feature options (the rest are in
 * options_apply.c; same conventions).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iperf.h"
#include "iperf_error.h"
#include "options_int.h"
#include "report.h"
#include "util.h"
#include "test_config.h"
#include "banned.h"

#define MIN_RCV_TIMEOUT_MS 100
#define MAX_TIMEOUT_MS 86400000
#define MAX_IDLE_TIMEOUT_S 86400
#define DEBUG_LEVEL_MAX 4
#define MAX_CPU 1024
#define MAX_TOS 255
#define MAX_DSCP 63
#define MAX_FLOWLABEL 0xFFFFF
/* --server-max-bytes: exact in the caps document (a JSON number) */
#define OPT_MAX_SERVER_BYTES 9007199254740992.0

/* strtol base 0, trailing text ignored; -1 if nothing was parsed. */
static int
parse_base0(const char *arg, long *out)
{
	char *end = NULL;

	*out = strtol(arg, &end, 0);
	return end == arg ? -1 : 0;
}

int
opt_apply_pidfile(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->cfg->opt.pidfile, arg);
}

int
opt_apply_logfile(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->cfg->opt.logfile, arg);
}

int
opt_apply_forceflush(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.forceflush = 1;
	return 0;
}

/* -d: level 4; --debug=N: atoi, a negative N means 4. */
int
opt_apply_debug(struct iperf_test *test, const char *arg)
{
	int level = DEBUG_LEVEL_MAX;

	if (arg != NULL) {
		level = parse_atoi(arg);
		if (level < 0)
			level = DEBUG_LEVEL_MAX;
	}
	test->cfg->opt.debug = 1;
	test->cfg->opt.debug_level = level;
	return 0;
}

int
opt_apply_get_server_output(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->settings.get_server_output = 1;
	return 0;
}

int
opt_apply_udp_counters_64bit(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->settings.udp_counters_64bit = 1;
	return 0;
}

int
opt_apply_repeating_payload(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->settings.repeating_payload = 1;
	return 0;
}

int
opt_apply_dont_fragment(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->settings.dont_fragment = 1;
	return 0;
}

int
opt_apply_skip_rx_copy(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->settings.skip_rx_copy = 1;
	return 0;
}

/* -m: without MPTCP the short option ends in the bare usage error. */
int
opt_apply_mptcp(struct iperf_test *test, const char *arg)
{
	(void)arg;
	if (!OPT_HAVE_MPTCP)
		return OPT_APPLY_USAGE;
	test->settings.mptcp = 1;
	test->cfg->opt.mptcp = 1;
	return 0;
}

/* --gsro: always accepted on the client; warns when this host cannot do
 * its part.  The request still goes to the server (gso = gro = 1), which
 * enables its side if it can; each end uses only what it supports. */
int
opt_apply_gsro(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.gsro = 1;
	test->settings.gso = 1;
	test->settings.gro = 1;
	if (!OPT_HAVE_GSO && !OPT_HAVE_GRO)
		report_warning(test, "--gsro requested but UDP GSO/GRO not "
		    "supported on this client; will only be enabled on server "
		    "if supported");
	else if (!OPT_HAVE_GSO)
		report_warning(test, "--gsro requested but UDP GSO not "
		    "supported on this client; will only be enabled on server "
		    "if supported");
	else if (!OPT_HAVE_GRO)
		report_warning(test, "--gsro requested but UDP GRO not "
		    "supported on this client; will only be enabled on server "
		    "if supported");
	return 0;
}

int
opt_apply_xbind(struct iperf_test *test, const char *arg)
{
	return options_list_add(test, &test->cfg->opt.xbind,
	    &test->cfg->opt.xbind_count, arg);
}

int
opt_apply_fq_rate(struct iperf_test *test, const char *arg)
{
	double v;

	if (!OPT_HAVE_PACING)
		return iperf_fail(test, IEUNIMP, 0);
	if (options_units(test, arg, UNITS_RATE, &v) == -1)
		return -1;
	test->settings.fqrate = options_clamp_u64(v);
	return 0;
}

/* Deprecated: says so on stdout (as 3.21 does) and turns fq-rate off. */
int
opt_apply_no_fq_socket_pacing(struct iperf_test *test, const char *arg)
{
	(void)arg;
	if (!OPT_HAVE_PACING)
		return iperf_fail(test, IEUNIMP, 0);
	(void)printf("Warning:  --no-fq-socket-pacing is deprecated\n");
	test->settings.fqrate = 0;
	return 0;
}

int
opt_apply_pacing_timer(struct iperf_test *test, const char *arg)
{
	double v;

	if (options_units(test, arg, UNITS_SIZE, &v) == -1)
		return -1;
	test->settings.pacing_timer = options_clamp_int(v);
	return 0;
}

int
opt_apply_connect_timeout(struct iperf_test *test, const char *arg)
{
	double v;

	if (options_units(test, arg, UNITS_SIZE, &v) == -1)
		return -1;
	test->cfg->opt.connect_timeout_ms = options_clamp_int(v);
	return 0;
}

int
opt_apply_rcv_timeout(struct iperf_test *test, const char *arg)
{
	int v = parse_atoi(arg);

	if (v < MIN_RCV_TIMEOUT_MS || v > MAX_TIMEOUT_MS)
		return iperf_fail(test, IERCVTIMEOUT, 0);
	test->cfg->opt.rcv_timeout_ms = v;
	return 0;
}

/* --snd-timeout: without TCP_USER_TIMEOUT, the bare usage error. */
int
opt_apply_snd_timeout(struct iperf_test *test, const char *arg)
{
	int v = parse_atoi(arg);

	if (!OPT_HAVE_USER_TIMEOUT)
		return OPT_APPLY_USAGE;
	if (v < 0 || v > MAX_TIMEOUT_MS)
		return iperf_fail(test, IESNDTIMEOUT, 0);
	test->cfg->opt.snd_timeout_ms = v;
	test->cfg->opt.snd_timeout_set = 1;
	return 0;
}

/* Next '/'-separated part of s (may be empty): its atoi value; *s moves
 * past the part and its separator. */
static int
next_part(const char **s)
{
	const char *p = *s, *slash;
	int v;

	if (p == NULL)
		return 0;
	v = parse_atoi(p);
	slash = strchr(p, '/');
	*s = slash != NULL ? slash + 1 : NULL;
	return v;
}

/* --cntl-ka[=idle/intv/cnt]: every part optional (0 = system default);
 * a nonzero idle must be positive and exceed intv * cnt. */
int
opt_apply_cntl_ka(struct iperf_test *test, const char *arg)
{
	struct iperf_local *o = &test->cfg->opt;
	const char *p = arg;
	int idle, intvl, cnt;

	idle = next_part(&p);
	intvl = next_part(&p);
	cnt = next_part(&p);
	if (idle != 0 && (idle < 0 || (long long)idle <=
	    (long long)intvl * (long long)cnt))
		return iperf_fail(test, IECNTLKA, 0);
	o->cntl_ka = 1;
	o->no_cntl_ka = 0;
	o->cntl_ka_idle = idle;
	o->cntl_ka_intvl = intvl;
	o->cntl_ka_cnt = cnt;
	return 0;
}

/* --no-cntl-ka (ours): no keepalive on the control connection, as stock
 * iperf3 without --cntl-ka; a later --cntl-ka turns it on again. */
int
opt_apply_no_cntl_ka(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.cntl_ka = 0;
	test->cfg->opt.no_cntl_ka = 1;
	return 0;
}

/* --no-udp-offload (ours): UDP GSO/GRO between two of our programs is
 * neither asked for (client) nor granted (server); --gsro still works. */
int
opt_apply_no_udp_offload(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.no_udp_offload = 1;
	return 0;
}

/* --rr (ours): request/response transactions (ext.h EXT_RR). */
int
opt_apply_rr(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->settings.rr = 1;
	return 0;
}

#ifdef HAVE_RPM
/* --rpm (ours): responsiveness of a TCP upload (ext.h EXT_RPM). */
int
opt_apply_rpm(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->settings.rpm = 1;
	return 0;
}
#endif

/* --rr-response N[KMG] (ours): bytes of each response; checked with the
 * other --rr rules once the protocol is known (options_check.c). */
int
opt_apply_rr_response(struct iperf_test *test, const char *arg)
{
	double v;

	if (options_units(test, arg, UNITS_SIZE, &v) == -1)
		return -1;
	test->settings.rr_response = options_clamp_int(v);
	if (test->settings.rr_response < 1)
		return iperf_fail(test, IERRRESPONSE, 0);
	return 0;
}

/* --latency (ours): request/response latency on a probe connection,
 * idle and under the test's load (ext.h EXT_LATENCY). */
int
opt_apply_latency(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.latency = 1;
	return 0;
}

#ifdef HAVE_OWD
/* --owd (ours): one-way delay both ways, with the clock offset measured
 * on the --latency probe (ext.h EXT_OWD). */
int
opt_apply_owd(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.latency = 1;
	test->cfg->opt.owd = 1;
	return 0;
}
#endif

/* --max-tests N (ours): tests a server runs at once, 1 (stock) to
 * IPERF_MAX_TESTS. */
int
opt_apply_max_tests(struct iperf_test *test, const char *arg)
{
	int v;

	if (options_int_strict(test, "--max-tests", arg, &v) == -1)
		return -1;
	if (v < 1 || v > IPERF_MAX_TESTS)
		return iperf_fail(test, IEMAXTESTS, 0);
	test->cfg->opt.max_tests = v;
	return 0;
}

/* --max-tests-per-ip M (ours): of those, at most M from one address
 * (needs --max-tests: options_check.c). */
int
opt_apply_max_tests_per_ip(struct iperf_test *test, const char *arg)
{
	int v;

	if (options_int_strict(test, "--max-tests-per-ip", arg, &v) == -1)
		return -1;
	if (v < 1 || v > IPERF_MAX_TESTS)
		return iperf_fail(test, IEMAXTESTSPERIP, 0);
	test->cfg->opt.max_tests_per_ip = v;
	return 0;
}

int
opt_apply_idle_timeout(struct iperf_test *test, const char *arg)
{
	int v = parse_atoi(arg);

	if (v < 1 || v > MAX_IDLE_TIMEOUT_S)
		return iperf_fail(test, IEIDLETIMEOUT, 0);
	test->cfg->opt.idle_timeout_s = v;
	return 0;
}

int
opt_apply_server_max_duration(struct iperf_test *test, const char *arg)
{
	int v = parse_atoi(arg);

	if (v < 0 || v > IPERF_MAX_TIME_S)
		return iperf_fail(test, IEDURATION, 0);
	test->cfg->opt.max_server_duration_s = v;
	return 0;
}

#ifdef HAVE_OPERATOR /* the operator's server (--disable-operator) */
/* --server-max-bytes BYTES (ours): per test, both directions added;
 * the suffixes of -n; 0 is no cap. */
int
opt_apply_server_max_bytes(struct iperf_test *test, const char *arg)
{
	char what[128];
	double v;

	if (options_units(test, arg, UNITS_SIZE, &v) == -1)
		return -1;
	if (!(v >= 0 && v <= OPT_MAX_SERVER_BYTES)) {
		(void)snprintf(what, sizeof(what), "--server-max-bytes: '%.40s' "
		    "(0 to 8192T)", arg);
		return iperf_fail_arg(test, IEOPTVALUE, what);
	}
	test->cfg->opt.max_server_bytes = options_clamp_u64(v);
	return 0;
}

/* --server-max-streams N (ours): per test, every direction (-P x 2 with
 * --bidir); 0 is no cap. */
int
opt_apply_server_max_streams(struct iperf_test *test, const char *arg)
{
	char what[128];
	int v;

	if (options_int_strict(test, "--server-max-streams", arg, &v) == -1)
		return -1;
	if (v < 0 || v > 2 * IPERF_MAX_STREAMS) {
		(void)snprintf(what, sizeof(what), "--server-max-streams: '%.40s' "
		    "(0 to %d)", arg, 2 * IPERF_MAX_STREAMS);
		return iperf_fail_arg(test, IEOPTVALUE, what);
	}
	test->cfg->opt.max_server_streams = v;
	return 0;
}

/* --no-clamp (ours): ask no server to clamp the test to its caps; a
 * server with caps then refuses what is beyond them, as 3.21 does. */
int
opt_apply_no_clamp(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.no_clamp = 1;
	return 0;
}
#endif

#ifdef HAVE_EXPORTER_STUB
/* --exporter in a build without libmicrohttpd: said once, then the
 * usage, exit 1. */
int
opt_apply_exporter(struct iperf_test *test, const char *arg)
{
	(void)arg;
	report_stderr(test, "iperf3: error - built without the exporter\n");
	return OPT_APPLY_USAGE;
}
#endif

int
opt_apply_username(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->cfg->opt.auth_username, arg);
}

int
opt_apply_rsa_public_key(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->cfg->opt.auth_public_key_path, arg);
}

int
opt_apply_rsa_private_key(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->cfg->opt.auth_private_key_path, arg);
}

int
opt_apply_authorized_users(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->cfg->opt.auth_users_path, arg);
}

int
opt_apply_skew_threshold(struct iperf_test *test, const char *arg)
{
	int v = parse_atoi(arg);

	if (v <= 0)
		return iperf_fail(test, IESKEWTHRESHOLD, 0);
	test->cfg->opt.auth_skew_threshold_s = v;
	return 0;
}

int
opt_apply_use_pkcs1_padding(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.use_pkcs1_padding = 1;
	return 0;
}

int
opt_apply_tos(struct iperf_test *test, const char *arg)
{
	long v;

	if (parse_base0(arg, &v) == -1 || v < 0 || v > MAX_TOS)
		return iperf_fail(test, IEBADTOS, 0);
	test->settings.tos = (int)v;
	return 0;
}

struct dscp_name {
	const char *name;
	int tos;
};

/* DSCP names and the TOS byte each one gives. */
static const struct dscp_name dscp_names[] = {
	{ "af11", 0x28 }, { "af12", 0x30 }, { "af13", 0x38 },
	{ "af21", 0x48 }, { "af22", 0x50 }, { "af23", 0x58 },
	{ "af31", 0x68 }, { "af32", 0x70 }, { "af33", 0x78 },
	{ "af41", 0x88 }, { "af42", 0x90 }, { "af43", 0x98 },
	{ "cs0", 0x00 }, { "cs1", 0x20 }, { "cs2", 0x40 }, { "cs3", 0x60 },
	{ "cs4", 0x80 }, { "cs5", 0xa0 }, { "cs6", 0xc0 }, { "cs7", 0xe0 },
	{ "ef", 0xb8 }, { "va", 0xb0 },
	{ "lowdelay", 0x10 }, { "throughput", 0x08 }, { "reliability", 0x04 },
};

/* --dscp: a number 0-63 (base 0, the whole text) or a name. */
int
opt_apply_dscp(struct iperf_test *test, const char *arg)
{
	char *end = NULL;
	long v = strtol(arg, &end, 0);
	size_t i;

	if (end != arg && *end == '\0') {
		if (v < 0 || v > MAX_DSCP)
			return iperf_fail(test, IEBADTOS, 0);
		test->settings.tos = (int)(v << 2);
		return 0;
	}
	for (i = 0; i < sizeof(dscp_names) / sizeof(dscp_names[0]); i++) {
		if (strcasecmp(arg, dscp_names[i].name) == 0) {
			test->settings.tos = dscp_names[i].tos;
			return 0;
		}
	}
	return iperf_fail(test, IEBADTOS, 0);
}

int
opt_apply_flowlabel(struct iperf_test *test, const char *arg)
{
	long v;

	if (!OPT_HAVE_FLOWLABEL)
		return iperf_fail(test, IEUNIMP, 0);
	if (parse_base0(arg, &v) == -1 || v < 1 || v > MAX_FLOWLABEL)
		return iperf_fail(test, IESETFLOW, 0);
	test->settings.flowlabel = (int)v;
	return 0;
}

/* -A n[,m]: n local (strtol base 0), m for the server (atoi). */
int
opt_apply_affinity(struct iperf_test *test, const char *arg)
{
	char *m, *n = options_split(arg, ',', &m);
	long cpu;
	int srv = -1, bad;

	if (!OPT_HAVE_AFFINITY) {
		free(n);
		return iperf_fail(test, IEUNIMP, 0);
	}
	if (n == NULL)
		return iperf_fail(test, IENEWTEST, ENOMEM);
	if (m != NULL)
		srv = parse_atoi(m);
	bad = parse_base0(n, &cpu) == -1 || cpu < 0 || cpu > MAX_CPU ||
	    (m != NULL && (srv < 0 || srv > MAX_CPU));
	free(n);
	if (bad)
		return iperf_fail(test, IEAFFINITY, 0);
	test->cfg->opt.affinity = (int)cpu;
	if (m != NULL) {
		test->settings.server_affinity = srv;
		options_mark(test, OPT_ID_SERVER_AFFINITY);
	}
	return 0;
}
