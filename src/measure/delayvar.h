/*
 * delayvar.h - one-way delay variation of received datagrams, as pure
 * code (no socket, no clock of its own).
 *
 * Every datagram carries its send time (udp_wire.h: 32-bit seconds and
 * microseconds of the sender's clock).  Its transit is arrival - send; the
 * two clocks are unrelated, so a transit means nothing alone, but the
 * difference of two transits is the difference of the two one-way delays
 * (the clock offset cancels; clock drift during a test does not, a few
 * microseconds per second for ordinary oscillators).  The delay variation
 * of a datagram is its transit minus the smallest transit of the test:
 * 0 for the fastest datagram, the queueing it met above that otherwise.
 *
 * Exact at report time: each transit is stored as its offset from the
 * FIRST transit of the test (so the numbers stay small whatever the clock
 * offset), in two histograms (offsets >= 0, and the magnitude of negative
 * ones: datagrams faster than the first).  The minimum offset is tracked
 * exactly; a summary takes the percentiles of the stored offsets in order
 * and subtracts the minimum known at that moment.  Samples recorded before
 * the minimum fell are therefore measured from the final minimum too, not
 * from an older, larger one.  Interval summaries are taken when the
 * interval ends and use the minimum known then (a later, smaller minimum
 * cannot change a printed interval); the end-of-test summary uses the
 * test's minimum.  Accuracy is that of latstat.h relative to the offset
 * from the first transit (exact below 256 us, 1/128 above).
 *
 * Wraparound: seconds are compared modulo 2^32 (a sender's 32-bit seconds
 * field that wraps, or a clock offset of any size, changes nothing);
 * offsets must stay within +-2^31 s of the first transit.  A header whose
 * microseconds field is not below 1000000 is not a timestamp this code
 * understands: the datagram is counted in no delay figure.
 *
 * Not thread-safe: the UDP receiver's worker adds under the stream's lock;
 * the loop thread takes the interval's samples out (delayvar_take) under
 * the same lock and summarises them outside it.
 */
#ifndef IPERF_DELAYVAR_H
#define IPERF_DELAYVAR_H

#include <stdint.h>

#include "latstat.h"

/* Samples of a period: offsets from the first transit, in microseconds. */
struct dv_hist {
	struct latstat above; /* offsets >= 0 */
	struct latstat below; /* -offset, for offsets < 0 */
};

struct delayvar {
	int have;           /* the first transit was seen */
	uint32_t ref_sec;   /* first transit: whole seconds, modulo 2^32 */
	int32_t ref_usec;   /* and microseconds (-999999..999999) */
	int64_t min_off;    /* smallest offset seen in the test */
	uint64_t invalid;   /* datagrams with a malformed timestamp */
	struct dv_hist cur; /* samples since the last delayvar_take() */
};

void dv_hist_init(struct dv_hist *h);
void dv_hist_free(struct dv_hist *h);
/* Forget the samples, keep the allocations. */
void dv_hist_reset(struct dv_hist *h);
/* dst += src; -1 if dst could not be allocated. */
int dv_hist_merge(struct dv_hist *dst, const struct dv_hist *src);
uint64_t dv_hist_count(const struct dv_hist *h);
#ifdef HAVE_PEERIVAL
/*
 * Several streams together (a sum): each stream's offsets are from its own
 * first transit, so they are brought to a common reference first.  dst +=
 * every offset of src minus min_off (the stream's minimum), i.e. the
 * stream's delay variation above its own fastest datagram (>= 0); a
 * latstat_summary() of dst is then the sum's delay variation.  Values are
 * those of src's buckets (exact below 256 us, bucket midpoints above,
 * kept within src's exact minimum and maximum).  -1 on no memory.
 */
int dv_hist_merge_shifted(struct latstat *dst, const struct dv_hist *src,
    int64_t min_off);
#endif

/* An arrival time split into seconds and microseconds once per received
 * buffer (one clock read serves every datagram of a GRO buffer).  Kept
 * from buffer to buffer, it divides only when a new second begins. */
struct dv_arrival {
	uint32_t sec;     /* modulo 2^32 */
	int32_t usec;
	uint64_t base_us; /* the start of second `sec`; 0: none yet */
};

/* a: zeroed before the first call, then the previous value. */
void dv_arrival_set(struct dv_arrival *a, uint64_t arrival_us);

void delayvar_init(struct delayvar *dv);
void delayvar_free(struct delayvar *dv);
/*
 * One datagram sent at sec/usec of the sender's clock, received at `at`
 * of ours (any epoch).  Returns the offset of its transit from the first
 * transit in *off_us when that pointer is not NULL; -1 (nothing recorded)
 * for a malformed timestamp, -2 if the histogram could not be allocated
 * (the minimum and counts are still right).
 */
int delayvar_add(struct delayvar *dv, uint32_t sec, uint32_t usec,
    const struct dv_arrival *at, int64_t *off_us);
/*
 * Move the samples since the last take into *out, which must be empty
 * (dv_hist_reset); dv keeps out's allocations for the next period, so no
 * memory is touched here (cheap under a lock).
 */
void delayvar_take(struct delayvar *dv, struct dv_hist *out);
/*
 * Summary of h against the minimum offset min_off (delayvar.min_off when
 * the samples were taken): samples, and min/p50/p90/p99/p999/max of
 * (offset - min_off) in microseconds; mean likewise.
 */
void dv_summary(const struct dv_hist *h, int64_t min_off, struct latsum *out);

#endif /* IPERF_DELAYVAR_H */
