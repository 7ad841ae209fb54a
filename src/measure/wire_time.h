/*
 * wire_time.h - a time a peer wrote on the wire, made safe to subtract.
 * Pure.
 *
 * A hostile or broken sender may write any 64-bit value as its clock.
 * Receivers that take differences of such times (jitter, latency, one-way
 * delay: measure/mcast_acct.c, measure/iso_acc.c) first clamp each one to
 * [0, WIRE_TIME_MAX_US], about 146,000 years, so that no difference of two
 * overflows.
 */
#ifndef IPERF_WIRE_TIME_H
#define IPERF_WIRE_TIME_H

#include <stdint.h>

#define WIRE_TIME_MAX_US (INT64_C(1) << 62)

static inline int64_t
wire_time_us(int64_t t)
{
	return t < 0 ? 0 : t > WIRE_TIME_MAX_US ? WIRE_TIME_MAX_US : t;
}

#endif /* IPERF_WIRE_TIME_H */
