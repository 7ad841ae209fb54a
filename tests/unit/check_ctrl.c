/* check_ctrl.c - control-channel framing: chunks, caps, truncation, EOF. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "bytes.h"
#include "ctrl.h"
#include "iperf_api.h"

static struct ctrl *c;

static void
setup(void)
{
	c = ctrl_new();
	ck_assert_ptr_nonnull(c);
}

static void
teardown(void)
{
	ctrl_free(c);
}

static void
push(const void *p, size_t n)
{
	ck_assert_int_eq(ctrl_push(c, p, n), 0);
}

static void
push_json(const char *json)
{
	unsigned char hdr[4];

	put_be32(hdr, (uint32_t)strlen(json));
	push(hdr, 4);
	push(json, strlen(json));
}

START_TEST(reads_state_bytes_as_signed)
{
	static const unsigned char b[] = { 0x09, 0x0a, 0xff, 0xfe };
	static const signed char want[] = { 9, 10, -1, -2 };
	struct ctrl_msg m;
	int i;

	ctrl_expect(c, CTRL_EXPECT_STATE, CTRL_PARAMS_MAX_BYTES);
	push(b, sizeof(b));
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(ctrl_next(c, &m), 1);
		ck_assert_int_eq(m.kind, CTRL_MSG_STATE);
		ck_assert_int_eq(m.state, want[i]);
	}
	ck_assert_int_eq(ctrl_next(c, &m), 0);
}
END_TEST

START_TEST(assembles_json_fed_one_byte_at_a_time)
{
	const char *json = "{\"tcp\":true,\"omit\":0}";
	unsigned char all[64];
	size_t n = 4 + strlen(json), i;
	struct ctrl_msg m;

	put_be32(all, (uint32_t)strlen(json));
	memcpy(all + 4, json, strlen(json));
	ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_PARAMS_MAX_BYTES);
	for (i = 0; i + 1 < n; i++) {
		push(all + i, 1);
		ck_assert_int_eq(ctrl_next(c, &m), 0);
	}
	push(all + n - 1, 1);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_int_eq(m.kind, CTRL_MSG_JSON);
	ck_assert_str_eq(m.json, json);
	ck_assert_uint_eq(m.json_len, strlen(json));
	free(m.json);
	/* After a document nothing more is parsed until told what comes. */
	ck_assert_int_eq(ctrl_expecting(c), CTRL_EXPECT_NONE);
}
END_TEST

START_TEST(leaves_following_bytes_for_the_next_unit)
{
	struct ctrl_msg m;
	static const unsigned char st = 0x0e;

	ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_RESULTS_MAX_BYTES);
	push_json("{}");
	push(&st, 1);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	free(m.json);
	ck_assert_int_eq(ctrl_next(c, &m), 0);
	ck_assert_uint_eq(ctrl_buffered(c), 1);
	ctrl_expect(c, CTRL_EXPECT_STATE, CTRL_PARAMS_MAX_BYTES);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_int_eq(m.state, DISPLAY_RESULTS);
}
END_TEST

START_TEST(refuses_a_length_above_the_cap_before_reading_it)
{
	unsigned char hdr[4];
	struct ctrl_msg m;

	put_be32(hdr, CTRL_PARAMS_MAX_BYTES + 1);
	ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_PARAMS_MAX_BYTES);
	push(hdr, 4);
	ck_assert_int_eq(ctrl_next(c, &m), -1);
	ck_assert_int_eq(ctrl_fault(c), CTRL_FAULT_TOO_BIG);
}
END_TEST

START_TEST(refuses_a_length_of_4_gigabytes)
{
	static const unsigned char hdr[4] = { 0xff, 0xff, 0xff, 0xff };
	struct ctrl_msg m;

	ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_RESULTS_MAX_BYTES);
	push(hdr, 4);
	ck_assert_int_eq(ctrl_next(c, &m), -1);
	ck_assert_int_eq(ctrl_fault(c), CTRL_FAULT_TOO_BIG);
}
END_TEST

START_TEST(refuses_an_empty_document)
{
	static const unsigned char hdr[4] = { 0, 0, 0, 0 };
	struct ctrl_msg m;

	ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_PARAMS_MAX_BYTES);
	push(hdr, 4);
	ck_assert_int_eq(ctrl_next(c, &m), -1);
	ck_assert_int_eq(ctrl_fault(c), CTRL_FAULT_EMPTY_JSON);
}
END_TEST

START_TEST(accepts_a_document_exactly_at_the_cap)
{
	char *json = malloc(CTRL_PARAMS_MAX_BYTES + 1);
	struct ctrl_msg m;

	memset(json, ' ', CTRL_PARAMS_MAX_BYTES);
	json[0] = '{';
	json[CTRL_PARAMS_MAX_BYTES - 1] = '}';
	json[CTRL_PARAMS_MAX_BYTES] = '\0';
	ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_PARAMS_MAX_BYTES);
	push_json(json);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_uint_eq(m.json_len, CTRL_PARAMS_MAX_BYTES);
	free(m.json);
	free(json);
}
END_TEST

START_TEST(a_truncated_document_is_a_fault_at_eof)
{
	unsigned char hdr[4];
	struct ctrl_msg m;

	put_be32(hdr, 100);
	ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_PARAMS_MAX_BYTES);
	push(hdr, 4);
	push("{\"a\":", 5);
	ck_assert_int_eq(ctrl_next(c, &m), 0);
	ctrl_push_eof(c);
	ck_assert_int_eq(ctrl_next(c, &m), -1);
	ck_assert_int_eq(ctrl_fault(c), CTRL_FAULT_EOF);
}
END_TEST

START_TEST(a_truncated_length_prefix_is_a_fault_at_eof)
{
	static const unsigned char hdr[2] = { 0, 0 };
	struct ctrl_msg m;

	ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_PARAMS_MAX_BYTES);
	push(hdr, 2);
	ctrl_push_eof(c);
	ck_assert_int_eq(ctrl_next(c, &m), -1);
}
END_TEST

START_TEST(reads_both_server_error_integers)
{
	static const unsigned char b[] = { 0, 0, 0, 0x8d, 0, 0, 0, 0x62 };
	struct ctrl_msg m;

	ctrl_expect(c, CTRL_EXPECT_ERRINTS, CTRL_PARAMS_MAX_BYTES);
	push(b, 5);
	ck_assert_int_eq(ctrl_next(c, &m), 0);
	push(b + 5, 3);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_int_eq(m.kind, CTRL_MSG_ERRINTS);
	ck_assert_int_eq(m.err_code, 141);
	ck_assert_int_eq(m.err_errno, 98);
	ck_assert_int_eq(m.err_count, 2);
}
END_TEST

START_TEST(accepts_the_short_server_error_form)
{
	static const unsigned char b[] = { 0, 0, 0, 0x8e };
	struct ctrl_msg m;

	ctrl_expect(c, CTRL_EXPECT_ERRINTS, CTRL_PARAMS_MAX_BYTES);
	push(b, 4);
	ck_assert_int_eq(ctrl_next(c, &m), 0);
	ctrl_push_eof(c);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_int_eq(m.err_code, 142);
	ck_assert_int_eq(m.err_errno, 0);
	ck_assert_int_eq(m.err_count, 1);
}
END_TEST

START_TEST(server_error_with_nothing_after_it_is_a_fault)
{
	static const unsigned char b[] = { 0, 0 };
	struct ctrl_msg m;

	ctrl_expect(c, CTRL_EXPECT_ERRINTS, CTRL_PARAMS_MAX_BYTES);
	push(b, 2);
	ctrl_push_eof(c);
	ck_assert_int_eq(ctrl_next(c, &m), -1);
}
END_TEST

START_TEST(reads_a_cookie_and_terminates_it)
{
	char cookie[37];
	struct ctrl_msg m;

	memset(cookie, 'a', 36);
	cookie[36] = 'X'; /* a peer that does not send the NUL */
	ctrl_expect(c, CTRL_EXPECT_COOKIE, CTRL_PARAMS_MAX_BYTES);
	push(cookie, 20);
	ck_assert_int_eq(ctrl_next(c, &m), 0);
	push(cookie + 20, 17);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_int_eq(m.kind, CTRL_MSG_COOKIE);
	ck_assert_uint_eq(strlen(m.cookie), 36);
}
END_TEST

START_TEST(a_truncated_cookie_is_a_fault)
{
	struct ctrl_msg m;

	ctrl_expect(c, CTRL_EXPECT_COOKIE, CTRL_PARAMS_MAX_BYTES);
	push("abc", 3);
	ctrl_push_eof(c);
	ck_assert_int_eq(ctrl_next(c, &m), -1);
	ck_assert_int_eq(ctrl_fault(c), CTRL_FAULT_EOF);
}
END_TEST

START_TEST(eof_while_expecting_a_state_is_a_fault)
{
	struct ctrl_msg m;

	ctrl_expect(c, CTRL_EXPECT_STATE, CTRL_PARAMS_MAX_BYTES);
	ctrl_push_eof(c);
	ck_assert_int_eq(ctrl_next(c, &m), -1);
	ck_assert_int_eq(ctrl_fault(c), CTRL_FAULT_EOF);
}
END_TEST

START_TEST(buffering_is_bounded)
{
	static char junk[4096];
	int i, refused = 0;

	ctrl_expect(c, CTRL_EXPECT_NONE, CTRL_PARAMS_MAX_BYTES);
	for (i = 0; i < 1000 && !refused; i++)
		refused = ctrl_push(c, junk, sizeof(junk)) == -1;
	ck_assert(refused);
	ck_assert(ctrl_buffered(c) < 200 * 1024);
}
END_TEST

START_TEST(fills_from_a_socket_and_reports_eof)
{
	int sv[2];
	struct ctrl_msg m;
	static const unsigned char b[] = { 0x0d };

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(ctrl_send_state(sv[0], 13), 0);
	ctrl_expect(c, CTRL_EXPECT_STATE, CTRL_PARAMS_MAX_BYTES);
	ck_assert_int_eq(ctrl_fill(c, sv[1], 123), 1);
	ck_assert_uint_eq(ctrl_last_progress(c), 123);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_int_eq(m.state, b[0]);
	ck_assert_int_eq(ctrl_send_json(sv[0], "{}", 2), 0);
	ck_assert_int_eq(ctrl_send_server_error(sv[0], 144, 0), 0);
	close(sv[0]);
	ck_assert_int_eq(ctrl_fill(c, sv[1], 124), 6 + 9);
	ck_assert_int_eq(ctrl_fill(c, sv[1], 125), 0);
	ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_RESULTS_MAX_BYTES);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_str_eq(m.json, "{}");
	free(m.json);
	ctrl_expect(c, CTRL_EXPECT_STATE, CTRL_PARAMS_MAX_BYTES);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_int_eq(m.state, -2);
	ctrl_expect(c, CTRL_EXPECT_ERRINTS, CTRL_PARAMS_MAX_BYTES);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_int_eq(m.err_code, 144);
	close(sv[1]);
}
END_TEST

/* Exact reads: each fill takes one unit at most, the rest stays queued
 * in the socket (readable for a caller's select()). */
START_TEST(exact_reads_leave_the_next_unit_in_the_socket)
{
	int sv[2];
	struct ctrl_msg m;
	static const char doc[] = "{\"a\":1}";

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ctrl_set_exact(c, 1);
	ck_assert_int_eq(ctrl_send_state(sv[0], TEST_START), 0);
	ck_assert_int_eq(ctrl_send_state(sv[0], TEST_RUNNING), 0);
	ctrl_expect(c, CTRL_EXPECT_STATE, CTRL_PARAMS_MAX_BYTES);
	ck_assert_int_eq(ctrl_fill(c, sv[1], 1), 1);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_int_eq(m.state, TEST_START);
	ck_assert_int_eq(ctrl_fill(c, sv[1], 2), 1);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_int_eq(m.state, TEST_RUNNING);
	/* a document and the state byte behind it */
	ck_assert_int_eq(ctrl_send_json(sv[0], doc, strlen(doc)), 0);
	ck_assert_int_eq(ctrl_send_state(sv[0], 14), 0);
	ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_RESULTS_MAX_BYTES);
	ck_assert_int_eq(ctrl_fill(c, sv[1], 3), 4);
	ck_assert_int_eq(ctrl_fill(c, sv[1], 4), (long)strlen(doc));
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_str_eq(m.json, doc);
	free(m.json);
	ck_assert_uint_eq(ctrl_buffered(c), 0);
	ctrl_expect(c, CTRL_EXPECT_STATE, CTRL_PARAMS_MAX_BYTES);
	ck_assert_int_eq(ctrl_fill(c, sv[1], 5), 1);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_int_eq(m.state, 14);
	/* the cookie and the error integers, one unit per fill */
	ck_assert_int_eq(send(sv[0], "abcdefghijklmnopqrstuvwxyz234567abcd\0xyz",
			     40, 0), 40);
	ctrl_expect(c, CTRL_EXPECT_COOKIE, CTRL_PARAMS_MAX_BYTES);
	ck_assert_int_eq(ctrl_fill(c, sv[1], 6), CTRL_COOKIE_BYTES);
	ck_assert_int_eq(ctrl_next(c, &m), 1);
	ck_assert_uint_eq(ctrl_buffered(c), 0);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(big_endian_helpers_round_trip)
{
	unsigned char b[8];

	put_be32(b, 0x01020304u);
	ck_assert_int_eq(b[0], 1);
	ck_assert_int_eq(b[3], 4);
	ck_assert_uint_eq(get_be32(b), 0x01020304u);
	put_be64(b, 0x0102030405060708ULL);
	ck_assert_int_eq(b[7], 8);
	ck_assert_uint_eq(get_be64(b), 0x0102030405060708ULL);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("ctrl");
	TCase *tc = tcase_create("framing");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reads_state_bytes_as_signed);
	tcase_add_test(tc, assembles_json_fed_one_byte_at_a_time);
	tcase_add_test(tc, leaves_following_bytes_for_the_next_unit);
	tcase_add_test(tc, refuses_a_length_above_the_cap_before_reading_it);
	tcase_add_test(tc, refuses_a_length_of_4_gigabytes);
	tcase_add_test(tc, refuses_an_empty_document);
	tcase_add_test(tc, accepts_a_document_exactly_at_the_cap);
	tcase_add_test(tc, a_truncated_document_is_a_fault_at_eof);
	tcase_add_test(tc, a_truncated_length_prefix_is_a_fault_at_eof);
	tcase_add_test(tc, reads_both_server_error_integers);
	tcase_add_test(tc, accepts_the_short_server_error_form);
	tcase_add_test(tc, server_error_with_nothing_after_it_is_a_fault);
	tcase_add_test(tc, reads_a_cookie_and_terminates_it);
	tcase_add_test(tc, a_truncated_cookie_is_a_fault);
	tcase_add_test(tc, eof_while_expecting_a_state_is_a_fault);
	tcase_add_test(tc, buffering_is_bounded);
	tcase_add_test(tc, fills_from_a_socket_and_reports_eof);
	tcase_add_test(tc, exact_reads_leave_the_next_unit_in_the_socket);
	tcase_add_test(tc, big_endian_helpers_round_trip);
	suite_add_tcase(s, tc);
	return s;
}
