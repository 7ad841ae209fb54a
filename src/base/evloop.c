/* evloop.c - select(2) event loop with timers (see evloop.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/select.h>
#include <sys/time.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evloop.h"
#include "iperf_time.h"
#include "banned.h"

struct evloop_fd {
	unsigned int events;
	evloop_io_cb *cb;
	void *arg;
};

struct evloop {
	fd_set rset, wset; /* masters, copied before each select() */
	int maxfd;
	struct evloop_fd fds[FD_SETSIZE];
	struct timer_list timers;
	evloop_clock *clock;
	void *clock_arg;
};

static uint64_t
default_clock(void *arg)
{
	(void)arg;
	return iperf_time_now_us();
}

struct evloop *
evloop_new(void)
{
	struct evloop *loop = calloc(1, sizeof(*loop));

	if (loop == NULL)
		return NULL;
	FD_ZERO(&loop->rset);
	FD_ZERO(&loop->wset);
	loop->maxfd = -1;
	timer_list_init(&loop->timers);
	loop->clock = default_clock;
	return loop;
}

void
evloop_free(struct evloop *loop)
{
	if (loop == NULL)
		return;
	timer_list_release(&loop->timers);
	free(loop);
}

void
evloop_set_clock(struct evloop *loop, evloop_clock *clock, void *arg)
{
	loop->clock = clock != NULL ? clock : default_clock;
	loop->clock_arg = arg;
}

uint64_t
evloop_now(struct evloop *loop)
{
	return loop->clock(loop->clock_arg);
}

int
evloop_add_fd(struct evloop *loop, int fd, unsigned int events,
    evloop_io_cb *cb, void *arg)
{
	if (fd < 0 || fd >= FD_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	loop->fds[fd].events = events;
	loop->fds[fd].cb = cb;
	loop->fds[fd].arg = arg;
	FD_CLR(fd, &loop->rset);
	FD_CLR(fd, &loop->wset);
	if (events & EV_READ)
		FD_SET(fd, &loop->rset);
	if (events & EV_WRITE)
		FD_SET(fd, &loop->wset);
	if (fd > loop->maxfd)
		loop->maxfd = fd;
	return 0;
}

void
evloop_del_fd(struct evloop *loop, int fd)
{
	if (fd < 0 || fd >= FD_SETSIZE)
		return;
	FD_CLR(fd, &loop->rset);
	FD_CLR(fd, &loop->wset);
	memset(&loop->fds[fd], 0, sizeof(loop->fds[fd]));
	while (loop->maxfd >= 0 && loop->fds[loop->maxfd].events == 0)
		loop->maxfd--;
}

timer_id
evloop_add_timer(struct evloop *loop, uint64_t delay_us, uint64_t period_us,
    timer_cb *cb, void *arg)
{
	return timer_add(&loop->timers, evloop_now(loop), delay_us, period_us,
	    cb, arg);
}

timer_id
evloop_add_timer_at(struct evloop *loop, uint64_t at_us, uint64_t period_us,
    timer_cb *cb, void *arg)
{
	uint64_t now = evloop_now(loop);

	return timer_add(&loop->timers, now, at_us > now ? at_us - now : 0,
	    period_us, cb, arg);
}

/* The handle calls accept a NULL loop (a test without one, or after it
 * was dropped): nothing is live there. */
void
evloop_cancel_timer(struct evloop *loop, timer_id *id)
{
	if (loop != NULL)
		timer_cancel(&loop->timers, id);
	else if (id != NULL)
		*id = TIMER_NONE;
}

int
evloop_timer_active(struct evloop *loop, timer_id id)
{
	return loop != NULL && timer_active(&loop->timers, id);
}

int
evloop_timer_deadline(struct evloop *loop, timer_id id, uint64_t *deadline_us)
{
	return loop != NULL && timer_deadline(&loop->timers, id, deadline_us);
}

int
evloop_reset_timer(struct evloop *loop, timer_id id, uint64_t delay_us)
{
	if (loop == NULL)
		return -1;
	return timer_reset(&loop->timers, id, evloop_now(loop), delay_us);
}

int
evloop_reset_timer_at(struct evloop *loop, timer_id id, uint64_t at_us)
{
	uint64_t now;

	if (loop == NULL)
		return -1;
	now = evloop_now(loop);

	return timer_reset(&loop->timers, id, now, at_us > now ? at_us - now : 0);
}

unsigned
evloop_timer_count(struct evloop *loop)
{
	return timer_list_count(&loop->timers);
}

static void
compute_timeout(struct evloop *loop, uint64_t max_wait_us, struct timeval *tv)
{
	uint64_t wait = max_wait_us;
	uint64_t deadline;

	if (timer_list_next(&loop->timers, &deadline)) {
		uint64_t now = evloop_now(loop);
		uint64_t until = deadline > now ? deadline - now : 0;
		if (until < wait)
			wait = until;
	}
	tv->tv_sec = (time_t)(wait / USEC_PER_SEC);
	tv->tv_usec = (suseconds_t)(wait % USEC_PER_SEC);
}

static int
dispatch_fds(struct evloop *loop, const fd_set *r, const fd_set *w, int n)
{
	int fd, ran = 0;
	int maxfd = loop->maxfd;

	for (fd = 0; fd <= maxfd && n > 0; fd++) {
		unsigned int ev = 0;

		if (FD_ISSET(fd, r))
			ev |= EV_READ;
		if (FD_ISSET(fd, w))
			ev |= EV_WRITE;
		if (ev == 0)
			continue;
		n--;
		/* A callback may have removed this fd; check it is live. */
		ev &= loop->fds[fd].events;
		if (ev != 0 && loop->fds[fd].cb != NULL) {
			loop->fds[fd].cb(loop, fd, ev, loop->fds[fd].arg);
			ran++;
		}
	}
	return ran;
}

int
evloop_run_once(struct evloop *loop, uint64_t max_wait_us)
{
	fd_set r, w;
	struct timeval tv;
	int n, ran = 0;

	memcpy(&r, &loop->rset, sizeof(r));
	memcpy(&w, &loop->wset, sizeof(w));
	compute_timeout(loop, max_wait_us, &tv);
	n = select(loop->maxfd + 1, &r, &w, NULL, &tv);
	if (n == -1 && errno != EINTR)
		return -1;
	if (n > 0)
		ran += dispatch_fds(loop, &r, &w, n);
	ran += timer_list_run(&loop->timers, evloop_now(loop));
	return ran;
}
