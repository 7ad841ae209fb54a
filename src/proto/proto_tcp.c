/* proto_tcp.c - the TCP transport: cookie-prefixed data connections. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "net.h"
#include "placement.h"
#include "proto.h"
#include "stream.h"
#include "stream_io.h"
#include "test.h"
#include "banned.h"

#ifndef MSG_TRUNC
#define MSG_TRUNC 0 /* --skip-rx-copy then copies, as a plain receive */
#endif

/*
 * Receiver wake-ups: a receiver woken for every segment spends its CPU
 * on wake-ups (on loopback the sender's CPU delivers each segment).  So
 * the receiver sets SO_RCVLOWAT to what arrives in TCP_LOWAT_SPAN_US at
 * the rate it measures, at most TCP_LOWAT_MAX and a quarter of its
 * buffer: a fast flow is read in large pieces, and bytes wait at most
 * about that span (at most TCP_LOWAT_MAX bytes) before they are counted,
 * so interval figures stay exact to well under 0.1 %.  The rate is
 * measured again every TCP_LOWAT_EVERY_US.  On every stream when the
 * peer is on another host (placement.h); on this host only for a test of
 * one stream: with several, each receiver already finds data waiting when
 * it gets the CPU, and a low-water mark measured slower on loopback (-P 2
 * and -P 8 on two CPUs: 5-20 % less).  Never with blocks under
 * PLACEMENT_LOWAT_MIN_BLOCK (-l): such a sender's CPU is the limit, and
 * data left waiting in the receive queue makes each arriving segment
 * dearer to take in, on the sending side's CPU (it is coalesced into the
 * queue: TCPRcvCoalesce 183,000 in 3 s against 5,600 without the mark).
 * Measured 2026-11-29, our client into our server with and without the
 * mark: between two namespaces -l 3K 1.00 -> 1.26 Gbit/s, 4K 1.33 ->
 * 1.70 (3.21: 1.64), 6K 1.92 -> 2.28, 8K level, 16K level, 32K and up
 * the mark ahead (64K: 21.7 against 17.1); on loopback 2K 9.4 -> 10.8,
 * 4K 12.8 -> 17.3, 8K 18.5 -> 21.0, 16K level.  (Between the namespaces
 * 2K read 0.96 with the mark and 0.85 without, 3.21 0.81.)
 */
#define TCP_LOWAT_SPAN_US 250
#define TCP_LOWAT_MAX (256 * 1024)
#define TCP_LOWAT_EVERY_US 2000

struct tcp_ctx {
	uint64_t since_us; /* start of the current measurement */
	uint64_t bytes;    /* received since then */
	int lowat;         /* current SO_RCVLOWAT (1: the default) */
	int cap;           /* its bound: TCP_LOWAT_MAX, a quarter of rcvbuf */
};

/*
 * A sender whose receiver is on the same host keeps at most
 * TCP_LOCAL_NOTSENT bytes queued and not yet sent (TCP_NOTSENT_LOWAT).
 * There the receiver's acknowledgements run the sender's transmissions
 * on the receiver's CPU whenever the window, not the sender, holds data
 * back: a long queue of unsent bytes moves the sender's work onto the
 * receiver and both slow down (loopback -P 2 on two CPUs: about a fifth
 * faster with the bound).  Bytes already sent are not counted, so the
 * window is never limited; a remote peer's connection is left as it is.
 */
#define TCP_LOCAL_NOTSENT (512 * 1024)

/* Data connections have no connect timeout upstream; ours is bounded. */
#define TCP_DATA_CONNECT_TIMEOUT_MS 30000

/* --snd-timeout: TCP_USER_TIMEOUT on the data connections too. */
static int
tcp_set_user_timeout(const struct iperf_test *test, int fd,
    struct sockopt_fail *f)
{
	if (test->opt->snd_timeout_ms <= 0)
		return 0;
	if (net_set_user_timeout(fd, test->opt->snd_timeout_ms) == -1)
		return sockopt_fail(f, IESETUSERTIMEOUT, errno);
	return 0;
}

/* net/'s callback on a data socket before it connects (arg: struct
 * sockopt_call). */
static int
tcp_setopts(int fd, int family, void *arg)
{
	struct sockopt_call *call = arg;
	struct iperf_test *test = call->test;

	if (proto_def_sockopts(test, fd, family, &call->fail) == -1 ||
	    proto_def_check_window(test, fd, &call->fail) == -1)
		return -1;
	/* As 3.21 reports them: the first stream's buffers once -w is
	 * applied and before connecting (autotuning grows them after). */
	if (test->run.streams == NULL)
		net_get_bufsizes(fd, &test->run.sndbuf_actual, &test->run.rcvbuf_actual);
	return tcp_set_user_timeout(test, fd, &call->fail);
}

/* Options that must be on the listening socket before the SYN arrives
 * (arg: struct sockopt_call). */
static int
tcp_listen_setopts(int fd, int family, void *arg)
{
	struct sockopt_call *call = arg;
	const struct iperf_settings *s = &call->test->settings;
	int w = s->socket_bufsize;

	(void)family;
	if (s->mss > 0 && setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &s->mss,
			      sizeof(s->mss)) == -1)
		return sockopt_fail(&call->fail, IESETMSS, errno);
	if (w > 0 && (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof(w)) ==
			     -1 ||
			 setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof(w)) == -1))
		return sockopt_fail(&call->fail, IESETBUF, errno);
	return 0;
}

/* MPTCP for the data connections: this server was started with -m, or
 * the client asked for it (a plain TCP peer is served by the fallback of
 * the MPTCP stack). */
static int
data_mptcp(const struct iperf_test *test)
{
	return test->opt->mptcp || test->settings.mptcp;
}

/* -M, -w (and MPTCP asked by the client only) must be on the listening
 * socket before the SYN: such a test's streams come to a listener of its
 * own on the control port, which the server lends it until they are in. */
static int
tcp_port_needed(const struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;

	return s->mss > 0 || s->socket_bufsize > 0 ||
		    (data_mptcp(test) && !test->opt->mptcp) ?
	    PROTO_PORT_SETUP : PROTO_PORT_SHARED;
}

static int
tcp_listen(struct iperf_test *test)
{
	struct sockopt_call call = { test, { 0, 0, 0 } };
	struct net_listen_args a = { SOCK_STREAM,
		net_tcp_protocol(data_mptcp(test)), test->opt->domain,
		test->opt->bind_address, test_server_port(test),
		test->opt->bind_dev, tcp_listen_setopts, &call, 0 };
	int gai = 0, fd;

	if (tcp_port_needed(test) == PROTO_PORT_SHARED)
		return PROTO_LISTEN_CTRL;
	fd = net_listen_with(&a, &gai);
	if (fd == -1 && a.protocol != 0 && !test->opt->mptcp &&
	    (errno == EPROTONOSUPPORT || errno == ENOPROTOOPT)) {
		a.protocol = 0; /* only the client wished for MPTCP */
		fd = net_listen_with(&a, &gai);
	}
	if (fd == -1) {
		if (call.fail.code != 0)
			return sockopt_fail_test(test, &call.fail);
		return iperf_fail_net(test, IESTREAMLISTEN, gai);
	}
	/* As 3.21: -w not granted in full fails the test before streams. */
	if (proto_def_check_window(test, fd, &call.fail) == -1) {
		close(fd);
		return sockopt_fail_test(test, &call.fail);
	}
	return fd;
}

static int
tcp_accepted_opts(struct iperf_test *test, int fd, int family)
{
	struct sockopt_fail f = { 0, 0, 0 };

	if (proto_def_sockopts(test, fd, family, &f) == -1 ||
	    tcp_set_user_timeout(test, fd, &f) == -1 ||
	    proto_def_check_window(test, fd, &f) == -1)
		return sockopt_fail_test(test, &f);
	return 0;
}

/* The data options come after the cookie (tcp_adopt), as with 3.21: a
 * connection refused an option is closed once its cookie is read, so
 * that its client sees an orderly end rather than a reset. */
static int
tcp_accept(struct iperf_test *test, int listen_fd, int *ready,
    int *next_listener)
{
	int family;

	(void)next_listener;
	*ready = 0;
	return proto_def_accept(test, listen_fd, &family);
}

/* A data connection whose cookie was right: its data options.  (The
 * shared listener of a --max-tests server cannot carry one test's -w or
 * -M before the SYN: those come here too, after the handshake.) */
static int
tcp_adopt(struct iperf_test *test, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1 ||
	    net_set_nonblocking(fd, 0) == -1)
		return iperf_fail(test, IESTREAMACCEPT, errno);
	return tcp_accepted_opts(test, fd, ss.ss_family);
}

static int
tcp_connect(struct iperf_test *test, int index)
{
	struct sockopt_call call = { test, { 0, 0, 0 } };
	struct net_dial_args a;

	memset(&a, 0, sizeof(a));
	a.type = SOCK_STREAM;
	a.protocol = net_tcp_protocol(test->settings.mptcp);
	a.domain = test->opt->domain;
	a.local = test->opt->bind_address;
	a.local_port = test->opt->bind_port > 0 ? test->opt->bind_port + index : 0;
	a.bind_dev = test->opt->bind_dev;
	a.server = test->opt->server_hostname;
	a.port = test->opt->server_port;
	a.timeout_ms = test->opt->connect_timeout_ms >= 0 ?
	    test->opt->connect_timeout_ms : TCP_DATA_CONNECT_TIMEOUT_MS;
	a.setopts = tcp_setopts;
	a.setopts_arg = &call;
	a.flowlabel = test->settings.flowlabel;
	return proto_def_dial(test, &a);
}

/* A batch (sp->xmit_blocks > 1, see placement.h): the block, that many
 * times, in one call; only from the start of a block held in memory. */
#define TCP_BATCH_MAX 16

static ssize_t
tcp_send(struct iperf_stream *sp)
{
	if (sp->io.zerocopy)
		return stream_io_sendfile(sp);
	if (sp->xmit_blocks > 1 && sp->io.off == 0 && sp->io.file_fd < 0) {
		struct iovec iov[TCP_BATCH_MAX];
		struct msghdr msg;
		size_t i, k = sp->xmit_blocks < TCP_BATCH_MAX ?
		    sp->xmit_blocks : TCP_BATCH_MAX;

		for (i = 0; i < k; i++) {
			iov[i].iov_base = sp->buffer;
			iov[i].iov_len = sp->io.len;
		}
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		/* size_t in glibc, int in musl */
		msg.msg_iovlen = (__typeof__(msg.msg_iovlen))k;
		return sendmsg(sp->socket, &msg, MSG_NOSIGNAL);
	}
	return send(sp->socket, stream_io_data(sp), stream_io_left(sp),
	    MSG_NOSIGNAL);
}

static int
tcp_stream_init(struct iperf_stream *sp)
{
	struct tcp_ctx *c;
	int rcv = 0;
	socklen_t len = sizeof(rcv);

	if (sp->sender) {
#ifdef TCP_NOTSENT_LOWAT
		int lowat = TCP_LOCAL_NOTSENT;

		if (placement_peer_here(sp))
			(void)setsockopt(sp->socket, IPPROTO_TCP,
			    TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat));
#endif
		return 0;
	}
	/* Not where every byte must be read as soon as it is there: a -F
	 * file (its last bytes would wait below the mark when the sender
	 * stops) or a -n/-k count. */
	if (sp->sender || (sp->test->settings.num_streams != 1 &&
		placement_peer_here(sp)) ||
	    stream_io_has_sink(sp) || sp->test->settings.bytes != 0 ||
	    sp->test->settings.blocks != 0 ||
	    sp->blksize < PLACEMENT_LOWAT_MIN_BLOCK)
		return 0;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return iperf_fail(sp->test, IEINITSTREAM, ENOMEM);
	c->lowat = 1;
	c->cap = TCP_LOWAT_MAX;
	if (getsockopt(sp->socket, SOL_SOCKET, SO_RCVBUF, &rcv, &len) == 0 &&
	    sp->test->settings.socket_bufsize > 0 && rcv / 4 < c->cap)
		c->cap = rcv / 4; /* -w: the buffer will not grow */
	sp->proto_ctx = c;
	return 0;
}

static void
tcp_stream_release(struct iperf_stream *sp)
{
	free(sp->proto_ctx);
	sp->proto_ctx = NULL;
}

/* Every TCP_LOWAT_EVERY_US: SO_RCVLOWAT for the rate just measured. */
static void
tcp_adapt_lowat(struct iperf_stream *sp, struct tcp_ctx *c, size_t n)
{
	uint64_t now = iperf_time_now_us();
	uint64_t span;
	double want;
	int lowat;

	c->bytes += n;
	if (c->since_us == 0)
		c->since_us = now;
	span = now - c->since_us;
	if (span < TCP_LOWAT_EVERY_US)
		return;
	want = (double)c->bytes * TCP_LOWAT_SPAN_US / (double)span;
	lowat = want >= c->cap ? c->cap : want < 1 ? 1 : (int)want;
	c->since_us = now;
	c->bytes = 0;
	/* Only a real change is worth a system call. */
	if (lowat == c->lowat || (lowat > c->lowat * 3 / 4 &&
	    lowat < c->lowat + c->lowat / 4))
		return;
	if (setsockopt(sp->socket, SOL_SOCKET, SO_RCVLOWAT, &lowat,
		sizeof(lowat)) == 0)
		c->lowat = lowat;
}

static ssize_t
tcp_recv(struct iperf_stream *sp)
{
	/* --skip-rx-copy: the kernel drops the bytes and says how many. */
	int flags = sp->io.rx_discard ? MSG_TRUNC : 0;
	ssize_t n = recv(sp->socket, sp->buffer, sp->blksize, flags);

	if (n > 0) {
		stream_count_rx(sp, (uint64_t)n);
		if (sp->proto_ctx != NULL)
			tcp_adapt_lowat(sp, sp->proto_ctx, (size_t)n);
	}
	return n;
}

const struct iperf_proto_ops proto_tcp = {
	.id = SOCK_STREAM,
	.name = "TCP",
	.flags = PROTO_F_RETRANSMITS | PROTO_F_COOKIE | PROTO_F_CONGESTION |
	    PROTO_F_ZEROCOPY,
	.default_blksize = DEFAULT_TCP_BLKSIZE,
	.sock_type = SOCK_STREAM,
	.sock_protocol = 0,
	.port_needed = tcp_port_needed,
	.listen = tcp_listen,
	.accept = tcp_accept,
	.adopt = tcp_adopt,
	.connect = tcp_connect,
	.stream_init = tcp_stream_init,
	.stream_release = tcp_stream_release,
	.send = tcp_send,
	.recv = tcp_recv,
};
