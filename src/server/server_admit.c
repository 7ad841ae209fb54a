/* server_admit.c - whom the dispatcher serves (see server_admit.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <dirent.h>
#include <stdio.h>

#include "acl.h"
#include "cidr.h"
#include "iperf.h"
#include "server_admit.h"
#include "sources.h"
#include "tbucket.h"
#include "banned.h"

/* A bucket nobody used for this long is forgotten (it would be full). */
#define GATE_BUCKET_IDLE_US (600 * 1000000ULL)
#define GATE_PRUNE_EVERY_US (10 * 1000000ULL)

static const struct {
	const char *label, *text;
} reasons[GATE_COUNT] = {
	[GATE_OK] = { "ok", "admitted" },
	[GATE_DENIED] = { "denied", "its address is not allowed "
			  "(--allow, --deny, --allow-file)" },
	[GATE_ACCEPT_RATE] = { "accept_rate", "its address opens connections "
			       "faster than --accept-rate" },
	[GATE_PENDING] = { "pending", "its address has too many connections "
			   "not yet admitted" },
	[GATE_PER_IP] = { "per_ip", "this address has all its slots "
			  "(--max-tests-per-ip)" },
	[GATE_PER_PREFIX] = { "per_prefix", "this network has all its slots "
			      "(--max-tests-per-prefix)" },
	[GATE_BUSY] = { "busy", "every test slot (--max-tests) is in use" },
	[GATE_ONE_OFF] = { "one_off", "the one test of --one-off is served" },
	[GATE_THREADS] = { "threads", "the test would exceed the server's "
			   "thread budget" },
	[GATE_FDS] = { "fds", "the test would exceed the server's file "
		       "descriptors" },
	[GATE_TURN] = { "setup_turn", "no turn to set up its streams in time" },
	[GATE_CAPS] = { "caps", "the test asks for more than the server's "
			"caps allow" },
	[GATE_PARAMS] = { "params", "its parameters were refused" },
};

const char *
gate_label(enum gate_reason r)
{
	return r < GATE_COUNT ? reasons[r].label : "other";
}

const char *
gate_text(enum gate_reason r)
{
	return r < GATE_COUNT ? reasons[r].text : "refused";
}

static int
load_lists(struct acl *a, const struct iperf_local *o, char *err,
    size_t errlen)
{
	int i;

	for (i = 0; i < o->allow_count; i++)
		if (acl_add(a, 0, o->allow[i]) == -1) {
			(void)snprintf(err, errlen, "bad --allow %s", o->allow[i]);
			return -1;
		}
	for (i = 0; i < o->deny_count; i++)
		if (acl_add(a, 1, o->deny[i]) == -1) {
			(void)snprintf(err, errlen, "bad --deny %s", o->deny[i]);
			return -1;
		}
	if (o->allow_file != NULL &&
	    acl_load_file(a, o->allow_file, err, errlen) == -1)
		return -1;
	return 0;
}

int
gate_open(struct server_gate *g, const struct iperf_local *o, char *err,
    size_t errlen)
{
	g->acl = NULL;
	g->buckets = NULL;
	g->pruned_us = 0;
	if (o->allow_count > 0 || o->deny_count > 0 || o->allow_file != NULL) {
		g->acl = acl_new();
		if (g->acl == NULL || load_lists(g->acl, o, err, errlen) == -1) {
			if (g->acl == NULL)
				(void)snprintf(err, errlen, "out of memory");
			gate_close(g);
			return -1;
		}
	}
	if (o->accept_rate > 0) {
		g->buckets = sources_new();
		if (g->buckets == NULL) {
			(void)snprintf(err, errlen, "out of memory");
			gate_close(g);
			return -1;
		}
	}
	return 0;
}

void
gate_close(struct server_gate *g)
{
	if (g->acl != NULL)
		acl_free(g->acl);
	if (g->buckets != NULL)
		sources_free(g->buckets);
	g->acl = NULL;
	g->buckets = NULL;
}

int
gate_reload(struct server_gate *g, const struct iperf_local *o, char *err,
    size_t errlen)
{
	if (g->acl == NULL || o->allow_file == NULL)
		return 0;
	return acl_load_file(g->acl, o->allow_file, err, errlen);
}

/* One token of the source's --accept-rate bucket: 0 taken, -1 empty. */
static int
take_token(struct server_gate *g, const struct iperf_local *o,
    const struct sockaddr_storage *ss, uint64_t now_us)
{
	struct cidr key;
	struct source *src;

	if (now_us - g->pruned_us >= GATE_PRUNE_EVERY_US) {
		sources_prune(g->buckets, now_us, GATE_BUCKET_IDLE_US);
		g->pruned_us = now_us;
	}
	cidr_of_addr(ss, 32, 128, &key);
	src = sources_get(g->buckets, &key, now_us);
	if (src == NULL)
		return -1;
	if (!src->bucket_set) {
		tbucket_init(&src->bucket, o->accept_rate, o->accept_burst,
		    now_us);
		src->bucket_set = 1;
	}
	return tbucket_take(&src->bucket, now_us) ? 0 : -1;
}

/* A source already at its limit of tests, or of connections waiting to
 * be admitted (not while one of its tests sets up its streams: those
 * connections are its data). */
static enum gate_reason
source_limits(const struct iperf_local *o, const struct gate_counts *c)
{
	if (c->host_wants_data)
		return GATE_OK;
	if (o->max_tests_per_ip > 0) {
		if (c->host_active >= o->max_tests_per_ip)
			return GATE_PER_IP;
		if (c->host_pending >= o->max_tests_per_ip + GATE_PENDING_SLACK)
			return GATE_PENDING;
	}
	if (o->max_tests_per_prefix > 0) {
		if (c->prefix_active >= o->max_tests_per_prefix)
			return GATE_PER_PREFIX;
		if (c->prefix_pending >=
		    o->max_tests_per_prefix + GATE_PENDING_SLACK)
			return GATE_PENDING;
	}
	return GATE_OK;
}

enum gate_reason
gate_at_accept(struct server_gate *g, const struct iperf_local *o,
    const struct sockaddr_storage *ss, const struct gate_counts *c,
    uint64_t now_us)
{
	if (g->acl != NULL && !acl_permits(g->acl, ss))
		return GATE_DENIED;
	if (g->buckets != NULL && take_token(g, o, ss, now_us) == -1)
		return GATE_ACCEPT_RATE;
	return source_limits(o, c);
}

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

enum gate_reason
gate_at_slot(const struct iperf_local *o, int active,
    const struct gate_counts *c, int threads_used, int threads)
{
	int cap = o->max_tests > 1 ? o->max_tests : 1;
	struct rlimit rl;
	int fds;

	if (active >= cap)
		return GATE_BUSY;
	if (o->max_tests_per_ip > 0 && c->host_active >= o->max_tests_per_ip)
		return GATE_PER_IP;
	if (o->max_tests_per_prefix > 0 &&
	    c->prefix_active >= o->max_tests_per_prefix)
		return GATE_PER_PREFIX;
	if (threads_used + threads > GATE_THREAD_BUDGET)
		return GATE_THREADS;
	fds = open_fds();
	if (fds >= 0 && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)fds + (rlim_t)threads + GATE_FD_RESERVE > rl.rlim_cur)
		return GATE_FDS;
	return GATE_OK;
}
