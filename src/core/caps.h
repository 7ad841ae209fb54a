/*
 * caps.h - the server's caps on one test, as a clamp (ext.h "clamp").
 *
 * A server with --server-max-duration, --server-max-bytes,
 * --server-max-streams or --server-bitrate-limit refuses a stock
 * client's test that goes beyond one of them (3.21's refusals).  Toward
 * our client, which asked for "clamp", it runs the test within them
 * instead: server/server_caps.c computes this record from the caps and
 * the client's request, session/caps_doc.c carries it to the client
 * (state EXT_STATE_CAPS and a JSON document) and turns its applied
 * values into the settings both ends then run with, report/ prints it.
 *
 * Units: seconds, bytes (all streams, both directions added), streams
 * (all directions: -P x 2 with --bidir), bits/s (all streams, both
 * directions).  A requested 0 means untimed / unbounded / unlimited.
 */
#ifndef IPERF_CAPS_H
#define IPERF_CAPS_H

#include <stdint.h>

#define CAP_DURATION (1u << 0) /* --server-max-duration */
#define CAP_BYTES (1u << 1)    /* --server-max-bytes */
#define CAP_STREAMS (1u << 2)  /* --server-max-streams */
#define CAP_BITRATE (1u << 3)  /* --server-bitrate-limit */
#define CAP_ALL (CAP_DURATION | CAP_BYTES | CAP_STREAMS | CAP_BITRATE)

/* One cap: what the test asked for, what it runs with, the server's
 * limit. */
struct cap_value {
	uint64_t requested;
	uint64_t applied;
	uint64_t limit;
};

struct server_caps {
	unsigned int configured; /* CAP_*: the caps the server has */
	unsigned int changed;    /* CAP_*: those that changed the request */
	struct cap_value duration; /* seconds of -t (0: untimed) */
	struct cap_value bytes;    /* bytes (0: unbounded) */
	struct cap_value streams;  /* streams */
	struct cap_value bitrate;  /* bits/s (0: unlimited) */
	/* -O, seconds: 0 once a byte cap bounds the test (the omitted
	 * seconds would otherwise run outside the bound); not a cap of its
	 * own, in the document only when it changed. */
	int omit_requested, omit_applied;
};

#endif /* IPERF_CAPS_H */
