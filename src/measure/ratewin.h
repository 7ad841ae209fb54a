/*
 * ratewin.h - average bit rate over a sliding time window, from samples
 * of a cumulative byte counter (--server-bitrate-limit).  Pure: no clock,
 * no I/O; the caller passes the sample times.
 */
#ifndef IPERF_RATEWIN_H
#define IPERF_RATEWIN_H

#include <stdint.h>

#define RATEWIN_CAP 64 /* samples kept (a 60 s window sampled every 1 s) */

struct ratewin {
	uint64_t window_us; /* averaging window */
	uint64_t slack_us;  /* a span this much shorter still counts as full
			     * (at most half the window) */
	uint64_t t_us[RATEWIN_CAP];
	uint64_t bytes[RATEWIN_CAP];
	unsigned int first; /* index of the oldest sample */
	unsigned int count;
};

void ratewin_init(struct ratewin *w, uint64_t window_us, uint64_t slack_us);
/*
 * Record the cumulative byte count at t_us (times and counts must not
 * decrease).  Once the samples kept span the window (at least
 * window - slack), returns 1 with *bps set to the average bit rate between
 * the newest sample and the newest one that is a window old or older;
 * returns 0 before that.
 */
int ratewin_add(struct ratewin *w, uint64_t t_us, uint64_t bytes,
    double *bps);

#endif /* IPERF_RATEWIN_H */
