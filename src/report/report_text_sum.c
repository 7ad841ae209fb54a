/*
 * report_text_sum.c - the end-of-test section of the human-readable report
 * (3.21's layout): per-stream sender/receiver rows, [SUM] rows,
 * -V CPU and congestion lines, and the client's --get-server-output block.
 * With --bidir the section is printed per direction group.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "proto_ops.h"
#include "report.h"
#include "report_calc.h"
#include "report_int.h"
#include "report_rows.h"
#include "stream.h"
#include "banned.h"

static void
emit_row(struct iperf_test *test, enum report_row_kind kind,
    const struct report_row *r)
{
	char line[REPORT_LINE_LEN];

	(void)report_fmt_row(line, sizeof(line), kind, r);
	report_text_line(test, line);
}

static void
emit_unavailable(struct iperf_test *test, int id, const char *what)
{
	char line[REPORT_LINE_LEN];

	(void)report_fmt_unavailable(line, sizeof(line), id, what);
	report_text_line(test, line);
}

/* The sender row of a stream or group (figures in e); `local`: this end
 * sent the stream's data. */
static void
sender_row(struct iperf_test *test, struct report_row *r,
    const struct report_end *e, int local)
{
	r->end = e->sender_time;
	r->seconds = e->sender_time;
	r->bytes = (double)e->sent_bytes;
	r->tail = "sender";
	if (report_is_datagram(test)) {
		r->packets = e->sender_packets;
		emit_row(test, ROW_UDP_LOSS, r);
	} else if (report_is_sctp(test) && r->id != REPORT_SUM_ID) {
		/* As 3.21: an SCTP stream's sender row has a Retr figure,
		 * -1 where the peer sent (-R, --bidir RX); its [SUM] none. */
		r->retransmits = local ? e->retransmits : -1;
		emit_row(test, ROW_TCP_RETR, r);
	} else if (report_retr_known(test)) {
		r->retransmits = e->retransmits;
		emit_row(test, r->id == REPORT_SUM_ID ? ROW_TCP_RETR_SUM :
		    ROW_TCP_RETR, r);
	} else {
		emit_row(test, ROW_TCP_PLAIN, r);
	}
}

static void
receiver_row(struct iperf_test *test, struct report_row *r,
    const struct report_end *e)
{
	r->end = e->receiver_time;
	r->seconds = e->receiver_time;
	r->bytes = (double)e->rcvd_bytes;
	r->tail = "receiver";
	if (report_is_datagram(test)) {
		r->jitter_ms = e->jitter * 1000.0;
		r->lost = e->lost;
		r->packets = e->packets;
		emit_row(test, e->lost_unknown ? ROW_UDP_UNKNOWN : ROW_UDP_LOSS,
		    r);
	} else {
		emit_row(test, ROW_TCP_PLAIN, r);
	}
}

static void
extra_stream_lines(struct iperf_test *test, const struct iperf_stream *sp,
    const struct report_end *e, const char *role)
{
	char line[REPORT_LINE_LEN];
	double moved = (double)(sp->sender ? e->sent_bytes : e->rcvd_bytes);

	if (report_is_datagram(test) && e->ooo > 0) {
		(void)report_fmt_ooo(line, sizeof(line), role, 0.0,
		    e->sender_time, e->ooo);
		report_text_line(test, line);
	}
	if (test->opt->diskfile_name != NULL) {
		(void)report_fmt_diskfile(line, sizeof(line),
		    moved, (double)report_diskfile_size(test),
		    test->opt->diskfile_name);
		report_text_line(test, line);
	}
}

static void
stream_rows(struct iperf_test *test, struct iperf_stream *sp)
{
	struct report_row r = { 0 };
	struct report_end e;
	char role[REPORT_ROLE_LEN];
	int client = test->opt->role == 'c';

	report_end_stream(test, sp, &e);
	report_role_tag(test, sp, role);
	r.id = sp->socket;
	r.role = role;
	r.fmt = test->opt->unit_format;
	if (client || sp->sender)
		sender_row(test, &r, &e, sp->sender);
	else if (test->opt->verbose)
		emit_unavailable(test, sp->socket, "sender");
	extra_stream_lines(test, sp, &e, role);
	if (client || !sp->sender)
		receiver_row(test, &r, &e);
	else if (test->opt->verbose)
		emit_unavailable(test, sp->socket, "receiver");
}

/* A server lacks one half of the [SUM] rows: TCP -V says so, UDP skips. */
static void
sum_unavailable(struct iperf_test *test, const char *what)
{
	if (test->opt->verbose && !report_is_datagram(test))
		emit_unavailable(test, REPORT_SUM_ID, what);
}

static void
sum_rows(struct iperf_test *test, int g)
{
	struct iperf_stream *first = report_group_first(test, g);
	struct report_row r = { 0 };
	struct report_end s;
	char role[REPORT_ROLE_LEN];
	int client = test->opt->role == 'c';
	int sends = report_group_sends(test, g);

	if (first == NULL)
		return;
	report_end_group(test, g, &s);
	report_role_tag(test, first, role);
	r.id = REPORT_SUM_ID;
	r.role = role;
	r.fmt = test->opt->unit_format;
	if (client || sends)
		sender_row(test, &r, &s, sends);
	else
		sum_unavailable(test, "sender");
	if (client || !sends)
		receiver_row(test, &r, &s);
	else
		sum_unavailable(test, "receiver");
}

static void
cpu_lines(struct iperf_test *test)
{
	char line[REPORT_LINE_LEN];
	double remote[3];

	report_remote_cpu(test, remote);
	(void)report_fmt_cpu(line, sizeof(line), "sender", test->run.cpu_util,
	    "receiver", remote);
	report_text_line(test, line);
	if (!report_is_bidir(test))
		return;
	(void)report_fmt_cpu(line, sizeof(line), "receiver", test->run.cpu_util,
	    "sender", remote);
	report_text_line(test, line);
}

/* -V lines closing a group: CPU (sending groups), congestion (TCP). */
static void
group_trailer(struct iperf_test *test, int g)
{
	const char *snd, *rcv;
	int sends = report_group_sends(test, g);

	if (!test->opt->verbose)
		return;
	if (sends)
		cpu_lines(test);
	if (test->proto == NULL ||
	    (test->proto->flags & PROTO_F_CONGESTION) == 0)
		return;
	report_congestion(test, sends, &snd, &rcv);
	if (snd != NULL)
		(void)iperf_printf(test, "snd_tcp_congestion %s\n", snd);
	if (rcv != NULL)
		(void)iperf_printf(test, "rcv_tcp_congestion %s\n", rcv);
}

/* Client --get-server-output: one print call, so one prefix. */
static void
server_output_block(struct iperf_test *test)
{
	char *json;

	if (test->opt->role != 'c' || !test->settings.get_server_output)
		return;
	if (test->run.ses.json_server_output != NULL) {
		json = cJSON_Print(test->run.ses.json_server_output);
		if (json == NULL)
			return;
		(void)iperf_printf(test, "\nServer JSON output:\n%s\n", json);
		cJSON_free(json);
	} else if (test->run.ses.server_output_text != NULL) {
		(void)iperf_printf(test, "\nServer output:\n%s\n",
		    test->run.ses.server_output_text);
	}
}

static void
summary_header(struct iperf_test *test)
{
	char line[REPORT_LINE_LEN];
	enum report_header_kind kind = HDR_PLAIN;

	(void)report_fmt_separator(line, sizeof(line));
	report_text_line(test, line);
	if (test->opt->verbose)
		(void)iperf_printf(test, "Test Complete. Summary Results:\n");
	if (report_is_datagram(test))
		kind = HDR_UDP_LOSS;
	else if (report_retr_known(test))
		kind = HDR_TCP_RETR;
	(void)report_fmt_header(line, sizeof(line), kind,
	    report_is_bidir(test));
	report_text_line(test, line);
}

void
report_text_summary(struct iperf_test *test)
{
	struct iperf_stream *sp;
	int g;

	if (test->run.streams == NULL)
		return;
	if (test->settings.rr) {
		report_rr_text_summary(test);
		group_trailer(test, 0);
		server_output_block(test);
		report_flush(test);
		return;
	}
	summary_header(test);
	for (g = 0; g < report_group_count(test); g++) {
		for (sp = test->run.streams; sp != NULL; sp = sp->next)
			if (report_in_group(test, sp, g))
				stream_rows(test, sp);
		if (report_want_sums(test))
			sum_rows(test, g);
		group_trailer(test, g);
		if (g == 0)
			server_output_block(test);
	}
	report_latency_text(test);
#ifdef HAVE_OWD
	report_owd_text(test);
#endif
#ifdef HAVE_RPM
	report_rpm_text(test);
#endif
#ifdef HAVE_ISOCHRONOUS
	report_iso_text(test);
#endif
	report_stats_text(test);
	report_flush(test);
}
