/*
 * rpm_calc.h - the arithmetic of --rpm (responsiveness), after the IETF
 * draft "Responsiveness under Working Conditions"
 * (draft-ietf-ippm-responsiveness, the rules of its revision 05 as this
 * file states them; see docs/iperf3.1 for the mapping to iperf3).
 *
 * Pure functions on plain numbers, no I/O:
 *  - the trimmed mean of a series of delays: sorted, the slowest
 *    (1 - RPM_TRIM_KEEP) of the samples left out, the rest averaged;
 *  - the aggregate delay: self probes weigh 1/2, the foreign connect and
 *    the foreign request/response 1/4 each (the draft's TCP, TLS and
 *    HTTP foreign parts at 1/6 each, with no TLS, become two parts of
 *    1/4);
 *  - RPM = 60 / aggregate delay in seconds;
 *  - stability: a series is stable once it has RPM_MAD moving averages
 *    (each over the last RPM_MAD values) whose standard deviation is
 *    within RPM_SDT of the newest one.
 */
#ifndef IPERF_RPM_CALC_H
#define IPERF_RPM_CALC_H

#include <stddef.h>
#include <stdint.h>

#define RPM_DRAFT "draft-ietf-ippm-responsiveness-05"
#define RPM_MAD 4            /* moving-average distance (intervals) */
#define RPM_SDT 0.05         /* standard deviation tolerance */
#define RPM_TRIM_KEEP 0.95   /* trimmed mean: the fastest 95 % */
#define RPM_ID_US 1000000ULL /* interval duration */

/* One kind of probe's delays (microseconds in the results). */
struct rpm_dist {
	uint64_t samples;
	double p50_us, p90_us, trimmed_us;
};

/* What the client reports (end.rpm). */
struct rpm_result {
	int used;   /* --rpm ran and the figures below are set */
	int stable; /* goodput and responsiveness both reached stability */
	double rpm; /* 0 when a kind of probe has no sample */
	double aggregate_ms;
	struct rpm_dist self, fconn, frr;
	uint64_t foreign_failed; /* foreign probes without an answer */
	int load_streams;        /* load connections active at the end */
	double goodput_bps;      /* moving average when the load held */
	double window_s;         /* seconds of the window the probes count in */
};

/* Stability over a series of values pushed one interval at a time. */
struct rpm_stab {
	double v[RPM_MAD];  /* the last values (ring) */
	double ma[RPM_MAD]; /* the last moving averages (ring) */
	unsigned int nv, nma;
	double last_ma;
};

/* Sort v (n values) ascending in place and summarise it (ns in, us out). */
void rpm_dist_of(uint64_t *v, size_t n, struct rpm_dist *out);
/* The trimmed mean of n sorted values (0 for none). */
double rpm_trimmed_mean(const uint64_t *sorted, size_t n);
/* 1/2 self + 1/4 foreign connect + 1/4 foreign request (any unit). */
double rpm_aggregate(double self, double fconn, double frr);
/* Round trips per minute for a delay in milliseconds (0 for none). */
double rpm_from_ms(double ms);

void rpm_stab_init(struct rpm_stab *st);
/* Push the next interval's value; 1 once the series is stable. */
int rpm_stab_push(struct rpm_stab *st, double value);

#endif /* IPERF_RPM_CALC_H */
