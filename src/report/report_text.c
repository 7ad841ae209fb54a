/*
 * report_text.c - the human-readable reporter: banners, connection lines,
 * interval rows (3.21's layouts, docs/iperf3.1).  The end-of-test section is in
 * report_text_sum.c; line layouts are in report_rows.c.
 */
#include "config.h"

#include <stdio.h>

#include "addr.h"
#include "iperf.h"
#include "test.h"
#include "iperf_time.h"
#include "proto_ops.h"
#include "report.h"
#include "report_calc.h"
#include "report_int.h"
#include "report_rows.h"
#include "stream.h"
#include "util.h"
#include "banned.h"

#define BANNER_RULE "-----------------------------------------------------------"

static void
text_error(struct iperf_test *test, const char *msg)
{
	char ts[128];

	report_timestamp(test, ts, sizeof(ts));
	(void)fflush(stdout);
	if (test->tag > 0) /* --max-tests: which test it was */
		(void)fprintf(test->opt->logfile != NULL &&
			test->outfile != NULL ? test->outfile : stderr,
		    "%s[T%d] iperf3: %s\n", ts, test->tag, msg);
	else
		(void)fprintf(test->opt->logfile != NULL &&
			test->outfile != NULL ? test->outfile : stderr,
		    "%siperf3: %s\n", ts, msg);
}

/* -V: version, then uname after an empty print (it gets the prefix twice). */
static void
print_version(struct iperf_test *test)
{
	char info[512];

	get_system_info(info, sizeof(info));
	(void)iperf_printf(test, "%s\n", REPORT_VERSION_LINE);
	(void)iperf_printf(test, "%s", "");
	(void)iperf_printf(test, "%s\n", info);
}

static void
text_begin(struct iperf_test *test)
{
	test->run.start_wall_ms = 0;
	test->run.rep.header_printed = 0;
	test->run.rep.intervals_printed = 0;
	if (test->opt->role == 'c' && test->opt->verbose)
		print_version(test);
}

static void
text_server_listening(struct iperf_test *test)
{
	if (test->opt->verbose)
		print_version(test);
	(void)iperf_printf(test, "%s\n", BANNER_RULE);
	(void)iperf_printf(test, "Server listening on %d (test #%d)\n",
	    test->opt->server_port, test->server_test_number);
	(void)iperf_printf(test, "%s\n", BANNER_RULE);
	report_flush(test);
}

static void
print_time(struct iperf_test *test)
{
	char when[64];
	time_t secs;
	uint64_t ms;

	report_wall_time(test, &secs, &ms);
	iperf_time_rfc1123(secs, when, sizeof(when));
	(void)iperf_printf(test, "Time: %s\n", when);
}

/* -V lines after "Connecting to" / "Accepted connection". */
static void
print_connect_details(struct iperf_test *test)
{
	int mss = test->opt->role == 'c' ? test->run.cli.ctrl_mss : 0;

	(void)iperf_printf(test, "      Cookie: %s\n", test->run.cookie);
	if (!report_is_datagram(test)) {
		if (test->settings.mss > 0)
			(void)iperf_printf(test, "      TCP MSS: %d\n",
			    test->settings.mss);
		else
			(void)iperf_printf(test, "      TCP MSS: %d (default)\n",
			    mss);
	}
	if (test->settings.rate != 0)
		(void)iperf_printf(test, "      Target Bitrate: %llu\n",
		    (unsigned long long)test->settings.rate);
}

static void
text_on_connect(struct iperf_test *test)
{
	int client = test->opt->role == 'c';

	if (test->opt->verbose)
		print_time(test);
	if (client) {
		(void)iperf_printf(test, "Connecting to host %s, port %d\n",
		    test->opt->server_hostname != NULL ?
			test->opt->server_hostname : "",
		    test->opt->server_port);
		if (test->settings.reverse)
			(void)iperf_printf(test, "Reverse mode, remote host %s "
			    "is sending\n", test->opt->server_hostname != NULL ?
				test->opt->server_hostname : "");
	} else {
		(void)iperf_printf(test, "Accepted connection from %s, port %d\n",
		    test->run.srv.peer_host, test->run.srv.peer_port);
#ifdef HAVE_OPERATOR
		/* a server of several ports (-p FIRST-LAST, or sockets
		 * systemd passed): which one this test came to */
		if (test->listen_port > 0 && test->opt->server_port_last > 0)
			(void)iperf_printf(test, "Serving on port %d\n",
			    test->listen_port);
#endif
	}
#ifdef HAVE_MULTICAST
	/* --multicast (ours): where the datagrams go */
	if (test->settings.mcast_group != NULL)
		(void)iperf_printf(test, "%s multicast group %s port %d, "
		    "TTL %d%s%s\n", client ? "Sending to" : "Joined",
		    test->settings.mcast_group, client ?
			test->opt->server_port : test_server_port(test),
		    test->settings.mcast_ttl,
		    test->settings.mcast_source != NULL ? ", source " : "",
		    test->settings.mcast_source != NULL ?
			test->settings.mcast_source : "");
#endif
	if (test->opt->verbose)
		print_connect_details(test);
	report_flush(test);
}

static void
text_on_new_stream(struct iperf_stream *sp)
{
	char line[REPORT_LINE_LEN], lhost[64], rhost[64];
	struct report_conn c = { sp->socket, lhost, 0, rhost, 0 };

	addr_format(&sp->local_addr, lhost, sizeof(lhost), &c.lport);
	addr_format(&sp->remote_addr, rhost, sizeof(rhost), &c.rport);
	(void)report_fmt_connected(line, sizeof(line), &c);
	report_text_line(sp->test, line);
}

static void
text_on_test_start(struct iperf_test *test)
{
	struct report_start_info si;
	char line[REPORT_LINE_LEN];

	if (!test->opt->verbose)
		return;
	si.protocol = test->proto != NULL ? test->proto->name : "TCP";
	si.num_streams = test->settings.num_streams;
	si.blksize = test->settings.blksize;
	si.omit = test->settings.omit;
	si.duration = test->settings.duration;
	si.bytes = test->settings.bytes;
	si.blocks = test->settings.blocks;
	si.tos = test->settings.tos;
	(void)report_fmt_starting(line, sizeof(line), &si);
	report_text_line(test, line);
}

static enum report_header_kind
interval_header(const struct iperf_test *test)
{
	if (report_is_datagram(test))
		return report_is_bidir(test) || test->mode != MODE_SENDER ?
		    HDR_UDP_LOSS : HDR_UDP_SEND;
	return report_retr_known(test) ? HDR_TCP_CWND : HDR_PLAIN;
}

static void
fill_row(struct iperf_test *test, const struct interval_result *ir,
    struct report_row *r)
{
	r->start = ir->start;
	r->end = ir->end;
	r->seconds = (double)ir->seconds;
	r->fmt = test->opt->unit_format;
	r->tail = ir->omitted ? "(omitted)" : "";
	r->bidir = report_is_bidir(test);
}

static void
stream_interval_row(struct iperf_test *test, struct iperf_stream *sp)
{
	const struct interval_result *ir = sp->last_interval;
	struct report_row r = { 0 };
	enum report_row_kind kind;
	char line[REPORT_LINE_LEN], role[REPORT_ROLE_LEN];

	if (ir == NULL)
		return;
	report_role_tag(test, sp, role);
	fill_row(test, ir, &r);
	r.id = sp->socket;
	r.role = role;
	r.bytes = (double)ir->bytes;
	r.retransmits = ir->retransmits;
	r.cwnd = (double)ir->snd_cwnd;
	r.packets = (int64_t)ir->packets;
	r.lost = ir->lost;
	r.jitter_ms = ir->jitter * 1000.0;
	if (report_is_datagram(test))
		kind = sp->sender ? ROW_UDP_PACKETS : ROW_UDP_LOSS;
	else
		kind = report_stream_has_retr(test, sp) ? ROW_TCP_CWND :
		    ROW_TCP_PLAIN;
	(void)report_fmt_row(line, sizeof(line), kind, &r);
	report_text_line(test, line);
}

/* [SUM] of group g: totals of its streams, times of the first stream. */
static void
sum_interval_row(struct iperf_test *test, int g)
{
	struct iperf_stream *first = report_group_first(test, g), *sp;
	struct report_row r = { 0 };
	enum report_row_kind kind;
	char line[REPORT_LINE_LEN], role[REPORT_ROLE_LEN];
	int n = 0;

	if (first == NULL || test->run.streams->last_interval == NULL)
		return;
	report_role_tag(test, first, role);
	fill_row(test, test->run.streams->last_interval, &r);
	r.id = REPORT_SUM_ID;
	r.role = role;
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		const struct interval_result *ir = sp->last_interval;

		if (!report_in_group(test, sp, g) || ir == NULL)
			continue;
		r.bytes += (double)ir->bytes;
		r.retransmits += ir->retransmits;
		r.packets += (int64_t)ir->packets;
		r.lost += ir->lost;
		r.jitter_ms += ir->jitter * 1000.0;
		n++;
	}
	if (n > 0)
		r.jitter_ms /= n;
	if (report_is_datagram(test))
		kind = first->sender ? ROW_UDP_PACKETS : ROW_UDP_LOSS;
	else
		/* SCTP: 3.21's interval [SUM] has no Retr. */
		kind = report_stream_has_retr(test, first) &&
		    !report_is_sctp(test) ? ROW_TCP_RETR_SUM : ROW_TCP_PLAIN;
	(void)report_fmt_row(line, sizeof(line), kind, &r);
	report_text_line(test, line);
}

static void
text_interval(struct iperf_test *test)
{
	char line[REPORT_LINE_LEN];
	struct iperf_stream *sp;
	int g;

	if (test->run.streams == NULL)
		return;
	if (test->settings.rr) {
		report_rr_text_interval(test);
		if (test->opt->forceflush)
			report_flush(test);
		return;
	}
	if (!test->run.rep.header_printed) {
		(void)report_fmt_header(line, sizeof(line),
		    interval_header(test), report_is_bidir(test));
		report_text_line(test, line);
		test->run.rep.header_printed = 1;
	} else if (report_want_sums(test)) {
		(void)report_fmt_separator(line, sizeof(line));
		report_text_line(test, line);
	}
	for (g = 0; g < report_group_count(test); g++) {
		for (sp = test->run.streams; sp != NULL; sp = sp->next)
			if (report_in_group(test, sp, g))
				stream_interval_row(test, sp);
		if (report_want_sums(test))
			sum_interval_row(test, g);
	}
#ifdef HAVE_ISOCHRONOUS
	report_iso_text_interval(test);
#endif
	test->run.rep.intervals_printed++;
	if (test->opt->forceflush)
		report_flush(test);
}

static void
text_finish(struct iperf_test *test)
{
	if (test->opt->role == 'c' && test->run.abort == ABORT_NONE) {
		(void)iperf_printf(test, "\n");
		(void)iperf_printf(test, "iperf Done.\n");
	}
	report_flush(test);
}

static void
nop_test(struct iperf_test *test)
{
	(void)test;
}

const struct report_ops report_text = {
	.begin = text_begin,
	.server_listening = text_server_listening,
	.on_params = nop_test,
	.on_connect = text_on_connect,
	.on_new_stream = text_on_new_stream,
	.on_test_start = text_on_test_start,
	.interval = text_interval,
	.summary = report_text_summary,
	.finish = text_finish,
	.error = text_error,
};
