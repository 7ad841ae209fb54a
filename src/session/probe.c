/* probe.c - --latency round trips on the control connection (probe.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#ifdef HAVE_OWD
#include "clockoff.h"
#endif
#include "ctrl.h"
#include "evloop.h"
#include "ext.h"
#include "iperf.h"
#include "iperf_error.h"
#include "latstat.h"
#include "probe.h"
#include "banned.h"

/* PROBE_WARMUP: from connecting the streams to the end of any omit
 * period; its round trips are timed but not kept. */
enum probe_phase { PROBE_OFF, PROBE_IDLE, PROBE_WARMUP, PROBE_LOADED };

struct probe {
	enum probe_phase phase;
	int in_flight; /* a request awaits its answer */
	enum probe_phase sent_phase;
	uint64_t sent_ns;
	timer_id tick;
	struct latstat idle, loaded;
#ifdef HAVE_OWD
	int64_t t1; /* --owd: CLOCK_REALTIME of the request, ns */
#endif
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int
tick_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;
	struct probe *p = test->run.ses.probe;

	(void)t;
	(void)now_us;
	if (p == NULL || p->phase == PROBE_OFF)
		return 0;
	if (p->in_flight || test->run.ses.ctrl_sck < 0)
		return 1; /* one request at a time */
	p->sent_phase = p->phase;
#ifdef HAVE_OWD
	if (test->opt->owd) {
		p->t1 = probe_wall_ns();
		p->sent_ns = now_ns();
		if (ctrl_send_state(test->run.ses.ctrl_sck,
			EXT_STATE_TSPROBE) == -1)
			return 1;
		p->in_flight = 1;
		return 1;
	}
#endif
	p->sent_ns = now_ns();
	if (ctrl_send_state(test->run.ses.ctrl_sck, EXT_STATE_PROBE) == -1)
		return 1; /* the control reader reports a dead connection */
	p->in_flight = 1;
	return 1;
}

int
probe_start(struct iperf_test *test)
{
	struct probe *p = test->run.ses.probe;

	if (p == NULL) {
		p = calloc(1, sizeof(*p));
		if (p == NULL)
			return iperf_fail(test, IENEWTEST, ENOMEM);
		p->tick = TIMER_NONE;
		test->run.ses.probe = p;
	}
	p->phase = PROBE_IDLE;
	test->run.ses.latency.used = 1;
#ifdef HAVE_OWD
	if (test->opt->owd && test->run.ses.owd == NULL) {
		test->run.ses.owd = calloc(1, sizeof(struct clockoff));
		if (test->run.ses.owd == NULL)
			return iperf_fail(test, IENEWTEST, ENOMEM);
		clockoff_init(test->run.ses.owd, CLOCKOFF_WINDOW_NS);
	}
	p->tick = evloop_add_timer(test->loop, 0, test->opt->owd ?
	    PROBE_OWD_PERIOD_US : PROBE_PERIOD_US, tick_cb, test);
#else
	p->tick = evloop_add_timer(test->loop, 0, PROBE_PERIOD_US, tick_cb,
	    test);
#endif
	if (p->tick == TIMER_NONE)
		return iperf_fail(test, IENEWTIMER, ENOMEM);
	return 0;
}

static void
set_phase(struct iperf_test *test, enum probe_phase phase)
{
	struct probe *p = test->run.ses.probe;

	if (p != NULL && p->phase != PROBE_OFF)
		p->phase = phase;
}

void
probe_warmup(struct iperf_test *test)
{
	set_phase(test, PROBE_WARMUP);
}

void
probe_loaded(struct iperf_test *test)
{
	set_phase(test, PROBE_LOADED);
}

void
probe_stop(struct iperf_test *test)
{
	struct probe *p = test->run.ses.probe;

	if (p == NULL)
		return;
	p->phase = PROBE_OFF;
	evloop_cancel_timer(test->loop, &p->tick);
	/* what the reporters read */
	latstat_summary(&p->idle, &test->run.ses.latency.idle);
	latstat_summary(&p->loaded, &test->run.ses.latency.loaded);
}

int
probe_on_answer(struct iperf_test *test)
{
	struct probe *p = test->run.ses.probe;
	uint64_t rtt;

	if (p == NULL || !p->in_flight)
		return -1;
	rtt = now_ns() - p->sent_ns;
	p->in_flight = 0;
	if (p->phase == PROBE_OFF)
		return 0; /* the test ended meanwhile */
	if (p->sent_phase == PROBE_IDLE)
		(void)latstat_add(&p->idle, rtt);
	else if (p->sent_phase == PROBE_LOADED)
		(void)latstat_add(&p->loaded, rtt);
	return 0;
}

#ifdef HAVE_OWD
int64_t
probe_wall_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + (int64_t)ts.tv_nsec;
}

int
probe_owd_answer(struct iperf_test *test, int64_t t2, int64_t t3)
{
	struct probe *p = test->run.ses.probe;
	struct clockoff_rec r;

	if (p == NULL || !p->in_flight || !test->opt->owd ||
	    test->run.ses.owd == NULL)
		return iperf_fail(test, IEMESSAGE, 0);
	r.t4 = probe_wall_ns();
	(void)probe_on_answer(test); /* the round trip, for --latency */
	if (p->phase == PROBE_OFF)
		return 0;
	r.t1 = p->t1;
	r.t2 = t2;
	r.t3 = t3;
	r.mono_us = evloop_now(test->loop);
	r.loaded = p->sent_phase == PROBE_LOADED;
	if (clockoff_add(test->run.ses.owd, &r) == -1)
		return iperf_fail(test, IENEWTEST, ENOMEM);
	return 0;
}
#endif

void
probe_release(struct iperf_test *test)
{
	struct probe *p = test->run.ses.probe;

#ifdef HAVE_OWD
	if (test->run.ses.owd != NULL) {
		clockoff_free(test->run.ses.owd);
		free(test->run.ses.owd);
		test->run.ses.owd = NULL;
	}
#endif
	if (p == NULL)
		return;
	evloop_cancel_timer(test->loop, &p->tick);
	latstat_free(&p->idle);
	latstat_free(&p->loaded);
	free(p);
	test->run.ses.probe = NULL;
}
