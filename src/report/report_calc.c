/* report_calc.c - figures shared by the text and JSON reporters. */
#include "config.h"

#include <sys/stat.h>
#include <stdio.h>
#include <string.h>

#include "iperf.h"
#include "iperf_time.h"
#include "proto_ops.h"
#include "report_calc.h"
#include "report_int.h"
#include "stats.h"
#include "stream.h"
#include "banned.h"

int
report_is_datagram(const struct iperf_test *test)
{
	return test->proto != NULL &&
	    (test->proto->flags & PROTO_F_DATAGRAM) != 0;
}

int
report_is_bidir(const struct iperf_test *test)
{
	return test->settings.bidirectional != 0;
}

int
report_want_sums(const struct iperf_test *test)
{
	return test->settings.num_streams > 1;
}

int
report_retr_known(const struct iperf_test *test)
{
	return test->sender_has_retransmits == 1 ||
	    (test->opt->role == 'c' && test->peer_has_retransmits == 1);
}

static int
is_sctp(const struct iperf_test *test)
{
	return test->proto != NULL && test->proto->id == Psctp;
}

int
report_is_sctp(const struct iperf_test *test)
{
	return is_sctp(test);
}

int
report_group_has_retr(const struct iperf_test *test, int g)
{
	if (is_sctp(test))
		return 1;
	if (report_group_sends(test, g))
		return test->sender_has_retransmits == 1;
	return test->opt->role == 'c' && test->peer_has_retransmits == 1;
}

int
report_stream_has_retr(const struct iperf_test *test,
    const struct iperf_stream *sp)
{
	return sp->sender &&
	    (test->sender_has_retransmits == 1 || is_sctp(test));
}

static int
report_mode_sender(const struct iperf_test *test)
{
	int reverse = test->settings.reverse != 0;

	return test->opt->role == 'c' ? !reverse : reverse;
}

static int
report_peer_known(const struct iperf_test *test, const struct iperf_stream *sp)
{
	return test->opt->role == 'c' && sp->peer.present;
}

int
report_group_count(const struct iperf_test *test)
{
	return report_is_bidir(test) ? 2 : 1;
}

int
report_group_sends(const struct iperf_test *test, int g)
{
	if (!report_is_bidir(test))
		return test->mode == MODE_SENDER;
	return (g == 0) == (test->opt->role == 'c');
}

int
report_in_group(const struct iperf_test *test, const struct iperf_stream *sp,
    int g)
{
	if (!report_is_bidir(test))
		return g == 0;
	return (sp->sender != 0) == report_group_sends(test, g);
}

struct iperf_stream *
report_group_first(const struct iperf_test *test, int g)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next)
		if (report_in_group(test, sp, g))
			return sp;
	return NULL;
}

void
report_role_tag(const struct iperf_test *test, const struct iperf_stream *sp,
    char tag[REPORT_ROLE_LEN])
{
	tag[0] = '\0';
	if (report_is_bidir(test))
		(void)snprintf(tag, REPORT_ROLE_LEN, "[%s-%c]",
		    sp->sender ? "TX" : "RX",
		    test->opt->role == 'c' ? 'C' : 'S');
}

/* Peer datagram counts with the omit period taken out when we can. */
static int64_t
peer_packets(const struct stream_peer *p)
{
	return p->packets - (p->has_omitted_pair ? p->omitted_packets : 0);
}

static int64_t
peer_lost(const struct stream_peer *p)
{
	return p->errors - (p->has_omitted_pair ? p->omitted_errors : 0);
}

static void
end_datagrams(const struct iperf_test *test, const struct iperf_stream *sp,
    int peer, struct report_end *e)
{
	int64_t local = stats_local_packets(sp);
	int64_t remote = peer ? peer_packets(&sp->peer) : 0;

	if (sp->sender) {
		e->sender_packets = local;
		e->receiver_packets = remote;
		e->jitter = peer ? sp->peer.jitter : 0.0;
		e->lost = peer ? peer_lost(&sp->peer) : 0;
		e->lost_unknown = peer && !sp->peer.has_omitted_pair &&
		    test->settings.omit > 0;
		e->packets = local;
	} else {
		e->sender_packets = remote;
		e->receiver_packets = local;
		e->jitter = sp->final.jitter;
		e->lost = stats_local_lost(sp);
		e->ooo = stats_local_ooo(sp);
		e->packets = peer ? remote : local;
	}
}

void
report_end_stream(const struct iperf_test *test, const struct iperf_stream *sp,
    struct report_end *e)
{
	int peer = report_peer_known(test, sp);
	uint64_t local_bytes = stats_local_bytes(sp);
	uint64_t peer_bytes = peer ? sp->peer.bytes : 0;
	double peer_time;

	memset(e, 0, sizeof(*e));
	e->streams = 1;
	e->local_time = stats_local_seconds(sp);
	peer_time = peer ? sp->peer.end_time - sp->peer.start_time :
	    e->local_time;
	if (report_mode_sender(test)) {
		e->sender_time = e->local_time;
		e->receiver_time = peer_time;
	} else {
		e->sender_time = peer_time;
		e->receiver_time = e->local_time;
	}
	e->sent_bytes = sp->sender ? local_bytes : peer_bytes;
	e->rcvd_bytes = sp->sender ? peer_bytes : local_bytes;
	if (sp->sender)
		e->retransmits = sp->retransmits;
	else if (peer && sp->peer.retransmits > 0)
		e->retransmits = sp->peer.retransmits;
	if (report_is_datagram(test))
		end_datagrams(test, sp, peer, e);
}

static void
add_end(struct report_end *sum, const struct report_end *e)
{
	sum->sent_bytes += e->sent_bytes;
	sum->rcvd_bytes += e->rcvd_bytes;
	sum->retransmits += e->retransmits;
	sum->jitter += e->jitter;
	sum->lost += e->lost;
	sum->lost_unknown |= e->lost_unknown;
	sum->sender_packets += e->sender_packets;
	sum->receiver_packets += e->receiver_packets;
	sum->packets += e->packets;
	sum->ooo += e->ooo;
	sum->streams++;
	sum->sender_time = e->sender_time;
	sum->receiver_time = e->receiver_time;
	sum->local_time = e->local_time;
}

void
report_end_group(const struct iperf_test *test, int g, struct report_end *sum)
{
	struct iperf_stream *sp;
	struct report_end e;

	memset(sum, 0, sizeof(*sum));
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (!report_in_group(test, sp, g))
			continue;
		report_end_stream(test, sp, &e);
		add_end(sum, &e);
	}
	if (sum->streams > 0)
		sum->jitter /= sum->streams;
}

void
report_remote_cpu(const struct iperf_test *test, double out[3])
{
	int i;

	for (i = 0; i < 3; i++)
		out[i] = test->opt->role == 'c' ? test->run.remote_cpu_util[i] : 0.0;
}

void
report_congestion(const struct iperf_test *test, int sends, const char **snd,
    const char **rcv)
{
	const char *local = test->run.congestion_used;
	const char *remote = test->opt->role == 'c' ?
	    test->run.remote_congestion_used : NULL;

	*snd = sends ? local : remote;
	*rcv = sends ? remote : local;
}

void
report_wall_time(struct iperf_test *test, time_t *secs, uint64_t *ms)
{
	if (test->run.start_wall_ms == 0) {
		test->run.start_wall_ms = iperf_time_wall_us() / 1000;
		test->run.start_wall = (time_t)(test->run.start_wall_ms / 1000);
	}
	*ms = test->run.start_wall_ms;
	*secs = (time_t)(test->run.start_wall_ms / 1000);
}

int64_t
report_diskfile_size(const struct iperf_test *test)
{
	struct stat st;

	if (test->diskfile_size > 0)
		return test->diskfile_size;
	if (test->opt->diskfile_name == NULL ||
	    stat(test->opt->diskfile_name, &st) == -1)
		return 0;
	return (int64_t)st.st_size;
}

double
report_first_local_time(const struct iperf_test *test)
{
	return test->run.streams != NULL ? stats_local_seconds(test->run.streams) : 0.0;
}
