/* client.c - the client: connect, negotiate, run streams, end the test. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "affinity.h"
#include "auth.h"
#include "client.h"
#include "client_caps.h"
#ifdef HAVE_RPM
#include "client_rpm.h"
#else
#define client_rpm_stop(test) ((void)0)
#endif
#include "ctrl.h"
#include "ctrl_tune.h"
#include "evloop.h"
#include "ext.h"
#include "iperf.h"
#include "notes.h"
#include "iperf_error.h"
#include "json.h"
#include "net.h"
#include "params.h"
#ifdef HAVE_PEERIVAL
#include "peer_ival.h"
#endif
#include "probe.h"
#include "proto.h"
#include "report.h"
#include "report_out.h"
#include "session.h"
#include "stats.h"
#include "stream.h"
#include "stream_set.h"
#include "test.h"
#include "util.h"
#include "banned.h"

/* Period of the client's checks (end conditions, watchdogs). */
#define CLIENT_CHECK_US 100000ULL

static void client_finish(struct iperf_test *test);

/* ---- state handlers ----------------------------------------------------- */

static int
client_send_params(struct iperf_test *test)
{
	cJSON *doc;
	char *txt;
	int rc;

	test->run.state = PARAM_EXCHANGE;
	/* The token carries the time: build it just before sending. */
	if (auth_client_token(test) == -1)
		return -1;
	doc = params_encode(test);
	if (doc == NULL)
		return iperf_fail(test, IESENDPARAMS, ENOMEM);
	if (test->opt->debug_level >= 3) {
		char *pretty = json_print_pretty(doc);
		report_debug(test, 3, "send_parameters:\n%s", pretty ? pretty : "");
		free(pretty);
	}
	txt = json_print_compact(doc);
	cJSON_Delete(doc);
	if (txt == NULL)
		return iperf_fail(test, IESENDPARAMS, ENOMEM);
	rc = ctrl_send_json(test->run.ses.ctrl_sck, txt, strlen(txt));
	free(txt);
	if (rc == -1)
		return iperf_fail(test, IESENDPARAMS, errno);
	if (test->on_connect != NULL)
		test->on_connect(test);
	else
		test->reporter->on_connect(test);
	return 0;
}

static int
client_connect_streams(struct iperf_test *test)
{
	int i, total = test_total_streams(test);

	for (i = 0; i < total; i++) {
		struct iperf_stream *sp;
		int fd = test->proto->connect(test, i);

		note_flush(test);
		if (fd == PROTO_CONNECT_CTRL)
			return 0; /* the loop reads the server's message */
		if (fd == -1)
			return -1;
		/* start.sndbuf_actual/rcvbuf_actual: the first data socket,
		 * unless its transport noted them before connecting. */
		if (i == 0 && test->run.sndbuf_actual == 0)
			net_get_bufsizes(fd, &test->run.sndbuf_actual,
			    &test->run.rcvbuf_actual);
		sp = stream_new(test, fd, test_stream_is_sender(test, i));
		if (sp == NULL) {
			int err = errno;
			close(fd);
			return iperf_fail(test, IECREATESTREAM, err);
		}
		stream_add(test, sp);
		if (stream_setup(sp) == -1)
			return -1;
		if (test->on_new_stream != NULL)
			test->on_new_stream(sp);
		else
			test->reporter->on_new_stream(sp);
	}
	return 0;
}

static void client_end_test(struct iperf_test *test);
static void client_fail(struct iperf_test *test);

/* --latency: the idle phase is over; the load may begin. */
static int
probe_idle_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;

	(void)t;
	(void)now_us;
	probe_warmup(test);
	if (client_connect_streams(test) == -1)
		client_fail(test);
	return 0;
}

static int
client_create_streams(struct iperf_test *test)
{
	/* --rr, --latency: a server that did not confirm them is stock. */
	if ((ext_client_wants(test) & EXT_NEEDS_CONFIRM) &&
	    !test->run.cli.ext_confirmed)
		return iperf_fail(test,
#if defined(HAVE_MULTICAST) || defined(HAVE_ISOCHRONOUS)
		    (ext_client_wants(test) & (EXT_MCAST | EXT_ISO)) ?
		    IENOTCOMPATMC :
#endif
		    IENOTCOMPAT, 0);
	test->run.state = CREATE_STREAMS;
	if (!test->opt->latency)
		return client_connect_streams(test);
	/* --latency: probe the idle path first, then connect the streams. */
	if (probe_start(test) == -1)
		return -1;
	test->run.cli.probe_idle_timer = evloop_add_timer(test->loop,
	    PROBE_IDLE_US, 0, probe_idle_cb, test);
	if (test->run.cli.probe_idle_timer == TIMER_NONE)
		return iperf_fail(test, IENEWTIMER, ENOMEM);
	return 0;
}

static int
end_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;

	(void)t;
	(void)now_us;
	client_end_test(test);
	return 0;
}

/* A timed test that has not finished IPERF_CLIENT_GRACE_S after its
 * nominal end: the server stopped answering. */
static int
deadline_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;

	(void)t;
	(void)now_us;
	iperf_fail(test, IERECVMESSAGE, ETIMEDOUT);
	client_fail(test);
	return 0;
}

static int
client_test_start(struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;

	test->run.state = TEST_START;
	if (session_start_measuring(test) == -1)
		return -1;
	if (s->duration > 0) {
		uint64_t d = (uint64_t)(s->duration + s->omit) * 1000000ULL;
		uint64_t g = (uint64_t)IPERF_CLIENT_GRACE_S * 1000000ULL;

		test->run.end_timer = evloop_add_timer_at(test->loop,
		    test->run.start_us + d, 0, end_cb, test);
		test->run.safety_timer = evloop_add_timer_at(test->loop,
		    test->run.start_us + d + g, 0, deadline_cb, test);
		if (test->run.end_timer == TIMER_NONE ||
		    test->run.safety_timer == TIMER_NONE)
			return iperf_fail(test, IENEWTIMER, ENOMEM);
	}
	if (test->on_test_start != NULL)
		test->on_test_start(test);
	else
		test->reporter->on_test_start(test);
	return 0;
}

static int
client_test_running(struct iperf_test *test)
{
	test->run.state = TEST_RUNNING;
	if (test->settings.omit == 0)
		probe_loaded(test);
#ifdef HAVE_RPM
	if (test->settings.rpm && client_rpm_start(test) == -1)
		return -1;
#endif
	return stream_start_workers(test);
}

static void
client_end_test(struct iperf_test *test)
{
	if (test->run.state != TEST_RUNNING)
		return;
	/* Tell the server first, so that it stops counting close to our
	 * end; waking and joining the workers takes a moment.  (Figures
	 * only a live connection gives are taken before the wake-up.) */
	stats_keep_sender_info(test);
	client_rpm_stop(test);
	stream_signal_stop(test);
	probe_stop(test);
	if (session_send_state(test, TEST_END) == -1) {
		test->run.ses.sops->on_fail(test);
		return;
	}
	session_collect_final(test);
}

static int
client_exchange_results(struct iperf_test *test)
{
	test->run.state = EXCHANGE_RESULTS;
	if (session_send_results(test) == -1)
		return -1;
	test->run.ses.ctrl_fail_code = IERECVRESULTS;
	session_expect_json(test, CTRL_RESULTS_MAX_BYTES);
	return 0;
}

static int
client_on_json(struct iperf_test *test, const char *json, size_t len)
{
#ifdef HAVE_OPERATOR
	/* Before the streams: our server's caps (ext.h "clamp"). */
	if (test->run.state == PARAM_EXCHANGE)
		return client_caps_on_doc(test, json, len);
#endif
#ifdef HAVE_PEERIVAL
	if (peer_ival_expected(test)) {
		if (peer_ival_on_doc(test, json, len) == -1)
			return -1;
		session_expect_state(test);
		return 0;
	}
#endif
	if (session_apply_results(test, json, len) == -1)
		return -1;
	session_expect_state(test);
	return 0;
}

static int
client_display_results(struct iperf_test *test)
{
	test->run.state = DISPLAY_RESULTS;
	test->reporter->summary(test);
	stream_stop_workers(test, 1);
	test_close_stream_sockets(test);
	if (session_send_state(test, IPERF_DONE) == -1)
		return -1;
	session_close_ctrl(test, IPERF_DRAIN_TIMEOUT_US, IPERF_DRAIN_MAX_US);
	if (test->on_test_finish != NULL)
		test->on_test_finish(test);
	client_finish(test);
	return 0;
}

static int
client_server_terminated(struct iperf_test *test)
{
	if (test->run.state == TEST_RUNNING) {
		session_collect_final(test);
		test->reporter->summary(test);
	}
	test->run.state = SERVER_TERMINATE;
	return iperf_fail(test, IESERVERTERM, 0);
}

static int
client_access_denied(struct iperf_test *test)
{
	test->run.state = ACCESS_DENIED;
	return iperf_fail(test, IEACCESSDENIED, 0);
}

static int
client_server_error(struct iperf_test *test)
{
	test->run.state = SERVER_ERROR;
	test->run.ses.ctrl_fail_code = IECTRLREAD;
	session_expect_errints(test);
	return 0;
}

#ifdef HAVE_OWD
/* --owd: the answer's byte; its two int64 follow as two ERRINTS units
 * (8 bytes each, ext.h owd). */
static int
client_tsprobe_answer(struct iperf_test *test)
{
	if (!test->opt->owd || test->run.cli.tsprobe_part != 0)
		return iperf_fail(test, IEMESSAGE, 0);
	test->run.cli.tsprobe_part = 2;
	session_expect_errints(test);
	return 0;
}

static int
client_tsprobe_time(struct iperf_test *test, const struct ctrl_msg *m)
{
	struct run_client *c = &test->run.cli;

	if (m->err_count != 2)
		return iperf_fail(test, IEMESSAGE, 0);
	c->tsprobe_t[2 - c->tsprobe_part] = (int64_t)(
	    ((uint64_t)(uint32_t)m->err_code << 32) |
	    (uint64_t)(uint32_t)m->err_errno);
	if (--c->tsprobe_part > 0) {
		session_expect_errints(test);
		return 0;
	}
	session_expect_state(test);
	return probe_owd_answer(test, c->tsprobe_t[0], c->tsprobe_t[1]);
}
#endif

static int
client_on_errints(struct iperf_test *test, const struct ctrl_msg *m)
{
	struct iperf_err_state e;
	char msg[512], line[600];

#ifdef HAVE_OWD
	if (test->run.cli.tsprobe_part > 0)
		return client_tsprobe_time(test, m);
#endif
	memset(&e, 0, sizeof(e));
	e.code = m->err_code;
	e.sys_errno = m->err_errno;
	iperf_error_format(&e, msg, sizeof(msg));
	/* The relayed text (with the server's errno), then the plain error,
	 * as 3.21 prints them. */
	if (m->err_errno != 0)
		(void)snprintf(line, sizeof(line), "SERVER ERROR - %s, errno: %s",
		    msg, strerror(m->err_errno));
	else
		(void)snprintf(line, sizeof(line), "SERVER ERROR - %s", msg);
	test->reporter->error(test, line);
	if (test->run.state == TEST_RUNNING || test->run.streams != NULL)
		stream_stop_workers(test, 1);
	return iperf_fail(test, m->err_code, m->err_errno);
}

static int
client_peer_done(struct iperf_test *test)
{
	test->run.state = IPERF_DONE;
	session_close_ctrl(test, IPERF_DRAIN_TIMEOUT_US, IPERF_DRAIN_MAX_US);
	client_finish(test);
	return 0;
}

/* --latency: the answer to the probe's request (probe.h). */
static int
client_probe_answer(struct iperf_test *test)
{
#ifdef HAVE_OWD
	if (test->opt->owd) /* its answers are EXT_STATE_TSPROBE */
		return iperf_fail(test, IEMESSAGE, 0);
#endif
	if (!test->opt->latency || probe_on_answer(test) == -1)
		return iperf_fail(test, IEMESSAGE, 0);
	return 0;
}

/* Our server confirms --rr/--latency (ext.h); the state stays. */
static int
client_ext_confirm(struct iperf_test *test)
{
	if (!(ext_client_wants(test) & EXT_NEEDS_CONFIRM))
		return iperf_fail(test, IEMESSAGE, 0);
	test->run.cli.ext_confirmed = 1;
	return 0;
}

#ifdef HAVE_PEERIVAL
/* Our server's interval figures follow (peer_ival.h). */
static int
client_peer_ival(struct iperf_test *test)
{
	if (peer_ival_state(test) == -1)
		return -1;
	session_expect_json(test, EXT_PEER_IVAL_MAX);
	return 0;
}
#endif

static int
client_on_cookie(struct iperf_test *test, const char *cookie)
{
	(void)cookie;
	return iperf_fail(test, IEMESSAGE, 0);
}

static const struct ctrl_transition client_fsm[] = {
	{ PARAM_EXCHANGE, 0, client_send_params },
#ifdef HAVE_OPERATOR /* caps that clamp (--disable-operator) */
	{ EXT_STATE_CAPS, PARAM_EXCHANGE, client_caps_state },
#endif
	{ EXT_STATE_CONFIRM, PARAM_EXCHANGE, client_ext_confirm },
	{ EXT_STATE_PROBE, CTRL_ANY, client_probe_answer },
#ifdef HAVE_OWD
	{ EXT_STATE_TSPROBE, CTRL_ANY, client_tsprobe_answer },
#endif
#ifdef HAVE_PEERIVAL /* our server's interval figures (peer_ival.h) */
	{ EXT_STATE_PEER_IVAL, CTRL_ANY, client_peer_ival },
#endif
	{ CREATE_STREAMS, PARAM_EXCHANGE, client_create_streams },
	{ TEST_START, CREATE_STREAMS, client_test_start },
	{ TEST_RUNNING, TEST_START, client_test_running },
	{ EXCHANGE_RESULTS, TEST_END, client_exchange_results },
	{ DISPLAY_RESULTS, EXCHANGE_RESULTS, client_display_results },
	{ SERVER_TERMINATE, CTRL_ANY, client_server_terminated },
	{ ACCESS_DENIED, CTRL_ANY, client_access_denied },
	{ SERVER_ERROR, CTRL_ANY, client_server_error },
	{ IPERF_DONE, CTRL_ANY, client_peer_done },
};

/* ---- failure, interrupt, checks ---------------------------------------- */

static void
client_fail(struct iperf_test *test)
{
	if (test->run.done)
		return;
	probe_stop(test);
	client_rpm_stop(test);
	stream_stop_workers(test, 1);
	test_close_stream_sockets(test);
	/* A client whose last state is positive says goodbye (IPERF_DONE). */
	if (test->run.state > 0 && test->run.ses.ctrl_sck >= 0 && !test->run.ses.ctrl_eof)
		(void)ctrl_send_state(test->run.ses.ctrl_sck, IPERF_DONE);
	session_detach_ctrl(test);
	if (test->run.ses.ctrl_sck >= 0)
		close(test->run.ses.ctrl_sck);
	test->run.ses.ctrl_sck = -1;
	test->run.abort = ABORT_ERROR;
	session_report_failure(test);
	client_finish(test);
}

static void
client_interrupt(struct iperf_test *test)
{
	char msg[128];
	int sig = test->interrupt_sig;

	if (test->run.done)
		return;
	client_rpm_stop(test);
	if (test->run.state == TEST_RUNNING || test->run.state == TEST_START) {
		session_collect_final(test);
		test->reporter->summary(test);
	}
	if (test->run.ses.ctrl_sck >= 0)
		(void)ctrl_send_state(test->run.ses.ctrl_sck, CLIENT_TERMINATE);
	stream_stop_workers(test, 1);
	test_close_stream_sockets(test);
	session_detach_ctrl(test);
	if (test->run.ses.ctrl_sck >= 0)
		close(test->run.ses.ctrl_sck);
	test->run.ses.ctrl_sck = -1;
	test->run.abort = ABORT_INTERRUPT;
	iperf_fail(test, IECLIENTTERM, 0);
	if (sig > 0)
		(void)snprintf(msg, sizeof(msg),
		    "interrupt - the client has terminated by signal %s(%d)",
		    strsignal(sig), sig);
	else
		(void)snprintf(msg, sizeof(msg),
		    "interrupt - the client has terminated");
	test->reporter->error(test, msg);
	client_finish(test);
}

/* Waiting on the server outside TEST_RUNNING is bounded by the receive
 * timeout too: a server that stalls cannot hold the client forever. */
static void
client_check_ctrl_idle(struct iperf_test *test)
{
	uint64_t now = evloop_now(test->loop);
	uint64_t last = test->run.ses.ctrl_activity_us;
	uint64_t limit = (uint64_t)(test->opt->rcv_timeout_ms > 0 ?
					test->opt->rcv_timeout_ms :
					DEFAULT_NO_MSG_RCVD_TIMEOUT) * 1000;

	if (test->run.ses.ctrl != NULL && ctrl_last_progress(test->run.ses.ctrl) > last)
		last = ctrl_last_progress(test->run.ses.ctrl);
	if (test->run.ses.ctrl_sck < 0 || now <= last || now - last <= limit)
		return;
	iperf_fail(test, IERECVMESSAGE, ETIMEDOUT);
	client_fail(test);
}

static void
client_check(struct iperf_test *test)
{
	struct iperf_stream *sp;
	uint64_t now, newest = 0;

	if (test->run.state != TEST_RUNNING) {
		client_check_ctrl_idle(test);
		return;
	}
	if (test->opt->stats_interval <= 0 && test_end_condition_met(test)) {
		client_end_test(test);
		return;
	}
	now = evloop_now(test->loop);
	/* Sending: a worker stuck in one send() (the server stopped reading)
	 * for the send-stall limit ends the test. */
	if (test->mode != MODE_RECEIVER &&
	    stream_any_send_stalled(test, now, test_send_stall_limit_us(test))) {
		iperf_fail(test, IESTREAMWRITE, ETIMEDOUT);
		client_fail(test);
		return;
	}
	if (test->mode == MODE_SENDER || test->opt->rcv_timeout_ms <= 0)
		return;
	/* Receiving: no data for --rcv-timeout ends the test (IENOMSG). */
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct stream_live l;

		if (sp->sender)
			continue;
		stream_snapshot(sp, &l);
		if (l.last_rx_us > newest)
			newest = l.last_rx_us;
	}
	if (newest == 0)
		newest = test->run.start_us;
	if (now > newest &&
	    now - newest > (uint64_t)test->opt->rcv_timeout_ms * 1000) {
		iperf_fail(test, IENOMSG, 0);
		client_fail(test);
	}
}

static void
client_tick(struct iperf_test *test)
{
	if (test->run.state == TEST_RUNNING && test_end_condition_met(test))
		client_end_test(test);
}

static const struct session_ops client_ops = {
	.table = client_fsm,
	.table_len = sizeof(client_fsm) / sizeof(client_fsm[0]),
	.on_json = client_on_json,
	.on_errints = client_on_errints,
	.on_cookie = client_on_cookie,
	.on_fail = client_fail,
	.on_interrupt = client_interrupt,
	.on_check = client_check,
	.on_tick = client_tick,
};

/* ---- run ---------------------------------------------------------------- */

static void
client_finish(struct iperf_test *test)
{
	test->run.done = 1;
#ifdef HAVE_RPM
	client_rpm_free(test);
#endif
	session_stop_measuring(test);
	affinity_restore(test);
	test->reporter->finish(test);
}

static int
client_connect(struct iperf_test *test)
{
	struct net_dial_args a;
	int gai = 0;

	memset(&a, 0, sizeof(a));
	a.type = SOCK_STREAM;
	a.protocol = net_tcp_protocol(test->settings.mptcp);
	a.domain = test->opt->domain;
	a.local = test->opt->bind_address;
	a.bind_dev = test->opt->bind_dev;
	a.server = test->opt->server_hostname;
	a.port = test->opt->server_port;
	a.timeout_ms = test->opt->connect_timeout_ms;
	a.stop = &test->interrupted;
	test->run.ses.ctrl_sck = net_dial(&a, &gai);
	if (test->run.ses.ctrl_sck == -1)
		return iperf_fail_net(test, IECONNECT, gai);
	(void)net_set_nodelay(test->run.ses.ctrl_sck);
	if (test_tune_ctrl(test) == -1)
		return -1;
	make_cookie(test->run.cookie);
	if (ctrl_write_all(test->run.ses.ctrl_sck, test->run.cookie, IPERF_COOKIE_SIZE,
		IPERF_CTRL_FIRST_BYTE_US) == -1)
		return iperf_fail(test, IESENDCOOKIE, errno);
	/* Read once the cookie has gone, as 3.21 does: the kernel settles the
	 * segment size on the first send (loopback: 32741 before, 32768
	 * after), and the default UDP block size follows from it. */
	test->run.cli.ctrl_mss = net_get_mss(test->run.ses.ctrl_sck);
	if (test->opt->verbose && !test->opt->json_output)
		report_raw(test, "Control connection MSS %d\n", test->run.cli.ctrl_mss);
	if (test->proto->client_init != NULL &&
	    test->proto->client_init(test) == -1) {
		note_flush(test);
		return -1;
	}
	note_flush(test);
	return 0;
}

static int
client_prepare(struct iperf_test *test)
{
	test->run.ses.sops = &client_ops;
	test->run.state = 0;
	test->run.sndbuf_actual = test->run.rcvbuf_actual = 0;
	test_update_mode(test);
	if (test->proto == NULL)
		test->proto = proto_find(test->settings.protocol_id);
	if (test->proto == NULL)
		return iperf_fail(test, IEPROTOCOL, 0);
	if (session_open(test) == -1 || session_open_wake(test) == -1)
		return -1;
	test->reporter->begin(test);
	/* --plot/--metrics files that cannot be written fail now, before
	 * any data rather than after the whole test. */
	if (report_out_check(test) == -1)
		return -1;
	/* -A n: pinned for the test; the workers inherit the mask. */
	if (test->opt->affinity >= 0 && affinity_pin(test, test->opt->affinity) == -1)
		return -1;
	return 0;
}

int
client_open(struct iperf_test *test)
{
	if (client_prepare(test) == -1) {
		client_fail(test);
		return -1;
	}
	if (client_connect(test) == -1 ||
	    session_attach_ctrl(test, &client_ops) == -1) {
		/* A signal (or iperf_test_interrupt) ended the connect: the
		 * interrupt is what happened, as once connected. */
		if (test->interrupted && test->run.err.sys_errno == EINTR)
			client_interrupt(test);
		else
			client_fail(test);
		return -1;
	}
	session_expect_state(test);
	test->run.ses.ctrl_activity_us = evloop_now(test->loop);
	test->run.ses.check_timer = evloop_add_timer(test->loop, CLIENT_CHECK_US,
	    CLIENT_CHECK_US, session_check_cb, test);
	if (test->run.ses.check_timer == TIMER_NONE) {
		iperf_fail(test, IENEWTIMER, ENOMEM);
		client_fail(test);
		return -1;
	}
	return 0;
}

int
client_run(struct iperf_test *test)
{
	if (client_open(test) == -1)
		return -1;
	session_run(test);
	if (test->run.abort != ABORT_NONE)
		return -1;
	return 0;
}

/* iperf_client_end() before the server's DISPLAY_RESULTS: what the test
 * measured so far, then IPERF_DONE (the server ends the test cleanly). */
void
client_end_early(struct iperf_test *test)
{
	if (test->run.done)
		return;
	if (test->run.start_us != 0 && test->run.state != DISPLAY_RESULTS) {
		session_collect_final(test);
		test->reporter->summary(test);
	}
	stream_stop_workers(test, 1);
	test_close_stream_sockets(test);
	/* As on a failure: IPERF_DONE once the server has spoken (state > 0). */
	if (test->run.state > 0 && test->run.ses.ctrl_sck >= 0 && !test->run.ses.ctrl_eof &&
	    session_send_state(test, IPERF_DONE) == -1) {
		client_fail(test);
		return;
	}
	test->run.state = IPERF_DONE;
	session_close_ctrl(test, IPERF_DRAIN_TIMEOUT_US, IPERF_DRAIN_MAX_US);
	if (test->on_test_finish != NULL)
		test->on_test_finish(test);
	client_finish(test);
}
