/* stats.c - interval sampling and the omit period (see stats.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "iperf.h"
#ifdef HAVE_ISOCHRONOUS
#include "iso_stream.h"
#endif
#include "proto_ops.h"
#include "rr.h"
#include "stats.h"
#include "stats_dist.h"
#include "stream.h"
#include "tcp_info.h"
#include "banned.h"

/* The stream's clocks and retransmit baselines start again at now. */
static void
restart_clocks(struct iperf_stream *sp, uint64_t now_us)
{
	struct tcpinfo_snapshot ti;

	sp->start_us = now_us;
	sp->interval_start_us = now_us;
	sp->last_sample_us = now_us;
	if (tcp_info_read(sp->socket, &ti) == 0) {
		sp->tcp_retrans_base_interval = ti.total_retrans;
		sp->tcp_retrans_base_omit = ti.total_retrans;
	}
}

void
stats_start(struct iperf_test *test, uint64_t now_us)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		stream_snapshot(sp, &sp->base_interval);
		sp->base_omit = sp->base_interval;
		restart_clocks(sp, now_us);
	}
}

static int
stream_has_tcpinfo(const struct iperf_test *test, const struct iperf_stream *sp)
{
	return sp->sender && (test->proto->flags & PROTO_F_RETRANSMITS) &&
	    test->sender_has_retransmits == 1;
}

static void
sample_tcpinfo(struct iperf_test *test, struct iperf_stream *sp,
    struct interval_result *ir)
{
	struct tcpinfo_snapshot ti;

	if (sp->sender && test->proto->sender_info != NULL) {
		/* Once the streams are shut down the association is gone:
		 * its figures from just before (stats_keep_sender_info). */
		if (test->proto->sender_info(sp, &ti) == -1) {
			if (!sp->tcpi_last.valid)
				return;
			ti = sp->tcpi_last;
			ti.total_retrans = sp->tcp_retrans_base_interval;
		}
	} else if (!stream_has_tcpinfo(test, sp) ||
	    tcp_info_read(sp->socket, &ti) == -1) {
		return;
	}
	ir->has_tcpinfo = 1;
	ir->retransmits = ti.total_retrans - sp->tcp_retrans_base_interval;
	sp->tcp_retrans_base_interval = ti.total_retrans;
	ir->snd_cwnd = ti.snd_cwnd;
	ir->snd_wnd = ti.snd_wnd;
	ir->rtt = ti.rtt;
	ir->rttvar = ti.rttvar;
	ir->pmtu = ti.pmtu;
	ir->reorder = ti.reorder;
	sp->tcpi_last = ti;
	stats_dist_rtt_add(sp, ti.rtt);
	if (ir->omitted)
		return;
	sp->retransmits += ir->retransmits;
	if (ti.snd_cwnd > sp->max_snd_cwnd)
		sp->max_snd_cwnd = ti.snd_cwnd;
	if (ti.snd_wnd > sp->max_snd_wnd)
		sp->max_snd_wnd = ti.snd_wnd;
	if (ti.rtt > sp->max_rtt)
		sp->max_rtt = ti.rtt;
	if (ti.rtt < sp->min_rtt)
		sp->min_rtt = ti.rtt;
	sp->rtt_sum += ti.rtt;
	sp->rtt_samples++;
	sp->reorder = ti.reorder;
}

void
stats_keep_sender_info(struct iperf_test *test)
{
	struct iperf_stream *sp;
	struct tcpinfo_snapshot ti;

	if (test->proto == NULL || test->proto->sender_info == NULL)
		return;
	for (sp = test->run.streams; sp != NULL; sp = sp->next)
		if (sp->sender && test->proto->sender_info(sp, &ti) == 0)
			sp->tcpi_last = ti;
}

static struct interval_result *
make_interval(struct iperf_test *test, struct iperf_stream *sp,
    const struct stream_live *now_live, uint64_t now_us)
{
	struct interval_result *ir = calloc(1, sizeof(*ir));
	const struct stream_live *b = &sp->base_interval;

	if (ir == NULL)
		return NULL;
	ir->start = (double)(sp->interval_start_us - sp->start_us) / 1e6;
	ir->end = (double)(now_us - sp->start_us) / 1e6;
	ir->seconds = (float)((double)(now_us - sp->interval_start_us) / 1e6);
	ir->bytes = now_live->bytes - b->bytes;
	ir->omitted = test->run.omitting;
	ir->packets = now_live->packets - b->packets;
	ir->lost = now_live->lost - b->lost;
	ir->ooo = now_live->ooo - b->ooo;
	ir->jitter = now_live->jitter;
	ir->rxq_drops = now_live->rxq_drops - b->rxq_drops;
	ir->rr_trans = now_live->rr_trans - b->rr_trans;
	ir->rr_lost = now_live->rr_lost - b->rr_lost;
	ir->rr_stale = now_live->rr_stale - b->rr_stale;
	if (sp->rr != NULL)
		latstat_summary(&sp->rr->interval, &ir->rr_lat);
	sample_tcpinfo(test, sp, ir);
	return ir;
}

/* Only the newest interval is kept: the reporters print each one as it is
 * taken and the summary comes from the streams' totals, so a day-long run
 * stays flat. */
static void
keep_interval(struct iperf_stream *sp, struct interval_result *ir)
{
	stream_drop_intervals(sp);
	sp->intervals = ir;
	sp->last_interval = ir;
}

/* The final interval is dropped when every stream's is short and empty. */
static int
final_is_negligible(struct iperf_test *test, uint64_t now_us)
{
	struct iperf_stream *sp;
	double limit = test->opt->stats_interval > 0 ?
	    test->opt->stats_interval * 0.1 : 0.0;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct stream_live l;
		double len = (double)(now_us - sp->interval_start_us) / 1e6;

		stream_snapshot(sp, &l);
		if (len >= limit || l.bytes != sp->base_interval.bytes)
			return 0;
	}
	return 1;
}

int
stats_sample(struct iperf_test *test, uint64_t now_us, int final)
{
	struct iperf_stream *sp;
	int keep = !(final && final_is_negligible(test, now_us));

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct stream_live l;

		if (sp->rr != NULL)
			rr_take(sp, &l);
		else
			stream_snapshot(sp, &l);
		if (keep) {
			struct interval_result *ir =
			    make_interval(test, sp, &l, now_us);
			if (ir != NULL)
				keep_interval(sp, ir);
			sp->last_sample_us = now_us;
		}
		if (sp->rr != NULL)
			rr_interval_done(sp, test->run.omitting);
		if (final)
			sp->final = l;
		sp->base_interval = l;
		sp->interval_start_us = now_us;
	}
	stats_dist_sample(test, keep, test->run.omitting);
#ifdef HAVE_ISOCHRONOUS
	iso_stream_sample(test, keep);
#endif
	return keep;
}

void
stats_omit_end(struct iperf_test *test, uint64_t now_us)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		pthread_mutex_lock(&sp->w.lock);
		if (test->proto->omit_reset != NULL)
			test->proto->omit_reset(sp);
		if (sp->rr != NULL)
			rr_omit_reset_locked(sp);
		sp->base_omit = sp->w.live;
		pthread_mutex_unlock(&sp->w.lock);
		sp->base_interval = sp->base_omit;
		restart_clocks(sp, now_us);
	}
	stats_dist_omit_end(test);
#ifdef HAVE_ISOCHRONOUS
	iso_stream_omit_end(test);
#endif
}

uint64_t
stats_local_bytes(const struct iperf_stream *sp)
{
	return sp->final.bytes - sp->base_omit.bytes;
}

double
stats_local_seconds(const struct iperf_stream *sp)
{
	return (double)(sp->last_sample_us - sp->start_us) / 1e6;
}

int64_t
stats_local_packets(const struct iperf_stream *sp)
{
	return (int64_t)(sp->final.packets - sp->base_omit.packets);
}

int64_t
stats_local_lost(const struct iperf_stream *sp)
{
	return sp->final.lost - sp->base_omit.lost;
}

uint64_t
stats_local_ooo(const struct iperf_stream *sp)
{
	return sp->final.ooo - sp->base_omit.ooo;
}

uint64_t
stats_local_rxq_drops(const struct iperf_stream *sp)
{
	return sp->final.rxq_drops - sp->base_omit.rxq_drops;
}
