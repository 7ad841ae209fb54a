/* addr.c - socket addresses as text, and which name one host (see
 * addr.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#ifdef HAVE_GETIFADDRS
#include <ifaddrs.h>
#endif

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

/* The host of ss as IPv4 (4 bytes, mapped IPv6 included) or IPv6 (16
 * bytes) in out: its length; 0 for another family or when len is short of
 * the family's address. */
static size_t
host_bytes(const struct sockaddr_storage *ss, socklen_t len,
    unsigned char out[16])
{
	if (ss->ss_family == AF_INET &&
	    len >= (socklen_t)sizeof(struct sockaddr_in)) {
		memcpy(out, &((const struct sockaddr_in *)ss)->sin_addr, 4);
		return 4;
	}
	if (ss->ss_family == AF_INET6 &&
	    len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const unsigned char *a =
		    ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr;

		if (addr_is_mapped_v4(ss)) {
			memcpy(out, a + 12, 4);
			return 4;
		}
		memcpy(out, a, 16);
		return 16;
	}
	return 0;
}

static int
host_is_loopback(const unsigned char *a, size_t n)
{
	return n == 4 ? a[0] == 127 :
	    memcmp(a, &in6addr_loopback, sizeof(in6addr_loopback)) == 0;
}

int
addr_same_host(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b)
{
	unsigned char ha[16], hb[16];
	size_t na = host_bytes(a, sizeof(*a), ha);

	return na != 0 && host_bytes(b, sizeof(*b), hb) == na &&
	    memcmp(ha, hb, na) == 0;
}

int
addr_within_host(const struct sockaddr_storage *a, socklen_t alen,
    const struct sockaddr_storage *b, socklen_t blen)
{
	unsigned char ha[16], hb[16];
	size_t na = host_bytes(a, alen, ha);

	if (na == 0 || host_bytes(b, blen, hb) != na)
		return 0;
	if (host_is_loopback(ha, na) && host_is_loopback(hb, na))
		return 1;
	return addr_same_host(a, b);
}

int
addr_is_local(const struct sockaddr_storage *a, socklen_t alen)
{
	unsigned char ha[16];
	size_t na = host_bytes(a, alen, ha);
#ifdef HAVE_GETIFADDRS
	struct ifaddrs *list, *i;
	int found = 0;
#endif

	if (na == 0)
		return 0;
	if (host_is_loopback(ha, na))
		return 1;
#ifdef HAVE_GETIFADDRS
	if (getifaddrs(&list) == -1)
		return -1;
	for (i = list; i != NULL && !found; i = i->ifa_next) {
		struct sockaddr_storage ss;
		unsigned char hb[16];
		socklen_t len;

		if (i->ifa_addr == NULL)
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			len = sizeof(struct sockaddr_in);
		else if (i->ifa_addr->sa_family == AF_INET6)
			len = sizeof(struct sockaddr_in6);
		else
			continue;
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, i->ifa_addr, len);
		found = host_bytes(&ss, len, hb) == na &&
		    memcmp(ha, hb, na) == 0;
	}
	freeifaddrs(list);
	return found;
#else
	return -1;
#endif
}

int
addr_peer_here(const struct sockaddr_storage *local, socklen_t llen,
    const struct sockaddr_storage *remote, socklen_t rlen)
{
	if (addr_within_host(local, llen, remote, rlen))
		return 1;
	return addr_is_local(remote, rlen) == 1;
}

#if defined(HAVE_MULTICAST) || defined(HAVE_ISOCHRONOUS)
int
addr_parse_numeric(const char *text, int port, struct sockaddr_storage *ss,
    socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
		return 0;
	}
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET6, text, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
		return 0;
	}
	return -1;
}

int
addr_is_multicast(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET)
		return IN_MULTICAST(ntohl(s4->sin_addr.s_addr)) ? 1 : 0;
	if (ss->ss_family == AF_INET6)
		return IN6_IS_ADDR_MULTICAST(&s6->sin6_addr) ? 1 : 0;
	return 0;
}
#endif
