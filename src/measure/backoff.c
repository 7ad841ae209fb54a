/* backoff.c - an unpaced UDP sender's hold for its receiver (see
 * backoff.h). */
#include "config.h"

#include "backoff.h"
#include "banned.h"

void
backoff_init(struct backoff *b, uint64_t now_us)
{
	b->cap_bps = 0;
	b->rate_bps = 0;
	b->win_start_us = now_us;
	b->win_bytes = 0;
	b->top_bps = 0;
	b->top_us = 0;
	b->cut_us = b->raise_us = 0;
	b->cuts = 0;
}

void
backoff_sent(struct backoff *b, uint64_t bytes, uint64_t now_us)
{
	uint64_t span;

	b->win_bytes += bytes;
	if (now_us < b->win_start_us)
		b->win_start_us = now_us; /* a clock that went back */
	span = now_us - b->win_start_us;
	if (span < BACKOFF_WIN_US)
		return;
	b->rate_bps = (double)b->win_bytes * 8.0 * 1e6 / (double)span;
	b->win_start_us = now_us;
	b->win_bytes = 0;
}

int
backoff_dropped(struct backoff *b, uint64_t now_us, double intake_bps)
{
	double base, cap;

	if (intake_bps <= 0)
		return 0; /* the receiver's intake is not known yet */
	if (intake_bps > b->top_bps || now_us > b->top_us + BACKOFF_TOP_US) {
		b->top_bps = intake_bps;
		b->top_us = now_us;
	}
	if (b->cuts > 0 && now_us < b->cut_us + BACKOFF_HOLD_US)
		return 0;
	base = b->rate_bps;
	if (b->cap_bps > 0 && (base <= 0 || b->cap_bps < base))
		base = b->cap_bps;
	if (base <= 0 || intake_bps >= base * BACKOFF_MISS)
		return 0; /* it takes nearly all: not the rate's doing */
	cap = intake_bps * BACKOFF_INTAKE;
	if (cap < base * BACKOFF_CUT)
		cap = base * BACKOFF_CUT;
	if (cap < b->top_bps * BACKOFF_FLOOR)
		cap = b->top_bps * BACKOFF_FLOOR;
	if (cap >= base)
		return 0; /* at the floor already */
	b->cap_bps = cap;
	b->cut_us = b->raise_us = now_us;
	b->cuts++;
	return 1;
}

double
backoff_cap(struct backoff *b, uint64_t now_us)
{
	if (b->cap_bps <= 0)
		return 0;
	while (now_us >= b->raise_us + BACKOFF_RAISE_US) {
		b->cap_bps *= BACKOFF_RAISE;
		b->raise_us += BACKOFF_RAISE_US;
		if (b->rate_bps > 0 &&
		    b->cap_bps > b->rate_bps * BACKOFF_DROP_FACTOR) {
			b->cap_bps = 0;
			return 0;
		}
	}
	return b->cap_bps;
}
