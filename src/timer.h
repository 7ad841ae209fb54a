/*
 * timer.h - a sorted list of one-shot and periodic timers on a caller-given
 * monotonic microsecond clock.  No I/O, no clock reads: the caller passes
 * `now`, so the list is tested on a fake clock.
 *
 * Cancelling (even the running timer, from inside its callback) is safe: a
 * cancelled timer is only marked, and reaped after the pass.
 */
#ifndef IPERF_TIMER_H
#define IPERF_TIMER_H

#include <stdint.h>

struct timer;

/* Return 0 to stop a periodic timer, anything else to keep it. */
typedef int timer_cb(struct timer *t, uint64_t now_us, void *arg);

struct timer {
	uint64_t deadline_us;
	uint64_t period_us; /* 0 = one-shot */
	timer_cb *cb;
	void *arg;
	int cancelled;
	struct timer *next;
};

struct timer_list {
	struct timer *head; /* sorted by deadline, ties in insertion order */
	int running;        /* inside timer_list_run() */
};

void timer_list_init(struct timer_list *tl);
void timer_list_release(struct timer_list *tl);

/* First expiry at now + delay; then every period (0 = once). NULL on ENOMEM. */
struct timer *timer_add(struct timer_list *tl, uint64_t now_us,
    uint64_t delay_us, uint64_t period_us, timer_cb *cb, void *arg);
void timer_cancel(struct timer_list *tl, struct timer *t);
/* Re-arm so the next expiry is now + delay (periodic timers keep period). */
void timer_reset(struct timer_list *tl, struct timer *t, uint64_t now_us,
    uint64_t delay_us);
/* Earliest live deadline; returns 0 if there is none. */
int timer_list_next(const struct timer_list *tl, uint64_t *deadline_us);
/* Run every timer due at `now`; returns how many callbacks ran. */
int timer_list_run(struct timer_list *tl, uint64_t now_us);

#endif /* IPERF_TIMER_H */
