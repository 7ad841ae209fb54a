/*
 * check_session.c - the control-channel state machine fed bytes from the
 * other end of a connection:
 *
 *  - "driver": session.c's reader and state-table driver with a table of
 *    our own on a socketpair and a fake clock (rows, JSON units and their
 *    caps, the 10 s / 30 s limits on a unit, SERVER_ERROR's integers, a
 *    peer gone in the middle of a unit);
 *  - "server": server.c's table on a socketpair (server_accept_control):
 *    cookie, parameters, unknown states, oversized documents, a client
 *    that goes away;
 *  - "client": client.c's table (client_open() dials 127.0.0.1, the
 *    only way in; the suite plays the server on the accepted socket):
 *    cookie and parameters, ACCESS_DENIED, SERVER_ERROR with its errno,
 *    an unknown state.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check_main.h"
#include "check_peer.h"
#include "client.h"
#include "ctrl.h"
#include "evloop.h"
#include "iperf.h"
#include "iperf_api.h"
#include "iperf_error.h"
#include "server.h"
#include "server_accept.h"
#include "session.h"

#define US 1000000ULL

static struct iperf_test *t;
static FILE *out;
static int sv[2] = { -1, -1 };
static int lst = -1; /* client cases: our listener */
static int sfd = -1; /* client cases: our end */

/* ---- the driver, with a table of our own ------------------------------ */

struct fake_clock {
	uint64_t now;
};

static struct fake_clock clk;

static uint64_t
fake_now(void *arg)
{
	return ((struct fake_clock *)arg)->now;
}

/* What the role's handlers saw. */
static struct {
	char seq[32];
	int nseq;
	int fails;
	int fail_code;
	char *json;
	size_t json_len;
	int errints;
	int32_t code, err;
	int count;
} seen;

static void
note(char c)
{
	if (seen.nseq < (int)sizeof(seen.seq) - 1)
		seen.seq[seen.nseq++] = c;
}

static int
h_one(struct iperf_test *test)
{
	note('a');
	test->run.state = 1;
	return 0;
}

static int
h_two(struct iperf_test *test)
{
	note('b');
	test->run.state = 2;
	return 0;
}

static int
h_any(struct iperf_test *test)
{
	(void)test;
	note('c');
	return 0;
}

/* State 5: a document of at most 64 bytes follows. */
static int
h_want_json(struct iperf_test *test)
{
	note('j');
	test->run.ses.ctrl_fail_code = IERECVPARAMS;
	session_expect_json(test, 64);
	return 0;
}

static int
h_server_error(struct iperf_test *test)
{
	note('e');
	test->run.ses.ctrl_fail_code = IECTRLREAD;
	session_expect_errints(test);
	return 0;
}

static int
toy_json(struct iperf_test *test, const char *json, size_t len)
{
	free(seen.json);
	seen.json = malloc(len + 1);
	ck_assert_ptr_nonnull(seen.json);
	memcpy(seen.json, json, len + 1);
	seen.json_len = len;
	session_expect_state(test);
	return 0;
}

static int
toy_errints(struct iperf_test *test, const struct ctrl_msg *m)
{
	seen.errints++;
	seen.code = m->err_code;
	seen.err = m->err_errno;
	seen.count = m->err_count;
	session_expect_state(test);
	return 0;
}

static int
toy_cookie(struct iperf_test *test, const char *cookie)
{
	(void)cookie;
	return iperf_fail(test, IEMESSAGE, 0);
}

static void
toy_fail(struct iperf_test *test)
{
	seen.fails++;
	seen.fail_code = test->run.err.code;
	test->run.done = 1;
}

static const struct ctrl_transition toy_table[] = {
	{ 1, 0, h_one },
	{ 2, 1, h_two },
	{ 3, CTRL_ANY, h_any },
	{ 5, CTRL_ANY, h_want_json },
	{ SERVER_ERROR, CTRL_ANY, h_server_error },
};

static const struct session_ops toy_ops = {
	.table = toy_table,
	.table_len = sizeof(toy_table) / sizeof(toy_table[0]),
	.on_json = toy_json,
	.on_errints = toy_errints,
	.on_cookie = toy_cookie,
	.on_fail = toy_fail,
};

static struct iperf_test *
new_test(char role)
{
	struct iperf_test *test = iperf_new_test();

	ck_assert_ptr_nonnull(test);
	ck_assert_int_eq(iperf_defaults(test), 0);
	iperf_set_test_role(test, role);
	out = tmpfile();
	ck_assert_ptr_nonnull(out);
	test->outfile = out;
	return test;
}

static void
driver_setup(void)
{
	memset(&seen, 0, sizeof(seen));
	peer_capture_stderr();
	t = new_test('c');
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	clk.now = 1000 * US;
	t->loop = evloop_new();
	ck_assert_ptr_nonnull(t->loop);
	evloop_set_clock(t->loop, fake_now, &clk);
	ck_assert_int_eq(session_open(t), 0);
	t->run.ses.ctrl_sck = sv[0];
	sv[0] = -1; /* the test's now */
	t->run.state = 0;
	ck_assert_int_eq(session_attach_ctrl(t, &toy_ops), 0);
	session_expect_state(t);
}

static void
driver_teardown(void)
{
	iperf_free_test(t);
	t = NULL;
	peer_close(&sv[1]);
	free(seen.json);
	seen.json = NULL;
	(void)fclose(out);
	peer_release_stderr();
}

static void
send_bytes(const char *b, size_t n)
{
	peer_write(sv[1], b, n);
}

START_TEST(state_bytes_run_the_rows_that_match_state_and_origin)
{
	static const char b[] = { 1, 2, 3, 3 };

	send_bytes(b, sizeof(b));
	PEER_PUMP_UNTIL(t->loop, seen.nseq == 4, 2000);
	ck_assert_str_eq(seen.seq, "abcc");
	ck_assert_int_eq(t->run.state, 2); /* the CTRL_ANY row keeps it */
	ck_assert_uint_eq(t->run.ses.ctrl_units, 4);
	ck_assert_int_eq(seen.fails, 0);
	ck_assert_int_eq(t->run.done, 0);
}
END_TEST

START_TEST(a_state_without_a_row_from_this_state_is_IEMESSAGE)
{
	static const char b[] = { 2, 1 };

	/* 2 has a row, but from state 1; the 1 after it is never read. */
	send_bytes(b, sizeof(b));
	PEER_PUMP_UNTIL(t->loop, seen.fails > 0, 2000);
	ck_assert_int_eq(seen.fails, 1);
	ck_assert_int_eq(seen.fail_code, IEMESSAGE);
	ck_assert_int_eq(t->run.ses.last_bad_state, 2);
	ck_assert_int_eq(seen.nseq, 0);
	ck_assert_int_eq(t->run.state, 0);
}
END_TEST

START_TEST(a_json_unit_reaches_on_json_whole_across_chunks)
{
	const char *doc = "{\"tcp\":true,\"parallel\":2}";
	size_t n = strlen(doc);
	static const char five = 5, three = 3;

	send_bytes(&five, 1);
	peer_send_len(sv[1], (uint32_t)n);
	send_bytes(doc, 5);
	PEER_PUMP_UNTIL(t->loop, ctrl_buffered(t->run.ses.ctrl) == 9, 2000);
	ck_assert_uint_eq(ctrl_buffered(t->run.ses.ctrl), 9);
	ck_assert_ptr_null(seen.json);
	send_bytes(doc + 5, n - 5);
	send_bytes(&three, 1); /* a state again after the document */
	PEER_PUMP_UNTIL(t->loop, seen.nseq == 2, 2000);
	ck_assert_ptr_nonnull(seen.json);
	ck_assert_str_eq(seen.json, doc);
	ck_assert_uint_eq(seen.json_len, n);
	ck_assert_str_eq(seen.seq, "jc");
	ck_assert_int_eq(seen.fails, 0);
}
END_TEST

START_TEST(a_json_length_above_the_cap_fails_before_the_body)
{
	char doc[65];
	static const char five = 5;

	/* Exactly the cap (64) is taken... */
	memset(doc, ' ', 64);
	doc[0] = '{';
	doc[63] = '}';
	doc[64] = '\0';
	send_bytes(&five, 1);
	peer_send_json(sv[1], doc);
	PEER_PUMP_UNTIL(t->loop, seen.json != NULL, 2000);
	ck_assert_uint_eq(seen.json_len, 64);
	/* ...one more is refused on its length alone, with the code the
	 * role set for this unit. */
	send_bytes(&five, 1);
	peer_send_len(sv[1], 65);
	PEER_PUMP_UNTIL(t->loop, seen.fails > 0, 2000);
	ck_assert_int_eq(seen.fails, 1);
	ck_assert_int_eq(seen.fail_code, IERECVPARAMS);
	ck_assert_str_eq(seen.seq, "jj");
}
END_TEST

START_TEST(a_peer_gone_inside_a_unit_fails_with_the_units_code)
{
	static const char five = 5;

	send_bytes(&five, 1);
	peer_send_len(sv[1], 60);
	send_bytes("{\"a\":1234", 9);
	ck_assert_int_eq(shutdown(sv[1], SHUT_WR), 0);
	PEER_PUMP_UNTIL(t->loop, seen.fails > 0, 2000);
	ck_assert_int_eq(seen.fails, 1);
	/* Not IECTRLCLOSE: a document was on its way. */
	ck_assert_int_eq(seen.fail_code, IERECVPARAMS);
	ck_assert_int_eq(t->run.ses.ctrl_eof, 1);
	ck_assert_ptr_null(seen.json);
}
END_TEST

START_TEST(a_peer_gone_between_units_is_IECTRLCLOSE)
{
	static const char one = 1;

	send_bytes(&one, 1);
	peer_close(&sv[1]);
	PEER_PUMP_UNTIL(t->loop, seen.fails > 0, 2000);
	ck_assert_str_eq(seen.seq, "a");
	ck_assert_int_eq(seen.fails, 1);
	ck_assert_int_eq(seen.fail_code, IECTRLCLOSE);
	ck_assert_int_eq(t->run.ses.ctrl_eof, 1);
}
END_TEST

START_TEST(a_unit_silent_for_10_seconds_times_out)
{
	static const char five = 5;
	uint64_t t0 = clk.now;

	send_bytes(&five, 1);
	peer_send_len(sv[1], 60);
	send_bytes("{\"a\"", 4);
	PEER_PUMP_UNTIL(t->loop, ctrl_buffered(t->run.ses.ctrl) == 8, 2000);
	ck_assert_uint_eq(ctrl_buffered(t->run.ses.ctrl), 8);
	clk.now = t0 + 10 * US - 1;
	PEER_PUMP_UNTIL(t->loop, seen.fails > 0, 50);
	ck_assert_int_eq(seen.fails, 0);
	clk.now = t0 + 10 * US;
	PEER_PUMP_UNTIL(t->loop, seen.fails > 0, 2000);
	ck_assert_int_eq(seen.fails, 1);
	ck_assert_int_eq(seen.fail_code, IERECVPARAMS);
}
END_TEST

START_TEST(a_trickling_unit_is_cut_30_seconds_after_it_began)
{
	static const char five = 5, zero = 0;
	uint64_t t0 = clk.now;
	int i;

	send_bytes(&five, 1); /* the unit begins now */
	PEER_PUMP_UNTIL(t->loop, seen.nseq == 1, 2000);
	/* A byte every 9 s keeps the 10 s limit at bay... */
	for (i = 1; i <= 3; i++) {
		clk.now = t0 + (uint64_t)i * 9 * US;
		send_bytes(&zero, 1);
		PEER_PUMP_UNTIL(t->loop, ctrl_buffered(t->run.ses.ctrl) == (size_t)i,
		    2000);
		ck_assert_uint_eq(ctrl_buffered(t->run.ses.ctrl), (size_t)i);
		ck_assert_int_eq(seen.fails, 0);
	}
	/* ...but not the 30 s one, which comes before 27 + 10. */
	clk.now = t0 + 30 * US - 1;
	PEER_PUMP_UNTIL(t->loop, seen.fails > 0, 50);
	ck_assert_int_eq(seen.fails, 0);
	clk.now = t0 + 30 * US;
	PEER_PUMP_UNTIL(t->loop, seen.fails > 0, 2000);
	ck_assert_int_eq(seen.fails, 1);
	ck_assert_int_eq(seen.fail_code, IERECVPARAMS);
}
END_TEST

START_TEST(server_error_integers_reach_on_errints)
{
	static const unsigned char full[] = { 0xfe, 0, 0, 0, 111, 0, 0, 0,
		ECONNRESET };
	static const unsigned char shrt[] = { 0xfe, 0, 0, 0x01, 0x02 };

	peer_write(sv[1], full, sizeof(full));
	PEER_PUMP_UNTIL(t->loop, seen.errints == 1, 2000);
	ck_assert_int_eq(seen.errints, 1);
	ck_assert_int_eq(seen.code, 111);
	ck_assert_int_eq(seen.err, ECONNRESET);
	ck_assert_int_eq(seen.count, 2);
	/* A 3.12 server sends the first integer only, then closes. */
	peer_write(sv[1], shrt, sizeof(shrt));
	ck_assert_int_eq(shutdown(sv[1], SHUT_WR), 0);
	PEER_PUMP_UNTIL(t->loop, seen.errints == 2, 2000);
	ck_assert_int_eq(seen.errints, 2);
	ck_assert_int_eq(seen.code, 0x102);
	ck_assert_int_eq(seen.err, 0);
	ck_assert_int_eq(seen.count, 1);
	ck_assert_str_eq(seen.seq, "ee");
}
END_TEST

/* ---- the server's table on a socketpair ------------------------------- */

static void
server_setup(void)
{
	struct sockaddr_storage ss;

	peer_capture_stderr();
	t = new_test('s');
	/* server_open() listens unless a listener is there: an AF_UNIX one
	 * (the data listener of a TCP test without -w/-M too). */
	t->listener = peer_unix_listener();
	ck_assert_int_eq(server_open(t), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNIX;
	server_accept_control(t, sv[0], &ss, NULL);
	sv[0] = -1;
}

static void
server_teardown(void)
{
	iperf_free_test(t);
	t = NULL;
	peer_close(&sv[1]);
	(void)fclose(out);
	peer_release_stderr();
}

/* The cookie and a -P 2 parameter document; PARAM_EXCHANGE and
 * CREATE_STREAMS back. */
static void
to_create_streams(void)
{
	char cookie[PEER_COOKIE_BYTES], params[256];

	peer_cookie(cookie, 'k');
	peer_params(params, sizeof(params), 2);
	peer_write(sv[1], cookie, sizeof(cookie));
	peer_send_json(sv[1], params);
	PEER_PUMP_UNTIL(t->loop, t->run.state == CREATE_STREAMS, 2000);
	ck_assert_int_eq(peer_read_byte(sv[1], 1000), PARAM_EXCHANGE);
	ck_assert_int_eq(peer_read_byte(sv[1], 1000), CREATE_STREAMS);
}

START_TEST(server_takes_cookie_and_parameters_then_asks_for_streams)
{
	char cookie[PEER_COOKIE_BYTES];

	peer_cookie(cookie, 'k');
	to_create_streams();
	ck_assert_int_eq(memcmp(t->run.cookie, cookie, sizeof(cookie)), 0);
	ck_assert_int_eq(t->run.state, CREATE_STREAMS);
	ck_assert_int_eq(t->settings.num_streams, 2);
	ck_assert_int_eq(t->settings.duration, 1);
	ck_assert_int_eq(t->run.srv.streams_expected, 2);
	ck_assert_int_eq(t->run.srv.streams_accepted, 0);
	ck_assert_int_eq(peer_read_byte(sv[1], 50), PEER_TIMEOUT);
	ck_assert_int_eq(t->run.done, 0);
}
END_TEST

START_TEST(server_answers_an_unknown_state_with_SERVER_ERROR)
{
	int32_t code = 0, err = -1;

	to_create_streams();
	peer_send_state(sv[1], 99);
	/* our FIN after it: the server's drain of the connection ends */
	ck_assert_int_eq(shutdown(sv[1], SHUT_WR), 0);
	PEER_PUMP_UNTIL(t->loop, t->run.done, 5000);
	ck_assert_int_eq(t->run.done, 1);
	ck_assert_int_eq(peer_read_byte(sv[1], 1000), SERVER_ERROR);
	ck_assert_int_eq(peer_read_errints(sv[1], &code, &err, 1000), 1);
	ck_assert_int_eq(code, IEMESSAGE);
	ck_assert_int_eq(err, 0);
	ck_assert(peer_closed(sv[1], 1000));
	ck_assert_int_eq(t->run.ses.last_bad_state, 99);
	ck_assert_int_eq(t->run.abort, ABORT_ERROR);
}
END_TEST

START_TEST(server_refuses_parameters_above_8192_bytes_unread)
{
	char cookie[PEER_COOKIE_BYTES];
	int32_t code = 0, err = -1;

	peer_cookie(cookie, 'k');
	peer_write(sv[1], cookie, sizeof(cookie));
	peer_send_len(sv[1], CTRL_PARAMS_MAX_BYTES + 1);
	ck_assert_int_eq(shutdown(sv[1], SHUT_WR), 0);
	PEER_PUMP_UNTIL(t->loop, t->run.done, 5000);
	ck_assert_int_eq(peer_read_byte(sv[1], 1000), PARAM_EXCHANGE);
	ck_assert_int_eq(peer_read_byte(sv[1], 1000), SERVER_ERROR);
	ck_assert_int_eq(peer_read_errints(sv[1], &code, &err, 1000), 1);
	ck_assert_int_eq(code, IERECVPARAMS);
	ck_assert_int_eq(err, 0);
	ck_assert(peer_closed(sv[1], 1000));
	ck_assert_int_eq(t->run.abort, ABORT_ERROR);
	ck_assert_int_eq(t->settings.num_streams, 1); /* nothing decoded */
}
END_TEST

START_TEST(server_reports_a_client_gone_before_its_streams)
{
	char *err;

	to_create_streams();
	peer_close(&sv[1]);
	PEER_PUMP_UNTIL(t->loop, t->run.done, 5000);
	ck_assert_int_eq(t->run.done, 1);
	ck_assert_int_eq(t->run.err.code, IECTRLCLOSE);
	ck_assert_int_eq(t->run.abort, ABORT_PEER_CLOSED);
	ck_assert_int_eq(t->run.ses.ctrl_sck, -1);
	err = peer_captured_stderr();
	ck_assert_int_eq(peer_count(err,
	    "iperf3: the client has unexpectedly closed the connection"), 1);
	free(err);
}
END_TEST

/* ---- the client's table, the suite as its server ------------------------ */

static void
client_setup(void)
{
	struct pollfd p;
	int port = 0;

	peer_capture_stderr();
	lst = peer_tcp_listener("127.0.0.1", &port);
	t = new_test('c');
	iperf_set_test_server_hostname(t, "127.0.0.1");
	iperf_set_test_server_port(t, port);
	iperf_set_test_num_streams(t, 3);
	iperf_set_test_duration(t, 1);
	ck_assert_int_eq(client_open(t), 0);
	p.fd = lst;
	p.events = POLLIN;
	ck_assert_int_eq(poll(&p, 1, 2000), 1);
	sfd = accept(lst, NULL, NULL);
	ck_assert_int_ge(sfd, 0);
}

static void
client_teardown(void)
{
	iperf_free_test(t);
	t = NULL;
	peer_close(&sfd);
	peer_close(&lst);
	(void)fclose(out);
	peer_release_stderr();
}

static void
to_param_exchange(void)
{
	char cookie[PEER_COOKIE_BYTES];
	char *doc;

	ck_assert_uint_eq(peer_read_n(sfd, cookie, sizeof(cookie), 1000),
	    sizeof(cookie));
	peer_send_state(sfd, PARAM_EXCHANGE);
	PEER_PUMP_UNTIL(t->loop, peer_readable(sfd), 2000);
	doc = peer_read_json(sfd, 1000);
	ck_assert_ptr_nonnull(doc);
	free(doc);
	ck_assert_int_eq(t->run.state, PARAM_EXCHANGE);
}

START_TEST(client_sends_its_cookie_then_its_parameters)
{
	char cookie[PEER_COOKIE_BYTES];
	cJSON *doc;
	char *txt;
	int i;

	ck_assert_uint_eq(peer_read_n(sfd, cookie, sizeof(cookie), 1000),
	    sizeof(cookie));
	ck_assert_int_eq(cookie[36], '\0');
	for (i = 0; i < 36; i++)
		ck_assert_ptr_nonnull(
		    strchr("abcdefghijklmnopqrstuvwxyz234567", cookie[i]));
	ck_assert_int_eq(memcmp(cookie, t->run.cookie, sizeof(cookie)), 0);
	/* Nothing more until the server asks. */
	PEER_PUMP_UNTIL(t->loop, peer_readable(sfd), 100);
	ck_assert(!peer_readable(sfd));
	peer_send_state(sfd, PARAM_EXCHANGE);
	PEER_PUMP_UNTIL(t->loop, peer_readable(sfd), 2000);
	txt = peer_read_json(sfd, 1000);
	ck_assert_ptr_nonnull(txt);
	doc = cJSON_Parse(txt);
	ck_assert_ptr_nonnull(doc);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(doc, "tcp")));
	ck_assert_int_eq(cJSON_GetObjectItem(doc, "parallel")->valueint, 3);
	ck_assert_int_eq(cJSON_GetObjectItem(doc, "time")->valueint, 1);
	ck_assert_str_eq(cJSON_GetObjectItem(doc, "client_version")->valuestring,
	    "3.21");
	cJSON_Delete(doc);
	free(txt);
	ck_assert_int_eq(t->run.state, PARAM_EXCHANGE);
	ck_assert_int_eq(t->run.done, 0);
}
END_TEST

START_TEST(client_stops_on_ACCESS_DENIED_without_a_word)
{
	char cookie[PEER_COOKIE_BYTES];
	char *err;

	ck_assert_uint_eq(peer_read_n(sfd, cookie, sizeof(cookie), 1000),
	    sizeof(cookie));
	peer_send_state(sfd, ACCESS_DENIED);
	PEER_PUMP_UNTIL(t->loop, t->run.done, 2000);
	ck_assert_int_eq(t->run.done, 1);
	ck_assert_int_eq(t->run.err.code, IEACCESSDENIED);
	ck_assert_int_eq(t->run.abort, ABORT_ERROR);
	ck_assert_int_eq(t->run.state, ACCESS_DENIED);
	/* No IPERF_DONE for a server that never spoke: just the close. */
	ck_assert(peer_closed(sfd, 1000));
	err = peer_captured_stderr();
	ck_assert_int_eq(peer_count(err, "iperf3: error - the server is busy "
	    "running a test. try again later"), 1);
	free(err);
}
END_TEST

START_TEST(client_relays_SERVER_ERROR_with_the_servers_errno)
{
	unsigned char b[9] = { 0xfe, 0, 0, 0, IERECVPARAMS, 0, 0, 0,
		ECONNRESET };
	char want[256];
	char *err;

	to_param_exchange();
	peer_write(sfd, b, sizeof(b));
	PEER_PUMP_UNTIL(t->loop, t->run.done, 2000);
	ck_assert_int_eq(t->run.done, 1);
	ck_assert_int_eq(t->run.err.code, IERECVPARAMS);
	ck_assert_int_eq(t->run.err.sys_errno, ECONNRESET);
	ck_assert_int_eq(t->run.abort, ABORT_ERROR);
	ck_assert(peer_closed(sfd, 1000));
	err = peer_captured_stderr();
	ck_assert_int_eq(peer_count(err, "iperf3: SERVER ERROR - unable to "
	    "receive parameters from client"), 1);
	(void)snprintf(want, sizeof(want), ", errno: %s\n",
	    strerror(ECONNRESET));
	ck_assert_int_eq(peer_count(err, want), 1);
	free(err);
}
END_TEST

START_TEST(client_answers_an_unknown_state_with_IPERF_DONE)
{
	to_param_exchange();
	peer_send_state(sfd, 77);
	PEER_PUMP_UNTIL(t->loop, t->run.done, 2000);
	ck_assert_int_eq(t->run.done, 1);
	ck_assert_int_eq(t->run.err.code, IEMESSAGE);
	ck_assert_int_eq(t->run.ses.last_bad_state, 77);
	ck_assert_int_eq(peer_read_byte(sfd, 1000), IPERF_DONE);
	ck_assert(peer_closed(sfd, 1000));
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("session");
	TCase *drv = tcase_create("driver");
	TCase *srv = tcase_create("server");
	TCase *cli = tcase_create("client");

	tcase_add_checked_fixture(drv, driver_setup, driver_teardown);
	tcase_set_timeout(drv, 20);
	tcase_add_test(drv, state_bytes_run_the_rows_that_match_state_and_origin);
	tcase_add_test(drv, a_state_without_a_row_from_this_state_is_IEMESSAGE);
	tcase_add_test(drv, a_json_unit_reaches_on_json_whole_across_chunks);
	tcase_add_test(drv, a_json_length_above_the_cap_fails_before_the_body);
	tcase_add_test(drv, a_peer_gone_inside_a_unit_fails_with_the_units_code);
	tcase_add_test(drv, a_peer_gone_between_units_is_IECTRLCLOSE);
	tcase_add_test(drv, a_unit_silent_for_10_seconds_times_out);
	tcase_add_test(drv, a_trickling_unit_is_cut_30_seconds_after_it_began);
	tcase_add_test(drv, server_error_integers_reach_on_errints);
	suite_add_tcase(s, drv);

	tcase_add_checked_fixture(srv, server_setup, server_teardown);
	tcase_set_timeout(srv, 20);
	tcase_add_test(srv, server_takes_cookie_and_parameters_then_asks_for_streams);
	tcase_add_test(srv, server_answers_an_unknown_state_with_SERVER_ERROR);
	tcase_add_test(srv, server_refuses_parameters_above_8192_bytes_unread);
	tcase_add_test(srv, server_reports_a_client_gone_before_its_streams);
	suite_add_tcase(s, srv);

	tcase_add_checked_fixture(cli, client_setup, client_teardown);
	tcase_set_timeout(cli, 20);
	tcase_add_test(cli, client_sends_its_cookie_then_its_parameters);
	tcase_add_test(cli, client_stops_on_ACCESS_DENIED_without_a_word);
	tcase_add_test(cli, client_relays_SERVER_ERROR_with_the_servers_errno);
	tcase_add_test(cli, client_answers_an_unknown_state_with_IPERF_DONE);
	suite_add_tcase(s, cli);
	return s;
}
