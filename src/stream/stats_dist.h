/*
 * stats_dist.h - distributions beside the byte counters (loop thread):
 *
 *  - rtt_us: a TCP sender's smoothed RTT (TCP_INFO tcpi_rtt, us), read
 *    by the stream's worker itself right before a send, at most every
 *    STATS_RTT_PERIOD_US as judged by the clock its pacing reads anyway
 *    (no thread is woken for it and the socket is not shared: a timer in
 *    the loop thread cost 3-10 % of loopback TCP throughput on two cores).
 *    A send that blocks longer than that (a slow path with big blocks)
 *    delays the next sample until it returns.  Samples go into
 *    sp->rtt_live under the stream's lock; the loop thread takes them out
 *    once per interval (a swap) and adds them to the stream's total
 *    (sp->rtt_total, omit period excluded);
 *  - delay_var_us: a UDP receiver's one-way delay variation, recorded by
 *    the worker per datagram into sp->delay (delayvar.h), taken out once
 *    per interval under the stream's lock (a swap, no copy) into
 *    sp->delay_taken and added to sp->delay_total;
 *  - lost_in_receiver: the receiver's socket drop count (SO_RXQ_OVFL),
 *    a counter in sp->live with the others (stats.c).
 *
 * What is reported where: see report_stats.c.  Both roles measure and
 * report them in their own output.  What goes over the wire carries them
 * only for a client of ours that asked for "stats" (ext.h): the server's
 * results document, and the server output it sends for
 * --get-server-output (the JSON copy is stripped of the keys and the text
 * hint line is not captured for any other client), so a stock client
 * sees exactly what a stock server would send.
 */
#ifndef IPERF_STATS_DIST_H
#define IPERF_STATS_DIST_H

#include <stdint.h>

struct iperf_test;
struct iperf_stream;
struct interval_result;
struct latsum;

#define STATS_RTT_PERIOD_US 5000

struct cJSON;

/* Server: the client is ours and asked for "stats" (see above). */
int stats_dist_peer_asked(const struct iperf_test *test);
/* Remove our keys (rtt_us, delay_var_us, lost_in_receiver) from every
 * object of a JSON tree. */
void stats_dist_strip(struct cJSON *doc);

void stats_dist_stream_init(struct iperf_stream *sp);
void stats_dist_stream_release(struct iperf_stream *sp);

/* TEST_START, before the workers start: which streams sample the RTT. */
void stats_dist_start(struct iperf_test *test);
/* The RTT the interval's end read for the stock figures (min_rtt,
 * max_rtt, mean_rtt; stats.c): a sample of rtt_us too, so that rtt_us
 * holds every sample those figures come from (0, no RTT yet, is none). */
void stats_dist_rtt_add(struct iperf_stream *sp, uint64_t rtt_us);
/* Worker of a sending stream with sp->rtt_on, when now_us reached
 * sp->rtt_due_us: one RTT sample. */
void stats_dist_rtt_sample(struct iperf_stream *sp, uint64_t now_us);
/* One interval of every stream was taken (stats_sample): move each
 * stream's samples into its newest interval when `kept` (and into the
 * totals unless omitted), and the senders' RTT sum into
 * run.rtt_ival_sum. */
void stats_dist_sample(struct iperf_test *test, int kept, int omitted);
/* End of the omit period: what was sampled since the last interval is
 * dropped. */
void stats_dist_omit_end(struct iperf_test *test);

/* End-of-test summaries; 0 when the figure does not exist here. */
int stats_dist_rtt(const struct iperf_stream *sp, struct latsum *out);
int stats_dist_delay(const struct iperf_stream *sp, struct latsum *out);
/* RTT of all the sending streams of this end together. */
int stats_dist_rtt_sum(const struct iperf_test *test, struct latsum *out);
#ifdef HAVE_OWD
/* --owd, a UDP receiving stream: its datagrams' transits (arrival - send
 * time, two clocks) as *ref_us (the smallest, int64 microseconds) and
 * out (each figure above *ref_us); 0 without any. */
int stats_dist_owd_raw(const struct iperf_stream *sp, int64_t *ref_us,
    struct latsum *out);
#endif
#ifdef HAVE_PEERIVAL
/* Delay variation of all the receiving streams of this end together, each
 * above its own fastest datagram (dv_hist_merge_shifted); also each
 * interval's, into run.delay_ival_sum by stats_dist_sample(). */
int stats_dist_delay_sum(const struct iperf_test *test, struct latsum *out);
#endif

#endif /* IPERF_STATS_DIST_H */
