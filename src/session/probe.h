/*
 * probe.h - --latency: request/response latency beside the test's load.
 *
 * The probe rides the control connection, a TCP connection of its own
 * that carries no bulk data and crosses the same path as the data streams.
 * Once our server has confirmed EXT_LATENCY (ext.h), the client sends the
 * one-byte request EXT_STATE_PROBE at most every PROBE_PERIOD_US, one at
 * a time, and our server answers each with the same byte at once (its
 * loop thread, not a data worker).  The client times each round trip
 * (CLOCK_MONOTONIC, ns) into one of two histograms:
 *
 *   idle    for PROBE_IDLE_US before the load starts: the client delays
 *           connecting its data streams by that long after CREATE_STREAMS;
 *   loaded  from TEST_RUNNING (after the omit period) until the end;
 *           round trips in between (streams connecting, -O) are not kept.
 *
 * A request outstanding when the phase changes counts in the phase it was
 * sent in; one outstanding at the end is dropped.  Nothing here prints:
 * when the probe stops it publishes its figures in test->run.ses.latency
 * (iperf.h), which the reporters read.  The probe's state is its own,
 * made by probe_start() and freed by probe_release().
 */
#ifndef IPERF_PROBE_H
#define IPERF_PROBE_H

#include <stdint.h>

struct iperf_test;

#define PROBE_PERIOD_US 100000ULL /* about ten requests a second */
#define PROBE_IDLE_US 1000000ULL  /* the idle phase before the load */
#define PROBE_OWD_PERIOD_US 20000ULL /* --owd: about fifty a second */

/* Client: start probing (idle phase); -1 with the error on the test. */
int probe_start(struct iperf_test *test);
/* Client: the idle phase ends (the streams are being connected). */
void probe_warmup(struct iperf_test *test);
/* Client: the load begins (TEST_RUNNING, after any omit period). */
void probe_loaded(struct iperf_test *test);
/* Client: stop sending requests (the test ends). */
void probe_stop(struct iperf_test *test);
/* Client: an answer arrived; -1 if none was awaited (a protocol error). */
int probe_on_answer(struct iperf_test *test);
#ifdef HAVE_OWD
/*
 * --owd (ext.h owd): each request is EXT_STATE_TSPROBE, sent at t1
 * (CLOCK_REALTIME); the answer brings the server's t2 and t3 and is read
 * at t4.  Each exchange goes into test->run.ses.owd (measure/clockoff.h)
 * with the phase it was sent in, and its round trip into the --latency
 * figures as above.
 */
/* CLOCK_REALTIME in nanoseconds. */
int64_t probe_wall_ns(void);
/* Client: the server's times of the answer awaited; -1 with the error
 * on the test if none was (or no memory). */
int probe_owd_answer(struct iperf_test *test, int64_t t2, int64_t t3);
#endif
/* Stop and free the probe, if it ran (run release). */
void probe_release(struct iperf_test *test);

#endif /* IPERF_PROBE_H */
