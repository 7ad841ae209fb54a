/* proto_udp.c - the UDP transport: hello exchange, datagrams, accounting. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evloop.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "net.h"
#include "proto.h"
#include "report.h"
#include "server_accept.h"
#include "stream.h"
#include "udp_acct.h"
#include "udp_wire.h"
#include "banned.h"

#define UDP_HELLO_TIMEOUT_S 30
/* Receive timeout of data sockets: a bound on how long a stopped worker
 * can stay blocked if its wake-up is lost. */
#define UDP_WORKER_TIMEOUT_S 1

struct udp_ctx {
	struct udp_acct acct;
	uint64_t next_seq;
	int counters64;
};

/* ---- socket options ------------------------------------------------------ */

static int
get_buf(int fd, int opt)
{
	int v = 0;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, opt, &v, &len) == -1)
		return -1;
	return v;
}

/* -w on both ends; otherwise make sure a whole datagram fits. */
static int
udp_buffers(struct iperf_test *test, int fd)
{
	int blk = test->settings.blksize;
	int w = test->settings.socket_bufsize;
	int snd, rcv;

	if (w > 0) {
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof(w)) == -1 ||
		    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof(w)) == -1)
			return iperf_fail(test, IESETBUF, errno);
	}
	snd = get_buf(fd, SO_SNDBUF);
	rcv = get_buf(fd, SO_RCVBUF);
	if (w <= 0 && (snd < blk || rcv < blk)) {
		int want = blk + 1024;
		report_warning(test, "Increasing socket buffer size to %d", want);
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof(want));
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
		snd = get_buf(fd, SO_SNDBUF);
		rcv = get_buf(fd, SO_RCVBUF);
	}
	if (snd >= 0 && blk > snd)
		report_warning(test, "Block size %d > sending socket buffer size %d",
		    blk, snd);
	if (rcv >= 0 && blk > rcv)
		report_warning(test,
		    "Block size %d > receiving socket buffer size %d", blk, rcv);
	return 0;
}

static int
udp_dont_fragment(struct iperf_test *test, int fd)
{
#if defined(IP_MTU_DISCOVER) && defined(IP_PMTUDISC_DO)
	int v = IP_PMTUDISC_DO;

	if (!test->settings.dont_fragment)
		return 0;
	if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v)) == -1)
		return iperf_fail(test, IESETDONTFRAGMENT, errno);
#else
	if (test->settings.dont_fragment)
		return iperf_fail(test, IESETDONTFRAGMENT, 0);
#endif
	return 0;
}

static int
set_rcv_timeout(int fd, int seconds)
{
	struct timeval tv = { .tv_sec = seconds, .tv_usec = 0 };

	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Options every data socket gets, before the hello. */
static int
udp_sockopts(int fd, int family, void *arg)
{
	struct iperf_test *test = arg;

	if (udp_buffers(test, fd) == -1)
		return -1;
	return proto_def_sockopts(test, fd, family);
}

/* ---- client -------------------------------------------------------------- */

/* Wait for the server's reply; in reverse mode, stray data may come first. */
static int
await_reply(struct iperf_test *test, int fd)
{
	unsigned char buf[UDP_HELLO_LEN];
	size_t seen = 0, limit = UDP_HELLO_LEN;

	if (test->settings.reverse && !test->settings.bidirectional)
		limit += 2 * (size_t)test->settings.blksize;
	while (seen < limit) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return iperf_fail(test, IESTREAMREAD, errno);
		if (udp_hello_is_reply(buf, (size_t)n))
			return 0;
		seen += (size_t)n;
		if (limit == UDP_HELLO_LEN)
			break;
	}
	return iperf_fail(test, IESTREAMREAD, EPROTO);
}

static int
udp_connect(struct iperf_test *test, int index)
{
	struct net_dial_args a;
	int gai = 0, fd, err;

	memset(&a, 0, sizeof(a));
	a.type = SOCK_DGRAM;
	a.domain = test->opt.domain;
	a.local = test->opt.bind_address;
	a.local_port = test->opt.bind_port > 0 ? test->opt.bind_port + index : 0;
	a.bind_dev = test->opt.bind_dev;
	a.server = test->opt.server_hostname;
	a.port = test->opt.server_port;
	a.timeout_ms = -1;
	a.setopts = udp_sockopts;
	a.setopts_arg = test;
	test->err.code = 0;
	fd = net_dial(&a, &gai);
	if (fd == -1) {
		if (test->err.code != 0)
			return -1;
		return iperf_fail_net(test, IESTREAMCONNECT, gai);
	}
	if (set_rcv_timeout(fd, UDP_HELLO_TIMEOUT_S) == -1 ||
	    send(fd, udp_hello_client, UDP_HELLO_LEN, 0) == -1) {
		err = errno;
		close(fd);
		return iperf_fail(test, IESTREAMWRITE, err);
	}
	if (await_reply(test, fd) == -1 || udp_dont_fragment(test, fd) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* After the control connection: choose the datagram size from its MSS. */
static int
udp_client_init(struct iperf_test *test)
{
	struct iperf_settings *s = &test->settings;
	int mss = test->ctrl_mss;

	if (s->blksize_set && s->blksize > 0) {
		if (mss > 0 && s->blksize > mss)
			report_warning(test,
			    "UDP block size %d exceeds TCP MSS %d, may result in fragmentation / drops",
			    s->blksize, mss);
		return 0;
	}
	if (mss <= 0 || mss > IPERF_MAX_UDP_BLOCKSIZE) {
		if (mss != 0)
			report_warning(test, "Ignoring nonsense TCP MSS %d", mss);
		s->blksize = DEFAULT_UDP_BLKSIZE;
	} else {
		s->blksize = mss;
	}
	if (test->opt.verbose && !test->opt.json_output)
		report_raw(test, "Setting UDP block size to %d\n", s->blksize);
	return 0;
}

/* ---- server -------------------------------------------------------------- */

static int
udp_bind_listener(struct iperf_test *test)
{
	int gai = 0;
	int fd = net_listen(SOCK_DGRAM, test->opt.domain, test->opt.bind_address,
	    test->opt.server_port, test->opt.bind_dev, NULL, NULL, &gai);

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

	for (sp = test->streams; sp != NULL; sp = sp->next) {
		if (sp->remote_len == len && memcmp(&sp->remote_addr, ss, len) == 0)
			return 1;
	}
	return 0;
}

/* Move the listening role to a fresh unconnected socket on the port. */
static int
replace_listener(struct iperf_test *test)
{
	int nfd = udp_bind_listener(test);

	if (nfd == -1)
		return -1;
	test->prot_listener = nfd;
	if (evloop_add_fd(test->loop, nfd, EV_READ, server_data_listener_cb,
		test) == -1)
		return iperf_fail(test, IESTREAMLISTEN, errno);
	return 0;
}

static int
udp_accept(struct iperf_test *test, int listen_fd, int *ready)
{
	unsigned char buf[64];
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	ssize_t n;

	*ready = 0;
	n = recvfrom(listen_fd, buf, sizeof(buf), MSG_DONTWAIT,
	    (struct sockaddr *)&ss, &len);
	/* Only a 4-byte datagram from a new peer opens a stream; anything
	 * else (late data of an old test, strangers' junk) is dropped. */
	if (n != UDP_HELLO_LEN || known_peer(test, &ss, len))
		return iperf_fail(test, IESTREAMACCEPT, n == -1 ? errno : 0);
	if (connect(listen_fd, (struct sockaddr *)&ss, len) == -1)
		return iperf_fail(test, IESTREAMACCEPT, errno);
	evloop_del_fd(test->loop, listen_fd);
	test->prot_listener = -1;
	if (udp_buffers(test, listen_fd) == -1 ||
	    replace_listener(test) == -1 ||
	    send(listen_fd, udp_hello_reply, UDP_HELLO_LEN, 0) == -1 ||
	    proto_def_sockopts(test, listen_fd, ss.ss_family) == -1 ||
	    udp_dont_fragment(test, listen_fd) == -1) {
		if (test->err.code == 0)
			iperf_fail(test, IESTREAMWRITE, errno);
		close(listen_fd);
		return -1;
	}
	*ready = 1;
	return listen_fd;
}

static void
udp_listen_done(struct iperf_test *test)
{
	if (test->prot_listener >= 0) {
		evloop_del_fd(test->loop, test->prot_listener);
		close(test->prot_listener);
	}
	test->prot_listener = -1;
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
	sp->proto_ctx = c;
	(void)set_rcv_timeout(sp->socket, UDP_WORKER_TIMEOUT_S);
	return 0;
}

static void
udp_stream_release(struct iperf_stream *sp)
{
	free(sp->proto_ctx);
	sp->proto_ctx = NULL;
}

static ssize_t
udp_send(struct iperf_stream *sp)
{
	struct udp_ctx *c = sp->proto_ctx;
	struct udp_header h;
	uint64_t now = iperf_time_now_us();
	ssize_t n;

	h.sec = (uint32_t)(now / USEC_PER_SEC);
	h.usec = (uint32_t)(now % USEC_PER_SEC);
	h.seq = c->next_seq;
	(void)udp_header_encode((unsigned char *)sp->buffer, sp->blksize, &h,
	    c->counters64);
	n = send(sp->socket, sp->buffer, sp->blksize, 0);
	if (n > 0)
		c->next_seq++; /* a failed send reuses its number */
	return n;
}

static ssize_t
udp_recv(struct iperf_stream *sp)
{
	struct udp_ctx *c = sp->proto_ctx;
	struct udp_header h;
	ssize_t n = recv(sp->socket, sp->buffer, sp->blksize, 0);
	int64_t arrival;
	int parsed;

	if (n <= 0)
		return n;
	arrival = (int64_t)iperf_time_now_us();
	parsed = udp_header_decode((unsigned char *)sp->buffer, (size_t)n, &h,
			 c->counters64) == 0;
	pthread_mutex_lock(&sp->lock);
	sp->live.bytes += (uint64_t)n;
	sp->live.last_rx_us = (uint64_t)arrival;
	if (parsed) {
		int64_t sent = (int64_t)h.sec * 1000000 + (int64_t)h.usec;
		udp_acct_update(&c->acct, h.seq, c->counters64, sent, arrival);
		sp->live.packets = c->acct.hi;
		sp->live.lost = c->acct.lost;
		sp->live.ooo = c->acct.ooo;
		sp->live.jitter = c->acct.jitter;
	}
	sp->live.blocks++;
	pthread_mutex_unlock(&sp->lock);
	return n;
}

/* Called with sp->lock held at the end of the omit period. */
static void
udp_omit_reset(struct iperf_stream *sp)
{
	struct udp_ctx *c = sp->proto_ctx;

	if (c == NULL)
		return;
	udp_acct_omit_reset(&c->acct);
	sp->live.jitter = 0.0;
}

const struct iperf_proto_ops proto_udp = {
	.id = SOCK_DGRAM,
	.name = "UDP",
	.flags = PROTO_F_DATAGRAM,
	.default_blksize = DEFAULT_UDP_BLKSIZE,
	.client_init = udp_client_init,
	.listen = udp_listen,
	.accept = udp_accept,
	.listen_done = udp_listen_done,
	.connect = udp_connect,
	.stream_init = udp_stream_init,
	.stream_release = udp_stream_release,
	.send = udp_send,
	.recv = udp_recv,
	.omit_reset = udp_omit_reset,
};
