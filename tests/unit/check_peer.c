/* check_peer.c - the other end of the connections (check_peer.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "check_peer.h"

uint64_t
peer_now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int
peer_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static int
wait_in(int fd, uint64_t end)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t now = peer_now_ms();
	int rc;

	do {
		rc = poll(&p, 1, now < end ? (int)(end - now) : 0);
	} while (rc == -1 && errno == EINTR);
	return rc == 1;
}

size_t
peer_read_n(int fd, void *buf, size_t n, int timeout_ms)
{
	uint64_t end = peer_now_ms() + (uint64_t)timeout_ms;
	unsigned char *p = buf;
	size_t got = 0;

	while (got < n && wait_in(fd, end)) {
		ssize_t r = recv(fd, p + got, n - got, MSG_DONTWAIT);

		if (r == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

int
peer_read_byte(int fd, int timeout_ms)
{
	uint64_t end = peer_now_ms() + (uint64_t)timeout_ms;
	unsigned char b;

	while (wait_in(fd, end)) {
		ssize_t r = recv(fd, &b, 1, MSG_DONTWAIT);

		if (r == 1)
			return (signed char)b;
		if (r == 0 || (r == -1 && errno != EAGAIN && errno != EINTR))
			return PEER_EOF;
	}
	return PEER_TIMEOUT;
}

int
peer_closed(int fd, int timeout_ms)
{
	return peer_read_byte(fd, timeout_ms) == PEER_EOF;
}

static uint32_t
be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	    (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

int
peer_read_errints(int fd, int32_t *code, int32_t *err, int timeout_ms)
{
	unsigned char b[8];

	if (peer_read_n(fd, b, sizeof(b), timeout_ms) != sizeof(b))
		return 0;
	*code = (int32_t)be32(b);
	*err = (int32_t)be32(b + 4);
	return 1;
}

char *
peer_read_json(int fd, int timeout_ms)
{
	unsigned char hdr[4];
	uint32_t len;
	char *doc;

	if (peer_read_n(fd, hdr, 4, timeout_ms) != 4)
		return NULL;
	len = be32(hdr);
	if (len == 0 || len > 1024 * 1024)
		return NULL;
	doc = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(doc);
	if (peer_read_n(fd, doc, len, timeout_ms) != len) {
		free(doc);
		return NULL;
	}
	return doc;
}

void
peer_write(int fd, const void *buf, size_t n)
{
	ck_assert_int_eq(send(fd, buf, n, MSG_NOSIGNAL), (ssize_t)n);
}

void
peer_send_state(int fd, signed char state)
{
	unsigned char b = (unsigned char)state;

	peer_write(fd, &b, 1);
}

void
peer_send_len(int fd, uint32_t len)
{
	unsigned char b[4] = { (unsigned char)(len >> 24),
		(unsigned char)(len >> 16), (unsigned char)(len >> 8),
		(unsigned char)len };

	peer_write(fd, b, sizeof(b));
}

void
peer_send_json(int fd, const char *json)
{
	peer_send_len(fd, (uint32_t)strlen(json));
	peer_write(fd, json, strlen(json));
}

void
peer_cookie(char out[PEER_COOKIE_BYTES], char c)
{
	memset(out, c, PEER_COOKIE_BYTES - 1);
	out[PEER_COOKIE_BYTES - 1] = '\0';
}

void
peer_params(char *buf, size_t n, int parallel)
{
	int w = snprintf(buf, n,
	    "{\"tcp\":true,\"omit\":0,\"time\":1,\"num\":0,"
	    "\"blockcount\":0,\"parallel\":%d,\"len\":131072,"
	    "\"pacing_timer\":1000,\"client_version\":\"3.21\"}",
	    parallel);

	ck_assert(w > 0 && (size_t)w < n);
}

void
peer_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int
peer_unix_listener(void)
{
	struct sockaddr_un sun;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	/* The family alone: the kernel picks a unique abstract name. */
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sa_family_t)),
	    0);
	ck_assert_int_eq(listen(fd, 64), 0);
	return fd;
}

int
peer_unix_connect(int listener)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(getsockname(listener, (struct sockaddr *)&sun, &len), 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sun, len), 0);
	return fd;
}

int
peer_tcp_listener(const char *ip, int *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	ck_assert_int_eq(inet_pton(AF_INET, ip, &sin.sin_addr), 1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(fd, 64), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

int
peer_tcp_connect(const char *src_ip, int port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	ck_assert_int_eq(inet_pton(AF_INET, src_ip, &sin.sin_addr), 1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	sin.sin_port = htons((uint16_t)port);
	ck_assert_int_eq(inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr), 1);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

static FILE *captured;
static int saved_stderr = -1;

void
peer_capture_stderr(void)
{
	captured = tmpfile();
	ck_assert_ptr_nonnull(captured);
	(void)fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	ck_assert_int_ge(saved_stderr, 0);
	ck_assert_int_ge(dup2(fileno(captured), STDERR_FILENO), 0);
}

char *
peer_captured_stderr(void)
{
	(void)fflush(stderr);
	return peer_slurp(captured);
}

void
peer_release_stderr(void)
{
	if (saved_stderr < 0)
		return;
	(void)fflush(stderr);
	(void)dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	saved_stderr = -1;
	(void)fclose(captured);
	captured = NULL;
}

char *
peer_slurp(FILE *f)
{
	long n;
	char *s;

	(void)fflush(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	s = calloc(1, (size_t)n + 1);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(fseek(f, 0, SEEK_SET), 0);
	ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	return s;
}

int
peer_count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}
