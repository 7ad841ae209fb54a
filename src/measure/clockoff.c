/* clockoff.c - clock offset and one-way delays (see clockoff.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "clockoff.h"
#include "banned.h"

#define CLEAN_SLACK_NS 200000LL  /* clean: delta <= 2 * lowest + 200 us */
#define STEP_MIN_NS 1000000LL    /* a step is at least 1 ms ... */
#define STEP_DRIFT_PPM 200       /* ... beyond 200 ppm of drift */
/* Sane times (a peer's may be anything): absolute ones below 2^62 ns
 * (year 2116), the two clocks within 2^60 ns (36 years) of each other;
 * then no sum or difference here leaves int64. */
#define T_MAX (1LL << 62)
#define APART_MAX (1LL << 60)

static int
sane(const struct clockoff_rec *r)
{
	return r->t1 >= 0 && r->t1 < T_MAX && r->t2 >= 0 && r->t2 < T_MAX &&
	    r->t3 >= 0 && r->t3 < T_MAX && r->t4 >= 0 && r->t4 < T_MAX &&
	    r->t4 >= r->t1 && r->t3 >= r->t2 &&
	    r->t2 - r->t1 < APART_MAX && r->t1 - r->t2 < APART_MAX &&
	    r->t3 - r->t4 < APART_MAX && r->t4 - r->t3 < APART_MAX;
}

void
clockoff_init(struct clockoff *c, int64_t window_ns)
{
	memset(c, 0, sizeof(*c));
	c->window_ns = window_ns > 0 ? window_ns : CLOCKOFF_WINDOW_NS;
}

void
clockoff_free(struct clockoff *c)
{
	free(c->rec);
	free(c->win);
	clockoff_init(c, c->window_ns);
}

static int
grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *np;

	if (n < *cap)
		return 0;
	ncap = *cap > 0 ? *cap * 2 : 64;
	np = realloc(*p, ncap * size);
	if (np == NULL)
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}

/* The window of r (client clock since the first exchange); a client
 * clock going back stays in the newest window. */
static int
add_window(struct clockoff *c, const struct clockoff_rec *r, int64_t delta)
{
	struct clockoff_win w;
	size_t idx = 0;

	if (r->t1 > c->t0)
		idx = (size_t)((r->t1 - c->t0) / c->window_ns);
	w.t = r->t1 + (r->t4 - r->t1) / 2;
	w.theta = ((r->t2 - r->t1) + (r->t3 - r->t4)) / 2;
	w.delta = delta;
	if (c->nwin > 0 && idx <= c->cur_win) {
		/* (an index below the newest: the newest window) */
		if (delta < c->win[c->nwin - 1].delta)
			c->win[c->nwin - 1] = w;
		return 0;
	}
	if (grow((void **)&c->win, &c->wcap, c->nwin, sizeof(w)) == -1)
		return -1;
	c->win[c->nwin++] = w;
	c->cur_win = idx;
	return 0;
}

int
clockoff_add(struct clockoff *c, const struct clockoff_rec *r)
{
	int64_t delta;

	if (!sane(r) || (delta = (r->t4 - r->t1) - (r->t3 - r->t2)) < 0 ||
	    c->n >= CLOCKOFF_MAX_RECS) {
		c->dropped++;
		return 1;
	}
	if (c->n == 0 && c->nwin == 0)
		c->t0 = r->t1;
	if (grow((void **)&c->rec, &c->cap, c->n, sizeof(*r)) == -1 ||
	    add_window(c, r, delta) == -1)
		return -1;
	c->rec[c->n++] = *r;
	return 0;
}

static int64_t
lowest_delta(const struct clockoff *c, size_t *at)
{
	int64_t d = c->win[0].delta;
	size_t i;

	*at = 0;
	for (i = 1; i < c->nwin; i++)
		if (c->win[i].delta < d) {
			d = c->win[i].delta;
			*at = i;
		}
	return d;
}

/* Least squares over the clean windows, times relative to the first. */
static void
fit_line(const struct clockoff *c, int64_t limit, struct clockoff_fit *f)
{
	double st = 0, sy = 0, stt = 0, sty = 0, n = 0, slope, t, y;
	int64_t bound = 0;
	size_t i;

	for (i = 0; i < c->nwin; i++) {
		if (c->win[i].delta > limit)
			continue;
		t = (double)(c->win[i].t - f->t_ref);
		y = (double)(c->win[i].theta - f->offset_ns);
		st += t;
		sy += y;
		stt += t * t;
		sty += t * y;
		n++;
		if (c->win[i].delta / 2 > bound)
			bound = c->win[i].delta / 2;
	}
	if (n < 2 || n * stt - st * st <= 0)
		return;
	slope = (n * sty - st * sy) / (n * stt - st * st);
	f->offset_ns += (int64_t)((sy - slope * st) / n);
	f->drift_ppm = slope * 1e6;
	f->bound_ns = bound;
	f->windows = (size_t)n;
}

/* Consecutive windows whose offset intervals cannot both be right. */
static int
find_step(const struct clockoff *c, int64_t bound)
{
	int64_t tol0 = 4 * bound > STEP_MIN_NS ? 4 * bound : STEP_MIN_NS;
	size_t i;

	for (i = 1; i < c->nwin; i++) {
		const struct clockoff_win *a = &c->win[i - 1], *b = &c->win[i];
		int64_t gap = b->theta > a->theta ? b->theta - a->theta :
		    a->theta - b->theta;
		int64_t dt = b->t > a->t ? b->t - a->t : a->t - b->t;

		gap -= a->delta / 2 + b->delta / 2;
		if (gap > tol0 + dt / 1000000 * STEP_DRIFT_PPM)
			return 1;
	}
	return 0;
}

void
clockoff_fit(const struct clockoff *c, struct clockoff_fit *f)
{
	int64_t low, limit;
	size_t at, i, first = 0, last = 0, clean = 0;

	memset(f, 0, sizeof(*f));
	if (c->nwin == 0)
		return;
	f->valid = 1;
	low = lowest_delta(c, &at);
	limit = 2 * low + CLEAN_SLACK_NS;
	f->t_ref = c->win[at].t;
	f->offset_ns = c->win[at].theta;
	f->bound_ns = low / 2;
	f->windows = 1;
	for (i = 0; i < c->nwin; i++) {
		if (c->win[i].delta > limit)
			continue;
		if (clean++ == 0)
			first = i;
		last = i;
	}
	if (clean >= 3 &&
	    c->win[last].t - c->win[first].t >= CLOCKOFF_DRIFT_SPAN_NS)
		fit_line(c, limit, f);
	f->step = find_step(c, f->bound_ns);
	f->absurd = f->offset_ns > CLOCKOFF_ABSURD_NS ||
	    f->offset_ns < -CLOCKOFF_ABSURD_NS;
}

int64_t
clockoff_at(const struct clockoff_fit *f, int64_t t)
{
	double v = (double)f->offset_ns + (double)(t - f->t_ref) *
	    f->drift_ppm / 1e6;

	if (v > (double)(2 * APART_MAX))
		return 2 * APART_MAX;
	if (v < -(double)(2 * APART_MAX))
		return -2 * APART_MAX;
	return (int64_t)v;
}

static uint64_t
clamp0(int64_t v, uint64_t *clamped)
{
	if (v >= 0)
		return (uint64_t)v;
	(*clamped)++;
	return 0;
}

int
clockoff_dists(const struct clockoff *c, const struct clockoff_fit *f,
    uint64_t from_us, uint64_t to_us, int loaded_only, struct latstat *fwd,
    struct latstat *rev, struct clockoff_counts *n)
{
	size_t i;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < c->n && f->valid; i++) {
		const struct clockoff_rec *r = &c->rec[i];
		int64_t th;

		if (r->mono_us < from_us || r->mono_us >= to_us ||
		    (loaded_only && !r->loaded))
			continue;
		th = clockoff_at(f, r->t1 + (r->t4 - r->t1) / 2);
		n->samples++;
		if (latstat_add(fwd, clamp0(r->t2 - r->t1 - th,
				&n->clamped)) == -1 ||
		    latstat_add(rev, clamp0(r->t4 - r->t3 + th,
				&n->clamped)) == -1)
			return -1;
	}
	return 0;
}

int64_t
clockoff_dmin_add(struct clockoff_dmin *m, int64_t now_us, int64_t kts_us)
{
	int64_t d = now_us - kts_us;

	if (!m->have || now_us - m->start_us >= CLOCKOFF_DMIN_WINDOW_US ||
	    now_us < m->start_us) {
		m->prev = m->have ? m->cur : d;
		m->cur = d;
		m->start_us = now_us;
		m->have = 1;
	} else if (d < m->cur)
		m->cur = d;
	return m->cur < m->prev ? m->cur : m->prev;
}

/* One figure corrected; *neg set when it was below 0. */
static uint64_t
correct1(uint64_t v, int64_t base, int *neg)
{
	int64_t c;

	if (v > (uint64_t)INT64_MAX / 2)
		v = (uint64_t)INT64_MAX / 2;
	c = base + (int64_t)v;
	*neg = c < 0;
	return c < 0 ? 0 : (uint64_t)c;
}

uint64_t
clockoff_correct(const struct latsum *rel, int64_t ref_us, int64_t corr_us,
    struct latsum *out)
{
	int64_t base = ref_us + corr_us;
	int nmin, n50, n90, n99, nmax, dummy;
	double m;

	*out = *rel;
	out->min = correct1(rel->min, base, &nmin);
	out->p50 = correct1(rel->p50, base, &n50);
	out->p90 = correct1(rel->p90, base, &n90);
	out->p99 = correct1(rel->p99, base, &n99);
	out->p999 = correct1(rel->p999, base, &dummy);
	out->max = correct1(rel->max, base, &nmax);
	m = rel->mean + (double)base;
	out->mean = m < 0 ? 0 : m;
	if (rel->samples == 0 || !nmin)
		return 0;
	if (nmax)
		return rel->samples;
	if (n99)
		return rel->samples * 99 / 100;
	if (n90)
		return rel->samples * 9 / 10;
	if (n50)
		return rel->samples / 2;
	return 1;
}
