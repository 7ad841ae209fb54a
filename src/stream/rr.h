/*
 * rr.h - --rr: request/response transactions in place of a bulk flow
 * (netperf TCP_RR / UDP_RR style), between our client and our server
 * only (ext.h EXT_RR, confirmed before CREATE_STREAMS).
 *
 * Each stream's worker runs one transaction at a time: the requester
 * sends a request of -l bytes (blksize), reads the whole response of
 * rr_response bytes and records the round trip (CLOCK_MONOTONIC, ns) in
 * the stream's histogram; the answerer reads a whole request and answers
 * it.  The requester is the end whose stream sends (sp->sender): the
 * client, the server with -R, each end for half the streams with
 * --bidir.  -P N runs N such streams in parallel (per direction), each
 * with its own worker.  A server of ours from before -R/--bidir refuses
 * a parameter document asking for them with rr (IERECVPARAMS), before
 * any data.  TCP data connections get TCP_NODELAY on both ends (proto.c); UDP never
 * uses GSO/GRO for --rr (ext.c asks for no udp_offload).
 *
 * UDP.  Datagrams are bare payload (no iperf3 UDP header).  When both the
 * request and the response have at least RR_ID_LEN bytes, each request
 * starts with its number (64-bit, big-endian, from 1) and the server
 * copies it into the start of its response; shorter messages carry no
 * number and are just counted.  The client waits for a response at most
 * rr_timeout_ns(): clamp(20 x the p99 of the stream's round trips so
 * far, 10 ms, 2 s), recomputed after 1, 16, 64 answers, then every 256;
 * before the first answer the same rule takes the control connection's
 * smoothed RTT (TCP_INFO) for the p99, or waits 1 s where it is unknown.  A request
 * without its response by then counts as lost and the next request goes
 * out.  A response carrying another number (late, after its request was
 * given up) is ignored and counted as stale, and the wait goes on until
 * the same deadline.  Without numbers a late response cannot be told
 * apart: it is taken for the next request's.
 *
 * Accounting.  Transfer counts the bytes this end moved both ways
 * (requests and responses; on the client also the request of a lost
 * transaction and stale responses); UDP "packets" likewise counts the
 * datagrams sent and received.  Workers publish their figures to the
 * loop thread in batches (at most RR_BATCH transactions or RR_FLUSH_NS,
 * whichever comes first, and when they stop), under sp->w.lock: round
 * trips go into rr->shared, counters into sp->live.  The loop thread
 * takes rr->shared at each interval (rr_take(): counters and histogram in
 * one critical section, so an interval's transactions are exactly its
 * samples) and merges it into rr->total after the omit period.  A batch
 * may so land in the next interval: by at most RR_FLUSH_NS plus the one
 * transaction then in flight.
 *
 * Results.  Each end adds to its results document, for every stream it
 * sends on and for all of them, an "rr" object (rr_results_encode) that
 * the other end reads (rr_results_decode) for the streams it answers:
 * an answerer counts the requests it answered, only the requester knows
 * the round trips.  With --bidir the per-stream object also carries the
 * histogram ("hist", rr_hist_add) so that each end merges both
 * directions exactly into its end.rr.  Stock peers never see it (--rr
 * runs only between our two programs).
 */
#ifndef IPERF_RR_H
#define IPERF_RR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "iperf.h"
#include "latstat.h"

struct cJSON;
struct iperf_stream;
struct iperf_test;
struct stream_live;

#define RR_ID_LEN 8
#define RR_BATCH 64
#define RR_FLUSH_NS 1000000ULL /* 1 ms */
#define RR_TIMEOUT_FIRST_NS 1000000000ULL /* before the first answer */
#define RR_TIMEOUT_MIN_NS 10000000ULL     /* 10 ms */
#define RR_TIMEOUT_MAX_NS 2000000000ULL   /* 2 s */
#define RR_TIMEOUT_P99_FACTOR 20

/* Figures a worker has not published yet. */
struct rr_batch {
	uint64_t rtt[RR_BATCH]; /* client: round trips, ns */
	unsigned int samples;
	uint64_t trans, lost, stale, bytes, packets;
	uint64_t since_ns; /* first unpublished event, 0 if none */
};

struct rr_stream {
	/* worker (or stream_step), set up before it starts */
	unsigned char *req;  /* sp->buffer: the stream's payload */
	unsigned char *resp; /* owned */
	size_t req_len, resp_len;
	int numbered;       /* UDP: messages carry their number */
	uint64_t next_id;
	uint64_t timeout_ns;  /* UDP: the current loss timeout */
	uint64_t rcvtimeo_ns; /* UDP: SO_RCVTIMEO as last set */
	struct latstat seen;  /* UDP client: every round trip (timeout) */
	struct rr_batch batch;
	/* under sp->lock: published round trips not yet taken */
	struct latstat shared;
	/* loop thread */
	struct latstat interval; /* the last interval's round trips */
	struct latstat total;    /* after the omit period */
	struct rr_peer peer;     /* answerer: from the requester's results */
	struct latstat peer_hist; /* ... its round trips (--bidir), ns */
};

/* ---- pure parts (rr_wire.c) ---------------------------------------------- */

/* Do messages of these sizes carry their number? */
int rr_numbered(size_t req_len, size_t resp_len);
/* Write id at the start of buf (len >= RR_ID_LEN). */
void rr_id_put(unsigned char *buf, uint64_t id);
/* The number at the start of a message; -1 if it is too short. */
int rr_id_get(const unsigned char *buf, size_t len, uint64_t *id);
/* Is a response of len bytes the answer to request `want`?  (Without
 * numbers, any response is.) */
int rr_is_answer(int numbered, const unsigned char *buf, size_t len,
    uint64_t want);
/* The UDP loss timeout for a stream whose round trips so far have this
 * p99 (ns) over `samples` answers. */
uint64_t rr_timeout_ns(uint64_t p99_ns, uint64_t samples);
/* The timeout before the first answer, from the control connection's
 * smoothed RTT in us (0: unknown). */
uint64_t rr_timeout_first_ns(uint64_t ctrl_rtt_us);
/* Recompute the timeout after this many answers? (1, 16, 64, 256k) */
int rr_timeout_due(uint64_t samples);
/* Transactions per second (0 for no time). */
double rr_rate(uint64_t trans, double seconds);
/* Add "rr": {"transactions", "lost", "latency_us"} (a results document's)
 * to parent; 0, or -1 on no memory. */
int rr_results_add(struct cJSON *parent, uint64_t trans, uint64_t lost,
    const struct latsum *lat);
/* Read such an object (NULL or malformed: not present). */
void rr_results_read(const struct cJSON *o, struct rr_peer *out);

/* ---- the results document (rr.c; rr_stub.c: nothing) ---------------------- */

/* Results document: the requester's "rr" per stream and for the test. */
int rr_results_encode(struct iperf_test *test, struct iperf_stream *sp,
    struct cJSON *stream_obj);
void rr_results_decode(struct iperf_stream *sp, const struct cJSON *stream_obj);
/* ... and for all streams, at the top of the document (run.rr_peer). */
int rr_results_encode_test(struct iperf_test *test, struct cJSON *doc);
void rr_results_decode_test(struct iperf_test *test, const struct cJSON *doc);

/* Does this end request on any stream (sends on it)? (rr.c) */
int rr_test_requests(const struct iperf_test *test);

/* ---- totals (rr_wire.c) ----------------------------------------------------- */

/* Whole-test round trips of all streams merged into out (initialised by
 * the caller; -1 on no memory); transactions and losses added up. */
int rr_test_totals(const struct iperf_test *test, struct latstat *out,
    uint64_t *trans, uint64_t *lost);

/* ---- histograms in the results document (rr.c) ------------------------------ */

/* Add h to an "rr" object as "hist": {"n", "sum", "min", "max", "b":
 * [bucket, count, ...]} (the non-empty buckets); 0, or -1 on no memory. */
int rr_hist_add(struct cJSON *rr_obj, const struct latstat *h);
/* Read it back into h (reset first; absent or malformed: left empty). */
void rr_hist_read(const struct cJSON *rr_obj, struct latstat *h);

/* ---- data path (rr.c) ------------------------------------------------------ */

/* After the transport's set-up: buffers and state; -1 with the error on
 * the test. */
int rr_stream_init(struct iperf_stream *sp);
void rr_stream_release(struct iperf_stream *sp);
/* The worker's loop (client: transactions; server: answers) until the
 * stream is asked to stop or its connection ends. */
void rr_worker(struct iperf_stream *sp);
/* One transaction in the calling thread (public iperf_send_mt /
 * iperf_recv_mt): bytes moved, 0 at the end, -1 with the error on the
 * test. */
ssize_t rr_step(struct iperf_stream *sp);

/* ---- loop thread (rr.c) ----------------------------------------------------- */

/* The live counters and the round trips published since the last take
 * (into rr->interval), in one critical section. */
void rr_take(struct iperf_stream *sp, struct stream_live *out);
/* After a take: the interval counts towards the total unless omitted. */
void rr_interval_done(struct iperf_stream *sp, int omitted);
/* End of the omit period (sp->lock held): what came before is dropped. */
void rr_omit_reset_locked(struct iperf_stream *sp);

#endif /* IPERF_RR_H */
