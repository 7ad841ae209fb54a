/* latstat.c - log-linear histograms and their percentiles (latstat.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "latstat.h"
#include "banned.h"

static int
msb64(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

unsigned int
latstat_bucket(uint64_t v)
{
	int msb, shift;

	if (v < 2 * (uint64_t)LATSTAT_SUB)
		return (unsigned int)v;
	msb = msb64(v);
	if (msb >= LATSTAT_MAX_BITS)
		return LATSTAT_BUCKETS - 1;
	shift = msb - (int)LATSTAT_SUB_BITS;
	return (unsigned int)(shift + 1) * LATSTAT_SUB +
	    (unsigned int)((v >> shift) - LATSTAT_SUB);
}

uint64_t
latstat_bucket_low(unsigned int b)
{
	unsigned int shift;

	if (b < 2 * LATSTAT_SUB)
		return b;
	shift = b / LATSTAT_SUB - 1;
	return ((uint64_t)LATSTAT_SUB + b % LATSTAT_SUB) << shift;
}

uint64_t
latstat_bucket_high(unsigned int b)
{
	if (b < 2 * LATSTAT_SUB)
		return b;
	return latstat_bucket_low(b) + (((uint64_t)1 << (b / LATSTAT_SUB - 1)) -
	    1);
}

void
latstat_init(struct latstat *h)
{
	memset(h, 0, sizeof(*h));
}

void
latstat_free(struct latstat *h)
{
	free(h->counts);
	latstat_init(h);
}

void
latstat_reset(struct latstat *h)
{
	if (h->counts != NULL)
		memset(h->counts, 0, LATSTAT_BUCKETS * sizeof(h->counts[0]));
	h->n = h->sum = h->min = h->max = 0;
}

static int
ensure(struct latstat *h)
{
	if (h->counts == NULL)
		h->counts = calloc(LATSTAT_BUCKETS, sizeof(h->counts[0]));
	return h->counts != NULL ? 0 : -1;
}

int
latstat_add(struct latstat *h, uint64_t v)
{
	int rc = ensure(h);

	if (h->n == 0 || v < h->min)
		h->min = v;
	if (h->n == 0 || v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
	if (rc == 0)
		h->counts[latstat_bucket(v)]++;
	return rc;
}

int
latstat_merge(struct latstat *dst, const struct latstat *src)
{
	unsigned int i;

	if (src->n == 0)
		return 0;
	if (dst->n == 0 || src->min < dst->min)
		dst->min = src->min;
	if (dst->n == 0 || src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
	if (src->counts == NULL)
		return 0;
	if (ensure(dst) == -1)
		return -1;
	for (i = 0; i < LATSTAT_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	return 0;
}

int
latstat_copy(struct latstat *dst, const struct latstat *src)
{
	latstat_reset(dst);
	return latstat_merge(dst, src);
}

uint64_t
latstat_at_rank(const struct latstat *h, uint64_t rank)
{
	uint64_t seen = 0, v;
	unsigned int b;

	if (h->n == 0)
		return 0;
	if (rank >= h->n)
		return h->max;
	if (h->counts == NULL) /* the allocation failed: what is exact */
		return h->min;
	if (rank < 1)
		rank = 1;
	for (b = 0; b < LATSTAT_BUCKETS; b++) {
		seen += h->counts[b];
		if (seen >= rank)
			break;
	}
	if (b >= LATSTAT_BUCKETS)
		return h->max;
	v = latstat_bucket_low(b) +
	    (latstat_bucket_high(b) - latstat_bucket_low(b)) / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

uint64_t
latstat_rank_of(uint64_t n, double p)
{
	double x = p / 100.0 * (double)n;
	uint64_t rank = (uint64_t)x;

	if ((double)rank < x)
		rank++;
	return rank < 1 ? 1 : rank;
}

uint64_t
latstat_percentile(const struct latstat *h, double p)
{
	if (h->n == 0)
		return 0;
	if (p >= 100.0)
		return h->max;
	return latstat_at_rank(h, latstat_rank_of(h->n, p));
}

void
latstat_summary(const struct latstat *h, struct latsum *out)
{
	memset(out, 0, sizeof(*out));
	out->samples = h->n;
	if (h->n == 0)
		return;
	out->min = h->min;
	out->max = h->max;
	out->p50 = latstat_percentile(h, 50.0);
	out->p90 = latstat_percentile(h, 90.0);
	out->p99 = latstat_percentile(h, 99.0);
	out->p999 = latstat_percentile(h, 99.9);
	out->mean = (double)h->sum / (double)h->n;
}

static double
scaled(double v, double divisor)
{
	/* values are never negative: round half up without libm */
	return (double)(uint64_t)(v / divisor * 1000.0 + 0.5) / 1000.0;
}

cJSON *
latsum_to_json(const struct latsum *s, double divisor, unsigned int fields)
{
	static const struct {
		unsigned int bit;
		const char *key;
	} keys[] = {
		{ LATSUM_MIN, "min" }, { LATSUM_P50, "p50" },
		{ LATSUM_P90, "p90" }, { LATSUM_P99, "p99" },
		{ LATSUM_P999, "p999" }, { LATSUM_MAX, "max" },
	};
	const uint64_t *vals[] = { &s->min, &s->p50, &s->p90, &s->p99,
		&s->p999, &s->max };
	cJSON *o = cJSON_CreateObject();
	size_t i;

	if (o == NULL)
		return NULL;
	if ((fields & LATSUM_SAMPLES) &&
	    cJSON_AddNumberToObject(o, "samples", (double)s->samples) == NULL)
		goto fail;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if ((fields & keys[i].bit) &&
		    cJSON_AddNumberToObject(o, keys[i].key,
			scaled((double)*vals[i], divisor)) == NULL)
			goto fail;
	}
	if ((fields & LATSUM_MEAN) &&
	    cJSON_AddNumberToObject(o, "mean", scaled(s->mean, divisor)) ==
	    NULL)
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}
