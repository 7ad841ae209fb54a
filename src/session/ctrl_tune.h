/* ctrl_tune.h - options of the control socket, both roles. */
#ifndef IPERF_CTRL_TUNE_H
#define IPERF_CTRL_TUNE_H

struct iperf_test;

/* --snd-timeout (TCP_USER_TIMEOUT) and --cntl-ka (keepalive; -V prints
 * the values in effect), or our defaults for what the user left out.
 * 0, or -1 with the error recorded. */
int test_tune_ctrl(struct iperf_test *test);

#endif /* IPERF_CTRL_TUNE_H */
