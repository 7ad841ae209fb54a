/* check_backoff.c - an unpaced UDP sender's hold for a dropping receiver,
 * on a fake clock (backoff.h). */
#include "config.h"

#include <stdint.h>

#include "check_main.h"
#include "backoff.h"

/* Send at `gbps` for `us` of fake time, in sends of 64 KBytes. */
static void
send_at(struct backoff *b, double gbps, uint64_t *now, uint64_t us)
{
	uint64_t end = *now + us;
	double step = 65536.0 * 8.0 / (gbps * 1e3); /* us per send */
	double t = (double)*now;

	while ((uint64_t)t < end) {
		backoff_sent(b, 65536, (uint64_t)t);
		t += step;
	}
	*now = end;
}

/* A fresh hold on a sender that has run at `gbps` for 50 ms. */
static void
started(struct backoff *b, double gbps, uint64_t *now)
{
	*now = 0;
	backoff_init(b, 0);
	send_at(b, gbps, now, 50000);
}

START_TEST(no_report_no_cap)
{
	struct backoff b;
	uint64_t now;

	started(&b, 40, &now);
	send_at(&b, 40, &now, 50000);
	ck_assert(backoff_cap(&b, now) == 0);
	ck_assert(b.rate_bps > 39e9 && b.rate_bps < 41e9);
}
END_TEST

START_TEST(nothing_measured_nothing_cut)
{
	struct backoff b;

	backoff_init(&b, 0);
	backoff_sent(&b, 65536, 10);
	ck_assert_int_eq(backoff_dropped(&b, 20, 1e9), 0);
	ck_assert(backoff_cap(&b, 20) == 0);
	/* a report without the receiver's intake cuts nothing either */
	backoff_sent(&b, 1 << 30, 50000);
	ck_assert_int_eq(backoff_dropped(&b, 60000, 0), 0);
	ck_assert(backoff_cap(&b, 60000) == 0);
}
END_TEST

/* A sender running away from its receiver (60 against 40 Gbit/s) comes
 * down by at most 15 % a step, to just below the receiver. */
START_TEST(a_runaway_sender_is_held_below_the_receiver)
{
	struct backoff b;
	uint64_t now;
	int i;

	started(&b, 60, &now);
	ck_assert_int_eq(backoff_dropped(&b, now, 40e9), 1);
	ck_assert(b.cap_bps > 60e9 * BACKOFF_CUT * 0.99 &&
	    b.cap_bps < 60e9 * BACKOFF_CUT * 1.01);
	/* the same episode: no second cut */
	ck_assert_int_eq(backoff_dropped(&b, now + BACKOFF_HOLD_US - 1, 40e9),
	    0);
	for (i = 0; i < 10; i++) {
		send_at(&b, backoff_cap(&b, now) / 1e9, &now, BACKOFF_WIN_US);
		(void)backoff_dropped(&b, now, 40e9);
	}
	ck_assert(b.cap_bps < 40e9);
	ck_assert(b.cap_bps >= 40e9 * BACKOFF_INTAKE * 0.99);
	/* held there: the receiver now takes what it gets */
	send_at(&b, backoff_cap(&b, now) / 1e9, &now, BACKOFF_WIN_US);
	ck_assert_int_eq(backoff_dropped(&b, now, backoff_cap(&b, now) * 0.97),
	    0);
}
END_TEST

/* Drops that go on at any rate (a buffer too small for one batch) never
 * take the sender below BACKOFF_FLOOR of what the receiver took in. */
START_TEST(drops_at_any_rate_stop_at_the_floor)
{
	struct backoff b;
	uint64_t now;
	int i;

	started(&b, 38, &now);
	for (i = 0; i < 50; i++) {
		double cap = backoff_cap(&b, now);

		send_at(&b, cap > 0 ? cap / 1e9 : 38, &now, BACKOFF_HOLD_US);
		cap = backoff_cap(&b, now);
		(void)backoff_dropped(&b, now, (cap > 0 ? cap : 38e9) * 0.97);
		send_at(&b, backoff_cap(&b, now) / 1e9, &now, BACKOFF_WIN_US);
	}
	ck_assert(b.cap_bps >= 38e9 * 0.97 * BACKOFF_FLOOR * 0.99);
	ck_assert(b.cap_bps > 0 && b.cap_bps < 38e9);
}
END_TEST

/* A receiver that stalls for a moment takes the sender down 15 %, not to
 * its momentary intake. */
START_TEST(a_stall_cuts_at_most_one_step)
{
	struct backoff b;
	uint64_t now;

	started(&b, 40, &now);
	ck_assert_int_eq(backoff_dropped(&b, now, 5e9), 1);
	ck_assert(b.cap_bps >= 40e9 * BACKOFF_CUT * 0.99);
}
END_TEST

START_TEST(quiet_time_raises_the_cap_then_drops_it)
{
	struct backoff b;
	uint64_t now;
	double cap;

	started(&b, 40, &now);
	ck_assert_int_eq(backoff_dropped(&b, now, 20e9), 1);
	cap = backoff_cap(&b, now);
	ck_assert(backoff_cap(&b, now + 10 * BACKOFF_RAISE_US) > cap * 1.09);
	/* a sender that cannot reach the cap anyway loses it */
	send_at(&b, 20, &now, 50000);
	ck_assert(backoff_cap(&b, now + 2000000) == 0);
}
END_TEST

START_TEST(a_clock_that_goes_back_is_survived)
{
	struct backoff b;

	backoff_init(&b, 1000000);
	backoff_sent(&b, 65536, 10);
	backoff_sent(&b, 65536, 20000);
	ck_assert(b.rate_bps > 0);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("backoff");
	TCase *tc = tcase_create("hold");

	tcase_add_test(tc, no_report_no_cap);
	tcase_add_test(tc, nothing_measured_nothing_cut);
	tcase_add_test(tc, a_runaway_sender_is_held_below_the_receiver);
	tcase_add_test(tc, drops_at_any_rate_stop_at_the_floor);
	tcase_add_test(tc, a_stall_cuts_at_most_one_step);
	tcase_add_test(tc, quiet_time_raises_the_cap_then_drops_it);
	tcase_add_test(tc, a_clock_that_goes_back_is_survived);
	suite_add_tcase(s, tc);
	return s;
}
