/* server_dispatch.c - a --max-tests dispatcher's listeners and loop:
 * connections are accepted (or refused at once, server_admit.h), their
 * cookie read without blocking, then handed to server_multi.c; the loop
 * reaps finished tests, expires what waits too long, and takes SIGHUP
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
#include <unistd.h>

#include "addr.h"
#include "evloop.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "net.h"
#include "report.h"
#include "report_out.h"
#include "server.h"
#include "server_accept.h"
#include "server_multi.h"
#include "server_multi_int.h"
#include "session.h"
#include "test.h"
#include "banned.h"

#ifdef HAVE_OPERATOR
static void
drain_cb(struct evloop *loop, int fd, unsigned int events, void *arg)
{
	struct server_multi *m = arg;
	struct drain **pp, *d;
	char buf[512];
	ssize_t n;

	(void)events;
	do
		n = recv(fd, buf, sizeof(buf), 0);
	while (n > 0);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	for (pp = &m->drains; (d = *pp) != NULL; pp = &d->next)
		if (d->fd == fd) {
			*pp = d->next;
			m->ndrains--;
			evloop_del_fd(loop, fd);
			close(fd);
			free(d);
			return;
		}
}

/* Refused right after accept(): "busy" written (nothing read), then the
 * connection waits for its client to close it, so that the answer is
 * read before the connection goes. */
static void
refuse_now(struct server_multi *m, int fd, const struct sockaddr_storage *ss,
    int port, enum gate_reason why)
{
	unsigned char b = (unsigned char)(signed char)ACCESS_DENIED;
	struct drain *d = NULL;

	record_refused(&m->rec, m->server, ss, port, why, NULL);
	if (m->server->opt->verbose && !m->server->opt->json_output)
		(void)iperf_printf(m->server, "connection refused, the client "
		    "is told the server is busy: %s\n", gate_text(why));
	if (m->ndrains < MULTI_DRAIN_MAX)
		d = calloc(1, sizeof(*d));
	if (d == NULL || net_set_nonblocking(fd, 1) == -1 ||
	    evloop_add_fd(m->server->loop, fd, EV_READ, drain_cb, m) == -1) {
		free(d);
		server_deny(fd);
		return;
	}
	(void)send(fd, &b, 1, MSG_NOSIGNAL);
	(void)shutdown(fd, SHUT_WR);
	d->fd = fd;
	d->until_us = evloop_now(m->server->loop) + MULTI_DRAIN_US;
	d->next = m->drains;
	m->drains = d;
	m->ndrains++;
}

static void
expire_drains(struct server_multi *m, int all)
{
	uint64_t now = evloop_now(m->server->loop);
	struct drain **pp = &m->drains, *d;

	while ((d = *pp) != NULL) {
		if (!all && now < d->until_us) {
			pp = &d->next;
			continue;
		}
		*pp = d->next;
		m->ndrains--;
		evloop_del_fd(m->server->loop, d->fd);
		close(d->fd);
		free(d);
	}
}
#else
/* Refused right after accept() (the dispatcher's own limits): busy. */
static void
refuse_now(struct server_multi *m, int fd, const struct sockaddr_storage *ss,
    int port, enum gate_reason why)
{
	record_refused(&m->rec, m->server, ss, port, why, NULL);
	server_deny(fd);
}

static void
expire_drains(struct server_multi *m, int all)
{
	(void)m;
	(void)all;
}
#endif


static int
port_of_listener(const struct server_multi *m, int fd)
{
#ifdef HAVE_OPERATOR /* several ports (--disable-operator: one) */
	int i;

	for (i = 0; i < m->ports.n; i++)
		if (m->ports.fd[i] == fd)
			return m->ports.port[i];
#else
	(void)fd;
#endif
	return m->server->opt->server_port;
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
		multi_dispatch_cookie(m, h);
	else
		close(fd);
	free(h);
}

static void
listener_cb(struct evloop *loop, int fd, unsigned int events, void *arg)
{
	struct server_multi *m = arg;
#ifdef HAVE_OPERATOR
	struct gate_counts c;
#endif
	enum gate_reason why;
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
	h->port = port_of_listener(m, fd);
#ifdef HAVE_OPERATOR
	pthread_mutex_lock(&m->lock);
	multi_count_source(m, &h->ss, NULL, &c);
	pthread_mutex_unlock(&m->lock);
	why = gate_at_accept(&m->gate, m->server->opt, &h->ss, &c,
	    evloop_now(loop));
#else
	why = GATE_OK;
#endif
	if (why == GATE_OK && m->nhellos >= MULTI_HELLO_MAX)
		why = GATE_BUSY;
	if (why != GATE_OK || net_set_nonblocking(nfd, 1) == -1 ||
	    evloop_add_fd(loop, nfd, EV_READ, hello_cb, m) == -1) {
		refuse_now(m, nfd, &h->ss, h->port, why != GATE_OK ? why :
		    GATE_BUSY);
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

/* ---- the dispatcher ---------------------------------------------------- */

static void
announce(struct server_multi *m)
{
	struct iperf_test *s = m->server;
	int again = s->idle_restarted;
#ifdef HAVE_OPERATOR
	char ports[200];
#endif

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
#ifdef HAVE_OPERATOR
	server_ports_describe(&m->ports, ports, sizeof(ports));
	if (s->opt->max_tests <= 1) /* an operator's option made it one */
		(void)iperf_printf(s, "Server listening on %s (one test at a "
		    "time)\n", ports);
	else
		(void)iperf_printf(s, "Server listening on %s (up to %d tests "
		    "at once)\n", ports, s->opt->max_tests);
#else
	(void)iperf_printf(s, "Server listening on %d (up to %d tests at "
	    "once)\n", s->opt->server_port, s->opt->max_tests);
#endif
	(void)iperf_printf(s, "-----------------------------------------------"
	    "------------\n");
	report_flush(s);
}

/* The gate's lists, the audit log and metrics: 0, or -1 (recorded). */
static int
open_operator_parts(struct server_multi *m)
{
#ifdef HAVE_OPERATOR
	struct iperf_test *s = m->server;
	char err[256], msg[512];

	if (gate_open(&m->gate, s->opt, err, sizeof(err)) == -1) {
		(void)snprintf(msg, sizeof(msg), "unable to use the admission "
		    "lists: %s", err);
		return iperf_fail_arg(s, IESERVEROPT, msg);
	}
	return record_open(&m->rec, s);
#else
	(void)m;
	return 0; /* none without the operator's server */
#endif
}

static int
watch_ports(struct server_multi *m)
{
	int i;

	for (i = 0; i < m->ports.n; i++)
		if (evloop_add_fd(m->server->loop, m->ports.fd[i], EV_READ,
			listener_cb, m) == -1)
			return -1;
	return 0;
}

static void
unwatch_ports(struct server_multi *m)
{
	int i;

	for (i = 0; i < m->ports.n; i++)
		evloop_del_fd(m->server->loop, m->ports.fd[i]);
}

static int
multi_open(struct server_multi *m)
{
	struct iperf_test *s = m->server;

	if (session_open(s) == -1 || session_open_wake(s) == -1 ||
	    report_out_check(s) == -1 || open_operator_parts(m) == -1 ||
	    server_ports_open(s, &m->ports) == -1 || watch_ports(m) == -1) {
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
	expire_drains(m, 1);
	unwatch_ports(m);
	server_ports_close(s, &m->ports);
	/* The tests end within their own bounds (an interrupted one at
	 * once; the others at their end, or their limits). */
	while (m->nruns > 0) {
		(void)evloop_run_once(s->loop, MULTI_LOOP_WAIT_US);
		test_drain_wake(s);
		multi_reap(m);
	}
	gate_close(&m->gate);
	record_close(&m->rec);
}

#ifdef HAVE_OPERATOR
/* SIGHUP with --allow-file or --audit-log: read the one again, reopen
 * the other (logrotate), and go on.  Without them SIGHUP ends the
 * server, as 3.21's.  1 when taken. */
static int
take_sighup(struct server_multi *m)
{
	struct iperf_test *s = m->server;
	char err[256];

	if (s->interrupt_sig != SIGHUP ||
	    (s->opt->allow_file == NULL && s->opt->audit_log == NULL))
		return 0;
	s->interrupt_sig = 0;
	s->interrupted = 0;
	if (gate_reload(&m->gate, s->opt, err, sizeof(err)) == -1)
		report_warning(s, "--allow-file not read again, the previous "
		    "list stays: %s", err);
	record_reopen(&m->rec, s);
	return 1;
}
#else
/* Without the operator's options SIGHUP ends the server, as 3.21's. */
static int
take_sighup(struct server_multi *m)
{
	(void)m;
	return 0;
}
#endif

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
		expire_drains(m, 0);
		had = m->nruns;
		multi_reap(m);
		trim_when_idle(m, had);
		if (s->interrupted && !take_sighup(m))
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

	multi_interrupt_all(m, s->interrupt_sig);
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
server_multi_wanted(const struct iperf_test *s)
{
	const struct iperf_local *o = s->opt;

#ifdef HAVE_OPERATOR
	return o->max_tests > 1 || o->server_port_last > 0 ||
	    o->allow_count > 0 || o->deny_count > 0 || o->allow_file != NULL ||
	    o->max_tests_per_prefix > 0 || o->accept_rate > 0 ||
	    o->audit_log != NULL || o->metrics_listen != NULL ||
	    server_ports_activated();
#else
	return o->max_tests > 1; /* none of the options above exists */
#endif
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
		server_ports_close(s, &m->ports);
		gate_close(&m->gate);
		record_close(&m->rec);
		rc = -2;
	} else {
		announce(m);
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
