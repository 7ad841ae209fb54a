/* check_acl.c - admission control by source: prefixes (cidr), the token
 * bucket of --accept-rate, the allow/deny lists and the per-source table. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "acl.h"
#include "addr.h"
#include "cidr.h"
#include "sources.h"
#include "tbucket.h"

#define S 1000000ULL /* one second in us */

/* A socket address of numeric host text (IPv6 if it has a ':'). */
static struct sockaddr_storage
sa(const char *host, int port)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(host, ':') != NULL) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		ck_assert_int_eq(inet_pton(AF_INET6, host, &s6->sin6_addr), 1);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		ck_assert_int_eq(inet_pton(AF_INET, host, &s4->sin_addr), 1);
	}
	return ss;
}

/* cidr_parse then cidr_format: the canonical text, or "ERR". */
static const char *
canon(const char *text)
{
	static char buf[CIDR_TEXT_MAX];
	struct cidr c;

	if (cidr_parse(text, &c) == -1)
		return "ERR";
	ck_assert_int_eq(cidr_format(&c, buf, sizeof(buf)), 0);
	return buf;
}

/* ---- cidr ---------------------------------------------------------------- */

START_TEST(cidr_parse_accepts)
{
	static const char *const ok[][2] = {
		{ "10.0.0.0/8", "10.0.0.0/8" },
		{ "192.0.2.7", "192.0.2.7/32" },
		{ "10.1.2.3/8", "10.0.0.0/8" },
		{ "10.1.2.3/0", "0.0.0.0/0" },
		{ "10.1.2.255/31", "10.1.2.254/31" },
		{ "10.1.2.3/32", "10.1.2.3/32" },
		{ "10.0.0.0/08", "10.0.0.0/8" },
		{ "::1", "::1/128" },
		{ "::", "::/128" },
		{ "::/0", "::/0" },
		{ "2001:db8::/32", "2001:db8::/32" },
		{ "2001:db8:ffff::1/33", "2001:db8:8000::/33" },
		{ "2001:DB8::1/128", "2001:db8::1/128" },
		{ "fe80::1:2:3:4/64", "fe80::/64" },
		{ "::ffff:10.0.0.0/104", "10.0.0.0/8" },
		{ "::ffff:10.1.2.3", "10.1.2.3/32" },
		{ "::ffff:10.1.2.3/96", "0.0.0.0/0" },
		{ "::ffff:10.1.2.3/95", "::fffe:0:0/95" },
		{ "1:2:3:4:5:6:7:8/127", "1:2:3:4:5:6:7:8/127" },
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		ck_assert_msg(strcmp(canon(ok[i][0]), ok[i][1]) == 0,
		    "%s gave %s, not %s", ok[i][0], canon(ok[i][0]), ok[i][1]);
}
END_TEST

START_TEST(cidr_parse_rejects)
{
	static const char *const bad[] = {
		"", "/", "/8", " 10.0.0.0/8", "10.0.0.0/8 ", "10.0.0.0 /8",
		"10.0.0.0/ 8", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8",
		"+10.0.0.0", "-10.0.0.0", "10.0.0.0/x", "10.0.0.0/8x",
		"1.2.3.4/", "1.2.3.4//8", "1.2.3.4/8/8", "1.2.3", "1.2.3.4.5",
		"256.0.0.0", "1.2.3.4x", "01.2.3.4", "0x1.2.3.4", "::1/129",
		"::1/1000", "::1/0128", "2001:db8::/", ":::", "1::2::3",
		"2001:db8::g", "10.0.0.0/8\n", "localhost", "10.0.0.0/1e1",
		"::ffff:10.0.0.0/129", "[::1]", "[::1]/128", "::1%lo",
		"1111:2222:3333:4444:5555:6666:7777:8888:9999:0000:1111:2222/64",
	};
	struct cidr c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(cidr_parse(bad[i], &c) == -1, "accepted '%s'",
		    bad[i]);
	ck_assert_int_eq(cidr_parse(NULL, &c), -1);
}
END_TEST

START_TEST(cidr_match_v4_v6_and_mapped)
{
	struct cidr c;
	struct sockaddr_storage un;

	ck_assert_int_eq(cidr_parse("10.0.0.0/8", &c), 0);
	ck_assert_int_eq(cidr_match(&c, &(struct sockaddr_storage){ 0 }), 0);
	{
		struct sockaddr_storage a = sa("10.200.1.1", 5201),
		    b = sa("11.0.0.1", 1), m = sa("::ffff:10.9.9.9", 1),
		    m2 = sa("::ffff:11.9.9.9", 1), v6 = sa("::a00:1", 1);

		ck_assert_int_eq(cidr_match(&c, &a), 1);
		ck_assert_int_eq(cidr_match(&c, &b), 0);
		ck_assert_int_eq(cidr_match(&c, &m), 1);
		ck_assert_int_eq(cidr_match(&c, &m2), 0);
		ck_assert_int_eq(cidr_match(&c, &v6), 0);
	}
	ck_assert_int_eq(cidr_parse("192.0.2.128/25", &c), 0);
	{
		struct sockaddr_storage in = sa("192.0.2.200", 1),
		    out = sa("192.0.2.127", 1);

		ck_assert_int_eq(cidr_match(&c, &in), 1);
		ck_assert_int_eq(cidr_match(&c, &out), 0);
	}
	ck_assert_int_eq(cidr_parse("2001:db8::/33", &c), 0);
	{
		struct sockaddr_storage in = sa("2001:db8:7fff::1", 1),
		    out = sa("2001:db8:8000::1", 1), v4 = sa("32.1.13.184", 1);

		ck_assert_int_eq(cidr_match(&c, &in), 1);
		ck_assert_int_eq(cidr_match(&c, &out), 0);
		ck_assert_int_eq(cidr_match(&c, &v4), 0);
	}
	/* A mapped prefix matches plain IPv4 and mapped sources alike. */
	ck_assert_int_eq(cidr_parse("::ffff:192.0.2.0/120", &c), 0);
	{
		struct sockaddr_storage v4 = sa("192.0.2.9", 1),
		    m = sa("::ffff:192.0.2.10", 1);

		ck_assert_int_eq(cidr_match(&c, &v4), 1);
		ck_assert_int_eq(cidr_match(&c, &m), 1);
	}
	/* /0 of each family: every address of that family, no other. */
	ck_assert_int_eq(cidr_parse("0.0.0.0/0", &c), 0);
	{
		struct sockaddr_storage v4 = sa("203.0.113.5", 1),
		    v6 = sa("2001:db8::1", 1);

		ck_assert_int_eq(cidr_match(&c, &v4), 1);
		ck_assert_int_eq(cidr_match(&c, &v6), 0);
	}
	memset(&un, 0, sizeof(un));
	un.ss_family = AF_UNIX;
	ck_assert_int_eq(cidr_match(&c, &un), 0);
}
END_TEST

START_TEST(cidr_of_addr_keys)
{
	struct sockaddr_storage a = sa("192.0.2.77", 40000),
	    m = sa("::ffff:192.0.2.99", 1), b = sa("192.0.3.1", 1),
	    v6 = sa("2001:db8:1:2:3:4:5:6", 1), un;
	struct cidr k1, k2, k3;
	char buf[CIDR_TEXT_MAX];

	cidr_of_addr(&a, 24, 64, &k1);
	ck_assert_int_eq(cidr_format(&k1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "192.0.2.0/24");
	cidr_of_addr(&m, 24, 64, &k2);
	ck_assert_int_eq(cidr_equal(&k1, &k2), 1);
	cidr_of_addr(&b, 24, 64, &k3);
	ck_assert_int_eq(cidr_equal(&k1, &k3), 0);
	cidr_of_addr(&a, 32, 128, &k1);
	ck_assert_int_eq(cidr_format(&k1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "192.0.2.77/32");
	cidr_of_addr(&v6, 24, 64, &k1);
	ck_assert_int_eq(cidr_format(&k1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "2001:db8:1:2::/64");
	cidr_of_addr(&v6, 99, 200, &k1); /* capped */
	ck_assert_uint_eq(k1.bits, 128);
	ck_assert_int_eq(cidr_match(&k1, &v6), 1);
	memset(&un, 0, sizeof(un));
	un.ss_family = AF_UNIX;
	cidr_of_addr(&un, 32, 128, &k1);
	ck_assert_int_eq(k1.family, AF_UNSPEC);
	ck_assert_int_eq(cidr_format(&k1, buf, sizeof(buf)), -1);
	ck_assert_str_eq(buf, "");
	/* A short buffer. */
	cidr_of_addr(&a, 32, 128, &k1);
	ck_assert_int_eq(cidr_format(&k1, buf, 8), -1);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* addr_format (net/addr.h), which the audit log's "source" is. */
START_TEST(addr_format_shows_mapped_as_v4)
{
	struct sockaddr_storage m = sa("::ffff:198.51.100.4", 5201),
	    v6 = sa("2001:db8::9", 443), un;
	char buf[64];
	int port = -1;

	addr_format(&m, buf, sizeof(buf), &port);
	ck_assert_str_eq(buf, "198.51.100.4");
	ck_assert_int_eq(port, 5201);
	addr_format(&v6, buf, sizeof(buf), &port);
	ck_assert_str_eq(buf, "2001:db8::9");
	memset(&un, 0, sizeof(un));
	un.ss_family = AF_UNIX;
	addr_format(&un, buf, sizeof(buf), &port);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(port, 0);
}
END_TEST

/* ---- tbucket ------------------------------------------------------------- */

START_TEST(tbucket_parse_accepts)
{
	double r, b;

	ck_assert_int_eq(tbucket_parse("5", &r, &b), 0);
	ck_assert_double_eq(r, 5);
	ck_assert_double_eq(b, 5);
	ck_assert_int_eq(tbucket_parse("10/60", &r, &b), 0);
	ck_assert_double_eq_tol(r, 10.0 / 60, 1e-12);
	ck_assert_double_eq(b, 10);
	ck_assert_int_eq(tbucket_parse("3/0.5:7", &r, &b), 0);
	ck_assert_double_eq_tol(r, 6, 1e-12);
	ck_assert_double_eq(b, 7);
	ck_assert_int_eq(tbucket_parse("1/.25", &r, &b), 0);
	ck_assert_double_eq_tol(r, 4, 1e-12);
	ck_assert_int_eq(tbucket_parse("1:1", &r, &b), 0);
	ck_assert_double_eq(b, 1);
	ck_assert_int_eq(tbucket_parse("1000000/86400:1000000", &r, &b), 0);
	ck_assert_int_eq(tbucket_parse("1/86400.0", &r, &b), 0);
	ck_assert_double_eq_tol(r, 1.0 / 86400, 1e-15);
}
END_TEST

START_TEST(tbucket_parse_rejects)
{
	static const char *const bad[] = {
		"", "0", "-1", "+1", " 1", "1 ", "1000001", "1.5", "1/",
		"1/0", "1/0.0", "1/-1", "1/+1", "1/86400.1", "1/86401",
		"1/1e3", "1/inf", "1/nan", "1/0x10", "1/.", "1/1.", "1:",
		"1:0", "1:-1", "1:1.5", "1:1000001", "1/2:3:4", "1/2/3",
		"1:2/3", "1/0.0000000001", "a", "1x", "99999999999999999999",
	};
	double r = -7, b = -7;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(tbucket_parse(bad[i], &r, &b) == -1,
		    "accepted '%s'", bad[i]);
	ck_assert_int_eq(tbucket_parse(NULL, &r, &b), -1);
	ck_assert_double_eq(r, -7);
	ck_assert_double_eq(b, -7);
}
END_TEST

/* Tokens taken in n tries spaced step us apart from *t. */
static int
takes(struct tbucket *b, uint64_t *t, int n, uint64_t step)
{
	int i, got = 0;

	for (i = 0; i < n; i++) {
		*t += step;
		got += tbucket_take(b, *t);
	}
	return got;
}

START_TEST(tbucket_timing)
{
	struct tbucket b;
	uint64_t t = 1000 * S;

	/* 10 per second, burst 3: starts full. */
	tbucket_init(&b, 10, 3, t);
	ck_assert_int_eq(takes(&b, &t, 5, 0), 3);
	/* One token per 100 ms exactly (no rounding loss). */
	ck_assert_int_eq(takes(&b, &t, 1, 99999), 0);
	ck_assert_int_eq(takes(&b, &t, 1, 1), 1);
	ck_assert_int_eq(takes(&b, &t, 100, S / 10), 100);
	/* Idle for long: refilled to the burst only. */
	t += 3600 * S;
	ck_assert_int_eq(takes(&b, &t, 10, 0), 3);
	/* A steady stream of tries: the rate over a minute. */
	ck_assert_int_eq(takes(&b, &t, 60000, 1000), 600);
}
END_TEST

START_TEST(tbucket_slow_rates_and_clock_going_back)
{
	struct tbucket b;
	double r, bu;
	uint64_t t = 5 * S;

	ck_assert_int_eq(tbucket_parse("2/60:1", &r, &bu), 0);
	tbucket_init(&b, r, bu, t);
	ck_assert_int_eq(tbucket_take(&b, t), 1);
	ck_assert_int_eq(tbucket_take(&b, t + 29 * S), 0);
	ck_assert_int_eq(tbucket_take(&b, t + 30 * S), 1);
	/* Back by 20 s: nothing refills, the bucket counts on from there. */
	ck_assert_int_eq(tbucket_take(&b, t + 10 * S), 0);
	ck_assert_int_eq(tbucket_take(&b, t + 39 * S), 0);
	ck_assert_int_eq(tbucket_take(&b, t + 40 * S), 1);
	/* A clock back to 0 and a huge jump forward. */
	ck_assert_int_eq(tbucket_take(&b, 0), 0);
	ck_assert_int_eq(tbucket_take(&b, UINT64_MAX), 1);
	ck_assert_int_eq(tbucket_take(&b, UINT64_MAX), 0);
	/* A burst below 1 still lets one through. */
	tbucket_init(&b, 1, 0, 0);
	ck_assert_int_eq(tbucket_take(&b, 0), 1);
	ck_assert_int_eq(tbucket_take(&b, 0), 0);
}
END_TEST

/* ---- acl ----------------------------------------------------------------- */

static int
permits(const struct acl *a, const char *host)
{
	struct sockaddr_storage ss = sa(host, 1234);

	return acl_permits(a, &ss);
}

static int
load(struct acl *a, const char *text, char *err, size_t errlen)
{
	return acl_load_text(a, text, strlen(text), err, errlen);
}

START_TEST(acl_empty_permits_everyone)
{
	struct acl *a = acl_new();

	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(acl_empty(a), 1);
	ck_assert_int_eq(permits(a, "203.0.113.1"), 1);
	ck_assert_int_eq(permits(a, "2001:db8::1"), 1);
	ck_assert_int_eq(acl_add(a, 0, "10.0.0.0/33"), -1);
	ck_assert_int_eq(acl_add(a, 1, "nonsense"), -1);
	ck_assert_int_eq(acl_empty(a), 1);
	acl_free(a);
	acl_free(NULL);
}
END_TEST

START_TEST(acl_deny_wins)
{
	struct acl *a = acl_new();
	char err[128];

	ck_assert_int_eq(acl_add(a, 1, "192.0.2.66"), 0);
	ck_assert_int_eq(acl_empty(a), 0);
	/* Deny only: everyone else is permitted. */
	ck_assert_int_eq(permits(a, "192.0.2.66"), 0);
	ck_assert_int_eq(permits(a, "::ffff:192.0.2.66"), 0);
	ck_assert_int_eq(permits(a, "192.0.2.67"), 1);
	ck_assert_int_eq(permits(a, "2001:db8::1"), 1);
	/* An allow that covers the denied host does not let it in. */
	ck_assert_int_eq(acl_add(a, 0, "192.0.2.0/24"), 0);
	ck_assert_int_eq(permits(a, "192.0.2.66"), 0);
	ck_assert_int_eq(permits(a, "192.0.2.1"), 1);
	/* Allow entries exist: others must match one. */
	ck_assert_int_eq(permits(a, "198.51.100.1"), 0);
	ck_assert_int_eq(permits(a, "2001:db8::1"), 0);
	/* A deny of the file wins over the options' allow too. */
	ck_assert_int_eq(load(a, "deny 192.0.2.1\n", err, sizeof(err)), 0);
	ck_assert_int_eq(permits(a, "192.0.2.1"), 0);
	ck_assert_int_eq(permits(a, "192.0.2.2"), 1);
	acl_free(a);
}
END_TEST

START_TEST(acl_allow_only)
{
	struct acl *a = acl_new();
	char err[128];

	ck_assert_int_eq(load(a, "2001:db8::/32\n10.0.0.0/8\n", err,
	    sizeof(err)), 0);
	ck_assert_int_eq(permits(a, "10.20.30.40"), 1);
	ck_assert_int_eq(permits(a, "::ffff:10.20.30.40"), 1);
	ck_assert_int_eq(permits(a, "2001:db8:ffff::1"), 1);
	ck_assert_int_eq(permits(a, "11.0.0.1"), 0);
	ck_assert_int_eq(permits(a, "2001:db9::1"), 0);
	/* The options' allow adds to the file's. */
	ck_assert_int_eq(acl_add(a, 0, "11.0.0.1"), 0);
	ck_assert_int_eq(permits(a, "11.0.0.1"), 1);
	acl_free(a);
}
END_TEST

START_TEST(acl_file_syntax)
{
	static const char text[] =
	    "# the lab\r\n"
	    "\r\n"
	    "   \t \n"
	    "10.0.0.0/8   # the lab's net\r\n"
	    "\tdeny 10.66.0.0/16\t\r\n"
	    "allow\t2001:db8::/48#no space before\n"
	    "deny ::ffff:10.1.0.0/112 # mapped\n"
	    "#deny 10.2.0.0/16\n"
	    "192.0.2.1"; /* no final newline */
	struct acl *a = acl_new();
	char err[128] = "";

	ck_assert_int_eq(load(a, text, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(permits(a, "10.2.0.1"), 1);
	ck_assert_int_eq(permits(a, "10.66.1.1"), 0);
	ck_assert_int_eq(permits(a, "10.1.0.9"), 0);
	ck_assert_int_eq(permits(a, "2001:db8:0:1::5"), 1);
	ck_assert_int_eq(permits(a, "2001:db8:1::5"), 0);
	ck_assert_int_eq(permits(a, "192.0.2.1"), 1);
	ck_assert_int_eq(permits(a, "192.0.2.2"), 0);
	/* An empty file: no entries at all. */
	ck_assert_int_eq(acl_load_text(a, "", 0, err, sizeof(err)), 0);
	ck_assert_int_eq(acl_empty(a), 1);
	ck_assert_int_eq(load(a, "# nothing\n\n", err, sizeof(err)), 0);
	ck_assert_int_eq(acl_empty(a), 1);
	acl_free(a);
}
END_TEST

/* Each bad file fails with its "line N: ..." and keeps the old file. */
START_TEST(acl_file_errors_keep_the_old_part)
{
	static const struct {
		const char *text;
		size_t len;
		const char *err;
	} bad[] = {
		{ "10.0.0.0/8\nbogus\n", 0, "line 2: not an address" },
		{ "\n\n\n10.0.0.0/33", 0, "line 4: not an address" },
		{ "permit 10.0.0.0/8\n", 0, "line 1: expected" },
		{ "deny\n", 0, "line 1: not an address" },
		{ "deny 10.0.0.0/8 10.1.0.0/16\n", 0, "line 1: not an address" },
		{ "Deny 10.0.0.0/8\n", 0, "line 1: expected" },
		{ "10.0.0.0/8 deny\n", 0, "line 1: expected" },
		{ "1.2.3.4/\n", 0, "line 1: not an address" },
		{ "10.0.0.1\n10.0\0.0.2\n", 19, "line 2: NUL byte" },
	};
	struct acl *a = acl_new();
	char err[128];
	size_t i;

	ck_assert_int_eq(load(a, "192.0.2.0/24\n", err, sizeof(err)), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].text);

		err[0] = '\0';
		ck_assert_int_eq(acl_load_text(a, bad[i].text, len, err,
		    sizeof(err)), -1);
		ck_assert_msg(strncmp(err, bad[i].err, strlen(bad[i].err)) == 0,
		    "case %zu: '%s'", i, err);
		ck_assert_int_eq(permits(a, "192.0.2.9"), 1);
		ck_assert_int_eq(permits(a, "10.0.0.1"), 0);
	}
	/* A zero-length err buffer is fine. */
	ck_assert_int_eq(load(a, "x\n", err, 0), -1);
	/* Success replaces the file part whole. */
	ck_assert_int_eq(load(a, "10.0.0.0/8\n", err, sizeof(err)), 0);
	ck_assert_int_eq(permits(a, "192.0.2.9"), 0);
	ck_assert_int_eq(permits(a, "10.0.0.1"), 1);
	acl_free(a);
}
END_TEST

START_TEST(acl_file_limits)
{
	struct acl *a = acl_new();
	char err[128], *text;
	size_t i, n = 0, cap = 100001 * 20;

	/* A line of 1024 bytes passes, one of 1025 fails. */
	text = malloc(cap);
	memset(text, ' ', 1025);
	memcpy(text, "10.0.0.1", 8);
	ck_assert_int_eq(acl_load_text(a, text, 1024, err, sizeof(err)), 0);
	ck_assert_int_eq(acl_load_text(a, text, 1025, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "line 1: longer than 1024 bytes");
	/* 100000 entries pass (and are matched: the first, the last and one
	 * outside them), one more fails.  No timing here: under valgrind or
	 * a loaded CI a bound on wall time fails without a cause. */
	for (i = 0; i < 100000; i++)
		n += (size_t)snprintf(text + n, cap - n, "deny 10.%zu.%zu.%zu\n",
		    i >> 16, (i >> 8) & 0xff, i & 0xff);
	ck_assert_int_eq(acl_load_text(a, text, n, err, sizeof(err)), 0);
	ck_assert_int_eq(permits(a, "10.0.0.0"), 0); /* the first */
	ck_assert_int_eq(permits(a, "10.1.134.159"), 0); /* the last */
	ck_assert_int_eq(permits(a, "10.2.0.0"), 1);
	n += (size_t)snprintf(text + n, cap - n, "10.3.0.0\n");
	ck_assert_int_eq(acl_load_text(a, text, n, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "line 100001: more than 100000 entries");
	ck_assert_int_eq(permits(a, "10.2.0.0"), 1);
	free(text);
	acl_free(a);
}
END_TEST

START_TEST(acl_load_file_reads_or_says_why)
{
	char path[] = "/tmp/check_acl_XXXXXX", err[256];
	struct acl *a = acl_new();
	int fd = mkstemp(path);
	static const char text[] = "deny 192.0.2.5\n192.0.2.0/24\n";

	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(write(fd, text, sizeof(text) - 1),
	    (ssize_t)sizeof(text) - 1);
	(void)close(fd);
	ck_assert_int_eq(acl_load_file(a, path, err, sizeof(err)), 0);
	ck_assert_int_eq(permits(a, "192.0.2.5"), 0);
	ck_assert_int_eq(permits(a, "192.0.2.6"), 1);
	ck_assert_int_eq(permits(a, "192.0.3.6"), 0);
	(void)unlink(path);
	ck_assert_int_eq(acl_load_file(a, path, err, sizeof(err)), -1);
	ck_assert_str_eq(strchr(err, ':'), ": No such file or directory");
	ck_assert_int_eq(acl_load_file(a, "/", err, sizeof(err)), -1);
	ck_assert_str_eq(err, "/: Is a directory");
	/* The old file part stays. */
	ck_assert_int_eq(permits(a, "192.0.2.6"), 1);
	acl_free(a);
}
END_TEST

/* ---- sources ------------------------------------------------------------- */

static struct cidr
key_of(const char *host, unsigned int v4, unsigned int v6)
{
	struct sockaddr_storage ss = sa(host, 1);
	struct cidr k;

	cidr_of_addr(&ss, v4, v6, &k);
	return k;
}

START_TEST(sources_get_find_prune)
{
	struct source_table *t = sources_new();
	struct cidr k1 = key_of("192.0.2.1", 24, 64),
	    k2 = key_of("::ffff:192.0.2.200", 24, 64),
	    k3 = key_of("2001:db8::1", 24, 64);
	struct source *s1, *s3;

	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_null(sources_find(t, &k1));
	s1 = sources_get(t, &k1, 100);
	ck_assert_ptr_nonnull(s1);
	ck_assert_int_eq(s1->pending, 0);
	ck_assert_int_eq(s1->active, 0);
	ck_assert_uint_eq(s1->last_us, 100);
	/* The mapped address of the same /24 is the same source. */
	ck_assert_ptr_eq(sources_get(t, &k2, 200), s1);
	ck_assert_uint_eq(s1->last_us, 200);
	s3 = sources_get(t, &k3, 300);
	ck_assert_ptr_ne(s3, s1);
	ck_assert_uint_eq(sources_count(t), 2);
	ck_assert_ptr_eq(sources_find(t, &k3), s3);
	ck_assert_uint_eq(s3->last_us, 300);
	/* Busy entries stay, idle ones go once idle long enough. */
	s1->active = 1;
	sources_prune(t, 300 + 999, 1000);
	ck_assert_uint_eq(sources_count(t), 2);
	sources_prune(t, 300 + 1000, 1000);
	ck_assert_uint_eq(sources_count(t), 1);
	ck_assert_ptr_null(sources_find(t, &k3));
	s1->active = 0;
	s1->pending = 2;
	sources_prune(t, UINT64_MAX, 0);
	ck_assert_uint_eq(sources_count(t), 1);
	s1->pending = 0;
	/* A clock behind last_us prunes nothing. */
	sources_prune(t, 10, 0);
	ck_assert_uint_eq(sources_count(t), 1);
	sources_prune(t, 200, 0);
	ck_assert_uint_eq(sources_count(t), 0);
	sources_free(t);
	sources_free(NULL);
}
END_TEST

START_TEST(sources_grow_and_shrink)
{
	struct source_table *t = sources_new();
	struct sockaddr_storage ss = sa("10.0.0.0", 1);
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct cidr k;
	uint32_t i;

	for (i = 0; i < 50000; i++) {
		struct source *s;

		s4->sin_addr.s_addr = htonl(0x0a000000u + i);
		cidr_of_addr(&ss, 32, 128, &k);
		s = sources_get(t, &k, i);
		ck_assert_ptr_nonnull(s);
		s->active = (i % 1000) == 0;
	}
	ck_assert_uint_eq(sources_count(t), 50000);
	/* Every key is found again (and the mapped form of it). */
	for (i = 0; i < 50000; i += 997) {
		s4->sin_addr.s_addr = htonl(0x0a000000u + i);
		cidr_of_addr(&ss, 32, 128, &k);
		ck_assert_ptr_nonnull(sources_find(t, &k));
	}
	k.bits = 31;
	ck_assert_ptr_null(sources_find(t, &k));
	sources_prune(t, 100000, 1);
	ck_assert_uint_eq(sources_count(t), 50);
	for (i = 0; i < 50000; i += 1000) {
		s4->sin_addr.s_addr = htonl(0x0a000000u + i);
		cidr_of_addr(&ss, 32, 128, &k);
		ck_assert_ptr_nonnull(sources_find(t, &k));
	}
	sources_free(t);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("acl");
	TCase *c = tcase_create("cidr"), *b = tcase_create("tbucket"),
	    *l = tcase_create("acl"), *t = tcase_create("sources");

	tcase_add_test(c, cidr_parse_accepts);
	tcase_add_test(c, cidr_parse_rejects);
	tcase_add_test(c, cidr_match_v4_v6_and_mapped);
	tcase_add_test(c, cidr_of_addr_keys);
	tcase_add_test(c, addr_format_shows_mapped_as_v4);
	tcase_add_test(b, tbucket_parse_accepts);
	tcase_add_test(b, tbucket_parse_rejects);
	tcase_add_test(b, tbucket_timing);
	tcase_add_test(b, tbucket_slow_rates_and_clock_going_back);
	tcase_add_test(l, acl_empty_permits_everyone);
	tcase_add_test(l, acl_deny_wins);
	tcase_add_test(l, acl_allow_only);
	tcase_add_test(l, acl_file_syntax);
	tcase_add_test(l, acl_file_errors_keep_the_old_part);
	tcase_add_test(l, acl_file_limits);
	tcase_add_test(l, acl_load_file_reads_or_says_why);
	tcase_add_test(t, sources_get_find_prune);
	tcase_add_test(t, sources_grow_and_shrink);
	suite_add_tcase(s, c);
	suite_add_tcase(s, b);
	suite_add_tcase(s, l);
	suite_add_tcase(s, t);
	return s;
}
