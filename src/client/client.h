/* client.h - the client state machine. */
#ifndef IPERF_CLIENT_H
#define IPERF_CLIENT_H

struct iperf_test;

/* Run one client test to completion; 0 or -1 (reason on test->err). */
int client_run(struct iperf_test *test);
/* client_run() up to its loop: connected, cookie sent, the control
 * reader attached.  0, or -1 with the test ended (reported, done). */
int client_open(struct iperf_test *test);
/* End a client test before DISPLAY_RESULTS: partial summary, IPERF_DONE,
 * control connection closed, test done (iperf_client_end()). */
void client_end_early(struct iperf_test *test);

#endif /* IPERF_CLIENT_H */
