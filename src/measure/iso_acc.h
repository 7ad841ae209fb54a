/*
 * iso_acc.h - --isochronous frame statistics.  Pure: the caller passes
 * the times (microseconds of CLOCK_REALTIME) and owns the locking.
 *
 * Receiver.  Frames are numbered from 1 by the sender, in the order it
 * sent them (a tick the sender skipped gets no number, so a gap is a
 * loss on the way).  A frame is received when all its bytes arrived:
 *  - datagrams (iso_acc_datagram): each says its frame's number, tick
 *    and size; the bytes of the frame being assembled are added up.  A
 *    datagram of a later frame ends the one being assembled: if it is
 *    short of bytes it is lost, and so is every number in between that
 *    never showed up.  A datagram of an earlier frame is ignored.  A
 *    frame still incomplete when the test ends is not counted at all
 *    (its last datagrams may be on their way).
 *  - records (iso_acc_record, TCP): each complete record is a frame;
 *    a gap in the numbers is counted as lost.
 * For each received frame: its latency (arrival of its last byte minus
 * its tick, two hosts' clocks: raw), the inter-arrival time since the
 * previous received frame's last byte, and the latency jitter as RFC
 * 3550 smooths transit differences: J += (|D| - J) / 16, where D is the
 * difference between two consecutive received frames' latencies.
 * Latencies and inter-arrivals are kept one per frame (at most
 * ISO_MAX_SAMPLES of each; counts go on beyond), so the distributions
 * are exact and may be taken for any run of frames (an interval).
 *
 * Sender: frame sizes (iso_sizes) and frames sent and skipped.
 */
#ifndef IPERF_ISO_ACC_H
#define IPERF_ISO_ACC_H

#include <stddef.h>
#include <stdint.h>

#define ISO_MAX_SAMPLES 1000000 /* per series: 16 MB at most */

/* Sizes of frames in bytes: count, sum, sum of squares, extremes. */
struct iso_sizes {
	uint64_t n, min, max;
	double sum, sumsq;
};

struct iso_acc {
	uint64_t frames;   /* received */
	uint64_t lost;
	double jitter_us;
	int64_t *lat_us;   /* latency of each received frame */
	size_t n_lat, cap_lat;
	int64_t *ia_us;    /* inter-arrival, from the second frame */
	size_t n_ia, cap_ia;
	int have_prev;
	int64_t prev_lat, prev_arrival;
	uint32_t next_id;  /* the lowest number not seen yet */
	/* the frame being assembled (datagrams) */
	int open;
	uint32_t cur_id, cur_bytes;
	uint64_t cur_got;
	int64_t cur_tick;
	struct iso_sizes sizes;      /* of the frames received */
	struct iso_sizes sizes_ival; /* ... since the caller last reset it */
};

/* A distribution (microseconds); all 0 without samples. */
struct iso_dist {
	uint64_t samples;
	double min, mean, p50, p99, max;
};

void iso_sizes_add(struct iso_sizes *s, uint64_t bytes);
double iso_sizes_mean(const struct iso_sizes *s);
double iso_sizes_stddev(const struct iso_sizes *s);

void iso_acc_init(struct iso_acc *a);
void iso_acc_release(struct iso_acc *a);
/* One datagram of len bytes of frame id (its tick and whole size). */
void iso_acc_datagram(struct iso_acc *a, uint32_t id, int64_t tick_us,
    uint32_t frame_bytes, size_t len, int64_t arrival_us);
/* One complete record (TCP): frame id of `bytes` bytes. */
void iso_acc_record(struct iso_acc *a, uint32_t id, int64_t tick_us,
    uint32_t bytes, int64_t arrival_us);

/* The distribution of v[0..n): exact nearest-rank percentiles (the p-th
 * is the ceil(p/100 * n)-th smallest).  -1 on no memory (out zeroed). */
int iso_dist_of(const int64_t *v, size_t n, struct iso_dist *out);
/* Every figure moved by delta_us (a clock offset). */
void iso_dist_shift(struct iso_dist *d, double delta_us);

#endif /* IPERF_ISO_ACC_H */
