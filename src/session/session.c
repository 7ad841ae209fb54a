/* session.c - loop, control reader and timers shared by both roles. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ctrl.h"
#include "evloop.h"
#include "iperf.h"
#include "notes.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "json.h"
#include "net.h"
#include "params.h"
#ifdef HAVE_PEERIVAL
#include "peer_ival.h"
#endif
#include "probe.h"
#include "proto.h"
#include "report.h"
#include "session.h"
#include "stats.h"
#include "stats_dist.h"
#include "stream.h"
#include "tcp_info.h"
#include "test.h"
#include "util.h"
#include "banned.h"

#define SESSION_MAX_WAIT_US (1000000ULL)

static void check_interrupt(struct iperf_test *test);

static void
session_fail(struct iperf_test *test)
{
	/* A wait the interrupt cut short (EINTR) is the interrupt. */
	if (test->interrupted && !test->run.ses.interrupt_handled &&
	    test->run.err.sys_errno == EINTR) {
		check_interrupt(test);
		return;
	}
	if (test->run.ses.sops != NULL && test->run.ses.sops->on_fail != NULL)
		test->run.ses.sops->on_fail(test);
}

static void
wake_cb(struct evloop *loop, int fd, unsigned int events, void *arg)
{
	struct iperf_test *test = arg;

	(void)loop;
	(void)fd;
	(void)events;
	test_drain_wake(test);
	check_interrupt(test);
	if (!test->run.done && test->run.ses.sops != NULL && test->run.ses.sops->on_wake != NULL)
		test->run.ses.sops->on_wake(test);
}

int
session_open(struct iperf_test *test)
{
	if (test->loop == NULL) {
		test->loop = evloop_new();
		if (test->loop == NULL)
			return iperf_fail(test, IEINITTEST, ENOMEM);
	}
	return 0;
}

int
session_open_wake(struct iperf_test *test)
{
	if (test->wake_rd >= 0)
		return 0;
	if (test_open_wake(test) == -1)
		return iperf_fail(test, IEINITTEST, errno);
	if (evloop_add_fd(test->loop, test->wake_rd, EV_READ, wake_cb, test) ==
	    -1)
		return iperf_fail(test, IEINITTEST, errno);
	return 0;
}

void
session_close_wake(struct iperf_test *test)
{
	if (test->wake_rd >= 0 && test->loop != NULL)
		evloop_del_fd(test->loop, test->wake_rd);
	test_close_wake(test);
}

static void
check_interrupt(struct iperf_test *test)
{
	if (test->interrupted && !test->run.ses.interrupt_handled) {
		test->run.ses.interrupt_handled = 1;
		if (test->run.ses.sops != NULL && test->run.ses.sops->on_interrupt != NULL)
			test->run.ses.sops->on_interrupt(test);
	}
}

/* ---- control reader ---------------------------------------------------- */

static void
cancel_ctrl_timer(struct iperf_test *test)
{
	evloop_cancel_timer(test->loop, &test->run.ses.ctrl_timer);
}

static int
ctrl_timer_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;

	(void)t;
	(void)now_us;
	iperf_fail(test, test->run.ses.ctrl_fail_code, 0);
	session_fail(test);
	return 0;
}

/* 10 s for the first byte and between chunks, 30 s for a whole unit. */
static void
arm_ctrl_timer(struct iperf_test *test, int progress)
{
	uint64_t now = evloop_now(test->loop);
	uint64_t delay = IPERF_CTRL_FIRST_BYTE_US;

	if (!progress)
		test->run.ses.ctrl_unit_start_us = now;
	if (progress && test->run.ses.ctrl_unit_start_us + IPERF_CTRL_TOTAL_US < now + delay)
		delay = test->run.ses.ctrl_unit_start_us + IPERF_CTRL_TOTAL_US > now ?
		    test->run.ses.ctrl_unit_start_us + IPERF_CTRL_TOTAL_US - now : 0;
	if (evloop_reset_timer(test->loop, test->run.ses.ctrl_timer, delay) == -1)
		test->run.ses.ctrl_timer = evloop_add_timer(test->loop, delay, 0,
		    ctrl_timer_cb, test);
}

void
session_expect_json(struct iperf_test *test, size_t cap)
{
	ctrl_expect(test->run.ses.ctrl, CTRL_EXPECT_JSON, cap);
	arm_ctrl_timer(test, 0);
}

void
session_expect_cookie(struct iperf_test *test)
{
	test->run.ses.ctrl_fail_code = IERECVCOOKIE;
	ctrl_expect(test->run.ses.ctrl, CTRL_EXPECT_COOKIE, CTRL_PARAMS_MAX_BYTES);
	arm_ctrl_timer(test, 0);
}

void
session_expect_errints(struct iperf_test *test)
{
	ctrl_expect(test->run.ses.ctrl, CTRL_EXPECT_ERRINTS, CTRL_PARAMS_MAX_BYTES);
	arm_ctrl_timer(test, 0);
}

void
session_expect_state(struct iperf_test *test)
{
	cancel_ctrl_timer(test);
	ctrl_expect(test->run.ses.ctrl, CTRL_EXPECT_STATE, CTRL_PARAMS_MAX_BYTES);
}

/* Drive the state table with a received state byte (below). */
static int session_step(struct iperf_test *test, signed char state);

static int
dispatch(struct iperf_test *test, struct ctrl_msg *m)
{
	const struct session_ops *ops = test->run.ses.sops;

	test->run.ses.ctrl_units++;
	switch (m->kind) {
	case CTRL_MSG_STATE:
		return session_step(test, m->state);
	case CTRL_MSG_JSON:
		cancel_ctrl_timer(test);
		return ops->on_json(test, m->json, m->json_len);
	case CTRL_MSG_ERRINTS:
		cancel_ctrl_timer(test);
		return ops->on_errints(test, m);
	case CTRL_MSG_COOKIE:
		cancel_ctrl_timer(test);
		return ops->on_cookie(test, m->cookie);
	}
	return iperf_fail(test, IEMESSAGE, 0);
}

static void
fault_to_error(struct iperf_test *test)
{
	switch (ctrl_fault(test->run.ses.ctrl)) {
	case CTRL_FAULT_EMPTY_JSON:
	case CTRL_FAULT_TOO_BIG:
		iperf_fail(test, test->run.ses.ctrl_fail_code, 0);
		break;
	case CTRL_FAULT_EOF:
	case CTRL_FAULT_NONE:
	default:
		if (ctrl_expecting(test->run.ses.ctrl) == CTRL_EXPECT_STATE ||
		    ctrl_expecting(test->run.ses.ctrl) == CTRL_EXPECT_NONE)
			iperf_fail(test, IECTRLCLOSE, 0);
		else
			iperf_fail(test, test->run.ses.ctrl_fail_code, 0);
		break;
	}
	test->run.ses.ctrl_eof = ctrl_fault(test->run.ses.ctrl) == CTRL_FAULT_EOF ||
	    test->run.ses.ctrl_eof_seen;
}

static void
process_ctrl(struct iperf_test *test)
{
	struct ctrl_msg m;
	int rc = 0;

	while (!test->run.done && test->run.ses.ctrl != NULL &&
	    (rc = ctrl_next(test->run.ses.ctrl, &m)) == 1) {
		int hr = dispatch(test, &m);
		free(m.json);
		if (hr == -1) {
			session_fail(test);
			return;
		}
	}
	if (test->run.done || test->run.ses.ctrl == NULL)
		return;
	if (rc == -1 || (test->run.ses.ctrl_eof_seen &&
			    ctrl_expecting(test->run.ses.ctrl) == CTRL_EXPECT_NONE)) {
		fault_to_error(test);
		session_fail(test);
	}
}

static void
ctrl_cb(struct evloop *loop, int fd, unsigned int events, void *arg)
{
	struct iperf_test *test = arg;
	long n;

	(void)events;
	n = ctrl_fill(test->run.ses.ctrl, fd, evloop_now(loop));
	if (n == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		iperf_fail(test, IECTRLREAD, errno);
		test->run.ses.ctrl_eof = 1;
		session_fail(test);
		return;
	}
	if (n == 0) {
		test->run.ses.ctrl_eof_seen = 1;
		evloop_del_fd(loop, fd);
	} else if (ctrl_unit_in_progress(test->run.ses.ctrl)) {
		arm_ctrl_timer(test, 1);
	}
	process_ctrl(test);
}

int
session_attach_ctrl(struct iperf_test *test, const struct session_ops *ops)
{
	test->run.ses.sops = ops;
	if (test->run.ses.ctrl == NULL) {
		test->run.ses.ctrl = ctrl_new();
		if (test->run.ses.ctrl == NULL)
			return iperf_fail(test, IEINITTEST, ENOMEM);
	}
	if (net_set_nonblocking(test->run.ses.ctrl_sck, 1) == -1)
		return iperf_fail(test, IENONBLOCKING, errno);
	if (evloop_add_fd(test->loop, test->run.ses.ctrl_sck, EV_READ, ctrl_cb, test) ==
	    -1)
		return iperf_fail(test, IEINITTEST, errno);
	return 0;
}

void
session_detach_ctrl(struct iperf_test *test)
{
	cancel_ctrl_timer(test);
	if (test->run.ses.ctrl_sck >= 0 && test->loop != NULL)
		evloop_del_fd(test->loop, test->run.ses.ctrl_sck);
}

static int
session_step(struct iperf_test *test, signed char state)
{
	const struct session_ops *ops = test->run.ses.sops;
	size_t i;

	report_debug(test, 3, "Reading new State - current state is %d, received %d",
	    test->run.state, state);
	for (i = 0; i < ops->table_len; i++) {
		const struct ctrl_transition *tr = &ops->table[i];

		if (tr->state != state)
			continue;
		if (tr->from != CTRL_ANY && tr->from != test->run.state)
			continue;
		return tr->enter(test);
	}
	test->run.ses.last_bad_state = state;
	return iperf_fail(test, IEMESSAGE, 0);
}

void
session_run(struct iperf_test *test)
{
	while (!test->run.done) {
		/* A signal interrupts select() (EINTR) even without a wake-up
		 * fd; the flag is checked after every pass. */
		check_interrupt(test);
		if (test->run.done)
			break;
		if (evloop_run_once(test->loop, SESSION_MAX_WAIT_US) == -1) {
			iperf_fail(test, IESELECT, errno);
			session_fail(test);
			break;
		}
	}
}

/* The stage functions' loop: session_run() that also stops when `until`
 * holds (checked before every pass). */
void
session_run_until(struct iperf_test *test, session_until_fn *until,
    const void *arg)
{
	for (;;) {
		check_interrupt(test);
		if (test->run.done || until(test, arg))
			break;
		if (evloop_run_once(test->loop, SESSION_MAX_WAIT_US) == -1) {
			iperf_fail(test, IESELECT, errno);
			session_fail(test);
			break;
		}
	}
}

int
session_send_state(struct iperf_test *test, signed char state)
{
	test->run.state = state;
	test->run.ses.ctrl_activity_us = evloop_now(test->loop);
	report_debug(test, 3, "State change: State set to %d", state);
	if (ctrl_send_state(test->run.ses.ctrl_sck, state) == -1)
		return iperf_fail(test, IESENDMESSAGE, errno);
	return 0;
}

/* ---- measuring --------------------------------------------------------- */

/* The interval: -i, or on our server the client's for peer_intervals
 * (a server run with -i 0 takes none, and sends none). */
#ifdef HAVE_PEERIVAL
static uint64_t
interval_us(const struct iperf_test *test)
{
	if (test->opt->role == 's' && test->settings.peer_interval > 0 &&
	    test->opt->stats_interval > 0)
		return (uint64_t)(test->settings.peer_interval * 1e6);
	return (uint64_t)(test->opt->stats_interval * 1e6);
}
#else
#define interval_us(test) ((uint64_t)((test)->opt->stats_interval * 1e6))
#endif

static void
omit_end(struct iperf_test *test, uint64_t now)
{
	test->run.omitting = 0;
	probe_loaded(test);
	stats_omit_end(test, now);
	test_limit_rebase(test);
	evloop_cancel_timer(test->loop, &test->run.omit_timer);
	/* Restart the interval and end clocks from the same instant, the
	 * interval timer first so that it runs first at equal deadlines. */
	evloop_reset_timer_at(test->loop, test->run.stats_timer,
	    now + interval_us(test));
	evloop_reset_timer_at(test->loop, test->run.end_timer,
	    now + (uint64_t)test->settings.duration * USEC_PER_SEC);
}

static int
omit_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;

	(void)t;
	if (test->run.omitting)
		omit_end(test, now_us);
	return 0;
}

static int
stats_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;
	uint64_t end;

	(void)t;
	if (test->run.state != TEST_RUNNING)
		return 1;
	/* The test ends at this very tick: the end handler takes the final
	 * interval, so no tiny extra interval follows. */
	if (evloop_timer_deadline(test->loop, test->run.end_timer, &end) &&
	    end <= now_us)
		return 1;
	if (stats_sample(test, now_us, 0))
#ifdef HAVE_PEERIVAL
		peer_ival_interval(test);
#else
		test->reporter->interval(test);
#endif
	if (test->run.omitting && now_us + 1000 >= test->run.omit_end_us)
		omit_end(test, now_us);
	if (test->run.ses.sops->on_tick != NULL)
		test->run.ses.sops->on_tick(test);
	return 1;
}

int
session_check_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;

	(void)t;
	(void)now_us;
	note_flush(test); /* what the workers' transports noted */
	if (test->run.ses.sops->on_check != NULL)
		test->run.ses.sops->on_check(test);
	return 1;
}

int
session_start_measuring(struct iperf_test *test)
{
	uint64_t now = evloop_now(test->loop);
	uint64_t ival = interval_us(test);
	uint64_t check = test->opt->role == 's' ? USEC_PER_SEC : 100000;

	test->run.start_us = now;
	stats_start(test, now);
	stats_dist_start(test);
	cpu_sample_now(&test->run.cpu_start);
	if (ival > 0) {
		test->run.stats_timer = evloop_add_timer_at(test->loop, now + ival,
		    ival, stats_cb, test);
		if (test->run.stats_timer == TIMER_NONE)
			return iperf_fail(test, IENEWTIMER, ENOMEM);
	}
	if (test->settings.omit > 0) {
		test->run.omitting = 1;
		test->run.omit_end_us = now +
		    (uint64_t)test->settings.omit * USEC_PER_SEC;
		test->run.omit_timer = evloop_add_timer_at(test->loop,
		    test->run.omit_end_us, 0, omit_cb, test);
		if (test->run.omit_timer == TIMER_NONE)
			return iperf_fail(test, IENEWTIMER, ENOMEM);
	}
	if (evloop_timer_active(test->loop, test->run.ses.check_timer))
		return 0;
	test->run.ses.check_timer = evloop_add_timer(test->loop, check, check,
	    session_check_cb, test);
	if (test->run.ses.check_timer == TIMER_NONE)
		return iperf_fail(test, IENEWTIMER, ENOMEM);
	return 0;
}

void
session_stop_measuring(struct iperf_test *test)
{
	evloop_cancel_timer(test->loop, &test->run.stats_timer);
	evloop_cancel_timer(test->loop, &test->run.omit_timer);
	evloop_cancel_timer(test->loop, &test->run.end_timer);
}

void
session_collect_final(struct iperf_test *test)
{
	struct cpu_sample end;
	char cc[64];

	if (test->run.ses.final_collected)
		return;
	test->run.ses.final_collected = 1;
#ifdef HAVE_PEERIVAL
	peer_ival_final(test);
#endif
	session_stop_measuring(test);
	stats_keep_sender_info(test);
	stream_stop_workers(test, 0);
	note_flush(test);
	if (test->run.streams != NULL && test->run.start_us != 0 &&
	    stats_sample(test, evloop_now(test->loop), 1))
		test->reporter->interval(test);
	cpu_sample_now(&end);
	cpu_util_between(&test->run.cpu_start, &end, test->run.cpu_util);
	if (test->run.streams != NULL && (test->proto->flags & PROTO_F_CONGESTION) &&
	    tcp_congestion_get(test->run.streams->socket, cc, sizeof(cc)) == 0)
		(void)str_replace(&test->run.congestion_used, cc);
}

int
session_send_results(struct iperf_test *test)
{
	cJSON *doc = results_encode(test);
	char *txt;
	int rc;

	if (doc == NULL)
		return iperf_fail(test, IEPACKAGERESULTS, ENOMEM);
	txt = json_print_compact(doc);
	if (txt != NULL && test->opt->debug_level >= 3) {
		char *pretty = json_print_pretty(doc);
		report_debug(test, 3, "send_results\n%s", pretty ? pretty : "");
		free(pretty);
	}
	cJSON_Delete(doc);
	if (txt == NULL)
		return iperf_fail(test, IEPACKAGERESULTS, ENOMEM);
	rc = ctrl_send_json(test->run.ses.ctrl_sck, txt, strlen(txt));
	free(txt);
	if (rc == -1)
		return iperf_fail(test, IESENDRESULTS, errno);
	return 0;
}

int
session_apply_results(struct iperf_test *test, const char *json, size_t len)
{
	cJSON *doc = cJSON_ParseWithLength(json, len);
	int rc;

	if (doc == NULL)
		return iperf_fail(test, IERECVRESULTS, 0);
	if (test->opt->debug_level >= 3) {
		char *pretty = json_print_pretty(doc);
		report_debug(test, 3, "get_results\n%s", pretty ? pretty : "");
		free(pretty);
	}
	rc = results_decode(test, doc);
	cJSON_Delete(doc);
	return rc;
}

void
session_report_failure(struct iperf_test *test)
{
	char msg[512];
	char line[600];

	iperf_error_format(&test->run.err, msg, sizeof(msg));
	if (test->opt->json_output && test->opt->role == 'c')
		test->reporter->error(test, msg);
	else {
		(void)snprintf(line, sizeof(line), "error - %s", msg);
		test->reporter->error(test, line);
	}
}

void
session_close_ctrl(struct iperf_test *test, uint64_t timeout_us,
    uint64_t max_us)
{
	uint64_t deadline, hard;
	char buf[512];

	if (test->run.ses.ctrl_sck < 0)
		return;
	session_detach_ctrl(test);
	(void)shutdown(test->run.ses.ctrl_sck, SHUT_WR);
	/* timeout_us of silence ends the wait; a peer that keeps trickling
	 * bytes is cut off after max_us in all. */
	deadline = iperf_time_now_us() + timeout_us;
	hard = iperf_time_now_us() + max_us;
	while (!test->run.ses.ctrl_eof) {
		struct pollfd pfd = { .fd = test->run.ses.ctrl_sck, .events = POLLIN };
		uint64_t now = iperf_time_now_us();
		ssize_t n;

		if (deadline > hard)
			deadline = hard;
		if (now >= deadline || poll(&pfd, 1,
			(int)((deadline - now) / 1000) + 1) <= 0)
			break;
		n = recv(test->run.ses.ctrl_sck, buf, sizeof(buf), 0);
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR))
			break;
		if (n > 0)
			deadline = iperf_time_now_us() + timeout_us;
	}
	close(test->run.ses.ctrl_sck);
	test->run.ses.ctrl_sck = -1;
	ctrl_free(test->run.ses.ctrl);
	test->run.ses.ctrl = NULL;
}
