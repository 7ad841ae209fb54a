/* iso_acc.c - frame statistics of --isochronous (see iso_acc.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iso_acc.h"
#include "wire_time.h"
#include "banned.h"

void
iso_sizes_add(struct iso_sizes *s, uint64_t bytes)
{
	if (s->n == 0 || bytes < s->min)
		s->min = bytes;
	if (bytes > s->max)
		s->max = bytes;
	s->n++;
	s->sum += (double)bytes;
	s->sumsq += (double)bytes * (double)bytes;
}

double
iso_sizes_mean(const struct iso_sizes *s)
{
	return s->n > 0 ? s->sum / (double)s->n : 0;
}

double
iso_sizes_stddev(const struct iso_sizes *s)
{
	double m = iso_sizes_mean(s), v;

	if (s->n < 2)
		return 0;
	v = (s->sumsq - (double)s->n * m * m) / (double)(s->n - 1);
	return v > 0 ? sqrt(v) : 0;
}

void
iso_acc_init(struct iso_acc *a)
{
	memset(a, 0, sizeof(*a));
	a->next_id = 1;
}

void
iso_acc_release(struct iso_acc *a)
{
	free(a->lat_us);
	free(a->ia_us);
	a->lat_us = a->ia_us = NULL;
	a->n_lat = a->cap_lat = a->n_ia = a->cap_ia = 0;
}

/* Append v unless the series is full or memory is short. */
static void
push(int64_t **arr, size_t *n, size_t *cap, int64_t v)
{
	if (*n == *cap) {
		size_t c = *cap == 0 ? 1024 : *cap * 2;
		int64_t *p;

		if (*cap >= ISO_MAX_SAMPLES)
			return;
		if (c > ISO_MAX_SAMPLES)
			c = ISO_MAX_SAMPLES;
		p = realloc(*arr, c * sizeof(*p));
		if (p == NULL)
			return;
		*arr = p;
		*cap = c;
	}
	(*arr)[(*n)++] = v;
}

/* A frame received whole: its last byte came at arrival_us. */
static void
frame_done(struct iso_acc *a, int64_t tick_us, uint64_t bytes,
    int64_t arrival_us)
{
	int64_t lat;

	tick_us = wire_time_us(tick_us);
	arrival_us = wire_time_us(arrival_us);
	lat = arrival_us - tick_us;

	a->frames++;
	iso_sizes_add(&a->sizes, bytes);
	iso_sizes_add(&a->sizes_ival, bytes);
	push(&a->lat_us, &a->n_lat, &a->cap_lat, lat);
	if (a->have_prev) {
		int64_t d = lat - a->prev_lat;
		double ad = (double)(d < 0 ? -d : d);

		a->jitter_us += (ad - a->jitter_us) / 16.0;
		push(&a->ia_us, &a->n_ia, &a->cap_ia,
		    arrival_us - a->prev_arrival);
	}
	a->have_prev = 1;
	a->prev_lat = lat;
	a->prev_arrival = arrival_us;
}

void
iso_acc_datagram(struct iso_acc *a, uint32_t id, int64_t tick_us,
    uint32_t frame_bytes, size_t len, int64_t arrival_us)
{
	if (!(a->open && id == a->cur_id)) {
		if (id < a->next_id)
			return; /* a frame already done or given up */
		if (a->open)
			a->lost++; /* short of bytes */
		a->lost += id - a->next_id; /* never seen */
		a->open = 1;
		a->cur_id = id;
		a->cur_bytes = frame_bytes;
		a->cur_got = 0;
		a->cur_tick = tick_us;
		a->next_id = id + 1;
	}
	a->cur_got += len;
	if (a->cur_got >= a->cur_bytes) {
		a->open = 0;
		frame_done(a, a->cur_tick, a->cur_bytes, arrival_us);
	}
}

void
iso_acc_record(struct iso_acc *a, uint32_t id, int64_t tick_us,
    uint32_t bytes, int64_t arrival_us)
{
	if (id < a->next_id)
		return;
	a->lost += id - a->next_id;
	a->next_id = id + 1;
	frame_done(a, tick_us, bytes, arrival_us);
}

static int
cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* The ceil(p/100 * n)-th smallest of the sorted s[0..n). */
static double
rank(const int64_t *s, size_t n, double p)
{
	size_t r = (size_t)ceil(p / 100.0 * (double)n);

	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return (double)s[r - 1];
}

int
iso_dist_of(const int64_t *v, size_t n, struct iso_dist *out)
{
	int64_t *s;
	double sum = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return 0;
	s = malloc(n * sizeof(*s));
	if (s == NULL)
		return -1;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_i64);
	for (i = 0; i < n; i++)
		sum += (double)s[i];
	out->samples = n;
	out->min = (double)s[0];
	out->max = (double)s[n - 1];
	out->mean = sum / (double)n;
	out->p50 = rank(s, n, 50);
	out->p99 = rank(s, n, 99);
	free(s);
	return 0;
}

void
iso_dist_shift(struct iso_dist *d, double delta_us)
{
	if (d->samples == 0)
		return;
	d->min += delta_us;
	d->mean += delta_us;
	d->p50 += delta_us;
	d->p99 += delta_us;
	d->max += delta_us;
}
