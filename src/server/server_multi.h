/*
 * server_multi.h - a server that runs up to --max-tests tests at once.
 *
 * The server object (the test the user configured) becomes a dispatcher:
 * it owns the listener, reads the 37-byte cookie of every connection,
 * and either hands the connection to the test whose cookie it carries
 * (a data connection) or starts a new test in a thread of its own (a
 * control connection).  Each test is a struct iperf_test of its own,
 * created and freed whole, that borrows the server's options and runs
 * the ordinary server state machine (server.c) on its own loop.
 *
 * A test takes a slot only once its parameters are accepted; one that
 * finds none answers ACCESS_DENIED, stock's "the server is busy".  UDP
 * and SCTP streams carry no cookie: a test sets up such streams only
 * while it holds the server's one setup turn, so a datagram or an
 * association on the port is always the current holder's.
 */
#ifndef IPERF_SERVER_MULTI_H
#define IPERF_SERVER_MULTI_H

struct iperf_test;

/* 1 when the server runs as this dispatcher: --max-tests above 1, or an
 * operator's option (a port range, admission by source, --audit-log,
 * --metrics-listen) or sockets passed by systemd. */
int server_multi_wanted(const struct iperf_test *s);
/* Run the dispatcher until interrupted (-1), --one-off served (0), an
 * --idle-timeout restart (2), or the listener cannot be opened (-2). */
int server_multi_run(struct iperf_test *server);

#endif /* IPERF_SERVER_MULTI_H */
