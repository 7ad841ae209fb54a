/* rpm_calc.c - trimmed means, aggregate and stability of --rpm
 * (rpm_calc.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "rpm_calc.h"
#include "banned.h"

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

double
rpm_trimmed_mean(const uint64_t *sorted, size_t n)
{
	size_t keep, i;
	double sum = 0;

	if (n == 0)
		return 0;
	keep = (size_t)ceil((double)n * RPM_TRIM_KEEP);
	if (keep == 0)
		keep = 1;
	for (i = 0; i < keep; i++)
		sum += (double)sorted[i];
	return sum / (double)keep;
}

/* Nearest-rank percentile of n sorted values. */
static double
pct(const uint64_t *sorted, size_t n, double p)
{
	size_t r = (size_t)ceil(p * (double)n);

	if (n == 0)
		return 0;
	return (double)sorted[r == 0 ? 0 : r - 1];
}

void
rpm_dist_of(uint64_t *v, size_t n, struct rpm_dist *out)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_u64);
	out->samples = n;
	out->p50_us = pct(v, n, 0.50) / 1000.0;
	out->p90_us = pct(v, n, 0.90) / 1000.0;
	out->trimmed_us = rpm_trimmed_mean(v, n) / 1000.0;
}

double
rpm_aggregate(double self, double fconn, double frr)
{
	return self / 2 + fconn / 4 + frr / 4;
}

double
rpm_from_ms(double ms)
{
	return ms > 0 ? 60000.0 / ms : 0;
}

void
rpm_stab_init(struct rpm_stab *st)
{
	st->nv = st->nma = 0;
	st->last_ma = 0;
}

int
rpm_stab_push(struct rpm_stab *st, double value)
{
	double sum = 0, var = 0, mean;
	unsigned int i;

	st->v[st->nv++ % RPM_MAD] = value;
	if (st->nv < RPM_MAD)
		return 0;
	for (i = 0; i < RPM_MAD; i++)
		sum += st->v[i];
	st->last_ma = sum / RPM_MAD;
	st->ma[st->nma++ % RPM_MAD] = st->last_ma;
	if (st->nma < RPM_MAD)
		return 0;
	for (sum = 0, i = 0; i < RPM_MAD; i++)
		sum += st->ma[i];
	mean = sum / RPM_MAD;
	for (i = 0; i < RPM_MAD; i++)
		var += (st->ma[i] - mean) * (st->ma[i] - mean);
	return sqrt(var / RPM_MAD) <= RPM_SDT * st->last_ma;
}
