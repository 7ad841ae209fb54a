/*
 * server_metrics_http.h - a server's registry (server_stats.h) served
 * over HTTP (http.h) as /metrics.
 */
#ifndef IPERF_SERVER_METRICS_HTTP_H
#define IPERF_SERVER_METRICS_HTTP_H

#include <stddef.h>

struct http_server;
struct server_stats;

/* The address when the spec names none. */
#define SERVER_METRICS_DEFAULT_ADDR "127.0.0.1"

/* Listens on spec, "[ADDR:]PORT" (http_parse_listen(); ADDR defaults to
 * 127.0.0.1), and serves st's text on GET /metrics (content type
 * "text/plain; version=0.0.4; charset=utf-8"), 404 on any other path.
 * st must outlive the server (http_stop() it first).  NULL with the
 * reason in err: a malformed spec, a bind failure, a build without
 * libmicrohttpd (the http layer's message). */
struct http_server *server_metrics_listen(struct server_stats *st,
    const char *spec, char *err, size_t errlen);

#endif /* IPERF_SERVER_METRICS_HTTP_H */
