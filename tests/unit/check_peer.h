/*
 * check_peer.h - the other end of a control or data connection, for the
 * suites that drive the session, the accept path and the --max-tests
 * dispatcher (tests/unit/check_session.c, check_accept.c,
 * check_dispatch.c): AF_UNIX listeners and socketpairs (no network but
 * for the loopback addresses a few cases need), bounded reads of state
 * bytes and length-prefixed documents, stderr captured per test, and a
 * loop pump with a deadline.
 */
#ifndef IPERF_CHECK_PEER_H
#define IPERF_CHECK_PEER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "evloop.h"

/* peer_read_byte() results other than a state byte (-128..127). */
#define PEER_EOF 1000
#define PEER_TIMEOUT 1001

/* The 37 bytes of a cookie on the wire (36 characters and a NUL). */
#define PEER_COOKIE_BYTES 37

uint64_t peer_now_ms(void);
/* 1 if fd has something to read (or EOF) right now. */
int peer_readable(int fd);
/* One byte as a signed state, PEER_EOF or PEER_TIMEOUT. */
int peer_read_byte(int fd, int timeout_ms);
/* Up to n bytes within timeout_ms in all; what was read. */
size_t peer_read_n(int fd, void *buf, size_t n, int timeout_ms);
/* 1 if the peer closed with nothing more to read within timeout_ms. */
int peer_closed(int fd, int timeout_ms);
/* The eight bytes after SERVER_ERROR; 1 if both integers came. */
int peer_read_errints(int fd, int32_t *code, int32_t *err, int timeout_ms);
/* A length-prefixed document (malloc'd, NUL-terminated) or NULL. */
char *peer_read_json(int fd, int timeout_ms);

/* Writes that must go through (ck_assert), without SIGPIPE. */
void peer_write(int fd, const void *buf, size_t n);
void peer_send_state(int fd, signed char state);
void peer_send_len(int fd, uint32_t len);
void peer_send_json(int fd, const char *json);
/* 36 times c and the NUL. */
void peer_cookie(char out[PEER_COOKIE_BYTES], char c);
/* A stock client's TCP parameter document with -P parallel, -t 1. */
void peer_params(char *buf, size_t n, int parallel);
void peer_close(int *fd);

/* Listeners: AF_UNIX (autobound abstract name) or TCP on ip, port 0. */
int peer_unix_listener(void);
int peer_unix_connect(int listener);
int peer_tcp_listener(const char *ip, int *port);
/* A TCP connection from src_ip (bound, any port) to 127.0.0.1:port. */
int peer_tcp_connect(const char *src_ip, int port);

/* Everything written to stderr between start and end (malloc'd). */
void peer_capture_stderr(void);
char *peer_captured_stderr(void);
void peer_release_stderr(void);
/* What a FILE holds from its start (malloc'd). */
char *peer_slurp(FILE *f);
/* Occurrences of needle in hay. */
int peer_count(const char *hay, const char *needle);

/* Run a loop in short passes until expr holds or ms have passed. */
#define PEER_PUMP_UNTIL(loop, expr, ms)                                        \
	do {                                                                   \
		uint64_t peer_end_ = peer_now_ms() + (uint64_t)(ms);           \
		while (!(expr) && peer_now_ms() < peer_end_)                   \
			(void)evloop_run_once((loop), 5000);                   \
	} while (0)

#endif /* IPERF_CHECK_PEER_H */
