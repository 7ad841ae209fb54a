/* probe.c - --latency round trips on the control connection (probe.h). */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "ctrl.h"
#include "evloop.h"
#include "ext.h"
#include "iperf.h"
#include "iperf_error.h"
#include "probe.h"
#include "banned.h"

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
	struct probe *p = &test->run.probe;

	(void)t;
	(void)now_us;
	if (p->phase == PROBE_OFF)
		return 0;
	if (p->in_flight || test->run.ctrl_sck < 0)
		return 1; /* one request at a time */
	p->sent_phase = p->phase;
	p->sent_ns = now_ns();
	if (ctrl_send_state(test->run.ctrl_sck, EXT_STATE_PROBE) == -1)
		return 1; /* the control reader reports a dead connection */
	p->in_flight = 1;
	return 1;
}

int
probe_start(struct iperf_test *test)
{
	struct probe *p = &test->run.probe;

	p->phase = PROBE_IDLE;
	p->used = 1;
	p->tick = evloop_add_timer(test->loop, 0, PROBE_PERIOD_US, tick_cb,
	    test);
	if (p->tick == TIMER_NONE)
		return iperf_fail(test, IENEWTIMER, ENOMEM);
	return 0;
}

void
probe_warmup(struct iperf_test *test)
{
	if (test->run.probe.phase != PROBE_OFF)
		test->run.probe.phase = PROBE_WARMUP;
}

void
probe_loaded(struct iperf_test *test)
{
	if (test->run.probe.phase != PROBE_OFF)
		test->run.probe.phase = PROBE_LOADED;
}

void
probe_stop(struct iperf_test *test)
{
	struct probe *p = &test->run.probe;

	p->phase = PROBE_OFF;
	evloop_cancel_timer(test->loop, &p->tick);
}

int
probe_on_answer(struct iperf_test *test)
{
	struct probe *p = &test->run.probe;
	uint64_t rtt = now_ns() - p->sent_ns;

	if (!p->in_flight)
		return -1;
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
probe_release(struct probe *p)
{
	latstat_free(&p->idle);
	latstat_free(&p->loaded);
}

int
probe_summary(const struct iperf_test *test, struct latsum *idle,
    struct latsum *loaded)
{
	const struct probe *p = &test->run.probe;

	latstat_summary(&p->idle, idle);
	latstat_summary(&p->loaded, loaded);
	return p->used;
}
