/*
 * check_exporter.c - the exporter's pure parts (src/exporter/): Go's
 * ParseBool and ParseDuration, the bitrate pattern, target, port and
 * bind, the /probe query as a whole, and the text exposition written
 * from the client's result documents (tests/data/exporter_tcp.json and
 * exporter_udp.json, our client's -J against our server).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "exp_expo.h"
#include "exp_query.h"

#ifndef EXP_FIXTURES
#define EXP_FIXTURES "tests/data"
#endif

START_TEST(go_parse_bool)
{
	static const char *const yes[] = { "1", "t", "T", "TRUE", "true",
		"True" };
	static const char *const no[] = { "0", "f", "F", "FALSE", "false",
		"False" };
	static const char *const bad[] = { "", "yes", "no", "tRUE", "TRue",
		" 1", "1 ", "2", "on", "y", "truee", "FaLsE" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		ck_assert_int_eq(exp_parse_bool(yes[i]), 1);
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ck_assert_int_eq(exp_parse_bool(no[i]), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(exp_parse_bool(bad[i]) == -1, "'%s'", bad[i]);
}
END_TEST

START_TEST(go_parse_duration)
{
	static const struct {
		const char *s;
		double v;
	} ok[] = {
		{ "5s", 5 }, { "1m30s", 90 }, { "1.5h", 5400 }, { "300ms", 0.3 },
		{ "0", 0 }, { "-2s", -2 }, { "+5s", 5 }, { ".5s", 0.5 },
		{ "5.s", 5 }, { "2h45m", 9900 }, { "1us", 1e-6 },
		{ "1\xc2\xb5s", 1e-6 }, { "1\xce\xbcs", 1e-6 }, { "10ns", 1e-8 },
		{ "1h2m3s4ms5us6ns", 3723.004005006 }, { "0s", 0 },
		{ "1.000000000000000000001s", 1 }, { "9223372036s", 9223372036 },
		{ "30s", 30 }, { "0.5m", 30 },
	};
	static const char *const bad[] = { "", "5", "s", "5sec", "5 s", " 5s",
		"5s ", ".s", "-", "+", "1e3s", "2562048h", "9223372037s", "5S",
		"5d", "1..5s", "-.s", "1h-5m", "0x10s", "\xc2\xb5s",
	};
	double v;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = -99;
		ck_assert_msg(exp_parse_duration(ok[i].s, &v) == 0, "'%s'",
		    ok[i].s);
		ck_assert_msg(fabs(v - ok[i].v) <= 1e-9 * (fabs(ok[i].v) + 1),
		    "'%s' gave %.12g", ok[i].s, v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(exp_parse_duration(bad[i], &v) == -1, "'%s' taken",
		    bad[i]);
}
END_TEST

START_TEST(bitrate_pattern)
{
	static const struct {
		const char *s;
		uint64_t bps;
		int burst;
	} ok[] = {
		{ "100", 100, 0 }, { "100K", 100000, 0 }, { "1.5M", 1500000, 0 },
		{ "1G/10", 1000000000, 10 }, { "10M/1000", 10000000, 1000 },
		{ "0", 0, 0 }, { "0.25K", 250, 0 }, { "7/0", 7, 0 },
		{ "1M/0001", 1000000, 1 },
	};
	static const char *const bad[] = { "", "10m", "1.M", ".5M", "1e6",
		"10M/", "/10", "-1", "10M/1001", "99999999999G", "1 M", "10MB",
		"1K/2/3", "10T", "+5", "1.5.5", "10M/-1", "10k",
	};
	uint64_t bps;
	int burst;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(exp_parse_bitrate(ok[i].s, &bps, &burst) == 0,
		    "'%s'", ok[i].s);
		ck_assert_uint_eq(bps, ok[i].bps);
		ck_assert_int_eq(burst, ok[i].burst);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(exp_parse_bitrate(bad[i], &bps, &burst) == -1,
		    "'%s' taken", bad[i]);
}
END_TEST

START_TEST(target_port_bind)
{
	static const struct {
		const char *s, *host;
		int rc, port;
	} ok[] = {
		{ "host", "host", 0, 7 }, { "host:5202", "host", 1, 5202 },
		{ "[::1]", "::1", 0, 7 }, { "[::1]:5202", "::1", 1, 5202 },
		{ "::1", "::1", 0, 7 }, { "127.0.0.1:80", "127.0.0.1", 1, 80 },
		{ "a-b.example_x.org", "a-b.example_x.org", 0, 7 },
		{ "2001:db8::1", "2001:db8::1", 0, 7 },
	};
	static const char *const bad[] = { "", "-x", ".x", "ho st", "[::1",
		"[1.2.3.4]", "host:0", "host:99999", "host:", "a/b", "[::1]x",
		"[::1]:", "[]", "h\nx", "host:80:80x", "::1x:5", "[::1]:0",
		"h%41", "host:+80",
	};
	char host[EXP_HOST_MAX], big[400], out[64];
	int port;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		port = 7;
		ck_assert_int_eq(exp_parse_target(ok[i].s, host, sizeof(host),
		    &port), ok[i].rc);
		ck_assert_str_eq(host, ok[i].host);
		ck_assert_int_eq(port, ok[i].port);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(exp_parse_target(bad[i], host, sizeof(host),
		    &port) == -1, "'%s' taken", bad[i]);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(exp_parse_target(big, host, sizeof(host), &port), -1);
	big[253] = '\0';
	ck_assert_int_eq(exp_parse_target(big, host, sizeof(host), &port), 0);
	big[253] = 'a';
	big[254] = '\0';
	ck_assert_int_eq(exp_parse_target(big, host, sizeof(host), &port), -1);

	ck_assert_int_eq(exp_parse_port("1"), 1);
	ck_assert_int_eq(exp_parse_port("65535"), 65535);
	ck_assert_int_eq(exp_parse_port("05201"), 5201);
	ck_assert_int_eq(exp_parse_port("0"), -1);
	ck_assert_int_eq(exp_parse_port("65536"), -1);
	ck_assert_int_eq(exp_parse_port(""), -1);
	ck_assert_int_eq(exp_parse_port("+1"), -1);
	ck_assert_int_eq(exp_parse_port("1a"), -1);
	ck_assert_int_eq(exp_parse_port("000001"), -1);

	ck_assert_int_eq(exp_parse_addr("127.0.0.1", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "127.0.0.1");
	ck_assert_int_eq(exp_parse_addr("[::1]", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "::1");
	ck_assert_int_eq(exp_parse_addr("fe80::2", out, sizeof(out)), 0);
	ck_assert_int_eq(exp_parse_addr("localhost", out, sizeof(out)), -1);
	ck_assert_int_eq(exp_parse_addr("1.2.3", out, sizeof(out)), -1);
	ck_assert_int_eq(exp_parse_addr("", out, sizeof(out)), -1);
	ck_assert_int_eq(exp_parse_addr("[]", out, sizeof(out)), -1);
	ck_assert_int_eq(exp_parse_addr("[127.0.0.1]", out, sizeof(out)), -1);
	ck_assert_int_eq(exp_parse_addr("::1", out, 3), -1);
}
END_TEST

/* ---- the query ----------------------------------------------------------- */

/* "k=v&k=v" without decoding, as the fuzz target reads it. */
struct kv {
	char buf[512];
	const char *key[16], *val[16];
	int n;
};

static void
kv_init(struct kv *q, const char *text)
{
	char *p;

	memset(q, 0, sizeof(*q));
	(void)snprintf(q->buf, sizeof(q->buf), "%s", text);
	for (p = q->buf; *p != '\0' && q->n < 16;) {
		char *amp = strchr(p, '&'), *eq;

		if (amp != NULL)
			*amp = '\0';
		eq = strchr(p, '=');
		if (eq != NULL)
			*eq = '\0';
		q->key[q->n] = p;
		q->val[q->n++] = eq != NULL ? eq + 1 : "";
		if (amp == NULL)
			break;
		p = amp + 1;
	}
}

static const char *
kv_get(const void *ctx, const char *key)
{
	const struct kv *q = ctx;
	int i;

	for (i = 0; i < q->n; i++)
		if (strcmp(q->key[i], key) == 0)
			return q->val[i];
	return NULL;
}

static int
parse(const char *text, struct probe_req *r, char *err)
{
	struct kv q;

	kv_init(&q, text);
	err[0] = '\0';
	return exp_query_parse(kv_get, &q, 30, r, err, 256);
}

START_TEST(query_accepted)
{
	struct probe_req r;
	char err[256];

	ck_assert_int_eq(parse("target=example.org", &r, err), 0);
	ck_assert_str_eq(r.target, "example.org");
	ck_assert_str_eq(r.label, "example.org");
	ck_assert_int_eq(r.port, 5201);
	ck_assert_int_eq(r.reverse, 0);
	ck_assert_int_eq(r.udp, 0);
	ck_assert_int_eq(r.have_bitrate, 0);
	ck_assert(r.period_s == 5);
	ck_assert_str_eq(r.bind, "");

	ck_assert_int_eq(parse("target=[::1]:5300&reverse_mode=True&udp_mode=1"
	    "&bitrate=10M/5&period=0m15.5s&bind=127.0.0.1&other=x", &r, err), 0);
	ck_assert_str_eq(r.target, "::1");
	ck_assert_str_eq(r.label, "[::1]:5300");
	ck_assert_int_eq(r.port, 5300);
	ck_assert_int_eq(r.reverse, 1);
	ck_assert_int_eq(r.udp, 1);
	ck_assert_int_eq(r.have_bitrate, 1);
	ck_assert_uint_eq(r.bitrate, 10000000);
	ck_assert_int_eq(r.burst, 5);
	ck_assert(r.period_s == 15.5);
	ck_assert_str_eq(r.bind, "127.0.0.1");

	/* empty values are absent ones */
	ck_assert_int_eq(parse("target=h&port=&udp_mode=&period=&bitrate=&bind=",
	    &r, err), 0);
	ck_assert_int_eq(r.port, 5201);
	ck_assert(r.period_s == 5);
	ck_assert_int_eq(parse("target=h&port=6000&period=30s&udp_mode=F", &r,
	    err), 0);
	ck_assert_int_eq(r.port, 6000);
	ck_assert(r.period_s == 30);
}
END_TEST

START_TEST(query_refused)
{
	static const struct {
		const char *q, *reason;
	} bad[] = {
		{ "", "missing parameter 'target'" },
		{ "target=", "missing parameter 'target'" },
		{ "port=5201", "missing parameter 'target'" },
		{ "target=a b", "invalid target 'a b'" },
		{ "target=h&port=0", "invalid port '0'" },
		{ "target=h:5201&port=5202", "invalid port '5202'" },
		{ "target=h&reverse_mode=yes", "invalid reverse_mode 'yes'" },
		{ "target=h&udp_mode=2", "invalid udp_mode '2'" },
		{ "target=h&bitrate=10mbit", "invalid bitrate '10mbit'" },
		{ "target=h&period=5", "invalid period '5'" },
		{ "target=h&period=0s", "invalid period '0s': must be above 0" },
		{ "target=h&period=-1s", "invalid period '-1s'" },
		{ "target=h&period=31s", "period '31s' is above the maximum of 30s" },
		{ "target=h&period=1h", "period '1h' is above" },
		{ "target=h&bind=localhost", "invalid bind 'localhost'" },
		{ "target=h\x01x", "invalid target 'h?x'" },
	};
	struct probe_req r;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse(bad[i].q, &r, err) == -1, "'%s' taken",
		    bad[i].q);
		ck_assert_msg(strncmp(err, bad[i].reason, strlen(bad[i].reason))
		    == 0, "'%s': '%s'", bad[i].q, err);
		ck_assert_ptr_null(strchr(err, '\n'));
	}
}
END_TEST

/* ---- the exposition ------------------------------------------------------ */

static char *
fixture(const char *name)
{
	char path[1024];
	FILE *f;
	char *buf;
	long n;

	(void)snprintf(path, sizeof(path), "%s/%s", EXP_FIXTURES, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	(void)fclose(f);
	return buf;
}

static char *
write_probe(const struct exp_probe_view *v, int *up)
{
	struct exp_buf b;
	size_t len;
	char *text;

	exp_buf_init(&b);
	*up = exp_write_probe(&b, v);
	text = exp_buf_take(&b, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

static void
has(const char *text, const char *line)
{
	ck_assert_msg(strstr(text, line) != NULL, "missing '%s' in:\n%s", line,
	    text);
}

static void
lacks(const char *text, const char *what)
{
	ck_assert_msg(strstr(text, what) == NULL, "'%s' in:\n%s", what, text);
}

START_TEST(expo_tcp)
{
	char *json = fixture("exporter_tcp.json"), *t;
	struct exp_probe_view v = { "127.0.0.1", 5201, 0, 1, 0, 1.25, json };
	int up;

	t = write_probe(&v, &up);
	ck_assert_int_eq(up, 1);
	has(t, "# HELP iperf3_up Was the last iperf3 probe successful.\n"
	    "# TYPE iperf3_up gauge\n"
	    "iperf3_up{target=\"127.0.0.1\",port=\"5201\"} 1\n");
	has(t, "# TYPE iperf3_sent_bytes gauge\n"
	    "iperf3_sent_bytes{target=\"127.0.0.1\",port=\"5201\"} 1475346432\n");
	has(t, "iperf3_sent_seconds{target=\"127.0.0.1\",port=\"5201\"} 1.003164\n");
	has(t, "iperf3_received_bytes{target=\"127.0.0.1\",port=\"5201\"} "
	    "1474362067\n");
	has(t, "iperf3_received_seconds{target=\"127.0.0.1\",port=\"5201\"} "
	    "1.003982\n");
	has(t, "iperf3_retransmits{target=\"127.0.0.1\",port=\"5201\"} 14\n");
	has(t, "# TYPE iperf3_rtt_seconds summary\n"
	    "iperf3_rtt_seconds{target=\"127.0.0.1\",port=\"5201\","
	    "quantile=\"0.5\"} 0.000215\n");
	has(t, "iperf3_rtt_seconds{target=\"127.0.0.1\",port=\"5201\","
	    "quantile=\"0.99\"} 0.000885\n"
	    "iperf3_rtt_seconds_count{target=\"127.0.0.1\",port=\"5201\"} "
	    "166\n");
	has(t, "iperf3_bitrate_capped{target=\"127.0.0.1\",port=\"5201\"} 0\n");
	has(t, "# TYPE probe_success gauge\nprobe_success 1\n");
	has(t, "# TYPE probe_duration_seconds gauge\n"
	    "probe_duration_seconds 1.25\n");
	lacks(t, "iperf3_sent_packets");
	lacks(t, "jitter");
	lacks(t, "delay_variation");
	free(t);
	free(json);
}
END_TEST

START_TEST(expo_udp)
{
	char *json = fixture("exporter_udp.json"), *t;
	struct exp_probe_view v = { "[::1]:5300", 5300, 1, 1, 1, 2, json };
	int up;

	t = write_probe(&v, &up);
	ck_assert_int_eq(up, 1);
	has(t, "iperf3_up{target=\"[::1]:5300\",port=\"5300\"} 1\n");
	has(t, "iperf3_sent_packets{target=\"[::1]:5300\",port=\"5300\"} 8\n");
	has(t, "iperf3_sent_jitter_ms{target=\"[::1]:5300\",port=\"5300\"} 0\n");
	has(t, "iperf3_received_jitter_ms{target=\"[::1]:5300\",port=\"5300\"} "
	    "0.003128956682980061\n");
	has(t, "iperf3_received_packets{target=\"[::1]:5300\",port=\"5300\"} 8\n");
	has(t, "iperf3_received_lost_packets{target=\"[::1]:5300\","
	    "port=\"5300\"} 0\n");
	has(t, "iperf3_received_lost_percent{target=\"[::1]:5300\","
	    "port=\"5300\"} 0\n");
	has(t, "iperf3_sent_lost_percent{target=\"[::1]:5300\",port=\"5300\"} 0\n");
	has(t, "# TYPE iperf3_udp_delay_variation_seconds summary\n"
	    "iperf3_udp_delay_variation_seconds{target=\"[::1]:5300\","
	    "port=\"5300\",quantile=\"0.5\"} 3e-06\n");
	has(t, "iperf3_udp_delay_variation_seconds{target=\"[::1]:5300\","
	    "port=\"5300\",quantile=\"0.99\"} 1.7e-05\n"
	    "iperf3_udp_delay_variation_seconds_count{target=\"[::1]:5300\","
	    "port=\"5300\"} 8\n");
	has(t, "iperf3_udp_lost_in_receiver_packets{target=\"[::1]:5300\","
	    "port=\"5300\"} 0\n");
	has(t, "iperf3_bitrate_capped{target=\"[::1]:5300\",port=\"5300\"} 1\n");
	lacks(t, "retransmits");
	lacks(t, "rtt");
	free(t);
	free(json);
}
END_TEST

START_TEST(expo_failed)
{
	static const char *const docs[] = {
		NULL, "", "{", "[]", "{\"end\":{}}",
		"{\"error\":\"unable to connect\",\"end\":{\"sum_sent\":{},"
		    "\"sum_received\":{}}}",
		"{\"end\":{\"sum_sent\":{\"bytes\":1}}}",
		"{\"end\":{\"sum_sent\":1,\"sum_received\":{}}}",
	};
	char *json = fixture("exporter_tcp.json"), *t;
	struct exp_probe_view v = { "x", 1, 0, 1, 0, 0.5, NULL };
	size_t i;
	int up;

	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		v.json = docs[i];
		t = write_probe(&v, &up);
		ck_assert_int_eq(up, 0);
		has(t, "iperf3_up{target=\"x\",port=\"1\"} 0\n");
		has(t, "\nprobe_success 0\n");
		has(t, "\nprobe_duration_seconds 0.5\n");
		lacks(t, "bytes");
		free(t);
	}
	/* a whole document, but the run failed */
	v.json = json;
	v.ran_ok = 0;
	t = write_probe(&v, &up);
	ck_assert_int_eq(up, 0);
	lacks(t, "iperf3_sent_bytes");
	free(t);
	free(json);
}
END_TEST

START_TEST(expo_escaping_and_numbers)
{
	struct exp_probe_view v = { "a\"b\\c\nd", 80, 0, 0, 0, 0.1, NULL };
	struct exp_buf b;
	size_t len;
	char *t;
	int up;

	t = write_probe(&v, &up);
	has(t, "iperf3_up{target=\"a\\\"b\\\\c\\nd\",port=\"80\"} 0\n");
	has(t, "probe_duration_seconds 0.1\n");
	free(t);

	exp_buf_init(&b);
	exp_sample(&b, "m", "", NAN);
	exp_sample(&b, "m", "", INFINITY);
	exp_sample(&b, "m", "", -INFINITY);
	exp_sample(&b, "m", "", 1e300);
	exp_sample(&b, "m", "", 18446744073709551616.0);
	exp_sample(&b, "m", "a=\"1\"", 1.0 / 3);
	exp_sample(&b, "m", "", 0);
	exp_sample(&b, "m", "", -0.25);
	t = exp_buf_take(&b, &len);
	ck_assert_str_eq(t, "m NaN\nm +Inf\nm -Inf\nm 1e+300\n"
	    "m 1.8446744073709552e+19\nm{a=\"1\"} 0.3333333333333333\nm 0\n"
	    "m -0.25\n");
	free(t);

	/* a long text grows the buffer */
	exp_buf_init(&b);
	for (up = 0; up < 1000; up++)
		exp_buf_printf(&b, "%s", "0123456789");
	t = exp_buf_take(&b, &len);
	ck_assert_uint_eq(len, 10000);
	free(t);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("exporter");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, go_parse_bool);
	tcase_add_test(tc, go_parse_duration);
	tcase_add_test(tc, bitrate_pattern);
	tcase_add_test(tc, target_port_bind);
	tcase_add_test(tc, query_accepted);
	tcase_add_test(tc, query_refused);
	tcase_add_test(tc, expo_tcp);
	tcase_add_test(tc, expo_udp);
	tcase_add_test(tc, expo_failed);
	tcase_add_test(tc, expo_escaping_and_numbers);
	suite_add_tcase(s, tc);
	return s;
}
