/* check_evloop.c - the event loop (base/evloop.h) with socketpairs and a
 * fake clock: no network, no sleeping. */
#include "config.h"

#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <unistd.h>

#include "check_main.h"
#include "evloop.h"

struct fake_clock {
	uint64_t now;
};

static uint64_t
fake_now(void *arg)
{
	return ((struct fake_clock *)arg)->now;
}

struct seen {
	int calls;
	unsigned int events;
	int fd;
	struct evloop *loop;
	int drop_fd; /* >= 0: the callback removes this fd */
};

static void
io_cb(struct evloop *loop, int fd, unsigned int events, void *arg)
{
	struct seen *s = arg;
	char buf[16];

	s->calls++;
	s->events = events;
	s->fd = fd;
	if (events & EV_READ)
		(void)read(fd, buf, sizeof(buf));
	if (s->drop_fd >= 0)
		evloop_del_fd(loop, s->drop_fd);
}

static struct evloop *
fake_loop(struct fake_clock *c)
{
	struct evloop *loop = evloop_new();

	ck_assert_ptr_nonnull(loop);
	evloop_set_clock(loop, fake_now, c);
	return loop;
}

START_TEST(a_readable_fd_runs_its_callback_once_per_arrival)
{
	struct fake_clock c = { 1000 };
	struct evloop *loop = fake_loop(&c);
	struct seen s = { 0, 0, -1, NULL, -1 };
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(evloop_add_fd(loop, sv[0], EV_READ, io_cb, &s), 0);
	ck_assert_int_eq(evloop_run_once(loop, 0), 0); /* nothing yet */
	ck_assert_int_eq(s.calls, 0);
	ck_assert_int_eq(write(sv[1], "x", 1), 1);
	ck_assert_int_eq(evloop_run_once(loop, 0), 1);
	ck_assert_int_eq(s.calls, 1);
	ck_assert_int_eq(s.fd, sv[0]);
	ck_assert_uint_eq(s.events, EV_READ);
	ck_assert_int_eq(evloop_run_once(loop, 0), 0); /* drained */
	ck_assert_int_eq(s.calls, 1);
	evloop_free(loop);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(a_writable_fd_reports_write_only_when_asked)
{
	struct fake_clock c = { 0 };
	struct evloop *loop = fake_loop(&c);
	struct seen s = { 0, 0, -1, NULL, -1 };
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(evloop_add_fd(loop, sv[0], EV_WRITE, io_cb, &s), 0);
	ck_assert_int_eq(evloop_run_once(loop, 0), 1);
	ck_assert_uint_eq(s.events, EV_WRITE);
	evloop_del_fd(loop, sv[0]);
	ck_assert_int_eq(evloop_run_once(loop, 0), 0);
	ck_assert_int_eq(s.calls, 1);
	evloop_free(loop);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(a_callback_that_drops_another_ready_fd_stops_its_call)
{
	struct fake_clock c = { 0 };
	struct evloop *loop = fake_loop(&c);
	struct seen first = { 0, 0, -1, NULL, -1 }, second = first;
	int a[2], b[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, b), 0);
	/* the lower fd is dispatched first; it drops the higher one */
	first.drop_fd = b[0];
	ck_assert_int_lt(a[0], b[0]);
	ck_assert_int_eq(evloop_add_fd(loop, a[0], EV_READ, io_cb, &first), 0);
	ck_assert_int_eq(evloop_add_fd(loop, b[0], EV_READ, io_cb, &second), 0);
	ck_assert_int_eq(write(a[1], "x", 1), 1);
	ck_assert_int_eq(write(b[1], "y", 1), 1);
	ck_assert_int_eq(evloop_run_once(loop, 0), 1);
	ck_assert_int_eq(first.calls, 1);
	ck_assert_int_eq(second.calls, 0);
	evloop_free(loop);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}
END_TEST

START_TEST(fds_outside_the_select_set_are_refused)
{
	struct fake_clock c = { 0 };
	struct evloop *loop = fake_loop(&c);
	struct seen s = { 0, 0, -1, NULL, -1 };

	ck_assert_int_eq(evloop_add_fd(loop, -1, EV_READ, io_cb, &s), -1);
	ck_assert_int_eq(evloop_add_fd(loop, FD_SETSIZE, EV_READ, io_cb, &s),
	    -1);
	evloop_free(loop);
}
END_TEST

struct ticks {
	int n;
	int keep; /* periodic: stop after this many */
	uint64_t last_now;
	struct evloop *loop;
	timer_id *cancel; /* cancel this one when firing, if set */
};

static int
tick_cb(timer_id id, uint64_t now_us, void *arg)
{
	struct ticks *t = arg;

	(void)id;
	t->n++;
	t->last_now = now_us;
	if (t->cancel != NULL)
		evloop_cancel_timer(t->loop, t->cancel);
	return t->n < t->keep;
}

START_TEST(timers_fire_on_the_loops_clock)
{
	struct fake_clock c = { 5000 };
	struct evloop *loop = fake_loop(&c);
	struct ticks once = { 0, 0, 0, NULL, NULL }, every = { 0, 3, 0, NULL, NULL };
	timer_id t1, t2;

	t1 = evloop_add_timer(loop, 100, 0, tick_cb, &once);
	t2 = evloop_add_timer(loop, 50, 50, tick_cb, &every);
	ck_assert(t1 != TIMER_NONE && t2 != TIMER_NONE);
	ck_assert_uint_eq(evloop_timer_count(loop), 2);
	ck_assert_int_eq(evloop_run_once(loop, 0), 0);
	c.now += 50;
	ck_assert_int_eq(evloop_run_once(loop, 0), 1);
	ck_assert_int_eq(every.n, 1);
	ck_assert_uint_eq(every.last_now, 5050);
	c.now += 50;
	ck_assert_int_eq(evloop_run_once(loop, 0), 2);
	ck_assert_int_eq(once.n, 1);
	ck_assert(!evloop_timer_active(loop, t1)); /* a one-shot is done */
	c.now += 50;
	(void)evloop_run_once(loop, 0);
	ck_assert_int_eq(every.n, 3); /* its callback said stop */
	ck_assert(!evloop_timer_active(loop, t2));
	c.now += 500;
	(void)evloop_run_once(loop, 0);
	ck_assert_int_eq(every.n, 3);
	ck_assert_uint_eq(evloop_timer_count(loop), 0);
	evloop_free(loop);
}
END_TEST

START_TEST(a_timer_cancelled_by_an_earlier_one_does_not_fire)
{
	struct fake_clock c = { 0 };
	struct evloop *loop = fake_loop(&c);
	struct ticks later = { 0, 0, 0, NULL, NULL };
	struct ticks first = { 0, 0, 0, NULL, NULL };
	timer_id victim;

	victim = evloop_add_timer(loop, 20, 0, tick_cb, &later);
	first.loop = loop;
	first.cancel = &victim;
	(void)evloop_add_timer(loop, 10, 0, tick_cb, &first);
	c.now = 30; /* both are due in this pass */
	(void)evloop_run_once(loop, 0);
	ck_assert_int_eq(first.n, 1);
	ck_assert_int_eq(later.n, 0);
	ck_assert(victim == TIMER_NONE);
	/* a stale handle is harmless */
	evloop_cancel_timer(loop, &victim);
	ck_assert_uint_eq(evloop_timer_count(loop), 0);
	evloop_free(loop);
}
END_TEST

START_TEST(reset_moves_a_timer_and_a_gone_one_says_so)
{
	struct fake_clock c = { 100 };
	struct evloop *loop = fake_loop(&c);
	struct ticks t = { 0, 0, 0, NULL, NULL };
	timer_id id = evloop_add_timer(loop, 10, 0, tick_cb, &t);
	uint64_t at = 0;

	ck_assert_int_eq(evloop_reset_timer(loop, id, 1000), 0);
	ck_assert_int_eq(evloop_timer_deadline(loop, id, &at), 1);
	ck_assert_uint_eq(at, 1100);
	c.now = 500;
	(void)evloop_run_once(loop, 0);
	ck_assert_int_eq(t.n, 0);
	c.now = 1100;
	(void)evloop_run_once(loop, 0);
	ck_assert_int_eq(t.n, 1);
	ck_assert_int_eq(evloop_reset_timer(loop, id, 10), -1);
	evloop_free(loop);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("evloop");
	TCase *tc = tcase_create("loop");

	tcase_add_test(tc, a_readable_fd_runs_its_callback_once_per_arrival);
	tcase_add_test(tc, a_writable_fd_reports_write_only_when_asked);
	tcase_add_test(tc, a_callback_that_drops_another_ready_fd_stops_its_call);
	tcase_add_test(tc, fds_outside_the_select_set_are_refused);
	tcase_add_test(tc, timers_fire_on_the_loops_clock);
	tcase_add_test(tc, a_timer_cancelled_by_an_earlier_one_does_not_fire);
	tcase_add_test(tc, reset_moves_a_timer_and_a_gone_one_says_so);
	suite_add_tcase(s, tc);
	return s;
}
