/*
 * mcast_acct.h - what a --multicast-listen receiver counts of one test
 * (server/mcast_listen.c), as pure code: no socket, no clock.
 *
 * Per datagram it takes the stock sequence number, the datagram's length,
 * the sender's send time (the extension's sent_us, CLOCK_REALTIME) and
 * the arrival time on this host's CLOCK_REALTIME.  Loss, out-of-order and
 * jitter are udp_acct.h's (RFC 3550 jitter of sent_us against the
 * arrival, gain 1/16).  The one-way delay is arrival - sent_us as it is:
 * the two clocks are assumed synchronised, no offset is measured, so the
 * figures may be off by the clocks' difference, negative even.
 *
 * A receiver that joined late counts from the first datagram it saw:
 * what was sent before it (sequence numbers below the first one) is
 * neither received nor lost.
 */
#ifndef IPERF_MCAST_ACCT_H
#define IPERF_MCAST_ACCT_H

#include <stddef.h>
#include <stdint.h>

#include "udp_acct.h"

/* The figures of a span: one interval, or the whole test. */
struct mcast_stats {
	uint64_t bytes;    /* of the datagrams received (headers included) */
	uint64_t received; /* datagrams received (duplicates included) */
	int64_t packets;   /* datagrams expected: received in order + lost */
	int64_t lost;      /* gaps, less late arrivals (can dip below 0 in
			      an interval whose late ones filled an earlier
			      interval's gap) */
	uint64_t ooo;      /* late or duplicate datagrams */
	double jitter_ms;  /* at the span's end */
	uint64_t owd_n;    /* one-way delay samples */
	double owd_min_ms, owd_max_ms, owd_sum_ms;
};

struct mcast_acct {
	struct udp_acct ua;
	int counters64;     /* 64-bit sequence numbers */
	int started;        /* a datagram was accounted */
	uint64_t first_seq; /* the first datagram's sequence number */
	struct mcast_stats total; /* bytes, received, owd: whole test */
	struct mcast_stats ival;  /* bytes, received, owd: this interval */
	uint64_t hi_mark;   /* ua.hi at the interval's start */
	int64_t lost_mark;  /* ua.lost at the interval's start */
	uint64_t ooo_mark;  /* ua.ooo at the interval's start */
};

/* Times are taken within [0, WIRE_TIME_MAX_US] (wire_time.h: a hostile
 * or broken sender's cannot overflow a difference). */
void mcast_acct_init(struct mcast_acct *a, int counters64);
/* One data datagram (never an end marker). */
void mcast_acct_datagram(struct mcast_acct *a, uint64_t seq, size_t len,
    int64_t sent_us, int64_t arrival_us);
/* The interval since the last take (or the start) into *out; the next
 * interval starts now. */
void mcast_acct_interval(struct mcast_acct *a, struct mcast_stats *out);
/*
 * The whole test into *out.  With an end marker (have_total), the
 * sender's count of datagrams decides how many were expected: the ones
 * missing after the last received (the tail) are lost too.
 */
void mcast_acct_total(const struct mcast_acct *a, int have_total,
    uint64_t sender_packets, struct mcast_stats *out);
/* 100 * lost / packets, 0 when nothing was expected. */
double mcast_stats_lost_percent(const struct mcast_stats *s);
/* The mean one-way delay, 0 without samples. */
double mcast_stats_owd_mean_ms(const struct mcast_stats *s);

#endif /* IPERF_MCAST_ACCT_H */
