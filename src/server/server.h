/* server.h - the server state machine. */
#ifndef IPERF_SERVER_H
#define IPERF_SERVER_H

struct iperf_test;

/* Listen (if needed) and serve one test.  Returns 0 when a test ended
 * normally, -1 when it failed (test->err), -2 on a fatal error (cannot
 * listen), 2 for an idle-timeout restart. */
int server_run(struct iperf_test *test);
struct sockaddr_storage;
/* One test of a --max-tests server on an accepted control connection
 * whose cookie was read (server_multi.c); runs it to its end. */
int server_serve_connection(struct iperf_test *test, int fd,
    const struct sockaddr_storage *ss, const char *cookie);
/* server_run() up to its loop: listening (banner printed), the listener
 * watched, the check timer armed.  0, or -2 (fatal, reported). */
int server_open(struct iperf_test *test);
/* Open the control listener unless it is open; 0 or -1 (IELISTEN). */
int server_listen(struct iperf_test *test);
/* A control listener on `port` (the server's -B address, family and
 * device): its fd, or -1 with IELISTEN recorded. */
int server_open_listener(struct iperf_test *test, int port);
/* Close the listening socket. */
void server_close_listener(struct iperf_test *test);
/* A run left wherever it was (the stage functions allow it): connections
 * accepted but not yet read, then the run's threads and loop
 * (session/run.h: test_run_abandon). */
void server_abandon_run(struct iperf_test *test);
/* What a test of either role holds beyond its object, released: the
 * run (abandoned first), the CPU affinity, the listener.  The caller
 * then frees the object (test_delete) and, if it owns them, the output
 * file; a --max-tests server's tests are released the same way. */
void server_release_test(struct iperf_test *test);

#endif /* IPERF_SERVER_H */
