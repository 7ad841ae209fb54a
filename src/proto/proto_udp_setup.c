/* proto_udp_setup.c - a UDP stream's socket set up for its direction
 * (proto_udp_int.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_OWD
#include "ext.h"
#endif
#include "iperf.h"
#include "iperf_time.h"
#include "notes.h"
#include "proto_udp_int.h"
#include "stream.h"
#include "stream_io.h"
#include "banned.h"

int
udp_get_buf(int fd, int opt)
{
	int v = 0;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, opt, &v, &len) == -1)
		return -1;
	return v;
}

/* ---- GSO / GRO (--gsro) ------------------------------------------------- */

/* Sender: one send carries several datagrams, cut by the kernel (where
 * GSO was granted). */
#ifdef HAVE_OWD
/* --owd negotiated (ext.h owd): both ends are ours. */
static int
udp_owd_on(const struct iperf_stream *sp)
{
	return sp->test->opt->owd ||
	    (sp->test->settings.ext_want & EXT_OWD) != 0;
}
#endif

#ifdef HAVE_UDPFEEDBACK
/* udp_offload's drop reports (udp_wire.h), unless IPERF3_UDP_FEEDBACK
 * is "0": a sender heeds them, a receiver that counts its socket's drops
 * sends them. */
static void
fb_setup(struct iperf_stream *sp, struct udp_ctx *c)
{
	const char *env = getenv("IPERF3_UDP_FEEDBACK");

	c->fb = sp->test->run.udp_offload && sp->test->settings.rate == 0 &&
	    (sp->sender || c->rxq_ovfl) &&
	    !(env != NULL && strcmp(env, "0") == 0);
	if (c->fb && sp->sender)
		backoff_init(&c->bo, iperf_time_now_us());
}
#else
#define fb_setup(sp, c) ((void)(sp), (void)(c))
#endif

void
udp_tx_setup(struct iperf_stream *sp, struct udp_ctx *c)
{
	fb_setup(sp, c);
#ifdef HAVE_OWD
	c->owd = udp_owd_on(sp);
#endif
#ifdef HAVE_UDP_GSO
	const struct iperf_settings *s = &sp->test->settings;
	size_t bf = s->gso_bf_size > 0 ? (size_t)s->gso_bf_size :
					   UDP_GSO_MAX_BYTES;
	size_t i, segs = udp_gso_segments(bf, sp->blksize,
	    UDP_GSO_MAX_SEGMENTS);
	int seg = (int)sp->blksize;

	/* udp_offload is negotiated only at -b 0 (ext.h). */
	if (!s->gso && !sp->test->run.udp_offload)
		return;
	if (segs < 2)
		return;
	c->gso_buf = malloc(segs * sp->blksize);
	if (c->gso_buf == NULL)
		return;
	if (setsockopt(sp->socket, SOL_UDP, UDP_SEGMENT, &seg,
		sizeof(seg)) == -1) {
		note_add(sp->test, NOTE_DEBUG, "UDP GSO not available: %s",
		    strerror(errno));
		free(c->gso_buf);
		c->gso_buf = NULL;
		return;
	}
	for (i = 0; i < segs; i++)
		memcpy(c->gso_buf + i * sp->blksize, sp->buffer, sp->blksize);
	c->gso_segs = segs;
	sp->xmit_len = segs * sp->blksize;
#else
	(void)sp;
	(void)c;
#endif
}

/* The path refused a GSO send (no checksum offload...): plain sends. */
void
udp_gso_off(struct iperf_stream *sp, struct udp_ctx *c)
{
#ifdef HAVE_UDP_GSO
	int zero = 0;

	(void)setsockopt(sp->socket, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero));
#endif
	free(c->gso_buf);
	c->gso_buf = NULL;
	c->gso_segs = 0;
	sp->xmit_len = sp->blksize;
}

/* Receiver: the kernel may hand over several datagrams at once. */
static void
gro_setup(struct iperf_stream *sp, struct udp_ctx *c)
{
#ifdef HAVE_UDP_GRO
	int one = 1;

	if (!sp->test->settings.gro && !sp->test->run.udp_offload)
		return;
	c->gro_buf = malloc(UDP_GRO_BUF_BYTES);
	if (c->gro_buf == NULL)
		return;
	if (setsockopt(sp->socket, SOL_UDP, UDP_GRO, &one, sizeof(one)) == -1) {
		note_add(sp->test, NOTE_DEBUG, "UDP GRO not available: %s",
		    strerror(errno));
		free(c->gro_buf);
		c->gro_buf = NULL;
	}
#else
	(void)sp;
	(void)c;
#endif
}

/* Receiver: the kernel's drop count of the socket comes with each
 * buffer received (lost_in_receiver). */
static void
rxq_ovfl_setup(struct iperf_stream *sp, struct udp_ctx *c)
{
#ifdef SO_RXQ_OVFL
	int one = 1;

	if (setsockopt(sp->socket, SOL_SOCKET, SO_RXQ_OVFL, &one,
		sizeof(one)) == 0) {
		c->rxq_ovfl = 1;
		sp->rxq_drops_known = 1;
	}
#else
	(void)sp;
	(void)c;
#endif
}

/*
 * Receiver: the kernel's arrival time of every buffer (SO_TIMESTAMPNS),
 * so that datagrams read in one recvmmsg() call keep arrival times of
 * their own (jitter and delay variation are per datagram, udp_acct.h),
 * and a late wake-up of this thread is not the path's delay.  Those times
 * are CLOCK_REALTIME; without them the receiver reads CLOCK_MONOTONIC
 * once per call, as before.  The difference of two transits is what
 * counts, so the sender's clock may be any.
 */
static void
kts_setup(struct iperf_stream *sp, struct udp_ctx *c)
{
#ifdef SO_TIMESTAMPNS
	int one = 1;

	if (setsockopt(sp->socket, SOL_SOCKET, SO_TIMESTAMPNS, &one,
		sizeof(one)) == 0)
		c->kts = 1;
#else
	(void)sp;
	(void)c;
#endif
}

/* Datagrams per receive call: what arrives at the -b rate in about twice
 * the longest linger (rate / 4096 bytes: 2 ms at UDP_LINGER_US 1000), at
 * most UDP_RECV_BATCH_BYTES, within UDP_RECV_BATCH_MIN..._MAX. */
static size_t
batch_count(const struct iperf_stream *sp)
{
	uint64_t bytes = sp->test->settings.rate >> 12;
	size_t n = (bytes < UDP_RECV_BATCH_BYTES ? (size_t)bytes :
	    UDP_RECV_BATCH_BYTES) / sp->blksize + 1;

	return n < UDP_RECV_BATCH_MIN ? UDP_RECV_BATCH_MIN :
	    n > UDP_RECV_BATCH_MAX ? UDP_RECV_BATCH_MAX : n;
}

/* Receiver without GRO: recvmmsg() takes what is queued, up to
 * batch_count() datagrams (their control messages too), in one call;
 * not with a -F sink, which writes what sp->buffer holds.  One
 * allocation: the batch, then its arrays, then the blocks (every part a
 * multiple of the alignment the next needs). */
static void
batch_setup(struct iperf_stream *sp, struct udp_ctx *c)
{
#ifdef HAVE_UDP_BATCH
	struct udp_batch *b;
	size_t i, n = batch_count(sp);

	if (c->gro_buf != NULL || stream_io_has_sink(sp))
		return;
	b = calloc(1, sizeof(*b) + n * (sizeof(*b->mm) + sizeof(*b->ctl) +
	    sizeof(*b->iov) + sp->blksize));
	if (b == NULL)
		return;
	b->n = n;
	b->mm = (struct mmsghdr *)(b + 1);
	b->ctl = (union udp_rx_ctl *)(b->mm + n);
	b->iov = (struct iovec *)(b->ctl + n);
	b->data = (unsigned char *)(b->iov + n);
	for (i = 0; i < n; i++) {
		b->iov[i].iov_base = b->data + i * sp->blksize;
		b->iov[i].iov_len = sp->blksize;
		b->mm[i].msg_hdr.msg_iov = &b->iov[i];
		b->mm[i].msg_hdr.msg_iovlen = 1;
		b->mm[i].msg_hdr.msg_control = b->ctl[i].buf;
	}
	c->batch = b;
#else
	(void)sp;
	(void)c;
#endif
}

/*
 * Receiver without -w: a socket buffer for UDP_RCVBUF_SPAN_US at the -b
 * rate (UDP_RCVBUF_MAX when unlimited), so a busy moment of this host
 * does not drop datagrams the network delivered.  Never smaller than the
 * system's default.  Where the kernel caps it (net.core.rmem_max), a
 * process allowed to (CAP_NET_ADMIN: root) sets it past the cap with
 * SO_RCVBUFFORCE (-b 0 between two namespaces and on loopback: loss from
 * 0.3-1.3 % to 0.00 % over 10 runs, with 32 MB against 4 MB), else -V
 * says it was capped.  start.rcvbuf_actual was read before, as stock
 * reads it.
 */
static void
rcvbuf_for_rate(struct iperf_stream *sp)
{
	const struct iperf_settings *s = &sp->test->settings;
	double want_d = s->rate > 0 ?
	    (double)s->rate / 8.0 * UDP_RCVBUF_SPAN_US / 1e6 : UDP_RCVBUF_MAX;
	int want, have = udp_get_buf(sp->socket, SO_RCVBUF);

	if (s->socket_bufsize > 0 || have < 0)
		return;
	want = want_d > UDP_RCVBUF_MAX ? UDP_RCVBUF_MAX : (int)want_d;
	if (want <= have / 2) /* Linux reports twice what was set */
		return;
	(void)setsockopt(sp->socket, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
	have = udp_get_buf(sp->socket, SO_RCVBUF);
#ifdef SO_RCVBUFFORCE
	/* Past net.core.rmem_max where this process may (CAP_NET_ADMIN). */
	if (have >= 0 && have / 2 < want &&
	    setsockopt(sp->socket, SOL_SOCKET, SO_RCVBUFFORCE, &want,
		sizeof(want)) == 0) {
		have = udp_get_buf(sp->socket, SO_RCVBUF);
		note_add(sp->test, NOTE_VERBOSE, "UDP receive buffer: %d "
		    "bytes, past net.core.rmem_max",
		    have >= 0 ? have / 2 : want);
	}
#endif
	if (have >= 0 && have / 2 < want)
		note_add(sp->test, NOTE_VERBOSE,
		    "UDP receive buffer: asked for %d bytes, the system allows %d "
		    "(net.core.rmem_max)", want, have / 2);
}

/* Batched receiver at a known rate with kernel arrival times: how long
 * to let datagrams queue after a short call (UDP_LINGER_US). */
static void
linger_setup(struct iperf_stream *sp, struct udp_ctx *c)
{
	const struct iperf_settings *s = &sp->test->settings;
	const char *env = getenv("IPERF3_UDP_LINGER");
	int have = udp_get_buf(sp->socket, SO_RCVBUF);
	double bytes_us, hold_us;

	c->linger_us = 0;
	if (c->batch == NULL || !c->kts || s->rate == 0 || have <= 0 ||
	    (env != NULL && strcmp(env, "0") == 0))
		return;
	bytes_us = (double)s->rate / 8.0 / 1e6 * 2.0;
	hold_us = (double)have / bytes_us / UDP_LINGER_HOLD;
	c->linger_us = hold_us >= UDP_LINGER_US ? UDP_LINGER_US :
	    hold_us >= UDP_LINGER_MIN_US ? (uint64_t)hold_us : 0;
	if (c->linger_us > 0 && sp == sp->test->run.streams)
		note_add(sp->test, NOTE_VERBOSE, "UDP receiver: after a short "
		    "read, lets datagrams queue for %llu us",
		    (unsigned long long)c->linger_us);
}

void
udp_rx_setup(struct iperf_stream *sp, struct udp_ctx *c)
{
	rcvbuf_for_rate(sp);
	gro_setup(sp, c);
	rxq_ovfl_setup(sp, c);
	kts_setup(sp, c);
	batch_setup(sp, c);
	linger_setup(sp, c);
	fb_setup(sp, c);
#ifdef HAVE_OWD
	c->owd = udp_owd_on(sp);
#endif
}

void
udp_ctx_release(struct udp_ctx *c)
{
	free(c->gso_buf);
	free(c->gro_buf);
	free(c->batch);
}
