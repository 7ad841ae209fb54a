/*
 * client_rpm.h - the client's side of --rpm (rpm_stream.h): a controller
 * thread that ramps the load and sends the foreign probes, and the
 * figures at the end (rpm_calc.h).
 *
 * Ramp.  One load stream is active when the test starts.  Every
 * RPM_ID_US the thread adds up the bytes all streams have written: while
 * that interval's goodput beats the best so far by RPM_GROWTH, it
 * activates one more stream (at most -P, by default RPM_MAX_STREAMS).
 * The first interval that does not (or the last stream) marks the load
 * saturated: the "working conditions" begin, and only probes from then
 * on count.  A test that never gets there counts the probes of its
 * second half.  "stable" says whether, over the working conditions,
 * both the goodput and the per-interval RPM met the draft's stability
 * rule (rpm_calc.h).
 *
 * Foreign probes.  Every RPM_FOREIGN_PERIOD_US the thread opens a new
 * TCP connection to the server's address and port (the control
 * connection's peer) and times the connect (foreign connect); it then
 * writes the test's cookie and a PING record and times the PONG
 * (foreign request/response).  A probe not done within
 * RPM_FOREIGN_TIMEOUT_MS per step counts as failed and gives no sample.
 *
 * The result: each kind's trimmed mean, the aggregate, RPM, and whether
 * the per-interval RPM was stable too (rpm_calc.h).
 */
#ifndef IPERF_CLIENT_RPM_H
#define IPERF_CLIENT_RPM_H

struct iperf_test;

#define RPM_FOREIGN_PERIOD_US 100000ULL
#define RPM_FOREIGN_TIMEOUT_MS 2000

/* At TEST_RUNNING, before the workers start; -1 with the error set. */
int client_rpm_start(struct iperf_test *test);
/* At the end of the load (or a failure): stop the thread and, the first
 * time, compute run.cli.rpm_res. */
void client_rpm_stop(struct iperf_test *test);
/* Once the workers are joined. */
void client_rpm_free(struct iperf_test *test);

#endif /* IPERF_CLIENT_RPM_H */
