/*
 * iperf_stages_run.c - upstream's client and server stages, driven on this
 * design's state machines (libiperf(3), "STAGE FUNCTIONS").
 *
 * A stage runs the test's own event loop - the loop, state tables and
 * handlers of iperf_run_client()/iperf_run_server() - until its step is
 * done; nothing of the protocol is repeated here.  A call that waits for
 * the peer handles exactly one control message (a state byte, with the
 * JSON document or error integers that belong to it) and returns once the
 * test waits for the peer's next message and nothing else.  Where the test
 * has work of its own before that (client: TEST_RUNNING; server:
 * CREATE_STREAMS, TEST_START, TEST_RUNNING), the loop goes on: timers,
 * workers, stream accepts, the end of the test.
 *
 * The control reader reads exactly (ctrl_set_exact): it never takes a byte
 * of the next message from the kernel, so between calls the control socket
 * is readable exactly when a message waits there.
 */
#include "config.h"

#include <sys/types.h>
#include <errno.h>

#include "client.h"
#include "ctrl.h"
#include "iperf.h"
#include "iperf_error.h"
#include "server.h"
#include "server_accept.h"
#include "session.h"
#include "test.h"
#include "banned.h"

signed char
iperf_get_test_state(struct iperf_test *test)
{
	return test->run.state;
}

/* The call does not fit the test's role or state: nothing changes. */
static int
refuse(struct iperf_test *test)
{
	iperf_fail(test, IEBADSTAGE, 0);
	return test_api_fail(test);
}

/* A call on a test that is over: why it ended, or IEBADSTAGE after a
 * normal end (reset the test to run another). */
static int
over(struct iperf_test *test)
{
	if (test->run.abort != ABORT_NONE && test->run.err.code != IENONE)
		return test_api_fail(test);
	return refuse(test);
}

/* The control connection of this role is up and the test is running. */
static int
live(const struct iperf_test *test, char role)
{
	return test->opt->role == role && !test->run.done && test->run.ses.ctrl_sck >= 0 &&
	    test->run.ses.ctrl != NULL && test->loop != NULL;
}

static int
at_boundary(const struct iperf_test *test)
{
	return test->run.ses.ctrl != NULL &&
	    ctrl_expecting(test->run.ses.ctrl) == CTRL_EXPECT_STATE;
}

/* The test has work of its own before the peer's next message. */
static int
own_work(const struct iperf_test *test)
{
	if (test->opt->role == 'c')
		return test->run.state == TEST_RUNNING;
	return test->run.state == CREATE_STREAMS || test->run.state == TEST_START ||
	    test->run.state == TEST_RUNNING;
}

static int
message_handled(const struct iperf_test *test, const void *arg)
{
	const unsigned long *units = arg;

	return test->run.ses.ctrl_units != *units && at_boundary(test) &&
	    !own_work(test);
}

static int
state_left(const struct iperf_test *test, const void *arg)
{
	const signed char *state = arg;

	return test->run.state != *state;
}

static int
cookie_read(const struct iperf_test *test, const void *arg)
{
	(void)arg;
	return test->run.ses.ctrl_sck >= 0 && test->run.state == PARAM_EXCHANGE;
}

/*
 * The outcome of a call once the loop stopped: 0 while the test goes on
 * or after it ended normally, else -1 with the reason.
 */
static int
outcome(struct iperf_test *test)
{
	if (!test->run.done)
		return 0;
	if (test->opt->role == 's')
		server_unwatch_listener(test);
	if (test->run.abort == ABORT_NONE)
		return 0;
	if (test->run.abort == ABORT_PEER_TERM) /* the client's CLIENT_TERMINATE */
		iperf_fail(test, IECLIENTTERM, 0);
	return test_api_fail(test);
}

static int
run(struct iperf_test *test, session_until_fn *until, const void *arg)
{
	session_run_until(test, until, arg);
	return outcome(test);
}

/* Wait for the next control message and handle it. */
static int
handle_one(struct iperf_test *test)
{
	unsigned long units = test->run.ses.ctrl_units;

	return run(test, message_handled, &units);
}

/* A stage with a target state: reached, or -1 (why the test ended). */
static int
reach(struct iperf_test *test, int rc, signed char target)
{
	if (rc == -1 || test->run.state == target)
		return rc;
	if (!test->run.done)
		iperf_fail(test, IEMESSAGE, 0);
	else if (test->opt->role == 's') /* IPERF_DONE before this step */
		iperf_fail(test, IECLIENTTERM, 0);
	else
		iperf_fail(test, IESERVERTERM, 0);
	return test_api_fail(test);
}

/* Client stages: the message `due` must be the next one. */
static int
client_step(struct iperf_test *test, signed char from, signed char target)
{
	if (test->opt->role == 'c' && test->run.done)
		return over(test);
	if (!live(test, 'c') || test->run.state != from || !at_boundary(test))
		return refuse(test);
	return reach(test, handle_one(test), target);
}

/* The control reader of a stage-driven test reads exactly. */
static int
exact_reader(struct iperf_test *test)
{
	if (test->run.ses.ctrl == NULL)
		test->run.ses.ctrl = ctrl_new();
	if (test->run.ses.ctrl == NULL)
		return iperf_fail(test, IEINITTEST, ENOMEM);
	ctrl_set_exact(test->run.ses.ctrl, 1);
	return 0;
}

/* ---- client -------------------------------------------------------------- */

int
iperf_connect(struct iperf_test *test)
{
	if (test->opt->role != 'c' || test->run.done || test->run.ses.ctrl_sck >= 0 ||
	    test->run.state != 0)
		return refuse(test);
	if (client_open(test) == -1)
		return test_api_fail(test);
	(void)exact_reader(test); /* attached: test->run.ses.ctrl exists */
	return 0;
}

int
iperf_handle_message_client(struct iperf_test *test)
{
	if (test->opt->role == 'c' && test->run.done)
		return over(test);
	if (!live(test, 'c'))
		return refuse(test);
	return handle_one(test);
}

/*
 * Before DISPLAY_RESULTS: with the results exchanged, wait for it and end
 * normally; earlier, end the test here (IPERF_DONE).  After the end: 0.
 */
int
iperf_client_end(struct iperf_test *test)
{
	if (test->opt->role != 'c')
		return refuse(test);
	if (test->run.done)
		return 0;
	if (!live(test, 'c'))
		return refuse(test);
	if (test->run.state == EXCHANGE_RESULTS && at_boundary(test))
		return reach(test, handle_one(test), IPERF_DONE);
	client_end_early(test);
	return outcome(test);
}

/* ---- server -------------------------------------------------------------- */

static int
server_params(struct iperf_test *test)
{
	signed char from = PARAM_EXCHANGE;

	return reach(test, run(test, state_left, &from), CREATE_STREAMS);
}

int
iperf_accept(struct iperf_test *test)
{
	int rc;

	if (test->opt->role != 's' || test->run.done || test->run.ses.ctrl_sck >= 0 ||
	    (test->run.state != 0 && test->run.state != IPERF_START))
		return refuse(test);
	if (server_open(test) == -2)
		return test_api_fail(test);
	if (exact_reader(test) == -1 || session_open_wake(test) == -1)
		return test_api_fail(test);
	rc = reach(test, run(test, cookie_read, NULL), PARAM_EXCHANGE);
	if (rc == -1)
		return -1;
	return server_params(test);
}

int
iperf_handle_message_server(struct iperf_test *test)
{
	if (test->opt->role == 's' && test->run.done)
		return over(test);
	if (!live(test, 's'))
		return refuse(test);
	return handle_one(test);
}

static int
server_step(struct iperf_test *test, signed char from)
{
	if (test->opt->role == 's' && test->run.done)
		return over(test);
	if (!live(test, 's') || test->run.state != from)
		return refuse(test);
	return 0;
}

/* ---- both ---------------------------------------------------------------- */

int
iperf_exchange_parameters(struct iperf_test *test)
{
	if (test->opt->role == 'c')
		return client_step(test, 0, PARAM_EXCHANGE);
	if (server_step(test, PARAM_EXCHANGE) == -1)
		return -1;
	return server_params(test);
}

/* `sender` as upstream passes it: the test's mode (1 this end sends,
 * 0 it receives, -1 both); anything else is refused (IECREATESTREAM). */
static int
check_sender(struct iperf_test *test, int sender)
{
	if (sender == (int)test->mode)
		return 0;
	iperf_fail(test, IECREATESTREAM, EINVAL);
	return test_api_fail(test);
}

int
iperf_create_streams(struct iperf_test *test, int sender)
{
	signed char from = CREATE_STREAMS;

	if (test->opt->role == 'c') {
		if (test->run.done)
			return over(test);
		if (!live(test, 'c') || test->run.state != PARAM_EXCHANGE ||
		    !at_boundary(test))
			return refuse(test);
		if (check_sender(test, sender) == -1)
			return -1;
		return client_step(test, PARAM_EXCHANGE, CREATE_STREAMS);
	}
	if (server_step(test, CREATE_STREAMS) == -1 ||
	    check_sender(test, sender) == -1)
		return -1;
	return reach(test, run(test, state_left, &from), TEST_RUNNING);
}

int
iperf_exchange_results(struct iperf_test *test)
{
	if (test->opt->role == 'c')
		return client_step(test, TEST_END, EXCHANGE_RESULTS);
	if (server_step(test, TEST_RUNNING) == -1)
		return -1;
	return reach(test, handle_one(test), DISPLAY_RESULTS);
}
