/*
 * server_admit.h - whom a --max-tests dispatcher (server_multi.c) serves.
 *
 * Two moments: right after accept(), before anything is read (the
 * source's address against --allow/--deny/--allow-file, its
 * --accept-rate bucket, and its connections not yet admitted or its
 * tests against --max-tests-per-ip/-per-prefix), and when a test's
 * parameters are accepted and it asks for a slot (--max-tests, the
 * per-source limits, the thread and file-descriptor budgets).  A
 * refusal is one of the reasons below: a label (metrics, audit log)
 * and a sentence (the server's output).
 */
#ifndef IPERF_SERVER_ADMIT_H
#define IPERF_SERVER_ADMIT_H

#include <stddef.h>
#include <stdint.h>

struct acl;
struct iperf_local;
struct source_table;
struct sockaddr_storage;

enum gate_reason {
	GATE_OK = 0,
	GATE_DENIED,      /* --allow / --deny / --allow-file */
	GATE_ACCEPT_RATE, /* --accept-rate */
	GATE_PENDING,     /* too many connections not yet admitted */
	GATE_PER_IP,      /* --max-tests-per-ip */
	GATE_PER_PREFIX,  /* --max-tests-per-prefix */
	GATE_BUSY,        /* every --max-tests slot in use, or no room */
	GATE_ONE_OFF,     /* -1: the one test is served */
	GATE_THREADS,     /* the thread budget */
	GATE_FDS,         /* the file-descriptor limit */
	GATE_TURN,        /* no turn to set up UDP/SCTP streams in time */
	GATE_CAPS,        /* --server-max-duration, --server-bitrate-limit... */
	GATE_PARAMS,      /* other parameters this server refuses */
	GATE_COUNT
};

/* "denied", "accept_rate", ... (metrics label, audit "reason"). */
const char *gate_label(enum gate_reason r);
/* What the server's output says. */
const char *gate_text(enum gate_reason r);

/* A source's connections and tests: its address (host) and its /24 or
 * /64 (prefix). */
struct gate_counts {
	int host_pending, prefix_pending; /* accepted, not yet admitted */
	int host_active, prefix_active;   /* holding a slot */
	int host_wants_data;              /* a test of this address is
					   * setting up its streams */
};

struct server_gate {
	struct acl *acl;              /* NULL: everyone */
	struct source_table *buckets; /* --accept-rate, per address */
	uint64_t pruned_us;
};

/* Load the lists (the --allow-file read now).  0, or -1 with a message. */
int gate_open(struct server_gate *g, const struct iperf_local *o, char *err,
    size_t errlen);
void gate_close(struct server_gate *g);
/* SIGHUP: read --allow-file again; on failure the previous list stays
 * and -1 comes back with the message. */
int gate_reload(struct server_gate *g, const struct iperf_local *o, char *err,
    size_t errlen);
/* Right after accept(). */
enum gate_reason gate_at_accept(struct server_gate *g,
    const struct iperf_local *o, const struct sockaddr_storage *ss,
    const struct gate_counts *c, uint64_t now_us);
/* 1 when a and b are in one /24 (IPv4, or mapped) or /64 (IPv6). */
int gate_same_prefix(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b);
/* A test's parameters were accepted: may it have a slot?  active: tests
 * holding one; threads_used of the server's budget, threads the test's
 * own.  (The caller checks --one-off.) */
enum gate_reason gate_at_slot(const struct iperf_local *o, int active,
    const struct gate_counts *c, int threads_used, int threads);

/* Connections not yet admitted that one address may hold, when a
 * per-source limit is set: its limit and this many more. */
#define GATE_PENDING_SLACK 2
/* Threads the tests of one server may run in all (one per test and one
 * per stream), and file descriptors kept free for everything else. */
#define GATE_THREAD_BUDGET 1024
#define GATE_FD_RESERVE 32

#endif /* IPERF_SERVER_ADMIT_H */
