/*
 * mcast_listen.h - iperf3 -s --multicast-listen GROUP: an extra receiver
 * of --multicast tests with no control connection of its own.  It joins
 * GROUP on the server's port (-p; -B or --bind-dev pick the interface),
 * and follows the tests whose datagrams carry the extension
 * (proto/dgram_ext.h): the first datagram of a test id starts a test, its
 * end marker (or 3 s of silence, or 3 s past the planned end) ends it.
 * Figures: measure/mcast_acct.h; output: report/report_mcast.h.
 */
#ifndef IPERF_MCAST_LISTEN_H
#define IPERF_MCAST_LISTEN_H

struct iperf_test;

/*
 * Receive until a signal (a test under way gets its summary first) or,
 * with -1, until one test ended.  0; -2 when the listener cannot start
 * (the group cannot be joined...: reported, test->run.err set).
 */
int mcast_listen_run(struct iperf_test *test);

#endif /* IPERF_MCAST_LISTEN_H */
