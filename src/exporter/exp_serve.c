/*
 * exp_serve.c - the exporter (exporter.h): its options, the HTTP
 * endpoints and the process around them.
 *
 *   /probe    a probe (exp_query.c, exp_probe.c, exp_expo.c): 400 for a
 *             bad parameter, 403 outside the allowed targets or for a
 *             bind address not on this host, 503 beyond
 *             --exporter-max-probes; a probe that fails is a 200 with
 *             iperf3_up 0 and probe_success 0 (what Prometheus records),
 *             and a line in the log
 *   /metrics  the exporter's own figures
 *   /health, /ready  "OK"
 *
 * SIGINT, SIGTERM and SIGHUP are blocked in every thread and taken by
 * sigwait() here: running probes are interrupted, the HTTP server stops
 * (it waits for its handlers), and the program exits 0.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cidr.h"
#include "exp_expo.h"
#include "exp_probe.h"
#include "exp_query.h"
#include "exporter.h"
#include "http.h"
#include "iperf.h"
#include "iperf_api.h"
#include "iperf_time.h"
#include "util.h"
#include "banned.h"

#define DEFAULT_MAX_PERIOD_S 30.0
#define DEFAULT_MAX_PROBES 4
/* Prometheus' scrape timeout header, and what iperf3_exporter keeps of
 * it for the answer to travel (seconds). */
#define TIMEOUT_HEADER "X-Prometheus-Scrape-Timeout-Seconds"
#define TIMEOUT_OFFSET_S 0.5
/* The bound of a probe without the header (beyond its period), and the
 * longest whatever the header says. */
#define NO_HEADER_SLACK_S 5.0
#define MAX_SLACK_S 30.0

enum rejected { REJ_400, REJ_403, REJ_503, REJ_COUNT };

struct exporter {
	struct iperf_test *log; /* the program's test: options, error output */
	struct exp_runner runner;
	struct exp_policy policy;
	struct cidr *allow;
	size_t nallow;
	double max_period_s;
	int max_probes;
	pthread_mutex_t lock; /* the figures below */
	double duration_sum;
	uint64_t probes;
	uint64_t errors;
	uint64_t rejected[REJ_COUNT];
};

/* ---- replies --------------------------------------------------------- */

static void
reply_text(struct http_reply *out, int status, const char *ctype,
    char *body, size_t len)
{
	out->status = status;
	out->content_type = ctype;
	out->body = body;
	out->len = len;
}

/* A status with a one-line text (text + "\n"). */
static void
reply_line(struct http_reply *out, int status, const char *text)
{
	struct exp_buf b;
	size_t len = 0;
	char *body;

	exp_buf_init(&b);
	exp_buf_printf(&b, "%s\n", text);
	body = exp_buf_take(&b, &len);
	reply_text(out, body != NULL ? status : 500, "text/plain; charset=utf-8",
	    body, len);
}

static void
count_rejected(struct exporter *ex, enum rejected r)
{
	pthread_mutex_lock(&ex->lock);
	ex->rejected[r]++;
	pthread_mutex_unlock(&ex->lock);
}

/* ---- /probe ---------------------------------------------------------- */

static const char *
query_get(const void *ctx, const char *key)
{
	return http_request_query(ctx, key);
}

/* The seconds a probe may take: the scrape timeout less half a second,
 * or without it the period and 5 s; never more than the period and
 * 30 s. */
static double
probe_budget(const struct http_request *req, double period_s)
{
	const char *h = http_request_header(req, TIMEOUT_HEADER);
	double t = period_s + NO_HEADER_SLACK_S;
	char *end;

	if (h != NULL) {
		double v = strtod(h, &end);

		if (end != h && *end == '\0' && isfinite(v) && v > 0)
			t = v - TIMEOUT_OFFSET_S < 0.1 ? 0.1 :
			    v - TIMEOUT_OFFSET_S;
	}
	return t > period_s + MAX_SLACK_S ? period_s + MAX_SLACK_S : t;
}

static void
log_probe(struct exporter *ex, const struct probe_req *q,
    const struct exp_result *res, int up)
{
	if (res->duration_s > 0 && res->duration_s + 0.5 < q->period_s)
		iperf_err(ex->log, "probe of %s port %d: period %gs shortened to "
		    "%d s to fit the scrape timeout", q->label, q->port,
		    q->period_s, res->duration_s);
	if (res->capped && q->have_bitrate)
		iperf_err(ex->log, "probe of %s port %d: bitrate %llu capped "
		    "to %llu bits/s (--exporter-max-bitrate)", q->label, q->port,
		    (unsigned long long)q->bitrate,
		    (unsigned long long)ex->policy.max_bitrate);
	if (!up)
		iperf_err(ex->log, "probe of %s port %d failed: %s", q->label,
		    q->port, res->reason[0] != '\0' ? res->reason :
		    "the result document is incomplete");
}

/* The 200 of a probe that ran (or tried to). */
static void
answer_probe(struct exporter *ex, const struct probe_req *q,
    const struct exp_result *res, double duration_s, struct http_reply *out)
{
	struct exp_probe_view v = { q->label, q->port, q->udp, res->ran_ok,
		res->capped, duration_s, res->json };
	struct exp_buf b;
	size_t len = 0;
	char *body;
	int up;

	exp_buf_init(&b);
	up = exp_write_probe(&b, &v);
	pthread_mutex_lock(&ex->lock);
	ex->duration_sum += duration_s;
	ex->probes++;
	ex->errors += !up;
	pthread_mutex_unlock(&ex->lock);
	log_probe(ex, q, res, up);
	body = exp_buf_take(&b, &len);
	reply_text(out, body != NULL ? 200 : 500, EXP_CONTENT_TYPE, body, len);
}

static void
serve_probe(struct exporter *ex, const struct http_request *req,
    struct http_reply *out)
{
	struct probe_req q;
	struct exp_result res;
	char err[256];
	uint64_t t0 = iperf_time_now_us();
	int slot;

	if (exp_query_parse(query_get, req, ex->max_period_s, &q, err,
	    sizeof(err)) == -1) {
		count_rejected(ex, REJ_400);
		reply_line(out, 400, err);
		return;
	}
	slot = exp_slot_take(&ex->runner);
	if (slot == -1) {
		count_rejected(ex, REJ_503);
		(void)snprintf(err, sizeof(err), "too many probes at once (at "
		    "most %d: --exporter-max-probes)", ex->max_probes);
		reply_line(out, 503, err);
		return;
	}
	exp_probe_run(&ex->runner, slot, &ex->policy, &q, probe_budget(req,
	    q.period_s), &res);
	exp_slot_give(&ex->runner, slot);
	if (res.status != 200) {
		count_rejected(ex, res.status == 403 ? REJ_403 : REJ_400);
		reply_line(out, res.status, res.reason);
	} else {
		answer_probe(ex, &q, &res, (double)(iperf_time_now_us() - t0) /
		    1e6, out);
	}
	free(res.json);
}

/* ---- /metrics -------------------------------------------------------- */

static void
serve_metrics(struct exporter *ex, struct http_reply *out)
{
	static const char *const codes[REJ_COUNT] = { "400", "403", "503" };
	struct exp_buf b;
	char l[32];
	size_t len = 0;
	char *body;
	int i;

	exp_buf_init(&b);
	exp_family(&b, "iperf3_exporter_build_info", "gauge", "A metric with a "
	    "constant '1' value labeled by the version of the exporter.");
	exp_buf_printf(&b, "iperf3_exporter_build_info{version=\"%s\",iperf3="
	    "\"%s\"} 1\n", PACKAGE_VERSION, IPERF_VERSION_COMPAT);
	pthread_mutex_lock(&ex->lock);
	exp_family(&b, "iperf3_exporter_duration_seconds", "summary",
	    "Duration of collections by the iperf3 exporter.");
	exp_sample(&b, "iperf3_exporter_duration_seconds_sum", "",
	    ex->duration_sum);
	exp_sample(&b, "iperf3_exporter_duration_seconds_count", "",
	    (double)ex->probes);
	exp_family(&b, "iperf3_exporter_errors_total", "counter", "Errors "
	    "raised by the iperf3 exporter.");
	exp_sample(&b, "iperf3_exporter_errors_total", "", (double)ex->errors);
	exp_family(&b, "iperf3_exporter_rejected_total", "counter", "Probe "
	    "requests refused, by HTTP status.");
	for (i = 0; i < REJ_COUNT; i++) {
		(void)snprintf(l, sizeof(l), "code=\"%s\"", codes[i]);
		exp_sample(&b, "iperf3_exporter_rejected_total", l,
		    (double)ex->rejected[i]);
	}
	pthread_mutex_unlock(&ex->lock);
	exp_family(&b, "iperf3_exporter_probes_in_flight", "gauge", "Probes "
	    "running now.");
	exp_sample(&b, "iperf3_exporter_probes_in_flight", "",
	    exp_runner_busy(&ex->runner));
	body = exp_buf_take(&b, &len);
	reply_text(out, body != NULL ? 200 : 500, EXP_CONTENT_TYPE, body, len);
}

static void
on_request(void *arg, const struct http_request *req, struct http_reply *out)
{
	struct exporter *ex = arg;
	const char *path = http_request_path(req);

	if (strcmp(path, "/probe") == 0)
		serve_probe(ex, req, out);
	else if (strcmp(path, "/metrics") == 0)
		serve_metrics(ex, out);
	else if (strcmp(path, "/health") == 0 || strcmp(path, "/ready") == 0)
		reply_text(out, 200, "text/plain; charset=utf-8", str_dup("OK"),
		    2);
	else if (strcmp(path, "/") == 0)
		reply_line(out, 200, "iperf3 exporter: /probe?target=HOST[&port="
		    "5201][&udp_mode=1][&reverse_mode=1][&bitrate=100M]"
		    "[&period=5s][&bind=ADDR], /metrics, /health, /ready");
	else
		reply_line(out, 404, "not found");
	if (out->body == NULL && out->len != 0)
		reply_text(out, 500, "text/plain; charset=utf-8", NULL, 0);
}

/* ---- the process ----------------------------------------------------- */

static int
push_allowed(struct exporter *ex, const struct cidr *c)
{
	struct cidr *grown = realloc(ex->allow, (ex->nallow + 1) *
	    sizeof(*grown));

	if (grown == NULL)
		return -1;
	ex->allow = grown;
	ex->allow[ex->nallow++] = *c;
	return 0;
}

/* One --exporter-allow entry: a prefix, or every address of a name. */
static int
add_allowed(struct exporter *ex, const char *entry, char *err, size_t errlen)
{
	struct addrinfo hints, *res, *ai;
	struct sockaddr_storage ss;
	struct cidr c;
	int rc = 0;

	if (cidr_parse(entry, &c) == 0)
		rc = push_allowed(ex, &c);
	else {
		memset(&hints, 0, sizeof(hints));
		hints.ai_socktype = SOCK_STREAM;
		rc = getaddrinfo(entry, NULL, &hints, &res);
		if (rc != 0) {
			(void)snprintf(err, errlen, "--exporter-allow: cannot "
			    "resolve '%s': %s", entry, gai_strerror(rc));
			return -1;
		}
		for (ai = res; ai != NULL && rc == 0; ai = ai->ai_next) {
			if (ai->ai_addrlen > sizeof(ss))
				continue;
			memset(&ss, 0, sizeof(ss));
			memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
			cidr_of_addr(&ss, 32, 128, &c);
			if (c.family != AF_UNSPEC)
				rc = push_allowed(ex, &c);
		}
		freeaddrinfo(res);
	}
	if (rc != 0)
		(void)snprintf(err, errlen, "out of memory");
	return rc;
}

/* The options into ex; -1 with the reason in err. */
static int
configure(struct exporter *ex, const struct iperf_local *o, char *err,
    size_t errlen)
{
	static const char *const loopback[] = { "127.0.0.0/8", "::1/128" };
	int i, n = o->exporter_allow_count;

	for (i = 0; i < (n > 0 ? n : 2); i++)
		if (add_allowed(ex, n > 0 ? o->exporter_allow[i] : loopback[i],
		    err, errlen) == -1)
			return -1;
	ex->policy.allow = ex->allow;
	ex->policy.nallow = ex->nallow;
	ex->policy.max_bitrate = o->exporter_max_bitrate;
	ex->max_period_s = o->exporter_max_period > 0 ?
	    o->exporter_max_period : DEFAULT_MAX_PERIOD_S;
	ex->max_probes = o->exporter_max_probes > 0 ? o->exporter_max_probes :
	    DEFAULT_MAX_PROBES;
	return 0;
}

/* Listens and says so; the server, or NULL with the reason in err. */
static struct http_server *
listen_on(struct exporter *ex, const char *spec, char *err, size_t errlen)
{
	struct http_limits lim = { 0, 0, 0 };
	struct http_server *s;
	char addr[64];
	int port;

	if (http_parse_listen(spec, "127.0.0.1", addr, sizeof(addr),
	    &port) == -1) {
		(void)snprintf(err, errlen, "invalid value for --exporter: '%s'",
		    spec);
		return NULL;
	}
	/* Room for the probes and the scrapes of /metrics; a connection's
	 * idle limit above the longest probe. */
	lim.max_connections = (unsigned int)ex->max_probes * 2 + 16;
	lim.timeout_s = (unsigned int)(ex->max_period_s + MAX_SLACK_S + 5);
	s = http_start(addr, port, &lim, on_request, ex, err, errlen);
	if (s == NULL)
		return NULL;
	(void)iperf_printf(ex->log, "Exporter listening on %s%s%s:%d\n",
	    strchr(addr, ':') != NULL ? "[" : "", addr,
	    strchr(addr, ':') != NULL ? "]" : "", http_port(s));
	(void)iflush(ex->log);
	return s;
}

int
exporter_main(struct iperf_test *test)
{
	struct exporter ex;
	struct http_server *s = NULL;
	sigset_t set;
	char err[300];
	int sig, rc = 1;

	memset(&ex, 0, sizeof(ex));
	ex.log = test;
	(void)pthread_mutex_init(&ex.lock, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	(void)pthread_sigmask(SIG_BLOCK, &set, NULL);
	err[0] = '\0';
	if (configure(&ex, test->opt, err, sizeof(err)) == 0 &&
	    exp_runner_init(&ex.runner, ex.max_probes) == 0) {
		s = listen_on(&ex, test->opt->exporter_listen, err, sizeof(err));
		if (s != NULL) {
			if (iperf_get_test_interrupt_signal(test) == 0)
				(void)sigwait(&set, &sig);
			exp_runner_stop(&ex.runner);
			http_stop(s);
			rc = 0;
		}
		exp_runner_free(&ex.runner);
	}
	if (rc != 0)
		iperf_err(test, "error - %s", err[0] != '\0' ? err :
		    "out of memory");
	free(ex.allow);
	pthread_mutex_destroy(&ex.lock);
	return rc;
}
