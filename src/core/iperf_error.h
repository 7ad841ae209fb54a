/* iperf_error.h - error codes to text, and recording failures on a test. */
#ifndef IPERF_ERROR_H
#define IPERF_ERROR_H

#include <stddef.h>

struct iperf_test;
struct iperf_err_state;

/*
 * Record why the current operation failed: the iperf error code and the
 * errno at the time (pass 0 for none).  Always returns -1, so it composes
 * with `return`.
 */
int iperf_fail(struct iperf_test *test, int code, int sys_errno);
/* Same, for resolver failures (getaddrinfo's return value). */
int iperf_fail_gai(struct iperf_test *test, int code, int gai_error);
/* Same, after a net_dial()/net_listen() failure: its *gai_err names a
 * resolver error or a failed step (NET_ERR_*), else errno is used. */
int iperf_fail_net(struct iperf_test *test, int code, int gai_error);
/* Same, for IEUNITVAL with the offending text. */
/* Same with errno: the text names arg, then the reason (IEOUTFILE). */
int iperf_fail_arg_errno(struct iperf_test *test, int code, const char *arg,
    int sys_errno);
int iperf_fail_arg(struct iperf_test *test, int code, const char *arg);

/* Forget the recorded failure (its code becomes IENONE): a caller that
 * tries something whose failure does not end the test (a stranger's
 * connection, a socket option callback's verdict read back at once). */
void iperf_err_clear(struct iperf_test *test);

/* Set the process-wide i_errno (a relaxed atomic store: tests in several
 * threads may fail at once; the value is one of theirs). */
void error_publish(int code);

/* Format an error state as iperf3 prints it after "error - ". */
void iperf_error_format(const struct iperf_err_state *e, char *buf,
    size_t len);

#endif /* IPERF_ERROR_H */
