/*
 * http.c - the HTTP server of http.h over libmicrohttpd: a listening
 * socket of our own (so that its errors are ours to word), handed to a
 * daemon that serves each connection in a thread of its own.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "http.h"
#include "banned.h"

/* configure asks for 0.9.71 or later, where the callbacks return this. */
typedef enum MHD_Result mhd_result;

/* Memory of a connection beyond its request: the reply's headers and the
 * library's own state. */
#define HTTP_POOL_SLACK 8192

struct http_server {
	struct MHD_Daemon *daemon;
	int port;
	http_handler fn;
	void *arg;
	size_t max_request;
};

struct http_request {
	struct MHD_Connection *conn;
	const char *path;
	char peer[INET6_ADDRSTRLEN];
};

const char *
http_request_path(const struct http_request *r)
{
	return r->path;
}

const char *
http_request_query(const struct http_request *r, const char *key)
{
	return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key);
}

const char *
http_request_header(const struct http_request *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

const char *
http_request_peer(const struct http_request *r)
{
	return r->peer;
}

int
http_built(void)
{
	return 1;
}

/* Adds a header's or a query argument's size to *(size_t *)cls. */
static mhd_result
count_value(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	size_t *total = cls;

	(void)kind;
	*total += strlen(key) + (value != NULL ? strlen(value) : 0) + 4;
	return MHD_YES;
}

/* The size of the request line and headers, as parsed. */
static size_t
request_bytes(struct MHD_Connection *c, const char *url, const char *method,
    const char *version)
{
	size_t total = strlen(method) + strlen(url) + strlen(version) + 4;

	(void)MHD_get_connection_values(c, MHD_HEADER_KIND, count_value, &total);
	(void)MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, count_value,
	    &total);
	return total;
}

static void
peer_of(struct MHD_Connection *c, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci;
	const struct sockaddr *sa;
	socklen_t salen;

	buf[0] = '\0';
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci == NULL || ci->client_addr == NULL)
		return;
	sa = ci->client_addr;
	salen = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	    sizeof(struct sockaddr_in);
	if (getnameinfo(sa, salen, buf, (socklen_t)len, NULL, 0,
	    NI_NUMERICHOST) != 0)
		buf[0] = '\0';
}

/* Sends out (its body is freed here, queued or not). */
static mhd_result
send_reply(struct MHD_Connection *c, struct http_reply *out, int allow)
{
	struct MHD_Response *resp;
	mhd_result rc;
	unsigned int status = 500;

	resp = MHD_create_response_from_buffer_with_free_callback(out->len,
	    out->body, free);
	if (resp == NULL) {
		free(out->body);
		return MHD_NO;
	}
	if (out->status >= 100 && out->status <= 599)
		status = (unsigned int)out->status;
	if (out->content_type != NULL)
		(void)MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
		    out->content_type);
	if (allow)
		(void)MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
		    "GET, HEAD");
	rc = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* A reply of our own: a status and a one-line text. */
static mhd_result
send_text(struct MHD_Connection *c, int status, const char *text, int allow)
{
	struct http_reply out = { status, "text/plain; charset=utf-8", NULL, 0 };

	out.len = strlen(text);
	out.body = malloc(out.len);
	if (out.body == NULL)
		return MHD_NO;
	memcpy(out.body, text, out.len);
	return send_reply(c, &out, allow);
}

/* libmicrohttpd's access handler: the headers are in (the first call),
 * any body is not read. */
static mhd_result
on_request(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **con_cls)
{
	struct http_server *s = cls;
	struct http_request req;
	struct http_reply out = { 500, "text/plain; charset=utf-8", NULL, 0 };

	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (request_bytes(c, url, method, version) > s->max_request)
		return send_text(c, MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE,
		    "request too large\n", 0);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
		    "method not allowed\n", 1);
	req.conn = c;
	req.path = url;
	peer_of(c, req.peer, sizeof(req.peer));
	s->fn(s->arg, &req, &out);
	return send_reply(c, &out, 0);
}

/* A listening socket on addr:port; -1 with the reason in err. */
static int
open_listener(const char *addr, int port, int *bound, char *err,
    size_t errlen)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t sslen;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (port < 0 || port > 65535) {
		snprintf(err, errlen, "invalid port %d (0 to 65535)", port);
		return -1;
	}
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		sslen = sizeof(*sin);
	} else if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		sslen = sizeof(*sin6);
	} else {
		snprintf(err, errlen, "invalid address '%s' (a numeric IPv4 or "
		    "IPv6 address)", addr);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "cannot listen on %s port %d: %s", addr,
		    port, strerror(errno));
		return -1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sslen) != 0 || listen(fd, 64) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sslen) != 0) {
		snprintf(err, errlen, "cannot listen on %s port %d: %s", addr,
		    port, strerror(errno));
		close(fd);
		return -1;
	}
	*bound = ntohs(ss.ss_family == AF_INET ? sin->sin_port : sin6->sin6_port);
	return fd;
}

struct http_server *
http_start(const char *addr, int port, const struct http_limits *lim,
    http_handler fn, void *arg, char *err, size_t errlen)
{
	struct http_server *s;
	unsigned int conns = HTTP_DEFAULT_MAX_CONNECTIONS;
	unsigned int timeout = HTTP_DEFAULT_TIMEOUT_S;
	int fd;

	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->fn = fn;
	s->arg = arg;
	s->max_request = HTTP_DEFAULT_MAX_REQUEST_BYTES;
	if (lim != NULL) {
		if (lim->max_connections > 0)
			conns = lim->max_connections;
		if (lim->max_request_bytes > 0)
			s->max_request = lim->max_request_bytes;
		if (lim->timeout_s > 0)
			timeout = lim->timeout_s;
	}
	fd = open_listener(addr, port, &s->port, err, errlen);
	if (fd < 0) {
		free(s);
		return NULL;
	}
	s->daemon = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC,
	    0, NULL, NULL, on_request, s,
	    MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_CONNECTION_LIMIT, conns,
	    MHD_OPTION_CONNECTION_TIMEOUT, timeout,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	    s->max_request + HTTP_POOL_SLACK,
	    MHD_OPTION_END);
	if (s->daemon == NULL) {
		snprintf(err, errlen, "cannot start the HTTP server on %s port "
		    "%d (libmicrohttpd)", addr, s->port);
		close(fd);
		free(s);
		return NULL;
	}
	return s;
}

int
http_port(const struct http_server *s)
{
	return s != NULL ? s->port : -1;
}

void
http_stop(struct http_server *s)
{
	if (s == NULL)
		return;
	MHD_stop_daemon(s->daemon);
	free(s);
}
