/*
 * proto_sctp.c - the SCTP transport: one-to-one SCTP sockets carrying the
 * cookie and unframed payload like TCP.  Built only with <netinet/sctp.h>
 * and libsctp (HAVE_SCTP).  Where the kernel has no SCTP, socket() fails
 * and the error is reported as iperf3 3.21 reports it.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/sctp.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iperf.h"
#include "iperf_error.h"
#include "net.h"
#include "proto.h"
#include "stream.h"
#include "tcp_info.h"
#include "test.h"
#include "banned.h"

#define SCTP_DATA_CONNECT_TIMEOUT_MS 30000

/* SCTP's own no-delay, segment size and stream count. */
static int
psctp_own_opts(const struct iperf_test *test, int fd, struct sockopt_fail *f)
{
	const struct iperf_settings *s = &test->settings;
	int one = 1;

	if (s->no_delay &&
	    setsockopt(fd, IPPROTO_SCTP, SCTP_NODELAY, &one, sizeof(one)) == -1)
		return sockopt_fail(f, IESETNODELAY, errno);
	if (s->mss > 0) {
		struct sctp_assoc_value av;

		memset(&av, 0, sizeof(av));
		av.assoc_value = (uint32_t)s->mss;
		if (setsockopt(fd, IPPROTO_SCTP, SCTP_MAXSEG, &av,
			sizeof(av)) == -1)
			return sockopt_fail(f, IESETMSS, errno);
	}
	if (test->opt->sctp_nstreams > 0) {
		struct sctp_initmsg im;

		memset(&im, 0, sizeof(im));
		im.sinit_num_ostreams = (uint16_t)test->opt->sctp_nstreams;
		im.sinit_max_instreams = (uint16_t)test->opt->sctp_nstreams;
		if (setsockopt(fd, IPPROTO_SCTP, SCTP_INITMSG, &im,
			sizeof(im)) == -1)
			return sockopt_fail(f, IESETSCTPNSTREAM, errno);
	}
	return 0;
}

/* -X/--xbind: bind the association to each named address (port kept). */
static int
psctp_xbind(const struct iperf_test *test, int fd, int family, int port,
    struct sockopt_fail *f)
{
	int i;

	for (i = 0; i < test->opt->xbind_count; i++) {
		struct addrinfo hints, *ai = NULL;
		char portstr[16];
		int rc;

		memset(&hints, 0, sizeof(hints));
		hints.ai_family = family;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_PASSIVE;
		(void)snprintf(portstr, sizeof(portstr), "%d", port);
		rc = getaddrinfo(test->opt->xbind[i], portstr, &hints, &ai);
		if (rc != 0) {
			(void)sockopt_fail(f, IESETSCTPBINDX, 0);
			f->gai = rc;
			return -1;
		}
		rc = sctp_bindx(fd, ai->ai_addr, 1, SCTP_BINDX_ADD_ADDR);
		freeaddrinfo(ai);
		if (rc == -1)
			return sockopt_fail(f, IESETSCTPBINDX, errno);
	}
	return 0;
}

/* net/'s callbacks (arg: struct sockopt_call): a data socket before it
 * connects, the listener before it listens. */
static int
psctp_setopts(int fd, int family, void *arg)
{
	struct sockopt_call *call = arg;
	struct iperf_test *test = call->test;

	if (proto_def_sockopts(test, fd, family, &call->fail) == -1 ||
	    psctp_own_opts(test, fd, &call->fail) == -1)
		return -1;
	return psctp_xbind(test, fd, family, test->opt->bind_port, &call->fail);
}

static int
psctp_listen_setopts(int fd, int family, void *arg)
{
	struct sockopt_call *call = arg;
	const struct iperf_test *test = call->test;

	if (psctp_own_opts(test, fd, &call->fail) == -1)
		return -1;
	return psctp_xbind(test, fd, family, test_server_port(test),
	    &call->fail);
}

/* The TCP listener makes way for SCTP on the same port until the test is
 * over (other clients are refused meanwhile, as with stock iperf3). */
static int
psctp_port_needed(const struct iperf_test *test)
{
	(void)test;
	return PROTO_PORT_TEST;
}

static int
psctp_listen(struct iperf_test *test)
{
	struct sockopt_call call = { test, { 0, 0, 0 } };
	struct net_listen_args a = { SOCK_STREAM, IPPROTO_SCTP,
		test->opt->domain, test->opt->bind_address, test_server_port(test),
		test->opt->bind_dev, psctp_listen_setopts, &call,
		test->opt->xbind_count > 0 };
	int gai = 0, fd;

	fd = net_listen_with(&a, &gai);
	if (fd == -1) {
		if (call.fail.code != 0)
			return sockopt_fail_test(test, &call.fail);
		return iperf_fail_net(test, IESTREAMLISTEN, gai);
	}
	return fd;
}

static int
psctp_accept(struct iperf_test *test, int listen_fd, int *ready,
    int *next_listener)
{
	struct sockopt_fail f = { 0, 0, 0 };
	int family, fd;

	(void)next_listener;
	*ready = 0;
	fd = proto_def_accept(test, listen_fd, &family);
	if (fd == -1)
		return -1;
	if (proto_def_sockopts(test, fd, family, &f) == -1 ||
	    psctp_own_opts(test, fd, &f) == -1 ||
	    proto_def_check_window(test, fd, &f) == -1) {
		close(fd);
		(void)sockopt_fail_test(test, &f);
		return PROTO_ACCEPT_FATAL;
	}
	return fd;
}

static int
psctp_connect(struct iperf_test *test, int index)
{
	struct sockopt_call call = { test, { 0, 0, 0 } };
	struct net_dial_args a;

	memset(&a, 0, sizeof(a));
	a.type = SOCK_STREAM;
	a.protocol = IPPROTO_SCTP;
	a.domain = test->opt->domain;
	/* With --xbind the addresses are bound by sctp_bindx instead. */
	a.local = test->opt->xbind_count > 0 ? NULL : test->opt->bind_address;
	a.local_port = test->opt->xbind_count > 0 || test->opt->bind_port <= 0 ?
	    0 : test->opt->bind_port + index;
	a.bind_dev = test->opt->bind_dev;
	a.server = test->opt->server_hostname;
	a.port = test->opt->server_port;
	a.timeout_ms = test->opt->connect_timeout_ms >= 0 ?
	    test->opt->connect_timeout_ms : SCTP_DATA_CONNECT_TIMEOUT_MS;
	a.setopts = psctp_setopts;
	a.setopts_arg = &call;
	return proto_def_dial(test, &a);
}

static ssize_t
psctp_send(struct iperf_stream *sp)
{
	return send(sp->socket, sp->buffer, sp->blksize, MSG_NOSIGNAL);
}

static ssize_t
psctp_recv(struct iperf_stream *sp)
{
	ssize_t n = recv(sp->socket, sp->buffer, sp->blksize, 0);

	if (n > 0)
		stream_count_rx(sp, (uint64_t)n);
	return n;
}

/*
 * The association's figures, as 3.21 reports them for SCTP: from
 * SCTP_STATUS, the primary path's cwnd and MTU, its smoothed RTT (the
 * kernel's value, in ms, unconverted) and the peer's receive window;
 * no retransmit count (0).
 */
static int
psctp_sender_info(struct iperf_stream *sp, struct tcpinfo_snapshot *out)
{
	struct sctp_status st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	memset(out, 0, sizeof(*out));
	if (getsockopt(sp->socket, IPPROTO_SCTP, SCTP_STATUS, &st, &len) == -1)
		return -1;
	out->valid = 1;
	out->snd_cwnd = st.sstat_primary.spinfo_cwnd;
	out->snd_wnd = st.sstat_rwnd;
	out->rtt = st.sstat_primary.spinfo_srtt;
	out->pmtu = st.sstat_primary.spinfo_mtu;
	return 0;
}

const struct iperf_proto_ops proto_sctp = {
	.id = 12,
	.name = "SCTP",
	.flags = PROTO_F_COOKIE,
	.default_blksize = DEFAULT_SCTP_BLKSIZE,
	.sock_type = SOCK_STREAM,
	.sock_protocol = IPPROTO_SCTP,
	.port_needed = psctp_port_needed,
	.listen = psctp_listen,
	.accept = psctp_accept,
	.connect = psctp_connect,
	.send = psctp_send,
	.recv = psctp_recv,
	.sender_info = psctp_sender_info,
};
