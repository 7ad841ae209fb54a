/*
 * ext.h - extensions beyond stock iperf3, negotiated in one place.
 *
 * Our client adds one key to the parameter document, EXT_PARAM_KEY, only
 * when it asks for something our server does differently from stock:
 *
 *   "iperf3_compat": {"version": "0.1.0", "want": ["count_stop", ...]}
 *
 * A stock server ignores the unknown key (observed with 3.12 and 3.21),
 * and a stock client never sends it, so our server keeps stock behaviour
 * for stock clients.  Names our server does not know are ignored.
 *
 * Features:
 *  - count_stop: a -n/-k test whose client receives datagrams (UDP -R or
 *    --bidir).  Our client ends such a count on the sender's evidence
 *    (datagram sequence numbers, or the flow falling silent), so lost
 *    datagrams cannot hold it open; our server's sender may then stop at
 *    the count exactly.  Without it (a stock client, which ends only once
 *    it has received the count) our server's datagram sender goes on past
 *    the count until the client ends the test, as a stock server does.
 *  - udp_offload: a UDP test (without --gsro, and neither end given
 *    --no-udp-offload).  Our server grants it by answering each stream's
 *    hello with the 8-byte "6789+gso" (udp_wire.h) in place of "6789":
 *    the first 4 bytes are the stock reply, so any client reading 4
 *    bytes still sees it.  Once granted, both ends send with UDP GSO
 *    (batches bounded in time at the -b rate) and receive with UDP GRO.
 *    Each datagram keeps its own header and sequence number on the wire;
 *    a stock server never grants it (it replies "6789"), so a stock peer
 *    sees exactly the stock datagram flow.
 *  - stats: our server adds the figures only it measured to each stream
 *    of its results document ("rtt_us" of a TCP sender, "delay_var_us"
 *    and "lost_in_receiver" of a UDP receiver; summaries as
 *    {"samples","min","p50","p90","p99","max"} in microseconds) and
 *    "sum_rtt_us" over its sending streams at the top (stats_dist.h).  A
 *    stock client never asks, so a stock client's results document stays
 *    stock, and so does the server output sent to it (our keys stripped
 *    from the JSON copy, the text hint line not captured).
 *  - rr (--rr) and latency (--latency) change what the test does, so our
 *    client goes on only once the server has confirmed them: our server
 *    sends the state byte EXT_STATE_CONFIRM right before CREATE_STREAMS
 *    (a value no stock iperf3 sends).  A CREATE_STREAMS without it means
 *    a stock server: our client stops there, before any data connection,
 *    with IENOTCOMPAT.  The object also carries "rr_response" (bytes of
 *    a response) with rr; an rr test asks for neither udp_offload nor
 *    stats (rr.h).
 *  - clamp: every test of our client unless --no-clamp.  A server with
 *    caps (--server-max-duration, --server-max-bytes,
 *    --server-max-streams, --server-bitrate-limit) runs the test within
 *    them instead of refusing it: right after the parameters it sends
 *    the state byte EXT_STATE_CAPS (102, never sent by stock iperf3) and
 *    the caps document (session/caps_doc.h: each cap's requested and
 *    applied value), framed as the parameter document is, before
 *    EXT_STATE_CONFIRM and CREATE_STREAMS; both ends then run with the
 *    applied settings.  A server without caps sends nothing new.
 *  - owd (--owd, configure --disable-owd leaves it out): one-way delay
 *    with a measured clock offset.  It changes what the test does, so it
 *    needs the confirmation as latency does; the client asks for it in
 *    place of "latency" (a server without it then confirms nothing) and
 *    without udp_offload (each datagram keeps its own send and arrival
 *    time).  Its probe sends EXT_STATE_TSPROBE in place of
 *    EXT_STATE_PROBE: the one byte from the client; from the server the
 *    byte and two big-endian int64, t2 (when its loop read the request)
 *    and t3 (just before the write), CLOCK_REALTIME nanoseconds (17
 *    bytes, one write; session/probe.h, measure/clockoff.h).
 *  - rpm (--rpm): load streams framed as records and probes of
 *    responsiveness (stream/rpm_stream.h); confirmed as rr is, so a stock
 *    server ends the test with IENOTCOMPAT before any data connection.
 *  - peer_intervals: a test with "stats" whose intervals our client
 *    writes as JSON (-J, --json-stream, --plot).  Our server sends, in
 *    TEST_RUNNING right after each of its intervals, the state byte
 *    EXT_STATE_PEER_IVAL (103) and a document framed as the parameters
 *    (u32 big-endian length, then JSON, at most EXT_PEER_IVAL_MAX bytes)
 *    with the figures only it measured (session/peer_ival.h); our client
 *    adds them to its own interval.  No confirmation: an older server of
 *    ours, or a stock one, sends none and the intervals lack them.
 */
#ifndef IPERF_EXT_H
#define IPERF_EXT_H

struct iperf_test;
struct cJSON;

#define EXT_PARAM_KEY "iperf3_compat"
#define EXT_COUNT_STOP (1u << 0)
#define EXT_UDP_OFFLOAD (1u << 1)
#define EXT_STATS (1u << 2)
#define EXT_RR (1u << 3)
#define EXT_LATENCY (1u << 4)
#define EXT_CLAMP (1u << 5)
#define EXT_OWD (1u << 6)
#define EXT_RPM (1u << 7)
#define EXT_PEER_IVAL (1u << 8)
#define EXT_MCAST (1u << 9)
#define EXT_ISO (1u << 10)
/* Features our client runs only once the server confirmed them. */
#define EXT_NEEDS_CONFIRM (EXT_RR | EXT_LATENCY | EXT_OWD | EXT_RPM | \
	EXT_MCAST | EXT_ISO)
/* Control byte of that confirmation (never sent by stock iperf3). */
#define EXT_STATE_CONFIRM 100
/* latency: the probe's request and answer on the control connection
 * (probe.h); only between ends that negotiated EXT_LATENCY. */
#define EXT_STATE_PROBE 101
/* clamp: the caps document follows (length-prefixed JSON, core/caps.h);
 * sent before EXT_STATE_CONFIRM and CREATE_STREAMS. */
#define EXT_STATE_CAPS 102
/* owd: the probe's timestamp exchange (see owd above). */
#define EXT_STATE_TSPROBE 104
/* peer_intervals: one interval's figures of our server follow. */
#define EXT_STATE_PEER_IVAL 103
#define EXT_PEER_IVAL_MAX 65536

/* 1 if this build can do UDP GSO and GRO (udp_offload). */
int ext_udp_offload_built(void);

/* Client: the features this test asks for (0: send no key). */
unsigned int ext_client_wants(const struct iperf_test *test);
/* Client: add the key to the parameter document; 0 or -1 (no memory). */
int ext_encode(const struct iperf_test *test, struct cJSON *params);
/* Server: the features the client asked for (0 when the key is absent
 * or malformed; never an error, as a stock server would not fail). */
unsigned int ext_decode(const struct cJSON *params);
/* Server: the extension's settings (rr_response) into test->settings;
 * 0, or -1 with IERECVPARAMS for a value out of range. */
int ext_decode_settings(struct iperf_test *test, const struct cJSON *params);
/* Server: 1 if it must send EXT_STATE_CONFIRM before CREATE_STREAMS. */
int ext_server_confirms(const struct iperf_test *test);

#endif /* IPERF_EXT_H */
