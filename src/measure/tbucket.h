/*
 * tbucket.h - a token bucket: at most `burst` events at once, refilled at
 * a steady rate (--accept-rate N[/SECS][:BURST]).  Pure: no clock, no
 * I/O; the caller passes the times.
 */
#ifndef IPERF_TBUCKET_H
#define IPERF_TBUCKET_H

#include <stdint.h>

#define TBUCKET_MAX_N 1000000     /* events per period, and burst */
#define TBUCKET_MAX_SECS 86400.0  /* the longest period */

struct tbucket {
	double tokens;   /* 0..burst */
	double rate;     /* tokens per us */
	double burst;    /* the bucket's size */
	uint64_t last_us; /* time of the last refill */
};

/*
 * "N" (N per second), "N/SECS" (N per SECS seconds), either followed by
 * ":BURST" (the bucket's size; default N).  N and BURST are decimal
 * integers in 1..TBUCKET_MAX_N; SECS is a decimal number ("10", "0.5",
 * ".5", at most 9 decimals) in (0, TBUCKET_MAX_SECS].  No signs, spaces
 * or exponents.  0 with the rate per second and the burst, or -1 (outputs
 * untouched).
 */
int tbucket_parse(const char *s, double *per_second, double *burst);
/* A full bucket at now_us. */
void tbucket_init(struct tbucket *b, double per_second, double burst,
    uint64_t now_us);
/*
 * Refill by the time since the last call (up to the burst), then take one
 * token: 1 taken, 0 empty.  A clock that goes back refills nothing and
 * counts on from the earlier time.
 */
int tbucket_take(struct tbucket *b, uint64_t now_us);

#endif /* IPERF_TBUCKET_H */
