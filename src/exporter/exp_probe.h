/*
 * exp_probe.h - one /probe: the target resolved within the deadline and
 * checked against the allowed prefixes, the bind address checked, then
 * an iperf3 client run in this thread through libiperf's public API
 * (its own test object, JSON kept in memory, nothing printed), stopped
 * by the runner's watchdog at the deadline.
 *
 * The runner bounds the probes at once (slots) and owns the watchdog
 * thread, which interrupts (iperf_test_interrupt()) a probe past its
 * deadline, and every probe once the exporter stops.
 */
#ifndef IPERF_EXP_PROBE_H
#define IPERF_EXP_PROBE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cidr.h"
#include "exp_query.h"

struct iperf_test;

struct exp_slot {
	struct iperf_test *test; /* the running client, or NULL */
	uint64_t deadline_us;	 /* monotonic (iperf_time_now_us()) */
	int used;
	int fired;		 /* the watchdog interrupted it */
};

struct exp_runner {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct exp_slot *slots;
	int nslots;
	int stopping; /* every probe interrupted, none admitted */
	int quit;     /* the watchdog ends */
	pthread_t watchdog;
};

/* n slots and the watchdog thread: 0, or -1 (nothing to free). */
int exp_runner_init(struct exp_runner *r, int n);
/* A free slot, or -1 when all are taken or the runner is stopping. */
int exp_slot_take(struct exp_runner *r);
void exp_slot_give(struct exp_runner *r, int slot);
/* The slot's client, watched from now on until its deadline. */
void exp_slot_arm(struct exp_runner *r, int slot, struct iperf_test *test,
    uint64_t deadline_us);
/* No longer watched (before the test is freed); 1 if the watchdog
 * interrupted it. */
int exp_slot_disarm(struct exp_runner *r, int slot);
/* Probes in flight. */
int exp_runner_busy(struct exp_runner *r);
/* Interrupt every probe and admit no more (any thread). */
void exp_runner_stop(struct exp_runner *r);
/* Ends the watchdog and frees r (after the last probe returned). */
void exp_runner_free(struct exp_runner *r);

/* The operator's limits. */
struct exp_policy {
	const struct cidr *allow; /* targets must lie inside one of them */
	size_t nallow;
	uint64_t max_bitrate;	  /* bits/s, 0 = none */
};

struct exp_result {
	int status;	/* 200 (a probe ran or failed), 400, 403 */
	char reason[600]; /* the one-line reason of a 400/403, or why the
			   * probe failed */
	int ran_ok;	/* the client returned success */
	int capped;	/* the bitrate was lowered to max_bitrate */
	int timed_out;	/* stopped at the deadline */
	int duration_s;	/* the test's -t */
	char *json;	/* the client's result document (malloc'd) or NULL */
};

/*
 * Runs the probe q in `slot` (taken by the caller), bounded by budget_s
 * seconds from now.  The test lasts q->period_s rounded to whole seconds
 * (at least 1), shortened to leave a second of the budget for connecting
 * and the results.  Fills out (json to free).
 */
void exp_probe_run(struct exp_runner *r, int slot, const struct exp_policy *p,
    const struct probe_req *q, double budget_s, struct exp_result *out);

#endif /* IPERF_EXP_PROBE_H */
