/*
 * check_accept.c - the server's accept path (server_accept.c, with
 * server.c's table): a one-test server listening on an AF_UNIX socket
 * (server_open() takes a listener that is there), the suite connecting
 * control and data connections to it and pumping the server's loop.
 * Control connection and its cookie, a second client while busy, data
 * connections with the right cookie, a wrong one, none in time, one
 * closed early, one too many.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "check_peer.h"
#include "evloop.h"
#include "iperf.h"
#include "iperf_api.h"
#include "server.h"
#include "server_accept.h"
#include "stream.h"

#define US 1000000ULL

static struct iperf_test *t;
static FILE *out;
static int ctl = -1;          /* the client's control connection */
static int data[4] = { -1, -1, -1, -1 };
static char cookie[PEER_COOKIE_BYTES];

static void
setup(void)
{
	peer_capture_stderr();
	t = iperf_new_test();
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(iperf_defaults(t), 0);
	iperf_set_test_role(t, 's');
	out = tmpfile();
	ck_assert_ptr_nonnull(out);
	t->outfile = out;
	t->listener = peer_unix_listener();
	ck_assert_int_eq(server_open(t), 0);
	peer_cookie(cookie, 'q');
}

static void
teardown(void)
{
	size_t i;

	/* Our ends first: the server's stream workers see them close. */
	peer_close(&ctl);
	for (i = 0; i < sizeof(data) / sizeof(data[0]); i++)
		peer_close(&data[i]);
	iperf_free_test(t);
	t = NULL;
	(void)fclose(out);
	peer_release_stderr();
}

static int
connect_server(void)
{
	return peer_unix_connect(t->listener);
}

/* A client through PARAM_EXCHANGE and CREATE_STREAMS with -P parallel. */
static void
start_client(int parallel)
{
	char params[256];

	ctl = connect_server();
	peer_write(ctl, cookie, sizeof(cookie));
	PEER_PUMP_UNTIL(t->loop, peer_readable(ctl), 2000);
	ck_assert_int_eq(peer_read_byte(ctl, 1000), PARAM_EXCHANGE);
	peer_params(params, sizeof(params), parallel);
	peer_send_json(ctl, params);
	PEER_PUMP_UNTIL(t->loop, peer_readable(ctl), 2000);
	ck_assert_int_eq(peer_read_byte(ctl, 1000), CREATE_STREAMS);
	ck_assert_int_eq(t->run.state, CREATE_STREAMS);
}

/* A data connection that sends the cookie c (the test's if NULL). */
static int
data_connection(const char *c)
{
	int fd = connect_server();

	peer_write(fd, c != NULL ? c : cookie, PEER_COOKIE_BYTES);
	return fd;
}

/* ACCESS_DENIED, then the close: the server's busy answer. */
static void
assert_denied(int fd)
{
	PEER_PUMP_UNTIL(t->loop, peer_readable(fd), 2000);
	ck_assert_int_eq(peer_read_byte(fd, 1000), ACCESS_DENIED);
	ck_assert(peer_closed(fd, 1000));
}

START_TEST(a_control_connection_is_asked_for_parameters_once_its_cookie_is_in)
{
	ctl = connect_server();
	PEER_PUMP_UNTIL(t->loop, t->run.ses.ctrl_sck >= 0, 2000);
	ck_assert_int_ge(t->run.ses.ctrl_sck, 0);
	ck_assert_int_eq(t->run.srv.peer_addr.ss_family, AF_UNIX);
	/* 20 of the 37 bytes: nothing said yet. */
	peer_write(ctl, cookie, 20);
	PEER_PUMP_UNTIL(t->loop, peer_readable(ctl), 100);
	ck_assert(!peer_readable(ctl));
	ck_assert_int_eq(t->run.state, IPERF_START);
	peer_write(ctl, cookie + 20, sizeof(cookie) - 20);
	PEER_PUMP_UNTIL(t->loop, peer_readable(ctl), 2000);
	ck_assert_int_eq(peer_read_byte(ctl, 1000), PARAM_EXCHANGE);
	ck_assert_int_eq(t->run.state, PARAM_EXCHANGE);
	ck_assert_int_eq(memcmp(t->run.cookie, cookie, sizeof(cookie)), 0);
	ck_assert_int_eq(t->run.done, 0);
}
END_TEST

START_TEST(a_second_client_while_busy_gets_ACCESS_DENIED)
{
	char params[256];
	int fd, first;

	ctl = connect_server();
	peer_write(ctl, cookie, sizeof(cookie));
	PEER_PUMP_UNTIL(t->loop, peer_readable(ctl), 2000);
	ck_assert_int_eq(peer_read_byte(ctl, 1000), PARAM_EXCHANGE);
	first = t->run.ses.ctrl_sck;
	fd = connect_server();
	assert_denied(fd);
	close(fd);
	/* The first client goes on as if nothing happened. */
	ck_assert_int_eq(t->run.ses.ctrl_sck, first);
	ck_assert_int_eq(t->run.state, PARAM_EXCHANGE);
	peer_params(params, sizeof(params), 1);
	peer_send_json(ctl, params);
	PEER_PUMP_UNTIL(t->loop, peer_readable(ctl), 2000);
	ck_assert_int_eq(peer_read_byte(ctl, 1000), CREATE_STREAMS);
}
END_TEST

START_TEST(streams_with_the_cookie_are_taken_and_the_last_one_starts_the_test)
{
	start_client(2);
	data[0] = data_connection(NULL);
	PEER_PUMP_UNTIL(t->loop, t->run.srv.streams_accepted == 1, 2000);
	ck_assert_int_eq(t->run.srv.streams_accepted, 1);
	ck_assert_int_eq(t->run.state, CREATE_STREAMS);
	ck_assert(!peer_readable(ctl));
	data[1] = data_connection(NULL);
	PEER_PUMP_UNTIL(t->loop, t->run.state == TEST_RUNNING, 2000);
	ck_assert_int_eq(t->run.srv.streams_accepted, 2);
	ck_assert_int_eq(peer_read_byte(ctl, 1000), TEST_START);
	ck_assert_int_eq(peer_read_byte(ctl, 1000), TEST_RUNNING);
	ck_assert_ptr_nonnull(t->run.streams);
	ck_assert_ptr_nonnull(t->run.streams->next);
	ck_assert_ptr_null(t->run.srv.pending);
	/* No word on the data connections themselves. */
	ck_assert(!peer_readable(data[0]));
	ck_assert(!peer_readable(data[1]));
}
END_TEST

START_TEST(a_wrong_cookie_is_denied_and_the_test_goes_on)
{
	char other[PEER_COOKIE_BYTES];

	start_client(1);
	/* The same 36 characters but the last: compared in full. */
	memcpy(other, cookie, sizeof(other));
	other[35] = 'z';
	data[0] = data_connection(other);
	assert_denied(data[0]);
	ck_assert_int_eq(t->run.srv.streams_accepted, 0);
	ck_assert_ptr_null(t->run.srv.pending);
	ck_assert_int_eq(t->run.state, CREATE_STREAMS);
	ck_assert_int_eq(t->run.done, 0);
	data[1] = data_connection(NULL);
	PEER_PUMP_UNTIL(t->loop, t->run.state == TEST_RUNNING, 2000);
	ck_assert_int_eq(t->run.srv.streams_accepted, 1);
	ck_assert_int_eq(peer_read_byte(ctl, 1000), TEST_START);
	ck_assert_int_eq(peer_read_byte(ctl, 1000), TEST_RUNNING);
}
END_TEST

START_TEST(a_data_connection_closed_before_its_cookie_is_dropped)
{
	start_client(1);
	data[0] = connect_server();
	peer_write(data[0], cookie, 10);
	PEER_PUMP_UNTIL(t->loop, t->run.srv.pending != NULL, 2000);
	ck_assert_ptr_nonnull(t->run.srv.pending);
	PEER_PUMP_UNTIL(t->loop, 0, 50); /* its 10 bytes are read */
	peer_close(&data[0]);
	PEER_PUMP_UNTIL(t->loop, t->run.srv.pending == NULL, 2000);
	ck_assert_ptr_null(t->run.srv.pending);
	ck_assert_int_eq(t->run.srv.streams_accepted, 0);
	ck_assert_int_eq(t->run.state, CREATE_STREAMS);
	ck_assert_int_eq(t->run.done, 0);
	ck_assert(!peer_readable(ctl));
}
END_TEST

START_TEST(a_data_connection_silent_for_10_seconds_is_denied)
{
	uint64_t now;

	start_client(1);
	data[0] = connect_server();
	PEER_PUMP_UNTIL(t->loop, t->run.srv.pending != NULL, 2000);
	ck_assert_ptr_nonnull(t->run.srv.pending);
	now = evloop_now(t->loop);
	server_expire_pending(t, now + 9 * US);
	ck_assert_ptr_nonnull(t->run.srv.pending);
	ck_assert(!peer_readable(data[0]));
	server_expire_pending(t, now + 10 * US);
	ck_assert_ptr_null(t->run.srv.pending);
	ck_assert_int_eq(peer_read_byte(data[0], 1000), ACCESS_DENIED);
	ck_assert(peer_closed(data[0], 1000));
	ck_assert_int_eq(t->run.state, CREATE_STREAMS);
	ck_assert_int_eq(t->run.done, 0);
}
END_TEST

START_TEST(a_stream_beyond_the_expected_count_is_denied)
{
	int sv[2];

	start_client(1);
	data[0] = data_connection(NULL);
	PEER_PUMP_UNTIL(t->loop, t->run.state == TEST_RUNNING, 2000);
	ck_assert_int_eq(t->run.srv.streams_accepted, 1);
	/* One more through the accept path's last step: refused, not
	 * counted, and the test is not failed for it. */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(server_add_stream(t, sv[0]), 0);
	ck_assert_int_eq(peer_read_byte(sv[1], 1000), ACCESS_DENIED);
	ck_assert(peer_closed(sv[1], 1000));
	close(sv[1]);
	ck_assert_int_eq(t->run.srv.streams_accepted, 1);
	ck_assert_ptr_null(t->run.streams->next);
	ck_assert_int_eq(t->run.state, TEST_RUNNING);
	ck_assert_int_eq(t->run.done, 0);
}
END_TEST

START_TEST(a_connection_after_the_streams_are_in_is_denied)
{
	start_client(1);
	data[0] = data_connection(NULL);
	PEER_PUMP_UNTIL(t->loop, t->run.state == TEST_RUNNING, 2000);
	ck_assert_int_eq(peer_read_byte(ctl, 1000), TEST_START);
	ck_assert_int_eq(peer_read_byte(ctl, 1000), TEST_RUNNING);
	/* Even with the right cookie: the listener now answers busy. */
	data[1] = data_connection(NULL);
	assert_denied(data[1]);
	ck_assert_int_eq(t->run.srv.streams_accepted, 1);
	ck_assert_int_eq(t->run.state, TEST_RUNNING);
	ck_assert(!peer_readable(ctl));
}
END_TEST

START_TEST(a_client_that_ends_before_its_streams_frees_the_server)
{
	start_client(2);
	data[0] = data_connection(NULL);
	PEER_PUMP_UNTIL(t->loop, t->run.srv.streams_accepted == 1, 2000);
	data[1] = connect_server(); /* its cookie never comes */
	PEER_PUMP_UNTIL(t->loop, t->run.srv.pending != NULL, 2000);
	ck_assert_ptr_nonnull(t->run.srv.pending);
	peer_send_state(ctl, IPERF_DONE);
	ck_assert_int_eq(shutdown(ctl, SHUT_WR), 0);
	PEER_PUMP_UNTIL(t->loop, t->run.done, 5000);
	ck_assert_int_eq(t->run.done, 1);
	ck_assert_int_eq(t->run.abort, ABORT_NONE);
	ck_assert_int_eq(t->run.state, IPERF_DONE);
	/* The connection still without its cookie is closed, silently. */
	ck_assert_ptr_null(t->run.srv.pending);
	ck_assert(peer_closed(data[1], 1000));
	ck_assert(peer_closed(ctl, 1000));
}
END_TEST

START_TEST(server_read_cookie_assembles_partial_reads)
{
	unsigned char buf[PEER_COOKIE_BYTES];
	size_t len = 0;
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv),
	    0);
	ck_assert_int_eq(server_read_cookie(sv[0], buf, &len), 0); /* EAGAIN */
	ck_assert_uint_eq(len, 0);
	peer_write(sv[1], cookie, 10);
	ck_assert_int_eq(server_read_cookie(sv[0], buf, &len), 0);
	ck_assert_uint_eq(len, 10);
	/* More than a cookie waiting: only the cookie is taken. */
	peer_write(sv[1], cookie + 10, sizeof(cookie) - 10);
	peer_write(sv[1], "X", 1);
	ck_assert_int_eq(server_read_cookie(sv[0], buf, &len), 1);
	ck_assert_uint_eq(len, sizeof(cookie));
	ck_assert_int_eq(memcmp(buf, cookie, sizeof(cookie)), 0);
	ck_assert_int_eq(peer_read_byte(sv[0], 100), 'X');
	/* Closed before the end: -1. */
	len = 5;
	close(sv[1]);
	ck_assert_int_eq(server_read_cookie(sv[0], buf, &len), -1);
	close(sv[0]);
}
END_TEST

START_TEST(server_deny_answers_ACCESS_DENIED_and_closes)
{
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	server_deny(sv[0]);
	ck_assert_int_eq(peer_read_byte(sv[1], 1000), ACCESS_DENIED);
	ck_assert(peer_closed(sv[1], 1000));
	close(sv[1]);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("accept");
	TCase *tc = tcase_create("accept");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, a_control_connection_is_asked_for_parameters_once_its_cookie_is_in);
	tcase_add_test(tc, a_second_client_while_busy_gets_ACCESS_DENIED);
	tcase_add_test(tc, streams_with_the_cookie_are_taken_and_the_last_one_starts_the_test);
	tcase_add_test(tc, a_wrong_cookie_is_denied_and_the_test_goes_on);
	tcase_add_test(tc, a_data_connection_closed_before_its_cookie_is_dropped);
	tcase_add_test(tc, a_data_connection_silent_for_10_seconds_is_denied);
	tcase_add_test(tc, a_stream_beyond_the_expected_count_is_denied);
	tcase_add_test(tc, a_connection_after_the_streams_are_in_is_denied);
	tcase_add_test(tc, a_client_that_ends_before_its_streams_frees_the_server);
	tcase_add_test(tc, server_read_cookie_assembles_partial_reads);
	tcase_add_test(tc, server_deny_answers_ACCESS_DENIED_and_closes);
	suite_add_tcase(s, tc);
	return s;
}
