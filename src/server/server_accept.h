/*
 * server_accept.h - the server's listening sockets: the control connection,
 * cookie-checked data connections (read without blocking the loop), UDP
 * data listeners, and ACCESS_DENIED for everyone else.
 */
#ifndef IPERF_SERVER_ACCEPT_H
#define IPERF_SERVER_ACCEPT_H

#include <stddef.h>
#include <stdint.h>

struct evloop;
struct iperf_test;
struct session_ops;
struct sockaddr_storage;

void server_watch_listener(struct iperf_test *test);
void server_unwatch_listener(struct iperf_test *test);
void server_data_listener_cb(struct evloop *loop, int fd, unsigned int events,
    void *arg);
/* A stream socket passed its checks: create the stream. 0 or -1. */
int server_add_stream(struct iperf_test *test, int fd);
/* Make a control connection the test's (cookie: already read, or NULL to
 * read it from the connection). */
void server_accept_control(struct iperf_test *test, int fd,
    const struct sockaddr_storage *ss, const char *cookie);
/* Answer "access denied" (the server is busy) and close fd. */
void server_deny(int fd);
/* Read more of a connection's cookie (non-blocking fd) into buf, *len
 * bytes of IPERF_COOKIE_SIZE so far: 1 complete, 0 not yet, -1 closed or
 * failed. */
int server_read_cookie(int fd, unsigned char *buf, size_t *len);
/* Close data connections whose cookie did not arrive within 10 s. */
void server_expire_pending(struct iperf_test *test, uint64_t now_us);
void server_drop_pending(struct iperf_test *test);

#endif /* IPERF_SERVER_ACCEPT_H */
