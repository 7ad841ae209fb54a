/* client_rpm.c - the --rpm ramp, foreign probes and figures
 * (client_rpm.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client_rpm.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "rpm_calc.h"
#include "rpm_stream.h"
#include "stream.h"
#include "banned.h"

#define RPM_NAP_US 10000ULL
#define RPM_WAIT_SLICE_MS 50 /* a probe looks at the stop flag */

#define now_ns rpm_now_ns

/* ---- foreign probes ---------------------------------------------------------- */

/* Wait for ev on fd until deadline_ns, or until the run stops: 1 ready,
 * 0 not. */
static int
wait_fd(const struct rpm_run *r, int fd, short ev, uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd p = { fd, ev, 0 };
		uint64_t now = now_ns();
		uint64_t ms = now < deadline_ns ?
		    (deadline_ns - now) / 1000000ULL + 1 : 0;
		int rc;

		if (ms == 0 || atomic_load(&r->stop))
			return 0;
		rc = poll(&p, 1, ms > RPM_WAIT_SLICE_MS ? RPM_WAIT_SLICE_MS :
		    (int)ms);
		if (rc > 0)
			return (p.revents & (ev | POLLERR | POLLHUP)) != 0;
		if (rc < 0 && errno != EINTR)
			return 0;
	}
}

/* A new connection to the server, timed: the socket, or -1. */
static int
foreign_connect(const struct rpm_run *r, uint64_t *ns)
{
	int fd = socket(r->srv.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	int err = 0;
	socklen_t len = sizeof(err);
	uint64_t t0;

	if (fd < 0)
		return -1;
	if (bind(fd, (const struct sockaddr *)&r->local, r->local_len) == -1) {
		close(fd);
		return -1;
	}
	t0 = now_ns();
	if (connect(fd, (const struct sockaddr *)&r->srv, r->srv_len) == -1 &&
	    (errno != EINPROGRESS || !wait_fd(r, fd, POLLOUT, t0 +
		RPM_FOREIGN_TIMEOUT_MS * 1000000ULL) ||
	     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1 ||
	     err != 0)) {
		close(fd);
		return -1;
	}
	*ns = now_ns() - t0;
	return fd;
}

static void
got_pong(void *arg, int type, const unsigned char *body)
{
	(void)body;
	if (type == RPM_REC_PONG)
		*(int *)arg = 1;
}

/* The cookie and a PING out, the PONG back, timed: 0 or -1. */
static int
foreign_rr(const struct rpm_run *r, int fd, uint32_t id, uint64_t *ns)
{
	unsigned char msg[IPERF_COOKIE_SIZE + RPM_PING_REC], buf[64];
	struct rpm_parser p;
	uint64_t t0 = now_ns();
	uint64_t deadline = t0 + RPM_FOREIGN_TIMEOUT_MS * 1000000ULL;
	int done = 0;

	memcpy(msg, r->cookie, IPERF_COOKIE_SIZE);
	rpm_rec_header(msg + IPERF_COOKIE_SIZE, RPM_REC_PING, RPM_PING_LEN);
	rpm_ping_body(msg + IPERF_COOKIE_SIZE + RPM_HDR_LEN, id, t0);
	if (send(fd, msg, sizeof(msg), MSG_NOSIGNAL) != (ssize_t)sizeof(msg))
		return -1;
	rpm_parser_init(&p);
	while (!done) {
		ssize_t n;

		if (!wait_fd(r, fd, POLLIN, deadline))
			return -1;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0 || rpm_parse(&p, buf, (size_t)n, got_pong,
			&done) == -1)
			return -1;
	}
	*ns = now_ns() - t0;
	return 0;
}

static void
foreign_probe(struct rpm_run *r, uint32_t id)
{
	uint64_t conn_ns, rr_ns, at;
	int fd = foreign_connect(r, &conn_ns);
	int rc = -1;

	if (fd >= 0) {
		at = iperf_time_now_us();
		rc = foreign_rr(r, fd, id, &rr_ns);
		close(fd);
	}
	if (rc == -1) {
		pthread_mutex_lock(&r->lock);
		r->foreign_failed++;
		pthread_mutex_unlock(&r->lock);
		return;
	}
	rpm_run_record(r, RPM_FCONN, at, conn_ns);
	rpm_run_record(r, RPM_FRR, iperf_time_now_us(), rr_ns);
}

/* ---- ramp ------------------------------------------------------------------ */

/* Bytes all load streams have written so far. */
static uint64_t
load_bytes(struct iperf_test *test)
{
	struct iperf_stream *sp;
	uint64_t bytes = 0;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct stream_live l;

		stream_snapshot(sp, &l);
		bytes += l.bytes;
	}
	return bytes;
}

static void
ramp_tick(struct iperf_test *test, struct rpm_run *r, uint64_t now)
{
	uint64_t bytes = load_bytes(test);
	double gp = now > r->last_tick_us ? (double)(bytes - r->last_bytes) *
	    8e6 / (double)(now - r->last_tick_us) : 0;

	r->last_bytes = bytes;
	r->last_tick_us = now;
	if (r->work_us != 0) {
		r->gp_stable = rpm_stab_push(&r->gp_stab, gp);
		return;
	}
	if (gp >= r->best_gp * (1 + RPM_GROWTH) &&
	    atomic_load(&r->active) < r->max_streams) {
		r->best_gp = gp;
		atomic_fetch_add(&r->active, 1);
		return;
	}
	r->work_us = now; /* saturated: the working conditions begin */
	r->work_bytes = bytes;
	r->gp_stable = rpm_stab_push(&r->gp_stab, gp);
}

static void *
controller(void *arg)
{
	struct iperf_test *test = arg;
	struct rpm_run *r = test->run.cli.rpm;
	uint64_t next_tick = r->start_us + RPM_ID_US;
	uint64_t next_foreign = r->start_us;
	uint32_t id = 0;

	while (!atomic_load(&r->stop)) {
		uint64_t now = iperf_time_now_us();

		if (now >= next_tick) {
			ramp_tick(test, r, now);
			next_tick += RPM_ID_US;
		}
		if (now >= next_foreign) {
			foreign_probe(r, ++id);
			next_foreign = now + RPM_FOREIGN_PERIOD_US;
		}
		iperf_time_sleep_until(iperf_time_now_us() + RPM_NAP_US);
	}
	return NULL;
}

/* ---- start and stop ---------------------------------------------------------- */

int
client_rpm_start(struct iperf_test *test)
{
	struct rpm_run *r = calloc(1, sizeof(*r));
	sigset_t all, old;
	int rc;

	if (r == NULL)
		return iperf_fail(test, IEINITTEST, ENOMEM);
	pthread_mutex_init(&r->lock, NULL);
	r->srv_len = sizeof(r->srv);
	r->local_len = sizeof(r->local);
	if (getpeername(test->run.ses.ctrl_sck, (struct sockaddr *)&r->srv,
		&r->srv_len) == -1 || getsockname(test->run.ses.ctrl_sck,
		(struct sockaddr *)&r->local, &r->local_len) == -1) {
		free(r);
		return iperf_fail(test, IEINITTEST, errno);
	}
	/* foreign probes leave from the control connection's address */
	if (r->local.ss_family == AF_INET)
		((struct sockaddr_in *)&r->local)->sin_port = 0;
	else if (r->local.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&r->local)->sin6_port = 0;
	memcpy(r->cookie, test->run.cookie, IPERF_COOKIE_SIZE);
	r->max_streams = test->settings.num_streams;
	atomic_store(&r->active, 1);
	r->start_us = r->last_tick_us = iperf_time_now_us();
	rpm_stab_init(&r->gp_stab);
	test->run.cli.rpm = r;
	sigfillset(&all);
	(void)pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&r->thread, NULL, controller, test);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return iperf_fail(test, IEPTHREADCREATE, rc);
	r->thread_started = 1;
	return 0;
}

/* The samples of kind k taken at or after from_us (sorted, summarised). */
static void
window_dist(struct rpm_run *r, enum rpm_kind k, uint64_t from_us,
    uint64_t to_us, struct rpm_dist *out)
{
	const struct rpm_series *s = &r->series[k];
	uint64_t *v = malloc((s->n > 0 ? s->n : 1) * sizeof(*v));
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	if (v == NULL)
		return;
	for (i = 0; i < s->n; i++)
		if (s->at_us[i] >= from_us && s->at_us[i] < to_us)
			v[n++] = s->ns[i];
	rpm_dist_of(v, n, out);
	free(v);
}

/* RPM of the probes within [from, to); 0 if a kind has none. */
static double
rpm_between(struct rpm_run *r, uint64_t from, uint64_t to,
    struct rpm_dist d[RPM_KINDS])
{
	int k;

	for (k = 0; k < RPM_KINDS; k++) {
		window_dist(r, (enum rpm_kind)k, from, to, &d[k]);
		if (d[k].samples == 0)
			return 0;
	}
	return rpm_from_ms(rpm_aggregate(d[RPM_SELF].trimmed_us,
	    d[RPM_FCONN].trimmed_us, d[RPM_FRR].trimmed_us) / 1000.0);
}

static void
compute_result(struct iperf_test *test, struct rpm_run *r, uint64_t end_us,
    uint64_t end_bytes)
{
	struct rpm_result *res = &test->run.cli.rpm_res;
	struct rpm_dist d[RPM_KINDS];
	struct rpm_stab st;
	uint64_t from = r->work_us != 0 ? r->work_us :
	    r->start_us + (end_us - r->start_us) / 2;
	uint64_t t;
	int stable = 0;

	memset(res, 0, sizeof(*res));
	res->used = 1;
	pthread_mutex_lock(&r->lock);
	res->rpm = rpm_between(r, from, end_us + 1, d);
	res->self = d[RPM_SELF];
	res->fconn = d[RPM_FCONN];
	res->frr = d[RPM_FRR];
	rpm_stab_init(&st);
	for (t = from; t + RPM_ID_US <= end_us; t += RPM_ID_US) {
		double v = rpm_between(r, t, t + RPM_ID_US, d);

		if (v > 0)
			stable = rpm_stab_push(&st, v);
	}
	res->foreign_failed = r->foreign_failed;
	pthread_mutex_unlock(&r->lock);
	res->aggregate_ms = rpm_aggregate(res->self.trimmed_us,
	    res->fconn.trimmed_us, res->frr.trimmed_us) / 1000.0;
	res->stable = r->gp_stable && stable;
	res->load_streams = atomic_load(&r->active);
	res->window_s = (double)(end_us - from) / 1e6;
	/* over the working conditions, else the whole test */
	if (r->work_us == 0)
		r->work_us = r->start_us;
	if (end_us > r->work_us)
		res->goodput_bps = (double)(end_bytes - r->work_bytes) * 8e6 /
		    (double)(end_us - r->work_us);
}

void
client_rpm_stop(struct iperf_test *test)
{
	struct rpm_run *r = test->run.cli.rpm;

	if (r == NULL || !r->thread_started)
		return;
	atomic_store(&r->stop, 1);
	(void)pthread_join(r->thread, NULL);
	r->thread_started = 0;
	compute_result(test, r, iperf_time_now_us(), load_bytes(test));
}

void
client_rpm_free(struct iperf_test *test)
{
	struct rpm_run *r = test->run.cli.rpm;
	struct iperf_stream *sp;
	int k;

	if (r == NULL)
		return;
	client_rpm_stop(test);
	for (sp = test->run.streams; sp != NULL; sp = sp->next)
		if (sp->w.thread_started)
			return; /* a worker may still record: keep it */
	for (k = 0; k < RPM_KINDS; k++) {
		free(r->series[k].at_us);
		free(r->series[k].ns);
	}
	pthread_mutex_destroy(&r->lock);
	free(r);
	test->run.cli.rpm = NULL;
}
