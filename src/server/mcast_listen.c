/*
 * mcast_listen.c - the --multicast-listen receiver (see mcast_listen.h).
 *
 * One socket bound to GROUP:PORT with SO_REUSEADDR and SO_REUSEPORT (so
 * that several listeners and our server on one host share the port; on
 * Linux each member socket gets its own copy of every datagram), joined
 * to the group, read by one thread with poll() in steps of at most
 * 250 ms: a signal (test->interrupted) is seen within one.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "bytes.h"
#include "dgram_ext.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "mcast_acct.h"
#include "mcast_listen.h"
#include "report_mcast.h"
#include "test.h"
#include "udp_wire.h"
#include "banned.h"

#define MCL_SILENCE_US (3 * USEC_PER_SEC)   /* no datagram: the test ended */
#define MCL_GRACE_US (3 * USEC_PER_SEC)     /* past the planned end */
#define MCL_LATE_US USEC_PER_SEC            /* first datagram after start */
#define MCL_POLL_MS 250
#define MCL_BATCH 256                       /* datagrams per wake-up */
#define MCL_RCVBUF (4 << 20)
#define MCL_DGRAM_MAX 65536

/* The test being followed. */
struct mcl_run {
	uint64_t test_id;
	size_t hdr_len;          /* the stock header: 12, or 16 (64-bit) */
	uint64_t start_us;       /* the sender's start, its clock */
	uint32_t duration_ms;
	struct mcast_acct acct;
	struct mcast_report *rep;
	uint64_t first_us, last_us; /* monotonic: first, latest datagram */
	uint64_t ival_start_us, ival_next_us;
};

struct mcl {
	struct iperf_test *test;
	int fd;
	struct sockaddr_storage group;
	socklen_t glen;
	char group_text[INET6_ADDRSTRLEN];
	int port;
	uint64_t join_us;        /* monotonic time of the join */
	uint64_t interval_us;    /* -i, 0: none */
	uint64_t foreign;        /* datagrams of no test (or of another) */
	int active;
	struct mcl_run run;
	int have_done;
	uint64_t done_id;        /* the last test that ended */
	int tests;               /* tests ended */
	unsigned char buf[MCL_DGRAM_MAX];
};

/* The interface the group is joined on: --bind-dev's index (0 when
 * none; -1 and ENODEV when there is no such device). */
static int
mcl_ifindex(const struct mcl *l)
{
	unsigned int idx;

	if (l->test->opt->bind_dev == NULL)
		return 0;
	idx = if_nametoindex(l->test->opt->bind_dev);
	if (idx == 0) {
		errno = ENODEV;
		return -1;
	}
	return (int)idx;
}

static int
mcl_join4(struct mcl *l, int ifindex)
{
	const struct sockaddr_in *g = (const struct sockaddr_in *)&l->group;
	struct sockaddr_storage local;
	socklen_t len;
	struct ip_mreqn mr;

	memset(&mr, 0, sizeof(mr));
	mr.imr_multiaddr = g->sin_addr;
	mr.imr_ifindex = ifindex;
	if (l->test->opt->bind_address != NULL) {
		if (addr_parse_numeric(l->test->opt->bind_address, 0, &local,
			&len) == -1 || local.ss_family != AF_INET) {
			errno = EINVAL;
			return -1;
		}
		mr.imr_address = ((struct sockaddr_in *)&local)->sin_addr;
	}
	return setsockopt(l->fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr,
	    sizeof(mr));
}

static int
mcl_join6(struct mcl *l, int ifindex)
{
	const struct sockaddr_in6 *g = (const struct sockaddr_in6 *)&l->group;
	struct ipv6_mreq mr;

	memset(&mr, 0, sizeof(mr));
	mr.ipv6mr_multiaddr = g->sin6_addr;
	mr.ipv6mr_interface = (unsigned int)ifindex;
#ifdef IPV6_JOIN_GROUP
	return setsockopt(l->fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr,
	    sizeof(mr));
#else
	return setsockopt(l->fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &mr,
	    sizeof(mr));
#endif
}

/* The socket, bound to GROUP:PORT: 0, or -1 with the failure recorded. */
static int
mcl_bind(struct mcl *l)
{
	int one = 1, size = MCL_RCVBUF;

	l->fd = socket(l->group.ss_family, SOCK_DGRAM, 0);
	if (l->fd == -1)
		return iperf_fail(l->test, IELISTEN, errno);
	if (setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ==
	    -1)
		return iperf_fail(l->test, IEREUSEADDR, errno);
#ifdef SO_REUSEPORT
	(void)setsockopt(l->fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
#endif
	(void)setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
#ifdef SO_TIMESTAMPNS
	/* each datagram's arrival as the kernel took it (udp_wire.h) */
	(void)setsockopt(l->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
#endif
	if (l->group.ss_family == AF_INET6) {
		(void)setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
		    sizeof(one));
		/* a link-scoped group needs the interface in the address */
		if (IN6_IS_ADDR_MC_LINKLOCAL(
			&((struct sockaddr_in6 *)&l->group)->sin6_addr)) {
			int idx = mcl_ifindex(l);

			((struct sockaddr_in6 *)&l->group)->sin6_scope_id =
			    idx > 0 ? (uint32_t)idx : 0;
		}
	}
	if (bind(l->fd, (struct sockaddr *)&l->group, l->glen) == -1)
		return iperf_fail(l->test, IELISTEN, errno);
	return 0;
}

static int
mcl_open(struct mcl *l)
{
	const char *group = l->test->opt->mcast_listen;
	int ifindex, rc;

	l->port = test_server_port(l->test);
	if (addr_parse_numeric(group, l->port, &l->group, &l->glen) == -1 ||
	    !addr_is_multicast(&l->group))
		return iperf_fail(l->test, IEMCASTJOIN, EINVAL);
	(void)snprintf(l->group_text, sizeof(l->group_text), "%s", group);
	if (mcl_bind(l) == -1)
		return -1;
	ifindex = mcl_ifindex(l);
	if (ifindex == -1)
		return iperf_fail(l->test, IEMCASTJOIN, errno);
	rc = l->group.ss_family == AF_INET ? mcl_join4(l, ifindex) :
					     mcl_join6(l, ifindex);
	if (rc == -1)
		return iperf_fail(l->test, IEMCASTJOIN, errno);
	l->join_us = iperf_time_now_us();
	return 0;
}

/* ---- the tests --------------------------------------------------------- */

static const char *
mcl_interface(const struct mcl *l)
{
	if (l->test->opt->bind_dev != NULL)
		return l->test->opt->bind_dev;
	return l->test->opt->bind_address;
}

static uint64_t
mcl_seq(const struct mcl_run *r, const unsigned char *buf)
{
	return r->hdr_len == 16 ? get_be64(buf + 8) : get_be32(buf + 8);
}

/* The sender's address as text, and its port. */
static void
mcl_peer(const struct sockaddr_storage *from, char *buf, size_t len,
    int *port)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)from;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)from;

	buf[0] = '\0';
	*port = 0;
	if (from->ss_family == AF_INET) {
		(void)inet_ntop(AF_INET, &s4->sin_addr, buf, (socklen_t)len);
		*port = ntohs(s4->sin_port);
	} else if (from->ss_family == AF_INET6) {
		(void)inet_ntop(AF_INET6, &s6->sin6_addr, buf, (socklen_t)len);
		*port = ntohs(s6->sin6_port);
	}
}

static void
mcl_start(struct mcl *l, const struct dgram_ext *x, size_t hdr_len,
    const struct sockaddr_storage *from, uint64_t now_us, uint64_t wall_us)
{
	struct mcl_run *r = &l->run;
	struct mcast_test_info info;
	char peer[INET6_ADDRSTRLEN];

	memset(r, 0, sizeof(*r));
	r->test_id = x->test_id;
	r->hdr_len = hdr_len;
	r->start_us = x->start_us;
	r->duration_ms = x->duration_ms;
	mcast_acct_init(&r->acct, hdr_len == 16);
	r->first_us = r->last_us = r->ival_start_us = now_us;
	r->ival_next_us = l->interval_us > 0 ? now_us + l->interval_us : 0;
	l->active = 1;

	memset(&info, 0, sizeof(info));
	mcl_peer(from, peer, sizeof(peer), &info.sender_port);
	info.group = l->group_text;
	info.port = l->port;
	info.sender = peer;
	info.test_id = x->test_id;
	info.start_us = x->start_us;
	info.duration_ms = x->duration_ms;
	info.join_latency_ms = (double)(now_us - l->join_us) / 1000.0;
	info.first_seq = mcl_seq(r, l->buf);
	info.joined_late = info.first_seq > 1 ||
	    wall_us > x->start_us + MCL_LATE_US;
	info.counters64 = hdr_len == 16;
	info.interface = mcl_interface(l);
	r->rep = mcast_report_start(l->test, &info);
}

static double
mcl_secs(const struct mcl_run *r, uint64_t t)
{
	return t > r->first_us ? (double)(t - r->first_us) / 1e6 : 0.0;
}

/* The intervals that ended by now. */
static void
mcl_intervals(struct mcl *l, uint64_t now_us)
{
	struct mcl_run *r = &l->run;
	struct mcast_stats s;

	while (r->ival_next_us != 0 && now_us >= r->ival_next_us) {
		mcast_acct_interval(&r->acct, &s);
		mcast_report_interval(r->rep, mcl_secs(r, r->ival_start_us),
		    mcl_secs(r, r->ival_next_us), &s);
		r->ival_start_us = r->ival_next_us;
		r->ival_next_us += l->interval_us;
	}
}

/* The test ends at end_us (monotonic): the last, partial interval (when
 * it holds datagrams or a tenth of an interval), then the summary. */
static void
mcl_finish(struct mcl *l, uint64_t end_us, struct mcast_end_info *e)
{
	struct mcl_run *r = &l->run;
	struct mcast_stats s;

	mcl_intervals(l, end_us);
	if (l->interval_us > 0 && end_us > r->ival_start_us &&
	    (r->acct.ival.received > 0 ||
		end_us - r->ival_start_us >= l->interval_us / 10)) {
		mcast_acct_interval(&r->acct, &s);
		mcast_report_interval(r->rep, mcl_secs(r, r->ival_start_us),
		    mcl_secs(r, end_us), &s);
	}
	e->foreign = l->foreign;
	mcast_acct_total(&r->acct, e->end_marker, e->sender_packets, &s);
	mcast_report_end(r->rep, mcl_secs(r, end_us), &s, e);
	r->rep = NULL;
	l->active = 0;
	l->have_done = 1;
	l->done_id = r->test_id;
	l->tests++;
}

static void
mcl_left_early(struct mcl *l, int interrupted)
{
	struct mcast_end_info e;

	memset(&e, 0, sizeof(e));
	e.left_early = 1;
	e.interrupted = interrupted;
	mcl_finish(l, l->run.last_us, &e);
}

/* The extension at offset 12 (32-bit counters) or 16 (64-bit), only the
 * one given once a test runs: its header's length into *hdr (0 without
 * it) and dgram_ext_read()'s verdict. */
static int
mcl_decode(const unsigned char *buf, size_t n, struct dgram_ext *x,
    size_t want, size_t *hdr)
{
	static const size_t lens[2] = { 12, 16 };
	int i, r;

	for (i = 0; i < 2; i++) {
		if (want != 0 && want != lens[i])
			continue;
		r = dgram_ext_read(buf, n, lens[i], DGX_MCAST, x);
		if (r != DGX_READ_NONE) {
			*hdr = lens[i];
			return r;
		}
	}
	*hdr = 0;
	return DGX_READ_NONE;
}

static void
mcl_datagram(struct mcl *l, size_t n, const struct sockaddr_storage *from,
    uint64_t now_us, uint64_t wall_us)
{
	struct dgram_ext x;
	size_t hdr;
	int kind = mcl_decode(l->buf, n, &x, l->active ? l->run.hdr_len : 0,
	    &hdr);
	struct mcast_end_info e;

	if (kind == DGX_READ_NONE || (l->active && x.test_id != l->run.test_id)) {
		l->foreign++;
		return;
	}
	/* the other copies of an end marker, stragglers of an ended test */
	if (l->have_done && x.test_id == l->done_id)
		return;
	if (kind == DGX_READ_END) {
		if (!l->active) /* a test seen only by its end: nothing */
			return;
		memset(&e, 0, sizeof(e));
		e.end_marker = 1;
		e.sender_packets = x.total_pkts;
		e.sender_bytes = x.total_bytes;
		mcl_finish(l, now_us, &e);
		return;
	}
	if (!l->active)
		mcl_start(l, &x, hdr, from, now_us, wall_us);
	mcl_intervals(l, now_us);
	mcast_acct_datagram(&l->run.acct, mcl_seq(&l->run, l->buf), n,
	    (int64_t)x.sent_us, (int64_t)wall_us);
	l->run.last_us = now_us;
}

/* One datagram into l->buf, its sender into *from and its arrival
 * (CLOCK_REALTIME: the kernel's timestamp, else now) into *wall_us. */
static ssize_t
mcl_recv(struct mcl *l, struct sockaddr_storage *from, uint64_t *wall_us)
{
	union {
		char buf[UDP_RX_CMSG_SPACE];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { l->buf, sizeof(l->buf) };
	struct msghdr m;
	struct udp_rx_meta meta;
	ssize_t n;

	memset(&m, 0, sizeof(m));
	m.msg_name = from;
	m.msg_namelen = sizeof(*from);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl.buf;
	m.msg_controllen = sizeof(ctl.buf);
	n = recvmsg(l->fd, &m, MSG_DONTWAIT);
	if (n == -1)
		return -1;
	udp_rx_meta_parse(&m, &meta);
	*wall_us = meta.has_time && meta.time_us > 0 ?
	    (uint64_t)meta.time_us : iperf_time_wall_us();
	return n;
}

/* Read what is queued (at most MCL_BATCH datagrams). */
static int
mcl_drain(struct mcl *l)
{
	struct sockaddr_storage from;
	uint64_t wall_us;
	ssize_t n;
	int i;

	for (i = 0; i < MCL_BATCH; i++) {
		n = mcl_recv(l, &from, &wall_us);
		if (n == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return 0;
			return iperf_fail(l->test, IESTREAMREAD, errno);
		}
		mcl_datagram(l, (size_t)n, &from, iperf_time_now_us(),
		    wall_us);
		if (l->test->opt->one_off && l->tests > 0)
			return 0;
	}
	return 0;
}

/* A test that fell silent, or ran past its planned end. */
static void
mcl_check_end(struct mcl *l, uint64_t now_us)
{
	struct mcl_run *r = &l->run;
	uint64_t planned;

	if (!l->active)
		return;
	mcl_intervals(l, now_us);
	planned = r->start_us + (uint64_t)r->duration_ms * 1000u + MCL_GRACE_US;
	if (now_us - r->last_us > MCL_SILENCE_US ||
	    (r->duration_ms > 0 && iperf_time_wall_us() > planned))
		mcl_left_early(l, 0);
}

static int
mcl_poll_ms(const struct mcl *l, uint64_t now_us)
{
	uint64_t wait = (uint64_t)MCL_POLL_MS * 1000u;

	if (l->active && l->run.ival_next_us != 0) {
		uint64_t to = l->run.ival_next_us > now_us ?
		    l->run.ival_next_us - now_us : 0;

		if (to < wait)
			wait = to;
	}
	return (int)((wait + 999) / 1000);
}

static int
mcl_loop(struct mcl *l)
{
	struct iperf_test *test = l->test;
	struct pollfd pfd;

	while (!test->interrupted) {
		pfd.fd = l->fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, mcl_poll_ms(l, iperf_time_now_us())) == -1 &&
		    errno != EINTR)
			return iperf_fail(test, IESELECT, errno);
		if ((pfd.revents & POLLIN) && mcl_drain(l) == -1)
			return -1;
		if (test->opt->one_off && l->tests > 0)
			return 0;
		mcl_check_end(l, iperf_time_now_us());
		if (test->opt->one_off && l->tests > 0)
			return 0;
	}
	if (l->active)
		mcl_left_early(l, 1);
	return 0;
}

int
mcast_listen_run(struct iperf_test *test)
{
	struct mcl *l = calloc(1, sizeof(*l));
	char msg[512];
	int rc;

	if (l == NULL) {
		(void)iperf_fail(test, IENEWTEST, errno);
		return -2;
	}
	l->test = test;
	l->fd = -1;
	l->interval_us = test->opt->stats_interval > 0 ?
	    (uint64_t)(test->opt->stats_interval * 1e6) : 0;
	if (mcl_open(l) == -1) {
		iperf_error_format(&test->run.err, msg, sizeof(msg));
		mcast_report_error(test, msg);
		rc = -2;
	} else {
		mcast_report_listening(test, l->group_text, l->port,
		    mcl_interface(l));
		rc = mcl_loop(l);
		if (rc == -1) {
			if (l->active)
				mcl_left_early(l, 0);
			iperf_error_format(&test->run.err, msg, sizeof(msg));
			mcast_report_error(test, msg);
			rc = -2;
		}
	}
	if (l->fd >= 0)
		(void)close(l->fd);
	free(l);
	return rc;
}
