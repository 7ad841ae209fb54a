/*
 * proto_udp_mcast.c - --multicast (ext.h EXT_MCAST): the sockets of a
 * test whose client sends to a group.  The client's stream socket is
 * connected to GROUP:PORT with the TTL / hop limit and the outgoing
 * interface; the server's is bound to GROUP:PORT and joined to the group
 * (and the source, --ssm-source).  No hello goes either way: a group
 * cannot answer one.  Every datagram carries the extension
 * (dgram_ext.h), and after the last the sender sends DGX_END_COPIES end
 * markers, which receivers do not count as data.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <net/if.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "cidr.h"
#include "dgram_ext.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "net.h"
#include "proto.h"
#include "proto_udp_int.h"
#include "stream.h"
#include "test.h"
#include "banned.h"

/* The interface of --bind-dev, 0 without it (the route decides), -1 if
 * there is no such interface. */
static int
mcast_ifindex(const struct iperf_test *test)
{
	unsigned int i;

	if (test->opt->bind_dev == NULL)
		return 0;
	i = if_nametoindex(test->opt->bind_dev);
	return i == 0 ? -1 : (int)i;
}

int
udp_mcast_client_opts(struct iperf_test *test, int fd, int family)
{
	int ttl = test->settings.mcast_ttl > 0 ? test->settings.mcast_ttl : 1;
	int ifx = mcast_ifindex(test);

	if (ifx == -1) {
		errno = ENODEV;
		return -1;
	}
	if (family == AF_INET6) {
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &ttl,
			sizeof(ttl)) == -1 ||
		    (ifx > 0 && setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF,
			&ifx, sizeof(ifx)) == -1))
			return -1;
		return 0;
	}
	if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl,
		sizeof(ttl)) == -1)
		return -1;
	if (ifx > 0 || test->opt->bind_address != NULL) {
		struct ip_mreqn m;
		struct sockaddr_storage ss;
		socklen_t len;

		memset(&m, 0, sizeof(m));
		m.imr_ifindex = ifx;
		if (test->opt->bind_address != NULL &&
		    addr_parse_numeric(test->opt->bind_address, 0, &ss, &len) ==
			0 && ss.ss_family == AF_INET)
			m.imr_address = ((struct sockaddr_in *)&ss)->sin_addr;
		if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &m,
			sizeof(m)) == -1)
			return -1;
	}
	return 0;
}

/* 1 if the server's --multicast-allow lets it join the group. */
static int
mcast_allowed(const struct iperf_test *test, const struct sockaddr_storage *g)
{
	int i;

	for (i = 0; i < test->opt->mcast_allow_count; i++) {
		struct cidr c;

		if (cidr_parse(test->opt->mcast_allow[i], &c) == 0 &&
		    cidr_match(&c, g))
			return 1;
	}
	return 0;
}

int
udp_mcast_join(struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	struct sockaddr_storage g, src;
	socklen_t glen, slen;
	int fd, one = 1, ifx = mcast_ifindex(test), level, err;

	if (s->mcast_group == NULL ||
	    addr_parse_numeric(s->mcast_group, test_server_port(test), &g,
		&glen) == -1)
		return iperf_fail(test, IERECVPARAMS, 0);
	if (!mcast_allowed(test, &g))
		return iperf_fail(test, IEMCASTDENIED, 0);
	if (ifx == -1)
		return iperf_fail(test, IEMCASTJOIN, ENODEV);
	level = g.ss_family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP;
	fd = socket(g.ss_family, SOCK_DGRAM, 0);
	if (fd == -1)
		return iperf_fail(test, IEMCASTJOIN, errno);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
	    bind(fd, (struct sockaddr *)&g, glen) == -1)
		goto fail;
	if (s->mcast_source != NULL) {
		struct group_source_req r;

		if (addr_parse_numeric(s->mcast_source, 0, &src, &slen) == -1 ||
		    src.ss_family != g.ss_family) {
			close(fd);
			return iperf_fail(test, IERECVPARAMS, 0);
		}
		memset(&r, 0, sizeof(r));
		r.gsr_interface = (uint32_t)ifx;
		memcpy(&r.gsr_group, &g, glen);
		memcpy(&r.gsr_source, &src, slen);
		if (setsockopt(fd, level, MCAST_JOIN_SOURCE_GROUP, &r,
			sizeof(r)) == -1)
			goto fail;
	} else {
		struct group_req r;

		memset(&r, 0, sizeof(r));
		r.gr_interface = (uint32_t)ifx;
		memcpy(&r.gr_group, &g, glen);
		if (setsockopt(fd, level, MCAST_JOIN_GROUP, &r, sizeof(r)) == -1)
			goto fail;
	}
	test->run.srv.mcast_join_us = iperf_time_wall_us();
	return fd;
fail:
	err = errno;
	close(fd);
	return iperf_fail(test, IEMCASTJOIN, err);
}

/* The extension of a data datagram (after its stock header). */
void
udp_mcast_stamp(struct iperf_stream *sp, struct udp_ctx *c, unsigned char *buf,
    size_t len)
{
	struct dgram_ext x;

	memset(&x, 0, sizeof(x));
	x.flags = DGX_MCAST;
	x.sent_us = iperf_time_wall_us();
	if (c->mcast_start_us == 0)
		c->mcast_start_us = x.sent_us;
	x.test_id = sp->test->settings.mcast_test_id;
	x.start_us = c->mcast_start_us;
	x.duration_ms = (uint32_t)sp->test->settings.duration * 1000u;
	(void)dgram_ext_encode(buf, len, c->counters64 ? UDP_HDR_LEN_64 :
	    UDP_HDR_LEN_32, &x);
}

/* 1 if a received datagram is an end marker (not data). */
int
udp_mcast_is_end(const struct udp_ctx *c, const unsigned char *d, size_t len)
{
	return (dgram_ext_flags(d, len, c->counters64 ? UDP_HDR_LEN_64 :
		    UDP_HDR_LEN_32) & DGX_END) != 0;
}

/* A socket for the end markers, to the stream's group and port with its
 * options: the stream's own was shut down for writing to stop its worker
 * (stream.c). */
static int
end_socket(struct iperf_stream *sp)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	int fd;

	if (getpeername(sp->socket, (struct sockaddr *)&peer, &plen) == -1)
		return -1;
	fd = socket(peer.ss_family, SOCK_DGRAM, 0);
	if (fd == -1)
		return -1;
	if (udp_mcast_client_opts(sp->test, fd, peer.ss_family) == -1 ||
	    connect(fd, (struct sockaddr *)&peer, plen) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* After the sender's last datagram: the end markers, a few ms apart
 * (any one of them will do), with the totals sent. */
void
udp_mcast_send_end(struct iperf_stream *sp)
{
	struct udp_ctx *c = sp->proto_ctx;
	struct udp_header h;
	struct dgram_ext x;
	struct timespec gap = { 0, 2000000 };
	size_t hl, len;
	int i, fd;

	if (c == NULL || sp->test->settings.mcast_group == NULL ||
	    !sp->sender || (fd = end_socket(sp)) == -1)
		return;
	hl = c->counters64 ? UDP_HDR_LEN_64 : UDP_HDR_LEN_32;
	len = hl + DGX_LEN;
	memset(&h, 0, sizeof(h));
	memset(&x, 0, sizeof(x));
	x.flags = DGX_MCAST | DGX_END;
	x.test_id = sp->test->settings.mcast_test_id;
	x.start_us = c->mcast_start_us;
	x.duration_ms = (uint32_t)sp->test->settings.duration * 1000u;
	x.total_pkts = c->next_seq - 1;
	x.total_bytes = x.total_pkts * sp->blksize;
	for (i = 0; i < DGX_END_COPIES; i++) {
		uint64_t now = iperf_time_wall_us();

		h.sec = (uint32_t)(now / USEC_PER_SEC);
		h.usec = (uint32_t)(now % USEC_PER_SEC);
		x.sent_us = now;
		(void)udp_header_encode((unsigned char *)sp->buffer,
		    sp->blksize, &h, c->counters64);
		(void)dgram_ext_encode((unsigned char *)sp->buffer,
		    sp->blksize, hl, &x);
		(void)send(fd, sp->buffer, len, 0);
		if (i + 1 < DGX_END_COPIES)
			(void)nanosleep(&gap, NULL);
	}
	close(fd);
}
