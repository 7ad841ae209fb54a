/* probe.c - --latency round trips on the control connection (probe.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

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
	p->tick = evloop_add_timer(test->loop, 0, PROBE_PERIOD_US, tick_cb,
	    test);
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

void
probe_release(struct iperf_test *test)
{
	struct probe *p = test->run.ses.probe;

	if (p == NULL)
		return;
	evloop_cancel_timer(test->loop, &p->tick);
	latstat_free(&p->idle);
	latstat_free(&p->loaded);
	free(p);
	test->run.ses.probe = NULL;
}
