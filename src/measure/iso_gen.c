/* iso_gen.c - log-normal frame sizes (see iso_gen.h). */
#include "config.h"

#include <math.h>

#include "iso_gen.h"
#include "banned.h"

void
iso_gen_init(struct iso_gen *g, double fps, uint64_t mean_bps,
    uint64_t sd_bps, uint64_t seed)
{
	double v;

	g->state = seed != 0 ? seed : 0x9e3779b97f4a7c15ULL;
	g->mean = fps > 0 ? (double)mean_bps / 8.0 / fps : 0;
	g->sd = fps > 0 ? (double)sd_bps / 8.0 / fps : 0;
	g->have_spare = 0;
	g->spare = 0;
	if (g->mean <= 0 || g->sd <= 0) {
		g->sigma = 0;
		g->mu = g->mean > 0 ? log(g->mean) : 0;
		return;
	}
	v = log(1.0 + (g->sd * g->sd) / (g->mean * g->mean));
	g->sigma = sqrt(v);
	g->mu = log(g->mean) - v / 2.0;
}

static uint64_t
iso_gen_next(struct iso_gen *g)
{
	uint64_t x = g->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	g->state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static double
iso_gen_uniform(struct iso_gen *g)
{
	/* 53 bits, then moved off 0 so that log() is finite */
	return ((double)(iso_gen_next(g) >> 11) + 0.5) / 9007199254740992.0;
}

double
iso_gen_normal(struct iso_gen *g)
{
	double r, t;

	if (g->have_spare) {
		g->have_spare = 0;
		return g->spare;
	}
	r = sqrt(-2.0 * log(iso_gen_uniform(g)));
	t = 6.283185307179586 * iso_gen_uniform(g); /* 2 pi */
	g->spare = r * sin(t);
	g->have_spare = 1;
	return r * cos(t);
}

uint64_t
iso_next_tick(uint64_t k, uint64_t elapsed_us, double period_us,
    uint64_t *skipped)
{
	uint64_t due = period_us > 0 ?
	    (uint64_t)((double)elapsed_us / period_us) : k + 1;

	if (due <= k + 1)
		return k + 1;
	*skipped += due - (k + 1);
	return due;
}

uint64_t
iso_gen_frame(struct iso_gen *g, uint64_t min_bytes, uint64_t max_bytes)
{
	double b = g->sigma > 0 ? exp(g->mu + g->sigma * iso_gen_normal(g)) :
	    g->mean;

	b = floor(b + 0.5);
	if (!(b >= (double)min_bytes))
		return min_bytes;
	if (b >= (double)max_bytes)
		return max_bytes;
	return (uint64_t)b;
}
