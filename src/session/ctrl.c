/* ctrl.c - control-channel framing (see ctrl.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"
#include "ctrl.h"
#include "iperf_time.h"
#include "net.h"
#include "banned.h"

#define CTRL_READ_CHUNK 65536
#define CTRL_WRITE_TIMEOUT_US (30 * 1000000ULL)
#define SERVER_ERROR_BYTE (-2)

struct ctrl {
	unsigned char *buf; /* unconsumed input */
	size_t len, cap;
	enum ctrl_expect expect;
	size_t json_cap;
	int eof;
	enum ctrl_fault fault;
	uint64_t last_progress_us;
	int exact; /* ctrl_fill reads no byte past the expected unit */
};

struct ctrl *
ctrl_new(void)
{
	struct ctrl *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->json_cap = CTRL_PARAMS_MAX_BYTES;
	return c;
}

void
ctrl_free(struct ctrl *c)
{
	if (c == NULL)
		return;
	free(c->buf);
	free(c);
}

void
ctrl_expect(struct ctrl *c, enum ctrl_expect what, size_t json_cap)
{
	c->expect = what;
	c->json_cap = json_cap;
}

enum ctrl_expect
ctrl_expecting(const struct ctrl *c)
{
	return c->expect;
}

enum ctrl_fault
ctrl_fault(const struct ctrl *c)
{
	return c->fault;
}

size_t
ctrl_buffered(const struct ctrl *c)
{
	return c->len;
}

uint64_t
ctrl_last_progress(const struct ctrl *c)
{
	return c->last_progress_us;
}

int
ctrl_unit_in_progress(const struct ctrl *c)
{
	return c->len > 0 && c->expect != CTRL_EXPECT_NONE &&
	    c->expect != CTRL_EXPECT_STATE;
}

void
ctrl_set_exact(struct ctrl *c, int on)
{
	c->exact = on;
}

/* Bytes still missing from the unit expected next; 0 when nothing is
 * expected, the unit is complete or its length is invalid (the fault is
 * found by ctrl_next whatever is read). */
static size_t
unit_missing(const struct ctrl *c)
{
	size_t want;

	switch (c->expect) {
	case CTRL_EXPECT_STATE:
		want = 1;
		break;
	case CTRL_EXPECT_COOKIE:
		want = CTRL_COOKIE_BYTES;
		break;
	case CTRL_EXPECT_ERRINTS:
		want = 8;
		break;
	case CTRL_EXPECT_JSON:
		want = 4;
		if (c->len >= 4) {
			uint32_t l = get_be32(c->buf);

			if (l == 0 || l > c->json_cap)
				return 0;
			want += l;
		}
		break;
	case CTRL_EXPECT_NONE:
	default:
		return 0;
	}
	return want > c->len ? want - c->len : 0;
}

/* The most we ever buffer: one maximal document plus its prefix. */
static size_t
buffer_limit(const struct ctrl *c)
{
	size_t cap = c->json_cap > CTRL_PARAMS_MAX_BYTES ? c->json_cap :
							   CTRL_PARAMS_MAX_BYTES;
	return cap + 4 + CTRL_READ_CHUNK;
}

static int
reserve(struct ctrl *c, size_t extra)
{
	size_t want = c->len + extra;
	size_t ncap;
	unsigned char *nb;

	if (want <= c->cap)
		return 0;
	if (want > buffer_limit(c))
		return -1;
	ncap = c->cap > 0 ? c->cap : 256;
	while (ncap < want)
		ncap *= 2;
	nb = realloc(c->buf, ncap);
	if (nb == NULL)
		return -1;
	c->buf = nb;
	c->cap = ncap;
	return 0;
}

int
ctrl_push(struct ctrl *c, const void *data, size_t len)
{
	if (len == 0)
		return 0;
	if (reserve(c, len) == -1)
		return -1;
	memcpy(c->buf + c->len, data, len);
	c->len += len;
	return 0;
}

void
ctrl_push_eof(struct ctrl *c)
{
	c->eof = 1;
}

static void
consume(struct ctrl *c, size_t n)
{
	memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
}

static int
fault(struct ctrl *c, enum ctrl_fault f)
{
	c->fault = f;
	return -1;
}

static int
next_json(struct ctrl *c, struct ctrl_msg *msg)
{
	uint32_t l;

	if (c->len < 4)
		return c->eof ? fault(c, CTRL_FAULT_EOF) : 0;
	l = get_be32(c->buf);
	if (l == 0)
		return fault(c, CTRL_FAULT_EMPTY_JSON);
	if (l > c->json_cap)
		return fault(c, CTRL_FAULT_TOO_BIG);
	if (c->len - 4 < l)
		return c->eof ? fault(c, CTRL_FAULT_EOF) : 0;
	msg->json = malloc((size_t)l + 1);
	if (msg->json == NULL)
		return fault(c, CTRL_FAULT_TOO_BIG);
	memcpy(msg->json, c->buf + 4, l);
	msg->json[l] = '\0';
	msg->json_len = l;
	msg->kind = CTRL_MSG_JSON;
	consume(c, (size_t)l + 4);
	return 1;
}

static int
next_errints(struct ctrl *c, struct ctrl_msg *msg)
{
	if (c->len < 8 && !c->eof)
		return 0;
	if (c->len < 4)
		return fault(c, CTRL_FAULT_EOF);
	msg->kind = CTRL_MSG_ERRINTS;
	msg->err_code = (int32_t)get_be32(c->buf);
	msg->err_count = 1;
	msg->err_errno = 0;
	if (c->len >= 8) {
		msg->err_errno = (int32_t)get_be32(c->buf + 4);
		msg->err_count = 2;
		consume(c, 8);
	} else {
		consume(c, c->len); /* short form: first int, then close */
	}
	return 1;
}

int
ctrl_next(struct ctrl *c, struct ctrl_msg *msg)
{
	int rc = 0;

	memset(msg, 0, sizeof(*msg));
	if (c->fault != CTRL_FAULT_NONE)
		return -1;
	switch (c->expect) {
	case CTRL_EXPECT_NONE:
		return 0;
	case CTRL_EXPECT_STATE:
		if (c->len == 0)
			return c->eof ? fault(c, CTRL_FAULT_EOF) : 0;
		msg->kind = CTRL_MSG_STATE;
		msg->state = (signed char)c->buf[0];
		consume(c, 1);
		return 1;
	case CTRL_EXPECT_JSON:
		rc = next_json(c, msg);
		break;
	case CTRL_EXPECT_ERRINTS:
		rc = next_errints(c, msg);
		break;
	case CTRL_EXPECT_COOKIE:
		if (c->len < CTRL_COOKIE_BYTES)
			return c->eof ? fault(c, CTRL_FAULT_EOF) : 0;
		msg->kind = CTRL_MSG_COOKIE;
		memcpy(msg->cookie, c->buf, CTRL_COOKIE_BYTES);
		msg->cookie[CTRL_COOKIE_BYTES - 1] = '\0';
		consume(c, CTRL_COOKIE_BYTES);
		rc = 1;
		break;
	}
	if (rc == 1)
		c->expect = CTRL_EXPECT_NONE;
	return rc;
}

long
ctrl_fill(struct ctrl *c, int fd, uint64_t now_us)
{
	unsigned char tmp[CTRL_READ_CHUNK];
	size_t room = buffer_limit(c) - c->len;
	ssize_t n;

	if (room > sizeof(tmp))
		room = sizeof(tmp);
	if (c->exact && unit_missing(c) > 0 && room > unit_missing(c))
		room = unit_missing(c);
	if (room == 0) {
		errno = EAGAIN;
		return -1;
	}
	do {
		n = recv(fd, tmp, room, 0);
	} while (n == -1 && errno == EINTR);
	if (n == -1)
		return -1;
	if (n == 0) {
		ctrl_push_eof(c);
		return 0;
	}
	if (ctrl_push(c, tmp, (size_t)n) == -1) {
		errno = ENOMEM;
		return -1;
	}
	c->last_progress_us = now_us;
	return (long)n;
}

int
ctrl_write_all(int fd, const void *buf, size_t len, uint64_t timeout_us)
{
	return net_write_all(fd, buf, len, timeout_us);
}

int
ctrl_send_state(int fd, signed char state)
{
	unsigned char b = (unsigned char)state;

	return ctrl_write_all(fd, &b, 1, CTRL_WRITE_TIMEOUT_US);
}

int
ctrl_send_json(int fd, const char *json, size_t len)
{
	unsigned char hdr[4];

	if (len > UINT32_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	put_be32(hdr, (uint32_t)len);
	if (ctrl_write_all(fd, hdr, sizeof(hdr), CTRL_WRITE_TIMEOUT_US) == -1)
		return -1;
	return ctrl_write_all(fd, json, len, CTRL_WRITE_TIMEOUT_US);
}

int
ctrl_send_server_error(int fd, int32_t code, int32_t err)
{
	unsigned char b[9];

	b[0] = (unsigned char)(signed char)SERVER_ERROR_BYTE;
	put_be32(b + 1, (uint32_t)code);
	put_be32(b + 5, (uint32_t)err);
	return ctrl_write_all(fd, b, sizeof(b), CTRL_WRITE_TIMEOUT_US);
}
