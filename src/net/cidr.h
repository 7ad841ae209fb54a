/*
 * cidr.h - IPv4 and IPv6 prefixes ("10.0.0.0/8", "2001:db8::/32") and
 * whether an address lies inside one: pure functions (no socket, no system
 * call) for the server's admission control by source.  An IPv4-mapped
 * IPv6 address (::ffff:a.b.c.d) counts as the IPv4 address everywhere.
 */
#ifndef IPERF_CIDR_H
#define IPERF_CIDR_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>

/* Text of a prefix: an IPv6 address, '/', three digits, NUL. */
#define CIDR_TEXT_MAX 52

struct cidr {
	int family;		/* AF_INET or AF_INET6 (AF_UNSPEC: none) */
	unsigned char addr[16];	/* network byte order; IPv4 in the first 4,
				 * bits past the prefix always 0 */
	unsigned int bits;	/* prefix length: 0..32 or 0..128 */
};

/*
 * "10.0.0.0/8", "192.0.2.7" (/32), "::1" (/128), "2001:db8::/32",
 * "::ffff:10.0.0.0/104" (IPv4-mapped with a prefix of 96 or more: stored
 * as IPv4, here 10.0.0.0/8).  The prefix is 1 to 3 decimal digits, at
 * most 32 (IPv4) or 128 (IPv6); host bits past it are cleared
 * (10.1.2.3/8 is 10.0.0.0/8).  0, or -1 for anything else (empty,
 * spaces, a sign, "1.2.3.4/", trailing junk); *out is then unspecified.
 */
int cidr_parse(const char *text, struct cidr *out);
/* 1 if ss lies inside c (an IPv4-mapped IPv6 address as IPv4), else 0;
 * families other than AF_INET and AF_INET6 never match. */
int cidr_match(const struct cidr *c, const struct sockaddr_storage *ss);
/* The prefix containing ss: IPv4 (or mapped) /v4bits, IPv6 /v6bits
 * (capped at 32 and 128): the key of a source, per address (/32, /128)
 * or per network (/24, /64).  Another family gives family AF_UNSPEC. */
void cidr_of_addr(const struct sockaddr_storage *ss, unsigned int v4bits,
    unsigned int v6bits, struct cidr *out);
/* 1 if a and b are the same prefix (family, bits and address). */
int cidr_equal(const struct cidr *a, const struct cidr *b);
/* "10.0.0.0/8" into buf (CIDR_TEXT_MAX is enough): 0, or -1 (with buf
 * "" when len > 0) for a short buffer or a family other than the two. */
int cidr_format(const struct cidr *c, char *buf, size_t len);

#endif /* IPERF_CIDR_H */
