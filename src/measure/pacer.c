/* pacer.c - token-bucket pacing (see pacer.h). */
#include "config.h"

#include "pacer.h"
#include "banned.h"

void
pacer_init(struct pacer *p, uint64_t rate_bps, size_t block_bytes, int burst,
    uint64_t now_us)
{
	double block_bits = (double)block_bytes * 8.0;
	double span;

	if (burst < 1)
		burst = 1;
	p->rate_bps = (double)rate_bps;
	span = p->rate_bps * (double)PACER_DEPTH_US / 1e6;
	p->tokens = block_bits * burst;
	if (burst < PACER_DEPTH_BLOCKS)
		burst = PACER_DEPTH_BLOCKS;
	p->depth = block_bits * burst > span ? block_bits * burst : span;
	p->owed = 0;
	p->owed_cap = p->rate_bps * (double)PACER_OWED_US / 1e6;
	p->last_us = now_us;
}

/* dt_us more of the rate, and up to PACER_CATCHUP - 1 times as much of
 * what is owed; beyond the depth, the rest is owed (a stall: paid back
 * later, not at once). */
static void
refill(struct pacer *p, uint64_t dt_us)
{
	double add = p->rate_bps * (double)dt_us / 1e6;
	double back = p->owed < add * (PACER_CATCHUP - 1) ? p->owed :
	    add * (PACER_CATCHUP - 1);

	p->owed -= back;
	p->tokens += add + back;
	if (p->tokens > p->depth) {
		p->owed += p->tokens - p->depth;
		p->tokens = p->depth;
		if (p->owed > p->owed_cap)
			p->owed = p->owed_cap;
	}
}

uint64_t
pacer_delay(struct pacer *p, size_t block_bytes, uint64_t now_us)
{
	double need = (double)block_bytes * 8.0;
	double speed;
	uint64_t wait;

	if (p->rate_bps <= 0)
		return 0;
	if (now_us > p->last_us) {
		refill(p, now_us - p->last_us);
		p->last_us = now_us;
	}
	if (p->tokens >= need) {
		p->tokens -= need;
		return 0;
	}
	/* what is owed comes in on top of the rate */
	speed = p->owed > 0 ? PACER_CATCHUP * p->rate_bps : p->rate_bps;
	wait = (uint64_t)((need - p->tokens) * 1e6 / speed) + 1;
	return wait < PACER_MIN_WAIT_US ? PACER_MIN_WAIT_US : wait;
}

int
pacer_behind(const struct pacer *p)
{
	return p->owed > 0;
}
