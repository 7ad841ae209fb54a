/* proto_udp.c - the UDP transport: hello exchange, datagrams, accounting. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "delayvar.h"
#include "ext.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "net.h"
#include "proto.h"
#include "notes.h"
#include "stream.h"
#include "stream_io.h"
#include "test.h"
#include "udp_acct.h"
#include "udp_wire.h"
#include "banned.h"

#include "proto_udp_int.h"

/* ---- socket options ------------------------------------------------------ */

/* -w on both ends; otherwise make sure a whole datagram fits. */
static int
udp_buffers(struct iperf_test *test, int fd, struct sockopt_fail *f)
{
	int blk = test->settings.blksize;
	int w = test->settings.socket_bufsize;
	int snd, rcv;

	if (w > 0) {
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof(w)) == -1 ||
		    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof(w)) == -1)
			return sockopt_fail(f, IESETBUF, errno);
	}
	snd = udp_get_buf(fd, SO_SNDBUF);
	rcv = udp_get_buf(fd, SO_RCVBUF);
	if (w <= 0 && (snd < blk || rcv < blk)) {
		int want = blk + 1024;
		note_add(test, NOTE_WARNING, "Increasing socket buffer size to %d", want);
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof(want));
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
		snd = udp_get_buf(fd, SO_SNDBUF);
		rcv = udp_get_buf(fd, SO_RCVBUF);
	}
	if (snd >= 0 && blk > snd)
		note_add(test, NOTE_WARNING, "Block size %d > sending socket buffer size %d",
		    blk, snd);
	if (rcv >= 0 && blk > rcv)
		note_add(test, NOTE_WARNING,
		    "Block size %d > receiving socket buffer size %d", blk, rcv);
	return 0;
}

static int
udp_dont_fragment(const struct iperf_test *test, int fd,
    struct sockopt_fail *f)
{
#if defined(IP_MTU_DISCOVER) && defined(IP_PMTUDISC_DO)
	int v = IP_PMTUDISC_DO;

	if (!test->settings.dont_fragment)
		return 0;
	if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v)) == -1)
		return sockopt_fail(f, IESETDONTFRAGMENT, errno);
#else
	if (test->settings.dont_fragment)
		return sockopt_fail(f, IESETDONTFRAGMENT, 0);
#endif
	return 0;
}

static int
set_rcv_timeout(int fd, int seconds)
{
	struct timeval tv = { .tv_sec = seconds, .tv_usec = 0 };

	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Options every data socket gets, before the hello (net/'s callback;
 * arg: struct sockopt_call). */
static int
udp_sockopts(int fd, int family, void *arg)
{
	struct sockopt_call *call = arg;
	struct iperf_test *test = call->test;

	if (udp_buffers(test, fd, &call->fail) == -1 ||
	    proto_def_check_window(test, fd, &call->fail) == -1)
		return -1;
	return proto_def_sockopts(test, fd, family, &call->fail);
}

/* ---- client -------------------------------------------------------------- */

/*
 * While a stream waits for the server's reply, the server may give up on
 * the test instead (it cannot apply an option to the stream's socket, it
 * is stopped): the control connection then holds SERVER_ERROR,
 * SERVER_TERMINATE or ACCESS_DENIED, or has ended.  1 if so (the client
 * reads it); 0 if it holds something else (a --latency probe answer:
 * not watched any more in this wait, *watch = 0).
 */
static int
ctrl_has_end(int ctrl, int *watch)
{
	int b = net_peek_byte(ctrl);

	if (b == NET_PEEK_NONE)
		return 0;
	if (b == NET_PEEK_END || (signed char)b == SERVER_ERROR ||
	    (signed char)b == SERVER_TERMINATE || (signed char)b == ACCESS_DENIED)
		return 1;
	*watch = 0;
	return 0;
}

/* Wait for the server's reply; in reverse mode, stray data may come
 * first.  0, -1 (error on the test), or PROTO_CONNECT_CTRL: the control
 * connection has the server's last word (ctrl_has_end). */
static int
await_reply(struct iperf_test *test, int fd, int first)
{
	unsigned char buf[UDP_HELLO_OFFLOAD_LEN];
	size_t seen = 0, limit = UDP_HELLO_LEN;
	/* Each recv() waits at most UDP_HELLO_TIMEOUT_S (SO_RCVTIMEO); stray
	 * datagrams cannot stretch the whole wait beyond that either. */
	uint64_t deadline = iperf_time_now_us() +
	    (uint64_t)UDP_HELLO_TIMEOUT_S * USEC_PER_SEC;

	int watch = test->run.ses.ctrl_sck >= 0;

	if (test->settings.reverse && !test->settings.bidirectional)
		limit += 2 * (size_t)test->settings.blksize;
	while (seen < limit) {
		ssize_t n;
		struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN },
			{ .fd = test->run.ses.ctrl_sck, .events = POLLIN } };

		/* A signal or iperf_test_interrupt() ends the wait at once. */
		if (test->interrupted)
			return iperf_fail(test, IESTREAMREAD, EINTR);
		if (iperf_time_now_us() >= deadline)
			return iperf_fail(test, IESTREAMREAD, ETIMEDOUT);
		if (poll(pfd, watch ? 2 : 1, NET_WAIT_SLICE_MS) <= 0)
			continue;
		if (watch && pfd[1].revents != 0 &&
		    ctrl_has_end(test->run.ses.ctrl_sck, &watch))
			return PROTO_CONNECT_CTRL;
		if (pfd[0].revents == 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n == -1)
			return iperf_fail(test, IESTREAMREAD, errno);
		if (udp_hello_is_reply(buf, (size_t)n)) {
			/* Offload only if every stream's reply grants it. */
			int granted = (ext_client_wants(test) & EXT_UDP_OFFLOAD) &&
			    udp_hello_grants_offload(buf, (size_t)n);

			test->run.udp_offload = first ? granted :
			    test->run.udp_offload && granted;
			return 0;
		}
		seen += (size_t)n < UDP_HELLO_LEN ? (size_t)n : UDP_HELLO_LEN;
		if (limit == UDP_HELLO_LEN)
			break;
	}
	return iperf_fail(test, IESTREAMREAD, EPROTO);
}

#ifdef HAVE_MULTICAST
/* --multicast: udp_sockopts, then the group's (proto_udp_mcast.c). */
static int
udp_mcast_sockopts(int fd, int family, void *arg)
{
	struct sockopt_call *call = arg;

	if (udp_sockopts(fd, family, arg) == -1)
		return -1;
	return udp_mcast_client_opts(call->test, fd, family);
}

/* --multicast: a socket connected to the group; no hello (nobody
 * answers for a group). */
static int
udp_connect_group(struct iperf_test *test, struct net_dial_args *a)
{
	int gai = 0, fd;
	struct sockopt_call *call = a->setopts_arg;

	a->server = test->settings.mcast_group;
	a->setopts = udp_mcast_sockopts;
	fd = net_dial(a, &gai);
	if (fd == -1) {
		if (call->fail.code != 0)
			return sockopt_fail_test(test, &call->fail);
		if (gai == 0)
			return iperf_fail(test, IEMCASTJOIN, errno);
		return iperf_fail_net(test, IESTREAMCONNECT, gai);
	}
	return fd;
}
#endif

static int
udp_connect(struct iperf_test *test, int index)
{
	struct sockopt_call call = { test, { 0, 0, 0 } };
	struct net_dial_args a;
	int gai = 0, fd, err, rc;

	memset(&a, 0, sizeof(a));
	a.type = SOCK_DGRAM;
	a.domain = test->opt->domain;
	a.local = test->opt->bind_address;
	a.local_port = test->opt->bind_port > 0 ? test->opt->bind_port + index : 0;
	a.bind_dev = test->opt->bind_dev;
	a.server = test->opt->server_hostname;
	a.port = test->opt->server_port;
	a.timeout_ms = -1;
	a.setopts = udp_sockopts;
	a.setopts_arg = &call;
	a.stop = &test->interrupted;
#ifdef HAVE_MULTICAST
	if (test->settings.mcast_group != NULL)
		return udp_connect_group(test, &a);
#endif
	fd = net_dial(&a, &gai);
	if (fd == -1) {
		if (call.fail.code != 0)
			return sockopt_fail_test(test, &call.fail);
		return iperf_fail_net(test, IESTREAMCONNECT, gai);
	}
	if (set_rcv_timeout(fd, UDP_HELLO_TIMEOUT_S) == -1 ||
	    send(fd, udp_hello_client, UDP_HELLO_LEN, 0) == -1) {
		err = errno;
		close(fd);
		return iperf_fail(test, IESTREAMWRITE, err);
	}
	rc = await_reply(test, fd, index == 0);
	if (rc == 0 && udp_dont_fragment(test, fd, &call.fail) == -1)
		rc = sockopt_fail_test(test, &call.fail);
	if (rc != 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* After the control connection: choose the datagram size from its MSS. */
static int
udp_client_init(struct iperf_test *test)
{
	struct iperf_settings *s = &test->settings;
	int mss = test->run.cli.ctrl_mss;

	if (s->blksize_set && s->blksize > 0) {
		if (mss > 0 && s->blksize > mss)
			note_add(test, NOTE_WARNING,
			    "UDP block size %d exceeds TCP MSS %d, may result in fragmentation / drops",
			    s->blksize, mss);
	} else {
		if (mss <= 0 || mss > IPERF_MAX_UDP_BLOCKSIZE) {
			if (mss != 0)
				note_add(test, NOTE_WARNING,
				    "Ignoring nonsense TCP MSS %d", mss);
			s->blksize = DEFAULT_UDP_BLKSIZE;
		} else {
			s->blksize = mss;
		}
		note_add(test, NOTE_VERBOSE, "Setting UDP block size to %d",
		    s->blksize);
	}
	/* --gsro: GSO segments are whole datagrams of `len` bytes. */
	if (test->opt->gsro) {
		s->gso_dg_size = s->blksize;
		s->gso_bf_size = udp_gso_buffer_size(s->blksize);
	}
	return 0;
}

/* ---- server -------------------------------------------------------------- */

static int
udp_bind_listener(struct iperf_test *test)
{
	int gai = 0;
	int fd = net_listen(SOCK_DGRAM, test->opt->domain, test->opt->bind_address,
	    test_server_port(test), test->opt->bind_dev, NULL, NULL, &gai);

	if (fd == -1)
		return iperf_fail_net(test, IESTREAMLISTEN, gai);
	return fd;
}

static int
udp_listen(struct iperf_test *test)
{
	return udp_bind_listener(test);
}

/* A hello from a peer that already has a stream is a duplicate. */
static int
known_peer(struct iperf_test *test, const struct sockaddr_storage *ss,
    socklen_t len)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (sp->remote_len == len && memcmp(&sp->remote_addr, ss, len) == 0)
			return 1;
	}
	return 0;
}

/* The listening socket becomes the stream: the listening role moves to a
 * fresh unconnected socket on the port, handed to the server. */
static int
next_listener_of(struct iperf_test *test, int *next_listener)
{
	*next_listener = udp_bind_listener(test);
	return *next_listener == -1 ? -1 : 0;
}

static int
udp_accept(struct iperf_test *test, int listen_fd, int *ready,
    int *next_listener)
{
	struct sockopt_fail f = { 0, 0, 0 };
	unsigned char buf[64];
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	ssize_t n;

	*ready = 0;
	n = recvfrom(listen_fd, buf, sizeof(buf), MSG_DONTWAIT,
	    (struct sockaddr *)&ss, &len);
	/* Only a 4-byte datagram from a new peer opens a stream; anything
	 * else (late data of an old test, strangers' junk) is dropped.  A
	 * dispatcher's test (server_child.h) takes it only from the host of
	 * its control connection, the source it admitted. */
	if (n != UDP_HELLO_LEN || known_peer(test, &ss, len)
#ifdef HAVE_OPERATOR /* admission by source (--disable-operator) */
	    || (test->child_ops != NULL &&
		!addr_same_host(&ss, &test->run.srv.peer_addr))
#endif
	    )
		return iperf_fail(test, IESTREAMACCEPT, n == -1 ? errno : 0);
	/* Our client asked for GSO/GRO: grant it in the reply (ext.h). */
	test->run.udp_offload = (test->settings.ext_want & EXT_UDP_OFFLOAD) &&
	    test->settings.rate == 0 && /* -b 0 only (ext.h) */
	    ext_udp_offload_built() && !test->opt->no_udp_offload &&
	    !test->settings.gso && !test->settings.gro;
	if (connect(listen_fd, (struct sockaddr *)&ss, len) == -1)
		return iperf_fail(test, IESTREAMACCEPT, errno);
	*next_listener = -1;
	/* From here on a failure ends the test (the socket is the stream's);
	 * -w and -S were tried before CREATE_STREAMS (proto_def_trial). */
	if (udp_buffers(test, listen_fd, &f) == -1 ||
	    proto_def_check_window(test, listen_fd, &f) == -1 ||
	    next_listener_of(test, next_listener) == -1 ||
	    (test->run.udp_offload ?
		send(listen_fd, udp_hello_reply_offload, UDP_HELLO_OFFLOAD_LEN,
		    0) :
		send(listen_fd, udp_hello_reply, UDP_HELLO_LEN, 0)) == -1 ||
	    proto_def_sockopts(test, listen_fd, ss.ss_family, &f) == -1 ||
	    udp_dont_fragment(test, listen_fd, &f) == -1) {
		if (f.code != 0)
			(void)sockopt_fail_test(test, &f);
		else if (test->run.err.code == 0)
			(void)iperf_fail(test, IESTREAMWRITE, errno);
		close(listen_fd);
		return PROTO_ACCEPT_FATAL;
	}
	*ready = 1;
	return listen_fd;
}

/* ---- streams ------------------------------------------------------------- */

static int
udp_stream_init(struct iperf_stream *sp)
{
	struct udp_ctx *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return iperf_fail(sp->test, IEINITSTREAM, ENOMEM);
	udp_acct_init(&c->acct);
	c->next_seq = 1;
	c->counters64 = sp->test->settings.udp_counters_64bit;
#ifdef HAVE_MULTICAST
	c->mcast = sp->test->settings.mcast_group != NULL;
#endif
	sp->proto_ctx = c;
	(void)set_rcv_timeout(sp->socket, UDP_WORKER_TIMEOUT_S);
	if (sp->sender) {
		udp_tx_setup(sp, c);
	} else {
		udp_rx_setup(sp, c);
		sp->delay_known = 1;
	}
	return 0;
}

static void
udp_stream_release(struct iperf_stream *sp)
{
	struct udp_ctx *c = sp->proto_ctx;

	if (c != NULL)
		udp_ctx_release(c);
	free(c);
	sp->proto_ctx = NULL;
}

static void
now_header(struct udp_ctx *c, struct udp_header *h)
{
#ifdef HAVE_OWD
	uint64_t now = c->owd ? iperf_time_wall_us() : iperf_time_now_us();
#else
	uint64_t now = iperf_time_now_us();
#endif

	h->sec = (uint32_t)(now / USEC_PER_SEC);
	h->usec = (uint32_t)(now % USEC_PER_SEC);
	h->seq = c->next_seq;
}

/* GSO: gso_segs datagrams, each with its header, in one send.  -2 when
 * the kernel refuses GSO on this path (the caller sends plainly). */
static ssize_t
gso_send(struct iperf_stream *sp, struct udp_ctx *c)
{
	struct udp_header h;
	ssize_t n;

	size_t segs = sp->xmit_blocks > 0 && sp->xmit_blocks < c->gso_segs ?
	    sp->xmit_blocks : c->gso_segs;

	now_header(c, &h);
	(void)udp_gso_headers(c->gso_buf, segs, sp->blksize, &h,
	    c->counters64);
	n = send(sp->socket, c->gso_buf, segs * sp->blksize, 0);
	if (n > 0) {
		c->next_seq += (uint64_t)n / sp->blksize;
#ifdef HAVE_UDPFEEDBACK
		if (c->fb)
			udp_fb_sent(sp, c, (uint64_t)n);
#endif
	} else if (n == -1 && (errno == EIO || errno == EINVAL))
		return -2;
	return n;
}

static ssize_t
udp_send(struct iperf_stream *sp)
{
	struct udp_ctx *c = sp->proto_ctx;
	struct udp_header h;
	ssize_t n;

#ifdef HAVE_ISOCHRONOUS
	if (sp->iso != NULL)
		return udp_iso_send(sp, c);
#endif
	if (c->gso_segs > 1 && sp->xmit_blocks != 1) {
		n = gso_send(sp, c);
		if (n != -2)
			return n;
		note_add(sp->test, NOTE_DEBUG, "UDP GSO send refused: %s",
		    strerror(errno));
		udp_gso_off(sp, c);
	}
	now_header(c, &h);
	(void)udp_header_encode((unsigned char *)sp->buffer, sp->blksize, &h,
	    c->counters64);
#ifdef HAVE_MULTICAST
	if (c->mcast)
		udp_mcast_stamp(sp, c, (unsigned char *)sp->buffer, sp->blksize);
#endif
	n = send(sp->socket, sp->buffer, sp->blksize, 0);
	if (n > 0)
		c->next_seq++; /* a failed send reuses its number */
	return n;
}

/* The arrival time of a buffer: the kernel's when it came with it (in
 * every buffer once SO_TIMESTAMPNS is on), else this moment.  Under
 * --owd always CLOCK_REALTIME, the kernel's moved to this process's
 * clock (clockoff.h clockoff_dmin_add). */
static int64_t
arrival_of(struct udp_ctx *c, const struct udp_rx_meta *meta)
{
#ifdef HAVE_OWD
	if (c->owd) {
		int64_t now = (int64_t)iperf_time_wall_us();

		if (meta == NULL || !meta->has_time)
			return now;
		return meta->time_us + clockoff_dmin_add(&c->dmin, now,
		    meta->time_us);
	}
#endif
	if (meta != NULL && meta->has_time)
		return meta->time_us;
	return (int64_t)(c->kts ? iperf_time_wall_us() : iperf_time_now_us());
}

/* One datagram of len bytes (sp->w.lock held); flags: udp_acct_update's.
 * Jitter and delay variation sample it only if it has its own send and
 * arrival times. */
static void
account_datagram(struct iperf_stream *sp, struct udp_ctx *c,
    const unsigned char *d, size_t len, int64_t arrival, unsigned int flags)
{
	struct udp_header h;

#ifdef HAVE_MULTICAST
	if (c->mcast && udp_mcast_is_end(c, d, len))
		return; /* an end marker: not data */
#endif
	sp->w.live.bytes += (uint64_t)len;
	sp->w.live.blocks++;
	if (udp_header_decode(d, len, &h, c->counters64) == 0) {
		int64_t sent = (int64_t)h.sec * 1000000 + (int64_t)h.usec;

		if (udp_acct_update(&c->acct, h.seq, c->counters64, sent,
			arrival, flags)) {
			dv_arrival_set(&c->at, (uint64_t)arrival);
			(void)delayvar_add(&sp->w.delay, h.sec, h.usec, &c->at,
			    NULL);
		}
		sp->w.live.packets = c->acct.hi;
		sp->w.live.lost = c->acct.lost;
		sp->w.live.ooo = c->acct.ooo;
		sp->w.live.jitter = c->acct.jitter;
	}
#ifdef HAVE_ISOCHRONOUS
	if (sp->iso != NULL)
		udp_iso_account(sp, c, d, len);
#endif
}

/* Drops the count that came with a buffer added (sp->w.lock held). */
static uint32_t
new_drops(struct udp_ctx *c, const struct udp_rx_meta *meta)
{
	return meta->has_drops ? udp_acct_drops(&c->acct, meta->drops) : 0;
}

/* One buffer (a datagram, or a GRO batch) and what its control messages
 * say. */
static ssize_t
recv_meta(int fd, void *buf, size_t len, struct udp_rx_meta *meta)
{
	union {
		char buf[UDP_RX_CMSG_SPACE];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { buf, len };
	struct msghdr m;
	ssize_t n;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl.buf;
	m.msg_controllen = sizeof(ctl.buf);
	n = recvmsg(fd, &m, 0);
	if (n > 0)
		udp_rx_meta_parse(&m, meta);
	else
		memset(meta, 0, sizeof(*meta));
	return n;
}

static ssize_t
gro_recv(struct iperf_stream *sp, struct udp_ctx *c)
{
	struct udp_rx_meta meta;
	struct udp_gro_iter it;
	size_t off, len;
	uint64_t segs = 0;
	uint32_t drops;
	int64_t lost0;
	ssize_t n;
	int64_t arrival;

	n = recv_meta(sp->socket, c->gro_buf, UDP_GRO_BUF_BYTES, &meta);
#ifdef HAVE_UDPFEEDBACK
	if (n == -1 && errno == ECONNREFUSED && c->fb_last_us != 0)
		errno = EAGAIN; /* a report reached a sender already gone */
#endif
	if (n <= 0)
		return n;
	arrival = arrival_of(c, &meta);
	udp_gro_iter_init(&it, (size_t)n, meta.gro_seg);
	pthread_mutex_lock(&sp->w.lock);
	sp->w.live.last_rx_us = iperf_time_now_us();
	drops = new_drops(c, &meta);
	lost0 = c->acct.lost;
	/* Like a plain receive, a datagram counts at most `len` bytes; the
	 * buffer's arrival time is its first datagram's own. */
	while (udp_gro_next(&it, &off, &len)) {
		account_datagram(sp, c, c->gro_buf + off,
		    len < sp->blksize ? len : sp->blksize, arrival,
		    segs > 0 ? UDP_ACCT_SHARED_ARRIVAL : 0);
		segs++;
	}
	if (drops > 0)
		sp->w.live.rxq_drops += udp_gro_drops(drops, segs,
		    c->acct.lost - lost0);
	pthread_mutex_unlock(&sp->w.lock);
#ifdef HAVE_UDPFEEDBACK
	if (drops > 0 && c->fb)
		udp_fb_dropped(sp, c, drops);
#endif
	return n;
}

/* Without GRO: what is queued, up to b->n datagrams, each
 * with its kernel arrival time; one lock for them all.  Bytes received,
 * 0 if they were all empty (an end of stream, as a plain receive of 0
 * bytes), -1. */
static ssize_t
batch_recv(struct iperf_stream *sp, struct udp_ctx *c)
{
#ifdef HAVE_UDP_BATCH
	struct udp_batch *b = c->batch;
	struct udp_rx_meta meta;
	ssize_t total = 0;
	int64_t arrival = 0;
	int i, k;

	for (i = 0; i < (int)b->n; i++)
		b->mm[i].msg_hdr.msg_controllen = sizeof(b->ctl[i].buf);
	k = recvmmsg(sp->socket, b->mm, (unsigned int)b->n, MSG_WAITFORONE,
	    NULL);
	if (k <= 0)
		return k;
	pthread_mutex_lock(&sp->w.lock);
	sp->w.live.last_rx_us = iperf_time_now_us();
	for (i = 0; i < k; i++) {
		unsigned int fl = 0;

		udp_rx_meta_parse(&b->mm[i].msg_hdr, &meta);
		sp->w.live.rxq_drops += new_drops(c, &meta);
		/* Without a time of its own a datagram shares the call's. */
		if (meta.has_time || i == 0)
			arrival = arrival_of(c, &meta);
		else
			fl = UDP_ACCT_SHARED_ARRIVAL;
		account_datagram(sp, c, b->data + (size_t)i * sp->blksize,
		    b->mm[i].msg_len, arrival, fl);
		total += (ssize_t)b->mm[i].msg_len;
	}
	pthread_mutex_unlock(&sp->w.lock);
	if (k < (int)b->n && c->linger_us > 0 && !atomic_load(&sp->w.stop))
		iperf_time_sleep_until(iperf_time_now_us() + c->linger_us);
	return total;
#else
	(void)sp;
	(void)c;
	errno = ENOSYS;
	return -1; /* never called: batch_setup() made no batch */
#endif
}

/* One datagram into sp->buffer, with the drop count and arrival time
 * when they are on. */
static ssize_t
plain_recv(struct iperf_stream *sp, struct udp_ctx *c,
    struct udp_rx_meta *meta)
{
	if (c->rxq_ovfl || c->kts)
		return recv_meta(sp->socket, sp->buffer, sp->blksize, meta);
	memset(meta, 0, sizeof(*meta));
	return recv(sp->socket, sp->buffer, sp->blksize, 0);
}

static ssize_t
udp_recv(struct iperf_stream *sp)
{
	struct udp_ctx *c = sp->proto_ctx;
	struct udp_rx_meta meta;
	ssize_t n;
	int64_t arrival;

	if (c->gro_buf != NULL)
		return gro_recv(sp, c);
	if (c->batch != NULL)
		return batch_recv(sp, c);
	n = plain_recv(sp, c, &meta);
	if (n <= 0)
		return n;
	arrival = arrival_of(c, &meta);
	pthread_mutex_lock(&sp->w.lock);
	sp->w.live.last_rx_us = iperf_time_now_us();
	sp->w.live.rxq_drops += new_drops(c, &meta);
	account_datagram(sp, c, (const unsigned char *)sp->buffer, (size_t)n,
	    arrival, 0);
	pthread_mutex_unlock(&sp->w.lock);
	return n;
}

/* Called with sp->w.lock held at the end of the omit period. */
static void
udp_omit_reset(struct iperf_stream *sp)
{
	struct udp_ctx *c = sp->proto_ctx;

	if (c == NULL)
		return;
	udp_acct_omit_reset(&c->acct);
	sp->w.live.jitter = 0.0;
}

const struct iperf_proto_ops proto_udp = {
	.id = SOCK_DGRAM,
	.name = "UDP",
	.flags = PROTO_F_DATAGRAM,
	.default_blksize = DEFAULT_UDP_BLKSIZE,
	.sock_type = SOCK_DGRAM,
	.sock_protocol = 0,
	.client_init = udp_client_init,
	.listen = udp_listen,
	.accept = udp_accept,
	.connect = udp_connect,
	.stream_init = udp_stream_init,
	.stream_release = udp_stream_release,
	.send = udp_send,
	.recv = udp_recv,
	.omit_reset = udp_omit_reset,
#ifdef HAVE_MULTICAST
	.send_end = udp_mcast_send_end,
#endif
};
