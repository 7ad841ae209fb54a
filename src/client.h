/* client.h - the client state machine. */
#ifndef IPERF_CLIENT_H
#define IPERF_CLIENT_H

struct iperf_test;

/* Run one client test to completion; 0 or -1 (reason on test->err). */
int client_run(struct iperf_test *test);

#endif /* IPERF_CLIENT_H */
