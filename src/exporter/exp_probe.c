/*
 * exp_probe.c - one probe (exp_probe.h).  The target's name is resolved
 * in a helper thread so that a slow resolver cannot hold the probe past
 * its deadline (the helper finishes on its own and frees what it got);
 * every address the name gives must lie in an allowed prefix, and the
 * client is given the first one as a number (no second resolution that
 * could answer differently).  The client runs in the calling thread.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "cidr.h"
#include "exp_probe.h"
#include "iperf_api.h"
#include "iperf_time.h"
#include "util.h"
#include "banned.h"

/* What the client needs beyond the test itself: connecting, the
 * parameters and the results (seconds). */
#define PROBE_OVERHEAD_S 1.0
/* iperf3's default UDP rate (-u without -b). */
#define UDP_DEFAULT_BPS 1000000ull

/* A name being resolved: shared by the probe and the helper thread; the
 * last of the two to let go frees it. */
struct resolve_job {
	pthread_mutex_t lock;
	pthread_cond_t done_cv;
	int refs;
	int done;
	int rc;
	int family;
	struct addrinfo *res;
	char host[EXP_HOST_MAX];
};

static void
job_release(struct resolve_job *j)
{
	int last;

	pthread_mutex_lock(&j->lock);
	last = --j->refs == 0;
	pthread_mutex_unlock(&j->lock);
	if (!last)
		return;
	if (j->res != NULL)
		freeaddrinfo(j->res);
	pthread_cond_destroy(&j->done_cv);
	pthread_mutex_destroy(&j->lock);
	free(j);
}

static void *
resolve_main(void *arg)
{
	struct resolve_job *j = arg;
	struct addrinfo hints, *res = NULL;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = j->family;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(j->host, NULL, &hints, &res);
	pthread_mutex_lock(&j->lock);
	j->rc = rc;
	j->res = rc == 0 ? res : NULL;
	j->done = 1;
	pthread_cond_signal(&j->done_cv);
	pthread_mutex_unlock(&j->lock);
	job_release(j);
	return NULL;
}

static struct resolve_job *
job_new(const char *host, int family)
{
	struct resolve_job *j = calloc(1, sizeof(*j));
	pthread_condattr_t ca;

	if (j == NULL)
		return NULL;
	(void)str_copy(j->host, host, sizeof(j->host));
	j->family = family;
	j->refs = 2;
	(void)pthread_mutex_init(&j->lock, NULL);
	(void)pthread_condattr_init(&ca);
	(void)pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	(void)pthread_cond_init(&j->done_cv, &ca);
	(void)pthread_condattr_destroy(&ca);
	return j;
}

/* Waits for j until the monotonic deadline; 0 with *res taken, or -1
 * with the reason. */
static int
job_wait(struct resolve_job *j, uint64_t deadline_us, struct addrinfo **res,
    char *why, size_t whylen)
{
	struct timespec ts;
	int rc = -1;

	ts.tv_sec = (time_t)(deadline_us / 1000000);
	ts.tv_nsec = (long)(deadline_us % 1000000) * 1000;
	pthread_mutex_lock(&j->lock);
	while (!j->done && pthread_cond_timedwait(&j->done_cv, &j->lock,
	    &ts) != ETIMEDOUT)
		;
	if (!j->done)
		(void)snprintf(why, whylen, "cannot resolve '%s': no answer "
		    "before the deadline", j->host);
	else if (j->rc != 0)
		(void)snprintf(why, whylen, "cannot resolve '%s': %s", j->host,
		    gai_strerror(j->rc));
	else {
		*res = j->res;
		j->res = NULL;
		rc = 0;
	}
	pthread_mutex_unlock(&j->lock);
	return rc;
}

/* getaddrinfo(host) bounded by the deadline: 0 with *res, or -1. */
static int
resolve(const char *host, int family, uint64_t deadline_us,
    struct addrinfo **res, char *why, size_t whylen)
{
	struct addrinfo hints;
	struct resolve_job *j;
	pthread_attr_t pa;
	pthread_t t;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST;
	if (getaddrinfo(host, NULL, &hints, res) == 0)
		return 0;
	j = job_new(host, family);
	if (j == NULL) {
		(void)snprintf(why, whylen, "out of memory");
		return -1;
	}
	(void)pthread_attr_init(&pa);
	(void)pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &pa, resolve_main, j);
	(void)pthread_attr_destroy(&pa);
	if (rc != 0) {
		j->refs = 1;
		job_release(j);
		(void)snprintf(why, whylen, "cannot start a resolver thread");
		return -1;
	}
	rc = job_wait(j, deadline_us, res, why, whylen);
	job_release(j);
	return rc;
}

static int
allowed(const struct exp_policy *p, const struct sockaddr_storage *ss)
{
	size_t i;

	for (i = 0; i < p->nallow; i++)
		if (cidr_match(&p->allow[i], ss))
			return 1;
	return 0;
}

/* Every address of res allowed (else 403), and the first one of the
 * bind address's family (any without one) as text in host. */
static int
pick_target(const struct exp_policy *p, const struct probe_req *q,
    const struct addrinfo *res, int family, char *host, size_t hostlen,
    struct exp_result *out)
{
	struct sockaddr_storage ss;
	char text[INET6_ADDRSTRLEN];
	int port;

	host[0] = '\0';
	for (; res != NULL; res = res->ai_next) {
		if ((res->ai_family != AF_INET && res->ai_family != AF_INET6) ||
		    res->ai_addrlen > sizeof(ss))
			continue;
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, res->ai_addr, res->ai_addrlen);
		addr_format(&ss, text, sizeof(text), &port);
		if (!allowed(p, &ss)) {
			out->status = 403;
			(void)snprintf(out->reason, sizeof(out->reason), "target "
			    "'%s' (%s) is not allowed (--exporter-allow)",
			    q->target, text);
			return -1;
		}
		if (host[0] == '\0' && (family == AF_UNSPEC ||
		    res->ai_family == family))
			(void)str_copy(host, text, hostlen);
	}
	if (host[0] != '\0')
		return 0;
	out->status = 400;
	(void)snprintf(out->reason, sizeof(out->reason), "target '%s' has no "
	    "address of the bind address's family", q->target);
	return -1;
}

/* The family of a numeric bind address if this host has it (bind()
 * succeeds on it), else -1. */
static int
local_family(const char *addr)
{
	struct addrinfo hints, *res;
	int fd, ok = 0, family = -1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
	hints.ai_socktype = SOCK_DGRAM;
	if (getaddrinfo(addr, "0", &hints, &res) != 0)
		return -1;
	fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		ok = bind(fd, res->ai_addr, res->ai_addrlen) == 0;
		close(fd);
	}
	if (ok)
		family = res->ai_family;
	freeaddrinfo(res);
	return family;
}

/* The target resolved, allowed and picked as a number into host. */
static int
check_target(const struct exp_policy *p, const struct probe_req *q,
    uint64_t deadline_us, char *host, size_t hostlen, struct exp_result *out)
{
	struct addrinfo *res = NULL;
	int family = AF_UNSPEC, rc;

	if (q->bind[0] != '\0' && (family = local_family(q->bind)) == -1) {
		out->status = 403;
		(void)snprintf(out->reason, sizeof(out->reason), "bind address "
		    "'%s' is not an address of this host", q->bind);
		return -1;
	}
	if (resolve(q->target, family, deadline_us, &res, out->reason,
	    sizeof(out->reason)) == -1)
		return -1;
	rc = pick_target(p, q, res, family, host, hostlen, out);
	freeaddrinfo(res);
	return rc;
}

/* The test's -t: the period rounded (at least 1 s), shortened to fit the
 * budget. */
static int
test_seconds(double period_s, double budget_s)
{
	double d = floor(period_s + 0.5);

	if (d < 1)
		d = 1;
	if (d + PROBE_OVERHEAD_S > budget_s)
		d = floor(budget_s - PROBE_OVERHEAD_S);
	return d < 1 ? 1 : (int)d;
}

/* The rate asked for (iperf3's defaults), capped. */
static uint64_t
probe_rate(const struct exp_policy *p, const struct probe_req *q,
    int *capped)
{
	uint64_t rate = q->have_bitrate ? q->bitrate : q->udp ?
	    UDP_DEFAULT_BPS : 0;

	*capped = p->max_bitrate > 0 && (rate == 0 || rate > p->max_bitrate);
	return *capped ? p->max_bitrate : rate;
}

/* Ignores the document as it is emitted: it stays in the test
 * (iperf_get_test_json_output_string()), and nothing is printed. */
static void
keep_json(struct iperf_test *test, char *json)
{
	(void)test;
	(void)json;
}

static struct iperf_test *
new_client(const struct exp_policy *p, const struct probe_req *q,
    const char *host, double budget_s, struct exp_result *out)
{
	struct iperf_test *t = iperf_new_test();
	double ms = budget_s * 1000;

	if (t == NULL)
		return NULL;
	iperf_defaults(t);
	iperf_set_test_role(t, 'c');
	iperf_set_test_server_hostname(t, host);
	iperf_set_test_server_port(t, q->port);
	if (q->udp && set_protocol(t, Pudp) != 0) {
		iperf_free_test(t);
		return NULL;
	}
	iperf_set_test_reverse(t, q->reverse);
	out->duration_s = test_seconds(q->period_s, budget_s);
	iperf_set_test_duration(t, out->duration_s);
	iperf_set_test_rate(t, probe_rate(p, q, &out->capped));
	if (q->burst > 0)
		iperf_set_test_burst(t, q->burst);
	if (q->bind[0] != '\0')
		iperf_set_test_bind_address(t, q->bind);
	iperf_set_test_connect_timeout(t, ms < 100 ? 100 : ms > 600000 ?
	    600000 : (int)ms);
	iperf_set_test_json_output(t, 1);
	iperf_set_test_json_callback(t, keep_json);
	return t;
}

void
exp_probe_run(struct exp_runner *r, int slot, const struct exp_policy *p,
    const struct probe_req *q, double budget_s, struct exp_result *out)
{
	uint64_t deadline = iperf_time_now_us() + (uint64_t)(budget_s * 1e6);
	char host[INET6_ADDRSTRLEN];
	struct iperf_test *t;
	const char *json;
	int rc;

	memset(out, 0, sizeof(*out));
	out->status = 200;
	if (check_target(p, q, deadline, host, sizeof(host), out) == -1)
		return;
	t = new_client(p, q, host, budget_s, out);
	if (t == NULL) {
		(void)snprintf(out->reason, sizeof(out->reason), "%s",
		    iperf_strerror(IENEWTEST));
		return;
	}
	exp_slot_arm(r, slot, t, deadline);
	rc = iperf_run_client(t);
	out->timed_out = exp_slot_disarm(r, slot);
	out->ran_ok = rc >= 0 && !out->timed_out;
	if (rc < 0 || out->timed_out)
		(void)snprintf(out->reason, sizeof(out->reason), "%s",
		    out->timed_out ? "stopped at the deadline (the scrape "
		    "timeout)" : iperf_get_test_error_string(t));
	json = iperf_get_test_json_output_string(t);
	out->json = json != NULL ? str_dup(json) : NULL;
	iperf_free_test(t);
}
