/*
 * report_json_data.c - builders of the JSON objects the reporter emits:
 * connected entries, test_start, interval objects and the end object, with
 * the 3.21 key order (docs/iperf3-json.schema.json).  Pure: they read the test
 * and its streams and return a new cJSON tree (NULL on ENOMEM).
 */
#include "config.h"

#include <cjson/cJSON.h>

#include "addr.h"
#include "iperf.h"
#include "proto_ops.h"
#include "report_calc.h"
#include "report_int.h"
#include "report_rows.h"
#include "stream.h"
#include "banned.h"

static cJSON *
finish(cJSON *o, int err)
{
	if (err) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static double
bits_per_second(double bytes, double seconds)
{
	return seconds > 0 ? bytes * 8.0 / seconds : 0.0;
}

cJSON *
report_json_connected(const struct iperf_stream *sp)
{
	cJSON *o = cJSON_CreateObject();
	char lhost[64], rhost[64];
	int lport = 0, rport = 0, err = 0;

	addr_format(&sp->local_addr, lhost, sizeof(lhost), &lport);
	addr_format(&sp->remote_addr, rhost, sizeof(rhost), &rport);
	report_json_num(o, "socket", sp->socket, &err);
	report_json_str(o, "local_host", lhost, &err);
	report_json_num(o, "local_port", lport, &err);
	report_json_str(o, "remote_host", rhost, &err);
	report_json_num(o, "remote_port", rport, &err);
	return finish(o, err);
}

cJSON *
report_json_test_start(const struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	cJSON *o = cJSON_CreateObject();
	int err = 0;

	report_json_str(o, "protocol", test->proto != NULL ? test->proto->name : "TCP",
	    &err);
	report_json_num(o, "num_streams", s->num_streams, &err);
	report_json_num(o, "blksize", s->blksize, &err);
	report_json_num(o, "omit", s->omit, &err);
	report_json_num(o, "duration", s->duration, &err);
	report_json_num(o, "bytes", (double)s->bytes, &err);
	report_json_num(o, "blocks", (double)s->blocks, &err);
	report_json_num(o, "reverse", s->reverse ? 1 : 0, &err);
	report_json_num(o, "tos", s->tos, &err);
	report_json_num(o, "target_bitrate", (double)s->rate, &err);
	report_json_num(o, "bidir", s->bidirectional ? 1 : 0, &err);
	report_json_num(o, "fqrate", (double)s->fqrate, &err);
	report_json_num(o, "interval", test->opt->stats_interval, &err);
	report_json_num(o, "gso", s->gso ? 1 : 0, &err);
	report_json_num(o, "gro", s->gro ? 1 : 0, &err);
	return finish(o, err);
}

/* ---- intervals ---------------------------------------------------------- */

/* Leading keys of every interval stream/sum object. */
static void
interval_times(cJSON *o, const struct interval_result *ir, double bytes,
    int *err)
{
	double secs = (double)ir->seconds;

	report_json_num(o, "start", ir->start, err);
	report_json_num(o, "end", ir->end, err);
	report_json_num(o, "seconds", secs, err);
	report_json_num(o, "bytes", bytes, err);
	report_json_num(o, "bits_per_second", bits_per_second(bytes, secs), err);
}

static void
loss_keys(cJSON *o, double jitter_s, int64_t lost, int64_t packets, int *err)
{
	report_json_num(o, "jitter_ms", jitter_s * 1000.0, err);
	report_json_num(o, "lost_packets", (double)lost, err);
	report_json_num(o, "packets", (double)packets, err);
	report_json_num(o, "lost_percent", report_loss_percent(lost, packets), err);
}

static cJSON *
interval_stream(const struct iperf_test *test, const struct iperf_stream *sp,
    const struct interval_result *ir)
{
	cJSON *o = cJSON_CreateObject();
	int err = 0;

	report_json_num(o, "socket", sp->socket, &err);
	interval_times(o, ir, (double)ir->bytes, &err);
	if (report_is_datagram(test) && sp->sender) {
		report_json_num(o, "packets", (double)ir->packets, &err);
	} else if (report_is_datagram(test)) {
		loss_keys(o, ir->jitter, ir->lost, (int64_t)ir->packets, &err);
	} else if (report_stream_has_retr(test, sp)) {
		report_json_num(o, "retransmits", (double)ir->retransmits, &err);
		report_json_num(o, "snd_cwnd", (double)ir->snd_cwnd, &err);
		report_json_num(o, "snd_wnd", (double)ir->snd_wnd, &err);
		report_json_num(o, "rtt", (double)ir->rtt, &err);
		report_json_num(o, "rttvar", (double)ir->rttvar, &err);
		report_json_num(o, "pmtu", (double)ir->pmtu, &err);
		report_json_num(o, "reorder", (double)ir->reorder, &err);
	}
	report_json_flag(o, "omitted", ir->omitted, &err);
	report_json_flag(o, "sender", sp->sender, &err);
	report_stats_interval_stream(sp, ir, o, &err);
	report_rr_json_interval_stream(test, sp, o, &err);
	return finish(o, err);
}

struct interval_totals {
	double bytes, jitter;
	int64_t retransmits, lost, packets;
	int n;
};

static void
interval_totals(const struct iperf_test *test, int g,
    struct interval_totals *t)
{
	const struct iperf_stream *sp;

	t->bytes = t->jitter = 0;
	t->retransmits = t->lost = t->packets = 0;
	t->n = 0;
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		const struct interval_result *ir = sp->last_interval;

		if (ir == NULL || !report_in_group(test, sp, g))
			continue;
		t->bytes += (double)ir->bytes;
		t->jitter += ir->jitter;
		t->retransmits += ir->retransmits;
		t->lost += ir->lost;
		t->packets += (int64_t)ir->packets;
		t->n++;
	}
	if (t->n > 0)
		t->jitter /= t->n;
}

/* Sum of group g; times and the omitted flag of the test's first stream. */
static cJSON *
interval_sum(const struct iperf_test *test, int g)
{
	const struct interval_result *ir = test->run.streams->last_interval;
	const struct iperf_stream *first = report_group_first(test, g);
	struct interval_totals t;
	cJSON *o = cJSON_CreateObject();
	int sends = report_group_sends(test, g), err = 0;

	interval_totals(test, g, &t);
	interval_times(o, ir, t.bytes, &err);
	if (report_is_datagram(test) && sends)
		report_json_num(o, "packets", (double)t.packets, &err);
	else if (report_is_datagram(test))
		loss_keys(o, t.jitter, t.lost, t.packets, &err);
	else if (first != NULL && report_stream_has_retr(test, first) &&
	    !report_is_sctp(test))
		report_json_num(o, "retransmits", (double)t.retransmits, &err);
	report_json_flag(o, "omitted", ir->omitted, &err);
	report_json_flag(o, "sender", sends, &err);
	report_stats_interval_sum(test, g, sends, o, &err);
	report_rr_json_interval_sum(test, o, &err);
	return finish(o, err);
}

cJSON *
report_json_interval(struct iperf_test *test)
{
	const struct iperf_stream *sp;
	cJSON *o, *arr;
	int err = 0;

	if (test->run.streams == NULL || test->run.streams->last_interval == NULL)
		return NULL;
	o = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(o, "streams");
	if (arr == NULL)
		err = 1;
	for (sp = test->run.streams; sp != NULL && !err; sp = sp->next) {
		cJSON *s;

		if (sp->last_interval == NULL)
			continue;
		s = interval_stream(test, sp, sp->last_interval);
		if (s == NULL || !cJSON_AddItemToArray(arr, s)) {
			cJSON_Delete(s);
			err = 1;
		}
	}
	if (!err && !cJSON_AddItemToObject(o, "sum", interval_sum(test, 0)))
		err = 1;
	if (!err && report_is_bidir(test) &&
	    !cJSON_AddItemToObject(o, "sum_bidir_reverse",
		interval_sum(test, 1)))
		err = 1;
#ifdef HAVE_OWD
	if (!err)
		report_owd_json_interval(test, o, &err);
#endif
#ifdef HAVE_ISOCHRONOUS
	if (!err)
		report_iso_json_interval(test, o, &err);
#endif
	return finish(o, err);
}
