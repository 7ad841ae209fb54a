/* stats_dist.c - RTT and delay distributions per interval and per test
 * (see stats_dist.h). */
#include "config.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "ext.h"
#include "iperf.h"
#include "json.h"
#include "proto_ops.h"
#include "stats_dist.h"
#include "stream.h"
#include "tcp_info.h"
#include "banned.h"

int
stats_dist_peer_asked(const struct iperf_test *test)
{
	return test->opt->role == 's' &&
	    (test->settings.ext_want & EXT_STATS) != 0;
}

void
stats_dist_strip(cJSON *doc)
{
	static const char *const keys[] = { "rtt_us", "delay_var_us",
		"lost_in_receiver" };

	json_strip_keys(doc, keys, sizeof(keys) / sizeof(keys[0]));
}

void
stats_dist_stream_init(struct iperf_stream *sp)
{
	delayvar_init(&sp->w.delay);
	latstat_init(&sp->w.rtt_live);
	latstat_init(&sp->rtt_ival);
	latstat_init(&sp->rtt_total);
	dv_hist_init(&sp->delay_taken);
	dv_hist_init(&sp->delay_total);
}

void
stats_dist_stream_release(struct iperf_stream *sp)
{
	delayvar_free(&sp->w.delay);
	latstat_free(&sp->w.rtt_live);
	latstat_free(&sp->rtt_ival);
	latstat_free(&sp->rtt_total);
	dv_hist_free(&sp->delay_taken);
	dv_hist_free(&sp->delay_total);
}

/* ---- RTT --------------------------------------------------------------- */

void
stats_dist_rtt_sample(struct iperf_stream *sp, uint64_t now_us)
{
	struct tcpinfo_snapshot ti;

	sp->w.rtt_due_us = now_us + STATS_RTT_PERIOD_US;
	/* 0: no RTT measured yet on the connection */
	if (tcp_info_read(sp->socket, &ti) == -1 || ti.rtt == 0)
		return;
	pthread_mutex_lock(&sp->w.lock);
	(void)latstat_add(&sp->w.rtt_live, ti.rtt);
	pthread_mutex_unlock(&sp->w.lock);
}

void
stats_dist_rtt_add(struct iperf_stream *sp, uint64_t rtt_us)
{
	if (!sp->rtt_on || rtt_us == 0)
		return;
	pthread_mutex_lock(&sp->w.lock);
	(void)latstat_add(&sp->w.rtt_live, rtt_us);
	pthread_mutex_unlock(&sp->w.lock);
}

void
stats_dist_start(struct iperf_test *test)
{
	struct iperf_stream *sp;

	if (test->proto == NULL || !(test->proto->flags & PROTO_F_RETRANSMITS) ||
	    !tcp_info_has_retransmits())
		return;
	for (sp = test->run.streams; sp != NULL; sp = sp->next)
		sp->rtt_on = sp->sender;
}

/* ---- per interval ------------------------------------------------------- */

static void
take_rtt(struct iperf_test *test, struct iperf_stream *sp,
    struct interval_result *ir, int omitted)
{
	struct latstat t;

	if (!sp->rtt_on)
		return;
	latstat_reset(&sp->rtt_ival);
	pthread_mutex_lock(&sp->w.lock);
	t = sp->w.rtt_live;
	sp->w.rtt_live = sp->rtt_ival;
	sp->rtt_ival = t;
	pthread_mutex_unlock(&sp->w.lock);
	if (ir != NULL) {
		ir->has_rtt = 1;
		latstat_summary(&sp->rtt_ival, &ir->rtt_dist);
	}
	(void)latstat_merge(&test->run.rtt_sum_scratch, &sp->rtt_ival);
	if (!omitted)
		(void)latstat_merge(&sp->rtt_total, &sp->rtt_ival);
}

static void
take_delay(struct iperf_stream *sp, struct interval_result *ir, int omitted)
{
	if (!sp->delay_known)
		return;
	dv_hist_reset(&sp->delay_taken);
	pthread_mutex_lock(&sp->w.lock);
	delayvar_take(&sp->w.delay, &sp->delay_taken);
	sp->delay_min_off = sp->w.delay.min_off;
	pthread_mutex_unlock(&sp->w.lock);
	if (ir != NULL) {
		ir->has_delay = 1;
		dv_summary(&sp->delay_taken, sp->delay_min_off, &ir->delay_dist);
	}
	if (!omitted)
		(void)dv_hist_merge(&sp->delay_total, &sp->delay_taken);
}

#ifdef HAVE_PEERIVAL
/* The receivers' delay variation of the interval just taken, together. */
static void
delay_ival_sum(struct iperf_test *test, int kept)
{
	struct iperf_stream *sp;
	int any = 0;

	latstat_reset(&test->run.delay_sum_scratch);
	for (sp = test->run.streams; sp != NULL && kept; sp = sp->next) {
		if (!sp->delay_known)
			continue;
		any = 1;
		(void)dv_hist_merge_shifted(&test->run.delay_sum_scratch,
		    &sp->delay_taken, sp->delay_min_off);
	}
	test->run.delay_ival_sum_valid = any;
	if (any)
		latstat_summary(&test->run.delay_sum_scratch,
		    &test->run.delay_ival_sum);
}

int
stats_dist_delay_sum(const struct iperf_test *test, struct latsum *out)
{
	const struct iperf_stream *sp;
	struct latstat all;
	int any = 0;

	latstat_init(&all);
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (!sp->delay_known)
			continue;
		any = 1;
		(void)dv_hist_merge_shifted(&all, &sp->delay_total,
		    sp->delay_min_off);
	}
	if (any)
		latstat_summary(&all, out);
	latstat_free(&all);
	return any;
}
#endif

void
stats_dist_sample(struct iperf_test *test, int kept, int omitted)
{
	struct iperf_stream *sp;
	int any = 0;

	latstat_reset(&test->run.rtt_sum_scratch);
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct interval_result *ir = kept ? sp->last_interval : NULL;

		any |= sp->rtt_on;
		take_rtt(test, sp, ir, omitted);
		take_delay(sp, ir, omitted);
	}
	test->run.rtt_ival_sum_valid = kept && any;
	if (test->run.rtt_ival_sum_valid)
		latstat_summary(&test->run.rtt_sum_scratch,
		    &test->run.rtt_ival_sum);
#ifdef HAVE_PEERIVAL
	delay_ival_sum(test, kept);
#endif
}

void
stats_dist_omit_end(struct iperf_test *test)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		pthread_mutex_lock(&sp->w.lock);
		latstat_reset(&sp->w.rtt_live);
		pthread_mutex_unlock(&sp->w.lock);
		if (!sp->delay_known)
			continue;
		dv_hist_reset(&sp->delay_taken);
		pthread_mutex_lock(&sp->w.lock);
		delayvar_take(&sp->w.delay, &sp->delay_taken);
		pthread_mutex_unlock(&sp->w.lock);
	}
}

/* ---- end of test -------------------------------------------------------- */

int
stats_dist_rtt(const struct iperf_stream *sp, struct latsum *out)
{
	if (!sp->rtt_on)
		return 0;
	latstat_summary(&sp->rtt_total, out);
	return 1;
}

int
stats_dist_delay(const struct iperf_stream *sp, struct latsum *out)
{
	if (!sp->delay_known)
		return 0;
	dv_summary(&sp->delay_total, sp->delay_min_off, out);
	return 1;
}

#ifdef HAVE_OWD
int
stats_dist_owd_raw(const struct iperf_stream *sp, int64_t *ref_us,
    struct latsum *out)
{
	const struct delayvar *dv = &sp->w.delay;

	if (!sp->delay_known || !dv->have ||
	    dv_hist_count(&sp->delay_total) == 0)
		return 0;
	/* the first transit: seconds modulo 2^32 as a signed difference */
	*ref_us = (int64_t)(int32_t)dv->ref_sec * 1000000 + dv->ref_usec +
	    sp->delay_min_off;
	dv_summary(&sp->delay_total, sp->delay_min_off, out);
	return 1;
}
#endif

int
stats_dist_rtt_sum(const struct iperf_test *test, struct latsum *out)
{
	const struct iperf_stream *sp;
	struct latstat all;
	int any = 0;

	latstat_init(&all);
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (!sp->rtt_on)
			continue;
		any = 1;
		(void)latstat_merge(&all, &sp->rtt_total);
	}
	if (any)
		latstat_summary(&all, out);
	latstat_free(&all);
	return any;
}
