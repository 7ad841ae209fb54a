/*
 * pacer.h - sender pacing as a token bucket with a bounded depth.  Pure:
 * the caller passes the clock, so the behaviour after a stall (no
 * catch-up flood) is unit tested without sleeping.
 */
#ifndef IPERF_PACER_H
#define IPERF_PACER_H

#include <stddef.h>
#include <stdint.h>

/* Depth beyond the burst, in time at the target rate: it absorbs late
 * wake-ups of the pacing sleep (a few ms on a loaded host). */
#define PACER_DEPTH_US 10000ULL

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
 * the microseconds to wait before asking again. */
uint64_t pacer_delay(struct pacer *p, size_t block_bytes, uint64_t now_us);

#endif /* IPERF_PACER_H */
