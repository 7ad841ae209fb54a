/*
 * options_apply.c - one function per option: check the argument the way
 * iperf3 3.21 does while parsing, and store it on the test.  Each returns
 * 0, -1 with the error recorded, or an OPT_APPLY_* request.
 *
 * Number conventions (3.21's, docs/iperf3.1): plain integers use atoi
 * semantics (parse_atoi), -i and averaging intervals use atof semantics,
 * -S/-L/-A use strtol base 0 (an empty parse is an error), sizes and
 * rates go through units_parse (IEUNITVAL quotes the text).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iperf.h"
#include "iperf_error.h"
#include "options_int.h"
#include "proto.h"
#include "report.h"
#include "units.h"
#include "util.h"
#include "test_config.h"
#include "banned.h"

#define MAX_PORT 65535
#define MIN_INTERVAL_S 0.1
#define MAX_INTERVAL_S 60.0

static double
parse_atof(const char *arg)
{
	return strtod(arg, NULL);
}

/* The ports of -p and --cport. */
static int
parse_port(struct iperf_test *test, const char *arg, int *out)
{
	int v = parse_atoi(arg);

	if (v < 1 || v > MAX_PORT)
		return iperf_fail(test, IEBADPORT, 0);
	*out = v;
	return 0;
}

static int
is_v6_link_local(const char *host)
{
	struct in6_addr a;

	return inet_pton(AF_INET6, host, &a) == 1 && IN6_IS_ADDR_LINKLOCAL(&a);
}

/*
 * "host%dev" for -c and -B: the %dev part means --bind-dev dev, except
 * on an IPv6 link-local literal where it stays as the scope id.
 */
static int
set_host_dev(struct iperf_test *test, char **field, const char *arg)
{
	char *dev, *host = options_split(arg, '%', &dev);
	int rc;

	if (host == NULL)
		return iperf_fail(test, IENEWTEST, ENOMEM);
	if (dev == NULL || is_v6_link_local(host)) {
		free(host);
		return options_string(test, field, arg);
	}
	if (!OPT_HAVE_BINDDEV) {
		free(host);
		return iperf_fail_arg(test, IEBINDDEVNOSUPPORT, arg);
	}
	rc = options_string(test, field, host);
	if (rc == 0 && *dev != '\0') {
		rc = options_string(test, &test->cfg->opt.bind_dev, dev);
		options_mark(test, OPT_ID_BIND_DEV);
	}
	free(host);
	return rc;
}

int
opt_apply_port(struct iperf_test *test, const char *arg)
{
#ifdef HAVE_OPERATOR
	int rc = options_port_range(test, arg);

	if (rc != 1)
		return rc;
#endif
	test->cfg->opt.server_port_last = 0; /* the last -p wins */
	return parse_port(test, arg, &test->cfg->opt.server_port);
}

int
opt_apply_cport(struct iperf_test *test, const char *arg)
{
	return parse_port(test, arg, &test->cfg->opt.bind_port);
}

int
opt_apply_format(struct iperf_test *test, const char *arg)
{
	if (arg[0] == '\0' || strchr("kmgtKMGT", arg[0]) == NULL)
		return iperf_fail(test, IEBADFORMAT, 0);
	test->cfg->opt.unit_format = arg[0];
	return 0;
}

int
opt_apply_interval(struct iperf_test *test, const char *arg)
{
	double v = parse_atof(arg);

	if (isnan(v) || (v < MIN_INTERVAL_S && v != 0) || v > MAX_INTERVAL_S)
		return iperf_fail(test, IEINTERVAL, 0);
	test->cfg->opt.reporter_interval = v;
	test->cfg->opt.stats_interval = v;
	return 0;
}

int
opt_apply_daemon(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.daemon = 1;
	return 0;
}

int
opt_apply_one_off(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.one_off = 1;
	return 0;
}

int
opt_apply_verbose(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.verbose = 1;
	return 0;
}

int
opt_apply_json(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.json_output = 1;
	return 0;
}

int
opt_apply_json_stream(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.json_output = 1;
	test->cfg->opt.json_stream = 1;
	return 0;
}

int
opt_apply_json_stream_full(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.json_stream_full_output = 1;
	return 0;
}

int
opt_apply_version(struct iperf_test *test, const char *arg)
{
	(void)test;
	(void)arg;
	return OPT_APPLY_VERSION;
}

int
opt_apply_help(struct iperf_test *test, const char *arg)
{
	(void)test;
	(void)arg;
	return OPT_APPLY_HELP;
}

int
opt_apply_server(struct iperf_test *test, const char *arg)
{
	(void)arg;
	if (test->cfg->opt.role == 'c')
		return iperf_fail(test, IESERVCLIENT, 0);
	test->cfg->opt.role = 's';
	return 0;
}

int
opt_apply_client(struct iperf_test *test, const char *arg)
{
	if (test->cfg->opt.role == 's')
		return iperf_fail(test, IESERVCLIENT, 0);
	test->cfg->opt.role = 'c';
	return set_host_dev(test, &test->cfg->opt.server_hostname, arg);
}

int
opt_apply_bind(struct iperf_test *test, const char *arg)
{
	return set_host_dev(test, &test->cfg->opt.bind_address, arg);
}

int
opt_apply_bind_dev(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->cfg->opt.bind_dev, arg);
}

static int
select_protocol(struct iperf_test *test, int id)
{
	const struct iperf_proto_ops *p = proto_find(id);

	if (p == NULL)
		return iperf_fail(test, IENOSCTP, 0);
	test->settings.protocol_id = id;
	test->proto = p;
	return 0;
}

int
opt_apply_udp(struct iperf_test *test, const char *arg)
{
	(void)arg;
	return select_protocol(test, Pudp);
}

int
opt_apply_sctp(struct iperf_test *test, const char *arg)
{
	(void)arg;
	return select_protocol(test, Psctp);
}

/* -b rate[/burst]: the burst count is checked before the rate. */
int
opt_apply_bitrate(struct iperf_test *test, const char *arg)
{
	char *burst, *rate = options_split(arg, '/', &burst);
	double v;
	int n;

	if (rate == NULL)
		return iperf_fail(test, IENEWTEST, ENOMEM);
	if (burst != NULL) {
		n = parse_atoi(burst);
		if (n < 1 || n > IPERF_MAX_BURST) {
			free(rate);
			return iperf_fail(test, IEBURST, 0);
		}
		test->settings.burst = n;
	}
	if (options_units(test, rate, UNITS_RATE, &v) == -1) {
		free(rate);
		return -1;
	}
	free(rate);
	test->settings.rate = options_clamp_u64(v);
	return 0;
}

/* --nstreams: 3.21 also reads the same text as the -b rate (no break
 * between the two cases); copied as observed. */
int
opt_apply_nstreams(struct iperf_test *test, const char *arg)
{
	double v;

	if (options_units(test, arg, UNITS_SIZE, &v) == -1)
		return -1;
	test->cfg->opt.sctp_nstreams = options_clamp_int(v);
	if (opt_apply_bitrate(test, arg) == -1)
		return -1;
	options_mark(test, OPT_ID_BITRATE);
	return 0;
}

/* --server-bitrate-limit rate[/secs]: the interval is checked first. */
int
opt_apply_server_bitrate_limit(struct iperf_test *test, const char *arg)
{
	char *secs, *rate = options_split(arg, '/', &secs);
	double v, iv = 0;

	if (rate == NULL)
		return iperf_fail(test, IENEWTEST, ENOMEM);
	if (secs != NULL) {
		iv = parse_atof(secs);
		if (isnan(iv) || (iv != 0 &&
		    (iv < MIN_INTERVAL_S || iv > MAX_INTERVAL_S))) {
			free(rate);
			return iperf_fail(test, IETOTALINTERVAL, 0);
		}
		test->cfg->opt.bitrate_limit_interval = iv;
	}
	if (options_units(test, rate, UNITS_RATE, &v) == -1) {
		free(rate);
		return -1;
	}
	free(rate);
	test->cfg->opt.bitrate_limit = options_clamp_u64(v);
	return 0;
}

int
opt_apply_time(struct iperf_test *test, const char *arg)
{
	int v = parse_atoi(arg);

	if (v < 0 || v > IPERF_MAX_TIME_S)
		return iperf_fail(test, IEDURATION, 0);
	test->settings.duration = v;
	return 0;
}

int
opt_apply_bytes(struct iperf_test *test, const char *arg)
{
	double v;

	if (options_units(test, arg, UNITS_SIZE, &v) == -1)
		return -1;
	test->settings.bytes = options_clamp_u64(v);
	return 0;
}

int
opt_apply_blockcount(struct iperf_test *test, const char *arg)
{
	double v;

	if (options_units(test, arg, UNITS_SIZE, &v) == -1)
		return -1;
	test->settings.blocks = options_clamp_u64(v);
	return 0;
}

/* -l: the limits depend on the protocol, so they are post-parse. */
int
opt_apply_length(struct iperf_test *test, const char *arg)
{
	double v;

	if (options_units(test, arg, UNITS_SIZE, &v) == -1)
		return -1;
	test->settings.blksize = options_clamp_int(v);
	return 0;
}

int
opt_apply_parallel(struct iperf_test *test, const char *arg)
{
	int v = parse_atoi(arg);

	if (v > IPERF_MAX_STREAMS) /* 3.21 checks the maximum only */
		return iperf_fail(test, IENUMSTREAMS, 0);
	test->settings.num_streams = v;
	return 0;
}

int
opt_apply_reverse(struct iperf_test *test, const char *arg)
{
	(void)arg;
	if (test->settings.bidirectional)
		return iperf_fail(test, IEREVERSEBIDIR, 0);
	test->settings.reverse = 1;
	return 0;
}

int
opt_apply_bidir(struct iperf_test *test, const char *arg)
{
	(void)arg;
	if (test->settings.reverse)
		return iperf_fail(test, IEREVERSEBIDIR, 0);
	test->settings.bidirectional = 1;
	return 0;
}

/* -w: the unit first, then the maximum on the unconverted double. */
int
opt_apply_window(struct iperf_test *test, const char *arg)
{
	double v;

	if (options_units(test, arg, UNITS_SIZE, &v) == -1)
		return -1;
	if (v > (double)IPERF_MAX_WINDOW_BYTES)
		return iperf_fail(test, IEBUFSIZE, 0);
	test->settings.socket_bufsize = options_clamp_int(v);
	return 0;
}

int
opt_apply_set_mss(struct iperf_test *test, const char *arg)
{
	int v = parse_atoi(arg);

	if (v > IPERF_MAX_MSS)
		return iperf_fail(test, IEMSS, 0);
	test->settings.mss = v;
	return 0;
}

int
opt_apply_no_delay(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->settings.no_delay = 1;
	return 0;
}

int
opt_apply_version4(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.domain = AF_INET;
	return 0;
}

int
opt_apply_version6(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.domain = AF_INET6;
	return 0;
}

int
opt_apply_extra_data(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->settings.extra_data, arg);
}

int
opt_apply_title(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->settings.title, arg);
}

int
opt_apply_congestion(struct iperf_test *test, const char *arg)
{
	if (!OPT_HAVE_CONGESTION)
		return iperf_fail(test, IEUNIMP, 0);
	return options_string(test, &test->settings.congestion, arg);
}

int
opt_apply_zerocopy(struct iperf_test *test, const char *arg)
{
	(void)arg;
	if (!OPT_HAVE_SENDFILE)
		return iperf_fail(test, IENOSENDFILE, 0);
	test->settings.zerocopy = 1;
	return 0;
}

int
opt_apply_omit(struct iperf_test *test, const char *arg)
{
	int v = parse_atoi(arg);

	if (v < 0 || v > IPERF_MAX_OMIT_S)
		return iperf_fail(test, IEOMIT, 0);
	test->settings.omit = v;
	return 0;
}

int
opt_apply_file(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->cfg->opt.diskfile_name, arg);
}

int
opt_apply_timestamps(struct iperf_test *test, const char *arg)
{
	test->cfg->opt.timestamps = 1;
	return options_string(test, &test->cfg->opt.timestamp_format,
	    arg != NULL ? arg : IPERF_TIMESTAMP_DEFAULT);
}
