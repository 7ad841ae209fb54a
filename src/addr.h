/*
 * addr.h - socket addresses as text: pure functions on a sockaddr (no
 * socket, no system call), for the reporters and the server's bookkeeping.
 */
#ifndef IPERF_ADDR_H
#define IPERF_ADDR_H

#include <stddef.h>

struct sockaddr_storage;

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

#endif /* IPERF_ADDR_H */
