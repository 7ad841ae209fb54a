/*
 * iso_gen.h - --isochronous frame sizes: a log-normal draw per frame from
 * a seedable xorshift64* generator (Box-Muller for the normal deviate).
 * Pure: no clock, no I/O; the same seed gives the same sizes.
 *
 * The wanted sizes have mean m and standard deviation s (bytes).  The
 * underlying normal then has sigma^2 = ln(1 + s^2/m^2) and
 * mu = ln(m) - sigma^2/2, so that exp(N(mu, sigma^2)) has exactly that
 * mean and deviation.  s = 0 gives m every time (rounded to a byte).
 */
#ifndef IPERF_ISO_GEN_H
#define IPERF_ISO_GEN_H

#include <stdint.h>

struct iso_gen {
	uint64_t state;     /* xorshift64*, never 0 */
	double mean, sd;    /* bytes */
	double mu, sigma;   /* of the underlying normal */
	int have_spare;     /* Box-Muller makes two deviates at a time */
	double spare;
};

/* Sizes for frames_per_s frames a second from the mean and deviation
 * given as rates (bits/s): mean / 8 / fps bytes each, on average. */
void iso_gen_init(struct iso_gen *g, double fps, uint64_t mean_bps,
    uint64_t sd_bps, uint64_t seed);
/* A standard normal deviate. */
double iso_gen_normal(struct iso_gen *g);
/* The next frame's size in bytes, at least min_bytes and at most
 * max_bytes. */
uint64_t iso_gen_frame(struct iso_gen *g, uint64_t min_bytes,
    uint64_t max_bytes);

/*
 * The tick after frame k went out, elapsed_us after tick 0, ticks
 * period_us apart: k + 1 while the sender is less than a period late
 * (it catches up at once), else the newest tick due, the ticks jumped
 * over added to *skipped.
 */
uint64_t iso_next_tick(uint64_t k, uint64_t elapsed_us, double period_us,
    uint64_t *skipped);

#endif /* IPERF_ISO_GEN_H */
