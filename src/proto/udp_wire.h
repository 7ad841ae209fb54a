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

#include <sys/types.h>
#include <sys/socket.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define UDP_HELLO_LEN 4
#define UDP_HDR_LEN_32 12
#define UDP_HDR_LEN_64 16

extern const unsigned char udp_hello_client[UDP_HELLO_LEN]; /* "9876" */
extern const unsigned char udp_hello_reply[UDP_HELLO_LEN];  /* "6789" */
/* Our server's reply granting udp_offload (ext.h): "6789+gso". */
#define UDP_HELLO_OFFLOAD_LEN 8
extern const unsigned char udp_hello_reply_offload[UDP_HELLO_OFFLOAD_LEN];

struct udp_header {
	uint32_t sec;
	uint32_t usec;
	uint64_t seq;
};

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
/* 1 if the reply is exactly the udp_offload grant. */
int udp_hello_grants_offload(const unsigned char *buf, size_t len);

/*
 * udp_offload's drop report (both ends ours; docs/protocol.md): a
 * receiver whose socket dropped datagrams sends its sender, on the same
 * data socket, 24 bytes: "ipfb" (69 70 66 62), a 32-bit big-endian kind
 * (1), the 64-bit big-endian count of datagrams its socket has dropped so
 * far, and the 64-bit big-endian count of bytes it has received so far.
 * Nothing else on a data socket is 24 bytes starting "ipfb".
 */
#define UDP_FB_LEN 24
#define UDP_FB_KIND_DROPS 1

struct udp_fb {
	uint64_t drops; /* datagrams the receiver's socket dropped so far */
	uint64_t bytes; /* bytes it received so far */
};

/* Write a drop report into buf (UDP_FB_LEN bytes). */
void udp_fb_encode(unsigned char *buf, const struct udp_fb *fb);
/* 1 and *fb if these bytes are a drop report, else 0. */
int udp_fb_decode(const unsigned char *buf, size_t len, struct udp_fb *fb);

/*
 * --gsro (UDP GSO/GRO): several datagrams travel through one system call.
 * On the wire nothing changes: every datagram keeps its own header and
 * sequence number.
 */
#define UDP_GSO_MAX_BYTES 65507  /* one GSO send, and the default offers */
#define UDP_GSO_MAX_SEGMENTS 64  /* what every kernel with UDP_SEGMENT takes */

/* The gso_bf_size a client offers for datagrams of len bytes: 65507
 * rounded down to a multiple of len (65507 if len is not positive). */
int udp_gso_buffer_size(int len);
/* Datagrams of dg_len bytes in one GSO send of at most bf_size bytes:
 * between 1 and max_segs. */
size_t udp_gso_segments(size_t bf_size, size_t dg_len, size_t max_segs);
/* Headers of `count` datagrams of dg_len bytes laid end to end in buf:
 * the first gets *first, the next ones the following sequence numbers
 * and the same time.  The payload after each header is left alone.
 * -1 if dg_len cannot hold a header. */
int udp_gso_headers(unsigned char *buf, size_t count, size_t dg_len,
    const struct udp_header *first, int counters64);

/* GRO: a coalesced buffer of `total` bytes holds datagrams of `seg` bytes,
 * the last one possibly shorter; seg 0 means a single datagram. */
struct udp_gro_iter {
	size_t total, seg, off;
};

void udp_gro_iter_init(struct udp_gro_iter *it, size_t total, size_t seg);
/* The next datagram (offset and length): 1, or 0 when none is left. */
int udp_gro_next(struct udp_gro_iter *it, size_t *off, size_t *len);

/*
 * What the control messages of one received buffer (recvmsg) say:
 *  - UDP_GRO (level SOL_UDP, an int): the buffer holds datagrams of this
 *    size (udp_gro_iter); absent: a single datagram;
 *  - SO_RXQ_OVFL (level SOL_SOCKET, a uint32): how many datagrams the
 *    kernel has dropped on this socket so far (receive buffer full, for
 *    the most part), as it stood when this buffer was queued; present once
 *    the count is not 0, on sockets that enabled the option.
 *  - SCM_TIMESTAMPNS (level SOL_SOCKET, a struct timespec): when the
 *    kernel received the buffer (CLOCK_REALTIME), on sockets that enabled
 *    SO_TIMESTAMPNS; kept in microseconds.
 * Other messages are skipped; short ones are ignored.
 */
struct udp_rx_meta {
	size_t gro_seg;
	int has_drops;
	uint32_t drops;
	int has_time;
	int64_t time_us;
};

/* Room for the three messages in a control buffer. */
#define UDP_RX_CMSG_SPACE \
	(CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(uint32_t)) + \
	    CMSG_SPACE(sizeof(struct timespec)))

void udp_rx_meta_parse(struct msghdr *m, struct udp_rx_meta *out);

#endif /* IPERF_UDP_WIRE_H */
