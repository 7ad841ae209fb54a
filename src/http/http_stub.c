/*
 * http_stub.c - http.h in a build without libmicrohttpd: nothing starts,
 * and there is never a request to read.
 */
#include "config.h"

#include <stdio.h>

#include "http.h"
#include "banned.h"

const char *
http_request_path(const struct http_request *r)
{
	(void)r;
	return NULL;
}

const char *
http_request_query(const struct http_request *r, const char *key)
{
	(void)r;
	(void)key;
	return NULL;
}

const char *
http_request_header(const struct http_request *r, const char *name)
{
	(void)r;
	(void)name;
	return NULL;
}

const char *
http_request_peer(const struct http_request *r)
{
	(void)r;
	return "";
}

int
http_built(void)
{
	return 0;
}

struct http_server *
http_start(const char *addr, int port, const struct http_limits *lim,
    http_handler fn, void *arg, char *err, size_t errlen)
{
	(void)addr;
	(void)port;
	(void)lim;
	(void)fn;
	(void)arg;
	snprintf(err, errlen, "built without libmicrohttpd (HTTP support)");
	return NULL;
}

int
http_port(const struct http_server *s)
{
	(void)s;
	return -1;
}

void
http_stop(struct http_server *s)
{
	(void)s;
}
