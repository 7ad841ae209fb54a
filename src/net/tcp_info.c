/* tcp_info.c - TCP_INFO per platform (Linux here; others report nothing). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <errno.h>
#include <string.h>
#ifdef HAVE_LINUX_TCP_H
#include <linux/tcp.h>
#else
#include <netinet/tcp.h>
#endif

#include "tcp_info.h"
#include "util.h"
#include "banned.h"

#if defined(HAVE_LINUX_TCP_H) && defined(TCP_INFO)
#define HAVE_TCP_INFO_STRUCT 1
#endif

int
tcp_info_has_retransmits(void)
{
#ifdef HAVE_TCP_INFO_STRUCT
	return 1;
#else
	return 0;
#endif
}

int
tcp_info_read(int fd, struct tcpinfo_snapshot *out)
{
	memset(out, 0, sizeof(*out));
#ifdef HAVE_TCP_INFO_STRUCT
	{
		struct tcp_info ti;
		socklen_t len = sizeof(ti);

		memset(&ti, 0, sizeof(ti));
		if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == -1)
			return -1;
		out->valid = 1;
		out->total_retrans = ti.tcpi_total_retrans;
		out->snd_mss = ti.tcpi_snd_mss;
		out->snd_cwnd = (uint64_t)ti.tcpi_snd_cwnd * ti.tcpi_snd_mss;
#ifdef HAVE_STRUCT_TCP_INFO_TCPI_SND_WND
		out->snd_wnd = ti.tcpi_snd_wnd;
#endif
		out->rtt = ti.tcpi_rtt;
		out->rttvar = ti.tcpi_rttvar;
		out->pmtu = ti.tcpi_pmtu;
#ifdef HAVE_STRUCT_TCP_INFO_TCPI_REORD_SEEN
		/* Reordering events seen on the connection (Linux 4.19+), as
		 * 3.21 reports; not tcpi_reordering, the current reordering
		 * metric (net.ipv4.tcp_reordering and what the kernel learnt). */
		out->reorder = ti.tcpi_reord_seen;
#endif
		return 0;
	}
#else
	(void)fd;
	return -1;
#endif
}

int
tcp_congestion_get(int fd, char *buf, size_t len)
{
#ifdef TCP_CONGESTION
	char name[64];
	socklen_t l = sizeof(name);

	memset(name, 0, sizeof(name));
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &l) == -1)
		return -1;
	name[sizeof(name) - 1] = '\0';
	str_copy(buf, name, len);
	return 0;
#else
	(void)fd;
	(void)buf;
	(void)len;
	errno = ENOPROTOOPT;
	return -1;
#endif
}

int
tcp_congestion_set(int fd, const char *name)
{
#ifdef TCP_CONGESTION
	return setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name,
	    (socklen_t)strlen(name));
#else
	(void)fd;
	(void)name;
	errno = ENOPROTOOPT;
	return -1;
#endif
}
