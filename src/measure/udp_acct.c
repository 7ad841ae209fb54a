/* udp_acct.c - UDP receiver accounting (see udp_acct.h). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "udp_acct.h"
#include "banned.h"

#define JITTER_GAIN 16.0

void
udp_acct_init(struct udp_acct *a)
{
	memset(a, 0, sizeof(*a));
}

uint64_t
udp_seq_unwrap32(uint32_t seq, uint64_t hi)
{
	uint64_t base = hi & ~(uint64_t)0xffffffffu;
	uint64_t cand = base | seq;
	uint64_t half = (uint64_t)1 << 31;

	/* Pick the candidate within half the counter range of `hi`. */
	if (cand + half < hi)
		cand += (uint64_t)1 << 32;
	else if (cand > hi + half && cand >= ((uint64_t)1 << 32))
		cand -= (uint64_t)1 << 32;
	return cand;
}

static void
account_sequence(struct udp_acct *a, uint64_t seq)
{
	if (seq > a->hi) {
		uint64_t gap = seq - a->hi - 1;

		/* A hostile jump (64-bit counters) saturates, never overflows. */
		if (gap > (uint64_t)(INT64_MAX - a->lost))
			a->lost = INT64_MAX;
		else
			a->lost += (int64_t)gap;
		a->hi = seq;
		return;
	}
	/* Late, reordered or duplicate: not distinguished. */
	a->ooo++;
	if (a->lost > 0)
		a->lost--;
}

static void
account_jitter(struct udp_acct *a, int64_t transit_us)
{
	int64_t d;

	if (!a->have_prev) {
		a->prev_transit_us = transit_us;
		a->have_prev = 1;
	}
	d = transit_us - a->prev_transit_us;
	if (d < 0)
		d = -d;
	a->prev_transit_us = transit_us;
	a->jitter += ((double)d / 1e6 - a->jitter) / JITTER_GAIN;
}

/* A sample: its own send time and its own arrival time (udp_acct.h). */
static int
timing_sample(struct udp_acct *a, int64_t sent_us, unsigned int flags)
{
	int same_send = a->have_sent && sent_us == a->prev_sent_us;

	a->prev_sent_us = sent_us;
	a->have_sent = 1;
	return !same_send && !(flags & UDP_ACCT_SHARED_ARRIVAL);
}

int
udp_acct_update(struct udp_acct *a, uint64_t seq, int counters64,
    int64_t sent_us, int64_t arrival_us, unsigned int flags)
{
	int sample = timing_sample(a, sent_us, flags);

	if (!counters64)
		seq = udp_seq_unwrap32((uint32_t)seq, a->hi);
	account_sequence(a, seq);
	if (sample)
		account_jitter(a, arrival_us - sent_us);
	a->packets++;
	return sample;
}

void
udp_acct_omit_reset(struct udp_acct *a)
{
	a->jitter = 0.0;
	a->have_prev = 0;
	a->have_sent = 0;
}

uint32_t
udp_acct_drops(struct udp_acct *a, uint32_t raw)
{
	uint32_t d = raw - a->drops_raw;

	a->drops_raw = raw;
	return d;
}

uint64_t
udp_gro_drops(uint64_t skbs, uint64_t segs, int64_t gap)
{
	uint64_t est = segs > 1 && skbs <= UINT64_MAX / segs ? skbs * segs :
	    skbs;

	if (gap < 0)
		gap = 0; /* late arrivals of earlier gaps */
	if (est > (uint64_t)gap)
		est = (uint64_t)gap;
	return est < skbs ? skbs : est;
}
