/*
 * addr.h - socket addresses as text, and whether two name one host: pure
 * functions on a sockaddr (no socket, no system call), for the reporters,
 * the server's bookkeeping and same-host placement.
 */
#ifndef IPERF_ADDR_H
#define IPERF_ADDR_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>

/* Numeric host text (an IPv4-mapped IPv6 address as IPv4) and port;
 * "" and 0 for other families. */
void addr_format(const struct sockaddr_storage *ss, char *host, size_t hlen,
    int *port);
/* Is it an IPv4-mapped IPv6 address (::ffff:a.b.c.d)? */
int addr_is_mapped_v4(const struct sockaddr_storage *ss);
/* Do two addresses name the same host (ports ignored; a mapped IPv4
 * address and the IPv4 address are the same host)? */
int addr_same_host(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b);
/* 1 if a connection between a and b (with the lengths the socket calls
 * gave) stays inside this host: both loopback (127.0.0.0/8, ::1) or the
 * same host as addr_same_host() says, within one family once IPv4-mapped
 * IPv6 counts as IPv4 (::1 and 127.0.0.1 are not); 0 for other families
 * and for an address shorter than its family's. */
int addr_within_host(const struct sockaddr_storage *a, socklen_t alen,
    const struct sockaddr_storage *b, socklen_t blen);
/* Is the address one of this network namespace's own (a loopback address,
 * or one an interface here has, as getifaddrs() lists them)?  1 or 0; -1
 * when the interfaces cannot be listed.  A peer in another namespace or
 * on another host is never local, whatever the addresses it shares. */
int addr_is_local(const struct sockaddr_storage *a, socklen_t alen);
/* Is the peer of a connection on this host: addr_within_host(), or its
 * address local (addr_is_local()). */
int addr_peer_here(const struct sockaddr_storage *local, socklen_t llen,
    const struct sockaddr_storage *remote, socklen_t rlen);

#if defined(HAVE_MULTICAST) || defined(HAVE_ISOCHRONOUS)
/* A numeric IPv4 or IPv6 address with a port into *ss (*len its size);
 * 0, or -1 for anything else (no name lookups). */
int addr_parse_numeric(const char *text, int port,
    struct sockaddr_storage *ss, socklen_t *len);
/* 1 if the address is a multicast group (224.0.0.0/4, ff00::/8). */
int addr_is_multicast(const struct sockaddr_storage *ss);
#endif

#endif /* IPERF_ADDR_H */
