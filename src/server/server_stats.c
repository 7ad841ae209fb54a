/*
 * server_stats.c - the registry of server_stats.h and its text
 * exposition (Prometheus format 0.0.4: # HELP and # TYPE before each
 * family, one sample a line).  Every family is written even when nothing
 * was counted yet: the known labels with 0.
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "server_stats.h"
#include "util.h"
#include "banned.h"

#define N_PROTO 4 /* the last is "other" */
#define N_RESULT 2
#define LABELS_MAX 32
#define LABEL_LEN 32 /* with the NUL */

static const char *const protocols[N_PROTO] = { "TCP", "UDP", "SCTP", "other" };
static const char *const results[N_RESULT] = { "ok", "error" };
static const double buckets[] = { 1, 2, 5, 10, 30, 60, 120, 300, 600 };
#define N_BUCKET (sizeof(buckets) / sizeof(buckets[0]))
static const char *const known_reasons[] = { "busy", "denied", "per_ip",
	"per_prefix", "accept_rate", "caps", "pending", NULL };
static const char *const known_limits[] = { "duration", "bytes", "streams",
	"bitrate", NULL };

/* Counters by a free label: the first LABELS_MAX names, then "other". */
struct label_counts {
	char name[LABELS_MAX][LABEL_LEN];
	uint64_t count[LABELS_MAX];
	int n;
	uint64_t other;
};

struct server_stats {
	pthread_mutex_t lock;
	double start_time;
	uint64_t running[N_PROTO];
	uint64_t tests[N_PROTO][N_RESULT];
	uint64_t bytes_sent, bytes_received;
	uint64_t in_bucket[N_BUCKET + 1]; /* per bucket, not cumulative; +Inf last */
	uint64_t duration_count;
	double duration_sum;
	struct label_counts refusals, limits;
};

/* A growing text; `failed` once memory ran out. */
struct text {
	char *p;
	size_t len, cap;
	int failed;
};

static void put(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *np;

	if (t->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->failed = 1;
		return;
	}
	if ((size_t)n >= t->cap - t->len) {
		t->cap = (t->cap + (size_t)n + 1) * 2;
		np = realloc(t->p, t->cap);
		if (np == NULL) {
			t->failed = 1;
			return;
		}
		t->p = np;
		va_start(ap, fmt);
		n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
	}
	t->len += (size_t)n;
}

static void
family(struct text *t, const char *name, const char *type, const char *help)
{
	put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* 1 to LABEL_LEN - 1 characters of [a-z_]. */
static int
label_ok(const char *s)
{
	size_t i;

	if (s == NULL || s[0] == '\0')
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (i >= LABEL_LEN - 1 || ((s[i] < 'a' || s[i] > 'z') && s[i] != '_'))
			return 0;
	return 1;
}

static void
label_count(struct label_counts *lc, const char *name, uint64_t add)
{
	int i;

	if (!label_ok(name) || strcmp(name, "other") == 0) {
		lc->other += add;
		return;
	}
	for (i = 0; i < lc->n; i++)
		if (strcmp(lc->name[i], name) == 0) {
			lc->count[i] += add;
			return;
		}
	if (lc->n == LABELS_MAX) {
		lc->other += add;
		return;
	}
	(void)str_copy(lc->name[lc->n], name, LABEL_LEN);
	lc->count[lc->n++] = add;
}

static double
now_wall(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct server_stats *
server_stats_new(void)
{
	struct server_stats *s = calloc(1, sizeof(*s));
	int i;

	if (s == NULL)
		return NULL;
	if (pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s);
		return NULL;
	}
	s->start_time = now_wall();
	for (i = 0; known_reasons[i] != NULL; i++)
		label_count(&s->refusals, known_reasons[i], 0);
	for (i = 0; known_limits[i] != NULL; i++)
		label_count(&s->limits, known_limits[i], 0);
	return s;
}

void
server_stats_free(struct server_stats *s)
{
	if (s == NULL)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static int
proto_index(const char *protocol)
{
	int i;

	for (i = 0; protocol != NULL && i < N_PROTO - 1; i++)
		if (strcmp(protocol, protocols[i]) == 0)
			return i;
	return N_PROTO - 1;
}

void
server_stats_test_started(struct server_stats *s, const char *protocol)
{
	pthread_mutex_lock(&s->lock);
	s->running[proto_index(protocol)]++;
	pthread_mutex_unlock(&s->lock);
}

void
server_stats_test_ended(struct server_stats *s, const char *protocol,
    const char *result, double seconds, uint64_t bytes_sent,
    uint64_t bytes_received)
{
	int p = proto_index(protocol);
	int r = result != NULL && strcmp(result, "ok") == 0 ? 0 : 1;
	size_t b = 0;

	if (!(seconds > 0)) /* negative or NaN */
		seconds = 0;
	while (b < N_BUCKET && seconds > buckets[b])
		b++;
	pthread_mutex_lock(&s->lock);
	if (s->running[p] > 0)
		s->running[p]--;
	s->tests[p][r]++;
	s->bytes_sent += bytes_sent;
	s->bytes_received += bytes_received;
	s->in_bucket[b]++;
	s->duration_count++;
	s->duration_sum += seconds;
	pthread_mutex_unlock(&s->lock);
}

void
server_stats_refused(struct server_stats *s, const char *reason)
{
	pthread_mutex_lock(&s->lock);
	label_count(&s->refusals, reason, 1);
	pthread_mutex_unlock(&s->lock);
}

void
server_stats_limit_hit(struct server_stats *s, const char *limit)
{
	pthread_mutex_lock(&s->lock);
	label_count(&s->limits, limit, 1);
	pthread_mutex_unlock(&s->lock);
}

/* Tests running and ended, by protocol ("other" only once counted). */
static void
render_tests(struct text *t, const struct server_stats *s)
{
	int p, r;

	family(t, "iperf3_server_tests_running", "gauge",
	    "Tests running now, by protocol.");
	for (p = 0; p < N_PROTO; p++)
		if (p < N_PROTO - 1 || s->running[p] > 0)
			put(t, "iperf3_server_tests_running{protocol=\"%s\"} %llu\n",
			    protocols[p], (unsigned long long)s->running[p]);
	family(t, "iperf3_server_tests_total", "counter",
	    "Tests ended, by protocol and result.");
	for (p = 0; p < N_PROTO; p++)
		for (r = 0; r < N_RESULT; r++)
			if (p < N_PROTO - 1 || s->tests[p][0] + s->tests[p][1] > 0)
				put(t, "iperf3_server_tests_total{protocol=\"%s\","
				    "result=\"%s\"} %llu\n", protocols[p], results[r],
				    (unsigned long long)s->tests[p][r]);
}

static void
render_labels(struct text *t, const char *name, const char *label,
    const char *help, const struct label_counts *lc)
{
	int i;

	family(t, name, "counter", help);
	for (i = 0; i < lc->n; i++)
		put(t, "%s{%s=\"%s\"} %llu\n", name, label, lc->name[i],
		    (unsigned long long)lc->count[i]);
	if (lc->other > 0)
		put(t, "%s{%s=\"other\"} %llu\n", name, label,
		    (unsigned long long)lc->other);
}

static void
render_duration(struct text *t, const struct server_stats *s)
{
	const char *name = "iperf3_server_test_duration_seconds";
	uint64_t cum = 0;
	size_t b;

	family(t, name, "histogram", "Duration of the tests ended, in seconds.");
	for (b = 0; b < N_BUCKET; b++) {
		cum += s->in_bucket[b];
		put(t, "%s_bucket{le=\"%g\"} %llu\n", name, buckets[b],
		    (unsigned long long)cum);
	}
	cum += s->in_bucket[N_BUCKET];
	put(t, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)cum);
	put(t, "%s_sum %.15g\n", name, s->duration_sum);
	put(t, "%s_count %llu\n", name, (unsigned long long)s->duration_count);
}

static void
render_server(struct text *t, const struct server_stats *s)
{
	render_tests(t, s);
	render_labels(t, "iperf3_server_refusals_total", "reason",
	    "Connections or tests refused, by reason.", &s->refusals);
	family(t, "iperf3_server_bytes_total", "counter",
	    "Bytes of the tests ended, by direction as the server counted them.");
	put(t, "iperf3_server_bytes_total{direction=\"sent\"} %llu\n",
	    (unsigned long long)s->bytes_sent);
	put(t, "iperf3_server_bytes_total{direction=\"received\"} %llu\n",
	    (unsigned long long)s->bytes_received);
	render_duration(t, s);
	render_labels(t, "iperf3_server_limits_hit_total", "limit",
	    "Tests stopped by a server limit, by limit.", &s->limits);
	family(t, "iperf3_server_start_time_seconds", "gauge",
	    "Start time of the server since the Unix epoch, in seconds.");
	put(t, "iperf3_server_start_time_seconds %.15g\n", s->start_time);
}

/* Resident memory in bytes (-1 where /proc is not there). */
static double
resident_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long size, resident;
	long page = sysconf(_SC_PAGESIZE);
	int n;

	if (f == NULL)
		return -1;
	n = fscanf(f, "%lu %lu", &size, &resident);
	fclose(f);
	if (n != 2 || page <= 0)
		return -1;
	return (double)resident * (double)page;
}

static void
render_process(struct text *t)
{
	struct rlimit rl;
	struct rusage ru;
	long fds = open_fd_count();
	double rss = resident_bytes();

	if (fds >= 0) {
		family(t, "process_open_fds", "gauge", "Number of open file descriptors.");
		put(t, "process_open_fds %ld\n", fds);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		family(t, "process_max_fds", "gauge",
		    "Maximum number of open file descriptors.");
		put(t, "process_max_fds %llu\n", (unsigned long long)rl.rlim_cur);
	}
	if (rss >= 0) {
		family(t, "process_resident_memory_bytes", "gauge",
		    "Resident memory size in bytes.");
		put(t, "process_resident_memory_bytes %.15g\n", rss);
	}
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		family(t, "process_cpu_seconds_total", "counter",
		    "Total user and system CPU time spent in seconds.");
		put(t, "process_cpu_seconds_total %.6f\n",
		    (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	}
}

int
server_stats_render(struct server_stats *s, char **text, size_t *len)
{
	struct text t = { NULL, 0, 4096, 0 };

	t.p = malloc(t.cap);
	if (t.p == NULL)
		return -1;
	t.p[0] = '\0';
	pthread_mutex_lock(&s->lock);
	render_server(&t, s);
	pthread_mutex_unlock(&s->lock);
	render_process(&t);
	if (t.failed) {
		free(t.p);
		return -1;
	}
	*text = t.p;
	*len = t.len;
	return 0;
}
