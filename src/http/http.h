/*
 * http.h - a small HTTP/1.1 server for read-only endpoints (the server's
 * /metrics, an exporter's /probe), over libmicrohttpd when configure
 * found it (http.c), else a stub that refuses to start (http_stub.c).
 *
 * Only GET and HEAD reach the handler: any other method is answered 405
 * with "Allow: GET, HEAD"; HEAD is answered with GET's headers (the same
 * Content-Length) and no body.  A request whose line and headers exceed
 * max_request_bytes is answered 431 (or its connection closed); at most
 * max_connections connections are served at once (a connection beyond
 * them is closed as soon as it is accepted); a connection idle for timeout_s seconds
 * is closed.
 *
 * Threads: each connection is served by its own thread, so the handler
 * runs in one of the library's threads, possibly in several at once
 * (one per connection): it must be thread-safe and must not call
 * http_stop() on its own server.
 */
#ifndef IPERF_HTTP_H
#define IPERF_HTTP_H

#include <stddef.h>

struct http_server;
struct http_request;

/* What the handler answers.  It starts as {500, "text/plain;
 * charset=utf-8", NULL, 0}; body is malloc'd by the handler (or left
 * NULL for an empty body) and freed by the http layer, whatever the
 * status. */
struct http_reply {
	int status;
	const char *content_type;
	char *body;
	size_t len;
};

typedef void (*http_handler)(void *arg, const struct http_request *req,
    struct http_reply *out);

/* The request, valid during the handler's call only.  The path has no
 * query string and is percent-decoded ("/metrics"). */
const char *http_request_path(const struct http_request *r);
/* The decoded value of the query argument `key`, NULL if absent ("" for
 * "?key" or "?key="). */
const char *http_request_query(const struct http_request *r, const char *key);
/* A request header's value (the name is matched without regard to case),
 * NULL if absent. */
const char *http_request_header(const struct http_request *r, const char *name);
/* The client's numeric address ("127.0.0.1", "::1"), "" if unknown. */
const char *http_request_peer(const struct http_request *r);

struct http_limits {
	unsigned int max_connections; /* served at once */
	size_t max_request_bytes; /* request line and headers */
	unsigned int timeout_s; /* a connection idle this long is closed */
};
/* What http_start() uses when given NULL (or a field of 0). */
#define HTTP_DEFAULT_MAX_CONNECTIONS 16
#define HTTP_DEFAULT_MAX_REQUEST_BYTES 8192
#define HTTP_DEFAULT_TIMEOUT_S 5

/* "[ADDR:]PORT": "9100" (default_addr), "127.0.0.1:9100", "[::1]:9100",
 * "0.0.0.0:9100"; ADDR is a numeric IPv4 or IPv6 address (IPv6 in
 * brackets), PORT 0 (any free port) to 65535.  Fills addr (addrlen
 * bytes) and *port; 0, or -1 when the spec is malformed (addr and *port
 * untouched). */
int http_parse_listen(const char *spec, const char *default_addr, char *addr,
    size_t addrlen, int *port);

/* Listens on addr:port (a numeric IPv4 or IPv6 address; port 0: any
 * free port, see http_port()) and serves requests with fn(arg, ...) in
 * the library's threads.  NULL on failure with the reason in err (a
 * build without libmicrohttpd: "built without libmicrohttpd (HTTP
 * support)"). */
struct http_server *http_start(const char *addr, int port,
    const struct http_limits *lim, http_handler fn, void *arg, char *err,
    size_t errlen);
/* The port bound (-1 for NULL). */
int http_port(const struct http_server *s);
/* Closes the listener and every connection, waits for the handlers
 * running and frees s (NULL: nothing). */
void http_stop(struct http_server *s);
/* 1 in a build with libmicrohttpd, else 0. */
int http_built(void);

#endif /* IPERF_HTTP_H */
