/*
 * check_bounds.c - the waits that must end: the half-close drain against a
 * trickling peer, the send-stall watchdog, and joining a worker blocked in
 * send() to a peer that never reads.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "iperf.h"
#include "test_config.h"
#include "iperf_time.h"
#include "proto.h"
#include "session.h"
#include "stream.h"
#include "test.h"

static struct iperf_test *test;

static void
setup(void)
{
	test = iperf_new_test();
	ck_assert_ptr_nonnull(test);
	iperf_defaults(test);
	test->cfg->opt.role = 'c';
	test->proto = proto_find(SOCK_STREAM);
	ck_assert_ptr_nonnull(test->proto);
	test_update_mode(test);
}

static void
teardown(void)
{
	iperf_free_test(test);
}

/* ---- drain against a trickle --------------------------------------------- */

struct trickler {
	int fd;
	atomic_int stop;
};

static void *
trickle_main(void *arg)
{
	struct trickler *t = arg;

	while (!atomic_load(&t->stop)) {
		if (send(t->fd, "x", 1, MSG_NOSIGNAL) != 1)
			break;
		iperf_time_sleep_until(iperf_time_now_us() + 50000);
	}
	return NULL;
}

START_TEST(drain_is_capped_against_a_trickling_peer)
{
	int sv[2];
	struct trickler t;
	pthread_t th;
	uint64_t t0, took;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	t.fd = sv[1];
	atomic_init(&t.stop, 0);
	ck_assert_int_eq(pthread_create(&th, NULL, trickle_main, &t), 0);
	test->run.ses.ctrl_sck = sv[0];
	t0 = iperf_time_now_us();
	/* A byte every 50 ms would re-arm a 300 ms idle wait forever. */
	session_close_ctrl(test, 300000, 800000);
	took = iperf_time_now_us() - t0;
	atomic_store(&t.stop, 1);
	pthread_join(th, NULL);
	close(sv[1]);
	ck_assert_int_eq(test->run.ses.ctrl_sck, -1);
	ck_assert_uint_ge(took, 700000);
	ck_assert_uint_lt(took, 1500000);
}
END_TEST

START_TEST(drain_ends_at_once_on_eof)
{
	int sv[2];
	uint64_t t0;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	test->run.ses.ctrl_sck = sv[0];
	t0 = iperf_time_now_us();
	session_close_ctrl(test, 5000000, 10000000);
	ck_assert_uint_lt(iperf_time_now_us() - t0, 500000);
}
END_TEST

/* ---- send-stall watchdog -------------------------------------------------- */

START_TEST(send_stall_counts_only_a_send_without_progress)
{
	int sv[2];
	struct iperf_stream *sp;
	uint64_t now = 1000000000;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	sp = stream_new(test, sv[0], 1);
	ck_assert_ptr_nonnull(sp);
	stream_add(test, sp);
	/* Not running: never stalled. */
	ck_assert_uint_eq(stream_send_stalled_us(sp, now), 0);
	sp->w.thread_started = 1; /* pretend; no thread is joined below */
	atomic_store(&sp->w.in_send, 1);
	ck_assert_uint_eq(stream_send_stalled_us(sp, now), 0); /* baseline */
	ck_assert_uint_eq(stream_send_stalled_us(sp, now + 3000000), 3000000);
	ck_assert_int_eq(stream_any_send_stalled(test, now + 3000000, 2000000), 1);
	ck_assert_int_eq(stream_any_send_stalled(test, now + 3000000, 4000000), 0);
	/* Bytes moved: a new baseline. */
	stream_count(sp, 100, 1);
	ck_assert_uint_eq(stream_send_stalled_us(sp, now + 4000000), 0);
	ck_assert_uint_eq(stream_send_stalled_us(sp, now + 5000000), 1000000);
	/* The send queue drained a little (a slow path): progress too. */
	ck_assert_int_eq((int)send(sv[0], "abc", 3, 0), 3);
	ck_assert_uint_eq(stream_send_stalled_us(sp, now + 6000000), 0);
	/* A pacing pause (not inside send) is no stall. */
	atomic_store(&sp->w.in_send, 0);
	ck_assert_uint_eq(stream_send_stalled_us(sp, now + 60000000), 0);
	/* A receiver never is. */
	sp->sender = 0;
	atomic_store(&sp->w.in_send, 1);
	ck_assert_uint_eq(stream_send_stalled_us(sp, now + 90000000), 0);
	sp->w.thread_started = 0;
	close(sv[1]);
}
END_TEST

START_TEST(stall_limit_follows_snd_timeout_then_rcv_timeout)
{
	ck_assert_uint_eq(test_send_stall_limit_us(test),
	    (uint64_t)DEFAULT_NO_MSG_RCVD_TIMEOUT * 1000);
	test->cfg->opt.rcv_timeout_ms = 2500;
	ck_assert_uint_eq(test_send_stall_limit_us(test), 2500000);
	test->cfg->opt.snd_timeout_ms = 700;
	ck_assert_uint_eq(test_send_stall_limit_us(test), 700000);
}
END_TEST

/* ---- a worker blocked in send() is joined ------------------------------- */

/* A connected TCP pair on loopback whose receiving end never reads. */
static void
tcp_pair(int *snd, int *rcv)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	int small = 4096;

	ck_assert_int_ge(ls, 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(ls, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(ls, 1), 0);
	ck_assert_int_eq(getsockname(ls, (struct sockaddr *)&a, &len), 0);
	*snd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(*snd, 0);
	(void)setsockopt(*snd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	ck_assert_int_eq(connect(*snd, (struct sockaddr *)&a, sizeof(a)), 0);
	*rcv = accept(ls, NULL, NULL);
	ck_assert_int_ge(*rcv, 0);
	(void)setsockopt(*rcv, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	close(ls);
}

static void
join_blocked_sender(int shut)
{
	int snd, rcv, i;
	struct iperf_stream *sp;
	uint64_t t0, took;

	test->settings.blksize = 131072;
	tcp_pair(&snd, &rcv);
	sp = stream_new(test, snd, 1);
	ck_assert_ptr_nonnull(sp);
	stream_add(test, sp);
	ck_assert_int_eq(stream_setup(sp), 0);
	ck_assert_int_eq(stream_start_workers(test), 0);
	/* Wait until the worker sits in a send() that cannot finish. */
	for (i = 0; i < 200; i++) {
		iperf_time_sleep_until(iperf_time_now_us() + 10000);
		if (stream_send_stalled_us(sp, iperf_time_now_us()) > 100000)
			break;
	}
	ck_assert_int_lt(i, 200);
	t0 = iperf_time_now_us();
	stream_stop_workers(test, shut);
	took = iperf_time_now_us() - t0;
	ck_assert_int_eq(sp->w.thread_started, 0);
	/* The half shutdown wakes it: well within the first grace period. */
	ck_assert_uint_lt(took, IPERF_JOIN_GRACE_US);
	close(rcv);
}

START_TEST(a_sender_blocked_on_a_silent_peer_is_joined)
{
	join_blocked_sender(0);
}
END_TEST

START_TEST(a_sender_blocked_on_a_silent_peer_is_joined_after_shut)
{
	join_blocked_sender(1);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("bounds");
	TCase *tc = tcase_create("waits");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, drain_is_capped_against_a_trickling_peer);
	tcase_add_test(tc, drain_ends_at_once_on_eof);
	tcase_add_test(tc, send_stall_counts_only_a_send_without_progress);
	tcase_add_test(tc, stall_limit_follows_snd_timeout_then_rcv_timeout);
	tcase_add_test(tc, a_sender_blocked_on_a_silent_peer_is_joined);
	tcase_add_test(tc, a_sender_blocked_on_a_silent_peer_is_joined_after_shut);
	suite_add_tcase(s, tc);
	return s;
}
