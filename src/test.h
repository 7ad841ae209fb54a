/*
 * test.h - test lifecycle helpers shared by client.c and server.c:
 * mode, wake-up pipe, send limits (-n/-k), stream teardown, timers.
 */
#ifndef IPERF_TEST_H
#define IPERF_TEST_H

#include <stdint.h>

struct iperf_test;

/* Recompute test->mode and sender_has_retransmits from role/reverse/bidir. */
void test_update_mode(struct iperf_test *test);
/* Streams this end sends on (1) or receives on (0) for the i-th stream
 * created (0-based) out of `total`; bidir: client sends the first half. */
int test_stream_is_sender(const struct iperf_test *test, int index);
/* Number of data streams the test uses (P, or 2P with --bidir). */
int test_total_streams(const struct iperf_test *test);

/* Worker -> loop notification (async-signal-safe as well). */
void test_wake(struct iperf_test *test);
int test_open_wake(struct iperf_test *test);
void test_close_wake(struct iperf_test *test);
void test_drain_wake(struct iperf_test *test);

/* -n / -k accounting for senders (thread-safe). */
int test_send_limit_reached(struct iperf_test *test);
/* A send moved `bytes` in `blocks` blocks (datagrams, with UDP GSO). */
void test_count_sent(struct iperf_test *test, uint64_t bytes, uint64_t blocks);
void test_limit_rebase(struct iperf_test *test); /* at the end of omit */
/* Client end condition: bytes/blocks sent or received reached. */
int test_end_condition_met(struct iperf_test *test);

/* Close the data sockets but keep the streams' figures. */
void test_close_stream_sockets(struct iperf_test *test);
/* Close and free all streams. */
void test_free_streams(struct iperf_test *test);
/* Cancel the test's timers. */
void test_cancel_timers(struct iperf_test *test);

/* Options of the control socket, both roles: --snd-timeout
 * (TCP_USER_TIMEOUT) and --cntl-ka (keepalive; -V prints the values in
 * effect).  0, or -1 with the error recorded. */
int test_tune_ctrl(struct iperf_test *test);
/* How long a sender may sit in one send() without progress before the
 * test fails: --snd-timeout if given, else --rcv-timeout (default 120 s). */
uint64_t test_send_stall_limit_us(const struct iperf_test *test);

/* Record a failure of a public entry point into i_errno; returns -1. */
int test_api_fail(struct iperf_test *test);

#endif /* IPERF_TEST_H */
