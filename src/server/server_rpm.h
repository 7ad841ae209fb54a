/*
 * server_rpm.h - our server's side of --rpm's foreign probes
 * (client_rpm.h): while an rpm test runs, a new connection on the
 * control listener that brings the test's cookie and one PING record
 * (rpm_stream.h) gets its PONG and is closed.  Anything else, or nothing
 * complete within RPM_FOREIGN_WAIT_US, gets a busy server's answer
 * (ACCESS_DENIED), and so does a connection beyond
 * RPM_FOREIGN_PENDING_MAX probes being read.
 */
#ifndef IPERF_SERVER_RPM_H
#define IPERF_SERVER_RPM_H

#include <stdint.h>

struct iperf_test;

#define RPM_FOREIGN_WAIT_US 2000000ULL
#define RPM_FOREIGN_PENDING_MAX 16 /* probes being read at once */

/* A connection accepted on the listener: 1 if taken as a foreign probe
 * (the test is an rpm test and running), else 0 (the caller goes on).
 * cookie_read: a --max-tests dispatcher already read the test's cookie
 * from it. */
int server_rpm_accept(struct iperf_test *test, int fd, int cookie_read);
/* Deny the probes waiting longer than RPM_FOREIGN_WAIT_US. */
void server_rpm_expire(struct iperf_test *test, uint64_t now_us);
/* Close every probe still waiting. */
void server_rpm_drop(struct iperf_test *test);

#endif /* IPERF_SERVER_RPM_H */
