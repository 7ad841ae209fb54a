/*
 * test.h - test lifecycle helpers shared by client.c and server.c:
 * mode, wake-up pipe, send limits (-n/-k), stream teardown, timers.
 */
#ifndef IPERF_TEST_H
#define IPERF_TEST_H

#include <stddef.h>
#include <stdint.h>

struct iperf_test;

/* Recompute test->mode and sender_has_retransmits from role/reverse/bidir. */
void test_update_mode(struct iperf_test *test);
/* Streams this end sends on (1) or receives on (0) for the i-th stream
 * created (0-based) out of `total`; bidir: client sends the first half. */
int test_stream_is_sender(const struct iperf_test *test, int index);
/* Number of data streams the test uses (P, or 2P with --bidir). */
int test_total_streams(const struct iperf_test *test);
/* The server port of this test: the one a server test was reached on
 * (a -p range serves several), else -p. */
int test_server_port(const struct iperf_test *test);

/* Worker -> loop notification (async-signal-safe as well). */
void test_wake(struct iperf_test *test);
int test_open_wake(struct iperf_test *test);
void test_close_wake(struct iperf_test *test);
void test_drain_wake(struct iperf_test *test);

/* -n / -k accounting for senders (thread-safe). */
int test_send_limit_reached(struct iperf_test *test);
/* A send moved `bytes` in `blocks` blocks (datagrams, with UDP GSO). */
uint64_t test_send_reserve(struct iperf_test *test, uint64_t want,
    size_t blksize);
void test_count_sent_batch(struct iperf_test *test, uint64_t bytes,
    uint64_t blocks, uint64_t granted);
void test_limit_rebase(struct iperf_test *test); /* at the end of omit */
/* Does this end's sender stop once -n/-k is sent?  Yes, but for our
 * server sending datagrams to a client that did not ask for count_stop
 * (ext.h): a stock client ends only when it has received the count, so
 * the sender goes on until the client ends the test, as stock does. */
int test_count_stops_sender(const struct iperf_test *test);
/* Shortest silence of a datagram flow that ends a count (see below). */
#define TEST_DATAGRAM_SILENCE_MIN_US 250000ULL

/* A run's state (test->run): zeroed with no sockets.  Its owners release
 * their parts (session/run.h: test_run_release()); test_run_free() frees
 * what the model itself holds (result documents, strings, buffers). */
void test_run_init(struct iperf_test *test);
void test_run_free(struct iperf_test *test);
/* Cancel the test's timers. */
void test_cancel_timers(struct iperf_test *test);

/* How long a sender may sit in one send() without progress before the
 * test fails: --snd-timeout if given, else --rcv-timeout (default 120 s). */
uint64_t test_send_stall_limit_us(const struct iperf_test *test);

/* A new test object: zeroed, its locks made, a run with no sockets;
 * NULL (and IENEWTEST published) if out of memory.  test_delete() frees
 * what test_new() made, the settings' strings and its reference to the
 * configuration (test_config.h); owners of the rest (output, run,
 * listeners) release theirs first. */
struct iperf_test *test_new(void);
void test_delete(struct iperf_test *test);
/* Make test use cfg (a reference to it) in place of its own
 * configuration: a --max-tests server's tests share the server's. */
struct iperf_config;
void test_share_config(struct iperf_test *test, struct iperf_config *cfg);
/* Stop the test at its next loop pass, as signal sig asks (any thread). */
void test_interrupt(struct iperf_test *test, int sig);

/* Record a failure of a public entry point into i_errno; returns -1. */
int test_api_fail(struct iperf_test *test);

#endif /* IPERF_TEST_H */
