/*
 * check_auth.c - authentication, the pure parts: token plaintext,
 * base64, users-file lines, clock skew.  Every parser gets a heap block of
 * exactly the input's length.  The RSA cases are in check_auth_rsa.c
 * (OpenSSL builds).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "check_auth.h"
#include "check_main.h"

/* Copy into a heap block of exactly len bytes so over-reads are caught. */
char *
exact(const void *src, size_t len)
{
	char *p = malloc(len > 0 ? len : 1);

	ck_assert_ptr_nonnull(p);
	memcpy(p, src, len);
	return p;
}

static int
parse_exact(const char *text, size_t len, struct auth_creds *c)
{
	char *p = exact(text, len);
	int rc = auth_plaintext_parse(p, len, c);

	free(p);
	return rc;
}

static int
parse_str(const char *text, struct auth_creds *c)
{
	return parse_exact(text, strlen(text), c);
}

static char *
repeat(char ch, size_t n)
{
	char *s = malloc(n + 1);

	ck_assert_ptr_nonnull(s);
	memset(s, ch, n);
	s[n] = '\0';
	return s;
}

/* ---- plaintext ---------------------------------------------------------- */

START_TEST(builds_the_exact_plaintext)
{
	static const char want[] =
	    "user: alice\npwd:  s3cret\nts:   1795312528";
	char buf[AUTH_PLAINTEXT_MAX + 1];

	ck_assert_int_eq(auth_plaintext_build("alice", "s3cret", 1795312528,
	                     buf, sizeof(buf)),
	    (int)strlen(want));
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(auth_plaintext_build("u", "p", -5, buf, sizeof(buf)),
	    24);
	ck_assert_str_eq(buf, "user: u\npwd:  p\nts:   -5");
}
END_TEST

START_TEST(refuses_bad_fields_and_short_buffers)
{
	char buf[AUTH_PLAINTEXT_MAX + 1];
	char *longest = repeat('x', AUTH_FIELD_MAX);
	char *over = repeat('x', AUTH_FIELD_MAX + 1);
	static const char *const bad[] = { "", "a b", "a\tb", "a\nb", "a\rb",
		"\x7f", "\x01" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(auth_field_valid(bad[i]), 0);
		ck_assert_int_eq(auth_plaintext_build(bad[i], "p", 1, buf,
		                     sizeof(buf)),
		    -1);
		ck_assert_int_eq(auth_plaintext_build("u", bad[i], 1, buf,
		                     sizeof(buf)),
		    -1);
	}
	ck_assert_int_eq(auth_field_valid(NULL), 0);
	ck_assert_int_eq(auth_field_valid("caf\xc3\xa9"), 1);
	ck_assert_int_eq(auth_field_valid(longest), 1);
	ck_assert_int_eq(auth_field_valid(over), 0);
	ck_assert_int_gt(auth_plaintext_build(longest, longest, INT64_MIN, buf,
	                     sizeof(buf)),
	    0);
	ck_assert_int_eq(auth_plaintext_build("u", "p", 1, buf, 23), -1);
	ck_assert_int_eq(auth_plaintext_build("u", "p", 1, buf, 24), 23);
	free(longest);
	free(over);
}
END_TEST

START_TEST(parses_what_it_builds)
{
	char buf[AUTH_PLAINTEXT_MAX + 1];
	char *longest = repeat('y', AUTH_FIELD_MAX);
	struct auth_creds c;
	static const int64_t ts[] = { 0, 1, -1, 1795312528, INT64_MAX,
		INT64_MIN };
	size_t i;

	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		int n = auth_plaintext_build(longest, "p@ss:w,rd", ts[i], buf,
		    sizeof(buf));
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(parse_exact(buf, (size_t)n, &c), 0);
		ck_assert_str_eq(c.user, longest);
		ck_assert_str_eq(c.pwd, "p@ss:w,rd");
		ck_assert(c.ts == ts[i]);
	}
	free(longest);
}
END_TEST

START_TEST(rejects_malformed_plaintexts)
{
	static const char *const bad[] = {
		"",
		"user: a\npwd:  b\nts:   ",
		"user: a\npwd:  b\nts:   1\n",
		"user: a\npwd:  b\nts:   1 ",
		"user: a\npwd:  b\nts:   +1",
		"user: a\npwd:  b\nts:   1x",
		"user: a\npwd:  b\nts:   --1",
		"user: a\npwd:  b\nts:   -",
		"user: a\npwd:  b\nts:   9223372036854775808",
		"user: a\npwd:  b\nts:   -9223372036854775809",
		"user: a\npwd:  b\nts:   00000000000000000001",
		"user: a\npwd:  b\nts:  1",
		"user:  a\npwd:  b\nts:   1",
		"user: a\npwd: b\nts:   1",
		"user: a \npwd:  b\nts:   1",
		"user: a\r\npwd:  b\r\nts:   1",
		"user: \npwd:  b\nts:   1",
		"user: a\npwd:  \nts:   1",
		"user: a\nts:   1",
		"pwd:  b\nuser: a\nts:   1",
		"user: a\npwd:  b",
		"user: a\npwd:  b\n",
		"user: a\tb\npwd:  b\nts:   1",
		"USER: a\npwd:  b\nts:   1",
		"garbage",
	};
	struct auth_creds c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse_str(bad[i], &c) == -1, "accepted case %zu",
		    i);
		ck_assert_str_eq(c.user, "");
	}
	/* A NUL inside, and lengths cut anywhere. */
	ck_assert_int_eq(parse_exact("user: a\0\npwd:  b\nts:   1", 24, &c),
	    -1);
	for (i = 0; i < 23; i++)
		ck_assert_int_eq(parse_exact("user: a\npwd:  b\nts:   12", i,
		                     &c),
		    -1);
	ck_assert_int_eq(
	    parse_str("user: a\npwd:  b\nts:   -9223372036854775808", &c), 0);
	ck_assert(c.ts == INT64_MIN);
}
END_TEST

START_TEST(rejects_overlong_fields_and_texts)
{
	char buf[2 * AUTH_PLAINTEXT_MAX];
	char *over = repeat('z', AUTH_FIELD_MAX + 1);
	struct auth_creds c;
	int n;

	n = snprintf(buf, sizeof(buf), "user: %s\npwd:  p\nts:   1", over);
	ck_assert_int_eq(parse_exact(buf, (size_t)n, &c), -1);
	n = snprintf(buf, sizeof(buf), "user: u\npwd:  %s\nts:   1", over);
	ck_assert_int_eq(parse_exact(buf, (size_t)n, &c), -1);
	memset(buf, 'a', sizeof(buf));
	ck_assert_int_eq(auth_plaintext_parse(buf, AUTH_PLAINTEXT_MAX + 1, &c),
	    -1);
	ck_assert_int_eq(auth_plaintext_parse(NULL, 0, &c), -1);
	free(over);
}
END_TEST

/* ---- base64 ------------------------------------------------------------- */

/* cppcheck-suppress unusedStructMember ; read through _i */
static const struct {
	const char *raw, *b64;
} b64_vectors[] = { /* RFC 4648 §10 */
	{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
	{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
	{ "foobar", "Zm9vYmFy" }
};

START_TEST(encodes_the_rfc_vectors)
{
	const char *raw = b64_vectors[_i].raw, *want = b64_vectors[_i].b64;
	size_t n = strlen(raw);
	char *in = exact(raw, n);
	char *out = malloc(strlen(want) + 1);

	ck_assert_uint_eq(auth_b64_encoded_len(n), strlen(want));
	ck_assert_int_eq(auth_b64_encode((unsigned char *)in, n, out,
	                     strlen(want) + 1),
	    0);
	ck_assert_str_eq(out, want);
	/* One byte short (no room for the NUL). */
	ck_assert_int_eq(auth_b64_encode((unsigned char *)in, n, out,
	                     strlen(want)),
	    -1);
	free(in);
	free(out);
}
END_TEST

START_TEST(decodes_the_rfc_vectors_exactly)
{
	const char *raw = b64_vectors[_i].raw, *b64 = b64_vectors[_i].b64;
	size_t n = strlen(b64), want = strlen(raw), got = 99;
	char *in = exact(b64, n);
	unsigned char *out = malloc(want > 0 ? want : 1);

	if (n == 0) {
		ck_assert_int_eq(auth_b64_decode(in, 0, out, 0, &got), -1);
	} else {
		ck_assert_int_eq(auth_b64_decode(in, n, out, want, &got), 0);
		ck_assert_uint_eq(got, want);
		ck_assert_mem_eq(out, raw, want);
		/* One byte less room is refused, not overflowed. */
		ck_assert_int_eq(auth_b64_decode(in, n, out, want - 1, &got),
		    -1);
		ck_assert_uint_eq(got, 0);
	}
	free(in);
	free(out);
}
END_TEST

START_TEST(decode_rejects_garbage_and_bad_padding)
{
	static const char *const bad[] = {
		"Zg=",
		"Zg",
		"Z",
		"Zm9vY",
		"Zg===",
		"Z===",
		"====",
		"=Zg=",
		"Zg==Zg==",
		"Zm8=Zm9v",
		"Zm9v\n",
		"Zm9v Zm9v",
		"Zm-v",
		"Zm_v",
		"Zm9v\r\n",
		"Zh==",
		"Zm9=",
		"Zm=v",
		"Z=9v",
		"Zm9v\xc3\xa9==",
	};
	unsigned char out[64];
	size_t i, got;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = strlen(bad[i]);
		char *in = exact(bad[i], n);

		ck_assert_msg(auth_b64_decode(in, n, out, sizeof(out), &got) ==
		        -1,
		    "accepted '%s'", bad[i]);
		free(in);
	}
	ck_assert_int_eq(auth_b64_decode("Zm9v\0Zm9", 8, out, sizeof(out),
	                     &got),
	    -1);
	ck_assert_int_eq(auth_b64_decode(NULL, 4, out, sizeof(out), &got), -1);
}
END_TEST

START_TEST(decode_bounds_oversized_input)
{
	size_t n = 4 * 1024, got = 0;
	char *big = malloc(n);
	unsigned char out[16];

	memset(big, 'A', n);
	ck_assert_int_eq(auth_b64_decode(big, n, out, sizeof(out), &got), -1);
	ck_assert_uint_eq(got, 0);
	free(big);
}
END_TEST

START_TEST(round_trips_every_byte_value)
{
	unsigned char raw[256], back[256];
	char enc[345];
	size_t len, got;

	for (len = 0; len < sizeof(raw); len++)
		raw[len] = (unsigned char)(255 - len);
	for (len = 1; len <= sizeof(raw); len++) {
		ck_assert_int_eq(auth_b64_encode(raw, len, enc, sizeof(enc)),
		    0);
		ck_assert_int_eq(auth_b64_decode(enc, strlen(enc), back, len,
		                     &got),
		    0);
		ck_assert_uint_eq(got, len);
		ck_assert_mem_eq(back, raw, len);
	}
}
END_TEST

/* ---- users file ---------------------------------------------------------- */

#define H_ALICE                                                                \
	"9fb9349969765cb57b343daf1872140068c079c5fdf209f18422b11d5b96fafc"
#define H_BOB "0000000000000000000000000000000000000000000000000000000000000b0b"

static int
users_match(const char *file, size_t len, const char *user, const char *hash)
{
	char *p = exact(file, len);
	int rc = auth_users_match(p, len, user, hash);

	free(p);
	return rc;
}

static int
users_str(const char *file, const char *user, const char *hash)
{
	return users_match(file, strlen(file), user, hash);
}

START_TEST(users_file_finds_exact_pairs)
{
	static const char f[] = "# team\n"
	                        "\n"
	                        "alice," H_ALICE "\n"
	                        "bob," H_BOB;

	ck_assert_int_eq(users_str(f, "alice", H_ALICE), 1);
	ck_assert_int_eq(users_str(f, "bob", H_BOB), 1); /* no final \n */
	ck_assert_int_eq(users_str(f, "alice", H_BOB), 0);
	ck_assert_int_eq(users_str(f, "alic", H_ALICE), 0);
	ck_assert_int_eq(users_str(f, "alicee", H_ALICE), 0);
	ck_assert_int_eq(users_str(f, "Alice", H_ALICE), 0);
	ck_assert_int_eq(users_str(f, "# team", H_ALICE), 0);
	ck_assert_int_eq(users_str("", "alice", H_ALICE), 0);
	ck_assert_int_eq(auth_users_match(NULL, 0, "alice", H_ALICE), 0);
}
END_TEST

START_TEST(users_file_line_rules)
{
	/* CRLF, anything after \r, empty fields, extra fields. */
	ck_assert_int_eq(users_str("alice," H_ALICE "\r\n", "alice", H_ALICE),
	    1);
	ck_assert_int_eq(users_str("alice," H_ALICE "\rjunk\n", "alice",
	                     H_ALICE),
	    1);
	ck_assert_int_eq(users_str("alice\r," H_ALICE "\n", "alice", H_ALICE),
	    0);
	ck_assert_int_eq(users_str(",,alice,,," H_ALICE ",x,y\n", "alice",
	                     H_ALICE),
	    1);
	ck_assert_int_eq(users_str("alice," H_ALICE ",more\n", "alice",
	                     H_ALICE),
	    1);
	/* Missing comma, missing hash, comment, no trimming. */
	ck_assert_int_eq(users_str("alice " H_ALICE "\n", "alice", H_ALICE), 0);
	ck_assert_int_eq(users_str("alice,\n", "alice", ""), 0);
	ck_assert_int_eq(users_str("#alice," H_ALICE "\n", "#alice", H_ALICE),
	    0);
	ck_assert_int_eq(users_str(" alice," H_ALICE "\n", "alice", H_ALICE),
	    0);
	ck_assert_int_eq(users_str("alice, " H_ALICE "\n", "alice", H_ALICE),
	    0);
	ck_assert_int_eq(users_str("alice," H_ALICE " \n", "alice", H_ALICE),
	    0);
	/* The hash is compared as lowercase hex text. */
	ck_assert_int_eq(
	    users_str(
	        "alice,"
	        "9FB9349969765CB57B343DAF1872140068C079C5FDF209F18422B11D5B96FAFC\n",
	        "alice", H_ALICE),
	    0);
}
END_TEST

START_TEST(users_file_survives_nul_and_long_lines)
{
	static const char nul[] = "alice\0," H_ALICE "\nalice," H_ALICE;
	size_t n = 2000 + sizeof("," H_ALICE);
	char *big = malloc(n);
	char *user = repeat('u', 2000);

	ck_assert_int_eq(users_match(nul, sizeof(nul) - 1, "alice", H_ALICE),
	    1);
	ck_assert_int_eq(users_match(nul, 6 + 65, "alice", H_ALICE), 0);
	/* A 2000-byte user name never matches (lines over 1024 bytes). */
	memset(big, 'u', 2000);
	memcpy(big + 2000, "," H_ALICE, n - 2000);
	big[n - 1] = '\n';
	big[2000 + 1 + 64] = '\n';
	ck_assert_int_eq(users_match(big, n, user, H_ALICE), 0);
	/* The same pair on a short line does. */
	ck_assert_int_eq(users_str("u," H_ALICE "\n", "u", H_ALICE), 1);
	free(big);
	free(user);
}
END_TEST

/* ---- skew, printing ----------------------------------------------------- */

START_TEST(skew_window_is_inclusive)
{
	const int64_t now = 1795312528; /* a fixed, injected clock */

	ck_assert_int_eq(auth_skew_ok(now, now, 10), 1);
	ck_assert_int_eq(auth_skew_ok(now, now - 10, 10), 1);
	ck_assert_int_eq(auth_skew_ok(now, now + 10, 10), 1);
	ck_assert_int_eq(auth_skew_ok(now, now - 11, 10), 0);
	ck_assert_int_eq(auth_skew_ok(now, now + 11, 10), 0);
	ck_assert_int_eq(auth_skew_ok(now, now + 1, 1), 1);
	ck_assert_int_eq(auth_skew_ok(now, now, 0), 0);
	ck_assert_int_eq(auth_skew_ok(now, now, -5), 0);
	ck_assert_int_eq(auth_skew_ok(INT64_MAX, INT64_MIN, 10), 0);
	ck_assert_int_eq(auth_skew_ok(INT64_MIN, INT64_MAX, 10), 0);
	ck_assert_int_eq(auth_skew_ok(now, 0, 10), 0);
}
END_TEST

START_TEST(printable_escapes_odd_bytes)
{
	char out[64];

	auth_printable("mario", out, sizeof(out));
	ck_assert_str_eq(out, "mario");
	auth_printable("a b\x1b[2J\xc3", out, sizeof(out));
	ck_assert_str_eq(out, "a\\x20b\\x1b[2J\\xc3");
	auth_printable("abcdef", out, 4);
	ck_assert_str_eq(out, "abc");
	auth_printable("\x01\x02", out, 6);
	ck_assert_str_eq(out, "\\x01");
	auth_printable(NULL, out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = tcase_create("plaintext");

	tcase_add_test(tc, builds_the_exact_plaintext);
	tcase_add_test(tc, refuses_bad_fields_and_short_buffers);
	tcase_add_test(tc, parses_what_it_builds);
	tcase_add_test(tc, rejects_malformed_plaintexts);
	tcase_add_test(tc, rejects_overlong_fields_and_texts);
	suite_add_tcase(s, tc);
	tc = tcase_create("base64");
	tcase_add_loop_test(tc, encodes_the_rfc_vectors, 0,
	    sizeof(b64_vectors) / sizeof(b64_vectors[0]));
	tcase_add_loop_test(tc, decodes_the_rfc_vectors_exactly, 0,
	    sizeof(b64_vectors) / sizeof(b64_vectors[0]));
	tcase_add_test(tc, decode_rejects_garbage_and_bad_padding);
	tcase_add_test(tc, decode_bounds_oversized_input);
	tcase_add_test(tc, round_trips_every_byte_value);
	suite_add_tcase(s, tc);
	tc = tcase_create("users");
	tcase_add_test(tc, users_file_finds_exact_pairs);
	tcase_add_test(tc, users_file_line_rules);
	tcase_add_test(tc, users_file_survives_nul_and_long_lines);
	suite_add_tcase(s, tc);
	tc = tcase_create("skew");
	tcase_add_test(tc, skew_window_is_inclusive);
	tcase_add_test(tc, printable_escapes_odd_bytes);
	suite_add_tcase(s, tc);
	check_auth_add_rsa(s);
	return s;
}
