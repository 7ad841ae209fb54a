/*
 * server_stats.h - a server's live figures (tests running and done,
 * refusals, bytes, test durations, limits hit, the process's own), kept
 * under a mutex so that any thread may count and any thread render them
 * as Prometheus text exposition format 0.0.4.  No series carries a
 * client's address.
 */
#ifndef IPERF_SERVER_STATS_H
#define IPERF_SERVER_STATS_H

#include <stddef.h>
#include <stdint.h>

struct server_stats;

/* NULL when out of memory.  The start time is the time of the call. */
struct server_stats *server_stats_new(void);
void server_stats_free(struct server_stats *s);

/* protocol: "TCP", "UDP", "SCTP" (anything else counts as "other"). */
void server_stats_test_started(struct server_stats *s, const char *protocol);
/* result: "ok" or "error" (anything else counts as "error"); seconds:
 * the test's duration; bytes as the server counted them. */
void server_stats_test_ended(struct server_stats *s, const char *protocol,
    const char *result, double seconds, uint64_t bytes_sent,
    uint64_t bytes_received);
/* reason: "busy", "denied", "per_ip", "per_prefix", "accept_rate", "caps",
 * "pending", or another label of 1 to 31 characters of [a-z_]; at most 32
 * distinct reasons are kept, the rest (and anything malformed) count as
 * "other". */
void server_stats_refused(struct server_stats *s, const char *reason);
/* limit: "duration", "bytes", "streams", "bitrate", or another label as
 * for server_stats_refused(). */
void server_stats_limit_hit(struct server_stats *s, const char *limit);

/* The exposition text in *text (malloc'd, NUL-terminated; *len without
 * the NUL).  0, or -1 when out of memory (*text untouched). */
int server_stats_render(struct server_stats *s, char **text, size_t *len);

#endif /* IPERF_SERVER_STATS_H */
