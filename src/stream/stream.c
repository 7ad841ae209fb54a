/* stream.c - stream lifecycle and worker threads (see stream.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <errno.h>
#include <poll.h>
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
#include "notes.h"
#include "pacer.h"
#include "placement.h"
#include "proto_ops.h"
#include "rr.h"
#ifdef HAVE_RPM
#include "rpm_stream.h"
#endif
#ifdef HAVE_ISOCHRONOUS
#include "iso_stream.h"
#endif
#include "stats_dist.h"
#include "stream.h"
#include "stream_io.h"
#include "test.h"
#include "util.h"
#include "banned.h"

/* The pacing sleep waits on sp->wake against the monotonic clock, so that
 * stream_signal_stop() ends it at once. */
static int
stream_wake_init(struct iperf_stream *sp)
{
	pthread_condattr_t attr;
	int rc;

	if (pthread_condattr_init(&attr) != 0)
		return -1;
	rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(&sp->w.wake, &attr);
	(void)pthread_condattr_destroy(&attr);
	return rc == 0 ? 0 : -1;
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
	sp->xmit_len = sp->blksize;
	sp->w.place_cpu = -1;
	if (stream_io_buffer_new(sp) == -1) {
		int err = errno;
		stream_io_release(sp);
		free(sp);
		errno = err;
		return NULL;
	}
	if (pthread_mutex_init(&sp->w.lock, NULL) != 0) {
		stream_io_release(sp);
		free(sp);
		errno = ENOMEM;
		return NULL;
	}
	if (stream_wake_init(sp) != 0) {
		pthread_mutex_destroy(&sp->w.lock);
		stream_io_release(sp);
		free(sp);
		errno = ENOMEM;
		return NULL;
	}
	atomic_init(&sp->w.stop, 0);
	atomic_init(&sp->w.in_send, 0);
	stats_dist_stream_init(sp);
	sp->min_rtt = UINT64_MAX;
	sp->peer.retransmits = -1;
	sp->local_len = sizeof(sp->local_addr);
	sp->remote_len = sizeof(sp->remote_addr);
	(void)getsockname(sock, (struct sockaddr *)&sp->local_addr,
	    &sp->local_len);
	/* A connection the peer has reset already has no peer name: it went
	 * to the control connection's peer (and port), so report that. */
	if (getpeername(sock, (struct sockaddr *)&sp->remote_addr,
		&sp->remote_len) == -1) {
		sp->remote_len = sizeof(sp->remote_addr);
		if (getpeername(test->run.ses.ctrl_sck,
			(struct sockaddr *)&sp->remote_addr, &sp->remote_len) == -1)
			sp->remote_len = 0;
	}
	return sp;
}

void
stream_drop_intervals(struct iperf_stream *sp)
{
	struct interval_result *ir, *next;

	for (ir = sp->intervals; ir != NULL; ir = next) {
		next = ir->next;
		free(ir);
	}
	sp->intervals = NULL;
	sp->last_interval = NULL;
}

void
stream_free(struct iperf_stream *sp)
{
	if (sp == NULL)
		return;
	if (sp->test->proto != NULL && sp->test->proto->stream_release != NULL)
		sp->test->proto->stream_release(sp);
	rr_stream_release(sp);
#ifdef HAVE_RPM
	rpm_stream_release(sp);
#endif
#ifdef HAVE_ISOCHRONOUS
	iso_stream_release(sp);
#endif
	if (sp->socket >= 0 && !sp->closed)
		close(sp->socket);
	stream_drop_intervals(sp);
	stats_dist_stream_release(sp);
	pthread_cond_destroy(&sp->w.wake);
	pthread_mutex_destroy(&sp->w.lock);
	stream_io_release(sp);
	free(sp);
}

void
stream_add(struct iperf_test *test, struct iperf_stream *sp)
{
	struct iperf_stream **pp = &test->run.streams;
	int n = 0;

	while (*pp != NULL) {
		pp = &(*pp)->next;
		n++;
	}
	/* Wire ids: 1 for the first stream, then count + 2 (2 is unused). */
	sp->id = n == 0 ? 1 : n + 2;
	*pp = sp;
	test->run.num_streams_total = n + 1;
}

int
stream_setup(struct iperf_stream *sp)
{
	const struct iperf_proto_ops *p = sp->test->proto;

	if (stream_io_open(sp) == -1)
		return -1;
	if (p->stream_init != NULL && p->stream_init(sp) == -1) {
		note_flush(sp->test);
		return -1;
	}
	note_flush(sp->test);
	if (sp->test->settings.rr)
		return rr_stream_init(sp);
#ifdef HAVE_RPM
	if (sp->test->settings.rpm)
		return rpm_stream_init(sp);
#endif
#ifdef HAVE_ISOCHRONOUS
	if (sp->test->settings.iso)
		return iso_stream_init(sp);
#endif
	return 0;
}

struct iperf_stream *
stream_find(struct iperf_test *test, int id)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (sp->id == id)
			return sp;
	}
	return NULL;
}

void
stream_snapshot(struct iperf_stream *sp, struct stream_live *out)
{
	pthread_mutex_lock(&sp->w.lock);
	*out = sp->w.live;
	pthread_mutex_unlock(&sp->w.lock);
}

void
stream_count(struct iperf_stream *sp, uint64_t bytes, uint64_t blocks)
{
	pthread_mutex_lock(&sp->w.lock);
	sp->w.live.bytes += bytes;
	sp->w.live.blocks += blocks;
	if (sp->datagram)
		sp->w.live.packets += blocks;
	pthread_mutex_unlock(&sp->w.lock);
}

void
stream_count_rx(struct iperf_stream *sp, uint64_t bytes)
{
	uint64_t now = iperf_time_now_us();

	pthread_mutex_lock(&sp->w.lock);
	sp->w.live.bytes += bytes;
	sp->w.live.blocks = sp->blksize > 0 ? sp->w.live.bytes / sp->blksize : 0;
	sp->w.live.last_rx_us = now;
	pthread_mutex_unlock(&sp->w.lock);
}

/* A sender catching up (pacer_behind) spins through waits this short. */
#define PACER_SPIN_MAX_US 100

/* Wait until a block may go; returns 0 to send (the time in *now), -1 if
 * asked to stop. */
static int
pacer_wait(struct pacer *p, struct iperf_stream *sp, size_t blksize,
    uint64_t *now_us)
{
	for (;;) {
		uint64_t now = iperf_time_now_us();
		uint64_t wait_us = pacer_delay(p, blksize, now);

		*now_us = now;
		if (wait_us == 0)
			return 0;
		if (wait_us <= PACER_SPIN_MAX_US && pacer_behind(p)) {
			if (atomic_load(&sp->w.stop))
				return -1;
			continue; /* the clock moves on; ask again */
		}
		if (stream_sleep_until(sp, now + wait_us) == -1)
			return -1;
	}
}

/* One block (or a GSO or TCP batch) went out: n bytes, whole datagrams,
 * a TCP batch's last block counted if only in part; a batch also drops
 * its reservation of `reserved` blocks of the count. */
static void
worker_count_sent(struct iperf_stream *sp, size_t n, uint64_t reserved)
{
	uint64_t blocks = 1;

	if (sp->blksize > 0 && n > sp->blksize)
		blocks = sp->datagram ? n / sp->blksize :
		    (n + sp->blksize - 1) / sp->blksize; /* a TCP batch */
	stream_io_sent(sp, n);
	stream_count(sp, (uint64_t)n, blocks);
	test_count_sent_batch(sp->test, (uint64_t)n, blocks, reserved);
}

static int
transient(int err, int sending)
{
	return err == EINTR || err == EAGAIN || err == EWOULDBLOCK ||
	    (sending && err == ENOBUFS);
}

/* One block of a sender: 1 to go on, 0 to stop. */
static int
send_step(struct iperf_stream *sp, struct pacer *pacer)
{
	struct iperf_test *test = sp->test;
	uint64_t batch = 0; /* datagrams reserved against the count */
	uint64_t now;
	ssize_t n;
	int ready;

	if (test_count_stops_sender(test) && test_send_limit_reached(test))
		return 0;
	ready = stream_io_next(sp);
	if (ready <= 0) {
		if (ready == -1)
			stream_worker_fail(sp, IEFILE, errno);
		return 0; /* -F: the whole file went out */
	}
#ifdef HAVE_UDPFEEDBACK
	/* Unpaced (-b 0): the transport's hold, if it set one. */
	if (test->settings.rate == 0 &&
	    pacer->rate_bps != (double)sp->tx_cap_bps)
		pacer_init(pacer, sp->tx_cap_bps, sp->xmit_len, 1,
		    iperf_time_now_us());
#endif
	if (pacer_wait(pacer, sp, sp->xmit_len, &now) == -1)
		return 0;
	if (sp->rtt_on && now >= sp->w.rtt_due_us)
		stats_dist_rtt_sample(sp, now);
	/* A batch (UDP GSO) takes no more of a -n/-k count than is left,
	 * counting what batches of other streams hold. */
	sp->xmit_blocks = sp->blksize > 0 ? sp->xmit_len / sp->blksize : 1;
	if (sp->xmit_blocks > 1 && test_count_stops_sender(test)) {
		batch = test_send_reserve(test, sp->xmit_blocks, sp->blksize);
		if (batch == 0)
			return 0;
		sp->xmit_blocks = (size_t)batch;
	}
	atomic_store(&sp->w.in_send, 1);
	n = test->proto->send(sp);
	atomic_store(&sp->w.in_send, 0);
	if (n <= 0 && batch > 0)
		test_count_sent_batch(test, 0, 0, batch);
	if (n < 0) {
		if (transient(errno, 1))
			return 1;
		if (!atomic_load(&sp->w.stop))
			stream_worker_fail(sp, IESTREAMWRITE, errno);
		return 0;
	}
	if (n == 0)
		return 0; /* -F -Z: sendfile() reached the end of the file */
	worker_count_sent(sp, (size_t)n, batch);
	return 1;
}

static void
worker_send_loop(struct iperf_stream *sp)
{
	struct pacer pacer;

	pacer_init(&pacer, sp->test->settings.rate, sp->xmit_len,
	    sp->test->settings.burst, iperf_time_now_us());
	while (!atomic_load(&sp->w.stop) && send_step(sp, &pacer))
		;
}

/* A datagram receiver asked to stop reads what is already queued, up to
 * STREAM_TAIL_READS calls and without waiting: a receiver that lets
 * datagrams queue between reads (proto_udp.c) would otherwise leave up
 * to a linger's worth of them uncounted. */
#define STREAM_TAIL_READS 64

static int
recv_tail(struct iperf_stream *sp)
{
	struct pollfd pfd = { .fd = sp->socket, .events = POLLIN };
	int i;

	for (i = 0; sp->datagram && i < STREAM_TAIL_READS; i++)
		if (poll(&pfd, 1, 0) <= 0 || sp->test->proto->recv(sp) <= 0)
			break;
	return 0;
}

/* One read of a receiver: 1 to go on, 0 to stop.  A receiver with a -F
 * file goes on after the stop request while data still comes. */
static int
recv_step(struct iperf_stream *sp, int sink)
{
	int stopping = atomic_load(&sp->w.stop);
	ssize_t n;

	if (stopping && !sink)
		return recv_tail(sp);
	if (sink) {
		int w = stream_io_sink_wait(sp, stopping);
		if (w <= 0)
			return w == -1; /* -1: nothing yet, ask again */
	}
	n = sp->test->proto->recv(sp);
	if (n < 0) {
		if (transient(errno, 0))
			return 1;
		if (!atomic_load(&sp->w.stop))
			stream_worker_fail(sp, IESTREAMREAD, errno);
		return 0;
	}
	if (n == 0)
		return 0; /* end of stream is not an error */
	if (stream_io_store(sp, (size_t)n) == -1) {
		stream_worker_fail(sp, IEFILE, errno);
		return 0;
	}
	placement_follow(sp);
	return 1;
}

static void
worker_recv_loop(struct iperf_stream *sp)
{
	int sink = stream_io_has_sink(sp);

	while (recv_step(sp, sink))
		;
}

static void *
worker_main(void *arg)
{
	struct iperf_stream *sp = arg;

#if defined(HAVE_SYS_PRCTL_H) && defined(PR_SET_TIMERSLACK)
	/* Pacing sleeps are short; ask for precise wake-ups. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
	placement_enter(sp);
	if (sp->rr != NULL)
		rr_worker(sp);
#ifdef HAVE_RPM
	else if (sp->rpm != NULL)
		rpm_worker(sp);
#endif
#ifdef HAVE_ISOCHRONOUS
	else if (iso_stream_has_worker(sp))
		iso_worker(sp);
#endif
	else if (sp->sender) {
		worker_send_loop(sp);
#ifdef HAVE_MULTICAST
		if (sp->test->proto->send_end != NULL)
			sp->test->proto->send_end(sp);
#endif
	} else
		worker_recv_loop(sp);
	pthread_mutex_lock(&sp->w.lock);
	sp->w.live.finished = 1;
	pthread_mutex_unlock(&sp->w.lock);
	test_wake(sp->test);
	return NULL;
}

int
stream_start_workers(struct iperf_test *test)
{
	struct iperf_stream *sp;
	sigset_t all, old;
	int rc;

	placement_plan(test);
	sigfillset(&all);
	if (pthread_sigmask(SIG_SETMASK, &all, &old) != 0)
		return iperf_fail(test, IEPTHREADSIGMASK, errno);
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		atomic_store(&sp->w.stop, 0);
		rc = pthread_create(&sp->w.thread, NULL, worker_main, sp);
		if (rc != 0) {
			(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
			return iperf_fail(test, IEPTHREADCREATE, rc);
		}
		sp->w.thread_started = 1;
	}
	if (pthread_sigmask(SIG_SETMASK, &old, NULL) != 0)
		return iperf_fail(test, IEPTHREADSIGMASK, errno);
	return 0;
}

void
stream_signal_stop(struct iperf_test *test)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		/* Set under the lock the sleeper checks it under: the wake-up
		 * cannot fall between its check and its wait. */
		pthread_mutex_lock(&sp->w.lock);
		atomic_store(&sp->w.stop, 1);
		pthread_cond_broadcast(&sp->w.wake);
		pthread_mutex_unlock(&sp->w.lock);
	}
}

/* Wait until the worker has left its loop, at most until deadline_us;
 * then join it.  0 when joined, -1 if it is still running. */
static int
join_until(struct iperf_stream *sp, uint64_t deadline_us)
{
	uint64_t nap = 1000;

	for (;;) {
		struct stream_live l;

		stream_snapshot(sp, &l);
		if (l.finished)
			break;
		if (iperf_time_now_us() >= deadline_us)
			return -1;
		iperf_time_sleep_until(iperf_time_now_us() + nap);
		if (nap < 20000)
			nap *= 2;
	}
	(void)pthread_join(sp->w.thread, NULL);
	sp->w.thread_started = 0;
	return 0;
}

void
stream_stop_workers(struct iperf_test *test, int shut)
{
	struct iperf_stream *sp;
	uint64_t deadline;

	stream_signal_stop(test);
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (!sp->w.thread_started)
			continue;
		/* Wake a worker blocked in send/recv.  Without `shut` the peer
		 * is not disturbed beyond an end of stream: a receiver stops
		 * reading (SHUT_RD), a sender sends its FIN (SHUT_WR). */
		/* --rr: a client waiting for an answer that will not come,
		 * a server waiting for a request. */
		if (shut || sp->rr != NULL)
			(void)shutdown(sp->socket, SHUT_RDWR);
		else if (sp->sender)
			(void)shutdown(sp->socket, SHUT_WR);
		else if (!stream_io_has_sink(sp))
			(void)shutdown(sp->socket, SHUT_RD);
		/* a -F receiver drains by itself (stream_io.h) */
	}
	deadline = iperf_time_now_us() + IPERF_JOIN_GRACE_US;
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (!sp->w.thread_started || join_until(sp, deadline) == 0)
			continue;
		/* Still blocked (a transport that ignored the half shutdown):
		 * both ways now, then as a last resort cancel the thread. */
		(void)shutdown(sp->socket, SHUT_RDWR);
		if (join_until(sp, iperf_time_now_us() + IPERF_JOIN_GRACE_US) == 0)
			continue;
		(void)pthread_cancel(sp->w.thread);
		(void)pthread_join(sp->w.thread, NULL);
		sp->w.thread_started = 0;
	}
}

ssize_t
stream_step(struct iperf_stream *sp)
{
	ssize_t n;
	int ready;

	if (sp->rr != NULL)
		return rr_step(sp);
	if (sp->sender) {
		ready = stream_io_next(sp);
		if (ready <= 0)
			return ready == 0 ? 0 :
			    iperf_fail(sp->test, IEFILE, errno);
		sp->xmit_blocks = 0; /* a whole batch */
		n = sp->test->proto->send(sp);
		if (n < 0)
			return iperf_fail(sp->test, IESTREAMWRITE, errno);
		if (n > 0)
			worker_count_sent(sp, (size_t)n, 0);
		return n;
	}
	n = sp->test->proto->recv(sp);
	if (n < 0)
		return iperf_fail(sp->test, IESTREAMREAD, errno);
	if (n > 0 && stream_io_store(sp, (size_t)n) == -1)
		return iperf_fail(sp->test, IEFILE, errno);
	return n;
}

/* Bytes in the socket's send queue (a slow path still drains it while a
 * big block sits in one send call), or -1. */
static int
send_queue(int fd)
{
	int v = -1;

#ifdef TIOCOUTQ
	if (ioctl(fd, TIOCOUTQ, &v) == -1)
		v = -1;
#else
	(void)fd;
#endif
	return v;
}

uint64_t
stream_send_stalled_us(struct iperf_stream *sp, uint64_t now_us)
{
	struct stream_live l;
	int outq;

	if (!sp->sender || !sp->w.thread_started)
		return 0;
	stream_snapshot(sp, &l);
	outq = send_queue(sp->socket);
	if (sp->stall_since_us == 0 || !atomic_load(&sp->w.in_send) ||
	    l.bytes != sp->stall_bytes || outq != sp->stall_outq) {
		sp->stall_bytes = l.bytes;
		sp->stall_outq = outq;
		sp->stall_since_us = now_us;
		return 0;
	}
	return now_us > sp->stall_since_us ? now_us - sp->stall_since_us : 0;
}

int
stream_any_send_stalled(struct iperf_test *test, uint64_t now_us,
    uint64_t limit_us)
{
	struct iperf_stream *sp;
	int stalled = 0;

	/* Every sender is looked at, so each keeps its baseline current. */
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (stream_send_stalled_us(sp, now_us) > limit_us)
			stalled = 1;
	}
	return stalled;
}
