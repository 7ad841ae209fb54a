/*
 * clockoff.h - the offset between two clocks from timestamped exchanges,
 * and the one-way delays it corrects (--owd).  Pure: no clock, no I/O.
 *
 * Each exchange has four times, in nanoseconds of each end's own clock:
 * t1 the client sends, t2 the server reads, t3 the server answers, t4 the
 * client reads the answer.  Its round trip without the server's turn is
 * delta = (t4 - t1) - (t3 - t2), and its offset estimate (server clock
 * minus client clock) theta = ((t2 - t1) + (t3 - t4)) / 2, which is off
 * the true offset by at most delta / 2 whatever the two one-way delays
 * are (neither is negative).
 *
 * The exchanges fall into windows of window_ns of the client clock (2 s:
 * the offset is re-estimated every window); each window keeps its
 * lowest-delta exchange.  The fit (clockoff_fit) uses the "clean"
 * windows, whose delta is at most 2 * the lowest delta + 200 us (the
 * quiet ones: the idle phase before the load, and any other window with
 * no queue on the path):
 *   - with clean windows spanning CLOCKOFF_DRIFT_SPAN_NS or more, a least
 *     squares line theta(t): offset and drift; bound = the largest
 *     delta / 2 of the windows used;
 *   - else the single lowest-delta exchange: offset = its theta, drift 0,
 *     bound = its delta / 2.
 * A step: two consecutive windows whose offset intervals (theta +- delta
 * / 2) are further apart than max(4 * bound, 1 ms) plus 200 ppm of the
 * time between them.  Absurd: an offset above CLOCKOFF_ABSURD_NS (1 h).
 *
 * Delays (clockoff_dists): forward = t2 - t1 - offset(t), reverse = t4 -
 * t3 + offset(t), t the middle of the exchange on the client clock; a
 * value below 0 (a step, a wrong fit) counts as 0 and is counted as
 * clamped.  Everything is int64 nanoseconds: an offset of hours neither
 * wraps nor turns a delay negative.
 */
#ifndef IPERF_CLOCKOFF_H
#define IPERF_CLOCKOFF_H

#include <stddef.h>
#include <stdint.h>

#include "latstat.h"

#define CLOCKOFF_WINDOW_NS 2000000000LL       /* re-estimate every 2 s */
#define CLOCKOFF_DRIFT_SPAN_NS 10000000000LL  /* drift from 10 s of fit */
#define CLOCKOFF_ABSURD_NS 3600000000000LL    /* 1 h */
#define CLOCKOFF_MAX_RECS 1000000             /* records kept (32 MB) */

struct clockoff_rec {
	int64_t t1, t2, t3, t4; /* ns, see above */
	uint64_t mono_us;       /* the client's monotonic clock at t4 */
	int loaded;             /* sent while the test's load ran */
};

struct clockoff_win {
	int64_t t;      /* middle of its best exchange, client clock */
	int64_t theta;  /* offset of that exchange */
	int64_t delta;  /* its round trip without the server's turn */
};

struct clockoff {
	int64_t window_ns;
	int64_t t0; /* t1 of the first exchange */
	struct clockoff_rec *rec;
	size_t n, cap;
	struct clockoff_win *win;
	size_t nwin, wcap;
	size_t cur_win;    /* window number of the newest window */
	uint64_t dropped; /* exchanges not kept (CLOCKOFF_MAX_RECS, bad) */
};

struct clockoff_fit {
	int valid;         /* an exchange was seen */
	int64_t t_ref;     /* client clock where offset_ns applies */
	int64_t offset_ns; /* server clock minus client clock at t_ref */
	double drift_ppm;  /* the offset's slope, 1e-6 */
	int64_t bound_ns;  /* offset_ns is within this of the truth */
	int step;          /* a clock stepped during the exchanges */
	int absurd;        /* |offset| above CLOCKOFF_ABSURD_NS */
	size_t windows;    /* windows used by the fit */
};

/* Counts of clockoff_dists(). */
struct clockoff_counts {
	uint64_t samples, clamped;
};

void clockoff_init(struct clockoff *c, int64_t window_ns);
void clockoff_free(struct clockoff *c);
/* Keep one exchange; 0, 1 if it was dropped (t4 < t1, t3 < t2, a time
 * before 1970 or after 2116, clocks over 2^60 ns apart, the cap), -1 on
 * no memory. */
int clockoff_add(struct clockoff *c, const struct clockoff_rec *r);
/* The fit over the exchanges so far (f->valid 0 without any). */
void clockoff_fit(const struct clockoff *c, struct clockoff_fit *f);
/* The fitted offset at client time t (ns). */
int64_t clockoff_at(const struct clockoff_fit *f, int64_t t);
/*
 * Forward and reverse delays (ns) of the exchanges whose mono_us is in
 * [from_us, to_us) (and, if loaded_only, sent under load) into fwd and
 * rev (initialised by the caller); -1 on no memory.
 */
int clockoff_dists(const struct clockoff *c, const struct clockoff_fit *f,
    uint64_t from_us, uint64_t to_us, int loaded_only, struct latstat *fwd,
    struct latstat *rev, struct clockoff_counts *n);

/*
 * The UDP data direction (--owd): each datagram's transit, its arrival
 * time minus the send time in its header, in int64 microseconds.
 *
 * Arrival clock: kernel arrival times (SO_TIMESTAMPNS) are CLOCK_REALTIME
 * as the kernel keeps it, and a user clock (the probe's t1..t4) may be
 * another (libfaketime fakes only the process's clock).  After each
 * receive d = the user clock now - the kernel's arrival time; its running
 * minimum over 1 to 2 s (clockoff_dmin_add) is the difference of the two
 * clocks plus a few microseconds, and kernel time + that minimum is the
 * arrival on the probe's clock.
 */
struct clockoff_dmin {
	int have;
	int64_t start_us; /* user clock at the start of the current second */
	int64_t cur, prev; /* minimum of this window and of the previous */
};

#define CLOCKOFF_DMIN_WINDOW_US 1000000LL

/* One receive: now_us the user clock, kts_us the kernel's arrival; the
 * running minimum of now - kts (m zeroed before the first call). */
int64_t clockoff_dmin_add(struct clockoff_dmin *m, int64_t now_us,
    int64_t kts_us);

/*
 * A transit summary rel (microseconds above ref_us: each value is ref_us
 * + its figure) corrected by corr_us (+offset for datagrams the server
 * sent, -offset for those the client sent) into one-way delays in out;
 * a figure below 0 becomes 0.  Returns how many samples at least were
 * below 0: the share of the highest of min, p50, p90, p99, max that was
 * (all of them for max).
 */
uint64_t clockoff_correct(const struct latsum *rel, int64_t ref_us,
    int64_t corr_us, struct latsum *out);

#endif /* IPERF_CLOCKOFF_H */
