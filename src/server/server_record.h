/*
 * server_record.h - what a --max-tests dispatcher records of what it
 * serves: the audit trail (--audit-log, one JSON line per test and per
 * refusal) and the live figures served at /metrics (--metrics-listen).
 * Both are fed by the same calls, so they add up; either may be off.
 */
#ifndef IPERF_SERVER_RECORD_H
#define IPERF_SERVER_RECORD_H

#include "server_admit.h"

struct audit;
struct http_server;
struct iperf_test;
struct server_stats;
struct sockaddr_storage;

struct server_record {
	struct audit *audit;
	struct server_stats *stats;
	struct http_server *http;
};

/* Open the audit log and the metrics listener the options ask for.
 * 0, or -1 with the error recorded on s. */
int record_open(struct server_record *r, struct iperf_test *s);
void record_close(struct server_record *r);
/* SIGHUP: the audit log opened again (logrotate). */
void record_reopen(struct server_record *r, struct iperf_test *s);
/* A connection refused right after accept() (t NULL), or a test refused
 * after its parameters (t).  port: the port it came to. */
void record_refused(struct server_record *r, struct iperf_test *s,
    const struct sockaddr_storage *ss, int port, enum gate_reason why,
    struct iperf_test *t);
/* Why a test that failed before its slot was refused: its caps, or its
 * parameters. */
enum gate_reason record_refusal_reason(const struct iperf_test *t);
/* A test got its slot. */
void record_started(struct server_record *r, struct iperf_test *t);
/* A test that had its slot has ended (t still holds its run). */
void record_ended(struct server_record *r, struct iperf_test *s,
    struct iperf_test *t);

#endif /* IPERF_SERVER_RECORD_H */
