/* server_multi.c - a server that runs up to --max-tests tests at once
 * (see server_multi.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <dirent.h>
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
#include "server_child.h"
#include "server_multi.h"
#include "session.h"
#include "test.h"
#include "banned.h"

/* Connections whose cookie is still coming, and tests still before their
 * parameters: at most this many each (beyond, the answer is "busy"). */
#define MULTI_HELLO_MAX 64
#define MULTI_HANDSHAKE_MIN 8
/* Threads the tests of one server may run in all (one per test and one
 * per stream), and file descriptors kept free for everything else. */
#define MULTI_THREAD_BUDGET 1024
#define MULTI_FD_RESERVE 32
/* Longest wait for the setup turn of UDP and SCTP tests. */
#define MULTI_TURN_WAIT_US (10 * 1000000ULL)
#define MULTI_INBOX_MAX (2 * IPERF_MAX_STREAMS)
#define MULTI_LOOP_WAIT_US 250000ULL

/* A connection accepted, its cookie not complete yet. */
struct hello {
	int fd;
	struct sockaddr_storage ss;
	unsigned char buf[IPERF_COOKIE_SIZE];
	size_t len;
	uint64_t start_us;
	struct hello *next;
};

/* One test: its thread, slot and inbox.  Fields below `lock` are the
 * dispatcher's and the test thread's, under server_multi.lock. */
struct multi_run {
	struct server_multi *m;
	struct iperf_test *test;
	pthread_t thread;
	int fd; /* the control connection, until the thread takes it */
	struct sockaddr_storage peer;
	char cookie[IPERF_COOKIE_SIZE];
	/* under lock */
	int has_slot;
	int has_turn;
	int wants_data;
	int threads;
	int finished;
	int inbox[MULTI_INBOX_MAX];
	int inbox_len;
	struct multi_run *next;
};

struct server_multi {
	struct iperf_test *server;
	pthread_mutex_t lock;
	pthread_cond_t turn_cv;
	struct multi_run *runs; /* every test whose thread was started */
	int nruns;
	int active; /* tests holding a slot */
	int turn_busy;
	int threads;
	int next_tag;
	int served; /* tests that got a slot (--one-off) */
	struct hello *hellos;
	int nhellos;
	uint64_t idle_since_us;
};

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
static void
dispatch_cookie(struct server_multi *m, struct hello *h)
{
	struct multi_run *r;

	pthread_mutex_lock(&m->lock);
	for (r = m->runs; r != NULL; r = r->next) {
		if (!r->wants_data || strncmp((const char *)h->buf,
					  r->cookie, IPERF_COOKIE_SIZE) != 0)
			continue;
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

static void
hello_unlink(struct server_multi *m, struct hello *h)
{
	struct hello **pp = &m->hellos;

	while (*pp != NULL && *pp != h)
		pp = &(*pp)->next;
	if (*pp == h)
		*pp = h->next;
	m->nhellos--;
	evloop_del_fd(m->server->loop, h->fd);
}

static void
hello_cb(struct evloop *loop, int fd, unsigned int events, void *arg)
{
	struct server_multi *m = arg;
	struct hello *h;
	int n;

	(void)loop;
	(void)events;
	for (h = m->hellos; h != NULL && h->fd != fd; h = h->next)
		;
	if (h == NULL)
		return;
	n = server_read_cookie(fd, h->buf, &h->len);
	if (n == 0)
		return;
	hello_unlink(m, h);
	if (n > 0)
		dispatch_cookie(m, h);
	else
		close(fd);
	free(h);
}

static void
listener_cb(struct evloop *loop, int fd, unsigned int events, void *arg)
{
	struct server_multi *m = arg;
	struct hello *h;
	socklen_t len;
	int nfd;

	(void)events;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return;
	len = sizeof(h->ss);
	nfd = accept(fd, (struct sockaddr *)&h->ss, &len);
	if (nfd == -1) {
		free(h); /* transient (ECONNABORTED, EMFILE...) */
		return;
	}
	if (m->nhellos >= MULTI_HELLO_MAX || net_set_nonblocking(nfd, 1) == -1 ||
	    evloop_add_fd(loop, nfd, EV_READ, hello_cb, m) == -1) {
		server_deny(nfd);
		free(h);
		return;
	}
	h->fd = nfd;
	h->start_us = evloop_now(loop);
	h->next = m->hellos;
	m->hellos = h;
	m->nhellos++;
}

static void
expire_hellos(struct server_multi *m, int all)
{
	uint64_t now = evloop_now(m->server->loop);
	struct hello *h, *next;

	for (h = m->hellos; h != NULL; h = next) {
		next = h->next;
		if (!all && now - h->start_us < IPERF_CTRL_FIRST_BYTE_US)
			continue;
		hello_unlink(m, h);
		close(h->fd);
		free(h);
	}
}

/* Join the tests whose threads have returned, and free them whole. */
static void
reap(struct server_multi *m)
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

/* The last test is gone: give the memory its threads' allocator arenas
 * kept back to the system, so an idle server is as small as at start. */
static void
trim_when_idle(struct server_multi *m, int had)
{
	if (had == 0 || m->nruns > 0)
		return;
#ifdef HAVE_MALLOC_TRIM
	(void)malloc_trim(0);
#endif
}

static void
interrupt_all(struct server_multi *m, int sig)
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
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	(void)closedir(d);
	return n - 3; /* ".", ".." and the directory's own fd */
}

/* Why this test cannot have a slot now, or NULL.  Under m->lock. */
static const char *
slot_refusal(struct server_multi *m, struct multi_run *me, int threads)
{
	const struct iperf_local *o = m->server->opt;
	struct multi_run *r;
	struct rlimit rl;
	int same = 0, fds;

	if (o->one_off && m->served > 0)
		return "the one test of --one-off is served";
	if (m->active >= o->max_tests)
		return "every test slot (--max-tests) is in use";
	for (r = m->runs; r != NULL; r = r->next)
		if (r != me && r->has_slot && addr_same_host(&r->peer, &me->peer))
			same++;
	if (o->max_tests_per_ip > 0 && same >= o->max_tests_per_ip)
		return "this address has all its slots (--max-tests-per-ip)";
	if (m->threads + threads > MULTI_THREAD_BUDGET)
		return "the test would exceed the server's thread budget";
	fds = open_fds();
	if (fds >= 0 && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)fds + (rlim_t)threads + MULTI_FD_RESERVE > rl.rlim_cur)
		return "the test would exceed the server's file descriptors";
	return NULL;
}

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

static int
server_multi_admit(struct iperf_test *test)
{
	struct multi_run *r = test->mrun;
	struct server_multi *m = test->multi;
	int threads = test_total_streams(test) + 1;
	const char *why;

	pthread_mutex_lock(&m->lock);
	why = slot_refusal(m, r, threads);
	if (why == NULL) {
		r->has_slot = 1;
		r->threads = threads;
		m->active++;
		m->threads += threads;
		m->served++;
		/* No cookie on the data path: one test at a time sets up. */
		if (test->proto->adopt == NULL && wait_turn(m, r) == -1)
			why = "no turn to set up its streams in time";
	}
	pthread_mutex_unlock(&m->lock);
	if (why == NULL)
		return 0;
	if (!test->opt->json_output && !test->opt->csv)
		(void)iperf_printf(test, "test from %s refused, the client "
		    "is told the server is busy: %s\n", test->run.srv.peer_host, why);
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

/* ---- the dispatcher ---------------------------------------------------- */

static void
announce(struct iperf_test *s)
{
	int again = s->idle_restarted;

	/* After an --idle-timeout restart, the banner again only with -d
	 * (as the one-test server). */
	s->idle_restarted = 0;
	if (s->opt->csv) /* the header row, once */
		s->reporter->server_listening(s);
	if (s->opt->json_output || s->opt->csv || (again && !s->opt->debug))
		return;
	if (s->opt->verbose)
		s->reporter->server_listening(s);
	(void)iperf_printf(s, "-----------------------------------------------"
	    "------------\n");
	(void)iperf_printf(s, "Server listening on %d (up to %d tests at "
	    "once)\n", s->opt->server_port, s->opt->max_tests);
	(void)iperf_printf(s, "-----------------------------------------------"
	    "------------\n");
	report_flush(s);
}

static int
multi_open(struct server_multi *m)
{
	struct iperf_test *s = m->server;

	if (session_open(s) == -1 || session_open_wake(s) == -1 ||
	    report_out_check(s) == -1 || server_listen(s) == -1 ||
	    evloop_add_fd(s->loop, s->listener, EV_READ, listener_cb, m) ==
		-1) {
		if (s->run.err.code == 0)
			iperf_fail(s, IELISTEN, errno);
		s->reporter->begin(s);
		session_report_failure(s);
		s->reporter->finish(s);
		return -1;
	}
	return 0;
}

static void
multi_close(struct server_multi *m)
{
	struct iperf_test *s = m->server;

	expire_hellos(m, 1);
	server_unwatch_listener(s);
	server_close_listener(s);
	/* The tests end within their own bounds (an interrupted one at
	 * once; the others at their end, or their limits). */
	while (m->nruns > 0) {
		(void)evloop_run_once(s->loop, MULTI_LOOP_WAIT_US);
		test_drain_wake(s);
		reap(m);
	}
}

/* -1: the one test has been served and is gone.  (nruns changes in this
 * thread only; served in the tests' threads.) */
static int
one_off_done(struct server_multi *m)
{
	int done;

	pthread_mutex_lock(&m->lock);
	done = m->served > 0 && m->nruns == 0;
	pthread_mutex_unlock(&m->lock);
	return done;
}

/* Nobody came for --idle-timeout seconds: a fresh listener. */
static int
idle_expired(struct server_multi *m)
{
	struct iperf_test *s = m->server;
	uint64_t now = evloop_now(s->loop);

	if (s->opt->idle_timeout_s <= 0 || m->nruns > 0 || m->nhellos > 0)
		return 0;
	if (m->idle_since_us == 0) {
		m->idle_since_us = now;
		return 0;
	}
	return now - m->idle_since_us >=
	    (uint64_t)s->opt->idle_timeout_s * USEC_PER_SEC;
}

/* The dispatcher's loop, until an interrupt (0), a -1 server's test is
 * done (0) or the idle timeout restarts the server (2). */
static int
serve(struct server_multi *m)
{
	struct iperf_test *s = m->server;
	int had;

	for (;;) {
		(void)evloop_run_once(s->loop, MULTI_LOOP_WAIT_US);
		test_drain_wake(s);
		expire_hellos(m, 0);
		had = m->nruns;
		reap(m);
		trim_when_idle(m, had);
		if (s->interrupted)
			return 0;
		if (s->opt->one_off && one_off_done(m))
			return 0;
		if (idle_expired(m)) {
			s->idle_restarted = 1;
			return 2;
		}
	}
}

/* A signal stops the server: every test is interrupted, then the server
 * says so as 3.21's does.  -1. */
static int
stop_interrupted(struct server_multi *m)
{
	struct iperf_test *s = m->server;
	char msg[128];

	interrupt_all(m, s->interrupt_sig);
	if (s->interrupt_sig > 0)
		(void)snprintf(msg, sizeof(msg), "interrupt - the server "
		    "has terminated by signal %s(%d)",
		    strsignal(s->interrupt_sig), s->interrupt_sig);
	else
		(void)snprintf(msg, sizeof(msg),
		    "interrupt - the server has terminated");
	iperf_fail(s, IESERVERTERM, 0);
	s->run.abort = ABORT_INTERRUPT;
	multi_close(m);
	if (!s->opt->json_output)
		s->reporter->error(s, msg);
	return -1;
}

int
server_multi_run(struct iperf_test *s)
{
	struct server_multi *m = calloc(1, sizeof(*m));
	int rc = 0;

	if (m == NULL) {
		iperf_fail(s, IEINITTEST, ENOMEM);
		return -2;
	}
	if (pthread_mutex_init(&m->lock, NULL) != 0) {
		free(m);
		iperf_fail(s, IEINITTEST, ENOMEM);
		return -2;
	}
	(void)pthread_cond_init(&m->turn_cv, NULL);
	m->server = s;
	s->multi = m;
	s->run.ses.sops = NULL;
	s->run.done = 0;
	if (multi_open(m) == -1) {
		rc = -2;
	} else {
		announce(s);
		rc = serve(m);
		if (s->interrupted)
			rc = stop_interrupted(m);
		else
			multi_close(m);
	}
	session_close_wake(s);
	s->multi = NULL;
	pthread_cond_destroy(&m->turn_cv);
	pthread_mutex_destroy(&m->lock);
	free(m);
	return rc;
}
