/*
 * iperf_stages.c - upstream's low-level functions mapped onto this design
 * (see libiperf(3), "STAGE FUNCTIONS"): set-up, states, streams moved by
 * hand, affinity, transports.  The client and server stages themselves
 * (iperf_connect ... iperf_exchange_results) are in iperf_stages_run.c.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "affinity.h"
#include "ctrl.h"
#include "ctrl_tune.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "proto.h"
#include "report.h"
#include "server.h"
#include "session.h"
#include "stats.h"
#include "stream.h"
#include "tcp_info.h"
#include "test.h"
#include "banned.h"

/* The opaque handle get_protocol() returns: one per transport. */
struct protocol {
	const struct iperf_proto_ops *ops;
};

static struct protocol protocol_handles[] = {
	{ &proto_tcp },
	{ &proto_udp },
#ifdef HAVE_SCTP
	{ &proto_sctp },
#endif
};

/* Streams belong to their worker threads from TEST_RUNNING until the end
 * of the test; no block is moved by hand meanwhile. */
static int
workers_running(const struct iperf_test *test)
{
	const struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (sp->w.thread_started)
			return 1;
	}
	return 0;
}

/*
 * 3.12's single-threaded data path: one unpaced block on each stream of
 * this direction whose socket is in the set (then cleared from it), with
 * the accounting of the streams' threads (and the -n/-k limits).
 */
static int
step_streams(struct iperf_test *test, fd_set *set, int sending)
{
	struct iperf_stream *sp;

	if (set == NULL) {
		iperf_fail(test, sending ? IESTREAMWRITE : IESTREAMREAD,
		    EINVAL);
		return test_api_fail(test);
	}
	if (workers_running(test)) {
		iperf_fail(test, IEBADSTAGE, 0);
		return test_api_fail(test);
	}
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (sp->sender != sending || sp->closed || sp->socket < 0 ||
		    sp->socket >= FD_SETSIZE || !FD_ISSET(sp->socket, set))
			continue;
		FD_CLR(sp->socket, set);
		if (sending && test_send_limit_reached(test))
			continue;
		if (stream_step(sp) < 0)
			return test_api_fail(test);
	}
	return 0;
}

int
iperf_send(struct iperf_test *test, fd_set *write_setP)
{
	return step_streams(test, write_setP, 1);
}

int
iperf_recv(struct iperf_test *test, fd_set *read_setP)
{
	return step_streams(test, read_setP, 0);
}

/* The event loop and the transport; the run functions do the rest. */
int
iperf_init_test(struct iperf_test *test)
{
	if (test->proto == NULL)
		test->proto = proto_find(test->settings.protocol_id);
	if (test->proto == NULL) {
		iperf_fail(test, IEPROTOCOL, 0);
		return test_api_fail(test);
	}
	if (session_open(test) == -1)
		return test_api_fail(test);
	return 0;
}

int
iperf_server_listen(struct iperf_test *test)
{
	if (server_listen(test) == -1)
		return test_api_fail(test);
	return 0;
}

int
iperf_set_send_state(struct iperf_test *test, signed char state)
{
	if (test->run.ses.ctrl_sck < 0) {
		iperf_fail(test, IESENDMESSAGE, EBADF);
		return test_api_fail(test);
	}
	if (test->loop != NULL) {
		if (session_send_state(test, state) == -1)
			return test_api_fail(test);
		return 0;
	}
	iperf_set_test_state(test, state);
	if (ctrl_send_state(test->run.ses.ctrl_sck, state) == -1) {
		iperf_fail(test, IESENDMESSAGE, errno);
		return test_api_fail(test);
	}
	return 0;
}

/* The omit period ends: counters and interval clocks restart now. */
void
iperf_reset_stats(struct iperf_test *test)
{
	stats_omit_end(test, iperf_time_now_us());
}

/* Pacing runs in each stream's worker: nothing to create or check. */
int
iperf_create_send_timers(struct iperf_test *test)
{
	(void)test;
	return 0;
}

void
iperf_check_throttle(struct iperf_stream *sp, struct iperf_time *now)
{
	(void)sp;
	(void)now;
}

/* The server's --server-bitrate-limit has its own sampling timer. */
void
iperf_check_total_rate(struct iperf_test *test, iperf_size_t bytes)
{
	(void)test;
	(void)bytes;
}

static int
stream_io_once(struct iperf_stream *sp)
{
	ssize_t n;

	if (sp->w.thread_started) {
		iperf_fail(sp->test, IEBADSTAGE, 0);
		return test_api_fail(sp->test);
	}
	n = stream_step(sp);

	if (n < 0)
		return test_api_fail(sp->test);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

int
iperf_send_mt(struct iperf_stream *sp)
{
	if (!sp->sender) {
		iperf_fail(sp->test, IESTREAMWRITE, EINVAL);
		return test_api_fail(sp->test);
	}
	return stream_io_once(sp);
}

int
iperf_recv_mt(struct iperf_stream *sp)
{
	if (sp->sender) {
		iperf_fail(sp->test, IESTREAMREAD, EINVAL);
		return test_api_fail(sp->test);
	}
	return stream_io_once(sp);
}

void
iperf_got_sigend(struct iperf_test *test, int sig)
{
	iperf_test_interrupt(test, sig);
}

int
iperf_setaffinity(struct iperf_test *test, int affinity)
{
	if (affinity_pin(test, affinity) == -1)
		return test_api_fail(test);
	return 0;
}

/* Back to the mask the process had before iperf_setaffinity(). */
int
iperf_clearaffinity(struct iperf_test *test)
{
	affinity_restore(test);
	return 0;
}

/* ---- streams ------------------------------------------------------------ */

struct iperf_stream *
iperf_new_stream(struct iperf_test *test, int sock, int sender)
{
	struct iperf_stream *sp;

	if (test->proto == NULL)
		test->proto = proto_find(test->settings.protocol_id);
	if (test->proto == NULL) {
		iperf_fail(test, IEPROTOCOL, 0);
		(void)test_api_fail(test);
		return NULL;
	}
	sp = stream_new(test, sock, sender);
	if (sp == NULL) {
		iperf_fail(test, IECREATESTREAM, errno);
		(void)test_api_fail(test);
	}
	return sp;
}

void
iperf_add_stream(struct iperf_test *test, struct iperf_stream *sp)
{
	stream_add(test, sp);
}

int
iperf_init_stream(struct iperf_stream *sp, struct iperf_test *test)
{
	if (stream_setup(sp) == -1)
		return test_api_fail(test);
	return 0;
}

/* Also takes the stream out of its test's list. */
void
iperf_free_stream(struct iperf_stream *sp)
{
	struct iperf_stream **pp;

	if (sp == NULL)
		return;
	for (pp = &sp->test->run.streams; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == sp) {
			*pp = sp->next;
			break;
		}
	}
	stream_free(sp);
}

int
iperf_common_sockopts(struct iperf_test *test, int s)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct sockopt_fail f = { 0, 0, 0 };

	if (getsockname(s, (struct sockaddr *)&ss, &len) == -1) {
		iperf_fail(test, IEINITSTREAM, errno);
		return test_api_fail(test);
	}
	if (proto_def_sockopts(test, s, ss.ss_family, &f) == -1) {
		(void)sockopt_fail_test(test, &f);
		return test_api_fail(test);
	}
	return 0;
}

int
iperf_set_control_keepalive(struct iperf_test *test)
{
	if (test_tune_ctrl(test) == -1)
		return test_api_fail(test);
	return 0;
}

struct protocol *
get_protocol(struct iperf_test *test, int prot_id)
{
	size_t i;

	for (i = 0; i < sizeof(protocol_handles) / sizeof(protocol_handles[0]);
	    i++) {
		if (protocol_handles[i].ops->id == prot_id)
			return &protocol_handles[i];
	}
	iperf_fail(test, IEPROTOCOL, 0);
	(void)test_api_fail(test);
	return NULL;
}

int
has_tcpinfo(void)
{
#if HAVE_DECL_TCP_INFO
	return 1;
#else
	return 0;
#endif
}

int
has_tcpinfo_retransmits(void)
{
	return tcp_info_has_retransmits();
}

/*
 * ---- interval records --------------------------------------------------
 * struct iperf_interval_results and struct iperf_stream_result are
 * incomplete types in iperf_api.h and no call hands one out, so a program
 * can only pass NULL or a pointer it got elsewhere: nothing to read or
 * write.  The figures are in the JSON output (per interval with
 * --json-stream and iperf_set_test_json_callback()).
 */

void
add_to_interval_list(struct iperf_stream_result *rp,
    struct iperf_interval_results *irp)
{
	(void)rp;
	(void)irp;
}

void
save_tcpinfo(struct iperf_stream *sp, struct iperf_interval_results *irp)
{
	(void)sp;
	(void)irp;
}

void
build_tcpinfo_message(struct iperf_interval_results *r, char *message)
{
	(void)r;
	if (message != NULL)
		message[0] = '\0';
}

long get_total_retransmits(struct iperf_interval_results *irp) { (void)irp; return -1; }
long get_snd_cwnd(struct iperf_interval_results *irp) { (void)irp; return -1; }
long get_snd_wnd(struct iperf_interval_results *irp) { (void)irp; return -1; }
long get_rtt(struct iperf_interval_results *irp) { (void)irp; return -1; }
long get_rttvar(struct iperf_interval_results *irp) { (void)irp; return -1; }
long get_pmtu(struct iperf_interval_results *irp) { (void)irp; return -1; }
long get_reorder(struct iperf_interval_results *irp) { (void)irp; return -1; }
