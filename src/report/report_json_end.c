/*
 * report_json_end.c - the JSON "end" object (docs/iperf3-json.schema.json): per
 * stream sender/receiver (TCP, SCTP) or "udp" objects, the group sums in
 * computation order, CPU utilisation and congestion algorithms.
 */
#include "config.h"

#include <stdio.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "proto_ops.h"
#include "report_calc.h"
#include "report_int.h"
#include "report_rows.h"
#include "stream.h"
#include "banned.h"

static double
bits_per_second(double bytes, double seconds)
{
	return seconds > 0 ? bytes * 8.0 / seconds : 0.0;
}

/* "start", "end", "seconds", "bytes", "bits_per_second" */
static void
span(cJSON *o, double end, double seconds, uint64_t bytes, double rate_time,
    int *err)
{
	report_json_num(o, "start", 0, err);
	report_json_num(o, "end", end, err);
	report_json_num(o, "seconds", seconds, err);
	report_json_num(o, "bytes", (double)bytes, err);
	report_json_num(o, "bits_per_second", bits_per_second((double)bytes, rate_time),
	    err);
}

/* Retransmit keys in sender objects: TCP with the info, or SCTP. */
static int
has_retr_keys(const struct iperf_test *test)
{
	return report_retr_known(test) ||
	    (test->proto != NULL && test->proto->id == Psctp);
}

static void
tcpinfo_keys(cJSON *o, const struct iperf_stream *sp, int64_t retr, int *err)
{
	int have = sp->rtt_samples > 0;

	report_json_num(o, "retransmits", (double)retr, err);
	report_json_num(o, "reorder", (double)sp->reorder, err);
	report_json_num(o, "max_snd_cwnd", (double)sp->max_snd_cwnd, err);
	report_json_num(o, "max_snd_wnd", (double)sp->max_snd_wnd, err);
	report_json_num(o, "max_rtt", (double)sp->max_rtt, err);
	report_json_num(o, "min_rtt", have ? (double)sp->min_rtt : 0.0, err);
	report_json_num(o, "mean_rtt", have ? (double)(sp->rtt_sum / sp->rtt_samples) : 0.0,
	    err);
}

/* -F: {sent, received, size, percent_sent, percent_received, filename} */
static cJSON *
diskfile(const struct iperf_test *test, const struct report_end *e, int *err)
{
	cJSON *o = cJSON_CreateObject();
	double size = (double)report_diskfile_size(test);

	report_json_num(o, "sent", (double)e->sent_bytes, err);
	report_json_num(o, "received", (double)e->rcvd_bytes, err);
	report_json_num(o, "size", size, err);
	report_json_num(o, "percent_sent", report_file_percent((double)e->sent_bytes,
	    size), err);
	report_json_num(o, "percent_received", report_file_percent((double)e->rcvd_bytes,
	    size), err);
	if (o == NULL || cJSON_AddStringToObject(o, "filename",
	    test->opt->diskfile_name) == NULL)
		*err = 1;
	return o;
}

static cJSON *
tcp_stream(const struct iperf_test *test, const struct iperf_stream *sp,
    double first_local_time, int *err)
{
	cJSON *o = cJSON_CreateObject(), *snd, *rcv;
	struct report_end e;

	report_end_stream(test, sp, &e);
	snd = cJSON_CreateObject();
	report_json_num(snd, "socket", sp->socket, err);
	span(snd, e.sender_time, e.sender_time, e.sent_bytes, e.sender_time,
	    err);
	if (has_retr_keys(test))
		tcpinfo_keys(snd, sp, e.retransmits, err);
	report_json_flag(snd, "sender", sp->sender, err);
	report_stats_end_sender(sp, snd, err);
	report_json_attach(o, "sender", snd, err);
	if (test->opt->diskfile_name != NULL)
		report_json_attach(o, "diskfile", diskfile(test, &e, err), err);
	rcv = cJSON_CreateObject();
	report_json_num(rcv, "socket", sp->socket, err);
	/* Quirk: "seconds" is the first stream's local time. */
	span(rcv, e.receiver_time, first_local_time, e.rcvd_bytes,
	    e.receiver_time, err);
	report_json_flag(rcv, "sender", sp->sender, err);
	report_json_attach(o, "receiver", rcv, err);
	return o;
}

static cJSON *
udp_stream(const struct iperf_test *test, const struct iperf_stream *sp,
    int *err)
{
	cJSON *o = cJSON_CreateObject(), *u = cJSON_CreateObject();
	struct report_end e;

	report_end_stream(test, sp, &e);
	report_json_num(u, "socket", sp->socket, err);
	span(u, e.sender_time, e.sender_time, e.sent_bytes, e.sender_time, err);
	report_json_num(u, "jitter_ms", e.jitter * 1000.0, err);
	report_json_num(u, "lost_packets", (double)e.lost, err);
	report_json_num(u, "packets", (double)e.packets, err);
	report_json_num(u, "lost_percent", report_loss_percent(e.lost, e.packets), err);
	report_json_num(u, "out_of_order", (double)e.ooo, err);
	report_json_flag(u, "sender", sp->sender, err);
	report_stats_end_udp(sp, u, err);
	report_json_attach(o, "udp", u, err);
	return o;
}

static void
end_streams(const struct iperf_test *test, cJSON *end, int *err)
{
	cJSON *arr = cJSON_CreateArray();
	const struct iperf_stream *sp;
	double first_time = report_first_local_time(test);

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		cJSON *s = report_is_datagram(test) ? udp_stream(test, sp, err) :
		    tcp_stream(test, sp, first_time, err);

		report_rr_json_end_stream(test, sp, s, err);
		if (s == NULL || arr == NULL || !cJSON_AddItemToArray(arr, s)) {
			cJSON_Delete(s);
			*err = 1;
		}
	}
	report_json_attach(end, "streams", arr, err);
}

/* One UDP sum object: the common span, then the "loss" keys. */
struct udp_sum_spec {
	double end;       /* "end" and "seconds" */
	uint64_t bytes;
	double rate_time; /* divisor of bits_per_second */
	double jitter;    /* seconds */
	int64_t lost, packets;
	int sender;
};

static cJSON *
udp_sum(const struct udp_sum_spec *u, int *err)
{
	cJSON *o = cJSON_CreateObject();

	span(o, u->end, u->end, u->bytes, u->rate_time, err);
	report_json_num(o, "jitter_ms", u->jitter * 1000.0, err);
	report_json_num(o, "lost_packets", (double)u->lost, err);
	report_json_num(o, "packets", (double)u->packets, err);
	report_json_num(o, "lost_percent", report_loss_percent(u->lost, u->packets), err);
	report_json_flag(o, "sender", u->sender, err);
	return o;
}

/* sum (legacy: sent bytes over the sender time, receiver time span),
 * sum_sent (always "sender": true), sum_received (always false). */
static void
udp_sums(const struct iperf_test *test, cJSON *end, int g, int *err)
{
	const char *sfx = g == 0 ? "" : "_bidir_reverse";
	struct report_end s;
	struct udp_sum_spec u;
	cJSON *o;
	char key[64];

	report_end_group(test, g, &s);
	u = (struct udp_sum_spec){ s.receiver_time, s.sent_bytes,
		s.sender_time, s.jitter, s.lost, s.packets,
		report_group_sends(test, g) };
	(void)snprintf(key, sizeof(key), "sum%s", sfx);
	o = udp_sum(&u, err);
	report_stats_end_loss_sum(test, g, o, err);
	report_json_attach(end, key, o, err);
	u = (struct udp_sum_spec){ s.sender_time, s.sent_bytes, s.sender_time,
		0.0, 0, s.sender_packets, 1 };
	(void)snprintf(key, sizeof(key), "sum_sent%s", sfx);
	report_json_attach(end, key, udp_sum(&u, err), err);
	u = (struct udp_sum_spec){ s.receiver_time, s.rcvd_bytes,
		s.receiver_time, s.jitter, s.lost, s.receiver_packets, 0 };
	(void)snprintf(key, sizeof(key), "sum_received%s", sfx);
	o = udp_sum(&u, err);
	report_stats_end_loss_sum(test, g, o, err);
	report_json_attach(end, key, o, err);
}

static void
tcp_sums(const struct iperf_test *test, cJSON *end, int g, int *err)
{
	const char *sfx = g == 0 ? "" : "_bidir_reverse";
	int sends = report_group_sends(test, g);
	struct report_end s;
	cJSON *o;
	char key[64];

	report_end_group(test, g, &s);
	o = cJSON_CreateObject();
	span(o, s.sender_time, s.sender_time, s.sent_bytes, s.sender_time, err);
	if (report_group_has_retr(test, g) && !report_is_sctp(test))
		report_json_num(o, "retransmits", (double)s.retransmits, err);
	report_json_flag(o, "sender", sends, err);
	report_stats_end_sum_sent(test, g, o, err);
	(void)snprintf(key, sizeof(key), "sum_sent%s", sfx);
	report_json_attach(end, key, o, err);
	o = cJSON_CreateObject();
	span(o, s.receiver_time, s.receiver_time, s.rcvd_bytes,
	    s.receiver_time, err);
	report_json_flag(o, "sender", sends, err);
	(void)snprintf(key, sizeof(key), "sum_received%s", sfx);
	report_json_attach(end, key, o, err);
}

static void
cpu_and_congestion(const struct iperf_test *test, cJSON *end, int *err)
{
	cJSON *cpu = cJSON_CreateObject();
	const char *snd, *rcv;
	double remote[3];
	int last = report_group_count(test) - 1;

	report_remote_cpu(test, remote);
	report_json_num(cpu, "host_total", test->run.cpu_util[0], err);
	report_json_num(cpu, "host_user", test->run.cpu_util[1], err);
	report_json_num(cpu, "host_system", test->run.cpu_util[2], err);
	report_json_num(cpu, "remote_total", remote[0], err);
	report_json_num(cpu, "remote_user", remote[1], err);
	report_json_num(cpu, "remote_system", remote[2], err);
	report_json_attach(end, "cpu_utilization_percent", cpu, err);
	if (test->proto == NULL ||
	    (test->proto->flags & PROTO_F_CONGESTION) == 0)
		return;
	report_congestion(test, report_group_sends(test, last), &snd, &rcv);
	if (snd != NULL && cJSON_AddStringToObject(end,
	    "sender_tcp_congestion", snd) == NULL)
		*err = 1;
	if (rcv != NULL && cJSON_AddStringToObject(end,
	    "receiver_tcp_congestion", rcv) == NULL)
		*err = 1;
}

cJSON *
report_json_end(struct iperf_test *test)
{
	cJSON *end = cJSON_CreateObject();
	int g, err = end == NULL;

	if (test->run.streams == NULL)
		return end;
	end_streams(test, end, &err);
	for (g = 0; g < report_group_count(test); g++) {
		if (report_is_datagram(test))
			udp_sums(test, end, g, &err);
		else
			tcp_sums(test, end, g, &err);
	}
	cpu_and_congestion(test, end, &err);
	report_latency_json(test, end, &err);
#ifdef HAVE_OWD
	report_owd_json_end(test, end, &err);
#endif
	report_rr_json_end(test, end, &err);
#ifdef HAVE_RPM
	report_rpm_json(test, end, &err);
#endif
#ifdef HAVE_ISOCHRONOUS
	report_iso_json_end(test, end, &err);
#endif
	if (err) {
		cJSON_Delete(end);
		return NULL;
	}
	return end;
}
