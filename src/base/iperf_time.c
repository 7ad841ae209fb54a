/* iperf_time.c - clocks. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "iperf_time.h"
#include "banned.h"

static uint64_t
ts_to_us(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * USEC_PER_SEC + (uint64_t)ts->tv_nsec / 1000;
}

uint64_t
iperf_time_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_to_us(&ts);
}

uint64_t
iperf_time_wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts_to_us(&ts);
}

void
iperf_time_rfc1123(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%a, %d %b %Y %H:%M:%S %Z", &tm) == 0) {
		if (len > 0)
			buf[0] = '\0';
	}
}

void
iperf_time_sleep_until(uint64_t deadline_us)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(deadline_us / USEC_PER_SEC);
	ts.tv_nsec = (long)((deadline_us % USEC_PER_SEC) * 1000);
	(void)clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}
