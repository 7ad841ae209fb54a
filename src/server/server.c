/* server.c - the server state machine: parameters, streams, results. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "affinity.h"
#include "auth.h"
#ifdef HAVE_OWD
#include "bytes.h"
#include "probe.h"
#endif
#include "ctrl.h"
#include "evloop.h"
#include "ext.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "net.h"
#include "params.h"
#include "proto.h"
#include "report.h"
#include "report_out.h"
#include "run.h"
#include "server.h"
#include "server_accept.h"
#include "server_caps.h"
#include "server_child.h"
#include "server_limits.h"
#include "session.h"
#include "stats.h"
#include "stream.h"
#include "stream_set.h"
#include "test.h"
#include "banned.h"

#define IPERF_TSPROBE_WRITE_US 10000000ULL /* --owd answer, as a state */

/* How long the server waits for the client's FIN after a test. */
#define SERVER_DRAIN_TIMEOUT_US (2 * 1000000ULL)
/* ... and at most this long in all (a trickling client is cut off). */
#define SERVER_DRAIN_MAX_US (4 * 1000000ULL)

static void server_end(struct iperf_test *test);

/* ---- parameters ---------------------------------------------------------- */

/*
 * Checks of the accepted parameters.  Authentication (docs/architecture.md,
 * Authentication):
 * a refused client gets SERVER_ERROR 142 with both integers (errno 0)
 * from server_fail(), as 3.19-3.20 send it; 3.12 and 3.21 clients both
 * print "test authorization failed" for it (3.21 servers close silently,
 * which clients report as a closed control socket).
 */
static int
server_check_policy(struct iperf_test *test)
{
	/* Authentication first: nothing else is decided for a stranger. */
	if (auth_server_check(test) == -1)
		return -1;
	/* 3.20+: a server started with -F does not take UDP tests. */
	if (test->opt->diskfile_name != NULL &&
	    (test->proto->flags & PROTO_F_DATAGRAM))
		return iperf_fail(test, IEUDPFILETRANSFER, 0);
	return 0;
}

static int
server_open_data_listener(struct iperf_test *test)
{
	int fd;

	int lend;

	/* A --max-tests server's TCP streams come through its dispatcher. */
	if (test->child_ops != NULL && test->proto->adopt != NULL)
		return test->child_ops->data_listener(test);
	/* The data listener may need the port to itself: the control
	 * listener goes (and comes back in server_take_back_port). */
	lend = test->proto->port_needed != NULL ?
	    test->proto->port_needed(test) : PROTO_PORT_SHARED;
	if (lend != PROTO_PORT_SHARED && test->listener >= 0) {
		server_close_listener(test);
		test->run.srv.listener_lent = lend;
	}
	fd = test->proto->listen(test);
	if (fd == -1)
		return -1;
	if (fd == PROTO_LISTEN_CTRL)
		fd = test->listener;
	/* start.sndbuf_actual/rcvbuf_actual: the listener the data streams
	 * come from (with -w, the one made with the window), as 3.21. */
	net_get_bufsizes(fd, &test->run.sndbuf_actual, &test->run.rcvbuf_actual);
	if (fd != test->listener) {
		test->run.srv.prot_listener = fd;
		if (evloop_add_fd(test->loop, fd, EV_READ, server_data_listener_cb,
			test) == -1)
			return iperf_fail(test, IESTREAMLISTEN, errno);
	}
	return 0;
}

/* The data listener (ours) goes; the control listener comes back if it
 * was lent until the streams are in (or, at the end, whatever the
 * transport had asked). */
static void
server_take_back_port(struct iperf_test *test, int at_end)
{
	if (test->run.srv.prot_listener >= 0) {
		evloop_del_fd(test->loop, test->run.srv.prot_listener);
		close(test->run.srv.prot_listener);
		test->run.srv.prot_listener = -1;
	}
	if (test->run.srv.listener_lent == PROTO_PORT_SETUP ||
	    (at_end && test->run.srv.listener_lent != 0)) {
		test->run.srv.listener_lent = 0;
		(void)server_listen(test); /* a failure shows at the next test */
	}
}

/* The address family of this end of the control connection (the data
 * sockets have the same). */
static int
ctrl_family(const struct iperf_test *test)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(test->run.ses.ctrl_sck, (struct sockaddr *)&ss, &len) == -1)
		return test->run.srv.peer_addr.ss_family;
	return ss.ss_family;
}

/*
 * A --max-tests server has no slot for this test: the client gets the
 * stock busy answer (ACCESS_DENIED, "the server is busy running a test")
 * and the test ends without a report.
 */
static int
server_refuse(struct iperf_test *test)
{
	(void)ctrl_send_state(test->run.ses.ctrl_sck, ACCESS_DENIED);
	test->run.state = ACCESS_DENIED;
	test->run.srv.refused = 1;
	server_end(test);
	return 0;
}

/*
 * The data listener, before CREATE_STREAMS: its buffer sizes go into the
 * start record that on_params writes.  Options this host refuses fail the
 * test now.  --multicast: the group is joined instead (if
 * --multicast-allow lets it), into *mcast_fd; that socket becomes the
 * stream after CREATE_STREAMS.
 */
static int
server_open_data(struct iperf_test *test, int *mcast_fd)
{
	*mcast_fd = -1;
#ifdef HAVE_MULTICAST
	if (test->settings.mcast_group != NULL) {
		*mcast_fd = udp_mcast_join(test);
		if (*mcast_fd == -1)
			return -1;
		net_get_bufsizes(*mcast_fd, &test->run.sndbuf_actual,
		    &test->run.rcvbuf_actual);
		return 0;
	}
#endif
	if (proto_def_trial(test, ctrl_family(test)) == -1 ||
	    server_open_data_listener(test) == -1)
		return -1;
	return 0;
}

static int
server_on_params(struct iperf_test *test, const char *json, size_t len)
{
	cJSON *doc = cJSON_ParseWithLength(json, len);
	int rc, mcast_fd = -1;

	if (doc == NULL)
		return iperf_fail(test, IERECVPARAMS, 0);
	rc = params_decode(test, doc);
	cJSON_Delete(doc);
	if (rc == -1)
		return -1;
	test->proto = proto_find(test->settings.protocol_id);
	if (test->proto == NULL)
		return iperf_fail(test, IEPROTOCOL, 0);
	test_update_mode(test);
	/* Our client's test is clamped to the caps (ext.h "clamp"), so the
	 * limits then hold for it; a stock client's is refused by them. */
	if (server_check_policy(test) == -1 ||
	    server_caps_negotiate(test) == -1 ||
	    server_limits_check_params(test) == -1)
		return -1;
	/* A --max-tests server: a slot, then (UDP, SCTP) the turn to set up
	 * streams on the shared port. */
	if (test->child_ops != NULL) {
		rc = test->child_ops->admit(test);
		if (rc != 0)
			return rc == 1 ? server_refuse(test) : -1;
	}
	/* -A n,m on the client: this test runs on CPU m. */
	if (test->settings.server_affinity >= 0 &&
	    affinity_pin(test, test->settings.server_affinity) == -1)
		return -1;
	if (server_open_data(test, &mcast_fd) == -1)
		return -1;
	test->reporter->on_params(test);
	if (test->on_connect != NULL)
		test->on_connect(test);
	else
		test->reporter->on_connect(test);
	test->run.srv.streams_expected = test_total_streams(test);
	test->run.srv.streams_accepted = 0;
	if (server_caps_send(test) == -1)
		goto fail;
	if (ext_server_confirms(test) &&
	    session_send_state(test, EXT_STATE_CONFIRM) == -1)
		goto fail;
	if (session_send_state(test, CREATE_STREAMS) == -1)
		goto fail;
	session_expect_state(test);
#ifdef HAVE_MULTICAST
	if (mcast_fd >= 0)
		return server_add_stream(test, mcast_fd);
#endif
	return 0;
fail:
#ifdef HAVE_MULTICAST
	if (mcast_fd >= 0)
		close(mcast_fd);
#endif
	return -1;
}

static int
server_on_cookie(struct iperf_test *test, const char *cookie)
{
	memcpy(test->run.cookie, cookie, IPERF_COOKIE_SIZE);
	test->run.cookie[IPERF_COOKIE_SIZE - 1] = '\0';
	if (session_send_state(test, PARAM_EXCHANGE) == -1)
		return -1;
	test->run.ses.ctrl_fail_code = IERECVPARAMS;
	session_expect_json(test, CTRL_PARAMS_MAX_BYTES);
	return 0;
}

/* ---- streams and the running test -------------------------------------- */

static int
server_streams_ready(struct iperf_test *test)
{
	server_unwatch_listener(test);
	server_take_back_port(test, 0);
	if (test->child_ops != NULL)
		test->child_ops->setup_done(test);
	server_watch_listener(test);
	if (session_start_measuring(test) == -1 || session_open_wake(test) == -1)
		return -1;
	if (server_limits_start(test) == -1)
		return -1;
	if (session_send_state(test, TEST_START) == -1)
		return -1;
	if (test->on_test_start != NULL)
		test->on_test_start(test);
	else
		test->reporter->on_test_start(test);
	if (session_send_state(test, TEST_RUNNING) == -1)
		return -1;
	return stream_start_workers(test);
}

static int
server_test_end(struct iperf_test *test)
{
	test->run.state = TEST_END;
	server_limits_stop(test);
	session_collect_final(test);
	test_close_stream_sockets(test);
	if (session_send_state(test, EXCHANGE_RESULTS) == -1)
		return -1;
	test->run.ses.ctrl_fail_code = IERECVRESULTS;
	session_expect_json(test, CTRL_RESULTS_MAX_BYTES);
	return 0;
}

static int
server_on_results(struct iperf_test *test, const char *json, size_t len)
{
	if (session_apply_results(test, json, len) == -1)
		return -1;
	test->reporter->summary(test);
	if (session_send_results(test) == -1)
		return -1;
	if (session_send_state(test, DISPLAY_RESULTS) == -1)
		return -1;
	session_expect_state(test);
	return 0;
}

static int
server_on_json(struct iperf_test *test, const char *json, size_t len)
{
	if (test->run.state == PARAM_EXCHANGE)
		return server_on_params(test, json, len);
	if (test->run.state == EXCHANGE_RESULTS)
		return server_on_results(test, json, len);
	return iperf_fail(test, IEMESSAGE, 0);
}

static int
server_on_errints(struct iperf_test *test, const struct ctrl_msg *m)
{
	(void)m;
	return iperf_fail(test, IEMESSAGE, 0);
}

/* The running test stops early: partial figures and a summary. */
static void
server_partial_summary(struct iperf_test *test)
{
	if (test->run.state != TEST_RUNNING)
		return;
	session_collect_final(test);
	test->reporter->summary(test);
}

static int
server_client_done(struct iperf_test *test)
{
	if (test->run.state != DISPLAY_RESULTS)
		server_partial_summary(test);
	test->run.state = IPERF_DONE;
	server_end(test);
	return 0;
}

static int
server_client_terminated(struct iperf_test *test)
{
	server_partial_summary(test);
	test->run.state = CLIENT_TERMINATE;
	test->run.abort = ABORT_PEER_TERM;
	test->reporter->error(test, "the client has terminated");
	server_end(test);
	return 0;
}

static int
server_ignore(struct iperf_test *test)
{
	(void)test;
	return 0;
}

/* --latency (ext.h): answer the client's probe at once. */
static int
server_probe(struct iperf_test *test)
{
	if (!(test->settings.ext_want & EXT_LATENCY))
		return iperf_fail(test, IEMESSAGE, 0);
	/* An answer, not a state of ours: run.state stays. */
	if (ctrl_send_state(test->run.ses.ctrl_sck, EXT_STATE_PROBE) == -1)
		return iperf_fail(test, IESENDMESSAGE, errno);
	return 0;
}

#ifdef HAVE_OWD
/* --owd (ext.h owd): the byte, t2 (read now) and t3 (just before the
 * write), in one write. */
static int
server_tsprobe(struct iperf_test *test)
{
	unsigned char b[17];

	if (!(test->settings.ext_want & EXT_OWD))
		return iperf_fail(test, IEMESSAGE, 0);
	b[0] = (unsigned char)EXT_STATE_TSPROBE;
	put_be64(b + 1, (uint64_t)probe_wall_ns());
	put_be64(b + 9, (uint64_t)probe_wall_ns());
	if (ctrl_write_all(test->run.ses.ctrl_sck, b, sizeof(b),
		IPERF_TSPROBE_WRITE_US) == -1)
		return iperf_fail(test, IESENDMESSAGE, errno);
	return 0;
}
#endif

static const struct ctrl_transition server_fsm[] = {
	{ TEST_START, CTRL_ANY, server_ignore },
	{ EXT_STATE_PROBE, CTRL_ANY, server_probe },
#ifdef HAVE_OWD
	{ EXT_STATE_TSPROBE, CTRL_ANY, server_tsprobe },
#endif
	{ TEST_END, TEST_RUNNING, server_test_end },
	{ IPERF_DONE, CTRL_ANY, server_client_done },
	{ CLIENT_TERMINATE, CTRL_ANY, server_client_terminated },
};

/* ---- failures and checks ------------------------------------------------ */

static void
server_fail(struct iperf_test *test)
{
	int closed = test->run.err.code == IECTRLCLOSE;

	if (test->run.done)
		return;
	server_partial_summary(test);
	if (closed) {
		test->run.abort = ABORT_PEER_CLOSED;
		test->reporter->error(test,
		    "the client has unexpectedly closed the connection");
	} else {
		test->run.abort = ABORT_ERROR;
		/* 3.21 closes without a word when a data connection cannot
		 * take the congestion algorithm (its client then says the
		 * control socket has closed unexpectedly). */
		if (test->run.ses.ctrl_sck >= 0 && !test->run.ses.ctrl_eof &&
		    test->run.err.code != IESETCONGESTION)
			(void)ctrl_send_server_error(test->run.ses.ctrl_sck,
			    test->run.err.code, test->run.err.sys_errno);
		if (test->run.err.code == IESERVERTESTDURATIONEXPIRED)
			test->reporter->error(test, "error - server test duration "
			    "expired - test is terminated by the server");
		else
			session_report_failure(test);
	}
	server_end(test);
}

static void
server_interrupt(struct iperf_test *test)
{
	char msg[128];
	int sig = test->interrupt_sig;

	if (test->run.ses.ctrl_sck >= 0) {
		server_partial_summary(test);
		(void)ctrl_send_state(test->run.ses.ctrl_sck, SERVER_TERMINATE);
	}
	test->run.abort = ABORT_INTERRUPT;
	iperf_fail(test, IESERVERTERM, 0);
	if (sig > 0)
		(void)snprintf(msg, sizeof(msg),
		    "interrupt - the server has terminated by signal %s(%d)",
		    strsignal(sig), sig);
	else
		(void)snprintf(msg, sizeof(msg),
		    "interrupt - the server has terminated");
	test->reporter->error(test, msg);
	server_end(test);
}

static void
server_verbose_restart(struct iperf_test *test)
{
	char msg[128];

	(void)snprintf(msg, sizeof(msg), "Server restart (#%d) during active "
	    "test due to idle timeout for receiving data",
	    test->server_test_number);
	test->reporter->error(test, msg);
}

/*
 * Watchdog, every second in every state but idle: no progress for
 * --rcv-timeout drops the client (IENOMSG), and so does a sender stuck in
 * one send() for the send-stall limit (IESTREAMWRITE, ETIMEDOUT: the
 * client stopped reading; test_send_stall_limit_us).  Progress is data received, a stream accepted, or a state
 * change; bytes on the control connection are not (a client trickling
 * ignored state bytes must not hold the server; units in progress have
 * the limits of session.c).
 */
static void
server_check(struct iperf_test *test)
{
	uint64_t now = evloop_now(test->loop);
	uint64_t limit = (uint64_t)test->opt->rcv_timeout_ms * 1000;
	struct iperf_stream *sp;

	server_expire_pending(test, now);
	if (test->run.ses.ctrl_sck < 0 || limit == 0)
		return;
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct stream_live l;

		if (sp->sender)
			continue;
		stream_snapshot(sp, &l);
		if (l.last_rx_us > test->run.srv.progress_us)
			test->run.srv.progress_us = l.last_rx_us;
	}
	if (test->run.ses.ctrl_activity_us > test->run.srv.progress_us)
		test->run.srv.progress_us = test->run.ses.ctrl_activity_us;
	if (test->run.state == TEST_RUNNING && test->mode != MODE_RECEIVER &&
	    stream_any_send_stalled(test, now, test_send_stall_limit_us(test))) {
		iperf_fail(test, IESTREAMWRITE, ETIMEDOUT);
		server_fail(test);
		return;
	}
	if (test->run.state == TEST_RUNNING && test->mode == MODE_SENDER)
		return; /* nothing to receive */
	if (now > test->run.srv.progress_us && now - test->run.srv.progress_us > limit) {
		if (test->opt->verbose && test->run.state == TEST_RUNNING)
			server_verbose_restart(test);
		iperf_fail(test, IENOMSG, 0);
		server_fail(test);
	}
}

/* The wake-up fd: a --max-tests test's dispatcher handed it
 * connections. */
static void
server_on_wake(struct iperf_test *test)
{
	if (test->child_ops != NULL)
		test->child_ops->take_inbox(test);
}

/* The server's part of the run (struct run_server): its data listener
 * (pending connections went with the run's abandonment). */
static void
server_run_release(struct iperf_test *test)
{
	if (test->run.srv.prot_listener >= 0)
		close(test->run.srv.prot_listener);
	test->run.srv.prot_listener = -1;
}

static const struct session_ops server_ops = {
	.table = server_fsm,
	.table_len = sizeof(server_fsm) / sizeof(server_fsm[0]),
	.on_json = server_on_json,
	.on_errints = server_on_errints,
	.on_cookie = server_on_cookie,
	.on_fail = server_fail,
	.on_interrupt = server_interrupt,
	.on_check = server_check,
	.on_tick = NULL,
	.on_wake = server_on_wake,
	.on_streams_ready = server_streams_ready,
	.release = server_run_release,
};

/* ---- run ----------------------------------------------------------------- */

static void
server_end(struct iperf_test *test)
{
	server_drop_pending(test);
	server_limits_stop(test);
	session_stop_measuring(test);
	stream_stop_workers(test, 0);
	/* Let the client see our last control message before its data
	 * connections go away (it may still be writing to them). */
	session_close_ctrl(test, SERVER_DRAIN_TIMEOUT_US, SERVER_DRAIN_MAX_US);
	test_close_stream_sockets(test);
	server_take_back_port(test, 1);
	/* A --max-tests test keeps its wake-up fd until it is freed: the
	 * dispatcher may still write it. */
	if (test->child_ops != NULL)
		test->child_ops->setup_done(test);
	else
		session_close_wake(test);
	affinity_restore(test);
	test->run.srv.capture_output = 0;
	test->run.done = 1;
	if (test->run.srv.refused)
		return;
	if (test->on_test_finish != NULL)
		test->on_test_finish(test);
	if (test->run.rep.json_top != NULL || !test->opt->json_output)
		test->reporter->finish(test);
}

/* The banner; after an idle restart the same test number, and the banner
 * again only with -d. */
static void
server_announce(struct iperf_test *test)
{
	int again = test->idle_restarted;

	test->idle_restarted = 0;
	if (!again)
		test->server_test_number++;
	if (!again || test->opt->debug)
		test->reporter->server_listening(test);
}

int
server_open_listener(struct iperf_test *test, int port)
{
	int gai = 0, fd;
	struct net_listen_args a = { SOCK_STREAM,
		net_tcp_protocol(test->opt->mptcp), test->opt->domain,
		test->opt->bind_address, port, test->opt->bind_dev, NULL, NULL,
		0 };

	fd = net_listen_with(&a, &gai);
	if (fd == -1)
		return iperf_fail_net(test, IELISTEN, gai);
	return fd;
}

int
server_listen(struct iperf_test *test)
{
	int fd;

	if (test->listener >= 0)
		return 0;
	fd = server_open_listener(test, test_server_port(test));
	if (fd == -1)
		return -1;
	test->listener = fd;
	return 0;
}

int
server_open(struct iperf_test *test)
{
	test->run.ses.sops = &server_ops;
	test->role_ops = &server_ops;
	test->run.state = IPERF_START;
	test->run.done = 0;
	if (session_open(test) == -1 || report_out_check(test) == -1 ||
	    server_listen(test) == -1 ||
	    (test->opt->affinity >= 0 &&
		affinity_pin(test, test->opt->affinity) == -1)) {
		test->reporter->begin(test);
		session_report_failure(test);
		test->reporter->finish(test);
		return -2;
	}
	server_announce(test);
	server_watch_listener(test);
	if (!evloop_timer_active(test->loop, test->run.ses.check_timer))
		test->run.ses.check_timer = evloop_add_timer(test->loop, USEC_PER_SEC,
		    USEC_PER_SEC, session_check_cb, test);
	return 0;
}

/*
 * One test of a --max-tests server, in its own thread: the dispatcher
 * accepted the control connection fd from ss and read its cookie.  Runs
 * the test to its end; 0, or -1 if it failed.
 */
int
server_serve_connection(struct iperf_test *test, int fd,
    const struct sockaddr_storage *ss, const char *cookie)
{
	test->run.ses.sops = &server_ops;
	test->role_ops = &server_ops;
	test->run.state = IPERF_START;
	test->run.done = 0;
	if (session_open(test) == -1 || session_open_wake(test) == -1) {
		close(fd);
		return -1;
	}
	test->run.ses.check_timer = evloop_add_timer(test->loop, USEC_PER_SEC,
	    USEC_PER_SEC, session_check_cb, test);
	server_accept_control(test, fd, ss, cookie);
	session_run(test);
	return test->run.abort == ABORT_ERROR ? -1 : 0;
}

int
server_run(struct iperf_test *test)
{
	if (server_open(test) == -2)
		return -2;
	if (server_limits_idle_start(test) == -1) {
		session_report_failure(test);
		return -2;
	}
	session_run(test);
	server_unwatch_listener(test);
	server_limits_idle_stop(test);
	if (test->idle_restarted) {
		/* Nobody came: a fresh listener for the next run. */
		server_limits_idle_report(test);
		server_close_listener(test);
		return 2;
	}
	if (test->run.abort == ABORT_INTERRUPT)
		return -1;
	return test->run.abort == ABORT_ERROR ? -1 : 0;
}

void
server_close_listener(struct iperf_test *test)
{
	if (test->listener >= 0) {
		if (test->loop != NULL)
			evloop_del_fd(test->loop, test->listener);
		close(test->listener);
	}
	test->listener = -1;
}

void
server_abandon_run(struct iperf_test *test)
{
	test_run_abandon(test);
	if (test->loop == NULL)
		return;
	server_drop_pending(test);
	if (test->run.srv.prot_listener >= 0)
		evloop_del_fd(test->loop, test->run.srv.prot_listener);
}

void
server_release_test(struct iperf_test *test)
{
	server_abandon_run(test);
	test_run_release(test);
	affinity_restore(test);
	server_close_listener(test);
}
