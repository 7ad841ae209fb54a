/*
 * check_mcast_acct.c - a --multicast-listen receiver's accounting
 * (measure/mcast_acct.h) on synthetic datagrams: bytes and counts, loss
 * and reordering per interval and in total, the tail an end marker
 * reveals, a late joiner counting from its first datagram, jitter of a
 * steady and an uneven stream, one-way delay min/mean/max, 32-bit
 * sequence wrap.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "mcast_acct.h"

#define LEN 1000u
#define T0 1700000000000000LL /* us */

/* Datagram seq sent at T0 + seq ms, arriving delay_us later. */
static void
dgram(struct mcast_acct *a, uint64_t seq, int64_t delay_us)
{
	int64_t sent = T0 + (int64_t)seq * 1000;

	mcast_acct_datagram(a, seq, LEN, sent, sent + delay_us);
}

START_TEST(counts_bytes_and_datagrams_without_loss)
{
	struct mcast_acct a;
	struct mcast_stats s;
	uint64_t i;

	mcast_acct_init(&a, 0);
	for (i = 1; i <= 100; i++)
		dgram(&a, i, 500);
	mcast_acct_total(&a, 0, 0, &s);
	ck_assert_uint_eq(s.bytes, 100 * LEN);
	ck_assert_uint_eq(s.received, 100);
	ck_assert_int_eq(s.packets, 100);
	ck_assert_int_eq(s.lost, 0);
	ck_assert_uint_eq(s.ooo, 0);
	ck_assert_double_eq_tol(mcast_stats_lost_percent(&s), 0.0, 1e-9);
}
END_TEST

START_TEST(gaps_are_lost_late_ones_out_of_order)
{
	struct mcast_acct a;
	struct mcast_stats s;
	uint64_t i;

	mcast_acct_init(&a, 0);
	for (i = 1; i <= 10; i++)
		if (i != 4 && i != 5 && i != 8)
			dgram(&a, i, 500);
	dgram(&a, 5, 500); /* late */
	mcast_acct_total(&a, 0, 0, &s);
	ck_assert_int_eq(s.packets, 10);
	ck_assert_int_eq(s.lost, 2);
	ck_assert_uint_eq(s.ooo, 1);
	ck_assert_uint_eq(s.received, 8);
	ck_assert_double_eq_tol(mcast_stats_lost_percent(&s), 20.0, 1e-9);
}
END_TEST

START_TEST(intervals_split_the_counts)
{
	struct mcast_acct a;
	struct mcast_stats s1, s2, t;
	uint64_t i;

	mcast_acct_init(&a, 0);
	for (i = 1; i <= 10; i++)
		if (i % 10 != 0 && i != 3)
			dgram(&a, i, 500);
	mcast_acct_interval(&a, &s1);
	for (i = 11; i <= 20; i++)
		if (i != 15 && i != 16)
			dgram(&a, i, 500);
	mcast_acct_interval(&a, &s2);
	ck_assert_uint_eq(s1.received, 8);
	ck_assert_int_eq(s1.packets, 9); /* 10 is not known lost yet */
	ck_assert_int_eq(s1.lost, 1);
	ck_assert_uint_eq(s2.received, 8);
	ck_assert_int_eq(s2.packets, 11);
	ck_assert_int_eq(s2.lost, 3);
	ck_assert_uint_eq(s2.bytes, 8 * LEN);
	mcast_acct_total(&a, 0, 0, &t);
	ck_assert_int_eq(t.packets, 20);
	ck_assert_int_eq(t.lost, 4);
	ck_assert_uint_eq(t.bytes, 16 * LEN);
}
END_TEST

START_TEST(the_end_marker_reveals_the_lost_tail)
{
	struct mcast_acct a;
	struct mcast_stats s;
	uint64_t i;

	mcast_acct_init(&a, 0);
	for (i = 1; i <= 90; i++)
		dgram(&a, i, 500);
	mcast_acct_total(&a, 1, 100, &s);
	ck_assert_int_eq(s.packets, 100);
	ck_assert_int_eq(s.lost, 10);
	ck_assert_double_eq_tol(mcast_stats_lost_percent(&s), 10.0, 1e-9);
	/* without the marker the tail is unknown */
	mcast_acct_total(&a, 0, 0, &s);
	ck_assert_int_eq(s.packets, 90);
	ck_assert_int_eq(s.lost, 0);
}
END_TEST

START_TEST(a_late_joiner_counts_from_its_first_datagram)
{
	struct mcast_acct a;
	struct mcast_stats s;
	uint64_t i;

	mcast_acct_init(&a, 0);
	for (i = 501; i <= 1000; i++)
		dgram(&a, i, 500);
	ck_assert_uint_eq(a.first_seq, 501);
	mcast_acct_total(&a, 1, 1000, &s);
	ck_assert_int_eq(s.packets, 500);
	ck_assert_int_eq(s.lost, 0);
	mcast_acct_interval(&a, &s);
	ck_assert_int_eq(s.packets, 500);
	ck_assert_int_eq(s.lost, 0);
}
END_TEST

START_TEST(nothing_received_but_an_end_marker_is_all_lost)
{
	struct mcast_acct a;
	struct mcast_stats s;

	mcast_acct_init(&a, 0);
	mcast_acct_total(&a, 1, 50, &s);
	ck_assert_int_eq(s.packets, 50);
	ck_assert_int_eq(s.lost, 50);
	ck_assert_uint_eq(s.received, 0);
	mcast_acct_total(&a, 0, 0, &s);
	ck_assert_int_eq(s.packets, 0);
	ck_assert_double_eq_tol(mcast_stats_lost_percent(&s), 0.0, 1e-9);
}
END_TEST

START_TEST(steady_delay_has_no_jitter_and_one_owd)
{
	struct mcast_acct a;
	struct mcast_stats s;
	uint64_t i;

	mcast_acct_init(&a, 0);
	for (i = 1; i <= 50; i++)
		dgram(&a, i, 2500);
	mcast_acct_total(&a, 0, 0, &s);
	ck_assert_double_eq_tol(s.jitter_ms, 0.0, 1e-9);
	ck_assert_uint_eq(s.owd_n, 50);
	ck_assert_double_eq_tol(s.owd_min_ms, 2.5, 1e-9);
	ck_assert_double_eq_tol(s.owd_max_ms, 2.5, 1e-9);
	ck_assert_double_eq_tol(mcast_stats_owd_mean_ms(&s), 2.5, 1e-9);
}
END_TEST

START_TEST(alternating_delay_gives_jitter_and_owd_range)
{
	struct mcast_acct a;
	struct mcast_stats s;
	uint64_t i;

	mcast_acct_init(&a, 0);
	/* transit alternates 1 ms / 3 ms: |D| = 2 ms after the first, so
	 * J converges to 2 ms (J += (|D| - J) / 16) */
	for (i = 1; i <= 400; i++)
		dgram(&a, i, (i % 2) ? 1000 : 3000);
	mcast_acct_total(&a, 0, 0, &s);
	ck_assert_double_eq_tol(s.jitter_ms, 2.0, 1e-3);
	ck_assert_double_eq_tol(s.owd_min_ms, 1.0, 1e-9);
	ck_assert_double_eq_tol(s.owd_max_ms, 3.0, 1e-9);
	ck_assert_double_eq_tol(mcast_stats_owd_mean_ms(&s), 2.0, 1e-9);
}
END_TEST

START_TEST(owd_is_signed_with_clocks_apart)
{
	struct mcast_acct a;
	struct mcast_stats s;

	mcast_acct_init(&a, 0);
	dgram(&a, 1, -4000); /* the receiver's clock 4 ms behind */
	dgram(&a, 2, -3000);
	mcast_acct_interval(&a, &s);
	ck_assert_double_eq_tol(s.owd_min_ms, -4.0, 1e-9);
	ck_assert_double_eq_tol(s.owd_max_ms, -3.0, 1e-9);
	/* the next interval starts empty */
	mcast_acct_interval(&a, &s);
	ck_assert_uint_eq(s.owd_n, 0);
	ck_assert_uint_eq(s.received, 0);
	ck_assert_double_eq_tol(mcast_stats_owd_mean_ms(&s), 0.0, 1e-9);
}
END_TEST

START_TEST(sequence_wraps_at_32_bits_without_loss)
{
	struct mcast_acct a;
	struct mcast_stats s;
	uint64_t i;

	mcast_acct_init(&a, 0);
	for (i = 0xfffffff0u; i <= 0xffffffffu; i++)
		dgram(&a, i, 500);
	for (i = 0; i < 16; i++)
		dgram(&a, i, 500);
	mcast_acct_total(&a, 0, 0, &s);
	ck_assert_int_eq(s.lost, 0);
	ck_assert_uint_eq(s.ooo, 0);
	ck_assert_int_eq(s.packets, 32);
}
END_TEST

START_TEST(counters64_take_large_sequence_numbers)
{
	struct mcast_acct a;
	struct mcast_stats s;
	uint64_t base = (uint64_t)1 << 40, i;

	mcast_acct_init(&a, 1);
	for (i = base; i < base + 10; i++)
		if (i != base + 5)
			dgram(&a, i, 500);
	mcast_acct_total(&a, 0, 0, &s);
	ck_assert_int_eq(s.packets, 10);
	ck_assert_int_eq(s.lost, 1);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("mcast_acct");
	TCase *tc = tcase_create("counts");
	TCase *tt = tcase_create("timing");

	tcase_add_test(tc, counts_bytes_and_datagrams_without_loss);
	tcase_add_test(tc, gaps_are_lost_late_ones_out_of_order);
	tcase_add_test(tc, intervals_split_the_counts);
	tcase_add_test(tc, the_end_marker_reveals_the_lost_tail);
	tcase_add_test(tc, a_late_joiner_counts_from_its_first_datagram);
	tcase_add_test(tc, nothing_received_but_an_end_marker_is_all_lost);
	tcase_add_test(tc, sequence_wraps_at_32_bits_without_loss);
	tcase_add_test(tc, counters64_take_large_sequence_numbers);
	suite_add_tcase(s, tc);
	tcase_add_test(tt, steady_delay_has_no_jitter_and_one_owd);
	tcase_add_test(tt, alternating_delay_gives_jitter_and_owd_range);
	tcase_add_test(tt, owd_is_signed_with_clocks_apart);
	suite_add_tcase(s, tt);
	return s;
}
