/* ratewin.c - sliding-window average bit rate (see ratewin.h). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "ratewin.h"
#include "banned.h"

void
ratewin_init(struct ratewin *w, uint64_t window_us, uint64_t slack_us)
{
	memset(w, 0, sizeof(*w));
	w->window_us = window_us;
	w->slack_us = slack_us < window_us / 2 ? slack_us : window_us / 2;
}

static unsigned int
slot(const struct ratewin *w, unsigned int i)
{
	return (w->first + i) % RATEWIN_CAP;
}

/* The span from sample i to the newest one covers the window. */
static int
spans_window(const struct ratewin *w, unsigned int i, uint64_t now_us)
{
	uint64_t t = w->t_us[slot(w, i)];

	return now_us >= t && now_us - t + w->slack_us >= w->window_us;
}

int
ratewin_add(struct ratewin *w, uint64_t t_us, uint64_t bytes, double *bps)
{
	unsigned int oldest, newest;
	uint64_t dt;

	if (w->count == RATEWIN_CAP) {
		w->first = slot(w, 1);
		w->count--;
	}
	newest = slot(w, w->count);
	w->t_us[newest] = t_us;
	w->bytes[newest] = bytes;
	w->count++;
	/* Keep exactly one sample at or beyond the window's start. */
	while (w->count > 2 && spans_window(w, 1, t_us)) {
		w->first = slot(w, 1);
		w->count--;
	}
	if (w->count < 2 || !spans_window(w, 0, t_us))
		return 0;
	oldest = w->first;
	dt = t_us - w->t_us[oldest];
	if (dt == 0)
		return 0;
	*bps = (double)(bytes - w->bytes[oldest]) * 8.0 * 1e6 / (double)dt;
	return 1;
}
