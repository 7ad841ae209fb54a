/*
 * server_metrics_http.c - GET /metrics: the registry's text, rendered at
 * each request in the http layer's thread (server_stats.c locks).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "server_metrics_http.h"
#include "server_stats.h"
#include "util.h"
#include "banned.h"

static void
reply_text(struct http_reply *out, int status, const char *text)
{
	out->status = status;
	out->content_type = "text/plain; charset=utf-8";
	out->body = str_dup(text);
	out->len = out->body != NULL ? strlen(out->body) : 0;
}

static void
serve_metrics(void *arg, const struct http_request *req, struct http_reply *out)
{
	struct server_stats *st = arg;

	if (strcmp(http_request_path(req), "/metrics") != 0) {
		reply_text(out, 404, "not found: the metrics are at /metrics\n");
		return;
	}
	if (server_stats_render(st, &out->body, &out->len) != 0) {
		reply_text(out, 500, "out of memory\n");
		return;
	}
	out->status = 200;
	out->content_type = "text/plain; version=0.0.4; charset=utf-8";
}

struct http_server *
server_metrics_listen(struct server_stats *st, const char *spec, char *err,
    size_t errlen)
{
	char addr[64];
	int port;

	if (http_parse_listen(spec, SERVER_METRICS_DEFAULT_ADDR, addr,
	    sizeof(addr), &port) != 0) {
		snprintf(err, errlen, "invalid metrics address '%s': expected "
		    "[ADDR:]PORT (127.0.0.1:9100, [::1]:9100, 9100)",
		    spec != NULL ? spec : "");
		return NULL;
	}
	return http_start(addr, port, NULL, serve_metrics, st, err, errlen);
}
