/* stream.c - stream lifecycle and worker threads (see stream.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_SYS_PRCTL_H
#include <sys/prctl.h>
#endif

#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "pacer.h"
#include "proto.h"
#include "stream.h"
#include "test.h"
#include "util.h"
#include "banned.h"

/* Longest a paced worker sleeps before re-checking its stop flag. */
#define PACER_MAX_SLEEP_US 100000ULL

static void
fill_payload(struct iperf_test *test, char *buf, size_t len)
{
	size_t i;

	if (test->settings.repeating_payload) {
		for (i = 0; i < len; i++)
			buf[i] = (char)('0' + (i % 10));
	} else {
		fill_random(buf, len);
	}
}

struct iperf_stream *
stream_new(struct iperf_test *test, int sock, int sender)
{
	struct iperf_stream *sp = calloc(1, sizeof(*sp));

	if (sp == NULL)
		return NULL;
	sp->test = test;
	sp->socket = sock;
	sp->sender = sender;
	sp->datagram = (test->proto->flags & PROTO_F_DATAGRAM) != 0;
	sp->blksize = (size_t)test->settings.blksize;
	sp->buffer = malloc(sp->blksize > 0 ? sp->blksize : 1);
	if (sp->buffer == NULL) {
		free(sp);
		return NULL;
	}
	fill_payload(test, sp->buffer, sp->blksize);
	if (pthread_mutex_init(&sp->lock, NULL) != 0) {
		free(sp->buffer);
		free(sp);
		return NULL;
	}
	atomic_init(&sp->stop, 0);
	sp->min_rtt = UINT64_MAX;
	sp->peer.retransmits = -1;
	sp->local_len = sizeof(sp->local_addr);
	sp->remote_len = sizeof(sp->remote_addr);
	(void)getsockname(sock, (struct sockaddr *)&sp->local_addr,
	    &sp->local_len);
	(void)getpeername(sock, (struct sockaddr *)&sp->remote_addr,
	    &sp->remote_len);
	return sp;
}

void
stream_free(struct iperf_stream *sp)
{
	struct interval_result *ir, *next;

	if (sp == NULL)
		return;
	if (sp->test->proto != NULL && sp->test->proto->stream_release != NULL)
		sp->test->proto->stream_release(sp);
	if (sp->socket >= 0 && !sp->closed)
		close(sp->socket);
	for (ir = sp->intervals; ir != NULL; ir = next) {
		next = ir->next;
		free(ir);
	}
	pthread_mutex_destroy(&sp->lock);
	free(sp->buffer);
	free(sp);
}

void
stream_add(struct iperf_test *test, struct iperf_stream *sp)
{
	struct iperf_stream **pp = &test->streams;
	int n = 0;

	while (*pp != NULL) {
		pp = &(*pp)->next;
		n++;
	}
	/* Wire ids: 1 for the first stream, then count + 2 (2 is unused). */
	sp->id = n == 0 ? 1 : n + 2;
	*pp = sp;
	test->num_streams_total = n + 1;
}

struct iperf_stream *
stream_find(struct iperf_test *test, int id)
{
	struct iperf_stream *sp;

	for (sp = test->streams; sp != NULL; sp = sp->next) {
		if (sp->id == id)
			return sp;
	}
	return NULL;
}

void
stream_snapshot(struct iperf_stream *sp, struct stream_live *out)
{
	pthread_mutex_lock(&sp->lock);
	*out = sp->live;
	pthread_mutex_unlock(&sp->lock);
}

void
stream_count(struct iperf_stream *sp, uint64_t bytes, uint64_t blocks)
{
	pthread_mutex_lock(&sp->lock);
	sp->live.bytes += bytes;
	sp->live.blocks += blocks;
	if (sp->datagram)
		sp->live.packets += blocks;
	pthread_mutex_unlock(&sp->lock);
}

void
stream_count_rx(struct iperf_stream *sp, uint64_t bytes)
{
	uint64_t now = iperf_time_now_us();

	pthread_mutex_lock(&sp->lock);
	sp->live.bytes += bytes;
	sp->live.blocks = sp->blksize > 0 ? sp->live.bytes / sp->blksize : 0;
	sp->live.last_rx_us = now;
	pthread_mutex_unlock(&sp->lock);
}

/* Wait until a block may go; returns 0 to send, -1 if asked to stop. */
static int
pacer_wait(struct pacer *p, struct iperf_stream *sp, size_t blksize)
{
	for (;;) {
		uint64_t now = iperf_time_now_us();
		uint64_t wait_us = pacer_delay(p, blksize, now);

		if (wait_us == 0)
			return 0;
		if (atomic_load(&sp->stop))
			return -1;
		if (wait_us > PACER_MAX_SLEEP_US)
			wait_us = PACER_MAX_SLEEP_US;
		iperf_time_sleep_until(now + wait_us);
	}
}

static void
worker_fail(struct iperf_stream *sp, int code, int err)
{
	pthread_mutex_lock(&sp->lock);
	if (sp->live.error == 0) {
		sp->live.error = code;
		sp->live.sys_errno = err;
	}
	pthread_mutex_unlock(&sp->lock);
}

static void
worker_send_loop(struct iperf_stream *sp)
{
	struct iperf_test *test = sp->test;
	struct pacer pacer;

	pacer_init(&pacer, test->settings.rate, sp->blksize, test->settings.burst,
	    iperf_time_now_us());
	while (!atomic_load(&sp->stop)) {
		ssize_t n;

		if (test_send_limit_reached(test))
			break;
		if (pacer_wait(&pacer, sp, sp->blksize) == -1)
			break;
		n = test->proto->send(sp);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN ||
			    errno == EWOULDBLOCK || errno == ENOBUFS)
				continue;
			if (!atomic_load(&sp->stop))
				worker_fail(sp, IESTREAMWRITE, errno);
			break;
		}
		stream_count(sp, (uint64_t)n, 1);
		test_count_sent(test, (uint64_t)n);
	}
}

static void
worker_recv_loop(struct iperf_stream *sp)
{
	struct iperf_test *test = sp->test;

	while (!atomic_load(&sp->stop)) {
		ssize_t n = test->proto->recv(sp);

		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN ||
			    errno == EWOULDBLOCK)
				continue;
			if (!atomic_load(&sp->stop))
				worker_fail(sp, IESTREAMREAD, errno);
			break;
		}
		if (n == 0)
			break; /* end of stream is not an error */
	}
}

static void *
worker_main(void *arg)
{
	struct iperf_stream *sp = arg;

#if defined(HAVE_SYS_PRCTL_H) && defined(PR_SET_TIMERSLACK)
	/* Pacing sleeps are short; ask for precise wake-ups. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
	if (sp->sender)
		worker_send_loop(sp);
	else
		worker_recv_loop(sp);
	pthread_mutex_lock(&sp->lock);
	sp->live.finished = 1;
	pthread_mutex_unlock(&sp->lock);
	test_wake(sp->test);
	return NULL;
}

int
stream_start_workers(struct iperf_test *test)
{
	struct iperf_stream *sp;
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	if (pthread_sigmask(SIG_SETMASK, &all, &old) != 0)
		return iperf_fail(test, IEPTHREADSIGMASK, errno);
	for (sp = test->streams; sp != NULL; sp = sp->next) {
		atomic_store(&sp->stop, 0);
		rc = pthread_create(&sp->thread, NULL, worker_main, sp);
		if (rc != 0) {
			(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
			return iperf_fail(test, IEPTHREADCREATE, rc);
		}
		sp->thread_started = 1;
	}
	if (pthread_sigmask(SIG_SETMASK, &old, NULL) != 0)
		return iperf_fail(test, IEPTHREADSIGMASK, errno);
	return 0;
}

void
stream_signal_stop(struct iperf_test *test)
{
	struct iperf_stream *sp;

	for (sp = test->streams; sp != NULL; sp = sp->next)
		atomic_store(&sp->stop, 1);
}

void
stream_stop_workers(struct iperf_test *test, int shut)
{
	struct iperf_stream *sp;

	stream_signal_stop(test);
	for (sp = test->streams; sp != NULL; sp = sp->next) {
		if (!sp->thread_started)
			continue;
		/* Wake a worker blocked in send/recv.  Without `shut` the peer
		 * is not disturbed beyond an end of stream: a receiver stops
		 * reading (SHUT_RD), a sender sends its FIN (SHUT_WR). */
		if (shut)
			(void)shutdown(sp->socket, SHUT_RDWR);
		else
			(void)shutdown(sp->socket, sp->sender ? SHUT_WR : SHUT_RD);
	}
	for (sp = test->streams; sp != NULL; sp = sp->next) {
		if (!sp->thread_started)
			continue;
		(void)pthread_join(sp->thread, NULL);
		sp->thread_started = 0;
	}
}
