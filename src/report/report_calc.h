/*
 * report_calc.h - the figures both reporters print, computed once from a
 * test's streams: direction groups, the role tags, which side knows what,
 * and the end-of-test sender/receiver numbers of each stream and group.
 *
 * Rules (the text summary and JSON "end" of 3.21, checked against its
 * output):
 *  - A group is one data direction.  Without --bidir there is one group
 *    (all streams); with it, group 0 is the client's sending streams or the
 *    server's receiving ones, group 1 the other direction.
 *  - The server reports before it learns the client's results, so on a
 *    server the peer half of every figure is unknown: bytes 0, time = the
 *    local time, no remote CPU, no remote congestion algorithm.  A client
 *    whose peer sent nothing (interrupted) shows the same zeros.
 *  - Times are keyed on the test's direction, not the stream's: a client
 *    (not -R, so also in --bidir) takes the sender time from its own clock
 *    and the receiver time from the peer; -R and a server the other way.
 */
#ifndef IPERF_REPORT_CALC_H
#define IPERF_REPORT_CALC_H

#include <stdint.h>

struct iperf_test;
struct iperf_stream;

#define REPORT_ROLE_LEN 8

/* End-of-test figures of one stream, or the totals of a group. */
struct report_end {
	uint64_t sent_bytes;  /* the sender's count, omit period excluded */
	uint64_t rcvd_bytes;  /* the receiver's count */
	double sender_time;   /* seconds */
	double receiver_time;
	double local_time;    /* this end's elapsed time */
	int64_t retransmits;  /* the sender's (0 when unknown) */
	/* datagram protocols */
	double jitter;          /* seconds, the receiver's (group: mean) */
	int64_t lost;           /* the receiver's count */
	int lost_unknown;       /* peer sent no omit-period loss count */
	int64_t sender_packets; /* 0 when unknown */
	int64_t receiver_packets;
	int64_t packets;        /* the sender's count if known, else ours */
	uint64_t ooo;           /* out of order (receiving end only) */
	int streams;            /* group: number of streams added up */
};

int report_is_datagram(const struct iperf_test *test);
/* SCTP: 3.21's JSON has no buffer sizes, MSS or summed retransmits. */
int report_is_sctp(const struct iperf_test *test);
int report_is_bidir(const struct iperf_test *test);
/* -P > 1: [SUM] rows and interval separators. */
int report_want_sums(const struct iperf_test *test);
/* Retransmit figures exist (Retr columns, JSON retransmit keys). */
int report_retr_known(const struct iperf_test *test);
/* Whether this end knows the retransmits of direction group g: its own
 * sending streams, or (client only) the peer's from its results. */
int report_group_has_retr(const struct iperf_test *test, int g);
/* This stream's interval rows carry Retr/Cwnd (TCP info, or SCTP). */
int report_stream_has_retr(const struct iperf_test *test,
    const struct iperf_stream *sp);

/* 1 or 2 groups; whether group g sends; whether sp belongs to group g. */
int report_group_count(const struct iperf_test *test);
int report_group_sends(const struct iperf_test *test, int g);
int report_in_group(const struct iperf_test *test,
    const struct iperf_stream *sp, int g);
/* First stream of group g, or NULL. */
struct iperf_stream *report_group_first(const struct iperf_test *test, int g);

/* "" without --bidir, else "[TX-C]" and friends. */
void report_role_tag(const struct iperf_test *test,
    const struct iperf_stream *sp, char tag[REPORT_ROLE_LEN]);

void report_end_stream(const struct iperf_test *test,
    const struct iperf_stream *sp, struct report_end *e);
/* Totals of group g; times are those of the group's last stream. */
void report_end_group(const struct iperf_test *test, int g,
    struct report_end *sum);

/* Remote CPU figures as reported (zeros on a server). */
void report_remote_cpu(const struct iperf_test *test, double out[3]);
/* Congestion algorithm names for a group (NULL when unknown). */
void report_congestion(const struct iperf_test *test, int sends,
    const char **snd, const char **rcv);

/* Local elapsed time of the test's first stream (0 without streams). */
double report_first_local_time(const struct iperf_test *test);
/* -F: size of the file (test->diskfile_size, else stat), 0 if unknown. */
int64_t report_diskfile_size(const struct iperf_test *test);

#endif /* IPERF_REPORT_CALC_H */
