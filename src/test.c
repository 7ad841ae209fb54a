/* test.c - test lifecycle helpers (see test.h). */
#include "config.h"

#include <sys/types.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_SYS_EVENTFD_H
#include <sys/eventfd.h>
#endif

#include <cjson/cJSON.h>

#include "ctrl.h"
#include "evloop.h"
#include "ext.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "net.h"
#include "placement.h"
#include "proto.h"
#include "report.h"
#include "report_out.h"
#include "stream.h"
#include "tcp_info.h"
#include "test.h"
#include "banned.h"

void
test_update_mode(struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	int client = test->opt.role == 'c';

	if (s->bidirectional)
		test->mode = MODE_BIDIR;
	else if (client)
		test->mode = s->reverse ? MODE_RECEIVER : MODE_SENDER;
	else
		test->mode = s->reverse ? MODE_SENDER : MODE_RECEIVER;
	if (test->mode == MODE_RECEIVER)
		test->sender_has_retransmits = -1;
	else
		test->sender_has_retransmits = s->protocol_id == SOCK_STREAM &&
		    tcp_info_has_retransmits();
}

int
test_total_streams(const struct iperf_test *test)
{
	int p = test->settings.num_streams;

	return test->settings.bidirectional ? 2 * p : p;
}

int
test_stream_is_sender(const struct iperf_test *test, int index)
{
	int client = test->opt.role == 'c';

	switch (test->mode) {
	case MODE_SENDER:
		return 1;
	case MODE_RECEIVER:
		return 0;
	case MODE_BIDIR:
	default:
		/* The first P streams carry client -> server data. */
		return (index < test->settings.num_streams) == client;
	}
}

int
test_open_wake(struct iperf_test *test)
{
	int fds[2];

	if (test->wake_rd >= 0)
		return 0;
#if defined(HAVE_EVENTFD) && defined(HAVE_SYS_EVENTFD_H)
	fds[0] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fds[0] >= 0) {
		test->wake_rd = test->wake_wr = fds[0];
		return 0;
	}
#endif
	if (pipe(fds) == -1)
		return -1;
	(void)fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	(void)fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	(void)fcntl(fds[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(fds[1], F_SETFL, O_NONBLOCK);
	test->wake_rd = fds[0];
	test->wake_wr = fds[1];
	return 0;
}

void
test_close_wake(struct iperf_test *test)
{
	if (test->wake_wr >= 0 && test->wake_wr != test->wake_rd)
		close(test->wake_wr);
	if (test->wake_rd >= 0)
		close(test->wake_rd);
	test->wake_rd = test->wake_wr = -1;
}

void
test_wake(struct iperf_test *test)
{
	uint64_t one = 1;
	int saved = errno;

	/* 8 bytes suit both an eventfd and a pipe. */
	if (test->wake_wr >= 0)
		(void)write(test->wake_wr, &one, sizeof(one));
	errno = saved;
}

void
test_drain_wake(struct iperf_test *test)
{
	char buf[64];

	if (test->wake_rd < 0)
		return;
	while (read(test->wake_rd, buf, sizeof(buf)) > 0)
		;
}

int
test_send_limit_reached(struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	int reached = 0;

	if (s->bytes == 0 && s->blocks == 0)
		return 0;
	pthread_mutex_lock(&test->limit_lock);
	if (s->bytes != 0 && test->run.limit_bytes - test->run.limit_base_bytes >= s->bytes)
		reached = 1;
	if (s->blocks != 0 &&
	    test->run.limit_blocks - test->run.limit_base_blocks >= s->blocks)
		reached = 1;
	pthread_mutex_unlock(&test->limit_lock);
	return reached;
}

/*
 * A batch of up to `want` datagrams of blksize bytes (UDP GSO) against a
 * -n/-k count: how many may go, 0 once the count is reached.  What is
 * granted stays reserved until test_count_sent_batch(), so streams
 * sending at once never overshoot the count together.
 */
uint64_t
test_send_reserve(struct iperf_test *test, uint64_t want, size_t blksize)
{
	const struct iperf_settings *s = &test->settings;
	uint64_t left = want;

	if (s->bytes == 0 && s->blocks == 0)
		return want;
	pthread_mutex_lock(&test->limit_lock);
	if (s->blocks != 0) {
		uint64_t used = test->run.limit_blocks -
		    test->run.limit_base_blocks + test->run.limit_reserved;
		left = used >= s->blocks ? 0 : s->blocks - used;
	}
	if (s->bytes != 0 && blksize > 0) {
		uint64_t used = test->run.limit_bytes -
		    test->run.limit_base_bytes +
		    test->run.limit_reserved * blksize;
		uint64_t b = used >= s->bytes ? 0 :
		    (s->bytes - used + blksize - 1) / blksize;
		if (b < left)
			left = b;
	}
	if (left > want)
		left = want;
	test->run.limit_reserved += left;
	pthread_mutex_unlock(&test->limit_lock);
	return left;
}

/* The batch went (n bytes, `blocks` datagrams): count it and drop its
 * reservation of `granted`, in one step. */
void
test_count_sent_batch(struct iperf_test *test, uint64_t bytes,
    uint64_t blocks, uint64_t granted)
{
	if (test->settings.bytes == 0 && test->settings.blocks == 0)
		return;
	pthread_mutex_lock(&test->limit_lock);
	test->run.limit_bytes += bytes;
	test->run.limit_blocks += blocks;
	test->run.limit_reserved -= granted <= test->run.limit_reserved ?
	    granted : test->run.limit_reserved;
	pthread_mutex_unlock(&test->limit_lock);
}


void
test_limit_rebase(struct iperf_test *test)
{
	pthread_mutex_lock(&test->limit_lock);
	test->run.limit_base_bytes = test->run.limit_bytes;
	test->run.limit_base_blocks = test->run.limit_blocks;
	pthread_mutex_unlock(&test->limit_lock);
}

int
test_count_stops_sender(const struct iperf_test *test)
{
	return !(test->opt.role == 's' && test->proto != NULL &&
	    (test->proto->flags & PROTO_F_DATAGRAM) &&
	    !(test->settings.ext_want & EXT_COUNT_STOP));
}

/* What the receiving streams show of the peer's sending. */
struct rx_evidence {
	uint64_t bytes, blocks;
	uint64_t newest_datagram_us; /* 0: no datagram stream got any */
};

static void
rx_evidence_take(struct iperf_test *test, struct rx_evidence *ev)
{
	struct iperf_stream *sp;

	memset(ev, 0, sizeof(*ev));
	/* Received totals are not reset at the end of the omit period. */
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct stream_live l;
		uint64_t bytes, blocks;

		if (sp->sender)
			continue;
		stream_snapshot(sp, &l);
		bytes = l.bytes;
		blocks = sp->blksize > 0 ? l.bytes / sp->blksize : 0;
		if (sp->datagram) {
			/* The highest sequence number: the lost ones were
			 * sent as well. */
			if (l.packets > blocks)
				blocks = l.packets;
			if (l.packets * sp->blksize > bytes)
				bytes = l.packets * sp->blksize;
			if (l.last_rx_us > ev->newest_datagram_us)
				ev->newest_datagram_us = l.last_rx_us;
		}
		ev->bytes += bytes;
		ev->blocks += blocks;
	}
}

/* How long a datagram flow under a count may be silent before its sender
 * is taken to be done (its last datagrams were lost): 8 datagram times
 * at the rate, and no less than TEST_DATAGRAM_SILENCE_MIN_US. */
static uint64_t
datagram_silence_us(const struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	uint64_t us = TEST_DATAGRAM_SILENCE_MIN_US;

	if (s->rate > 0 && s->blksize > 0) {
		uint64_t gap = (uint64_t)s->blksize * 8ULL * USEC_PER_SEC / s->rate;

		if (gap > us / 8)
			us = gap * 8;
	}
	return us;
}

int
test_end_condition_met(struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	struct rx_evidence ev;
	uint64_t now;

	if (s->bytes == 0 && s->blocks == 0)
		return 0;
	if (test_send_limit_reached(test))
		return 1;
	rx_evidence_take(test, &ev);
	if ((s->bytes != 0 && ev.bytes >= s->bytes) ||
	    (s->blocks != 0 && ev.blocks >= s->blocks))
		return 1;
	if (ev.newest_datagram_us == 0)
		return 0;
	now = iperf_time_now_us();
	return now > ev.newest_datagram_us &&
	    now - ev.newest_datagram_us > datagram_silence_us(test);
}

void
test_close_stream_sockets(struct iperf_test *test)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (!sp->closed && !sp->thread_started) {
			close(sp->socket);
			sp->closed = 1; /* the number stays: reports show it */
		}
	}
}

void
test_free_streams(struct iperf_test *test)
{
	struct iperf_stream *sp = test->run.streams;

	while (sp != NULL) {
		struct iperf_stream *next = sp->next;
		stream_free(sp);
		sp = next;
	}
	test->run.streams = NULL;
	test->run.num_streams_total = 0;
}

void
test_run_init(struct iperf_test *test)
{
	memset(&test->run, 0, sizeof(test->run));
	test->run.ctrl_sck = -1;
	test->run.prot_listener = -1;
}

void
test_run_release(struct iperf_test *test)
{
	struct iperf_run *r = &test->run;

	test_cancel_timers(test);
	test_free_streams(test);
	probe_release(&r->probe);
	placement_release(test);
	latstat_free(&r->rtt_sum_scratch);
	ctrl_free(r->ctrl);
	r->ctrl = NULL;
	if (r->ctrl_sck >= 0)
		close(r->ctrl_sck);
	if (r->prot_listener >= 0 && r->prot_listener != test->listener)
		close(r->prot_listener);
	report_out_release(test);
	cJSON_Delete(r->json_top);
	cJSON_Delete(r->json_server_output);
	free(r->server_output_text);
	free(r->server_outbuf);
	free(r->congestion_used);
	free(r->remote_congestion_used);
	free(r->json_output_string);
	/* What is left is plain values; test_run_init() zeroes them. */
}

void
test_cancel_timers(struct iperf_test *test)
{
	timer_id *timers[] = { &test->run.stats_timer, &test->run.omit_timer,
		&test->run.end_timer, &test->run.check_timer, &test->run.ctrl_timer,
		&test->run.safety_timer, &test->run.rate_timer, &test->run.idle_timer,
		&test->run.probe.tick, &test->run.probe_idle_timer };
	size_t i;

	for (i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
		evloop_cancel_timer(test->loop, timers[i]);
	}
}

int
test_api_fail(struct iperf_test *test)
{
	error_publish(test->run.err.code);
	/* iperf_strerror(i_errno) right after the call shows the cause. */
	errno = test->run.err.sys_errno;
	return -1;
}

/* -V: the keepalive in effect, in 3.21's words, then where it came from
 * when it is our default rather than the user's --cntl-ka. */
static void
report_keepalive(struct iperf_test *test, const struct net_keepalive *ka,
    const char *origin)
{
	if (!test->opt.verbose || test->opt.json_output)
		return;
	report_raw(test, "Control connection TCP Keepalive "
	    "TCP_KEEPIDLE/TCP_KEEPINTVL/TCP_KEEPCNT are set to %d/%d/%d%s\n",
	    ka->idle, ka->intvl, ka->cnt, origin);
}

/* The defaults for what the user left out (best effort: a kernel without
 * these options keeps its own). */
static void
tune_ctrl_defaults(struct iperf_test *test)
{
	const struct iperf_local *o = &test->opt;
	struct net_keepalive ka;

	if (!o->no_cntl_ka) {
		ka.idle = IPERF_CTRL_KA_IDLE_S;
		ka.intvl = IPERF_CTRL_KA_INTVL_S;
		ka.cnt = IPERF_CTRL_KA_CNT;
		if (net_set_keepalive(test->run.ctrl_sck, &ka) == 0)
			report_keepalive(test, &ka, " (default; --no-cntl-ka: none)");
	}
	if (o->snd_timeout_set || net_set_user_timeout(test->run.ctrl_sck,
				      IPERF_CTRL_USER_TIMEOUT_MS) == -1)
		return;
	if (o->verbose && !o->json_output)
		report_raw(test, "Control connection TCP_USER_TIMEOUT is set to "
		    "%d ms (default; --snd-timeout 0: the system setting)\n",
		    IPERF_CTRL_USER_TIMEOUT_MS);
}

/*
 * Control-socket options.  --snd-timeout and --cntl-ka are applied as
 * given; what the user left out gets the defaults of iperf.h that notice
 * a vanished peer: keepalive unless --cntl-ka or --no-cntl-ka was given,
 * TCP_USER_TIMEOUT unless --snd-timeout was given or --cntl-ka (which
 * then keeps its stock meaning).  -V says which are in effect.
 */
int
test_tune_ctrl(struct iperf_test *test)
{
	static const int codes[] = { 0, IESETCNTLKA, IESETCNTLKAKEEPIDLE,
		IESETCNTLKAINTERVAL, IESETCNTLKACOUNT };
	const struct iperf_local *o = &test->opt;
	struct net_keepalive ka;
	int step;

	if (o->snd_timeout_ms > 0 &&
	    net_set_user_timeout(test->run.ctrl_sck, o->snd_timeout_ms) == -1)
		return iperf_fail(test, IESETUSERTIMEOUT, errno);
	if (!o->cntl_ka) {
		tune_ctrl_defaults(test);
		return 0;
	}
	ka.idle = o->cntl_ka_idle;
	ka.intvl = o->cntl_ka_intvl;
	ka.cnt = o->cntl_ka_cnt;
	step = net_set_keepalive(test->run.ctrl_sck, &ka);
	if (step == 0)
		step = net_get_keepalive(test->run.ctrl_sck, &ka);
	if (step != 0)
		return iperf_fail(test, codes[step], errno);
	report_keepalive(test, &ka, "");
	return 0;
}

uint64_t
test_send_stall_limit_us(const struct iperf_test *test)
{
	int ms = test->opt.snd_timeout_ms > 0 ? test->opt.snd_timeout_ms :
	    test->opt.rcv_timeout_ms > 0 ? test->opt.rcv_timeout_ms :
					   DEFAULT_NO_MSG_RCVD_TIMEOUT;

	return (uint64_t)ms * 1000;
}
