/* flowlabel.c - IPv6 flow labels through IPV6_FLOWLABEL_MGR (Linux). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#if defined(HAVE_LINUX_IN6_H) && HAVE_DECL_IPV6_FLOWLABEL_MGR
#include <linux/in6.h>
#define FLOWLABEL_SUPPORTED 1
/* With <netinet/in.h> first, some kernel header versions leave the socket
 * option numbers to libc, which does not define these two (Linux ABI). */
#ifndef IPV6_FLOWLABEL_MGR
#define IPV6_FLOWLABEL_MGR 32
#endif
#ifndef IPV6_FLOWINFO_SEND
#define IPV6_FLOWINFO_SEND 33
#endif
#endif

#include "flowlabel.h"
#include "banned.h"

int
flowlabel_apply(int fd, struct sockaddr *sa, int label)
{
#ifdef FLOWLABEL_SUPPORTED
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)(void *)sa;
	struct in6_flowlabel_req req;
	int on = 1;

	if (sa->sa_family != AF_INET6) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	memcpy(&req.flr_dst, &s6->sin6_addr, sizeof(req.flr_dst));
	req.flr_label = htonl((uint32_t)label & IPV6_FLOWINFO_FLOWLABEL);
	req.flr_action = IPV6_FL_A_GET;
	req.flr_flags = IPV6_FL_F_CREATE;
	req.flr_share = IPV6_FL_S_ANY;
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWLABEL_MGR, &req,
		sizeof(req)) == -1)
		return -1;
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWINFO_SEND, &on, sizeof(on)) ==
	    -1)
		return -1;
	s6->sin6_flowinfo = req.flr_label;
	return 0;
#else
	(void)fd;
	(void)sa;
	(void)label;
	errno = ENOPROTOOPT;
	return -1;
#endif
}
