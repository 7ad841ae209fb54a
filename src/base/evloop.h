/*
 * evloop.h - a select(2) loop owned by one test (no process globals).
 * File descriptors get callbacks; timers run on a monotonic microsecond
 * clock that can be replaced (tests use a fake clock).
 */
#ifndef IPERF_EVLOOP_H
#define IPERF_EVLOOP_H

#include <stdint.h>

#include "timer.h"

struct evloop;

#define EV_READ (1u << 0)
#define EV_WRITE (1u << 1)

typedef void evloop_io_cb(struct evloop *loop, int fd, unsigned int events,
    void *arg);
typedef uint64_t evloop_clock(void *arg);

struct evloop *evloop_new(void);
void evloop_free(struct evloop *loop);
/* Replace the clock (default: iperf_time_now_us). */
void evloop_set_clock(struct evloop *loop, evloop_clock *clock, void *arg);
uint64_t evloop_now(struct evloop *loop);

/* -1 if fd is negative or >= FD_SETSIZE, or on ENOMEM. */
int evloop_add_fd(struct evloop *loop, int fd, unsigned int events,
    evloop_io_cb *cb, void *arg);
void evloop_del_fd(struct evloop *loop, int fd);

/* Timers by handle (see timer.h): TIMER_NONE on ENOMEM. */
timer_id evloop_add_timer(struct evloop *loop, uint64_t delay_us,
    uint64_t period_us, timer_cb *cb, void *arg);
/* The same, first expiry at the absolute monotonic time `at_us`. */
timer_id evloop_add_timer_at(struct evloop *loop, uint64_t at_us,
    uint64_t period_us, timer_cb *cb, void *arg);
/* Cancel *id if still live and set it to TIMER_NONE (stale: no-op). */
void evloop_cancel_timer(struct evloop *loop, timer_id *id);
int evloop_timer_active(struct evloop *loop, timer_id id);
int evloop_timer_deadline(struct evloop *loop, timer_id id,
    uint64_t *deadline_us);
/* Next expiry in delay_us / at `at_us`; -1 if the timer is gone. */
int evloop_reset_timer(struct evloop *loop, timer_id id, uint64_t delay_us);
int evloop_reset_timer_at(struct evloop *loop, timer_id id, uint64_t at_us);
/* Live timers (tests check that a finished run leaves none). */
unsigned evloop_timer_count(struct evloop *loop);

/*
 * Wait at most max_wait_us (or until the next timer), then run the ready
 * callbacks and due timers.  Returns the number of callbacks run, 0 on a
 * plain timeout, -1 if select() failed (errno set; EINTR is not a failure).
 */
int evloop_run_once(struct evloop *loop, uint64_t max_wait_us);

#endif /* IPERF_EVLOOP_H */
