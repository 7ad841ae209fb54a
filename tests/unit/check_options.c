/*
 * check_options.c - the command line: iperf3 3.21's parse-time checks in
 * argv order, the post-parse rules, the values stored, and the texts.
 * Expected errors are what the 3.21 program prints
 * (tests/data/cli_errors.data).
 */
#include "config.h"

#include <sys/socket.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "iperf.h"
#include "test_config.h"
#include "iperf_error.h"
#include "options.h"
#include "options_int.h"
#include "proto.h"
#include "report.h"

#define MAX_ARGS 32

static struct iperf_test *test;
static enum options_action action;
static char line_buf[512];
static char prog_name[] = "iperf3";
static char *argv_buf[MAX_ARGS + 1];

static void
setup(void)
{
	test = iperf_new_test();
	ck_assert_ptr_nonnull(test);
	iperf_defaults(test);
	action = OPTIONS_RUN;
}

static void
teardown(void)
{
	iperf_free_test(test);
}

/* Parse "iperf3 <line>" (words split on single spaces). */
static int
parse(const char *line)
{
	int argc = 0;
	char *p = line_buf;

	ck_assert_uint_lt(strlen(line), sizeof(line_buf));
	memcpy(line_buf, line, strlen(line) + 1);
	argv_buf[argc++] = prog_name;
	while (*p != '\0' && argc < MAX_ARGS) {
		argv_buf[argc++] = p;
		p = strchr(p, ' ');
		if (p == NULL)
			break;
		*p++ = '\0';
	}
	argv_buf[argc] = NULL;
	return options_parse(test, argc, argv_buf, &action);
}

/* ---- errors: first failing option (argv order), then post-parse order */

struct err_case {
	const char *line;
	int code; /* expected i_errno value */
	int ssl;  /* only in builds with authentication */
};

static const struct err_case err_cases[] = {
	{ "", IENOROLE, 0 },
	{ "-u", IENOROLE, 0 },
	{ "-s -c 127.0.0.1", IESERVCLIENT, 0 },
	{ "-c 127.0.0.1 -s", IESERVCLIENT, 0 },
	{ "-c h -p 0", IEBADPORT, 0 },
	{ "-c h -p 65536", IEBADPORT, 0 },
	{ "-c h -p x", IEBADPORT, 0 },
	{ "-c h --cport 0", IEBADPORT, 0 },
	{ "-c h -f x", IEBADFORMAT, 0 },
	{ "-c h -f a", IEBADFORMAT, 0 },
	{ "-c h -i 0.05", IEINTERVAL, 0 },
	{ "-c h -i 61", IEINTERVAL, 0 },
	{ "-c h -i -1", IEINTERVAL, 0 },
	{ "-c h -t 86401", IEDURATION, 0 },
	{ "-c h -t -5", IEDURATION, 0 },
	{ "-c h -P 129", IENUMSTREAMS, 0 },
	{ "-c h -l 2M", IEBLOCKSIZE, 0 },
	{ "-c h -l -5", IEBLOCKSIZE, 0 },
	{ "-l 2M", IEBLOCKSIZE, 0 }, /* before the missing role */
	{ "-c h -u -l 70000", IEUDPBLOCKSIZE, 0 },
	{ "-c h -u -l 10", IEUDPBLOCKSIZE, 0 },
	{ "-c h -u -l 2M", IEBLOCKSIZE, 0 },
	{ "-c h -w 1G", IEBUFSIZE, 0 },
	{ "-c h -w 64x", IEUNITVAL, 0 },
	{ "-c h -M 40000", IEMSS, 0 },
	{ "-c h -O 700", IEOMIT, 0 },
	{ "-c h -O -1", IEOMIT, 0 },
	{ "-c h -b 1M/2000", IEBURST, 0 },
	{ "-c h -b 1M/0", IEBURST, 0 },
	{ "-c h -b 1M/", IEBURST, 0 },
	{ "-c h -b x/0", IEBURST, 0 }, /* burst checked before the rate */
	{ "-c h -b 10X/5", IEUNITVAL, 0 },
	{ "-c h -b 10X", IEUNITVAL, 0 },
	{ "-c h -S 300", IEBADTOS, 0 },
	{ "-c h -S x", IEBADTOS, 0 },
	{ "-c h --dscp foo", IEBADTOS, 0 },
	{ "-c h --dscp 64", IEBADTOS, 0 },
	{ "-c h --dscp 5x", IEBADTOS, 0 },
	{ "-c h -t 2 -n 1M", IEENDCONDITIONS, 0 },
	{ "-c h -n 1M -k 5", IEENDCONDITIONS, 0 },
	{ "-c h -t 10 -k 1", IEENDCONDITIONS, 0 },
	{ "-c h -R --bidir", IEREVERSEBIDIR, 0 },
	{ "-c h --bidir -R", IEREVERSEBIDIR, 0 },
	{ "-s -u", IECLIENTONLY, 0 },
	{ "-s --gsro", IECLIENTONLY, 0 },
	{ "-s -b 1M", IECLIENTONLY, 0 },
	{ "-s -t 5", IECLIENTONLY, 0 },
	{ "-s -A 1,2", IECLIENTONLY, 0 },
	{ "-s --no-fq-socket-pacing", IECLIENTONLY, 0 },
	{ "-c h -D", IESERVERONLY, 0 },
	{ "-c h -1", IESERVERONLY, 0 },
	{ "-c h --server-max-duration 5", IESERVERONLY, 0 },
	{ "-c h --idle-timeout 5", IESERVERONLY, 0 },
	{ "-c h --server-bitrate-limit 1M", IESERVERONLY, 0 },
	{ "-c h --use-pkcs1-padding", IESERVERONLY, 1 },
	{ "-c h --rsa-private-key-path k", IESERVERONLY, 1 },
	{ "-c h --authorized-users-path u", IESERVERONLY, 1 },
	{ "-s --server-max-duration 90000", IEDURATION, 0 },
#ifdef HAVE_OPERATOR /* the operator's server (--disable-operator) */
	{ "-c h --server-max-bytes 5M", IESERVERONLY, 0 },
	{ "-c h --server-max-streams 4", IESERVERONLY, 0 },
	{ "-s --no-clamp", IECLIENTONLY, 0 },
	{ "-s --server-max-bytes 5X", IEUNITVAL, 0 },
	{ "-s --server-max-bytes -1", IEOPTVALUE, 0 },
	{ "-s --server-max-bytes 9000T", IEOPTVALUE, 0 },
	{ "-s --server-max-streams 257", IEOPTVALUE, 0 },
	{ "-s --server-max-streams -1", IEOPTVALUE, 0 },
	{ "-s --server-max-streams 2x", IEOPTVALUE, 0 },
	{ "-s --allow 10.0.0.300", IESERVEROPT, 0 },
	{ "-s --deny ::1/129", IESERVEROPT, 0 },
	{ "-s --accept-rate 0", IESERVEROPT, 0 },
	{ "-s --max-tests-per-prefix 65", IESERVEROPT, 0 },
	{ "-s -p 5300-5200", IESERVEROPT, 0 },
	{ "-s -p 5000-5200", IESERVEROPT, 0 },
	{ "-c h -p 5201-5202", IESERVEROPT, 0 },
	{ "-s --allow-file /nonexistent/allow", IESERVEROPT, 0 },
#endif
	{ "-s --idle-timeout 0", IEIDLETIMEOUT, 0 },
	{ "-s --idle-timeout 86401", IEIDLETIMEOUT, 0 },
	{ "-c h -A 2000", IEAFFINITY, 0 },
	{ "-c h -A -1", IEAFFINITY, 0 },
	{ "-c h -A x", IEAFFINITY, 0 },
	{ "-c h -A 1,2000", IEAFFINITY, 0 },
	{ "-c h -L 0", IESETFLOW, 0 },
	{ "-c h -L 0x100000", IESETFLOW, 0 },
	{ "-c h --rcv-timeout 50", IERCVTIMEOUT, 0 },
	{ "-c h --rcv-timeout 86400001", IERCVTIMEOUT, 0 },
	{ "-c h --rcv-timeout 5000", IERVRSONLYRCVTIMEOUT, 1 },
	{ "-c h --snd-timeout -1", IESNDTIMEOUT, 0 },
	{ "-s --server-bitrate-limit 1M/100", IETOTALINTERVAL, 0 },
	{ "-s --server-bitrate-limit 1Q/100", IETOTALINTERVAL, 0 },
	{ "-s --server-bitrate-limit 1Q/5", IEUNITVAL, 0 },
	{ "-c h --cntl-ka=10/5/3", IECNTLKA, 0 },
	{ "-c h --cntl-ka=-1", IECNTLKA, 0 },
	{ "-c h --username foo", IESETCLIENTAUTH, 1 },
	{ "-c h --rsa-public-key-path /nonexistent/k", IESETCLIENTAUTH, 1 },
	{ "-c h --username u --rsa-public-key-path /nonexistent/k",
	    IESETCLIENTAUTH, 1 },
	{ "-c h --username u --rsa-public-key-path /etc/hostname",
	    IESETCLIENTAUTH, 1 }, /* not a key */
	{ "-s --username u", IECLIENTONLY, 1 },
	{ "-s --rsa-private-key-path /etc/hostname --authorized-users-path "
	  "/etc/hostname", IESETSERVERAUTH, 1 },
	{ "-s --rsa-private-key-path k", IESETSERVERAUTH, 1 },
	{ "-s --rsa-private-key-path k --authorized-users-path /nonexistent/u",
	    IESERVERAUTHUSERS, 1 },
	{ "-c h --time-skew-threshold 0", IESKEWTHRESHOLD, 1 },
	{ "-c h -u -F /etc/hostname", IEUDPFILETRANSFER, 0 },
	{ "-c h -n 5Q", IEUNITVAL, 0 },
	{ "-c h -k 5Q", IEUNITVAL, 0 },
	{ "-c h -l abc", IEUNITVAL, 0 },
	{ "-c h --fq-rate 1Z", IEUNITVAL, 0 },
	{ "-c h --pacing-timer 1x", IEUNITVAL, 0 },
	{ "-c h --connect-timeout 1x", IEUNITVAL, 0 },
	{ "-c h --nstreams 1x", IEUNITVAL, 0 },
	{ "-c h -t -1 -p 0", IEDURATION, 0 }, /* argv order decides */
	{ "-c h -p 0 -t -1", IEBADPORT, 0 },
	{ "-p 0 -v", IEBADPORT, 0 },
	{ "-c h -O 700 -s", IEOMIT, 0 },
	{ "-c h -s -O 700", IESERVCLIENT, 0 },
	{ "-s -u -D -t 5", IECLIENTONLY, 0 },
	/* recognised and checked, but not implemented yet: IEUNIMP last */
	{ "-s -S 5", IECLIENTONLY, 0 },
	{ "-s --dscp af11", IECLIENTONLY, 0 },
	{ "-s -L 5", IECLIENTONLY, 0 },
	{ "-s --fq-rate 1M", IECLIENTONLY, 0 },
	{ "-s --dont-fragment", IECLIENTONLY, 0 },
	{ "-S 5", IENOROLE, 0 }, /* the 3.21 rules come first */
};

START_TEST(reports_the_first_error)
{
	const struct err_case *c = &err_cases[_i];
	int rc;

	if (c->ssl && !OPT_HAVE_SSL)
		return;
	/* Without SCTP support these long options do not exist at all. */
	if (!OPT_HAVE_SCTP && (strstr(c->line, "--sctp") != NULL ||
				  strstr(c->line, "--nstreams") != NULL))
		return;
	rc = parse(c->line);
	ck_assert_msg(rc == -1 && test->run.err.code == c->code,
	    "'%s': rc %d code %d, want code %d", c->line, rc, test->run.err.code,
	    c->code);
	ck_assert_int_eq(test->run.err.sys_errno, 0);
}
END_TEST

START_TEST(quotes_the_bad_unit_text)
{
	char buf[256];

	ck_assert_int_eq(parse("-c h -b 10X/5"), -1);
	iperf_error_format(&test->run.err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "invalid unit value or suffix: '10X'");
	ck_assert_str_eq(iperf_strerror(IEUNITVAL),
	    "invalid unit value or suffix: '10X'");
	ck_assert_int_eq(parse("-c h -w 64x"), -1);
	iperf_error_format(&test->run.err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "invalid unit value or suffix: '64x'");
}
END_TEST

/* Our options' numbers are strict; stock ones keep 3.21's atoi. */
START_TEST(our_numbers_are_strict)
{
	static const char *const bad[] = { "2x", "", " 2", "2 ", "2.5", "0x2",
		"99999999999", "+", "-" };
	char buf[256], line[64];
	size_t i;
	int v;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(options_int_strict(test, "--max-tests", bad[i],
				  &v) == -1, "'%s' taken", bad[i]);
		ck_assert_int_eq(test->run.err.code, IEOPTVALUE);
	}
	ck_assert_int_eq(options_int_strict(test, "--max-tests", "12", &v), 0);
	ck_assert_int_eq(v, 12);
	ck_assert_int_eq(options_int_strict(test, "--max-tests", "-3", &v), 0);
	ck_assert_int_eq(v, -3);
	/* 3.21 takes "-t 2x" as 2 seconds, and so do we */
	(void)snprintf(line, sizeof(line), "-c h -t 2x");
	ck_assert_int_eq(parse(line), 0);
	ck_assert_int_eq(test->settings.duration, 2);
	for (i = 0; i < 3; i++) {
		static const char *const lines[] = { "-s --max-tests 2x",
			"-s --max-tests 4 --max-tests-per-ip 0",
			"-s --max-tests-per-ip 2" };
		static const int codes[] = { IEOPTVALUE, IEMAXTESTSPERIP,
			IEPERIPNOMAX };

		iperf_free_test(test);
		setup();
		ck_assert_int_eq(parse(lines[i]), -1);
		ck_assert_int_eq(test->run.err.code, codes[i]);
	}
	iperf_error_format(&test->run.err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "--max-tests-per-ip needs --max-tests (more "
	    "than one test at once)");
}
END_TEST

START_TEST(rr_names_the_option_it_cannot_take)
{
	static const char *const lines[][2] = {
		{ "-c h --rr -b 1M", "--rr cannot be used with -b" },
		{ "-c h --rr -k 5", "--rr cannot be used with -k" },
		{ "-c h --rr --latency", "--rr cannot be used with --latency" },
		{ "-c h --rr-response 9", "--rr-response needs --rr" },
	};
	char buf[256];
	size_t i;

	if (!OPT_HAVE_RR)
		return; /* configure --disable-rr: the options do not exist */
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		ck_assert_int_eq(parse(lines[i][0]), -1);
		ck_assert_int_eq(test->run.err.code, IERRCONFLICT);
		iperf_error_format(&test->run.err, buf, sizeof(buf));
		ck_assert_str_eq(buf, lines[i][1]);
		iperf_free_test(test);
		setup();
	}
	/* either direction: the end whose stream sends asks (rr.h) */
	ck_assert_int_eq(parse("-c h --rr -R"), 0);
	iperf_free_test(test);
	setup();
	ck_assert_int_eq(parse("-c h --rr --bidir"), 0);
}
END_TEST

START_TEST(leaves_errno_bare_for_suffixed_texts)
{
	errno = ENOENT;
	ck_assert_int_eq(parse("-c h --rcv-timeout 50"), -1);
	ck_assert_str_eq(iperf_strerror(IERCVTIMEOUT),
	    "receive timeout value is incorrect or not in range: ");
}
END_TEST

/* ---- actions: -v/-h stop at once, getopt problems */

struct act_case {
	const char *line;
	enum options_action want;
};

static const struct act_case act_cases[] = {
	{ "-v", OPTIONS_VERSION },
	{ "--version", OPTIONS_VERSION },
	{ "-v -p 0", OPTIONS_VERSION },
	{ "-c h -v -s", OPTIONS_VERSION },
	{ "-h", OPTIONS_HELP },
	{ "--help -x", OPTIONS_HELP },
	{ "-h -v", OPTIONS_HELP },
	{ "--bogus", OPTIONS_GETOPT_ERROR },
	{ "-x", OPTIONS_GETOPT_ERROR },
	{ "-c", OPTIONS_GETOPT_ERROR },
	{ "--b", OPTIONS_GETOPT_ERROR },
	{ "-c h -d5", OPTIONS_GETOPT_ERROR },
	{ "--port", OPTIONS_GETOPT_ERROR },
	{ "--udp=1", OPTIONS_GETOPT_ERROR },
	{ "-x -p 0", OPTIONS_GETOPT_ERROR },
};

START_TEST(returns_the_action)
{
	const struct act_case *c = &act_cases[_i];

	ck_assert_msg(parse(c->line) == 0 && action == c->want,
	    "'%s': action %d, want %d", c->line, (int)action, (int)c->want);
}
END_TEST

/* ---- values and defaults */

START_TEST(client_defaults)
{
	ck_assert_int_eq(parse("-c 127.0.0.1"), 0);
	ck_assert_int_eq(action, OPTIONS_RUN);
	ck_assert_int_eq(test->cfg->opt.role, 'c');
	ck_assert_str_eq(test->cfg->opt.server_hostname, "127.0.0.1");
	ck_assert_int_eq(test->cfg->opt.server_port, 5201);
	ck_assert_int_eq(test->settings.protocol_id, SOCK_STREAM);
	ck_assert_int_eq(test->settings.duration, 10);
	ck_assert_int_eq(test->settings.blksize, 131072);
	ck_assert_int_eq(test->settings.blksize_set, 0);
	ck_assert_uint_eq(test->settings.rate, 0);
	ck_assert_int_eq(test->settings.num_streams, 1);
	ck_assert_int_eq(test->cfg->opt.unit_format, 'a');
	ck_assert_int_eq(test->mode, MODE_SENDER);
	ck_assert_ptr_eq(test->reporter, &report_text);
}
END_TEST

START_TEST(udp_defaults)
{
	ck_assert_int_eq(parse("-c h -u"), 0);
	ck_assert_int_eq(test->settings.protocol_id, SOCK_DGRAM);
	ck_assert_ptr_eq(test->proto, &proto_udp);
	ck_assert_int_eq(test->settings.blksize, 0); /* dynamic, from MSS */
	ck_assert_int_eq(test->settings.blksize_set, 0);
	ck_assert_uint_eq(test->settings.rate, 1048576);
}
END_TEST

START_TEST(udp_length_and_rate)
{
	ck_assert_int_eq(parse("-c h -u -l 1400 -b 0"), 0);
	ck_assert_int_eq(test->settings.blksize, 1400);
	ck_assert_int_eq(test->settings.blksize_set, 1);
	ck_assert_uint_eq(test->settings.rate, 0);
}
END_TEST

START_TEST(length_zero_means_default)
{
	ck_assert_int_eq(parse("-c h -l 0"), 0);
	ck_assert_int_eq(test->settings.blksize, 131072);
	ck_assert_int_eq(test->settings.blksize_set, 0);
}
END_TEST

START_TEST(bitrate_with_burst)
{
	ck_assert_int_eq(parse("-c h -b 10M/5"), 0);
	ck_assert_uint_eq(test->settings.rate, 10000000);
	ck_assert_int_eq(test->settings.burst, 5);
	ck_assert_int_eq(parse("-c h --bandwidth 1.5k"), 0);
	ck_assert_uint_eq(test->settings.rate, 1500);
}
END_TEST

START_TEST(sizes_are_binary)
{
	ck_assert_int_eq(parse("-c h -n 500M -w 1.5K -l 2k"), 0);
	ck_assert_uint_eq(test->settings.bytes, 524288000);
	ck_assert_int_eq(test->settings.duration, 0);
	ck_assert_int_eq(test->settings.socket_bufsize, 1536);
	ck_assert_int_eq(test->settings.blksize, 2048);
	ck_assert_int_eq(test->settings.blksize_set, 1);
}
END_TEST

START_TEST(blockcount_ends_the_test)
{
	ck_assert_int_eq(parse("-c h -k 1k"), 0);
	ck_assert_uint_eq(test->settings.blocks, 1024);
	ck_assert_int_eq(test->settings.duration, 0);
}
END_TEST

START_TEST(time_zero_and_bytes_zero)
{
	ck_assert_int_eq(parse("-c h -t 0"), 0);
	ck_assert_int_eq(test->settings.duration, 0);
	ck_assert_int_eq(parse("-c h -t 5 -n 0"), 0);
	ck_assert_int_eq(test->settings.duration, 5);
}
END_TEST

START_TEST(format_and_interval)
{
	ck_assert_int_eq(parse("-c h -f kbits -i 0.5"), 0);
	ck_assert_int_eq(test->cfg->opt.unit_format, 'k');
	ck_assert(test->cfg->opt.reporter_interval == 0.5);
	ck_assert(test->cfg->opt.stats_interval == 0.5);
	ck_assert_int_eq(parse("-c h -fM -i 0"), 0);
	ck_assert_int_eq(test->cfg->opt.unit_format, 'M');
	ck_assert(test->cfg->opt.reporter_interval == 0.0);
}
END_TEST

START_TEST(attached_values_and_prefixes)
{
	ck_assert_int_eq(parse("-c h -p5202 -P2 --po 5203 --para=3 extra"), 0);
	ck_assert_int_eq(test->cfg->opt.server_port, 5203);
	ck_assert_int_eq(test->settings.num_streams, 3);
}
END_TEST

START_TEST(atoi_semantics)
{
	ck_assert_int_eq(parse("-c h -t 5x -P 0 -O 2.9"), 0);
	ck_assert_int_eq(test->settings.duration, 5);
	ck_assert_int_eq(test->settings.num_streams, 0); /* 3.21 allows it */
	ck_assert_int_eq(test->settings.omit, 2);
}
END_TEST

START_TEST(reverse_and_bidir_modes)
{
	ck_assert_int_eq(parse("-c h -R"), 0);
	ck_assert_int_eq(test->settings.reverse, 1);
	ck_assert_int_eq(test->mode, MODE_RECEIVER);
	teardown();
	setup();
	ck_assert_int_eq(parse("-c h --bidir"), 0);
	ck_assert_int_eq(test->settings.bidirectional, 1);
	ck_assert_int_eq(test->mode, MODE_BIDIR);
}
END_TEST

START_TEST(server_options)
{
	ck_assert_int_eq(parse("-s -1 -p 5300 --cport 6000 -B 127.0.0.1 -V"),
	    0);
	ck_assert_int_eq(test->cfg->opt.role, 's');
	ck_assert_int_eq(test->cfg->opt.one_off, 1);
	ck_assert_int_eq(test->cfg->opt.server_port, 5300);
	ck_assert_int_eq(test->cfg->opt.bind_port, 6000);
	ck_assert_str_eq(test->cfg->opt.bind_address, "127.0.0.1");
	ck_assert_int_eq(test->cfg->opt.verbose, 1);
	ck_assert_int_eq(test->mode, MODE_RECEIVER);
}
END_TEST

START_TEST(server_limits_and_daemon)
{
	ck_assert_int_eq(parse("-s --server-bitrate-limit 1M"), 0);
	ck_assert_uint_eq(test->cfg->opt.bitrate_limit, 1000000);
	ck_assert_double_eq(test->cfg->opt.bitrate_limit_interval, 5.0);
	ck_assert_int_eq(parse("-s -D -I /tmp/p --idle-timeout 7 "
	    "--server-max-duration 30 --server-bitrate-limit 50M/2.5 "
	    "--cntl-ka --snd-timeout 10"), 0);
	ck_assert_int_eq(test->cfg->opt.daemon, 1);
	ck_assert_str_eq(test->cfg->opt.pidfile, "/tmp/p");
	ck_assert_int_eq(test->cfg->opt.idle_timeout_s, 7);
	ck_assert_int_eq(test->cfg->opt.max_server_duration_s, 30);
	ck_assert_uint_eq(test->cfg->opt.bitrate_limit, 50000000);
	ck_assert_double_eq(test->cfg->opt.bitrate_limit_interval, 2.5);
	ck_assert_int_eq(test->cfg->opt.cntl_ka, 1);
	ck_assert_int_eq(test->cfg->opt.cntl_ka_idle, 0);
	ck_assert_int_eq(test->cfg->opt.snd_timeout_ms, 10);
#ifdef HAVE_OPERATOR
	ck_assert_int_eq(parse("-s --server-max-bytes 10M "
	    "--server-max-streams 256"), 0);
	ck_assert_uint_eq(test->cfg->opt.max_server_bytes, 10485760);
	ck_assert_int_eq(test->cfg->opt.max_server_streams, 256);
#endif
}
END_TEST

#ifdef HAVE_OPERATOR
START_TEST(no_clamp_is_a_client_flag)
{
	ck_assert_int_eq(parse("-c h --no-clamp"), 0);
	ck_assert_int_eq(test->cfg->opt.no_clamp, 1);
}
END_TEST

START_TEST(operator_options_are_stored)
{
	ck_assert_int_eq(parse("-s -p 5201-5210 --allow 10.1.2.3/8 --allow ::1 "
	    "--deny 10.9.0.0/16 --max-tests-per-prefix 3 --accept-rate 5/2:7 "
	    "--audit-log - -p 6000-6001"), 0);
	ck_assert_int_eq(test->cfg->opt.server_port, 6000);
	ck_assert_int_eq(test->cfg->opt.server_port_last, 6001);
	ck_assert_int_eq(test->cfg->opt.allow_count, 2);
	ck_assert_str_eq(test->cfg->opt.allow[1], "::1");
	ck_assert_int_eq(test->cfg->opt.deny_count, 1);
	ck_assert_int_eq(test->cfg->opt.max_tests_per_prefix, 3);
	ck_assert_double_eq_tol(test->cfg->opt.accept_rate, 2.5, 1e-9);
	ck_assert_double_eq_tol(test->cfg->opt.accept_burst, 7, 1e-9);
	ck_assert_str_eq(test->cfg->opt.audit_log, "-");
	ck_assert_int_eq(parse("-s -p 5201-5210 -p 5301"), 0);
	ck_assert_int_eq(test->cfg->opt.server_port, 5301);
	ck_assert_int_eq(test->cfg->opt.server_port_last, 0);
}
END_TEST
#endif

START_TEST(control_connection_options)
{
	ck_assert_int_eq(parse("-c h --cntl-ka=20/5/3 --snd-timeout 2500 "
	    "-I /tmp/p"), 0);
	ck_assert_int_eq(test->cfg->opt.cntl_ka, 1);
	ck_assert_int_eq(test->cfg->opt.cntl_ka_idle, 20);
	ck_assert_int_eq(test->cfg->opt.cntl_ka_intvl, 5);
	ck_assert_int_eq(test->cfg->opt.cntl_ka_cnt, 3);
	ck_assert_int_eq(test->cfg->opt.snd_timeout_ms, 2500);
	ck_assert_int_eq(parse("-c h --cntl-ka=//4"), 0);
	ck_assert_int_eq(test->cfg->opt.cntl_ka_idle, 0);
	ck_assert_int_eq(test->cfg->opt.cntl_ka_cnt, 4);
}
END_TEST

START_TEST(strings_and_flags)
{
	ck_assert_int_eq(parse("-c h -T t1 --extra-data x -C cubic -N -M 1400 "
	    "--get-server-output --udp-counters-64bit --repeating-payload "
	    "--logfile /tmp/l --forceflush -6"), 0);
	ck_assert_str_eq(test->settings.title, "t1");
	ck_assert_str_eq(test->settings.extra_data, "x");
	ck_assert_str_eq(test->settings.congestion, "cubic");
	ck_assert_int_eq(test->settings.no_delay, 1);
	ck_assert_int_eq(test->settings.mss, 1400);
	ck_assert_int_eq(test->settings.get_server_output, 1);
	ck_assert_int_eq(test->settings.udp_counters_64bit, 1);
	ck_assert_int_eq(test->settings.repeating_payload, 1);
	ck_assert_str_eq(test->cfg->opt.logfile, "/tmp/l");
	ck_assert_int_eq(test->cfg->opt.forceflush, 1);
	ck_assert_int_eq(test->cfg->opt.domain, AF_INET6);
}
END_TEST

START_TEST(timestamps_take_a_value_only_with_equals)
{
	ck_assert_int_eq(parse("-c h --timestamps"), 0);
	ck_assert_int_eq(test->cfg->opt.timestamps, 1);
	ck_assert_str_eq(test->cfg->opt.timestamp_format, "%c ");
	ck_assert_int_eq(parse("-c h --timestamps %H"), 0);
	ck_assert_str_eq(test->cfg->opt.timestamp_format, "%c ");
	ck_assert_int_eq(parse("-c h --timestamps=%H:%M|"), 0);
	ck_assert_str_eq(test->cfg->opt.timestamp_format, "%H:%M|");
}
END_TEST

START_TEST(debug_levels)
{
	ck_assert_int_eq(parse("-c h -d"), 0);
	ck_assert_int_eq(test->cfg->opt.debug_level, 4);
	ck_assert_int_eq(parse("-c h --debug=2"), 0);
	ck_assert_int_eq(test->cfg->opt.debug_level, 2);
	ck_assert_int_eq(parse("-c h --debug=-3"), 0);
	ck_assert_int_eq(test->cfg->opt.debug_level, 4);
	ck_assert_int_eq(parse("-c h --debug 3"), 0); /* "3" is a stray word */
	ck_assert_int_eq(test->cfg->opt.debug_level, 4);
}
END_TEST

START_TEST(json_stream_implies_json)
{
	ck_assert_int_eq(parse("-c h --json-stream --json-stream-full-output"),
	    0);
	ck_assert_int_eq(test->cfg->opt.json_output, 1);
	ck_assert_int_eq(test->cfg->opt.json_stream, 1);
	ck_assert_int_eq(test->cfg->opt.json_stream_full_output, 1);
	ck_assert_ptr_eq(test->reporter, &report_json);
}
END_TEST

START_TEST(timeouts_and_pacing)
{
	ck_assert_int_eq(parse("-c h --connect-timeout 1k --pacing-timer 2k "
	    "--rcv-timeout 5000 -R --no-fq-socket-pacing"), 0);
	ck_assert_int_eq(test->cfg->opt.connect_timeout_ms, 1024);
	ck_assert_int_eq(test->settings.pacing_timer, 2048);
	ck_assert_int_eq(test->cfg->opt.rcv_timeout_ms, 5000);
	ck_assert_uint_eq(test->settings.fqrate, 0);
}
END_TEST

START_TEST(host_dev_suffix)
{
	ck_assert_int_eq(parse("-c fe80::1%eth0"), 0);
	ck_assert_str_eq(test->cfg->opt.server_hostname, "fe80::1%eth0");
	ck_assert_ptr_null(test->cfg->opt.bind_dev);
	if (!OPT_HAVE_BINDDEV)
		return;
	ck_assert_int_eq(parse("-c 10.0.0.1%lo"), 0);
	ck_assert_str_eq(test->cfg->opt.server_hostname, "10.0.0.1");
	ck_assert_str_eq(test->cfg->opt.bind_dev, "lo");
}
END_TEST

START_TEST(auth_options_are_implemented)
{
	if (!OPT_HAVE_SSL)
		return;
	ck_assert_int_eq(parse("-s --use-pkcs1-padding"), 0);
	ck_assert_int_eq(test->cfg->opt.use_pkcs1_padding, 1);
	ck_assert_int_eq(parse("-s --time-skew-threshold 5"), 0);
	ck_assert_int_eq(test->cfg->opt.auth_skew_threshold_s, 5);
	ck_assert_ptr_null(test->cfg->auth.private_key);
}
END_TEST

/* Options refused for now still store their values. */
START_TEST(unimplemented_options_store_values)
{
	ck_assert_int_eq(parse("-c h -S 0x34"), 0);
	ck_assert_int_eq(test->settings.tos, 52);
	ck_assert_int_eq(parse("-c h --dscp AF11"), 0);
	ck_assert_int_eq(test->settings.tos, 0x28);
	ck_assert_int_eq(parse("-c h --dscp 0x0a"), 0);
	ck_assert_int_eq(test->settings.tos, 40);
	ck_assert_int_eq(parse("-c h -A 3,5"), 0);
	ck_assert_int_eq(test->cfg->opt.affinity, 3);
	ck_assert_int_eq(test->settings.server_affinity, 5);
	ck_assert_int_eq(parse("-c h --cntl-ka=20/5/3"), 0);
	ck_assert_int_eq(test->cfg->opt.cntl_ka, 1);
	ck_assert_int_eq(test->cfg->opt.cntl_ka_idle, 20);
	ck_assert_int_eq(test->cfg->opt.cntl_ka_intvl, 5);
	ck_assert_int_eq(test->cfg->opt.cntl_ka_cnt, 3);
	ck_assert_int_eq(parse("-c h --cntl-ka=//4"), 0);
	ck_assert_int_eq(test->cfg->opt.cntl_ka_cnt, 4);
	/* -X is refused only where SCTP is not built in. */
	ck_assert_int_eq(parse("-c h -X a -X b"), OPT_HAVE_SCTP ? 0 : -1);
	ck_assert_int_eq(test->cfg->opt.xbind_count, 2);
	ck_assert_str_eq(test->cfg->opt.xbind[1], "b");
	if (!OPT_HAVE_SCTP)
		ck_assert_int_eq(test->run.err.code, IEUNIMP);
}
END_TEST

/* The data-path options: stored where the data path and the parameter
 * document look for them. */
START_TEST(data_path_options_are_stored)
{
	ck_assert_int_eq(parse("-c h -Z --skip-rx-copy -A 3,5"), 0);
	ck_assert_int_eq(test->settings.zerocopy, OPT_HAVE_SENDFILE);
	ck_assert_int_eq(test->settings.skip_rx_copy, 1);
	ck_assert_int_eq(test->cfg->opt.affinity, 3);
	ck_assert_int_eq(test->settings.server_affinity, 5);
	teardown();
	setup();
	ck_assert_int_eq(parse("-c h -u --gsro"), 0);
	ck_assert_int_eq(test->cfg->opt.gsro, 1);
	ck_assert_int_eq(test->settings.gso, 1);
	ck_assert_int_eq(test->settings.gro, 1);
	teardown();
	setup();
	ck_assert_int_eq(parse("-s -A 1"), 0);
	ck_assert_int_eq(test->cfg->opt.affinity, 1);
	ck_assert_int_eq(test->settings.server_affinity, -1);
	if (!OPT_HAVE_MPTCP)
		return;
	teardown();
	setup();
	ck_assert_int_eq(parse("-s -m"), 0);
	ck_assert_int_eq(test->cfg->opt.mptcp, 1);
	teardown();
	setup();
	ck_assert_int_eq(parse("-c h -m"), 0);
	ck_assert_int_eq(test->settings.mptcp, 1);
}
END_TEST

START_TEST(nstreams_also_sets_the_rate)
{
	if (!OPT_HAVE_SCTP)
		return;
	ck_assert_int_eq(parse("-c h --nstreams 5"), 0);
	ck_assert_int_eq(test->cfg->opt.sctp_nstreams, 5);
	ck_assert_uint_eq(test->settings.rate, 5); /* 3.21 quirk */
}
END_TEST

START_TEST(file_size_becomes_bytes)
{
	char path[] = "/tmp/check_options_XXXXXX";
	char cmd[96];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq((int)write(fd, line_buf, 100), 100);
	(void)close(fd);
	(void)snprintf(cmd, sizeof(cmd), "-c h -F %s", path);
	ck_assert_int_eq(parse(cmd), 0);
	ck_assert_uint_eq(test->settings.bytes, 100);
	ck_assert_int_eq(test->settings.duration, 0);
	ck_assert_str_eq(test->cfg->opt.diskfile_name, path);
	(void)snprintf(cmd, sizeof(cmd), "-s -F %s", path);
	teardown();
	setup();
	ck_assert_int_eq(parse(cmd), 0);
	ck_assert_uint_eq(test->settings.bytes, 0);
	teardown();
	setup();
	/* -t wins over the file size; a missing file sets no byte count */
	(void)snprintf(cmd, sizeof(cmd), "-c h -t 3 -F %s", path);
	ck_assert_int_eq(parse(cmd), 0);
	ck_assert_uint_eq(test->settings.bytes, 0);
	ck_assert_int_eq(test->settings.duration, 3);
	teardown();
	setup();
	ck_assert_int_eq(parse("-c h -F /nonexistent/f"), 0);
	ck_assert_uint_eq(test->settings.bytes, 0);
	ck_assert_int_eq(test->settings.duration, 10);
	(void)unlink(path);
}
END_TEST

/* Run a parse with stderr captured into buf. */
static int
parse_capturing_stderr(const char *line, char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), rc;
	size_t n;

	ck_assert_ptr_nonnull(tmp);
	(void)fflush(stderr);
	(void)dup2(fileno(tmp), 2);
	rc = parse(line);
	(void)fflush(stderr);
	(void)dup2(saved, 2);
	(void)close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	(void)fclose(tmp);
	return rc;
}

START_TEST(json_warnings_on_stderr)
{
	char buf[512];

	ck_assert_int_eq(parse_capturing_stderr("-c h -J -f m -V -d", buf,
	    sizeof(buf)), 0);
	ck_assert_str_eq(buf,
	    "warning: Report format (-f) flag ignored with JSON output (-J)\n"
	    "warning: Verbose output (-v) may interfere with JSON output (-J)\n"
	    "warning: Debug output (-d) may interfere with JSON output (-J)\n");
	teardown();
	setup();
	ck_assert_int_eq(parse_capturing_stderr("-c h -f m -V -d", buf,
	    sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	teardown();
	setup();
	ck_assert_int_eq(parse_capturing_stderr("-J -f m", buf, sizeof(buf)),
	    -1);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(can_parse_again)
{
	ck_assert_int_eq(parse("-x"), 0);
	ck_assert_int_eq(action, OPTIONS_GETOPT_ERROR);
	ck_assert_int_eq(parse("-c h -t 3"), 0);
	ck_assert_int_eq(action, OPTIONS_RUN);
	ck_assert_int_eq(test->settings.duration, 3);
}
END_TEST

/* ---- the table against 3.21's short option string */

START_TEST(short_options_match_3_21)
{
	const char *spec = "p:f:i:D1VJvsc:ub:t:n:k:l:P:Rw:B:M:N46S:L:ZO:F:A:"
	    "T:C:dI:mhX:";
	const char *p;
	size_t i;
	int found, needs;

	for (p = spec; *p != '\0'; p++) {
		if (*p == ':')
			continue;
		needs = p[1] == ':';
		for (found = 0, i = 0; i < options_table_len; i++) {
			if (options_table[i].key != *p)
				continue;
			found = 1;
			ck_assert_msg((options_table[i].has_arg == 1) == needs,
			    "-%c argument", *p);
		}
		ck_assert_msg(found, "-%c missing", *p);
	}
	for (i = 0; i < options_table_len; i++) {
		if (options_table[i].key > 0 &&
		    options_table[i].key < OPT_KEY_LONG)
			ck_assert_msg(strchr(spec, options_table[i].key) != NULL,
			    "-%c not in 3.21", options_table[i].key);
	}
}
END_TEST

/* ---- texts */

static char *
capture(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	fn(f);
	(void)fclose(f);
	return buf;
}

START_TEST(usage_is_exact)
{
	char *u = capture(options_print_usage);

	ck_assert_str_eq(u, "Usage: iperf3 [-s|-c host] [options]\n"
	    "Try `iperf3 --help' for more information.\n");
	free(u);
}
END_TEST

START_TEST(help_lists_every_long_option)
{
	char *h = capture(options_print_help), want[64];
	size_t i;

	ck_assert(strncmp(h, "Usage: iperf3 [-s|-c host] [options]\n", 37) == 0);
	ck_assert_ptr_nonnull(strstr(h, "\nServer or Client:\n"));
	ck_assert_ptr_nonnull(strstr(h, "\nServer specific:\n"));
	ck_assert_ptr_nonnull(strstr(h, "\nClient specific:\n"));
	for (i = 0; i < options_table_len; i++) {
		const struct opt_row *r = &options_table[i];

		/* 3.21 lists neither the aliases nor the deprecated option */
		if (r->name == NULL || !r->has_long || r->key == 'b' ||
		    r->key == 'C' || r->id == OPT_ID_NO_FQ_SOCKET_PACING)
			continue;
		(void)snprintf(want, sizeof(want), "--%s", r->name);
		ck_assert_msg(strstr(h, want) != NULL, "%s not in help", want);
	}
	ck_assert_ptr_nonnull(strstr(h, "--bitrate"));
	ck_assert_int_eq(strstr(h, "--congestion") != NULL, OPT_HAVE_CONGESTION);
	ck_assert_ptr_nonnull(strstr(h, "(default 120000 ms)"));
	ck_assert_ptr_nonnull(strstr(h, "(default 10 secs)"));
	ck_assert_ptr_nonnull(strstr(h, "(default 1000)"));
	ck_assert_ptr_nonnull(strstr(h, "dynamic or 1460 for UDP"));
	free(h);
}
END_TEST

START_TEST(version_has_three_lines)
{
	static const char head[] = "iperf 3.21 (iperf3-compat " PACKAGE_VERSION
	    "; cJSON ";
	char *v = capture(options_print_version), *nl;

	ck_assert(strncmp(v, head, strlen(head)) == 0);
	nl = strchr(v, '\n');
	ck_assert_ptr_nonnull(nl);
	nl = strchr(nl + 1, '\n');
	ck_assert_ptr_nonnull(nl);
	ck_assert(strncmp(nl + 1, "Optional features available: ", 29) == 0);
	ck_assert_ptr_nonnull(strchr(nl + 1, '\n'));
	free(v);
}
END_TEST

START_TEST(features_in_3_21_order)
{
	static const char *const order[] = { "CPU affinity setting",
		"IPv6 flow label", "SCTP", "TCP congestion algorithm setting",
		"sendfile / zerocopy", "socket pacing", "authentication",
		"bind to device", "support IPv4 don't fragment",
		"POSIX threads", "GSO/GRO support" };
	char buf[512], *at, *last = buf;
	size_t i;

	options_features(buf, sizeof(buf));
	ck_assert(buf[0] != '\0');
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		at = strstr(buf, order[i]);
		if (at == NULL)
			continue;
		ck_assert_msg(at >= last, "%s out of order", order[i]);
		last = at;
	}
	ck_assert_int_eq(strstr(buf, "POSIX threads") != NULL, OPT_HAVE_PTHREAD);
	ck_assert_int_eq(strstr(buf, "authentication") != NULL, OPT_HAVE_SSL);
}
END_TEST

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

Suite *
make_suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("reject");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, reports_the_first_error, 0, N_OF(err_cases));
	tcase_add_test(tc, quotes_the_bad_unit_text);
	tcase_add_test(tc, leaves_errno_bare_for_suffixed_texts);
	tcase_add_test(tc, our_numbers_are_strict);
	tcase_add_test(tc, rr_names_the_option_it_cannot_take);
	tcase_add_loop_test(tc, returns_the_action, 0, N_OF(act_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, client_defaults);
	tcase_add_test(tc, udp_defaults);
	tcase_add_test(tc, udp_length_and_rate);
	tcase_add_test(tc, length_zero_means_default);
	tcase_add_test(tc, bitrate_with_burst);
	tcase_add_test(tc, sizes_are_binary);
	tcase_add_test(tc, blockcount_ends_the_test);
	tcase_add_test(tc, time_zero_and_bytes_zero);
	tcase_add_test(tc, format_and_interval);
	tcase_add_test(tc, attached_values_and_prefixes);
	tcase_add_test(tc, atoi_semantics);
	tcase_add_test(tc, reverse_and_bidir_modes);
	tcase_add_test(tc, server_options);
	tcase_add_test(tc, server_limits_and_daemon);
#ifdef HAVE_OPERATOR
	tcase_add_test(tc, no_clamp_is_a_client_flag);
	tcase_add_test(tc, operator_options_are_stored);
#endif
	tcase_add_test(tc, control_connection_options);
	tcase_add_test(tc, strings_and_flags);
	tcase_add_test(tc, timestamps_take_a_value_only_with_equals);
	tcase_add_test(tc, debug_levels);
	tcase_add_test(tc, json_stream_implies_json);
	tcase_add_test(tc, timeouts_and_pacing);
	tcase_add_test(tc, host_dev_suffix);
	tcase_add_test(tc, auth_options_are_implemented);
	tcase_add_test(tc, unimplemented_options_store_values);
	tcase_add_test(tc, data_path_options_are_stored);
	tcase_add_test(tc, nstreams_also_sets_the_rate);
	tcase_add_test(tc, file_size_becomes_bytes);
	tcase_add_test(tc, json_warnings_on_stderr);
	tcase_add_test(tc, can_parse_again);
	tcase_add_test(tc, short_options_match_3_21);
	suite_add_tcase(s, tc);

	tc = tcase_create("text");
	tcase_add_test(tc, usage_is_exact);
	tcase_add_test(tc, help_lists_every_long_option);
	tcase_add_test(tc, version_has_three_lines);
	tcase_add_test(tc, features_in_3_21_order);
	suite_add_tcase(s, tc);
	return s;
}
