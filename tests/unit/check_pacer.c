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
	/* At most the bucket: 1 ms of the rate (10 blocks), not the 10000
	 * blocks the second would have carried. */
	ck_assert_uint_le(burst, 10);
	ck_assert_uint_ge(burst, 9);
}
END_TEST

START_TEST(a_burst_never_exceeds_one_ms_of_the_rate)
{
	static const uint64_t rates[] = { 1000000000ULL, 500000000ULL,
		150000000ULL, 10000000000ULL };
	size_t i;

	/* -b 1G -l 1400: whatever the stall, at most 1 ms of the rate
	 * (125000 bytes, 89 datagrams) leaves back to back.  (Up to 10 ms
	 * once: 893 datagrams, more than a stock server's receive buffer.) */
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct pacer p;
		uint64_t now = 0, burst = 0, stall;
		double ms_bytes = (double)rates[i] / 8.0 / 1000.0;

		for (stall = 1000; stall <= 10000000; stall *= 10) {
			pacer_init(&p, rates[i], 1400, 1, now);
			now += stall;
			burst = 0;
			while (pacer_delay(&p, 1400, now) == 0)
				burst++;
			ck_assert_msg((double)burst * 1400.0 <= ms_bytes + 1400.0,
			    "rate %llu, stall %llu us: %llu datagrams at once",
			    (unsigned long long)rates[i],
			    (unsigned long long)stall, (unsigned long long)burst);
		}
	}
}
END_TEST

START_TEST(a_block_larger_than_one_ms_still_goes)
{
	struct pacer p;

	/* 1 Mbit/s: 1 ms is 125 bytes, a 1400-byte block is more. */
	pacer_init(&p, 1000000, 1400, 1, 0);
	ck_assert_uint_eq(pacer_delay(&p, 1400, 0), 0);
	ck_assert_uint_gt(pacer_delay(&p, 1400, 0), 0);
	ck_assert_uint_eq(pacer_delay(&p, 1400, 11200), 0);
}
END_TEST

START_TEST(short_waits_are_rounded_up)
{
	struct pacer p;

	/* 1 Gbit/s, 1400 bytes: 11.2 us apart; the wait is PACER_MIN_WAIT_US,
	 * after which the datagrams due go back to back (4 or 5). */
	pacer_init(&p, 1000000000, 1400, 1, 0);
	ck_assert_uint_eq(pacer_delay(&p, 1400, 0), 0);
	ck_assert_uint_eq(pacer_delay(&p, 1400, 0), PACER_MIN_WAIT_US);
	ck_assert_uint_eq(pacer_delay(&p, 1400, PACER_MIN_WAIT_US), 0);
	ck_assert_uint_eq(pacer_delay(&p, 1400, PACER_MIN_WAIT_US), 0);
	ck_assert_uint_eq(pacer_delay(&p, 1400, PACER_MIN_WAIT_US), 0);
	ck_assert_uint_eq(pacer_delay(&p, 1400, PACER_MIN_WAIT_US), 0);
	ck_assert_uint_eq(pacer_delay(&p, 1400, PACER_MIN_WAIT_US),
	    PACER_MIN_WAIT_US);
}
END_TEST

START_TEST(late_wakeups_within_the_depth_lose_nothing)
{
	struct pacer p;
	uint64_t now = 0, sent = 0, i;

	/* 100 Mbit/s, 1250-byte datagrams (10 per ms); every wake-up is
	 * 0.5 ms late, within the 1 ms the bucket holds. */
	pacer_init(&p, 100000000, 1250, 1, now);
	for (i = 0; i < 1000000 && now < 10000000; i++) {
		uint64_t d = pacer_delay(&p, 1250, now);
		if (d == 0)
			sent++;
		else
			now += d + 500;
	}
	/* 100e6 * 10 / (1250 * 8) = 100000 datagrams */
	ck_assert_uint_ge(sent, 99900);
	ck_assert_uint_le(sent, 100010);
}
END_TEST

START_TEST(late_wakeups_beyond_the_depth_keep_the_average)
{
	struct pacer p;
	uint64_t now = 0, sent = 0, run = 0, longest = 0, i;

	/* 200 Mbit/s, 1448-byte datagrams (56 us apart); one wake-up in 20
	 * is 5 ms late (a loaded host), beyond the 1 ms bucket: what was
	 * missed is paid back spaced, never more than the bucket back to
	 * back.  (With a 1 ms bucket alone, -b 200M under load gave 177.) */
	pacer_init(&p, 200000000, 1448, 1, now);
	for (i = 0; i < 10000000 && now < 10000000; i++) {
		uint64_t d = pacer_delay(&p, 1448, now);

		if (d == 0) {
			sent++;
			run++;
			continue;
		}
		longest = run > longest ? run : longest;
		run = 0;
		now += d + (i % 20 == 0 ? 5000 : 0);
	}
	/* 200e6 * 10 / (1448 * 8) = 172651 datagrams; a bucket is 17 */
	ck_assert_uint_ge(sent, 172651 * 995 / 1000);
	ck_assert_uint_le(sent, 172651 * 1005 / 1000);
	ck_assert_uint_le(longest, 18);
}
END_TEST

START_TEST(late_wakeups_at_a_low_rate_keep_the_average)
{
	struct pacer p;
	uint64_t now = 0, sent = 0, i;

	/* 10 Mbit/s, 1200-byte datagrams (960 us apart, a 1 ms bucket holds
	 * one): every wake-up is 2.5 ms late (a busy host).  The bucket of
	 * PACER_DEPTH_BLOCKS lets each wake-up send what is due; with one
	 * datagram per wake-up the sender made 6 Mbit/s of 10. */
	pacer_init(&p, 10000000, 1200, 1, now);
	for (i = 0; i < 1000000 && now < 10000000; i++) {
		uint64_t d = pacer_delay(&p, 1200, now);

		if (d == 0)
			sent++;
		else
			now += d + 2500;
	}
	/* 10e6 * 10 / (1200 * 8) = 10416 datagrams */
	ck_assert_uint_ge(sent, 10416 * 995 / 1000);
	ck_assert_uint_le(sent, 10416 * 1005 / 1000 + PACER_DEPTH_BLOCKS);
}
END_TEST

/* Blocks of 1250 bytes sent for dur_us from *now, every wait taken
 * exactly (an idle host). */
static uint64_t
send_for(struct pacer *p, uint64_t *now, uint64_t dur_us)
{
	uint64_t sent = 0, end = *now + dur_us;

	while (*now < end) {
		uint64_t d = pacer_delay(p, 1250, *now);

		if (d == 0)
			sent++;
		else
			*now += d;
	}
	return sent;
}

START_TEST(a_long_stall_is_paid_back_in_part_and_spaced)
{
	struct pacer p;
	uint64_t now = 0, sent;

	/* 100 Mbit/s of 1250-byte blocks (10 per ms) stopped for 1 s: at most
	 * PACER_OWED_US (500 ms, 5000 blocks) is owed, paid at up to
	 * PACER_CATCHUP (2) times the rate: 2000 blocks in the next 100 ms,
	 * spaced (not 10000 at once), all of it by 600 ms. */
	pacer_init(&p, 100000000, 1250, 1, now);
	now += 1000000;
	sent = send_for(&p, &now, 100000);
	ck_assert_uint_ge(sent, 1990);
	ck_assert_uint_le(sent, 2011);
	sent += send_for(&p, &now, 500000);
	/* 1000 ms owed at most 500: the bucket, 5000 and 6000 of the 600 ms */
	ck_assert_uint_ge(sent, 10980);
	ck_assert_uint_le(sent, 11011);
	/* and then the rate again */
	sent = send_for(&p, &now, 100000);
	ck_assert_uint_ge(sent, 995);
	ck_assert_uint_le(sent, 1011);
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
	tcase_add_test(tc, a_burst_never_exceeds_one_ms_of_the_rate);
	tcase_add_test(tc, late_wakeups_beyond_the_depth_keep_the_average);
	tcase_add_test(tc, a_long_stall_is_paid_back_in_part_and_spaced);
	tcase_add_test(tc, a_block_larger_than_one_ms_still_goes);
	tcase_add_test(tc, short_waits_are_rounded_up);
	tcase_add_test(tc, late_wakeups_within_the_depth_lose_nothing);
	tcase_add_test(tc, late_wakeups_at_a_low_rate_keep_the_average);
	tcase_add_test(tc, a_burst_goes_back_to_back);
	tcase_add_test(tc, a_clock_going_backwards_is_ignored);
	suite_add_tcase(s, tc);
	return s;
}
