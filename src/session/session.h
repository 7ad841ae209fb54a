/*
 * session.h - what client and server share while a test runs: the one
 * event loop, the control-channel reader and its state-machine driver,
 * interval/omit timers, end-of-test collection and the result exchange.
 */
#ifndef IPERF_SESSION_H
#define IPERF_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "timer.h"

struct iperf_test;
struct ctrl_msg;

#define CTRL_ANY 127 /* transition allowed from any state */

typedef int ctrl_handler(struct iperf_test *test);

/* One row of a state table: on receiving `state` while in `from`. */
struct ctrl_transition {
	signed char state;
	signed char from;
	ctrl_handler *enter;
};

/* What a role does with each kind of control unit. */
struct session_ops {
	const struct ctrl_transition *table;
	size_t table_len;
	int (*on_json)(struct iperf_test *test, const char *json, size_t len);
	int (*on_errints)(struct iperf_test *test, const struct ctrl_msg *m);
	int (*on_cookie)(struct iperf_test *test, const char *cookie);
	/* A handler or the control connection failed: test->err says why
	 * (IECTRLCLOSE when the peer closed); end the test. */
	void (*on_fail)(struct iperf_test *test);
	/* The test must stop: local interrupt. */
	void (*on_interrupt)(struct iperf_test *test);
	/* Periodic check (1 s on the server, 100 ms on the client). */
	void (*on_check)(struct iperf_test *test);
	/* Interval tick (after the interval was sampled and reported). */
	void (*on_tick)(struct iperf_test *test);
	/* The wake-up fd was written (another thread has news); optional. */
	void (*on_wake)(struct iperf_test *test);
	/* Server: every expected data stream is in (the accept path says
	 * so); 0 or -1.  Optional. */
	int (*on_streams_ready)(struct iperf_test *test);
	/* The role's part of the run (struct run_client / run_server,
	 * iperf.h) released by its owner (test_run_release); optional. */
	void (*release)(struct iperf_test *test);
};

/* Create the loop for a run (idempotent). */
int session_open(struct iperf_test *test);
/* The wake-up fd (workers, iperf_test_interrupt from other threads). */
int session_open_wake(struct iperf_test *test);
void session_close_wake(struct iperf_test *test);
/* Watch the control socket (made non-blocking) with these handlers. */
int session_attach_ctrl(struct iperf_test *test, const struct session_ops *ops);
void session_detach_ctrl(struct iperf_test *test);
/* Expect a JSON document of at most cap bytes next (10 s / 30 s limits). */
void session_expect_json(struct iperf_test *test, size_t cap);
void session_expect_state(struct iperf_test *test);
/* The two SERVER_ERROR integers, under the same time limits as JSON. */
void session_expect_errints(struct iperf_test *test);
/* Run the loop until test->done. */
void session_run(struct iperf_test *test);
/* Run the loop until until(test, arg) returns nonzero (checked before
 * each pass) or the test is done: the libiperf stage functions. */
typedef int session_until_fn(const struct iperf_test *test, const void *arg);
void session_run_until(struct iperf_test *test, session_until_fn *until,
    const void *arg);

/* Set the local state and send it as a byte on the control socket. */
int session_send_state(struct iperf_test *test, signed char state);

/* The periodic check timer callback (calls ops->on_check). */
int session_check_cb(timer_id t, uint64_t now_us, void *arg);
/* TEST_START: clocks, CPU baseline, interval/omit timers. */
int session_start_measuring(struct iperf_test *test);
/* Cancel the interval, omit and end timers (a test that ended, or failed
 * in the middle of a loop pass, takes no interval after its report). */
void session_stop_measuring(struct iperf_test *test);
/* Stop workers, take the final interval, CPU and congestion figures. */
void session_collect_final(struct iperf_test *test);
/* Send this end's result document / apply the peer's. */
int session_send_results(struct iperf_test *test);
int session_apply_results(struct iperf_test *test, const char *json,
    size_t len);

/* Print the final error of a run through the reporter. */
void session_report_failure(struct iperf_test *test);
/* Half-close the control socket and drain it until EOF, waiting at most
 * timeout_us for each chunk and max_us in all. */
void session_close_ctrl(struct iperf_test *test, uint64_t timeout_us,
    uint64_t max_us);
/* Expect the 37-byte cookie next (server, 10 s / 30 s limits). */
void session_expect_cookie(struct iperf_test *test);

#endif /* IPERF_SESSION_H */
