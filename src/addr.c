/* addr.c - socket addresses as text (see addr.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "addr.h"
#include "util.h"
#include "banned.h"

int
addr_is_mapped_v4(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	return ss->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr);
}

void
addr_format(const struct sockaddr_storage *ss, char *host, size_t hlen,
    int *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
		(void)inet_ntop(AF_INET, &s4->sin_addr, host, (socklen_t)hlen);
		*port = ntohs(s4->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
			(void)inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12],
			    host, (socklen_t)hlen);
		else
			(void)inet_ntop(AF_INET6, &s6->sin6_addr, host,
			    (socklen_t)hlen);
		*port = ntohs(s6->sin6_port);
	} else {
		str_copy(host, "", hlen);
		*port = 0;
	}
}

int
addr_same_host(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b)
{
	char ha[64], hb[64];
	int pa, pb;

	addr_format(a, ha, sizeof(ha), &pa);
	addr_format(b, hb, sizeof(hb), &pb);
	return strcmp(ha, hb) == 0;
}
