/* timer.c - timers known by generation-checked handles (see timer.h). */
#include "config.h"

#include <stdlib.h>

#include "timer.h"
#include "banned.h"

/* Bound on callbacks per pass, so a timer re-armed at `now` cannot spin. */
#define TIMER_MAX_RUNS_PER_PASS 1000
/* Slots are few (a test has about eight timers): a linear scan finds the
 * earliest, and storage grows by doubling from this. */
#define TIMER_MIN_SLOTS 8

/*
 * One slot per timer.  A handle is (generation << 32) | (index + 1); the
 * generation advances whenever the slot's timer ends, so an old handle no
 * longer matches and every call with it does nothing.
 */
struct timer_slot {
	uint64_t deadline_us;
	uint64_t period_us; /* 0 = one-shot */
	uint64_t seq;
	timer_cb *cb;
	void *arg;
	uint32_t gen;
	int live;
};

void
timer_list_init(struct timer_list *tl)
{
	tl->slots = NULL;
	tl->nslots = 0;
	tl->cap = 0;
	tl->seq = 0;
}

void
timer_list_release(struct timer_list *tl)
{
	free(tl->slots);
	timer_list_init(tl);
}

static timer_id
make_id(uint32_t idx, uint32_t gen)
{
	return ((uint64_t)gen << 32) | (uint64_t)(idx + 1);
}

/* The live slot a handle names, or NULL. */
static struct timer_slot *
lookup(const struct timer_list *tl, timer_id id)
{
	uint32_t idx = (uint32_t)(id & 0xffffffffu);
	struct timer_slot *s;

	if (idx == 0 || idx > tl->nslots)
		return NULL;
	s = &tl->slots[idx - 1];
	if (!s->live || s->gen != (uint32_t)(id >> 32))
		return NULL;
	return s;
}

static void
end_slot(struct timer_slot *s)
{
	s->live = 0;
	if (++s->gen == 0) /* generation 0 would let id 0 mean a timer */
		s->gen = 1;
}

timer_id
timer_add(struct timer_list *tl, uint64_t now_us, uint64_t delay_us,
    uint64_t period_us, timer_cb *cb, void *arg)
{
	uint32_t i;
	struct timer_slot *s;

	for (i = 0; i < tl->nslots; i++)
		if (!tl->slots[i].live)
			break;
	if (i == tl->nslots) {
		if (tl->nslots == tl->cap) {
			uint32_t cap = tl->cap ? tl->cap * 2 : TIMER_MIN_SLOTS;
			struct timer_slot *n;

			if (cap < tl->cap) /* overflow */
				return TIMER_NONE;
			n = realloc(tl->slots, (size_t)cap * sizeof(*n));
			if (n == NULL)
				return TIMER_NONE;
			tl->slots = n;
			tl->cap = cap;
		}
		tl->slots[i].gen = 1;
		tl->slots[i].live = 0;
		tl->nslots++;
	}
	s = &tl->slots[i];
	s->deadline_us = now_us + delay_us;
	s->period_us = period_us;
	s->seq = ++tl->seq;
	s->cb = cb;
	s->arg = arg;
	s->live = 1;
	return make_id(i, s->gen);
}

void
timer_cancel(struct timer_list *tl, timer_id *id)
{
	struct timer_slot *s;

	if (id == NULL)
		return;
	s = lookup(tl, *id);
	if (s != NULL)
		end_slot(s);
	*id = TIMER_NONE;
}

int
timer_active(const struct timer_list *tl, timer_id id)
{
	return lookup(tl, id) != NULL;
}

int
timer_deadline(const struct timer_list *tl, timer_id id, uint64_t *deadline_us)
{
	const struct timer_slot *s = lookup(tl, id);

	if (s == NULL)
		return 0;
	*deadline_us = s->deadline_us;
	return 1;
}

int
timer_reset(struct timer_list *tl, timer_id id, uint64_t now_us,
    uint64_t delay_us)
{
	struct timer_slot *s = lookup(tl, id);

	if (s == NULL)
		return -1;
	s->deadline_us = now_us + delay_us;
	s->seq = ++tl->seq;
	return 0;
}

/* Index of the earliest live slot (ties: lowest seq), or -1. */
static long
earliest(const struct timer_list *tl)
{
	long best = -1;
	uint32_t i;

	for (i = 0; i < tl->nslots; i++) {
		const struct timer_slot *s = &tl->slots[i];

		if (!s->live)
			continue;
		if (best < 0 || s->deadline_us < tl->slots[best].deadline_us ||
		    (s->deadline_us == tl->slots[best].deadline_us &&
			s->seq < tl->slots[best].seq))
			best = (long)i;
	}
	return best;
}

int
timer_list_next(const struct timer_list *tl, uint64_t *deadline_us)
{
	long i = earliest(tl);

	if (i < 0)
		return 0;
	*deadline_us = tl->slots[i].deadline_us;
	return 1;
}

unsigned
timer_list_count(const struct timer_list *tl)
{
	unsigned n = 0;
	uint32_t i;

	for (i = 0; i < tl->nslots; i++)
		n += tl->slots[i].live != 0;
	return n;
}

/* Move a periodic timer to its next slot; missed ticks are skipped. */
static void
rearm_periodic(struct timer_list *tl, struct timer_slot *s, uint64_t now_us)
{
	s->deadline_us += s->period_us;
	if (s->deadline_us <= now_us) {
		uint64_t behind = now_us - s->deadline_us;
		s->deadline_us += (behind / s->period_us + 1) * s->period_us;
	}
	s->seq = ++tl->seq;
}

int
timer_list_run(struct timer_list *tl, uint64_t now_us)
{
	int ran = 0;

	while (ran < TIMER_MAX_RUNS_PER_PASS) {
		long i = earliest(tl);
		struct timer_slot *s;
		timer_id id;
		uint64_t seq;
		int keep;

		if (i < 0 || tl->slots[i].deadline_us > now_us)
			break;
		s = &tl->slots[i];
		id = make_id((uint32_t)i, s->gen);
		seq = s->seq;
		ran++;
		keep = s->cb(id, now_us, s->arg);
		/* The callback may have added timers (moving the slots),
		 * cancelled this one, or re-armed it: look it up again. */
		s = lookup(tl, id);
		if (s == NULL || s->seq != seq)
			continue;
		if (keep == 0 || s->period_us == 0)
			end_slot(s);
		else
			rearm_periodic(tl, s, now_us);
	}
	return ran;
}
