/*
 * server_child.h - what a --max-tests dispatcher (server_multi.c) does
 * for each of its tests.  The dispatcher installs these in every test it
 * makes (test->child_ops); the per-test server (server.c) calls them and
 * knows nothing else of the dispatcher.  A test of a plain server has
 * none.
 */
#ifndef IPERF_SERVER_CHILD_H
#define IPERF_SERVER_CHILD_H

struct iperf_test;

struct server_child_ops {
	/* Parameters accepted: take a slot, and the setup turn for
	 * transports without cookies.  0, 1 when refused (answer busy),
	 * -1 on error. */
	int (*admit)(struct iperf_test *test);
	/* CREATE_STREAMS of a cookie transport: connections with this
	 * test's cookie come to it through the dispatcher.  0 or -1. */
	int (*data_listener)(struct iperf_test *test);
	/* The streams are in (or the test ends): no more data connections;
	 * the setup turn goes to the next test. */
	void (*setup_done)(struct iperf_test *test);
	/* The wake-up fd was written: take the connections handed over. */
	void (*take_inbox)(struct iperf_test *test);
};

#endif /* IPERF_SERVER_CHILD_H */
