/*
 * timer.h - one-shot and periodic timers on a caller-given monotonic
 * microsecond clock.  No I/O, no clock reads: the caller passes `now`, so
 * the list is tested on a fake clock.
 *
 * Timers are known by handle (timer_id), never by pointer.  A handle
 * stays safe to use after its timer is gone: once a one-shot timer has
 * fired, a periodic one has been stopped, or either has been cancelled,
 * every call with the old handle is a no-op (timer_active() says 0), even
 * when the list has since reused the timer's storage for another timer.
 * So an owner may keep a handle in a field and cancel it at any time
 * without tracking whether the timer already ran; timer_cancel() also
 * clears the owner's field.  Cancelling from inside a callback (the
 * running timer included) is safe.
 */
#ifndef IPERF_TIMER_H
#define IPERF_TIMER_H

#include <stdint.h>

typedef uint64_t timer_id;
#define TIMER_NONE ((timer_id)0) /* no timer; every call ignores it */

/* Return 0 to stop a periodic timer, anything else to keep it. */
typedef int timer_cb(timer_id id, uint64_t now_us, void *arg);

struct timer_slot; /* private to timer.c */

struct timer_list {
	struct timer_slot *slots;
	uint32_t nslots;
	uint32_t cap;
	uint64_t seq; /* insertion order, for ties at equal deadlines */
};

void timer_list_init(struct timer_list *tl);
void timer_list_release(struct timer_list *tl);

/* First expiry at now + delay; then every period (0 = once).
 * TIMER_NONE on ENOMEM. */
timer_id timer_add(struct timer_list *tl, uint64_t now_us, uint64_t delay_us,
    uint64_t period_us, timer_cb *cb, void *arg);
/* Cancel *id if it is still live, and set *id to TIMER_NONE. */
void timer_cancel(struct timer_list *tl, timer_id *id);
/* 1 while the timer can still fire (added, not cancelled, not finished). */
int timer_active(const struct timer_list *tl, timer_id id);
/* Its next expiry, if active (returns 1); 0 otherwise. */
int timer_deadline(const struct timer_list *tl, timer_id id,
    uint64_t *deadline_us);
/* Re-arm so the next expiry is now + delay (periodic timers keep their
 * period; it runs after the timers already due at that time).  Returns 0,
 * or -1 (nothing done) if the handle is no longer active. */
int timer_reset(struct timer_list *tl, timer_id id, uint64_t now_us,
    uint64_t delay_us);
/* Earliest live deadline; returns 0 if there is none. */
int timer_list_next(const struct timer_list *tl, uint64_t *deadline_us);
/* Run every timer due at `now`, earliest first (ties in the order they
 * were added or re-armed); returns how many callbacks ran. */
int timer_list_run(struct timer_list *tl, uint64_t now_us);
/* How many timers are live (for leak checks). */
unsigned timer_list_count(const struct timer_list *tl);

#endif /* IPERF_TIMER_H */
