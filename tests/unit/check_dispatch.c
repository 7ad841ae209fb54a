/*
 * check_dispatch.c - the --max-tests dispatcher (server_multi.c) with its
 * tests (server.c through server_child.h's ops): server_multi_run() in a
 * thread of its own on a listener the suite made (AF_UNIX; 127.0.0.1 for
 * the per-address limit, which needs two addresses), the suite playing
 * the clients with bounded reads.  Admission up to the limit and at
 * parameter time, the per-address limit, --one-off, the cap on tests
 * before their parameters, data connections routed by cookie, a slot
 * given back when its test ends, an interrupt.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "check_peer.h"
#include "iperf.h"
#include "iperf_api.h"
#include "server_multi.h"

#define WAIT_MS 3000
#define MAX_CLIENTS 16

static struct iperf_test *s;
static FILE *out;
static pthread_t thread;
static int running;
static atomic_int finished;
static int rc = 99;
static int port = -1; /* TCP listener: its port */
static int fds[MAX_CLIENTS];

static void *
server_main(void *arg)
{
	(void)arg;
	rc = server_multi_run(s);
	atomic_store(&finished, 1);
	return NULL;
}

static void
setup(void)
{
	int i;

	for (i = 0; i < MAX_CLIENTS; i++)
		fds[i] = -1;
	peer_capture_stderr();
	s = iperf_new_test();
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(iperf_defaults(s), 0);
	iperf_set_test_role(s, 's');
	out = tmpfile();
	ck_assert_ptr_nonnull(out);
	s->outfile = out;
	running = 0;
	atomic_store(&finished, 0);
	rc = 99;
	port = -1;
}

/* The server with these limits; tcp: listen on 127.0.0.1. */
static void
start_server(int max_tests, int per_ip, int one_off, int tcp)
{
	ck_assert_int_eq(iperf_set_test_max_tests(s, max_tests), 0);
	ck_assert_int_eq(iperf_set_test_max_tests_per_ip(s, per_ip), 0);
	iperf_set_test_one_off(s, one_off);
	/* server_multi_run() listens unless a listener is there. */
	s->listener = tcp ? peer_tcp_listener("127.0.0.1", &port) :
			    peer_unix_listener();
	ck_assert_int_eq(pthread_create(&thread, NULL, server_main, NULL), 0);
	running = 1;
}

static void
close_clients(void)
{
	int i;

	for (i = 0; i < MAX_CLIENTS; i++)
		peer_close(&fds[i]);
}

/* Wait for the dispatcher's own end (one-off); 1 if it ended. */
static int
wait_finished(int ms)
{
	uint64_t end = peer_now_ms() + (uint64_t)ms;

	while (!atomic_load(&finished) && peer_now_ms() < end)
		(void)usleep(10000);
	if (!atomic_load(&finished))
		return 0;
	(void)pthread_join(thread, NULL);
	running = 0;
	return 1;
}

/* Clients gone, then an interrupt: every test ends, the dispatcher
 * returns. */
static void
stop_server(void)
{
	if (!running)
		return;
	close_clients();
	iperf_test_interrupt(s, 0);
	ck_assert(wait_finished(10000));
}

static void
teardown(void)
{
	stop_server();
	iperf_free_test(s);
	s = NULL;
	(void)fclose(out);
	peer_release_stderr();
}

/* A client connection from src (TCP) or to the AF_UNIX listener. */
static int
dial(const char *src)
{
	return port > 0 ? peer_tcp_connect(src, port) :
			  peer_unix_connect(s->listener);
}

/* Connect and send cookie c; slot i keeps the fd. */
static int
hello(int i, char c, const char *src)
{
	char cookie[PEER_COOKIE_BYTES];

	ck_assert_int_lt(i, MAX_CLIENTS);
	fds[i] = dial(src);
	peer_cookie(cookie, c);
	peer_write(fds[i], cookie, sizeof(cookie));
	return fds[i];
}

static void
send_params(int fd, int parallel)
{
	char params[256];

	peer_params(params, sizeof(params), parallel);
	peer_send_json(fd, params);
}

/* hello, PARAM_EXCHANGE, parameters: the byte the test answers them with
 * (CREATE_STREAMS when admitted, ACCESS_DENIED when refused). */
static int
client(int i, char c, const char *src)
{
	int fd = hello(i, c, src);

	ck_assert_int_eq(peer_read_byte(fd, WAIT_MS), PARAM_EXCHANGE);
	send_params(fd, 1);
	return peer_read_byte(fd, WAIT_MS);
}

static char *
output(void)
{
	return peer_slurp(out);
}

START_TEST(tests_are_admitted_up_to_max_tests)
{
	char *o;

	start_server(2, 0, 0, 0);
	ck_assert_int_eq(client(0, 'a', NULL), CREATE_STREAMS);
	ck_assert_int_eq(client(1, 'b', NULL), CREATE_STREAMS);
	/* The third is heard out, then refused at parameter time. */
	ck_assert_int_eq(client(2, 'c', NULL), ACCESS_DENIED);
	ck_assert(peer_closed(fds[2], WAIT_MS));
	/* The two admitted are untouched. */
	ck_assert_int_eq(peer_read_byte(fds[0], 100), PEER_TIMEOUT);
	ck_assert_int_eq(peer_read_byte(fds[1], 100), PEER_TIMEOUT);
	stop_server();
	ck_assert_int_eq(rc, -1); /* interrupted */
	o = output();
	ck_assert_int_eq(peer_count(o, "Server listening on 5201 (up to 2 "
	    "tests at once)"), 1);
	ck_assert_int_eq(peer_count(o, "refused, the client is told the server "
	    "is busy: every test slot (--max-tests) is in use"), 1);
	free(o);
}
END_TEST

START_TEST(a_slot_is_taken_at_parameter_time)
{
	start_server(1, 0, 0, 0);
	/* A connects but keeps its parameters: it holds no slot... */
	hello(0, 'a', NULL);
	ck_assert_int_eq(peer_read_byte(fds[0], WAIT_MS), PARAM_EXCHANGE);
	/* ...so B, who sends them, gets the only one... */
	ck_assert_int_eq(client(1, 'b', NULL), CREATE_STREAMS);
	/* ...and A is refused when its parameters come. */
	send_params(fds[0], 1);
	ck_assert_int_eq(peer_read_byte(fds[0], WAIT_MS), ACCESS_DENIED);
	ck_assert(peer_closed(fds[0], WAIT_MS));
}
END_TEST

START_TEST(a_slot_is_given_back_when_its_test_ends)
{
	int i, got = PEER_TIMEOUT;

	start_server(1, 0, 0, 0);
	ck_assert_int_eq(client(0, 'a', NULL), CREATE_STREAMS);
	ck_assert_int_eq(client(1, 'b', NULL), ACCESS_DENIED);
	peer_close(&fds[1]);
	/* A ends (IPERF_DONE before its streams); the server closes. */
	peer_send_state(fds[0], IPERF_DONE);
	ck_assert_int_eq(shutdown(fds[0], SHUT_WR), 0);
	ck_assert(peer_closed(fds[0], WAIT_MS));
	/* Its thread gives the slot back right after: a later client
	 * gets it (retried while that thread finishes). */
	for (i = 0; i < 50 && got != CREATE_STREAMS; i++) {
		peer_close(&fds[2]);
		got = client(2, 'c', NULL);
		if (got != CREATE_STREAMS)
			(void)usleep(50000);
	}
	ck_assert_int_eq(got, CREATE_STREAMS);
}
END_TEST

START_TEST(the_per_address_limit_counts_the_tests_of_one_host)
{
	char *o;

	start_server(4, 1, 0, 1);
	ck_assert_int_eq(client(0, 'a', "127.0.0.1"), CREATE_STREAMS);
	ck_assert_int_eq(client(1, 'b', "127.0.0.1"), ACCESS_DENIED);
	ck_assert(peer_closed(fds[1], WAIT_MS));
	/* Another address of the same machine is another host. */
	ck_assert_int_eq(client(2, 'c', "127.0.0.2"), CREATE_STREAMS);
	stop_server();
	o = output();
	ck_assert_int_eq(peer_count(o, "test from 127.0.0.1 refused, the client "
	    "is told the server is busy: this address has all its slots "
	    "(--max-tests-per-ip)"), 1);
	ck_assert_int_eq(peer_count(o, "refused"), 1);
	free(o);
}
END_TEST

START_TEST(a_data_connection_goes_to_the_test_with_its_cookie)
{
	start_server(2, 0, 0, 0);
	ck_assert_int_eq(client(0, 'a', NULL), CREATE_STREAMS);
	ck_assert_int_eq(client(1, 'b', NULL), CREATE_STREAMS);
	/* B's stream: B starts, A hears nothing. */
	hello(2, 'b', NULL);
	ck_assert_int_eq(peer_read_byte(fds[1], WAIT_MS), TEST_START);
	ck_assert_int_eq(peer_read_byte(fds[1], WAIT_MS), TEST_RUNNING);
	ck_assert_int_eq(peer_read_byte(fds[0], 200), PEER_TIMEOUT);
	/* The stream itself is not answered. */
	ck_assert_int_eq(peer_read_byte(fds[2], 100), PEER_TIMEOUT);
	hello(3, 'a', NULL);
	ck_assert_int_eq(peer_read_byte(fds[0], WAIT_MS), TEST_START);
	ck_assert_int_eq(peer_read_byte(fds[0], WAIT_MS), TEST_RUNNING);
	ck_assert_int_eq(peer_read_byte(fds[1], 100), PEER_TIMEOUT);
}
END_TEST

START_TEST(a_cookie_of_a_test_not_creating_streams_is_a_new_test)
{
	start_server(2, 0, 0, 0);
	hello(0, 'a', NULL);
	ck_assert_int_eq(peer_read_byte(fds[0], WAIT_MS), PARAM_EXCHANGE);
	/* A is before CREATE_STREAMS: a connection with its cookie is not
	 * its data connection but a control connection of its own. */
	hello(1, 'a', NULL);
	ck_assert_int_eq(peer_read_byte(fds[1], WAIT_MS), PARAM_EXCHANGE);
	ck_assert_int_eq(peer_read_byte(fds[0], 100), PEER_TIMEOUT);
}
END_TEST

START_TEST(one_off_serves_one_test_then_returns)
{
	start_server(2, 0, 1, 0);
	ck_assert_int_eq(client(0, 'a', NULL), CREATE_STREAMS);
	/* The one test is being served: the next is refused at once,
	 * without PARAM_EXCHANGE. */
	hello(1, 'b', NULL);
	ck_assert_int_eq(peer_read_byte(fds[1], WAIT_MS), ACCESS_DENIED);
	ck_assert(peer_closed(fds[1], WAIT_MS));
	ck_assert(!wait_finished(100));
	peer_send_state(fds[0], IPERF_DONE);
	ck_assert_int_eq(shutdown(fds[0], SHUT_WR), 0);
	ck_assert(peer_closed(fds[0], WAIT_MS));
	/* No interrupt: the dispatcher returns by itself, 0. */
	ck_assert(wait_finished(5000));
	ck_assert_int_eq(rc, 0);
}
END_TEST

START_TEST(tests_before_their_parameters_are_capped)
{
	int i;

	/* With --max-tests 2, at most 8 tests wait for their parameters
	 * (the cap is max(N, 8)); the 9th is denied on its cookie. */
	start_server(2, 0, 0, 0);
	for (i = 0; i < 8; i++) {
		hello(i, (char)('a' + i), NULL);
		ck_assert_int_eq(peer_read_byte(fds[i], WAIT_MS), PARAM_EXCHANGE);
	}
	hello(8, 'z', NULL);
	ck_assert_int_eq(peer_read_byte(fds[8], WAIT_MS), ACCESS_DENIED);
	ck_assert(peer_closed(fds[8], WAIT_MS));
	/* One of the eight goes: room for another. */
	peer_close(&fds[0]);
	for (i = 0; i < 50; i++) {
		int b;

		peer_close(&fds[9]);
		hello(9, 'y', NULL);
		b = peer_read_byte(fds[9], WAIT_MS);
		if (b == PARAM_EXCHANGE)
			break;
		ck_assert_int_eq(b, ACCESS_DENIED);
		(void)usleep(50000);
	}
	ck_assert_int_lt(i, 50);
}
END_TEST

START_TEST(an_interrupt_ends_every_test_with_SERVER_TERMINATE)
{
	char *err;

	start_server(2, 0, 0, 0);
	ck_assert_int_eq(client(0, 'a', NULL), CREATE_STREAMS);
	ck_assert_int_eq(client(1, 'b', NULL), CREATE_STREAMS);
	iperf_test_interrupt(s, 0);
	ck_assert_int_eq(peer_read_byte(fds[0], WAIT_MS), SERVER_TERMINATE);
	ck_assert_int_eq(peer_read_byte(fds[1], WAIT_MS), SERVER_TERMINATE);
	close_clients();
	ck_assert(wait_finished(10000));
	ck_assert_int_eq(rc, -1);
	err = peer_captured_stderr();
	/* Each test says so with its tag, then the server itself. */
	ck_assert_int_eq(peer_count(err, "[T1] iperf3: interrupt - the server "
	    "has terminated\n"), 1);
	ck_assert_int_eq(peer_count(err, "[T2] iperf3: interrupt - the server "
	    "has terminated\n"), 1);
	ck_assert_int_eq(peer_count(err, "iperf3: interrupt - the server has "
	    "terminated\n"), 3);
	free(err);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *su = suite_create("dispatch");
	TCase *tc = tcase_create("dispatch");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, tests_are_admitted_up_to_max_tests);
	tcase_add_test(tc, a_slot_is_taken_at_parameter_time);
	tcase_add_test(tc, a_slot_is_given_back_when_its_test_ends);
	tcase_add_test(tc, the_per_address_limit_counts_the_tests_of_one_host);
	tcase_add_test(tc, a_data_connection_goes_to_the_test_with_its_cookie);
	tcase_add_test(tc, a_cookie_of_a_test_not_creating_streams_is_a_new_test);
	tcase_add_test(tc, one_off_serves_one_test_then_returns);
	tcase_add_test(tc, tests_before_their_parameters_are_capped);
	tcase_add_test(tc, an_interrupt_ends_every_test_with_SERVER_TERMINATE);
	suite_add_tcase(su, tc);
	return su;
}
