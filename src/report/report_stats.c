/*
 * report_stats.c - the figures of stats_dist.h in the reports:
 *
 *   rtt_us           {samples, min, p50, p90, p99, max}: a TCP sender's
 *                    RTT samples (us); intervals[].streams[i] and
 *                    intervals[].sum of the sending side, end.streams[i].
 *                    sender and end.sum_sent (local, or our server's under
 *                    -R/--bidir when it sent them)
 *   delay_var_us     {samples, p50, p90, p99, max}: a UDP receiver's one-way
 *                    delay above the test's fastest datagram (us);
 *                    intervals[].streams[i] (receiver) and end.streams[i].udp;
 *                    with peerival also intervals[].sum, end.sum and
 *                    end.sum_received (each stream above its own fastest)
 *   lost_in_receiver datagrams the receiving socket dropped (SO_RXQ_OVFL):
 *                    beside lost_packets in intervals[].streams[i],
 *                    intervals[].sum, end.streams[i].udp, end.sum and
 *                    end.sum_received
 *
 * With peerival, a client's JSON intervals also carry what our server
 * measured on the other end of each stream (session/peer_ival.h): rtt_us
 * of the streams it sends (-R, --bidir) and their sum; delay_var_us and
 * "peer_udp": {jitter_ms, lost_packets, packets, lost_percent} of the UDP
 * streams it receives and their sum.
 *
 * And the text hint after the summary when most of the loss happened in
 * the receiving host.  A server prints the hint for its own output only
 * (not captured for --get-server-output) unless the client asked for
 * "stats" (stats_dist.h).
 */
#include "config.h"

#include <stdio.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "latstat.h"
#include "report_calc.h"
#include "report_int.h"
#include "report_rows.h"
#include "stats.h"
#include "stats_dist.h"
#include "stream.h"
#include "banned.h"

#define RTT_FIELDS (LATSUM_SAMPLES | LATSUM_MIN | LATSUM_PCT | LATSUM_MAX)
#define DELAY_FIELDS (LATSUM_SAMPLES | LATSUM_PCT | LATSUM_MAX)

static void
attach_sum(cJSON *o, const char *key, const struct latsum *s,
    unsigned int fields, int *err)
{
	report_json_attach(o, key, latsum_to_json(s, 1.0, fields), err);
}

#ifdef HAVE_PEERIVAL
/* Our server's figures belong to the interval being reported
 * (session/peer_ival.h); a client's final interval has none. */
static int
peer_matched(const struct iperf_test *test)
{
	return test->run.ses.pival_i != 0 &&
	    test->run.ses.pival_i == test->run.ses.ival_n;
}

/* What our server measured on the other end of o's stream or group:
 * rtt_us (it sends), delay_var_us and the loss (it receives UDP). */
static void
attach_peer(const struct peer_fig *f, int rtt, int delay, int sends,
    cJSON *o, int *err)
{
	cJSON *r;

	if (rtt && f->has_rtt)
		attach_sum(o, "rtt_us", &f->rtt, RTT_FIELDS, err);
	if (delay && f->has_delay)
		attach_sum(o, "delay_var_us", &f->delay, DELAY_FIELDS, err);
	if (!sends || !f->has_udp)
		return;
	/* a key of our own: stock keys on a sender would read as its own */
	r = cJSON_CreateObject();
	report_json_num(r, "jitter_ms", f->jitter_ms, err);
	report_json_num(r, "lost_packets", (double)f->lost, err);
	report_json_num(r, "packets", (double)f->packets, err);
	report_json_num(r, "lost_percent", report_loss_percent(f->lost,
	    f->packets), err);
	report_json_attach(o, "peer_udp", r, err);
}
#endif

/* ---- per stream --------------------------------------------------------- */

void
report_stats_interval_stream(const struct iperf_stream *sp,
    const struct interval_result *ir, cJSON *o, int *err)
{
	if (ir->has_rtt)
		attach_sum(o, "rtt_us", &ir->rtt_dist, RTT_FIELDS, err);
	if (ir->has_delay)
		attach_sum(o, "delay_var_us", &ir->delay_dist, DELAY_FIELDS, err);
#ifdef HAVE_PEERIVAL
	if (peer_matched(sp->test))
		attach_peer(&sp->pival, !ir->has_rtt, !ir->has_delay,
		    sp->sender, o, err);
#endif
	if (sp->rxq_drops_known)
		report_json_num(o, "lost_in_receiver", (double)ir->rxq_drops,
		    err);
}

/* The stream's lost_in_receiver at the end: its own (a receiver) or our
 * server's; 0 when unknown. */
static int
end_rxq(const struct iperf_stream *sp, int64_t *out)
{
	if (!sp->sender && sp->rxq_drops_known) {
		*out = (int64_t)stats_local_rxq_drops(sp);
		return 1;
	}
	if (sp->sender && sp->peer.has_rxq) {
		*out = sp->peer.rxq_drops;
		return 1;
	}
	return 0;
}

void
report_stats_end_sender(const struct iperf_stream *sp, cJSON *o, int *err)
{
	struct latsum s;

	if (sp->sender && stats_dist_rtt(sp, &s))
		attach_sum(o, "rtt_us", &s, RTT_FIELDS, err);
	else if (!sp->sender && sp->peer.has_rtt)
		attach_sum(o, "rtt_us", &sp->peer.rtt, RTT_FIELDS, err);
}

void
report_stats_end_udp(const struct iperf_stream *sp, cJSON *o, int *err)
{
	struct latsum s;
	int64_t rxq;

	if (end_rxq(sp, &rxq))
		report_json_num(o, "lost_in_receiver", (double)rxq, err);
	if (!sp->sender && stats_dist_delay(sp, &s))
		attach_sum(o, "delay_var_us", &s, DELAY_FIELDS, err);
	else if (sp->sender && sp->peer.has_delay)
		attach_sum(o, "delay_var_us", &sp->peer.delay, DELAY_FIELDS,
		    err);
}

/* ---- sums of a direction group ------------------------------------------ */

/* lost_in_receiver of group g: the newest interval's (interval != 0) or
 * the test's; 0 when no stream of the group knows it. */
static int
group_rxq(const struct iperf_test *test, int g, int interval, int64_t *out)
{
	const struct iperf_stream *sp;
	int known = 0;

	*out = 0;
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		int64_t v;

		if (!report_in_group(test, sp, g))
			continue;
		if (interval && sp->rxq_drops_known && sp->last_interval) {
			*out += (int64_t)sp->last_interval->rxq_drops;
			known = 1;
		} else if (!interval && end_rxq(sp, &v)) {
			*out += v;
			known = 1;
		}
	}
	return known;
}

void
report_stats_interval_sum(const struct iperf_test *test, int g, int sends,
    cJSON *o, int *err)
{
	int64_t rxq;

	if (sends && test->run.rtt_ival_sum_valid)
		attach_sum(o, "rtt_us", &test->run.rtt_ival_sum, RTT_FIELDS,
		    err);
#ifdef HAVE_PEERIVAL
	if (!sends && test->run.delay_ival_sum_valid)
		attach_sum(o, "delay_var_us", &test->run.delay_ival_sum,
		    DELAY_FIELDS, err);
	if (peer_matched(test))
		attach_peer(&test->run.ses.pival_sum, !sends, sends, sends, o,
		    err);
#endif
	if (!sends && report_is_datagram(test) && group_rxq(test, g, 1, &rxq))
		report_json_num(o, "lost_in_receiver", (double)rxq, err);
}

void
report_stats_end_sum_sent(const struct iperf_test *test, int g, cJSON *o,
    int *err)
{
	struct latsum s;

	if (report_group_sends(test, g)) {
		if (stats_dist_rtt_sum(test, &s))
			attach_sum(o, "rtt_us", &s, RTT_FIELDS, err);
	} else if (test->run.ses.peer_has_rtt_sum) {
		attach_sum(o, "rtt_us", &test->run.ses.peer_rtt_sum, RTT_FIELDS,
		    err);
	}
}

void
report_stats_end_loss_sum(const struct iperf_test *test, int g, cJSON *o,
    int *err)
{
	int64_t rxq;

	if (group_rxq(test, g, 0, &rxq))
		report_json_num(o, "lost_in_receiver", (double)rxq, err);
#ifdef HAVE_PEERIVAL
	{
		struct latsum s;

		if (!report_group_sends(test, g) && stats_dist_delay_sum(test,
		    &s))
			attach_sum(o, "delay_var_us", &s, DELAY_FIELDS, err);
		else if (report_group_sends(test, g) &&
		    test->run.ses.peer_has_delay_sum)
			attach_sum(o, "delay_var_us",
			    &test->run.ses.peer_delay_sum, DELAY_FIELDS, err);
	}
#endif
}

/* ---- text --------------------------------------------------------------- */

void
report_stats_text(struct iperf_test *test)
{
	int g, capture = test->run.srv.capture_output;

	if (!report_is_datagram(test))
		return;
	if (test->opt->role == 's' && !stats_dist_peer_asked(test))
		test->run.srv.capture_output = 0;
	for (g = 0; g < report_group_count(test); g++) {
		struct report_end e;
		char line[320];
		int64_t rxq;

		report_end_group(test, g, &e);
		if (!group_rxq(test, g, 0, &rxq) || rxq <= 0 || e.lost <= 0 ||
		    2 * rxq <= e.lost)
			continue;
		(void)snprintf(line, sizeof(line),
		    "Note: %lld of %lld lost datagrams (%.0f%%) were dropped by "
		    "the receiving host's socket buffer, not the network; try a "
		    "larger -w, or raise net.core.rmem_max.\n",
		    (long long)(rxq < e.lost ? rxq : e.lost),
		    (long long)e.lost, rxq < e.lost ?
		    100.0 * (double)rxq / (double)e.lost : 100.0);
		report_text_line(test, line);
	}
	test->run.srv.capture_output = capture;
}
