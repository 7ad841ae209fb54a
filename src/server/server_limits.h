/*
 * server_limits.h - the server's policies around a test: what it refuses
 * at parameter time (--server-max-duration, --server-bitrate-limit,
 * --server-max-streams, --server-max-bytes), the timers that stop a
 * running test (test duration / safety timer, measured bit rate, bytes
 * moved) and the idle timer that restarts a listener nobody uses
 * (--idle-timeout).
 */
#ifndef IPERF_SERVER_LIMITS_H
#define IPERF_SERVER_LIMITS_H

struct iperf_test;

/* Time a test may run past --server-max-duration before it is stopped:
 * TEST_START's trip to the client and TEST_END's trip back. */
#define SERVER_MAX_DURATION_SLACK_S 2
/* Longest sampling period of the measured bit rate. */
#define SERVER_RATE_SAMPLE_US 1000000ULL
/* How far above the bit-rate cap a clamped test may be measured. */
#define SERVER_CAPS_RATE_SLACK 0.05
/* Period of the --server-max-bytes check. */
#define SERVER_BYTES_CHECK_US 100000ULL

/* The client's parameters against the limits: 0, or -1 with
 * IEMAXSERVERTESTDURATIONEXCEEDED (also for the streams and bytes caps)
 * or IETOTALRATE recorded. */
int server_limits_check_params(struct iperf_test *test);
/* TEST_START: arm the duration and bit-rate watchdogs.  0 or -1. */
int server_limits_start(struct iperf_test *test);
/* TEST_END (or the end of the test): disarm them. */
void server_limits_stop(struct iperf_test *test);

/* Listening with no client: arm --idle-timeout.  0 or -1. */
int server_limits_idle_start(struct iperf_test *test);
void server_limits_idle_stop(struct iperf_test *test);
/* The idle timer fired (test->idle_restarted): the -d messages. */
void server_limits_idle_report(struct iperf_test *test);

#endif /* IPERF_SERVER_LIMITS_H */
