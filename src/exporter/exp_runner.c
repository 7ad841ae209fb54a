/*
 * exp_runner.c - the probes at once (exp_probe.h): a fixed set of slots
 * under one lock, and a watchdog thread that interrupts a running client
 * once its deadline has passed (or the exporter stops), every 20 ms until
 * the client has returned.  iperf_test_interrupt() is safe from any
 * thread; the slot's test is cleared under the lock before the test is
 * freed, so the watchdog never touches a freed test.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exp_probe.h"
#include "iperf_api.h"
#include "iperf_time.h"
#include "banned.h"

#define WATCHDOG_TICK_NS 20000000L

static void *
watchdog_main(void *arg)
{
	struct exp_runner *r = arg;
	struct timespec ts;
	uint64_t now;
	int i;

	pthread_mutex_lock(&r->lock);
	while (!r->quit) {
		now = iperf_time_now_us();
		for (i = 0; i < r->nslots; i++) {
			struct exp_slot *s = &r->slots[i];

			if (s->test == NULL ||
			    (!r->stopping && now < s->deadline_us))
				continue;
			iperf_test_interrupt(s->test, 0);
			s->fired = 1;
		}
		(void)clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += WATCHDOG_TICK_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		(void)pthread_cond_timedwait(&r->wake, &r->lock, &ts);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int
exp_runner_init(struct exp_runner *r, int n)
{
	pthread_condattr_t ca;

	memset(r, 0, sizeof(*r));
	r->slots = calloc((size_t)n, sizeof(*r->slots));
	if (r->slots == NULL)
		return -1;
	r->nslots = n;
	(void)pthread_mutex_init(&r->lock, NULL);
	(void)pthread_condattr_init(&ca);
	(void)pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	(void)pthread_cond_init(&r->wake, &ca);
	(void)pthread_condattr_destroy(&ca);
	if (pthread_create(&r->watchdog, NULL, watchdog_main, r) != 0) {
		pthread_cond_destroy(&r->wake);
		pthread_mutex_destroy(&r->lock);
		free(r->slots);
		return -1;
	}
	return 0;
}

int
exp_slot_take(struct exp_runner *r)
{
	int i, got = -1;

	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->nslots && !r->stopping; i++) {
		if (!r->slots[i].used) {
			memset(&r->slots[i], 0, sizeof(r->slots[i]));
			r->slots[i].used = 1;
			got = i;
			break;
		}
	}
	pthread_mutex_unlock(&r->lock);
	return got;
}

void
exp_slot_give(struct exp_runner *r, int slot)
{
	pthread_mutex_lock(&r->lock);
	memset(&r->slots[slot], 0, sizeof(r->slots[slot]));
	pthread_mutex_unlock(&r->lock);
}

void
exp_slot_arm(struct exp_runner *r, int slot, struct iperf_test *test,
    uint64_t deadline_us)
{
	pthread_mutex_lock(&r->lock);
	r->slots[slot].test = test;
	r->slots[slot].deadline_us = deadline_us;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
}

int
exp_slot_disarm(struct exp_runner *r, int slot)
{
	int fired;

	pthread_mutex_lock(&r->lock);
	r->slots[slot].test = NULL;
	fired = r->slots[slot].fired;
	pthread_mutex_unlock(&r->lock);
	return fired;
}

int
exp_runner_busy(struct exp_runner *r)
{
	int i, n = 0;

	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->nslots; i++)
		n += r->slots[i].used;
	pthread_mutex_unlock(&r->lock);
	return n;
}

void
exp_runner_stop(struct exp_runner *r)
{
	pthread_mutex_lock(&r->lock);
	r->stopping = 1;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
}

void
exp_runner_free(struct exp_runner *r)
{
	pthread_mutex_lock(&r->lock);
	r->quit = 1;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	(void)pthread_join(r->watchdog, NULL);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r->slots);
	r->slots = NULL;
}
