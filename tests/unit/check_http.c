/* check_http.c - the HTTP layer (src/http/): the listen spec in every
 * build; with libmicrohttpd a server on 127.0.0.1 port 0 spoken to with
 * raw requests (methods, HEAD, the limits), without it the refusal. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "http.h"

START_TEST(listen_specs_accepted)
{
	static const struct {
		const char *spec, *addr;
		int port;
	} ok[] = {
		{ "9100", "127.0.0.1", 9100 },
		{ "127.0.0.1:9100", "127.0.0.1", 9100 },
		{ "0.0.0.0:9100", "0.0.0.0", 9100 },
		{ "[::1]:9100", "::1", 9100 },
		{ "[::]:1", "::", 1 },
		{ "[fe80::1:2]:65535", "fe80::1:2", 65535 },
		{ "10.1.2.3:0", "10.1.2.3", 0 },
		{ "0", "127.0.0.1", 0 },
		{ "00080", "127.0.0.1", 80 },
	};
	char addr[64];
	int port;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		port = -2;
		ck_assert_msg(http_parse_listen(ok[i].spec, "127.0.0.1", addr,
		    sizeof(addr), &port) == 0, "%s", ok[i].spec);
		ck_assert_str_eq(addr, ok[i].addr);
		ck_assert_int_eq(port, ok[i].port);
	}
	/* The default address is any numeric one given. */
	ck_assert_int_eq(http_parse_listen("80", "::", addr, sizeof(addr), &port), 0);
	ck_assert_str_eq(addr, "::");
}
END_TEST

START_TEST(listen_specs_rejected)
{
	static const char *const bad[] = {
		"", ":", ":9100", "9100:", "65536", "99999", "-1", "+80", " 80",
		"80 ", "0x50", "1e3", "localhost:9100", "::1:9100", "::1",
		"[::1]", "[::1]9100", "[::1]:", "[127.0.0.1]:80", "[::1:80",
		"1.2.3:80", "1.2.3.4.5:80", "256.0.0.1:80", "1.2.3.4:80:80",
		"[::1]:80x", "123456",
	};
	char addr[64] = "untouched";
	int port = -2;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(http_parse_listen(bad[i], "127.0.0.1", addr,
		    sizeof(addr), &port) == -1, "'%s' accepted", bad[i]);
	ck_assert_int_eq(http_parse_listen(NULL, "127.0.0.1", addr, sizeof(addr),
	    &port), -1);
	ck_assert_int_eq(http_parse_listen("80", NULL, addr, sizeof(addr),
	    &port), -1);
	/* No room for the address. */
	ck_assert_int_eq(http_parse_listen("[fe80::1:2]:80", "x", addr, 9,
	    &port), -1);
	ck_assert_str_eq(addr, "untouched");
	ck_assert_int_eq(port, -2);
}
END_TEST

#ifdef HAVE_LIBMICROHTTPD

static pthread_mutex_t calls_lock = PTHREAD_MUTEX_INITIALIZER;
static int calls;

/* /hello: a fixed text; /echo: the query argument "q", the header
 * "X-Test" and the peer; anything else: 404. */
static void
handler(void *arg, const struct http_request *req, struct http_reply *out)
{
	const char *path = http_request_path(req);
	const char *q, *h;
	char buf[256];

	pthread_mutex_lock(&calls_lock);
	calls++;
	pthread_mutex_unlock(&calls_lock);
	ck_assert_ptr_eq(arg, &calls);
	if (strcmp(path, "/hello") == 0) {
		snprintf(buf, sizeof(buf), "hello, world\n");
	} else if (strcmp(path, "/echo") == 0) {
		q = http_request_query(req, "q");
		h = http_request_header(req, "x-test");
		snprintf(buf, sizeof(buf), "%s|%s|%s|%s", q ? q : "(null)",
		    h ? h : "(null)", http_request_peer(req),
		    http_request_query(req, "absent") ? "?" : "-");
	} else {
		out->status = 404;
		out->body = strdup("nothing here\n");
		out->len = strlen(out->body);
		return;
	}
	out->status = 200;
	out->content_type = "text/x-test";
	out->body = strdup(buf);
	out->len = strlen(buf);
}

static struct http_server *
start(unsigned int conns, size_t max_req, unsigned int timeout)
{
	struct http_limits lim = { conns, max_req, timeout };
	char err[256] = "";
	struct http_server *s;

	s = http_start("127.0.0.1", 0, &lim, handler, &calls, err, sizeof(err));
	ck_assert_msg(s != NULL, "http_start: %s", err);
	ck_assert_int_gt(http_port(s), 0);
	return s;
}

static int
dial(const struct http_server *s)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)http_port(s));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

static void
send_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* the server may have closed: the caller reads why */
		p += n;
		len -= (size_t)n;
	}
}

/* Reads until the peer closes or ms pass without data; the bytes read
 * (NUL-terminated) in buf, -1 if the time ran out before the close. */
static long
read_reply(int fd, char *buf, size_t cap, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	size_t len = 0;
	ssize_t n;

	for (;;) {
		if (poll(&p, 1, ms) <= 0) {
			buf[len] = '\0';
			return -1;
		}
		n = recv(fd, buf + len, cap - 1 - len, 0);
		if (n <= 0 || len + (size_t)n == cap - 1) {
			len += n > 0 ? (size_t)n : 0;
			buf[len] = '\0';
			return (long)len;
		}
		len += (size_t)n;
	}
}

/* One request on a new connection ("Connection: close"); the reply. */
static long
exchange(const struct http_server *s, const char *req, char *buf, size_t cap)
{
	int fd = dial(s);
	long n;

	send_all(fd, req, strlen(req));
	n = read_reply(fd, buf, cap, 5000);
	close(fd);
	return n;
}

static int
status_of(const char *reply)
{
	int st = -1;

	if (sscanf(reply, "HTTP/1.%*d %d", &st) != 1)
		return -1;
	return st;
}

/* A header's value (case-insensitive name) copied into out; 0 if found. */
static int
header_of(const char *reply, const char *name, char *out, size_t cap)
{
	const char *p = strstr(reply, "\r\n");
	const char *end = strstr(reply, "\r\n\r\n");
	size_t nl = strlen(name), vl;
	const char *v, *eol;

	while (p != NULL && end != NULL && p < end) {
		p += 2;
		if (strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
			v = p + nl + 1;
			while (*v == ' ')
				v++;
			eol = strstr(v, "\r\n");
			vl = (size_t)(eol - v) < cap - 1 ? (size_t)(eol - v) : cap - 1;
			memcpy(out, v, vl);
			out[vl] = '\0';
			return 0;
		}
		p = strstr(p, "\r\n");
	}
	return -1;
}

static const char *
body_of(const char *reply)
{
	const char *p = strstr(reply, "\r\n\r\n");

	return p != NULL ? p + 4 : NULL;
}

START_TEST(get_reaches_the_handler)
{
	struct http_server *s = start(4, 8192, 5);
	char buf[4096], v[128];

	ck_assert_int_gt(exchange(s, "GET /hello HTTP/1.1\r\nHost: x\r\n"
	    "Connection: close\r\n\r\n", buf, sizeof(buf)), 0);
	ck_assert_int_eq(status_of(buf), 200);
	ck_assert_int_eq(header_of(buf, "Content-Type", v, sizeof(v)), 0);
	ck_assert_str_eq(v, "text/x-test");
	ck_assert_int_eq(header_of(buf, "Content-Length", v, sizeof(v)), 0);
	ck_assert_str_eq(v, "13");
	ck_assert_str_eq(body_of(buf), "hello, world\n");
	/* Decoded query arguments, a header by any case, the peer. */
	ck_assert_int_gt(exchange(s, "GET /echo?q=a%20b%2Fc&z=1 HTTP/1.1\r\n"
	    "Host: x\r\nX-TEST: hdr\r\nConnection: close\r\n\r\n", buf,
	    sizeof(buf)), 0);
	ck_assert_int_eq(status_of(buf), 200);
	ck_assert_str_eq(body_of(buf), "a b/c|hdr|127.0.0.1|-");
	/* HTTP/1.0 too. */
	ck_assert_int_gt(exchange(s, "GET /hello HTTP/1.0\r\n\r\n", buf,
	    sizeof(buf)), 0);
	ck_assert_int_eq(status_of(buf), 200);
	http_stop(s);
}
END_TEST

START_TEST(head_has_gets_headers_and_no_body)
{
	struct http_server *s = start(4, 8192, 5);
	char buf[4096], v[128];

	ck_assert_int_gt(exchange(s, "HEAD /hello HTTP/1.1\r\nHost: x\r\n"
	    "Connection: close\r\n\r\n", buf, sizeof(buf)), 0);
	ck_assert_int_eq(status_of(buf), 200);
	ck_assert_int_eq(header_of(buf, "Content-Length", v, sizeof(v)), 0);
	ck_assert_str_eq(v, "13");
	ck_assert_int_eq(header_of(buf, "Content-Type", v, sizeof(v)), 0);
	ck_assert_str_eq(v, "text/x-test");
	ck_assert_str_eq(body_of(buf), "");
	http_stop(s);
}
END_TEST

START_TEST(other_methods_are_405_without_the_handler)
{
	static const char *const reqs[] = {
		"POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
		"Connection: close\r\n\r\nabc",
		"PUT /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
		"Connection: close\r\n\r\n",
		"DELETE /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	};
	struct http_server *s = start(4, 8192, 5);
	char buf[4096], v[128];
	size_t i;

	calls = 0;
	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		ck_assert_int_gt(exchange(s, reqs[i], buf, sizeof(buf)), 0);
		ck_assert_msg(status_of(buf) == 405, "%s: %s", reqs[i], buf);
		ck_assert_int_eq(header_of(buf, "Allow", v, sizeof(v)), 0);
		ck_assert_str_eq(v, "GET, HEAD");
	}
	ck_assert_int_eq(calls, 0);
	http_stop(s);
}
END_TEST

START_TEST(unknown_paths_are_the_handlers_404)
{
	struct http_server *s = start(4, 8192, 5);
	char buf[4096];

	ck_assert_int_gt(exchange(s, "GET /nope HTTP/1.1\r\nHost: x\r\n"
	    "Connection: close\r\n\r\n", buf, sizeof(buf)), 0);
	ck_assert_int_eq(status_of(buf), 404);
	ck_assert_str_eq(body_of(buf), "nothing here\n");
	http_stop(s);
}
END_TEST

/* A GET /hello with a header "X-Pad" of `pad` bytes. */
static char *
padded_get(size_t pad)
{
	const char *head = "GET /hello HTTP/1.1\r\nHost: x\r\nX-Pad: ";
	const char *tail = "\r\nConnection: close\r\n\r\n";
	char *r = malloc(strlen(head) + pad + strlen(tail) + 1);

	ck_assert_ptr_nonnull(r);
	memcpy(r, head, strlen(head));
	memset(r + strlen(head), 'a', pad);
	memcpy(r + strlen(head) + pad, tail, strlen(tail) + 1);
	return r;
}

START_TEST(an_oversized_request_is_refused)
{
	struct http_server *s = start(4, 2048, 5);
	char buf[4096];
	char *req;
	long n;
	int st;

	req = padded_get(1500); /* under the cap */
	ck_assert_int_gt(exchange(s, req, buf, sizeof(buf)), 0);
	ck_assert_int_eq(status_of(buf), 200);
	free(req);
	calls = 0;
	req = padded_get(3000); /* over it */
	n = exchange(s, req, buf, sizeof(buf));
	st = status_of(buf);
	ck_assert_msg(n == 0 || st == 413 || st == 414 || st == 431,
	    "%ld bytes: %s", n, buf);
	free(req);
	req = padded_get(100000); /* far beyond the connection's memory */
	n = exchange(s, req, buf, sizeof(buf));
	st = status_of(buf);
	ck_assert_msg(n == 0 || st == 413 || st == 414 || st == 431,
	    "%ld bytes: %s", n, buf);
	free(req);
	ck_assert_int_eq(calls, 0);
	http_stop(s);
}
END_TEST

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(an_idle_connection_is_closed_after_the_timeout)
{
	struct http_server *s = start(4, 8192, 1);
	char buf[64];
	double t0 = now_s(), dt;
	int fd = dial(s);

	ck_assert_int_eq(read_reply(fd, buf, sizeof(buf), 5000), 0);
	dt = now_s() - t0;
	ck_assert_msg(dt > 0.5 && dt < 4, "closed after %.2f s", dt);
	close(fd);
	/* A partial request is idle as well. */
	fd = dial(s);
	send_all(fd, "GET /hel", 8);
	ck_assert_int_ge(read_reply(fd, buf, sizeof(buf), 5000), 0);
	close(fd);
	http_stop(s);
}
END_TEST

START_TEST(at_most_max_connections_are_served)
{
	struct http_server *s = start(2, 8192, 5);
	const char *req = "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	char buf[4096];
	int a = dial(s), b = dial(s), c;
	long n;

	/* Both held open (idle); a third gets no reply while they are. */
	usleep(200000);
	c = dial(s);
	send_all(c, req, strlen(req));
	n = read_reply(c, buf, sizeof(buf), 700);
	ck_assert_msg(n <= 0, "served a third connection: %s", buf);
	close(c);
	/* One freed: served again. */
	close(a);
	usleep(300000);
	ck_assert_int_gt(exchange(s, req, buf, sizeof(buf)), 0);
	ck_assert_int_eq(status_of(buf), 200);
	close(b);
	http_stop(s);
}
END_TEST

START_TEST(stop_closes_the_listener)
{
	struct http_server *s = start(4, 8192, 5);
	struct sockaddr_in sin;
	int port = http_port(s), fd;

	http_stop(s);
	http_stop(NULL);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), -1);
	ck_assert_int_eq(errno, ECONNREFUSED);
	close(fd);
	ck_assert_int_eq(http_port(NULL), -1);
}
END_TEST

START_TEST(start_failures_say_why)
{
	struct http_server *s = start(4, 8192, 5), *t;
	char err[256] = "", want[64];

	ck_assert_int_eq(http_built(), 1);
	t = http_start("127.0.0.1", http_port(s), NULL, handler, &calls, err,
	    sizeof(err));
	ck_assert_ptr_null(t);
	snprintf(want, sizeof(want), "port %d", http_port(s));
	ck_assert_msg(strstr(err, want) != NULL && strstr(err, strerror(EADDRINUSE)),
	    "%s", err);
	t = http_start("localhost", 0, NULL, handler, &calls, err, sizeof(err));
	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(err, "invalid address 'localhost'") != NULL, "%s", err);
	t = http_start("127.0.0.1", 70000, NULL, handler, &calls, err, sizeof(err));
	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(err, "invalid port") != NULL, "%s", err);
	http_stop(s);
}
END_TEST

START_TEST(ipv6_loopback)
{
	struct sockaddr_in6 sin6;
	char err[256] = "", buf[4096];
	struct http_server *s;
	int fd;

	s = http_start("::1", 0, NULL, handler, &calls, err, sizeof(err));
	if (s == NULL) {
		ck_assert_msg(strstr(err, "cannot listen") != NULL, "%s", err);
		return; /* no IPv6 here */
	}
	fd = socket(AF_INET6, SOCK_STREAM, 0);
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons((uint16_t)http_port(s));
	sin6.sin6_addr = in6addr_loopback;
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin6, sizeof(sin6)), 0);
	send_all(fd, "GET /echo HTTP/1.0\r\n\r\n", 22);
	ck_assert_int_gt(read_reply(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_str_eq(body_of(buf), "(null)|(null)|::1|-");
	close(fd);
	http_stop(s);
}
END_TEST

#else /* !HAVE_LIBMICROHTTPD */

static void
handler(void *arg, const struct http_request *req, struct http_reply *out)
{
	(void)arg;
	(void)req;
	(void)out;
}

START_TEST(start_failures_say_why)
{
	char err[256] = "";

	ck_assert_int_eq(http_built(), 0);
	ck_assert_ptr_null(http_start("127.0.0.1", 0, NULL, handler, NULL, err,
	    sizeof(err)));
	ck_assert_str_eq(err, "built without libmicrohttpd (HTTP support)");
	ck_assert_int_eq(http_port(NULL), -1);
	http_stop(NULL);
	/* There is never a request; the accessors answer nothing. */
	ck_assert_ptr_null(http_request_path(NULL));
	ck_assert_ptr_null(http_request_query(NULL, "q"));
	ck_assert_ptr_null(http_request_header(NULL, "Host"));
	ck_assert_str_eq(http_request_peer(NULL), "");
}
END_TEST

#endif

Suite *
make_suite(void)
{
	Suite *s = suite_create("http");
	TCase *spec = tcase_create("listen spec");
	TCase *srv = tcase_create("server");

	tcase_add_test(spec, listen_specs_accepted);
	tcase_add_test(spec, listen_specs_rejected);
	suite_add_tcase(s, spec);
	tcase_set_timeout(srv, 30);
	tcase_add_test(srv, start_failures_say_why);
#ifdef HAVE_LIBMICROHTTPD
	tcase_add_test(srv, get_reaches_the_handler);
	tcase_add_test(srv, head_has_gets_headers_and_no_body);
	tcase_add_test(srv, other_methods_are_405_without_the_handler);
	tcase_add_test(srv, unknown_paths_are_the_handlers_404);
	tcase_add_test(srv, an_oversized_request_is_refused);
	tcase_add_test(srv, an_idle_connection_is_closed_after_the_timeout);
	tcase_add_test(srv, at_most_max_connections_are_served);
	tcase_add_test(srv, stop_closes_the_listener);
	tcase_add_test(srv, ipv6_loopback);
#endif
	suite_add_tcase(s, srv);
	return s;
}
