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

#include "evloop.h"
#include "ext.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "latstat.h"
#include "net.h"
#include "proto_ops.h"
#include "tcp_info.h"
#include "test.h"
#include "test_config.h"
#include "banned.h"

void
test_update_mode(struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	int client = test->opt->role == 'c';

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
test_server_port(const struct iperf_test *test)
{
	return test->listen_port > 0 ? test->listen_port :
				       test->opt->server_port;
}

int
test_stream_is_sender(const struct iperf_test *test, int index)
{
	int client = test->opt->role == 'c';

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
	return !(test->opt->role == 's' && test->proto != NULL &&
	    (test->proto->flags & PROTO_F_DATAGRAM) &&
	    !(test->settings.ext_want & EXT_COUNT_STOP));
}

void
test_run_init(struct iperf_test *test)
{
	memset(&test->run, 0, sizeof(test->run));
	test->run.ses.ctrl_sck = -1;
	test->run.srv.prot_listener = -1;
}

void
test_run_free(struct iperf_test *test)
{
	struct iperf_run *r = &test->run;

	latstat_free(&r->rtt_sum_scratch);
#ifdef HAVE_PEERIVAL
	latstat_free(&r->delay_sum_scratch);
#endif
	free(r->congestion_used);
	free(r->remote_congestion_used);
	/* What is left is plain values; test_run_init() zeroes them. */
}

void
test_cancel_timers(struct iperf_test *test)
{
	timer_id *timers[] = { &test->run.stats_timer, &test->run.omit_timer,
		&test->run.end_timer, &test->run.ses.check_timer, &test->run.ses.ctrl_timer,
		&test->run.safety_timer, &test->run.srv.rate_timer, &test->run.srv.idle_timer,
		&test->run.cli.probe_idle_timer,
#ifdef HAVE_PEERIVAL
		&test->run.ses.pival_timer,
#endif
	};
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

uint64_t
test_send_stall_limit_us(const struct iperf_test *test)
{
	int ms = test->opt->snd_timeout_ms > 0 ? test->opt->snd_timeout_ms :
	    test->opt->rcv_timeout_ms > 0 ? test->opt->rcv_timeout_ms :
					   DEFAULT_NO_MSG_RCVD_TIMEOUT;

	return (uint64_t)ms * 1000;
}

struct iperf_test *
test_new(void)
{
	struct iperf_test *test = calloc(1, sizeof(*test));
	int locks = 0;

	if (test == NULL)
		goto fail;
	test->cfg = config_new();
	if (test->cfg == NULL)
		goto fail;
	test->opt = &test->cfg->opt;
	if (pthread_mutex_init(&test->limit_lock, NULL) != 0)
		goto fail;
	locks++;
	if (pthread_mutex_init(&test->print_lock, NULL) != 0)
		goto fail;
	locks++;
	if (pthread_mutex_init(&test->note_lock, NULL) != 0)
		goto fail;
	test->out_lock = &test->print_lock;
	test->outfile = stdout;
	test_run_init(test);
	test->listener = -1;
	test->wake_rd = test->wake_wr = -1;
	test->settings.server_affinity = -1;
	error_publish(IENONE);
	return test;
fail:
	if (locks > 1)
		pthread_mutex_destroy(&test->print_lock);
	if (locks > 0)
		pthread_mutex_destroy(&test->limit_lock);
	if (test != NULL)
		config_unref(test->cfg);
	free(test);
	error_publish(IENEWTEST);
	return NULL;
}

void
test_share_config(struct iperf_test *test, struct iperf_config *cfg)
{
	config_ref(cfg);
	config_unref(test->cfg);
	test->cfg = cfg;
	test->opt = &cfg->opt;
}

void
test_delete(struct iperf_test *test)
{
	struct iperf_settings *s = &test->settings;

	test_close_wake(test);
	evloop_free(test->loop);
	free(s->title);
	free(s->extra_data);
	free(s->congestion);
	free(s->authtoken);
	free(s->client_version);
#ifdef HAVE_MULTICAST
	free(s->mcast_group);
	free(s->mcast_source);
#endif
	config_unref(test->cfg);
	pthread_mutex_destroy(&test->limit_lock);
	pthread_mutex_destroy(&test->print_lock);
	pthread_mutex_destroy(&test->note_lock);
	free(test);
}

void
test_interrupt(struct iperf_test *test, int sig)
{
	test->interrupt_sig = sig;
	test->interrupted = 1;
	test_wake(test);
}
