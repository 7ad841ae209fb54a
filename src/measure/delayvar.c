/* delayvar.c - one-way delay variation from datagram timestamps
 * (see delayvar.h). */
#include "config.h"

#include <string.h>

#include "delayvar.h"
#include "banned.h"

#define US_PER_S 1000000

void
dv_hist_init(struct dv_hist *h)
{
	latstat_init(&h->above);
	latstat_init(&h->below);
}

void
dv_hist_free(struct dv_hist *h)
{
	latstat_free(&h->above);
	latstat_free(&h->below);
}

void
dv_hist_reset(struct dv_hist *h)
{
	latstat_reset(&h->above);
	latstat_reset(&h->below);
}

int
dv_hist_merge(struct dv_hist *dst, const struct dv_hist *src)
{
	int a = latstat_merge(&dst->above, &src->above);
	int b = latstat_merge(&dst->below, &src->below);

	return a == 0 && b == 0 ? 0 : -1;
}

uint64_t
dv_hist_count(const struct dv_hist *h)
{
	return h->above.n + h->below.n;
}

#ifdef HAVE_PEERIVAL
/* cnt samples of offset off (within [lo, hi]) into dst, minus min_off. */
static int
add_shifted(struct latstat *dst, int64_t off, uint64_t cnt, int64_t lo,
    int64_t hi, int64_t min_off)
{
	uint64_t v;

	off = off < lo ? lo : off > hi ? hi : off;
	v = off > min_off ? (uint64_t)(off - min_off) : 0;
	if (latstat_add(dst, v) == -1)
		return -1;
	dst->counts[latstat_bucket(v)] += (uint32_t)(cnt - 1);
	dst->n += cnt - 1;
	dst->sum += v * (cnt - 1);
	return 0;
}

/* Every bucket of one side (sign -1: h->below holds -offsets). */
static int
merge_side(struct latstat *dst, const struct latstat *h, int sign,
    int64_t lo, int64_t hi, int64_t min_off)
{
	unsigned int b;

	if (h->n == 0 || h->counts == NULL)
		return 0;
	for (b = 0; b < LATSTAT_BUCKETS; b++) {
		uint64_t mid;

		if (h->counts[b] == 0)
			continue;
		mid = latstat_bucket_low(b) +
		    (latstat_bucket_high(b) - latstat_bucket_low(b)) / 2;
		if (add_shifted(dst, sign * (int64_t)mid, h->counts[b], lo, hi,
		    min_off) == -1)
			return -1;
	}
	return 0;
}

int
dv_hist_merge_shifted(struct latstat *dst, const struct dv_hist *src,
    int64_t min_off)
{
	uint64_t n0, min0, max0;
	int64_t lo, hi;

	if (dv_hist_count(src) == 0)
		return 0;
	lo = src->below.n > 0 ? -(int64_t)src->below.max :
	    (int64_t)src->above.min;
	hi = src->above.n > 0 ? (int64_t)src->above.max :
	    -(int64_t)src->below.min;
	n0 = dst->n;
	min0 = dst->min;
	max0 = dst->max;
	if (merge_side(dst, &src->below, -1, lo, hi, min_off) == -1 ||
	    merge_side(dst, &src->above, 1, lo, hi, min_off) == -1)
		return -1;
	/* the extremes exactly, not as bucket midpoints */
	lo = lo > min_off ? lo - min_off : 0;
	hi = hi > min_off ? hi - min_off : 0;
	dst->min = n0 > 0 && min0 < (uint64_t)lo ? min0 : (uint64_t)lo;
	dst->max = n0 > 0 && max0 > (uint64_t)hi ? max0 : (uint64_t)hi;
	return 0;
}
#endif

void
delayvar_init(struct delayvar *dv)
{
	memset(dv, 0, sizeof(*dv));
	dv_hist_init(&dv->cur);
}

void
delayvar_free(struct delayvar *dv)
{
	dv_hist_free(&dv->cur);
	delayvar_init(dv);
}

void
dv_arrival_set(struct dv_arrival *a, uint64_t arrival_us)
{
	if (a->base_us != 0 && arrival_us >= a->base_us &&
	    arrival_us - a->base_us < US_PER_S) {
		a->usec = (int32_t)(arrival_us - a->base_us);
		return;
	}
	a->sec = (uint32_t)(arrival_us / US_PER_S);
	a->usec = (int32_t)(arrival_us % US_PER_S);
	a->base_us = arrival_us - (uint64_t)a->usec;
}

int
delayvar_add(struct delayvar *dv, uint32_t sec, uint32_t usec,
    const struct dv_arrival *at, int64_t *off_us)
{
	uint32_t tsec;
	int32_t tusec;
	int64_t off;

	if (usec >= US_PER_S)
		return -1;
	/* transit = arrival - send, seconds modulo 2^32 */
	tsec = at->sec - sec;
	tusec = at->usec - (int32_t)usec;
	if (!dv->have) {
		dv->have = 1;
		dv->ref_sec = tsec;
		dv->ref_usec = tusec;
		dv->min_off = 0;
	}
	/* the difference of two transits is small: signed 32-bit seconds */
	off = (int64_t)(int32_t)(tsec - dv->ref_sec) * US_PER_S +
	    ((int64_t)tusec - dv->ref_usec);
	if (off < dv->min_off)
		dv->min_off = off;
	if (off_us != NULL)
		*off_us = off;
	if (off >= 0)
		return latstat_add(&dv->cur.above, (uint64_t)off) == 0 ? 0 : -2;
	return latstat_add(&dv->cur.below, (uint64_t)-off) == 0 ? 0 : -2;
}

void
delayvar_take(struct delayvar *dv, struct dv_hist *out)
{
	struct dv_hist t = dv->cur;

	dv->cur = *out;
	*out = t;
}

/* The offset at nearest rank `rank` (1..n) of all samples in order. */
static int64_t
offset_at(const struct dv_hist *h, uint64_t rank)
{
	uint64_t nb = h->below.n;

	if (rank <= nb)
		return -(int64_t)latstat_at_rank(&h->below, nb - rank + 1);
	return (int64_t)latstat_at_rank(&h->above, rank - nb);
}

static uint64_t
above_min(int64_t off, int64_t min_off)
{
	return off > min_off ? (uint64_t)(off - min_off) : 0;
}

void
dv_summary(const struct dv_hist *h, int64_t min_off, struct latsum *out)
{
	static const double pct[] = { 50.0, 90.0, 99.0, 99.9 };
	uint64_t *vals[] = { &out->p50, &out->p90, &out->p99, &out->p999 };
	uint64_t n = dv_hist_count(h);
	int64_t lo, hi;
	double sum;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->samples = n;
	if (n == 0)
		return;
	lo = h->below.n > 0 ? -(int64_t)h->below.max : (int64_t)h->above.min;
	hi = h->above.n > 0 ? (int64_t)h->above.max : -(int64_t)h->below.min;
	out->min = above_min(lo, min_off);
	out->max = above_min(hi, min_off);
	for (i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		*vals[i] = above_min(offset_at(h, latstat_rank_of(n, pct[i])),
		    min_off);
	sum = (double)h->above.sum - (double)h->below.sum;
	out->mean = sum / (double)n - (double)min_off;
	if (out->mean < 0)
		out->mean = 0;
}
