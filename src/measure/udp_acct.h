/*
 * udp_acct.h - receiver accounting for UDP streams, as pure code (no
 * socket, no clock): loss, out-of-order/duplicates, sequence wrap, and
 * RFC 1889 jitter (signed transit difference, gain 1/16).
 */
#ifndef IPERF_UDP_ACCT_H
#define IPERF_UDP_ACCT_H

#include <stdint.h>

struct udp_acct {
	uint64_t hi;     /* highest sequence seen (64-bit, unwrapped) */
	int64_t lost;    /* gaps, minus late arrivals */
	uint64_t ooo;    /* late or duplicate datagrams */
	double jitter;   /* seconds */
	int64_t prev_transit_us;
	int have_prev;   /* prev_transit is valid */
	int64_t prev_sent_us; /* send time of the previous datagram */
	int have_sent;   /* prev_sent is valid */
	uint64_t packets; /* datagrams accounted */
	uint32_t drops_raw; /* SO_RXQ_OVFL: the last 32-bit count seen */
};

void udp_acct_init(struct udp_acct *a);
/*
 * One datagram: seq as read from the wire (a 32-bit counter is widened
 * relative to the highest sequence seen, so its wrap is not a loss),
 * the sender's timestamp and our arrival time in microseconds.
 *
 * Timing (jitter here, delay variation in delayvar.h) takes a sample of a
 * datagram only when it has a send time and an arrival time of its own:
 * not when its send time equals the previous datagram's (a batch the
 * sender handed over in one call, UDP GSO: sent at one instant, they are
 * one send), nor when it arrived in one buffer with the previous one and
 * shares its arrival time (flags UDP_ACCT_SHARED_ARRIVAL: the second and
 * later datagrams of a GRO buffer, or of a batch received without
 * per-datagram timestamps).  Counting such datagrams as samples would
 * add differences of zero and flatten the jitter towards nothing, or,
 * where a path spreads a batch out, measure the batch, not the path.
 * Returns 1 if the datagram was a timing sample.
 */
#define UDP_ACCT_SHARED_ARRIVAL 1u
int udp_acct_update(struct udp_acct *a, uint64_t seq, int counters64,
    int64_t sent_us, int64_t arrival_us, unsigned int flags);
/* The socket's cumulative 32-bit drop count as a control message gave it:
 * how much it moved since the last one (modulo 2^32: it may wrap). */
uint32_t udp_acct_drops(struct udp_acct *a, uint32_t raw);
/*
 * Datagrams behind `skbs` drops that a GRO buffer of `segs` datagrams
 * reported.  The kernel counts a coalesced buffer (a sender's GSO batch)
 * once, so each drop is taken as a buffer of `segs` datagrams, but never
 * as more than `gap`, the datagrams missing in sequence between the
 * previous buffer and this one (where the dropped ones were), nor as
 * fewer than `skbs`.
 */
uint64_t udp_gro_drops(uint64_t skbs, uint64_t segs, int64_t gap);
/* End of the omit period: jitter restarts (sequence figures continue). */
void udp_acct_omit_reset(struct udp_acct *a);
/* Widen a 32-bit sequence number to the value nearest to `hi`. */
uint64_t udp_seq_unwrap32(uint32_t seq, uint64_t hi);

#endif /* IPERF_UDP_ACCT_H */
