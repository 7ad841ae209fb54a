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
	p->depth = block_bits * burst > span ? block_bits * burst : span;
	p->tokens = block_bits * burst;
	p->last_us = now_us;
}

uint64_t
pacer_delay(struct pacer *p, size_t block_bytes, uint64_t now_us)
{
	double need = (double)block_bytes * 8.0;
	uint64_t wait;

	if (p->rate_bps <= 0)
		return 0;
	if (now_us > p->last_us) {
		p->tokens += p->rate_bps * (double)(now_us - p->last_us) / 1e6;
		if (p->tokens > p->depth)
			p->tokens = p->depth; /* a stall is not made up later */
		p->last_us = now_us;
	}
	if (p->tokens >= need) {
		p->tokens -= need;
		return 0;
	}
	wait = (uint64_t)((need - p->tokens) * 1e6 / p->rate_bps) + 1;
	return wait < PACER_MIN_WAIT_US ? PACER_MIN_WAIT_US : wait;
}
