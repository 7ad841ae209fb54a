/* check_timer.c - the timer list on a fake clock (no sleeps). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "check_main.h"
#include "timer.h"

struct rec {
	int fired;
	uint64_t last_now;
	int keep;
	struct timer_list *tl;
	struct timer *cancel_me;
	char *log;
	size_t *loglen;
	char tag;
};

static int
record(struct timer *t, uint64_t now, void *arg)
{
	struct rec *r = arg;

	(void)t;
	r->fired++;
	r->last_now = now;
	if (r->log != NULL)
		r->log[(*r->loglen)++] = r->tag;
	if (r->cancel_me != NULL)
		timer_cancel(r->tl, r->cancel_me);
	return r->keep;
}

START_TEST(one_shot_fires_once_at_deadline)
{
	struct timer_list tl;
	struct rec r = { 0 };

	timer_list_init(&tl);
	ck_assert_ptr_nonnull(timer_add(&tl, 1000, 500, 0, record, &r));
	ck_assert_int_eq(timer_list_run(&tl, 1499), 0);
	ck_assert_int_eq(timer_list_run(&tl, 1500), 1);
	ck_assert_int_eq(r.fired, 1);
	ck_assert_int_eq(timer_list_run(&tl, 5000), 0);
	ck_assert_ptr_null(tl.head);
	timer_list_release(&tl);
}
END_TEST

START_TEST(periodic_does_not_drift_and_skips_missed_ticks)
{
	struct timer_list tl;
	struct rec r = { 0 };
	uint64_t next = 0;

	r.keep = 1;
	timer_list_init(&tl);
	timer_add(&tl, 0, 1000, 1000, record, &r);
	ck_assert_int_eq(timer_list_run(&tl, 1003), 1); /* late by 3 us */
	ck_assert(timer_list_next(&tl, &next));
	ck_assert_uint_eq(next, 2000); /* from the scheduled time */
	ck_assert_int_eq(timer_list_run(&tl, 5500), 1); /* missed 2,3,4,5 */
	ck_assert(timer_list_next(&tl, &next));
	ck_assert_uint_eq(next, 6000);
	ck_assert_int_eq(r.fired, 2);
	timer_list_release(&tl);
}
END_TEST

START_TEST(returning_zero_stops_a_periodic_timer)
{
	struct timer_list tl;
	struct rec r = { 0 };
	uint64_t next;

	timer_list_init(&tl);
	timer_add(&tl, 0, 10, 10, record, &r);
	timer_list_run(&tl, 10);
	ck_assert_int_eq(timer_list_next(&tl, &next), 0);
	timer_list_release(&tl);
}
END_TEST

START_TEST(equal_deadlines_run_in_insertion_order)
{
	struct timer_list tl;
	char log[8] = { 0 };
	size_t n = 0;
	struct rec a = { 0 }, b = { 0 }, c = { 0 };

	a.log = b.log = c.log = log;
	a.loglen = b.loglen = c.loglen = &n;
	a.tag = 'a';
	b.tag = 'b';
	c.tag = 'c';
	timer_list_init(&tl);
	timer_add(&tl, 0, 100, 0, record, &a);
	timer_add(&tl, 0, 100, 0, record, &b);
	timer_add(&tl, 0, 50, 0, record, &c);
	timer_list_run(&tl, 100);
	ck_assert_str_eq(log, "cab");
	timer_list_release(&tl);
}
END_TEST

START_TEST(cancel_from_inside_a_callback_is_safe)
{
	struct timer_list tl;
	struct rec r1 = { 0 }, r2 = { 0 };
	struct timer *t2;

	timer_list_init(&tl);
	timer_add(&tl, 0, 10, 0, record, &r1);
	t2 = timer_add(&tl, 0, 10, 0, record, &r2);
	r1.tl = &tl;
	r1.cancel_me = t2;
	ck_assert_int_eq(timer_list_run(&tl, 10), 1);
	ck_assert_int_eq(r2.fired, 0);
	ck_assert_ptr_null(tl.head);
	timer_list_release(&tl);
}
END_TEST

static int
self_cancel(struct timer *t, uint64_t now, void *arg)
{
	struct timer_list *tl = arg;

	(void)now;
	timer_cancel(tl, t);
	return 1;
}

START_TEST(a_timer_may_cancel_itself)
{
	struct timer_list tl;
	uint64_t next;

	timer_list_init(&tl);
	timer_add(&tl, 0, 10, 10, self_cancel, &tl);
	ck_assert_int_eq(timer_list_run(&tl, 10), 1);
	ck_assert_int_eq(timer_list_next(&tl, &next), 0);
	timer_list_release(&tl);
}
END_TEST

static int
rearm_later(struct timer *t, uint64_t now, void *arg)
{
	struct timer_list *tl = arg;

	timer_reset(tl, t, now, 100);
	return 0;
}

START_TEST(a_one_shot_may_rearm_itself)
{
	struct timer_list tl;
	uint64_t next = 0;

	timer_list_init(&tl);
	timer_add(&tl, 0, 10, 0, rearm_later, &tl);
	timer_list_run(&tl, 10);
	ck_assert(timer_list_next(&tl, &next));
	ck_assert_uint_eq(next, 110);
	timer_list_release(&tl);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("timer");
	TCase *tc = tcase_create("run");

	tcase_add_test(tc, one_shot_fires_once_at_deadline);
	tcase_add_test(tc, periodic_does_not_drift_and_skips_missed_ticks);
	tcase_add_test(tc, returning_zero_stops_a_periodic_timer);
	tcase_add_test(tc, equal_deadlines_run_in_insertion_order);
	tcase_add_test(tc, cancel_from_inside_a_callback_is_safe);
	tcase_add_test(tc, a_timer_may_cancel_itself);
	tcase_add_test(tc, a_one_shot_may_rearm_itself);
	suite_add_tcase(s, tc);
	return s;
}
