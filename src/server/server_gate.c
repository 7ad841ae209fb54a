/* server_gate.c - the dispatcher's checks right after accept(): the
 * --allow/--deny lists, the --accept-rate bucket of the address and the
 * per-source limits (see server_admit.h).  Left out, with the rest of
 * the operator's server, by configure --disable-operator
 * (operator_stub.c). */
#include "config.h"

#include <sys/socket.h>
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

int
gate_same_prefix(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b)
{
	struct cidr x, y;

	cidr_of_addr(a, 24, 64, &x);
	cidr_of_addr(b, 24, 64, &y);
	return cidr_equal(&x, &y);
}
