/* iperf_time.h - monotonic and wall clocks in microseconds. */
#ifndef IPERF_TIME_H
#define IPERF_TIME_H

#include <stdint.h>
#include <time.h>

#define USEC_PER_SEC 1000000ULL

/* Monotonic clock (CLOCK_MONOTONIC), microseconds. */
uint64_t iperf_time_now_us(void);

/* Wall clock (CLOCK_REALTIME), microseconds since the Unix epoch. */
uint64_t iperf_time_wall_us(void);

/* RFC 1123 style UTC time, "Sun, 22 Nov 2026 01:56:10 GMT". */
void iperf_time_rfc1123(time_t t, char *buf, size_t len);

/* Sleep until the given monotonic time (us); returns early on EINTR. */
void iperf_time_sleep_until(uint64_t deadline_us);

#endif /* IPERF_TIME_H */
