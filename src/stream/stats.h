/*
 * stats.h - per-interval sampling, the omit period and end-of-test figures.
 * Runs on the loop thread; reads worker counters through stream_snapshot().
 *
 * Figures the reporters use, per stream (all after the omit period):
 *   sp->last_interval                     the newest reporting interval
 *                                         (the only one kept)
 *   stats_local_bytes(sp)                 bytes this end sent or received
 *   stats_local_seconds(sp)               this end's elapsed time (end_time)
 *   sp->retransmits, sp->max_snd_cwnd, ... TCP sender figures
 *   sp->peer                              what the other end reported
 */
#ifndef IPERF_STATS_H
#define IPERF_STATS_H

#include <stdint.h>

struct iperf_test;
struct iperf_stream;

/* TEST_START: baselines and the stream clocks start at `now`. */
void stats_start(struct iperf_test *test, uint64_t now_us);
/* Take one interval for every stream; returns 1 if it was kept. */
int stats_sample(struct iperf_test *test, uint64_t now_us, int final);
/* Before the streams are shut down: keep each sender's figures that only
 * a live connection gives (proto sender_info), for the final interval. */
void stats_keep_sender_info(struct iperf_test *test);
/* End of the omit period: counters restart, the interval clock restarts. */
void stats_omit_end(struct iperf_test *test, uint64_t now_us);

uint64_t stats_local_bytes(const struct iperf_stream *sp);
double stats_local_seconds(const struct iperf_stream *sp);
/* UDP: datagram figures of this end after the omit period. */
int64_t stats_local_packets(const struct iperf_stream *sp);
int64_t stats_local_lost(const struct iperf_stream *sp);
uint64_t stats_local_ooo(const struct iperf_stream *sp);
/* UDP receiver: datagrams the socket dropped (sp->rxq_drops_known). */
uint64_t stats_local_rxq_drops(const struct iperf_stream *sp);

#endif /* IPERF_STATS_H */
