/* server_multi.c - a server that runs up to --max-tests tests at once
 * (see server_multi.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "affinity.h"
#include "evloop.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "net.h"
#include "notes.h"
#include "proto.h"
#include "report.h"
#include "report_out.h"
#include "run.h"
#include "server.h"
#include "server_accept.h"
#include "server_admit.h"
#include "server_child.h"
#include "server_multi.h"
#include "server_multi_int.h"
#include "server_ports.h"
#include "server_record.h"
#ifdef HAVE_RPM
#include "server_rpm.h"
/* Connections with the test's cookie go to it: data, or --rpm probes. */
#define WANTS_CONN(r) ((r)->wants_data || (r)->wants_probes)
#else
#define WANTS_CONN(r) ((r)->wants_data)
#endif
#include "session.h"
#include "test.h"
#include "banned.h"

/* The source's connections not yet admitted and its tests, by address
 * and by /24 or /64 (the runs under m->lock). */
void
multi_count_source(struct server_multi *m, const struct sockaddr_storage *ss,
    const struct multi_run *except, struct gate_counts *c)
{
	struct hello *h;
	struct multi_run *r;

	memset(c, 0, sizeof(*c));
	for (h = m->hellos; h != NULL; h = h->next) {
		c->host_pending += addr_same_host(&h->ss, ss);
		c->prefix_pending += gate_same_prefix(&h->ss, ss);
	}
	for (r = m->runs; r != NULL; r = r->next) {
		int host = addr_same_host(&r->peer, ss), pfx;

		if (r == except || r->finished)
			continue;
		pfx = gate_same_prefix(&r->peer, ss);
		if (r->has_slot) {
			c->host_active += host;
			c->prefix_active += pfx;
		} else {
			c->host_pending += host;
			c->prefix_pending += pfx;
		}
		if (host && WANTS_CONN(r))
			c->host_wants_data = 1;
	}
}

/* ---- tests ---------------------------------------------------------- */

/* What the dispatcher does for each of its tests (server_child.h). */
static int server_multi_admit(struct iperf_test *test);
static int server_multi_data_listener(struct iperf_test *test);
static void server_multi_setup_done(struct iperf_test *test);
static void server_multi_take_inbox(struct iperf_test *test);

static const struct server_child_ops multi_child_ops = {
	.admit = server_multi_admit,
	.data_listener = server_multi_data_listener,
	.setup_done = server_multi_setup_done,
	.take_inbox = server_multi_take_inbox,
};

/* A test of this server: the server's configuration (shared), its output
 * and callbacks, settings as a fresh server has them. */
static struct iperf_test *
child_new(struct server_multi *m, struct multi_run *r)
{
	struct iperf_test *s = m->server;
	struct iperf_test *c = test_new();

	if (c == NULL)
		return NULL;
	test_settings_defaults(c);
	test_share_config(c, s->cfg);
	c->reporter = s->reporter;
	c->report_main = s->report_main; /* behind report_tee, if any */
	c->note_out = s->note_out;
	c->on_new_stream = s->on_new_stream;
	c->on_test_start = s->on_test_start;
	c->on_connect = s->on_connect;
	c->on_test_finish = s->on_test_finish;
	c->json_callback = s->json_callback;
	c->outfile = s->outfile;
	c->own_outfile = 0;
	c->out_lock = &s->print_lock;
	c->multi = m;
	c->mrun = r;
	c->child_ops = &multi_child_ops;
	c->tag = ++m->next_tag;
	c->server_test_number = c->tag;
	if (m->server->opt->max_tests <= 1)
		c->tag = 0; /* one test at a time: no [T<n>] on its lines */
	c->listen_port = r->port;
	return c;
}

/* A test of this server, whatever its run had reached (its options and
 * output are the server's). */
static void
child_free(struct iperf_test *c)
{
	server_release_test(c);
	test_delete(c);
}

static void
run_free(struct multi_run *r)
{
	int i;

	for (i = 0; i < r->inbox_len; i++)
		close(r->inbox[i]);
	if (r->fd >= 0)
		close(r->fd);
	child_free(r->test);
	free(r);
}

static void *
run_main(void *arg)
{
	struct multi_run *r = arg;
	struct server_multi *m = r->m;
	int fd = r->fd;
	sigset_t set;

	/* Signals are the dispatcher's (it interrupts every test). */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	(void)pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_mutex_lock(&m->lock);
	r->fd = -1;
	pthread_mutex_unlock(&m->lock);
	(void)server_serve_connection(r->test, fd, &r->peer, r->cookie);
	server_multi_setup_done(r->test);
	if (r->has_slot)
		record_ended(&m->rec, m->server, r->test);
	else if (!r->refusal_recorded && r->test->proto != NULL &&
	    r->test->run.err.code != 0)
		record_refused(&m->rec, m->server, &r->peer, r->port,
		    record_refusal_reason(r->test), r->test);
	pthread_mutex_lock(&m->lock);
	if (r->has_slot) {
		r->has_slot = 0;
		m->active--;
		m->threads -= r->threads;
	}
	r->finished = 1;
	pthread_mutex_unlock(&m->lock);
	test_wake(m->server);
	return NULL;
}

/* A new control connection: a test and its thread, or "busy". */
static void
start_run(struct server_multi *m, struct hello *h)
{
	struct iperf_test *s = m->server;
	int cap = s->opt->max_tests > MULTI_HANDSHAKE_MIN ? s->opt->max_tests :
							     MULTI_HANDSHAKE_MIN;
	struct multi_run *r;
	int full;

	/* Tests before their parameters hold no slot; they are capped on
	 * their own, and timed out by the control-connection limits. */
	pthread_mutex_lock(&m->lock);
	full = m->nruns - m->active >= cap || (s->opt->one_off && m->served > 0);
	pthread_mutex_unlock(&m->lock);
	if (full) {
		record_refused(&m->rec, s, &h->ss, h->port, GATE_PENDING, NULL);
		server_deny(h->fd);
		return;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		server_deny(h->fd);
		return;
	}
	r->m = m;
	r->fd = h->fd;
	r->peer = h->ss;
	r->port = h->port;
	memcpy(r->cookie, h->buf, IPERF_COOKIE_SIZE);
	r->cookie[IPERF_COOKIE_SIZE - 1] = '\0';
	r->test = child_new(m, r);
	if (r->test == NULL || (net_set_nonblocking(r->fd, 0) == -1) ||
	    pthread_create(&r->thread, NULL, run_main, r) != 0) {
		r->fd = -1;
		server_deny(h->fd);
		if (r->test != NULL)
			child_free(r->test);
		free(r);
		return;
	}
	pthread_mutex_lock(&m->lock);
	r->next = m->runs;
	m->runs = r;
	m->nruns++;
	pthread_mutex_unlock(&m->lock);
}

/* A whole cookie arrived: a data connection of a test setting up its
 * streams, else a new test. */
#ifdef HAVE_OPERATOR
/* A data connection and its test's control connection come from one
 * host (sockets without an address, AF_UNIX, are not compared). */
static int
same_source(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != AF_INET && a->ss_family != AF_INET6)
		return a->ss_family == b->ss_family;
	return addr_same_host(a, b);
}
#endif

void
multi_dispatch_cookie(struct server_multi *m, struct hello *h)
{
	struct multi_run *r;

	pthread_mutex_lock(&m->lock);
	for (r = m->runs; r != NULL; r = r->next) {
		/* a data connection comes from its test's client */
		if (!WANTS_CONN(r) || strncmp((const char *)h->buf,
					  r->cookie, IPERF_COOKIE_SIZE) != 0)
			continue;
#ifdef HAVE_OPERATOR /* admission by source (--disable-operator) */
		if (!same_source(&h->ss, &r->peer))
			continue;
#endif
		if (r->inbox_len < MULTI_INBOX_MAX) {
			r->inbox[r->inbox_len++] = h->fd;
			test_wake(r->test);
		} else {
			server_deny(h->fd);
		}
		pthread_mutex_unlock(&m->lock);
		return;
	}
	pthread_mutex_unlock(&m->lock);
	start_run(m, h);
}










/* Join the tests whose threads have returned, and free them whole. */
void
multi_reap(struct server_multi *m)
{
	struct multi_run **pp, *r;

	pthread_mutex_lock(&m->lock);
	pp = &m->runs;
	while ((r = *pp) != NULL) {
		if (!r->finished) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		m->nruns--;
		pthread_mutex_unlock(&m->lock);
		(void)pthread_join(r->thread, NULL);
		run_free(r);
		pthread_mutex_lock(&m->lock);
		pp = &m->runs;
	}
	if (m->nruns > 0)
		m->idle_since_us = 0;
	pthread_mutex_unlock(&m->lock);
}


void
multi_interrupt_all(struct server_multi *m, int sig)
{
	struct multi_run *r;

	pthread_mutex_lock(&m->lock);
	for (r = m->runs; r != NULL; r = r->next)
		test_interrupt(r->test, sig);
	pthread_cond_broadcast(&m->turn_cv);
	pthread_mutex_unlock(&m->lock);
}

/* ---- admission ---------------------------------------------------------- */

static int
wait_turn(struct server_multi *m, struct multi_run *r)
{
	struct timespec ts;
	uint64_t until;

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1)
		return -1;
	until = (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / 1000 +
	    MULTI_TURN_WAIT_US;
	ts.tv_sec = (time_t)(until / USEC_PER_SEC);
	ts.tv_nsec = (long)(until % USEC_PER_SEC) * 1000;
	while (m->turn_busy && !r->test->interrupted)
		if (pthread_cond_timedwait(&m->turn_cv, &m->lock, &ts) ==
		    ETIMEDOUT)
			break;
	if (m->turn_busy || r->test->interrupted)
		return -1;
	m->turn_busy = 1;
	r->has_turn = 1;
	return 0;
}

/* Why this test cannot have a slot now, or GATE_OK.  Under m->lock. */
static enum gate_reason
slot_refusal(struct server_multi *m, struct multi_run *me, int threads)
{
	struct gate_counts c;

	if (m->server->opt->one_off && m->served > 0)
		return GATE_ONE_OFF;
	multi_count_source(m, &me->peer, me, &c);
	return gate_at_slot(m->server->opt, m->active, &c, m->threads, threads);
}

static int
server_multi_admit(struct iperf_test *test)
{
	struct multi_run *r = test->mrun;
	struct server_multi *m = test->multi;
	int threads = test_total_streams(test) + 1;
	enum gate_reason why;

	pthread_mutex_lock(&m->lock);
	why = slot_refusal(m, r, threads);
	if (why == GATE_OK) {
		r->has_slot = 1;
		r->threads = threads;
		m->active++;
		m->threads += threads;
		m->served++;
		/* No cookie on the data path: one test at a time sets up. */
		if (test->proto->adopt == NULL && wait_turn(m, r) == -1) {
			why = GATE_TURN;
			r->has_slot = 0;
			m->active--;
			m->threads -= threads;
			m->served--;
		}
	}
	pthread_mutex_unlock(&m->lock);
	if (why == GATE_OK) {
		record_started(&m->rec, test);
		return 0;
	}
	record_refused(&m->rec, m->server, &r->peer, r->port, why, test);
	r->refusal_recorded = 1;
	if (!test->opt->json_output && !test->opt->csv)
		(void)iperf_printf(test, "test from %s refused, the client "
		    "is told the server is busy: %s\n", test->run.srv.peer_host,
		    gate_text(why));
	return 1;
}

static int
server_multi_data_listener(struct iperf_test *test)
{
	struct server_multi *m = test->multi;

	net_get_bufsizes(m->server->listener, &test->run.sndbuf_actual,
	    &test->run.rcvbuf_actual);
	pthread_mutex_lock(&m->lock);
	test->mrun->wants_data = 1;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static void
server_multi_setup_done(struct iperf_test *test)
{
	struct multi_run *r = test->mrun;
	struct server_multi *m = test->multi;
	int fds[MULTI_INBOX_MAX];
	int i, n;

	/* The setup turn is given up with the port: a UDP test's spare
	 * listening socket goes first. */
	if (test->run.srv.prot_listener >= 0) {
		evloop_del_fd(test->loop, test->run.srv.prot_listener);
		close(test->run.srv.prot_listener);
		test->run.srv.prot_listener = -1;
	}
	pthread_mutex_lock(&m->lock);
	r->wants_data = 0;
#ifdef HAVE_RPM
	r->wants_probes = test->settings.rpm;
#endif
	if (r->has_turn) {
		r->has_turn = 0;
		m->turn_busy = 0;
		pthread_cond_broadcast(&m->turn_cv);
	}
	n = r->inbox_len;
	memcpy(fds, r->inbox, (size_t)n * sizeof(fds[0]));
	r->inbox_len = 0;
	pthread_mutex_unlock(&m->lock);
	for (i = 0; i < n; i++)
		server_deny(fds[i]);
}

static void
server_multi_take_inbox(struct iperf_test *test)
{
	struct multi_run *r = test->mrun;
	int fds[MULTI_INBOX_MAX];
	int i, n, rc;

	if (r == NULL)
		return;
	pthread_mutex_lock(&test->multi->lock);
	n = r->inbox_len;
	memcpy(fds, r->inbox, (size_t)n * sizeof(fds[0]));
	r->inbox_len = 0;
	pthread_mutex_unlock(&test->multi->lock);
	for (i = 0; i < n; i++) {
#ifdef HAVE_RPM
		/* the dispatcher read the cookie: the PING follows */
		if (!test->run.done && server_rpm_accept(test, fds[i], 1))
			continue;
#endif
		if (test->run.done || test->run.state != CREATE_STREAMS) {
			server_deny(fds[i]);
			continue;
		}
		rc = test->proto->adopt(test, fds[i]);
		note_flush(test);
		if (rc == -1) {
			close(fds[i]);
			test->run.ses.sops->on_fail(test);
			continue;
		}
		if (server_add_stream(test, fds[i]) == -1)
			test->run.ses.sops->on_fail(test);
	}
}








