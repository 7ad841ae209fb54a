/*
 * peer_ival.h - our server's interval figures, live to our client (ext.h
 * "peer_intervals"; built with configure's peerival switch).
 *
 * Some figures only the other end measures: a TCP sender's RTT (the
 * server's under -R and --bidir), a UDP receiver's delay variation,
 * jitter and loss (the server's on an upload).  The results document
 * brings them at the end; a JSON interval written as it goes (-J,
 * --json-stream) or drawn (--plot) needs them live.
 *
 * Server: right after each of its intervals (stats_cb), when the client
 * asked, the state byte EXT_STATE_PEER_IVAL and one document framed as
 * the parameters (u32 big-endian length, JSON of at most
 * EXT_PEER_IVAL_MAX bytes; a bigger one is not sent):
 *
 *   {"i": N, "streams": [{"id": 1, "rtt_us": {...}, "delay_var_us": {...},
 *    "jitter_ms": x, "lost_packets": n, "packets": n}, ...],
 *    "sum": {...the same keys, over its sending / receiving streams}}
 *
 * N counts the intervals from 1 (omitted ones too), as each end takes
 * them on its own clock; only the keys the server measured are there
 * (summaries as in the results: samples, min, p50, p90, p99, max).
 *
 * Client: its interval N is held back until the server's N arrives, or
 * at most min(interval / 2, 250 ms), then reported with the figures
 * attached (report_stats.c).  The final interval does not wait.  A
 * document that is not JSON, lacks "i" or exceeds the limit is a
 * protocol error (IEMESSAGE).
 */
#ifndef IPERF_PEER_IVAL_H
#define IPERF_PEER_IVAL_H

#include <stddef.h>

struct iperf_test;

#define PEER_IVAL_MAX_WAIT_US 250000

/* An interval was taken: the client reports it now or holds it back; the
 * server reports it and sends its figures when asked. */
void peer_ival_interval(struct iperf_test *test);
/* Before the final interval: a held one is reported, and the final one
 * gets no figures. */
void peer_ival_final(struct iperf_test *test);
/* Client: byte EXT_STATE_PEER_IVAL arrived; 0 (the caller expects the
 * document next), or -1 (IEMESSAGE). */
int peer_ival_state(struct iperf_test *test);
/* Client: whether the JSON unit now is such a document. */
int peer_ival_expected(const struct iperf_test *test);
/* Client: the document; 0 (the caller expects a state next), or -1
 * (IEMESSAGE). */
int peer_ival_on_doc(struct iperf_test *test, const char *json, size_t len);

#endif /* IPERF_PEER_IVAL_H */
