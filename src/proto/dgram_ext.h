/*
 * dgram_ext.h - the datagram extension of --multicast and --isochronous
 * (ext.h EXT_MCAST, EXT_ISO).  Pure: byte order explicit, no I/O.
 *
 * Only between two programs of ours that negotiated one of them: a stock
 * peer never receives it (our client stops before any data when the
 * server does not confirm).  It follows the stock UDP header (12 bytes,
 * or 16 with --udp-counters-64bit), at offset H:
 *
 *   H+0   magic        4 bytes "i3x1"
 *   H+4   flags        u32 BE: DGX_MCAST, DGX_END, DGX_ISO
 *   H+8   test_id      u64 BE  the sender's id of this test (random)
 *   H+16  start_us     u64 BE  CLOCK_REALTIME of the test's start, us
 *   H+24  duration_ms  u32 BE  planned duration (0: -n/-k bound)
 *   H+28  frame_id     u32 BE  DGX_ISO: the frame (from 1)
 *   H+32  sent_us      u64 BE  CLOCK_REALTIME when sent, us (DGX_ISO:
 *                              the frame's tick, the same in all of its
 *                              datagrams)
 *   H+40  frame_bytes  u32 BE  DGX_ISO: bytes of the whole frame (the
 *                              datagrams' lengths added)
 *   H+44  frame_off    u32 BE  DGX_ISO: bytes of the frame before this
 *                              datagram
 *   H+48  total_pkts   u64 BE  DGX_END: datagrams of the test sent
 *   H+56  total_bytes  u64 BE  DGX_END: their bytes
 *   H+64  payload
 *
 * DGX_END marks the end marker: a datagram sent (a few times) after the
 * test's last one, with the stock header's sequence number 0; receivers
 * account none of it (it is not data), and take the totals from it.
 */
#ifndef IPERF_DGRAM_EXT_H
#define IPERF_DGRAM_EXT_H

#include <stddef.h>
#include <stdint.h>

#define DGX_LEN 64
#define DGX_MCAST (1u << 0) /* multicast fields (test id, start, duration) */
#define DGX_END (1u << 1)   /* the end marker (totals) */
#define DGX_ISO (1u << 2)   /* isochronous frame fields */
/* End markers sent after the last datagram (any one of them will do). */
#define DGX_END_COPIES 3

struct dgram_ext {
	uint32_t flags;
	uint64_t test_id;
	uint64_t start_us;
	uint32_t duration_ms;
	uint32_t frame_id;
	uint64_t sent_us;
	uint32_t frame_bytes;
	uint32_t frame_off;
	uint64_t total_pkts;
	uint64_t total_bytes;
};

/* Write the extension at buf + hdr_len; -1 if len cannot hold it. */
int dgram_ext_encode(unsigned char *buf, size_t len, size_t hdr_len,
    const struct dgram_ext *x);
/* What a receiver makes of a datagram (dgram_ext_read). */
#define DGX_READ_NONE 0 /* no extension, or not of the kind wanted */
#define DGX_READ_DATA 1 /* data, with the wanted fields */
#define DGX_READ_END 2  /* an end marker (its totals in x) */

/* The one reading of a received datagram for every receiver: the
 * extension after the stock header of hdr_len bytes, decoded into x when
 * it carries the flags in want (DGX_MCAST, DGX_ISO).  An ISO frame id of
 * 0 is not data. */
int dgram_ext_read(const unsigned char *buf, size_t len, size_t hdr_len,
    uint32_t want, struct dgram_ext *x);
/* Only the flags (0 without the extension): a sender's receive path asks
 * for DGX_END without decoding the rest. */
uint32_t dgram_ext_flags(const unsigned char *buf, size_t len,
    size_t hdr_len);

#endif /* IPERF_DGRAM_EXT_H */
