/*
 * stages.c - drive an iperf3 client or server step by step through the
 * libiperf stage functions (libiperf(3), STAGE FUNCTIONS).
 *
 * Usage: stages MODE [iperf3 options: -c HOST or -s, -p, -u, -R, -J ...]
 *
 *   run     iperf_run_client() / iperf_run_server(), for comparison
 *   loop    client: iperf_connect(); iperf_handle_message_client() until
 *           IPERF_DONE; iperf_client_end().  server: iperf_accept();
 *           iperf_handle_message_server() until IPERF_DONE; reset.
 *   select  as loop, but first wait (at most 100 ms) for the control
 *           socket to become readable, as 3.12-era programs did
 *   selectwait  client: the same with waits of up to 5 s (a client
 *           returns only where the server's next message is due)
 *   steps   the named stages: iperf_exchange_parameters(),
 *           iperf_create_streams(), iperf_exchange_results()...
 *   order   as steps, with calls out of order woven in: each must fail
 *           with IEBADSTAGE (or IECREATESTREAM for a wrong direction)
 *           and leave the test able to go on
 *   early   client: iperf_client_end() right after TEST_START
 *   jsoncb  client: as loop, counting the --json-stream interval events
 *           that carry TCP figures (rtt) through the JSON callback
 *   abandon client: a run is left in TEST_START and reset, then a test
 *           runs as in loop; server: the first test is reset in
 *           TEST_RUNNING, while its streams' threads run; the next ones
 *           as in loop
 *
 * A server serves one test with -1, else one after the other until it is
 * killed or interrupted (SIGINT, SIGTERM, SIGHUP: iperf_got_sigend()).  Lines on stderr: "check: NAME: ok|FAIL ..." for each checked
 * call, "test N: ok" or "test N: failed: ERROR" for each test.  The exit
 * status is 0 when every test and check passed.
 */
#include <sys/select.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <iperf_api.h>

static const char *prog = "stages";
static struct iperf_test *current;
static int failures;
static int cb_intervals, cb_tcp_intervals;

static void
check(const char *name, int ok, const char *detail)
{
	fprintf(stderr, "check: %s: %s%s%s\n", name, ok ? "ok" : "FAIL",
	    detail != NULL ? " " : "", detail != NULL ? detail : "");
	if (!ok)
		failures++;
}

/* A call that must be refused with `code`, the state unchanged. */
static void
expect_refused(struct iperf_test *t, const char *name, int rc, int code,
    signed char state)
{
	char detail[256];
	int ok = rc == -1 && i_errno == code &&
	    iperf_get_test_state(t) == state;

	snprintf(detail, sizeof(detail), "(rc %d, i_errno %d: %s, state %d)",
	    rc, i_errno, iperf_strerror(i_errno), iperf_get_test_state(t));
	check(name, ok, ok ? NULL : detail);
}

static void
expect_ok(struct iperf_test *t, const char *name, int rc, signed char state)
{
	char detail[256];
	int ok = rc == 0 && iperf_get_test_state(t) == state;

	snprintf(detail, sizeof(detail), "(rc %d, i_errno %d: %s, state %d)",
	    rc, rc == 0 ? 0 : i_errno, rc == 0 ? "" : iperf_strerror(i_errno),
	    iperf_get_test_state(t));
	check(name, ok, ok ? NULL : detail);
}

/* SIGINT, SIGTERM, SIGHUP: the waiting stage reports and returns -1. */
static void
on_signal(int sig)
{
	if (current != NULL)
		iperf_got_sigend(current, sig);
}

/* The direction upstream passes to iperf_create_streams(): the mode. */
static int
test_mode(struct iperf_test *t)
{
	int reverse = iperf_get_test_reverse(t);

	if (iperf_get_test_bidirectional(t))
		return -1;
	if (iperf_get_test_role(t) == 'c')
		return reverse ? 0 : 1;
	return reverse ? 1 : 0;
}

/* Wait at most 100 ms (selectwait: 5 s) for the control socket (the
 * 3.12-era pattern); the handler is called either way: it waits for the
 * message itself. */
static long wait_us = 100000;

static void
wait_control(struct iperf_test *t, int *readable, int *timeouts)
{
	int fd = iperf_get_control_socket(t);
	struct timeval tv = { wait_us / 1000000, wait_us % 1000000 };
	fd_set set;

	if (fd < 0 || fd >= FD_SETSIZE)
		return;
	FD_ZERO(&set);
	FD_SET(fd, &set);
	if (select(fd + 1, &set, NULL, NULL, &tv) > 0)
		(*readable)++;
	else
		(*timeouts)++;
}

static int
handle(struct iperf_test *t)
{
	return iperf_get_test_role(t) == 'c' ? iperf_handle_message_client(t) :
					      iperf_handle_message_server(t);
}

/* Handle messages until IPERF_DONE (with_select: wait before each). */
static int
message_loop(struct iperf_test *t, int with_select)
{
	int readable = 0, timeouts = 0;

	while (iperf_get_test_state(t) != IPERF_DONE) {
		if (with_select)
			wait_control(t, &readable, &timeouts);
		if (handle(t) < 0)
			return -1;
	}
	if (with_select)
		fprintf(stderr, "%s: control socket waits: %d readable, "
		    "%d timed out\n", prog, readable, timeouts);
	return 0;
}

/* ---- client ----------------------------------------------------------- */

static void
order_before_connect(struct iperf_test *t)
{
	expect_refused(t, "handle_message_client before connect",
	    iperf_handle_message_client(t), IEBADSTAGE, 0);
	expect_refused(t, "exchange_parameters before connect",
	    iperf_exchange_parameters(t), IEBADSTAGE, 0);
	expect_refused(t, "client_end before connect", iperf_client_end(t),
	    IEBADSTAGE, 0);
	expect_refused(t, "accept on a client", iperf_accept(t), IEBADSTAGE, 0);
}

static void
order_after_connect(struct iperf_test *t)
{
	expect_refused(t, "create_streams before PARAM_EXCHANGE",
	    iperf_create_streams(t, test_mode(t)), IEBADSTAGE, 0);
	expect_refused(t, "exchange_results before TEST_END",
	    iperf_exchange_results(t), IEBADSTAGE, 0);
	expect_refused(t, "connect twice", iperf_connect(t), IEBADSTAGE, 0);
	expect_refused(t, "handle_message_server on a client",
	    iperf_handle_message_server(t), IEBADSTAGE, 0);
}

/* The named stages; `order` adds the out-of-order calls. */
static int
client_steps(struct iperf_test *t, int order)
{
	int rc;

	if (order)
		order_before_connect(t);
	if ((rc = iperf_connect(t)) < 0)
		return rc;
	if (order)
		order_after_connect(t);
	rc = iperf_exchange_parameters(t);
	expect_ok(t, "exchange_parameters", rc, PARAM_EXCHANGE);
	if (rc < 0)
		return rc;
	if (order)
		expect_refused(t, "create_streams in the wrong direction",
		    iperf_create_streams(t, test_mode(t) == 1 ? 0 : 1),
		    IECREATESTREAM, PARAM_EXCHANGE);
	rc = iperf_create_streams(t, test_mode(t));
	expect_ok(t, "create_streams", rc, CREATE_STREAMS);
	if (rc < 0)
		return rc;
	rc = iperf_handle_message_client(t);
	expect_ok(t, "handle_message_client: TEST_START", rc, TEST_START);
	if (rc < 0)
		return rc;
	rc = iperf_handle_message_client(t);
	expect_ok(t, "handle_message_client: TEST_RUNNING until TEST_END", rc,
	    TEST_END);
	if (rc < 0)
		return rc;
	rc = iperf_exchange_results(t);
	expect_ok(t, "exchange_results", rc, EXCHANGE_RESULTS);
	if (rc < 0)
		return rc;
	rc = iperf_client_end(t);
	expect_ok(t, "client_end after the results", rc, IPERF_DONE);
	return rc;
}

static void
order_after_end(struct iperf_test *t)
{
	expect_refused(t, "handle_message_client after the end",
	    iperf_handle_message_client(t), IEBADSTAGE, IPERF_DONE);
	expect_refused(t, "connect without a reset", iperf_connect(t),
	    IEBADSTAGE, IPERF_DONE);
	expect_ok(t, "client_end after the end", iperf_client_end(t),
	    IPERF_DONE);
}

static int
client_early(struct iperf_test *t)
{
	int rc = iperf_connect(t);

	while (rc == 0 && iperf_get_test_state(t) != TEST_START)
		rc = iperf_handle_message_client(t);
	if (rc < 0)
		return rc;
	rc = iperf_client_end(t);
	expect_ok(t, "client_end right after TEST_START", rc, IPERF_DONE);
	return rc;
}

static void
json_cb(struct iperf_test *t, char *json)
{
	(void)t;
	if (strstr(json, "\"event\":\"interval\"") == NULL &&
	    strstr(json, "\"event\": \"interval\"") == NULL)
		return;
	cb_intervals++;
	if (strstr(json, "\"rtt\"") != NULL &&
	    strstr(json, "\"snd_cwnd\"") != NULL)
		cb_tcp_intervals++;
}

/* A run left in TEST_START and reset; then a whole test (loop). */
static int
client_abandon(struct iperf_test *t)
{
	int rc = iperf_connect(t);

	while (rc == 0 && iperf_get_test_state(t) != TEST_START)
		rc = iperf_handle_message_client(t);
	expect_ok(t, "a run left in TEST_START", rc, TEST_START);
	iperf_reset_test(t);
	expect_ok(t, "reset", 0, 0);
	sleep(2); /* the server ends the test we left before it takes another */
	rc = iperf_connect(t);
	if (rc == 0)
		rc = message_loop(t, 0);
	if (rc == 0)
		rc = iperf_client_end(t);
	return rc;
}

static int
run_client(struct iperf_test *t, const char *mode)
{
	int rc;

	if (strcmp(mode, "abandon") == 0)
		return client_abandon(t);

	if (strcmp(mode, "run") == 0)
		return iperf_run_client(t);
	if (strcmp(mode, "steps") == 0 || strcmp(mode, "order") == 0) {
		rc = client_steps(t, strcmp(mode, "order") == 0);
		if (rc == 0 && strcmp(mode, "order") == 0)
			order_after_end(t);
		return rc;
	}
	if (strcmp(mode, "early") == 0)
		return client_early(t);
	if (strcmp(mode, "jsoncb") == 0)
		iperf_set_test_json_callback(t, json_cb);
	if (strcmp(mode, "selectwait") == 0)
		wait_us = 5000000;
	rc = iperf_connect(t);
	if (rc == 0)
		rc = message_loop(t, strncmp(mode, "select", 6) == 0);
	if (rc == 0)
		rc = iperf_client_end(t);
	if (strcmp(mode, "jsoncb") == 0)
		fprintf(stderr, "%s: %d interval events, %d with TCP figures\n",
		    prog, cb_intervals, cb_tcp_intervals);
	return rc;
}

/* ---- server ----------------------------------------------------------- */

static void
order_before_accept(struct iperf_test *t)
{
	signed char s = iperf_get_test_state(t);

	expect_refused(t, "handle_message_server before accept",
	    iperf_handle_message_server(t), IEBADSTAGE, s);
	expect_refused(t, "exchange_parameters before accept",
	    iperf_exchange_parameters(t), IEBADSTAGE, s);
	expect_refused(t, "create_streams before accept",
	    iperf_create_streams(t, 0), IEBADSTAGE, s);
	expect_refused(t, "exchange_results before accept",
	    iperf_exchange_results(t), IEBADSTAGE, s);
	expect_refused(t, "connect on a server", iperf_connect(t), IEBADSTAGE,
	    s);
}

/* While the streams' threads run, nothing is moved by hand. */
static void
order_while_running(struct iperf_test *t)
{
	fd_set all;
	int fd;

	FD_ZERO(&all);
	for (fd = 0; fd < FD_SETSIZE; fd++)
		FD_SET(fd, &all);
	expect_refused(t, "iperf_send while the stream threads run",
	    iperf_send(t, &all), IEBADSTAGE, TEST_RUNNING);
	expect_refused(t, "iperf_recv while the stream threads run",
	    iperf_recv(t, &all), IEBADSTAGE, TEST_RUNNING);
	expect_refused(t, "exchange_parameters while running",
	    iperf_exchange_parameters(t), IEBADSTAGE, TEST_RUNNING);
}

static int
server_steps(struct iperf_test *t, int order)
{
	int rc;

	if (order)
		order_before_accept(t);
	rc = iperf_accept(t);
	expect_ok(t, "accept", rc, CREATE_STREAMS);
	if (rc < 0)
		return rc;
	if (order) {
		expect_refused(t, "accept twice", iperf_accept(t), IEBADSTAGE,
		    CREATE_STREAMS);
		expect_refused(t, "exchange_results before the streams",
		    iperf_exchange_results(t), IEBADSTAGE, CREATE_STREAMS);
		expect_refused(t, "create_streams in the wrong direction",
		    iperf_create_streams(t, test_mode(t) == 1 ? 0 : 1),
		    IECREATESTREAM, CREATE_STREAMS);
	}
	rc = iperf_create_streams(t, test_mode(t));
	expect_ok(t, "create_streams (accepts them)", rc, TEST_RUNNING);
	if (rc < 0)
		return rc;
	if (order)
		order_while_running(t);
	rc = iperf_exchange_results(t);
	expect_ok(t, "exchange_results (TEST_END)", rc, DISPLAY_RESULTS);
	if (rc < 0)
		return rc;
	rc = iperf_handle_message_server(t);
	expect_ok(t, "handle_message_server: IPERF_DONE", rc, IPERF_DONE);
	if (rc == 0 && order) {
		expect_refused(t, "handle_message_server after the end",
		    iperf_handle_message_server(t), IEBADSTAGE, IPERF_DONE);
		expect_refused(t, "accept without a reset", iperf_accept(t),
		    IEBADSTAGE, IPERF_DONE);
	}
	return rc;
}

/* The first test is left in TEST_RUNNING (its threads moving data) and
 * reset; the later ones run as in loop. */
static int
serve_abandoned(struct iperf_test *t)
{
	int rc = iperf_accept(t);

	if (rc == 0)
		rc = iperf_create_streams(t, test_mode(t));
	expect_ok(t, "create_streams before the test is left", rc,
	    TEST_RUNNING);
	fprintf(stderr, "%s: leaving the test in state %d\n", prog,
	    iperf_get_test_state(t));
	return -2;
}

static int
serve_one(struct iperf_test *t, const char *mode, int n)
{
	int rc;

	if (strcmp(mode, "abandon") == 0 && n == 1)
		return serve_abandoned(t);

	if (strcmp(mode, "run") == 0) {
		rc = iperf_run_server(t);
		return rc < 0 ? -1 : 0;
	}
	if (strcmp(mode, "steps") == 0 || strcmp(mode, "order") == 0)
		return server_steps(t, strcmp(mode, "order") == 0);
	rc = iperf_accept(t);
	if (rc == 0)
		rc = message_loop(t, strcmp(mode, "select") == 0);
	return rc;
}

static int
run_server(struct iperf_test *t, const char *mode)
{
	int n, rc = 0;

	if (strcmp(mode, "run") != 0 && iperf_server_listen(t) < 0)
		return -1;
	for (n = 1;; n++) {
		rc = serve_one(t, mode, n);
		if (rc == -2)
			fprintf(stderr, "test %d: left midway\n", n);
		else if (rc < 0)
			fprintf(stderr, "test %d: failed: %s\n", n,
			    iperf_strerror(i_errno));
		else
			fprintf(stderr, "test %d: ok\n", n);
		if (iperf_get_test_one_off(t) ||
		    iperf_get_test_interrupt_signal(t) != 0)
			break;
		iperf_reset_test(t);
	}
	return rc;
}

int
main(int argc, char **argv)
{
	struct iperf_test *t;
	const char *mode;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: %s run|loop|select|selectwait|steps|order|"
		    "early|jsoncb|abandon iperf3-options...\n", prog);
		return 2;
	}
	mode = argv[1];
	t = iperf_new_test();
	if (t == NULL || iperf_defaults(t) < 0)
		return 1;
	if (iperf_parse_arguments(t, argc - 1, argv + 1) < 0) {
		fprintf(stderr, "%s: parameter error - %s\n", prog,
		    iperf_strerror(i_errno));
		iperf_free_test(t);
		return 1;
	}
	current = t;
	iperf_catch_sigend(on_signal);
	if (iperf_get_test_role(t) == 'c') {
		rc = run_client(t, mode);
		if (rc < 0)
			fprintf(stderr, "test 1: failed: %s\n",
			    iperf_strerror(i_errno));
		else
			fprintf(stderr, "test 1: ok\n");
	} else {
		rc = run_server(t, mode);
	}
	iperf_free_test(t);
	return rc < 0 || failures > 0 ? 1 : 0;
}
