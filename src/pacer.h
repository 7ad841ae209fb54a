/*
 * pacer.h - sender pacing as a token bucket with a bounded depth.  Pure:
 * the caller passes the clock, so the behaviour after a stall (no
 * catch-up flood) is unit tested without sleeping.
 */
#ifndef IPERF_PACER_H
#define IPERF_PACER_H

#include <stddef.h>
#include <stdint.h>

/* The bucket holds at most this long at the target rate (or the -b
 * rate/N burst, if larger): a sender that woke up late catches up by at
 * most that much at once.  (10 ms once: 1.25 MB at 1 Gbit/s, more than a
 * stock receiver's socket buffer, so its loss went up.) */
#define PACER_DEPTH_US 1000ULL
/* A wait shorter than this becomes this long: at high packet rates
 * (1400-byte datagrams at 1 Gbit/s leave 11 us apart) the sender wakes
 * once per PACER_MIN_WAIT_US and sends what is due then, one datagram per
 * call, instead of sleeping and waking for each (which took a whole CPU). */
#define PACER_MIN_WAIT_US 50ULL

struct pacer {
	double rate_bps; /* bits per second; 0 = unlimited */
	double tokens;   /* bits available now */
	double depth;    /* most bits that can accumulate */
	uint64_t last_us;
};

/* `burst` blocks may leave back to back (0 or 1 = one at a time). */
void pacer_init(struct pacer *p, uint64_t rate_bps, size_t block_bytes,
    int burst, uint64_t now_us);
/* 0 when a block of this size may go now (its tokens are taken), else
 * the microseconds to wait before asking again (at least
 * PACER_MIN_WAIT_US). */
uint64_t pacer_delay(struct pacer *p, size_t block_bytes, uint64_t now_us);

#endif /* IPERF_PACER_H */
