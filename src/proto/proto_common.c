/* proto_common.c - what the TCP-like transports share (proto.h): their
 * data-socket options, the -w check, accept, dial, the listener's end. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "iperf.h"
#include "iperf_error.h"
#include "net.h"
#include "notes.h"
#include "proto.h"
#include "tcp_info.h"
#include "banned.h"

int
sockopt_fail(struct sockopt_fail *f, int code, int sys)
{
	f->code = code;
	f->sys = sys;
	f->gai = 0;
	return -1;
}

int
sockopt_fail_test(struct iperf_test *test, const struct sockopt_fail *f)
{
	if (f->gai != 0)
		return iperf_fail_gai(test, f->code, f->gai);
	return iperf_fail(test, f->code, f->sys);
}

static int
set_window(const struct iperf_test *test, int fd, struct sockopt_fail *f)
{
	int w = test->settings.socket_bufsize;

	if (w <= 0)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof(w)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof(w)) == -1)
		return sockopt_fail(f, IESETBUF, errno);
	return 0;
}

/* A refused -S fails the test on a server; a 3.21 client goes on
 * without it (a 3.12 client fails), and so does ours, saying so with -d. */
static int
tos_refused(struct iperf_test *test, int code, int err,
    struct sockopt_fail *f)
{
	if (test->opt->role != 'c')
		return sockopt_fail(f, code, err);
	note_add(test, NOTE_DEBUG, "-S not applied to a data socket: %s",
	    strerror(err));
	return 0;
}

static int
set_tos(struct iperf_test *test, int fd, int family, struct sockopt_fail *f)
{
	int tos = test->settings.tos;

	if (tos <= 0)
		return 0;
	if (family == AF_INET6) {
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos,
			sizeof(tos)) == -1)
			return tos_refused(test, IESETCOS, errno, f);
		/* An IPv4-mapped peer uses the IPv4 header. */
		(void)setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
		return 0;
	}
	if (setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) == -1)
		return tos_refused(test, IESETTOS, errno, f);
	return 0;
}

static int
set_pacing(struct iperf_test *test, int fd)
{
#ifdef SO_MAX_PACING_RATE
	uint64_t rate = test->settings.fqrate / 8;

	if (rate == 0)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate,
		sizeof(rate)) == -1) {
		unsigned int r32 = rate > 0xffffffffu ? 0xffffffffu :
							(unsigned int)rate;
		if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r32,
			sizeof(r32)) == -1)
			note_add(test, NOTE_WARNING, "Unable to set socket pacing");
	}
#else
	(void)test;
	(void)fd;
#endif
	return 0;
}

int
proto_def_sockopts(struct iperf_test *test, int fd, int family,
    struct sockopt_fail *f)
{
	const struct iperf_settings *s = &test->settings;
	int one = 1;

	/* --rr: every message goes at once (rr.h). */
	if ((s->no_delay || s->rr) && test->proto->id == SOCK_STREAM &&
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1)
		return sockopt_fail(f, IESETNODELAY, errno);
	if (s->mss > 0 && test->proto->id == SOCK_STREAM &&
	    setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &s->mss,
		sizeof(s->mss)) == -1)
		return sockopt_fail(f, IESETMSS, errno);
	if (set_window(test, fd, f) == -1 || set_tos(test, fd, family, f) == -1)
		return -1;
	if (s->congestion != NULL && (test->proto->flags & PROTO_F_CONGESTION) &&
	    tcp_congestion_set(fd, s->congestion) == -1) {
		/* A server that does not have the algorithm warns and goes on;
		 * one that may not use it (EPERM: not in
		 * tcp_allowed_congestion_control) fails, as 3.21 does. */
		if (test->opt->role == 'c' || errno != ENOENT)
			return sockopt_fail(f, IESETCONGESTION, 0);
		note_add(test, NOTE_WARNING, "TCP congestion control algorithm not supported");
	}
	return set_pacing(test, fd);
}

/* -w asks for w bytes: the kernel doubles what it grants, but caps the
 * request at net.core.wmem_max/rmem_max first, so less than w means the
 * host's limit is below the request. */
int
proto_def_check_window(const struct iperf_test *test, int fd,
    struct sockopt_fail *f)
{
	int w = test->settings.socket_bufsize, got = 0;
	socklen_t len = sizeof(got);

	if (w <= 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &got, &len) == -1)
		return sockopt_fail(f, IESETBUF, errno);
	if (got < w)
		return sockopt_fail(f, IESETBUF2, 0);
	len = sizeof(got);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) == -1)
		return sockopt_fail(f, IESETBUF, errno);
	if (got < w)
		return sockopt_fail(f, IESETBUF2, 0);
	return 0;
}

int
proto_def_accept(struct iperf_test *test, int listen_fd, int *family)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd;

	do {
		fd = accept(listen_fd, (struct sockaddr *)&ss, &len);
	} while (fd == -1 && errno == EINTR);
	if (fd == -1)
		return iperf_fail(test, IESTREAMACCEPT, errno);
	/* Some systems pass the listener's O_NONBLOCK on: workers block. */
	if (net_set_nonblocking(fd, 0) == -1) {
		int err = errno;
		close(fd);
		return iperf_fail(test, IESTREAMACCEPT, err);
	}
	*family = ss.ss_family;
	return fd;
}

int
proto_def_dial(struct iperf_test *test, const struct net_dial_args *a)
{
	struct net_dial_args args = *a;
	struct sockopt_call *call = a->setopts_arg;
	int gai = 0, fd;

	args.stop = &test->interrupted; /* a stopping test stops waiting */
	if (call != NULL)
		call->fail.code = 0;
	fd = net_dial(&args, &gai);
	if (fd == -1) {
		if (call != NULL && call->fail.code != 0)
			return sockopt_fail_test(test, &call->fail);
		return iperf_fail_net(test, IESTREAMCONNECT, gai);
	}
	if (net_write_all(fd, test->run.cookie, IPERF_COOKIE_SIZE,
		IPERF_CTRL_FIRST_BYTE_US) == -1) {
		int err = errno;
		close(fd);
		return iperf_fail(test, IESENDCOOKIE, err);
	}
	return fd;
}

int
proto_def_trial(struct iperf_test *test, int family)
{
	const struct iperf_proto_ops *p = test->proto;
	struct sockopt_fail f = { 0, 0, 0 };
	int fd, rc;

	if (test->settings.socket_bufsize <= 0 && test->settings.tos <= 0)
		return 0;
	fd = socket(family, p->sock_type | SOCK_CLOEXEC, p->sock_protocol);
	if (fd == -1)
		return 0; /* the real socket will say what is wrong */
	rc = set_window(test, fd, &f) == -1 ||
		proto_def_check_window(test, fd, &f) == -1 ||
		set_tos(test, fd, family, &f) == -1 ?
	    -1 : 0;
	close(fd);
	return rc == -1 ? sockopt_fail_test(test, &f) : 0;
}
