/*
 * server_caps.h - the server's caps on a test (core/caps.h): the clamp
 * our client asked for ("clamp", ext.h), and the byte bound a stock
 * client's test is refused by.
 */
#ifndef IPERF_SERVER_CAPS_H
#define IPERF_SERVER_CAPS_H

#include <stdint.h>

#include "caps.h"

struct iperf_test;
struct iperf_settings;

/* The caps of a server; 0: none. */
struct caps_limits {
	int duration_s;   /* --server-max-duration: time + omit */
	uint64_t bytes;   /* --server-max-bytes: all streams, both directions */
	int streams;      /* --server-max-streams: all directions */
	uint64_t bitrate; /* --server-bitrate-limit: bits/s, all streams */
};

/*
 * Pure: the clamp of the request s under lim into *out (the configured
 * caps, each one's requested and applied value, which changed).  In
 * order: the duration (time + omit within the cap; an untimed test runs
 * for it), the streams (-P lowered, at least one a direction), the bit
 * rate (over the applied streams: -b 0 or above the cap gets cap / k a
 * stream), the bytes (the test's byte bound, with the applied values,
 * above the cap: -n of cap / directions, no omitted seconds).  0, or -1
 * when no clamp meets a cap (a streams cap below the directions).
 */
int server_caps_compute(const struct caps_limits *lim,
    const struct iperf_settings *s, struct server_caps *out);

/*
 * Pure: the most bytes test s moves, all streams, both directions
 * added; UINT64_MAX when unbounded.  A count (-n, -k) and, before it,
 * its omitted seconds at the -b rate; a timed test's rate x (time +
 * omit); the smaller of the two when the test has both.  A rate of 0
 * (unlimited) bounds nothing.
 */
uint64_t server_caps_byte_bound(const struct iperf_settings *s);

/* Parameter time: toward a client that asked for "clamp", a server with
 * caps clamps its settings to them (run.srv.caps); 0, or -1 with
 * IEMAXSERVERTESTDURATIONEXCEEDED when no clamp can meet them. */
int server_caps_negotiate(struct iperf_test *test);
/* Before CREATE_STREAMS: EXT_STATE_CAPS and the document, if clamped. */
int server_caps_send(struct iperf_test *test);

#endif /* IPERF_SERVER_CAPS_H */
