/*
 * report_mcast.h - the output of a --multicast-listen receiver
 * (server/mcast_listen.c): text lines as the tests go, or with -J one
 * document per test written at its end (docs/multicast-listen.schema.json).
 */
#ifndef IPERF_REPORT_MCAST_H
#define IPERF_REPORT_MCAST_H

#include <stdint.h>

struct iperf_test;
struct mcast_stats;
struct mcast_report;

/* What the listener knows of a test when its first datagram arrives. */
struct mcast_test_info {
	const char *group;   /* numeric */
	int port;
	const char *sender;  /* the first datagram's source address */
	int sender_port;
	uint64_t test_id;
	uint64_t start_us;   /* the sender's start (CLOCK_REALTIME) */
	uint32_t duration_ms; /* planned, 0: bound by bytes or blocks */
	double join_latency_ms; /* from the join to the first datagram */
	int joined_late;
	int counters64;      /* 64-bit sequence numbers */
	uint64_t first_seq;
	const char *interface; /* --bind-dev or -B, or NULL */
};

/* How a test ended. */
struct mcast_end_info {
	int end_marker;      /* the sender's end marker arrived */
	int left_early;      /* no end marker: timed out or interrupted */
	int interrupted;     /* SIGINT/SIGTERM during the test */
	uint64_t sender_packets, sender_bytes; /* from the end marker */
	uint64_t foreign;    /* datagrams of no test seen meanwhile */
};

/* "Multicast listener on GROUP port P" (text only). */
void mcast_report_listening(struct iperf_test *test, const char *group,
    int port, const char *interface);
/* A test started: its start line(s), or its JSON document begun. */
struct mcast_report *mcast_report_start(struct iperf_test *test,
    const struct mcast_test_info *info);
/* One interval, start and end in seconds since the first datagram. */
void mcast_report_interval(struct mcast_report *r, double start, double end,
    const struct mcast_stats *s);
/* The summary (and with -J the whole document); frees r. */
void mcast_report_end(struct mcast_report *r, double secs,
    const struct mcast_stats *total, const struct mcast_end_info *e);
/* The listener could not start: "iperf3: error - MSG" (with -J also a
 * document {"error": MSG} on the output). */
void mcast_report_error(struct iperf_test *test, const char *msg);

#endif /* IPERF_REPORT_MCAST_H */
