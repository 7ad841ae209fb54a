/* server_limits.c - limits and watchdogs of the server (see the header). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "evloop.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "ratewin.h"
#include "report.h"
#include "server_caps.h"
#include "server_limits.h"
#include "session.h"
#include "stream.h"
#include "test.h"
#include "banned.h"

/* ---- at parameter time ------------------------------------------------- */

/* time + omit above the maximum, or an untimed (-n/-k, -t 0) test. */
static int
check_duration(struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	int max = test->opt->max_server_duration_s;

	if (max <= 0)
		return 0;
	if (s->duration <= 0 || (long long)s->duration + s->omit > max)
		return iperf_fail(test, IEMAXSERVERTESTDURATIONEXCEEDED, 0);
	return 0;
}

static void
verbose_error(struct iperf_test *test, const char *what, double bps)
{
	char msg[160];

	if (!test->opt->verbose || test->opt->json_output)
		return;
	(void)snprintf(msg, sizeof(msg), "%s of %.0f bps exceeded %llu bps limit",
	    what, bps, (unsigned long long)test->opt->bitrate_limit);
	test->reporter->error(test, msg);
}

/* Streams x -b, and streams x --fq-rate, each doubled with --bidir. */
static int
check_requested_rate(struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	double limit = (double)test->opt->bitrate_limit;
	double k = (double)s->num_streams * (s->bidirectional ? 2.0 : 1.0);
	double bw = k * (double)s->rate, fq = k * (double)s->fqrate;

	if (test->opt->bitrate_limit == 0 || (bw <= limit && fq <= limit))
		return 0;
	verbose_error(test, "Client total requested throughput rate",
	    bw > limit ? bw : fq);
	return iperf_fail(test, IETOTALRATE, 0);
}

#ifdef HAVE_OPERATOR /* the operator's server (--disable-operator) */
/*
 * --server-max-streams, --server-max-bytes (ours): a stock client's test
 * beyond them gets the duration cap's refusal, the one error every stock
 * client knows for "too big a test": more streams (every direction) than
 * the cap, or a byte bound (server_caps.h) above it - a count above it,
 * a timed test whose rate x (time + omit) is, or an unbounded one.
 */
static int
check_streams_bytes(struct iperf_test *test)
{
	int streams = test->opt->max_server_streams;
	uint64_t bytes = test->opt->max_server_bytes;

	if (streams > 0 && test_total_streams(test) > streams)
		return iperf_fail(test, IEMAXSERVERTESTDURATIONEXCEEDED, 0);
	if (bytes > 0 && server_caps_byte_bound(&test->settings) > bytes)
		return iperf_fail(test, IEMAXSERVERTESTDURATIONEXCEEDED, 0);
	return 0;
}
#endif

int
server_limits_check_params(struct iperf_test *test)
{
	if (check_duration(test) == -1 || check_requested_rate(test) == -1)
		return -1;
#ifdef HAVE_OPERATOR
	if (check_streams_bytes(test) == -1)
		return -1;
#endif
	return 0;
}

/* ---- while the test runs ------------------------------------------------ */

static int
duration_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;

	(void)t;
	(void)now_us;
	iperf_fail(test, IESERVERTESTDURATIONEXPIRED, 0);
	test->run.ses.sops->on_fail(test);
	return 0;
}

/*
 * One timer stops a test that runs too long: the safety timer (time +
 * omit + 40 s, timed tests only) or, sooner, --server-max-duration.
 */
static int
arm_duration_timer(struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	int max = test->opt->max_server_duration_s;
	uint64_t d = 0;

	if (s->duration > 0)
		d = (uint64_t)(s->duration + s->omit + IPERF_SERVER_GRACE_S) *
		    USEC_PER_SEC;
	if (max > 0) {
		uint64_t m = (uint64_t)(max + SERVER_MAX_DURATION_SLACK_S) *
		    USEC_PER_SEC;
		if (d == 0 || m < d)
			d = m;
	}
	if (d == 0)
		return 0;
	test->run.safety_timer = evloop_add_timer(test->loop, d, 0, duration_cb,
	    test);
	if (test->run.safety_timer == TIMER_NONE)
		return iperf_fail(test, IENEWTIMER, ENOMEM);
	return 0;
}

/* Bytes moved so far by all streams, both directions. */
static uint64_t
total_bytes(struct iperf_test *test)
{
	struct iperf_stream *sp;
	uint64_t sum = 0;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct stream_live l;

		stream_snapshot(sp, &l);
		sum += l.bytes;
	}
	return sum;
}

static int
rate_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;
	double limit = (double)test->opt->bitrate_limit, bps;

	(void)t;
#ifdef HAVE_OPERATOR
	/* A test paced at the cap (clamped, server_caps.h) may be measured
	 * a little above it: a sender catching up within the window. */
	if (test->run.srv.caps_clamped)
		limit *= 1.0 + SERVER_CAPS_RATE_SLACK;
#endif
	if (!ratewin_add(&test->run.srv.rate_window, now_us, total_bytes(test), &bps) ||
	    bps <= limit)
		return 1;
	verbose_error(test, "Total throughput", bps);
	iperf_fail(test, IETOTALRATE, 0);
	test->run.ses.sops->on_fail(test);
	return 0;
}

/*
 * Sample the byte counters every window/n seconds (n the smallest count
 * that keeps the period within 1 s), so the window is a whole number of
 * periods.  An averaging interval of 0 means one period of 1 s.
 */
static int
arm_rate_timer(struct iperf_test *test)
{
	double win = test->opt->bitrate_limit_interval;
	uint64_t win_us = win > 0 ? (uint64_t)(win * 1e6) : SERVER_RATE_SAMPLE_US;
	uint64_t n, period;
	double ignored;

	if (test->opt->bitrate_limit == 0)
		return 0;
	n = (win_us + SERVER_RATE_SAMPLE_US - 1) / SERVER_RATE_SAMPLE_US;
	if (test->opt->bitrate_limit_samples > 0) /* set through the API */
		n = (uint64_t)test->opt->bitrate_limit_samples;
	period = win_us / (n > 0 ? n : 1);
	ratewin_init(&test->run.srv.rate_window, win_us, period / 2);
	(void)ratewin_add(&test->run.srv.rate_window, evloop_now(test->loop),
	    total_bytes(test), &ignored);
	test->run.srv.rate_timer = evloop_add_timer(test->loop, period, period, rate_cb,
	    test);
	if (test->run.srv.rate_timer == TIMER_NONE)
		return iperf_fail(test, IENEWTIMER, ENOMEM);
	return 0;
}

#ifdef HAVE_OPERATOR
/* --server-max-bytes: a test that has moved more than the cap, by more
 * than a margin (a tenth, and a block a stream in flight), is stopped as
 * the duration cap stops one, whatever its client. */
static int
bytes_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;
	uint64_t cap = test->opt->max_server_bytes;
	uint64_t blk = test->settings.blksize > 0 ?
	    (uint64_t)test->settings.blksize : 0;
	uint64_t margin = cap / 10 + blk * (uint64_t)test_total_streams(test);

	(void)t;
	(void)now_us;
	if (total_bytes(test) <= cap + margin)
		return 1;
	iperf_fail(test, IESERVERTESTDURATIONEXPIRED, 0);
	test->run.ses.sops->on_fail(test);
	return 0;
}

static int
arm_bytes_timer(struct iperf_test *test)
{
	if (test->opt->max_server_bytes == 0)
		return 0;
	test->run.srv.bytes_timer = evloop_add_timer(test->loop,
	    SERVER_BYTES_CHECK_US, SERVER_BYTES_CHECK_US, bytes_cb, test);
	if (test->run.srv.bytes_timer == TIMER_NONE)
		return iperf_fail(test, IENEWTIMER, ENOMEM);
	return 0;
}
#endif

int
server_limits_start(struct iperf_test *test)
{
	if (arm_duration_timer(test) == -1 || arm_rate_timer(test) == -1)
		return -1;
#ifdef HAVE_OPERATOR
	if (arm_bytes_timer(test) == -1)
		return -1;
#endif
	return 0;
}

void
server_limits_stop(struct iperf_test *test)
{
	evloop_cancel_timer(test->loop, &test->run.safety_timer);
	evloop_cancel_timer(test->loop, &test->run.srv.rate_timer);
#ifdef HAVE_OPERATOR
	evloop_cancel_timer(test->loop, &test->run.srv.bytes_timer);
#endif
}

/* ---- idle ---------------------------------------------------------------- */

static int
idle_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;

	(void)t;
	(void)now_us;
	test->idle_restarted = 1;
	test->run.done = 1;
	return 0;
}

int
server_limits_idle_start(struct iperf_test *test)
{
	if (test->opt->idle_timeout_s <= 0 ||
	    evloop_timer_active(test->loop, test->run.srv.idle_timer))
		return 0;
	test->run.srv.idle_timer = evloop_add_timer(test->loop,
	    (uint64_t)test->opt->idle_timeout_s * USEC_PER_SEC, 0, idle_cb, test);
	if (test->run.srv.idle_timer == TIMER_NONE)
		return iperf_fail(test, IENEWTIMER, ENOMEM);
	return 0;
}

void
server_limits_idle_stop(struct iperf_test *test)
{
	evloop_cancel_timer(test->loop, &test->run.srv.idle_timer);
}

void
server_limits_idle_report(struct iperf_test *test)
{
	int s = test->opt->idle_timeout_s;

	if (!test->opt->debug)
		return;
	report_raw(test, "Server restart (#%d) in idle state as no connection "
	    "request was received for %d sec\n", test->server_test_number, s);
	if (test->opt->one_off)
		report_raw(test, "No connection request was received for %d sec "
		    "in one-off mode; exiting.\n", s);
}
