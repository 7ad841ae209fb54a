/* cidr.c - IPv4 and IPv6 prefixes and addresses inside them (see
 * cidr.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "cidr.h"
#include "banned.h"

static const unsigned char mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

static unsigned int
max_bits(int family)
{
	return family == AF_INET ? 32u : 128u;
}

/* Clear the bits of a (len bytes) past the first `bits`. */
static void
mask_bits(unsigned char *a, size_t len, unsigned int bits)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (bits >= 8 * (i + 1))
			continue;
		if (bits > 8 * i)
			a[i] &= (unsigned char)(0xffu << (8 - (bits - 8 * i)));
		else
			a[i] = 0;
	}
}

/* The host of ss in out (IPv4 in the first 4 bytes, a mapped address as
 * IPv4, the rest 0): its family, or AF_UNSPEC for any other family. */
static int
host_of(const struct sockaddr_storage *ss, unsigned char out[16])
{
	memset(out, 0, 16);
	if (ss->ss_family == AF_INET) {
		memcpy(out, &((const struct sockaddr_in *)ss)->sin_addr, 4);
		return AF_INET;
	}
	if (ss->ss_family == AF_INET6) {
		const unsigned char *a =
		    ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr;

		if (memcmp(a, mapped_prefix, sizeof(mapped_prefix)) == 0) {
			memcpy(out, a + 12, 4);
			return AF_INET;
		}
		memcpy(out, a, 16);
		return AF_INET6;
	}
	return AF_UNSPEC;
}

/* "/N": 1 to 3 digits and the end of the text, at most max.  0 or -1. */
static int
parse_bits(const char *p, unsigned int max, unsigned int *bits)
{
	unsigned int v = 0;
	size_t n = 0;

	while (p[n] >= '0' && p[n] <= '9' && n < 3)
		v = v * 10 + (unsigned int)(p[n++] - '0');
	if (n == 0 || p[n] != '\0' || v > max)
		return -1;
	*bits = v;
	return 0;
}

int
cidr_parse(const char *text, struct cidr *out)
{
	char host[INET6_ADDRSTRLEN];
	const char *slash;
	size_t hlen;

	if (text == NULL)
		return -1;
	slash = strchr(text, '/');
	hlen = slash != NULL ? (size_t)(slash - text) : strlen(text);
	if (hlen == 0 || hlen >= sizeof(host))
		return -1;
	memcpy(host, text, hlen);
	host[hlen] = '\0';
	memset(out, 0, sizeof(*out));
	out->family = strchr(host, ':') != NULL ? AF_INET6 : AF_INET;
	if (inet_pton(out->family, host, out->addr) != 1)
		return -1;
	out->bits = max_bits(out->family);
	if (slash != NULL && parse_bits(slash + 1, out->bits, &out->bits) == -1)
		return -1;
	if (out->family == AF_INET6 && out->bits >= 96 &&
	    memcmp(out->addr, mapped_prefix, sizeof(mapped_prefix)) == 0) {
		memmove(out->addr, out->addr + 12, 4);
		memset(out->addr + 4, 0, 12);
		out->family = AF_INET;
		out->bits -= 96;
	}
	mask_bits(out->addr, sizeof(out->addr), out->bits);
	return 0;
}

int
cidr_match(const struct cidr *c, const struct sockaddr_storage *ss)
{
	unsigned char host[16];
	size_t whole = c->bits / 8;
	unsigned int rest = c->bits % 8;
	unsigned char m;

	if (host_of(ss, host) != c->family || c->family == AF_UNSPEC ||
	    c->bits > max_bits(c->family))
		return 0;
	if (memcmp(host, c->addr, whole) != 0)
		return 0;
	if (rest == 0)
		return 1;
	m = (unsigned char)(0xffu << (8 - rest));
	return (host[whole] & m) == c->addr[whole];
}

void
cidr_of_addr(const struct sockaddr_storage *ss, unsigned int v4bits,
    unsigned int v6bits, struct cidr *out)
{
	memset(out, 0, sizeof(*out));
	out->family = host_of(ss, out->addr);
	if (out->family == AF_UNSPEC) {
		memset(out->addr, 0, sizeof(out->addr));
		return;
	}
	out->bits = out->family == AF_INET ? v4bits : v6bits;
	if (out->bits > max_bits(out->family))
		out->bits = max_bits(out->family);
	mask_bits(out->addr, sizeof(out->addr), out->bits);
}

int
cidr_equal(const struct cidr *a, const struct cidr *b)
{
	return a->family == b->family && a->bits == b->bits &&
	    memcmp(a->addr, b->addr, sizeof(a->addr)) == 0;
}

int
cidr_format(const struct cidr *c, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	int n;

	if (len > 0)
		buf[0] = '\0';
	if ((c->family != AF_INET && c->family != AF_INET6) ||
	    inet_ntop(c->family, c->addr, host, sizeof(host)) == NULL)
		return -1;
	n = snprintf(buf, len, "%s/%u", host, c->bits);
	if (n < 0 || (size_t)n >= len) {
		if (len > 0)
			buf[0] = '\0';
		return -1;
	}
	return 0;
}
