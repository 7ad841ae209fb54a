/* check_ratewin.c - the sliding-window bit rate of --server-bitrate-limit,
 * on synthetic samples. */
#include "config.h"

#include <stdint.h>

#include "check_main.h"
#include "ratewin.h"

#define S 1000000ULL /* one second in us */

/* Feed `n` samples every `period` us at a constant `bytes_per_s`, from
 * (*t, *b); returns the number of verdicts, the last rate in *bps. */
static int
feed(struct ratewin *w, uint64_t *t, uint64_t *b, int n, uint64_t period,
    uint64_t bytes_per_s, double *bps)
{
	int i, verdicts = 0;

	for (i = 0; i < n; i++) {
		*t += period;
		*b += bytes_per_s * period / S;
		verdicts += ratewin_add(w, *t, *b, bps);
	}
	return verdicts;
}

START_TEST(no_verdict_before_a_full_window)
{
	struct ratewin w;
	uint64_t t = 0, b = 0;
	double bps = -1;

	ratewin_init(&w, 5 * S, S / 2);
	ck_assert_int_eq(ratewin_add(&w, t, b, &bps), 0);
	ck_assert_int_eq(feed(&w, &t, &b, 4, S, 1000000, &bps), 0);
	ck_assert(bps == -1);
	ck_assert_int_eq(feed(&w, &t, &b, 1, S, 1000000, &bps), 1);
	ck_assert_double_eq_tol(bps, 8e6, 1);
}
END_TEST

START_TEST(a_steady_rate_is_measured_exactly)
{
	struct ratewin w;
	uint64_t t = 0, b = 0;
	double bps = 0;

	ratewin_init(&w, 5 * S, S / 2);
	(void)ratewin_add(&w, t, b, &bps);
	ck_assert_int_eq(feed(&w, &t, &b, 20, S, 6250000, &bps), 16);
	ck_assert_double_eq_tol(bps, 50e6, 1);
}
END_TEST

START_TEST(only_the_last_window_counts)
{
	struct ratewin w;
	uint64_t t = 0, b = 0;
	double bps = 0;

	ratewin_init(&w, 5 * S, S / 2);
	(void)ratewin_add(&w, t, b, &bps);
	(void)feed(&w, &t, &b, 5, S, 1250000, &bps); /* 10 Mbit/s */
	ck_assert_double_eq_tol(bps, 10e6, 1);
	(void)feed(&w, &t, &b, 2, S, 0, &bps); /* window [2 s, 7 s] */
	ck_assert_double_eq_tol(bps, 6e6, 1);
	(void)feed(&w, &t, &b, 3, S, 0, &bps);
	ck_assert_double_eq_tol(bps, 0, 1e-9);
}
END_TEST

START_TEST(a_short_burst_is_averaged_over_the_window)
{
	struct ratewin w;
	uint64_t t = 0, b = 0;
	double bps = 0;

	ratewin_init(&w, 5 * S, S / 2);
	(void)ratewin_add(&w, t, b, &bps);
	(void)feed(&w, &t, &b, 1, S, 12500000, &bps); /* 100 Mbit/s, 1 s */
	ck_assert_int_eq(feed(&w, &t, &b, 4, S, 0, &bps), 1);
	ck_assert_double_eq_tol(bps, 20e6, 1);
}
END_TEST

START_TEST(late_or_early_samples_still_fill_the_window)
{
	struct ratewin w;
	double bps = 0;

	ratewin_init(&w, 2 * S, S / 2);
	ck_assert_int_eq(ratewin_add(&w, 0, 0, &bps), 0);
	ck_assert_int_eq(ratewin_add(&w, S + 300, 1000, &bps), 0);
	/* A tick that comes 0.2 ms early still closes the window. */
	ck_assert_int_eq(ratewin_add(&w, 2 * S - 200, 2000, &bps), 1);
	ck_assert_double_eq_tol(bps, 2000 * 8.0 * 1e6 / (2 * S - 200), 1e-6);
	/* A late tick (timer held up 3 s): the average runs from the newest
	 * sample that is a window old, across the gap. */
	ck_assert_int_eq(ratewin_add(&w, 5 * S, 5000, &bps), 1);
	ck_assert_double_eq_tol(bps, 3000 * 8.0 * 1e6 / (3 * S + 200), 1e-6);
}
END_TEST

START_TEST(sub_second_windows_work)
{
	struct ratewin w;
	uint64_t t = 0, b = 0;
	double bps = 0;

	ratewin_init(&w, S / 2, S / 4);
	(void)ratewin_add(&w, t, b, &bps);
	ck_assert_int_eq(feed(&w, &t, &b, 1, S / 2, 1000, &bps), 1);
	ck_assert_double_eq_tol(bps, 8000, 1e-6);
}
END_TEST

START_TEST(the_ring_wraps_on_long_tests)
{
	struct ratewin w;
	uint64_t t = 0, b = 0;
	double bps = 0;

	ratewin_init(&w, 60 * S, S / 2);
	(void)ratewin_add(&w, t, b, &bps);
	ck_assert_int_eq(feed(&w, &t, &b, 59, S, 1000, &bps), 0);
	ck_assert_int_eq(feed(&w, &t, &b, 200, S, 1000, &bps), 200);
	ck_assert_double_eq_tol(bps, 8000, 1e-6);
	/* Still the last 60 s only: 30 s at 4 kB/s, then 30 s at 1 kB/s. */
	(void)feed(&w, &t, &b, 30, S, 4000, &bps);
	(void)feed(&w, &t, &b, 30, S, 1000, &bps);
	ck_assert_double_eq_tol(bps, (30 * 4000 + 30 * 1000) * 8.0 / 60, 1e-6);
	ck_assert_uint_le(w.count, RATEWIN_CAP);
}
END_TEST

START_TEST(the_slack_is_at_most_half_the_window)
{
	struct ratewin w;
	double bps = 0;

	ratewin_init(&w, S, 5 * S);
	ck_assert_uint_eq(w.slack_us, S / 2);
	ck_assert_int_eq(ratewin_add(&w, 0, 0, &bps), 0);
	ck_assert_int_eq(ratewin_add(&w, 0, 10, &bps), 0); /* no time passed */
	ck_assert_int_eq(ratewin_add(&w, S / 2 - 1, 20, &bps), 0);
	/* Half a window counts as full; from the newest sample that old. */
	ck_assert_int_eq(ratewin_add(&w, S / 2, 70, &bps), 1);
	ck_assert_double_eq_tol(bps, 60 * 8.0 * 2, 1e-6);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("ratewin");
	TCase *tc = tcase_create("average");

	tcase_add_test(tc, no_verdict_before_a_full_window);
	tcase_add_test(tc, a_steady_rate_is_measured_exactly);
	tcase_add_test(tc, only_the_last_window_counts);
	tcase_add_test(tc, a_short_burst_is_averaged_over_the_window);
	tcase_add_test(tc, late_or_early_samples_still_fill_the_window);
	tcase_add_test(tc, sub_second_windows_work);
	tcase_add_test(tc, the_ring_wraps_on_long_tests);
	tcase_add_test(tc, the_slack_is_at_most_half_the_window);
	suite_add_tcase(s, tc);
	return s;
}
