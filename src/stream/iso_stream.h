/*
 * iso_stream.h - --isochronous (ext.h EXT_ISO, between our client and our
 * server only): frames at a fixed rate, each a burst, and the receiver's
 * frame statistics (measure/iso_acc.h).
 *
 * Sender (iso_worker).  Tick k is at start + k / fps (the monotonic
 * clock paces; the frame carries the tick as CLOCK_REALTIME us).  At each
 * tick one frame goes out whole, its size drawn from the log-normal of
 * measure/iso_gen.h.  Frames are numbered from 1 in the order sent.  A
 * sender that finishes a frame less than one period late sends the next
 * at once (catching up); one later than that skips to the newest tick
 * that is due, sends that frame at once, and counts the ticks it jumped
 * over as skipped (they get no number: the receiver does not count them
 * as lost).
 *
 * UDP: the frame is cut into datagrams of -l bytes (the last one shorter,
 * at least ISO_UDP_MIN bytes, and the frame grows to fit it), each with
 * the stock header (sequence numbers go on as without --isochronous, so
 * the stock loss and jitter figures still hold) and the datagram
 * extension (proto/dgram_ext.h, DGX_ISO: frame id, tick, frame size,
 * offset).  The transport writes them (proto/proto_udp_iso.c) from
 * sp->iso->dg, which the worker fills before each send; the receiving
 * transport hands every datagram with DGX_ISO (and not DGX_END) to
 * iso_acc_datagram.
 *
 * TCP: a frame is one record, big-endian:
 *   0  magic   u32  ISO_REC_MAGIC ("i3xF")
 *   4  length  u32  the whole record, header included (>= ISO_REC_HDR)
 *   8  frame   u32  its number (from 1)
 *  12  0       u32  reserved
 *  16  tick    u64  CLOCK_REALTIME us of the frame's tick
 *  24  filler  length - 24 bytes
 * The receiver's worker parses records across reads (iso_rec_parse) and
 * counts a frame when its last byte is read.  A bad magic or length ends
 * the stream as an error (IESTREAMREAD, EPROTO).
 *
 * Ownership (stream.h): rx and tx are written by the worker under
 * sp->w.lock (the UDP receiver's transport already holds it); gen, dg,
 * parser belong to the worker; the rest to the loop thread.
 */
#ifndef IPERF_ISO_STREAM_H
#define IPERF_ISO_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "iso_acc.h"
#include "iso_gen.h"

struct iperf_test;
struct iperf_stream;
struct cJSON;

#define ISO_REC_MAGIC 0x69337846u /* "i3xF" */
#define ISO_REC_HDR 24
#define ISO_UDP_MIN 80          /* a stock header (16) and DGX_LEN */
#define ISO_FRAME_MAX (64u << 20) /* the largest frame drawn, bytes */

/* Parser of incoming records. */
struct iso_rec_parser {
	unsigned char hdr[ISO_REC_HDR];
	size_t have;     /* header bytes so far */
	uint64_t left;   /* body bytes still to come (0: in a header) */
	uint32_t len, id;
	uint64_t tick_us;
};

typedef void iso_rec_fn(void *arg, uint32_t id, uint64_t tick_us,
    uint32_t len);

void iso_rec_header(unsigned char *h, uint32_t len, uint32_t id,
    uint64_t tick_us);
void iso_rec_parser_init(struct iso_rec_parser *p);
/* Feed n bytes; done(arg, ...) for each record whose last byte is in
 * them.  0, or -1 on a malformed header. */
int iso_rec_parse(struct iso_rec_parser *p, const unsigned char *buf,
    size_t n, iso_rec_fn *done, void *arg);

/* UDP sender: the datagram about to go (the worker's). */
struct iso_dgram {
	uint32_t frame_id, frame_bytes, frame_off;
	uint64_t tick_us;
	size_t len;
};

/* One side's figures, of an interval or of the test. */
struct iso_fig {
	int receiver;             /* 1: the receiver's half, 0: sender's */
	uint64_t frames, lost;    /* receiver */
	double jitter_us;
	struct iso_dist lat, ia;
	uint64_t sent, skipped;   /* sender */
	struct iso_sizes sizes;   /* frames sent / received */
};

struct iso_stream {
	/* the worker's */
	struct iso_gen gen;
	struct iso_dgram dg;
	struct iso_rec_parser parser;
	/* written by the worker under sp->w.lock */
	struct iso_acc rx;
	uint64_t sent, skipped;
	struct iso_sizes sizes, sizes_ival; /* sender: the test's, and
					    * since the last interval */
	/* loop thread: baselines at the last interval and the omit end */
	uint64_t b_frames, b_lost, b_sent, b_skipped;
	size_t b_lat, b_ia;
	uint64_t o_frames, o_lost, o_sent, o_skipped;
	size_t o_lat, o_ia;
	struct iso_fig ival; /* the newest interval (ival_ok) */
	int ival_ok;
	struct iso_fig peer; /* the other end's (results), has_peer */
	int has_peer;
};

/* ---- data path (iso_stream.c) ---- */
int iso_stream_init(struct iperf_stream *sp);
void iso_stream_release(struct iperf_stream *sp);
/* 1 if iso_worker runs the stream (a sender, or a TCP receiver); a UDP
 * receiver runs the stock receive loop. */
int iso_stream_has_worker(const struct iperf_stream *sp);
void iso_worker(struct iperf_stream *sp);

/* ---- figures (iso_figs.c, loop thread) ---- */
/* Each interval (stats_sample): the newest interval's figures. */
void iso_stream_sample(struct iperf_test *test, int keep);
/* End of the omit period: the totals start here. */
void iso_stream_omit_end(struct iperf_test *test);
/* This end's figures of the test (after the omit period). */
void iso_stream_total(struct iperf_stream *sp, struct iso_fig *out);

/* ---- results (iso_figs.c) ---- */
/* Server, for a client that asked for EXT_ISO: "isochronous" in the
 * stream's object of the results. */
int iso_results_encode(const struct iperf_test *test,
    struct iperf_stream *sp, struct cJSON *o);
/* Client: the server's "isochronous" into sp->iso->peer. */
void iso_results_decode(struct iperf_stream *sp, const struct cJSON *o);
/* The figures as a JSON object (the results' and the reports' shape:
 * receiver: frames, lost, jitter_us, latency_us and interarrival_us
 * {samples, min, mean, p50, p99, max}, frame_bytes {frames, min, mean,
 * stddev, max}; sender: frames_sent, frames_skipped, frame_bytes); NULL
 * on no memory. */
struct cJSON *iso_fig_json(const struct iso_fig *f);

#endif /* IPERF_ISO_STREAM_H */
