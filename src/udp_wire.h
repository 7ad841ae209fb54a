/*
 * udp_wire.h - UDP datagram header and the stream set-up hello.  Pure:
 * byte order is explicit, no unaligned access, no I/O.
 *
 *   offset 0  tv_sec  uint32 BE   (sender's clock, seconds)
 *   offset 4  tv_usec uint32 BE   (0..999999)
 *   offset 8  seq     uint32 BE, or uint64 BE with 64-bit counters
 */
#ifndef IPERF_UDP_WIRE_H
#define IPERF_UDP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define UDP_HELLO_LEN 4
#define UDP_HDR_LEN_32 12
#define UDP_HDR_LEN_64 16

extern const unsigned char udp_hello_client[UDP_HELLO_LEN]; /* "9876" */
extern const unsigned char udp_hello_reply[UDP_HELLO_LEN];  /* "6789" */

struct udp_header {
	uint32_t sec;
	uint32_t usec;
	uint64_t seq;
};

size_t udp_header_len(int counters64);
/* Write the header at the start of buf; -1 if buf is too short. */
int udp_header_encode(unsigned char *buf, size_t len,
    const struct udp_header *h, int counters64);
/* Read the header; -1 if the datagram is shorter than the header. */
int udp_header_decode(const unsigned char *buf, size_t len,
    struct udp_header *h, int counters64);
/* 1 if these bytes are a server's reply to the hello (current "6789",
 * the legacy 987654321 in little-endian, or the byte-swapped form that
 * old big-endian builds sent). */
int udp_hello_is_reply(const unsigned char *buf, size_t len);

#endif /* IPERF_UDP_WIRE_H */
