/* check_pacer.c - token-bucket pacing on a fake clock. */
#include "config.h"

#include <stdint.h>

#include "check_main.h"
#include "pacer.h"

/* Run the pacer for `us` of fake time, sending whenever allowed. */
static uint64_t
run_for(struct pacer *p, size_t blk, uint64_t *now, uint64_t us)
{
	uint64_t end = *now + us, sent = 0;

	while (*now < end) {
		uint64_t d = pacer_delay(p, blk, *now);
		if (d == 0)
			sent++;
		else
			*now += d;
	}
	return sent;
}

START_TEST(unlimited_rate_never_waits)
{
	struct pacer p;

	pacer_init(&p, 0, 1400, 1, 0);
	ck_assert_uint_eq(pacer_delay(&p, 1400, 0), 0);
	ck_assert_uint_eq(pacer_delay(&p, 1400, 0), 0);
}
END_TEST

START_TEST(keeps_the_average_rate)
{
	struct pacer p;
	uint64_t now = 0, sent;

	/* 100 Mbit/s of 1250-byte blocks: 10000 blocks per second. */
	pacer_init(&p, 100000000, 1250, 1, now);
	sent = run_for(&p, 1250, &now, 10 * 1000000ULL);
	ck_assert_uint_ge(sent, 99990);
	ck_assert_uint_le(sent, 100010);
}
END_TEST

START_TEST(waits_the_time_one_block_needs)
{
	struct pacer p;

	pacer_init(&p, 1000000, 125, 1, 0); /* 1000 bits per ms */
	ck_assert_uint_eq(pacer_delay(&p, 125, 0), 0);
	/* 1000 bits at 1 Mbit/s: 1000 us (+1 rounding guard). */
	ck_assert_uint_eq(pacer_delay(&p, 125, 0), 1001);
	ck_assert_uint_eq(pacer_delay(&p, 125, 1000), 0);
}
END_TEST

START_TEST(a_stall_is_not_made_up_in_a_flood)
{
	struct pacer p;
	uint64_t now = 0, burst = 0;

	pacer_init(&p, 100000000, 1250, 1, now);
	now += 1000000; /* the sender was stopped for one second */
	while (pacer_delay(&p, 1250, now) == 0)
		burst++;
	/* At most the bucket: one block plus 10 ms of the rate (100 blocks),
	 * not the 10000 blocks the second would have carried. */
	ck_assert_uint_le(burst, 1 + 100);
	ck_assert_uint_ge(burst, 100);
}
END_TEST

START_TEST(late_wakeups_within_the_depth_lose_nothing)
{
	struct pacer p;
	uint64_t now = 0, sent = 0, i;

	/* 100 Mbit/s, 32 KiB datagrams; every wake-up is 3 ms late. */
	pacer_init(&p, 100000000, 32768, 1, now);
	for (i = 0; i < 100000 && now < 10000000; i++) {
		uint64_t d = pacer_delay(&p, 32768, now);
		if (d == 0)
			sent++;
		else
			now += d + 3000;
	}
	/* 100e6 * 10 / (32768 * 8) = 3814.7 datagrams */
	ck_assert_uint_ge(sent, 3800);
	ck_assert_uint_le(sent, 3830);
}
END_TEST

START_TEST(a_burst_goes_back_to_back)
{
	struct pacer p;
	int i;

	pacer_init(&p, 1000000, 125, 5, 0);
	for (i = 0; i < 5; i++)
		ck_assert_uint_eq(pacer_delay(&p, 125, 0), 0);
	ck_assert_uint_gt(pacer_delay(&p, 125, 0), 0);
}
END_TEST

START_TEST(a_clock_going_backwards_is_ignored)
{
	struct pacer p;

	pacer_init(&p, 1000000, 125, 1, 5000);
	ck_assert_uint_eq(pacer_delay(&p, 125, 5000), 0);
	ck_assert_uint_gt(pacer_delay(&p, 125, 1000), 0);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("pacer");
	TCase *tc = tcase_create("bucket");

	tcase_add_test(tc, unlimited_rate_never_waits);
	tcase_add_test(tc, keeps_the_average_rate);
	tcase_add_test(tc, waits_the_time_one_block_needs);
	tcase_add_test(tc, a_stall_is_not_made_up_in_a_flood);
	tcase_add_test(tc, late_wakeups_within_the_depth_lose_nothing);
	tcase_add_test(tc, a_burst_goes_back_to_back);
	tcase_add_test(tc, a_clock_going_backwards_is_ignored);
	suite_add_tcase(s, tc);
	return s;
}
