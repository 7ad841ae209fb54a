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
	timer_id *cancel_me;
	char *log;
	size_t *loglen;
	char tag;
};

static int
record(timer_id t, uint64_t now, void *arg)
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
	timer_id id;

	timer_list_init(&tl);
	id = timer_add(&tl, 1000, 500, 0, record, &r);
	ck_assert(id != TIMER_NONE);
	ck_assert(timer_active(&tl, id));
	ck_assert_int_eq(timer_list_run(&tl, 1499), 0);
	ck_assert_int_eq(timer_list_run(&tl, 1500), 1);
	ck_assert_int_eq(r.fired, 1);
	ck_assert_int_eq(timer_list_run(&tl, 5000), 0);
	ck_assert(!timer_active(&tl, id));
	ck_assert_uint_eq(timer_list_count(&tl), 0);
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
	timer_id id;

	timer_list_init(&tl);
	id = timer_add(&tl, 0, 10, 10, record, &r);
	timer_list_run(&tl, 10);
	ck_assert_int_eq(timer_list_next(&tl, &next), 0);
	ck_assert(!timer_active(&tl, id));
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

/* A re-armed timer goes after those already due at its new deadline. */
START_TEST(a_reset_goes_after_equal_deadlines)
{
	struct timer_list tl;
	char log[8] = { 0 };
	size_t n = 0;
	struct rec a = { 0 }, b = { 0 };
	timer_id ia;

	a.log = b.log = log;
	a.loglen = b.loglen = &n;
	a.tag = 'a';
	b.tag = 'b';
	timer_list_init(&tl);
	ia = timer_add(&tl, 0, 100, 0, record, &a);
	timer_add(&tl, 0, 100, 0, record, &b);
	ck_assert_int_eq(timer_reset(&tl, ia, 0, 100), 0);
	timer_list_run(&tl, 100);
	ck_assert_str_eq(log, "ba");
	timer_list_release(&tl);
}
END_TEST

START_TEST(cancel_from_inside_a_callback_is_safe)
{
	struct timer_list tl;
	struct rec r1 = { 0 }, r2 = { 0 };
	timer_id t2;

	timer_list_init(&tl);
	timer_add(&tl, 0, 10, 0, record, &r1);
	t2 = timer_add(&tl, 0, 10, 0, record, &r2);
	r1.tl = &tl;
	r1.cancel_me = &t2;
	ck_assert_int_eq(timer_list_run(&tl, 10), 1);
	ck_assert_int_eq(r2.fired, 0);
	ck_assert(t2 == TIMER_NONE); /* the owner's field is cleared */
	ck_assert_uint_eq(timer_list_count(&tl), 0);
	timer_list_release(&tl);
}
END_TEST

static int
self_cancel(timer_id t, uint64_t now, void *arg)
{
	struct timer_list *tl = arg;

	(void)now;
	timer_cancel(tl, &t);
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
rearm_later(timer_id t, uint64_t now, void *arg)
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

/*
 * The dangling-slot case: an owner keeps the handle of a timer that has
 * fired (nobody cleared the field), its storage is reused by a new timer,
 * and the owner then cancels or re-arms through the old handle.  The new
 * timer must be untouched.
 */
START_TEST(a_stale_handle_never_touches_a_new_timer)
{
	struct timer_list tl;
	struct rec r1 = { 0 }, r2 = { 0 };
	timer_id old, new, copy;
	uint64_t dl;

	timer_list_init(&tl);
	old = timer_add(&tl, 0, 10, 0, record, &r1);
	ck_assert_int_eq(timer_list_run(&tl, 10), 1);
	new = timer_add(&tl, 10, 50, 0, record, &r2); /* reuses the slot */
	ck_assert(new != old);
	ck_assert(!timer_active(&tl, old));
	ck_assert_int_eq(timer_reset(&tl, old, 10, 1000), -1);
	ck_assert_int_eq(timer_deadline(&tl, old, &dl), 0);
	copy = old;
	timer_cancel(&tl, &copy);
	ck_assert(copy == TIMER_NONE);
	ck_assert(timer_active(&tl, new));
	ck_assert(timer_deadline(&tl, new, &dl));
	ck_assert_uint_eq(dl, 60);
	ck_assert_int_eq(timer_list_run(&tl, 60), 1);
	ck_assert_int_eq(r2.fired, 1);
	timer_list_release(&tl);
}
END_TEST

START_TEST(cancelling_twice_or_none_is_harmless)
{
	struct timer_list tl;
	struct rec r = { 0 };
	timer_id id, none = TIMER_NONE, copy;

	timer_list_init(&tl);
	timer_cancel(&tl, &none);
	timer_cancel(&tl, NULL);
	id = timer_add(&tl, 0, 10, 0, record, &r);
	copy = id;
	timer_cancel(&tl, &id);
	timer_cancel(&tl, &copy); /* second cancel through a copy */
	ck_assert(!timer_active(&tl, TIMER_NONE));
	ck_assert_int_eq(timer_list_run(&tl, 100), 0);
	ck_assert_int_eq(r.fired, 0);
	/* Garbage handles (out of range, wrong generation) are ignored. */
	ck_assert(!timer_active(&tl, (timer_id)0xffffffffffffffffULL));
	ck_assert_int_eq(timer_reset(&tl, (timer_id)12345, 0, 1), -1);
	timer_list_release(&tl);
}
END_TEST

struct adder {
	struct timer_list *tl;
	int added;
	struct rec child;
};

/* Adding many timers from a callback moves the storage under the run. */
static int
add_many(timer_id t, uint64_t now, void *arg)
{
	struct adder *a = arg;
	int i;

	(void)t;
	for (i = 0; i < 100; i++)
		if (timer_add(a->tl, now, 5, 0, record, &a->child) != TIMER_NONE)
			a->added++;
	return 1; /* periodic: keeps going */
}

START_TEST(callbacks_may_add_timers)
{
	struct timer_list tl;
	struct adder a = { 0 };
	uint64_t next;
	timer_id id;

	a.tl = &tl;
	timer_list_init(&tl);
	id = timer_add(&tl, 0, 10, 10, add_many, &a);
	ck_assert_int_eq(timer_list_run(&tl, 10), 1);
	ck_assert_int_eq(a.added, 100);
	ck_assert(timer_active(&tl, id));
	ck_assert(timer_list_next(&tl, &next));
	ck_assert_uint_eq(next, 15);
	ck_assert_int_eq(timer_list_run(&tl, 15), 100);
	ck_assert_int_eq(a.child.fired, 100);
	ck_assert_uint_eq(timer_list_count(&tl), 1);
	timer_cancel(&tl, &id);
	ck_assert_uint_eq(timer_list_count(&tl), 0);
	timer_list_release(&tl);
}
END_TEST

static int
again(timer_id t, uint64_t now, void *arg)
{
	struct timer_list *tl = arg;

	timer_reset(tl, t, now, 0); /* due again at once */
	return 1;
}

START_TEST(a_pass_is_bounded)
{
	struct timer_list tl;

	timer_list_init(&tl);
	timer_add(&tl, 0, 0, 0, again, &tl);
	ck_assert_int_eq(timer_list_run(&tl, 0), 1000);
	timer_list_release(&tl);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("timer");
	TCase *tc = tcase_create("run");
	TCase *th = tcase_create("handles");

	tcase_add_test(tc, one_shot_fires_once_at_deadline);
	tcase_add_test(tc, periodic_does_not_drift_and_skips_missed_ticks);
	tcase_add_test(tc, returning_zero_stops_a_periodic_timer);
	tcase_add_test(tc, equal_deadlines_run_in_insertion_order);
	tcase_add_test(tc, a_reset_goes_after_equal_deadlines);
	tcase_add_test(tc, cancel_from_inside_a_callback_is_safe);
	tcase_add_test(tc, a_timer_may_cancel_itself);
	tcase_add_test(tc, a_one_shot_may_rearm_itself);
	tcase_add_test(tc, a_pass_is_bounded);
	suite_add_tcase(s, tc);
	tcase_add_test(th, a_stale_handle_never_touches_a_new_timer);
	tcase_add_test(th, cancelling_twice_or_none_is_harmless);
	tcase_add_test(th, callbacks_may_add_timers);
	suite_add_tcase(s, th);
	return s;
}
