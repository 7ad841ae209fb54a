/* timer.c - sorted timer list (see timer.h). */
#include "config.h"

#include <stdlib.h>

#include "timer.h"
#include "banned.h"

/* Bound on callbacks per pass, so a timer re-armed at `now` cannot spin. */
#define TIMER_MAX_RUNS_PER_PASS 1000

void
timer_list_init(struct timer_list *tl)
{
	tl->head = NULL;
	tl->running = 0;
}

void
timer_list_release(struct timer_list *tl)
{
	struct timer *t = tl->head;

	while (t != NULL) {
		struct timer *next = t->next;
		free(t);
		t = next;
	}
	tl->head = NULL;
}

static void
insert_sorted(struct timer_list *tl, struct timer *t)
{
	struct timer **pp = &tl->head;

	while (*pp != NULL && (*pp)->deadline_us <= t->deadline_us)
		pp = &(*pp)->next;
	t->next = *pp;
	*pp = t;
}

static void
unlink_timer(struct timer_list *tl, struct timer *t)
{
	struct timer **pp = &tl->head;

	while (*pp != NULL && *pp != t)
		pp = &(*pp)->next;
	if (*pp == t)
		*pp = t->next;
	t->next = NULL;
}

struct timer *
timer_add(struct timer_list *tl, uint64_t now_us, uint64_t delay_us,
    uint64_t period_us, timer_cb *cb, void *arg)
{
	struct timer *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->deadline_us = now_us + delay_us;
	t->period_us = period_us;
	t->cb = cb;
	t->arg = arg;
	insert_sorted(tl, t);
	return t;
}

void
timer_cancel(struct timer_list *tl, struct timer *t)
{
	if (t == NULL)
		return;
	t->cancelled = 1;
	if (!tl->running) {
		unlink_timer(tl, t);
		free(t);
	}
}

void
timer_reset(struct timer_list *tl, struct timer *t, uint64_t now_us,
    uint64_t delay_us)
{
	if (t == NULL || t->cancelled)
		return;
	unlink_timer(tl, t);
	t->deadline_us = now_us + delay_us;
	insert_sorted(tl, t);
}

int
timer_list_next(const struct timer_list *tl, uint64_t *deadline_us)
{
	const struct timer *t;

	for (t = tl->head; t != NULL; t = t->next) {
		if (!t->cancelled) {
			*deadline_us = t->deadline_us;
			return 1;
		}
	}
	return 0;
}

static void
reap_cancelled(struct timer_list *tl)
{
	struct timer **pp = &tl->head;

	while (*pp != NULL) {
		struct timer *t = *pp;
		if (t->cancelled) {
			*pp = t->next;
			free(t);
		} else {
			pp = &t->next;
		}
	}
}

/* Move a periodic timer to its next slot; missed ticks are skipped. */
static void
rearm_periodic(struct timer_list *tl, struct timer *t, uint64_t now_us)
{
	unlink_timer(tl, t);
	t->deadline_us += t->period_us;
	if (t->deadline_us <= now_us) {
		uint64_t behind = now_us - t->deadline_us;
		t->deadline_us += (behind / t->period_us + 1) * t->period_us;
	}
	insert_sorted(tl, t);
}

int
timer_list_run(struct timer_list *tl, uint64_t now_us)
{
	int ran = 0;
	int more = 1;
	uint64_t before;
	int keep;

	tl->running = 1;
	while (more) {
		struct timer *t;

		more = 0;
		for (t = tl->head; t != NULL; t = t->next) {
			if (!t->cancelled && t->deadline_us <= now_us)
				break;
		}
		if (t == NULL)
			break;
		ran++;
		before = t->deadline_us;
		keep = t->cb(t, now_us, t->arg);
		more = ran < TIMER_MAX_RUNS_PER_PASS;
		if (t->cancelled || t->deadline_us != before)
			continue; /* cancelled or re-armed by its callback */
		if (keep == 0 || t->period_us == 0)
			t->cancelled = 1;
		else
			rearm_periodic(tl, t, now_us);
	}
	tl->running = 0;
	reap_cancelled(tl);
	return ran;
}
