/*
 * latstat.h - distributions of latency-like samples in bounded memory.
 *
 * A log-linear histogram of unsigned integer samples (the unit is the
 * caller's: nanoseconds for request/response times, microseconds for
 * TCP_INFO's RTT).  Values below 2 * LATSTAT_SUB (256) are kept exactly;
 * above, each power of two is cut into LATSTAT_SUB (128) buckets, so a
 * value is known to within 1/128 of itself.  Values at or above
 * 2^LATSTAT_MAX_BITS fall into the last bucket.  Count, sum, minimum and
 * maximum are exact.  The bucket array is allocated at the first sample
 * (about 22 KB); an empty histogram costs nothing.
 *
 * Percentiles use the nearest rank: the p-th percentile of n samples is
 * the smallest recorded value v such that at least ceil(p/100 * n) samples
 * are <= v.  In the exact range that is a sample; above it, the midpoint
 * of the sample's bucket, kept within [min, max].
 *
 * Not thread-safe: one owner at a time (a worker fills its own, the loop
 * thread merges copies taken under the stream's lock).
 */
#ifndef IPERF_LATSTAT_H
#define IPERF_LATSTAT_H

#include <stdint.h>

struct cJSON;

#define LATSTAT_SUB_BITS 7
#define LATSTAT_SUB (1u << LATSTAT_SUB_BITS)
#define LATSTAT_MAX_BITS 42
#define LATSTAT_BUCKETS ((LATSTAT_MAX_BITS - LATSTAT_SUB_BITS + 1) * \
	LATSTAT_SUB)

struct latstat {
	uint32_t *counts; /* LATSTAT_BUCKETS, or NULL while empty */
	uint64_t n, sum, min, max;
};

/* The figures reported for a distribution (in the histogram's unit). */
struct latsum {
	uint64_t samples;
	uint64_t min, p50, p90, p99, p999, max;
	double mean;
};

/* One interval's figures the peer measured (core/ext.h "peer_intervals",
 * session/peer_ival.h), per stream or for a sum: summaries in us, jitter
 * in ms; the has_ flags say which it sent. */
struct peer_fig {
	int has_rtt, has_delay, has_udp;
	struct latsum rtt, delay;
	double jitter_ms;
	int64_t lost, packets;
};

/* Fields of latsum_to_json(). */
#define LATSUM_SAMPLES (1u << 0)
#define LATSUM_MIN (1u << 1)
#define LATSUM_P50 (1u << 2)
#define LATSUM_P90 (1u << 3)
#define LATSUM_P99 (1u << 4)
#define LATSUM_P999 (1u << 5)
#define LATSUM_MAX (1u << 6)
#define LATSUM_MEAN (1u << 7)
#define LATSUM_PCT (LATSUM_P50 | LATSUM_P90 | LATSUM_P99)

void latstat_init(struct latstat *h);
void latstat_free(struct latstat *h);
/* Forget the samples, keep the allocation. */
void latstat_reset(struct latstat *h);
/* Record one sample; -1 only if the first allocation failed (the count,
 * sum, min and max are still updated). */
int latstat_add(struct latstat *h, uint64_t v);
/* dst += src; -1 if dst could not be allocated. */
int latstat_merge(struct latstat *dst, const struct latstat *src);
/* dst = src (dst keeps or gets its own allocation); -1 on no memory. */
int latstat_copy(struct latstat *dst, const struct latstat *src);
/* The p-th percentile (0 < p <= 100) as described above; 0 if empty. */
uint64_t latstat_percentile(const struct latstat *h, double p);
/* The nearest-rank value of rank (1..n): the smallest recorded value v
 * with at least `rank` samples <= v (the maximum for rank >= n); 0 if
 * empty. */
uint64_t latstat_at_rank(const struct latstat *h, uint64_t rank);
/* The nearest rank of the p-th percentile among n samples: ceil(p/100*n),
 * at least 1. */
uint64_t latstat_rank_of(uint64_t n, double p);
void latstat_summary(const struct latstat *h, struct latsum *out);

/* Bucket arithmetic, exposed for the unit tests. */
unsigned int latstat_bucket(uint64_t v);
uint64_t latstat_bucket_low(unsigned int b);
uint64_t latstat_bucket_high(unsigned int b);

/*
 * A JSON object with the chosen fields of s, each value divided by
 * divisor (1 for a histogram in microseconds, 1000 for one in
 * nanoseconds reported in microseconds) and rounded to 3 decimals;
 * "samples" is the count.  NULL on no memory.
 */
struct cJSON *latsum_to_json(const struct latsum *s, double divisor,
    unsigned int fields);

#endif /* IPERF_LATSTAT_H */
