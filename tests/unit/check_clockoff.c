/* check_clockoff.c - the clock offset fit and the one-way delays of --owd
 * (measure/clockoff.h), on simulated exchanges with known clocks. */
#include "config.h"

#include <stdint.h>

#include "check_main.h"
#include "clockoff.h"

#define US 1000LL
#define MS 1000000LL
#define SEC 1000000000LL
#define EPOCH (1795000000LL * SEC) /* a 2026 CLOCK_REALTIME */

/* The server's clock against the client's (true) one. */
struct clocks {
	int64_t offset;   /* at client time EPOCH */
	double drift_ppm;
	int64_t step_at;  /* client time since EPOCH of a step, 0: none */
	int64_t step;
};

static int64_t
server_time(const struct clocks *k, int64_t t)
{
	int64_t s = t + k->offset + (int64_t)((double)(t - EPOCH) *
	    k->drift_ppm / 1e6);

	if (k->step_at != 0 && t - EPOCH >= k->step_at)
		s += k->step;
	return s;
}

static uint32_t seed = 12345;

/* 0 .. max-1, deterministic */
static int64_t
noise(int64_t max)
{
	seed = seed * 1103515245u + 12345u;
	return max > 0 ? (int64_t)((seed >> 8) % (uint32_t)max) : 0;
}

/* Exchanges every 20 ms from client time EPOCH + from to EPOCH + to,
 * with the delays given (plus up to 20 us of noise each way). */
static void
run(struct clockoff *c, const struct clocks *k, int64_t from, int64_t to,
    int64_t fwd, int64_t rev, int loaded)
{
	int64_t t;

	for (t = from; t < to; t += 20 * MS) {
		struct clockoff_rec r;
		int64_t t1 = EPOCH + t, a = t1 + fwd + noise(20 * US);
		int64_t b = a + 10 * US;

		r.t1 = t1;
		r.t2 = server_time(k, a);
		r.t3 = server_time(k, b);
		r.t4 = b + rev + noise(20 * US);
		r.mono_us = (uint64_t)(r.t4 - EPOCH) / 1000;
		r.loaded = loaded;
		ck_assert_int_eq(clockoff_add(c, &r), 0);
	}
}

static int64_t
abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* The fit's offset at client time t is within its bound of the truth. */
static void
assert_within(const struct clockoff_fit *f, const struct clocks *k,
    int64_t t)
{
	int64_t truth = server_time(k, EPOCH + t) - (EPOCH + t);

	ck_assert_msg(abs64(clockoff_at(f, EPOCH + t) - truth) <= f->bound_ns,
	    "offset %lld, truth %lld, bound %lld",
	    (long long)clockoff_at(f, EPOCH + t), (long long)truth,
	    (long long)f->bound_ns);
}

static void
dists(const struct clockoff *c, const struct clockoff_fit *f,
    struct latsum *fwd, struct latsum *rev, struct clockoff_counts *n)
{
	struct latstat a, b;

	latstat_init(&a);
	latstat_init(&b);
	ck_assert_int_eq(clockoff_dists(c, f, 0, UINT64_MAX, 1, &a, &b, n), 0);
	latstat_summary(&a, fwd);
	latstat_summary(&b, rev);
	latstat_free(&a);
	latstat_free(&b);
}

START_TEST(an_offset_under_an_asymmetric_queue)
{
	struct clocks k = { 250 * MS, 0, 0, 0 };
	struct clockoff c;
	struct clockoff_fit f;
	struct latsum fwd, rev;
	struct clockoff_counts n;

	clockoff_init(&c, CLOCKOFF_WINDOW_NS);
	run(&c, &k, 0, SEC, 50 * US, 50 * US, 0);           /* idle */
	run(&c, &k, SEC, 11 * SEC, 20 * MS, 50 * US, 1);    /* queue forward */
	clockoff_fit(&c, &f);
	ck_assert(f.valid && !f.step && !f.absurd);
	ck_assert_int_le(f.bound_ns, 60 * US);
	assert_within(&f, &k, 0);
	assert_within(&f, &k, 10 * SEC);
	dists(&c, &f, &fwd, &rev, &n);
	ck_assert_uint_eq(n.samples, 500);
	ck_assert_uint_eq(n.clamped, 0);
	ck_assert_int_le(abs64((int64_t)fwd.p50 - 20 * MS - 10 * US),
	    f.bound_ns + 10 * US);
	ck_assert_int_le(abs64((int64_t)rev.p50 - 60 * US),
	    f.bound_ns + 10 * US);
	clockoff_free(&c);
}
END_TEST

START_TEST(a_queue_in_reverse_swaps_the_directions)
{
	struct clocks k = { -37 * MS, 0, 0, 0 };
	struct clockoff c;
	struct clockoff_fit f;
	struct latsum fwd, rev;
	struct clockoff_counts n;

	clockoff_init(&c, CLOCKOFF_WINDOW_NS);
	run(&c, &k, 0, SEC, 50 * US, 50 * US, 0);
	run(&c, &k, SEC, 11 * SEC, 50 * US, 30 * MS, 1);
	clockoff_fit(&c, &f);
	ck_assert(!f.step && !f.absurd);
	assert_within(&f, &k, 5 * SEC);
	dists(&c, &f, &fwd, &rev, &n);
	ck_assert_int_le(abs64((int64_t)rev.p50 - 30 * MS - 10 * US),
	    f.bound_ns + 10 * US);
	ck_assert_int_lt((int64_t)fwd.p50, 200 * US);
	clockoff_free(&c);
}
END_TEST

START_TEST(drift_is_fitted_over_quiet_windows)
{
	struct clocks k = { 3 * MS, 20.0, 0, 0 };
	struct clockoff c;
	struct clockoff_fit f;

	clockoff_init(&c, CLOCKOFF_WINDOW_NS);
	run(&c, &k, 0, 30 * SEC, 50 * US, 50 * US, 1);
	clockoff_fit(&c, &f);
	ck_assert(!f.step && !f.absurd);
	ck_assert_int_ge((long long)f.windows, 10);
	ck_assert_double_eq_tol(f.drift_ppm, 20.0, 2.0);
	assert_within(&f, &k, 0);
	assert_within(&f, &k, 15 * SEC);
	assert_within(&f, &k, 29 * SEC);
	clockoff_free(&c);
}
END_TEST

START_TEST(a_step_is_flagged_and_no_delay_is_negative)
{
	struct clocks k = { 250 * MS, 0, 5 * SEC, 1750 * MS };
	struct clockoff c;
	struct clockoff_fit f;
	struct latsum fwd, rev;
	struct clockoff_counts n;

	clockoff_init(&c, CLOCKOFF_WINDOW_NS);
	run(&c, &k, 0, SEC, 50 * US, 50 * US, 0);
	run(&c, &k, SEC, 10 * SEC, 50 * US, 50 * US, 1);
	clockoff_fit(&c, &f);
	ck_assert(f.step);
	dists(&c, &f, &fwd, &rev, &n);
	ck_assert_uint_gt(n.clamped, 0);
	ck_assert_uint_eq(rev.min, 0); /* clamped, not negative or wrapped */
	ck_assert_uint_lt(fwd.max, 2 * SEC);
	clockoff_free(&c);
}
END_TEST

START_TEST(a_small_step_under_the_tolerance_is_not_one)
{
	struct clocks k = { 0, 0, 5 * SEC, 300 * US };
	struct clockoff c;
	struct clockoff_fit f;

	clockoff_init(&c, CLOCKOFF_WINDOW_NS);
	run(&c, &k, 0, 10 * SEC, 50 * US, 50 * US, 1);
	clockoff_fit(&c, &f);
	ck_assert(!f.step);
	clockoff_free(&c);
}
END_TEST

START_TEST(hours_of_offset_are_absurd_but_not_wrapped)
{
	static const int64_t offs[] = { 3 * 3600 * SEC, -3 * 3600 * SEC,
		40LL * 24 * 3600 * SEC };
	size_t i;

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		struct clocks k = { offs[i], 0, 0, 0 };
		struct clockoff c;
		struct clockoff_fit f;
		struct latsum fwd, rev;
		struct clockoff_counts n;

		clockoff_init(&c, CLOCKOFF_WINDOW_NS);
		run(&c, &k, 0, 4 * SEC, 50 * US, 50 * US, 1);
		clockoff_fit(&c, &f);
		ck_assert(f.absurd && !f.step);
		assert_within(&f, &k, 2 * SEC);
		dists(&c, &f, &fwd, &rev, &n);
		ck_assert_uint_eq(n.clamped, 0);
		ck_assert_uint_lt(fwd.max, 1 * MS);
		ck_assert_uint_lt(rev.max, 1 * MS);
		clockoff_free(&c);
	}
}
END_TEST

START_TEST(bad_exchanges_and_gaps)
{
	struct clocks k = { 1 * MS, 0, 0, 0 };
	struct clockoff c;
	struct clockoff_fit f;
	struct clockoff_rec r = { EPOCH + 10, EPOCH, EPOCH + 5, EPOCH, 0, 1 };

	clockoff_init(&c, CLOCKOFF_WINDOW_NS);
	clockoff_fit(&c, &f);
	ck_assert(!f.valid);
	ck_assert_int_eq(clockoff_add(&c, &r), 1); /* t4 < t1 */
	r.t4 = EPOCH + 20;
	r.t2 = r.t3 = INT64_MAX; /* a hostile server's times */
	ck_assert_int_eq(clockoff_add(&c, &r), 1);
	r.t2 = r.t3 = -EPOCH;
	ck_assert_int_eq(clockoff_add(&c, &r), 1);
	ck_assert_uint_eq(c.dropped, 3);
	run(&c, &k, 0, 1 * SEC, 50 * US, 50 * US, 0);
	run(&c, &k, 7 * SEC, 8 * SEC, 50 * US, 50 * US, 1); /* windows 1-2 empty */
	run(&c, &k, 8 * SEC, 9 * SEC, 50 * US, 50 * US, 1);
	ck_assert_uint_eq(c.nwin, 3); /* windows 0, 3 and 4 */
	clockoff_fit(&c, &f);
	ck_assert(!f.step);
	assert_within(&f, &k, 8 * SEC);
	clockoff_free(&c);
}
END_TEST

START_TEST(intervals_take_their_own_exchanges)
{
	struct clocks k = { 0, 0, 0, 0 };
	struct clockoff c;
	struct clockoff_fit f;
	struct clockoff_counts n;
	struct latstat a, b;

	clockoff_init(&c, CLOCKOFF_WINDOW_NS);
	run(&c, &k, 0, SEC, 50 * US, 50 * US, 0);
	run(&c, &k, SEC, 3 * SEC, 5 * MS, 50 * US, 1);
	clockoff_fit(&c, &f);
	latstat_init(&a);
	latstat_init(&b);
	/* the second second: 50 exchanges, all loaded */
	ck_assert_int_eq(clockoff_dists(&c, &f, 1000000, 2000000, 0, &a, &b,
	    &n), 0);
	ck_assert_uint_eq(n.samples, 50);
	ck_assert_int_le(abs64((int64_t)latstat_percentile(&a, 50) - 5 * MS),
	    100 * US);
	latstat_reset(&a);
	latstat_reset(&b);
	/* loaded only: the idle second is left out */
	ck_assert_int_eq(clockoff_dists(&c, &f, 0, UINT64_MAX, 1, &a, &b, &n),
	    0);
	ck_assert_uint_eq(n.samples, 100);
	latstat_free(&a);
	latstat_free(&b);
	clockoff_free(&c);
}
END_TEST

/* The kernel's arrival times on another clock than the process's (a
 * faked one): the running least difference, which forgets a window. */
START_TEST(dmin_follows_the_least_difference)
{
	struct clockoff_dmin m = { 0 };
	int64_t k = 1795000000LL * 1000000LL, fake = 250000;

	ck_assert_int_eq(clockoff_dmin_add(&m, k + fake + 40, k), fake + 40);
	ck_assert_int_eq(clockoff_dmin_add(&m, k + 100 + fake + 3, k + 100),
	    fake + 3);
	ck_assert_int_eq(clockoff_dmin_add(&m, k + 200 + fake + 90, k + 200),
	    fake + 3);
	/* the fake clock steps by 2 s: the old minimum goes within 2 s */
	fake += 2000000;
	ck_assert_int_eq(clockoff_dmin_add(&m, k + 1100000 + fake + 5,
	    k + 1100000), 250003);
	ck_assert_int_eq(clockoff_dmin_add(&m, k + 2200000 + fake + 7,
	    k + 2200000), fake + 5);
}
END_TEST

/* Transits of hours (two clocks) corrected into delays: shifted, never
 * wrapped, below 0 counted and held at 0. */
START_TEST(transits_are_corrected_and_clamped)
{
	struct latsum rel = { 1000, 0, 50, 90, 99, 100, 120, 52.0 }, out;
	int64_t ref = 3 * 3600 * 1000000LL + 500; /* 3 h + 500 us */

	ck_assert_uint_eq(clockoff_correct(&rel, ref, -3 * 3600 * 1000000LL,
	    &out), 0);
	ck_assert_uint_eq(out.min, 500);
	ck_assert_uint_eq(out.p50, 550);
	ck_assert_uint_eq(out.max, 620);
	ck_assert_uint_eq(out.samples, 1000);
	/* an offset 560 us too large: min and p50 below 0 */
	ck_assert_uint_eq(clockoff_correct(&rel, ref, -3 * 3600 * 1000000LL -
	    560, &out), 500);
	ck_assert_uint_eq(out.min, 0);
	ck_assert_uint_eq(out.p50, 0);
	ck_assert_uint_eq(out.p90, 30);
	/* only min below 0: at least one */
	ck_assert_uint_eq(clockoff_correct(&rel, -10, 0, &out), 1);
	ck_assert_uint_eq(out.p50, 40);
	/* all below */
	ck_assert_uint_eq(clockoff_correct(&rel, ref, -ref - 1000, &out),
	    1000);
	ck_assert_uint_eq(out.max, 0);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("clockoff");
	TCase *tc = tcase_create("fit");

	tcase_add_test(tc, an_offset_under_an_asymmetric_queue);
	tcase_add_test(tc, a_queue_in_reverse_swaps_the_directions);
	tcase_add_test(tc, drift_is_fitted_over_quiet_windows);
	tcase_add_test(tc, a_step_is_flagged_and_no_delay_is_negative);
	tcase_add_test(tc, a_small_step_under_the_tolerance_is_not_one);
	tcase_add_test(tc, hours_of_offset_are_absurd_but_not_wrapped);
	tcase_add_test(tc, bad_exchanges_and_gaps);
	tcase_add_test(tc, intervals_take_their_own_exchanges);
	tcase_add_test(tc, dmin_follows_the_least_difference);
	tcase_add_test(tc, transits_are_corrected_and_clamped);
	suite_add_tcase(s, tc);
	return s;
}
