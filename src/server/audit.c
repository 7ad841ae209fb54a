/* audit.c - the server's audit trail, JSON lines (see audit.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "addr.h"
#include "audit.h"
#include "util.h"
#include "banned.h"

struct audit {
	char *path;
	int fd;
	int own_fd;	/* 0 for standard output */
	int failing;	/* the last write failed */
	pthread_mutex_t lock; /* fd and failing */
};

static int
open_path(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

	if (fd == -1 && errlen > 0)
		(void)snprintf(err, errlen, "%s: %s", path, strerror(errno));
	return fd;
}

struct audit *
audit_open(const char *path, char *err, size_t errlen)
{
	struct audit *a = calloc(1, sizeof(*a));

	if (a == NULL || (a->path = str_dup(path)) == NULL ||
	    pthread_mutex_init(&a->lock, NULL) != 0) {
		if (errlen > 0)
			(void)snprintf(err, errlen, "%s: %s",
			    path != NULL ? path : "(null)", strerror(ENOMEM));
		if (a != NULL)
			free(a->path);
		free(a);
		return NULL;
	}
	if (strcmp(path, "-") == 0) {
		a->fd = STDOUT_FILENO;
	} else if ((a->fd = open_path(path, err, errlen)) == -1) {
		(void)pthread_mutex_destroy(&a->lock);
		free(a->path);
		free(a);
		return NULL;
	} else
		a->own_fd = 1;
	return a;
}

int
audit_reopen(struct audit *a, char *err, size_t errlen)
{
	int fd, old;

	if (!a->own_fd)
		return 0;
	if ((fd = open_path(a->path, err, errlen)) == -1)
		return -1;
	(void)pthread_mutex_lock(&a->lock);
	old = a->fd;
	a->fd = fd;
	(void)pthread_mutex_unlock(&a->lock);
	(void)close(old);
	return 0;
}

void
audit_close(struct audit *a)
{
	if (a == NULL)
		return;
	if (a->own_fd)
		(void)close(a->fd);
	(void)pthread_mutex_destroy(&a->lock);
	free(a->path);
	free(a);
}

/* ---- the line ---------------------------------------------------------- */

/* The length of the well-formed UTF-8 sequence at s, 0 if there is none
 * (stops at the first byte out of place, so never reads past a NUL). */
static size_t
utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Replace each byte of s that is not part of well-formed UTF-8 by '?'. */
static void
utf8_fix(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (p != NULL && *p != '\0') {
		size_t n = utf8_len(p);

		if (n == 0)
			*p++ = '?';
		else
			p += n;
	}
}

/* utf8_fix() every key and string of the tree j and its siblings. */
static void
utf8_fix_tree(cJSON *j)
{
	for (; j != NULL; j = j->next) {
		utf8_fix(j->string);
		if (cJSON_IsString(j))
			utf8_fix(j->valuestring);
		utf8_fix_tree(j->child);
	}
}

/* "2026-11-27T16:05:00.123Z", now. */
static void
now_rfc3339(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char s[32];

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1 ||
	    gmtime_r(&ts.tv_sec, &tm) == NULL ||
	    strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		(void)str_copy(buf, "1970-01-01T00:00:00.000Z", len);
		return;
	}
	(void)snprintf(buf, len, "%s.%03uZ", s,
	    (unsigned int)(ts.tv_nsec / 1000000) % 1000u);
}

static int
add_str(cJSON *o, const char *key, const char *s)
{
	return (s != NULL ? cJSON_AddStringToObject(o, key, s) :
	    cJSON_AddNullToObject(o, key)) != NULL ? 0 : -1;
}

/* An integer, exact (64 bits do not fit a double), or null. */
static int
add_u64(cJSON *o, const char *key, uint64_t v, int known)
{
	char num[24];

	if (!known)
		return cJSON_AddNullToObject(o, key) != NULL ? 0 : -1;
	(void)snprintf(num, sizeof(num), "%" PRIu64, v);
	return cJSON_AddRawToObject(o, key, num) != NULL ? 0 : -1;
}

static int
add_copy(cJSON *o, const char *key, const cJSON *j)
{
	cJSON *c;

	if (j == NULL)
		return cJSON_AddNullToObject(o, key) != NULL ? 0 : -1;
	if ((c = cJSON_Duplicate(j, 1)) == NULL)
		return -1;
	if (!cJSON_AddItemToObject(o, key, c)) {
		cJSON_Delete(c);
		return -1;
	}
	return 0;
}

static int
add_seconds(cJSON *o, double v)
{
	return (v >= 0 ? cJSON_AddNumberToObject(o, "seconds", v) :
	    cJSON_AddNullToObject(o, "seconds")) != NULL ? 0 : -1;
}

/* time .. source_port, in order ("||" sequences the calls): 0 or -1. */
static int
add_head(cJSON *o, const struct audit_event *e)
{
	char when[48], host[64] = "";
	int port = 0, known;

	now_rfc3339(when, sizeof(when));
	if (e->source != NULL)
		addr_format(e->source, host, sizeof(host), &port);
	known = host[0] != '\0';
	if (add_str(o, "time", when) || add_str(o, "event", e->event) ||
	    add_str(o, "source", known ? host : NULL) ||
	    add_u64(o, "source_port", (uint64_t)port, known))
		return -1;
	return 0;
}

/* The line's object, its keys in order; NULL on ENOMEM. */
static cJSON *
event_json(const struct audit_event *e)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL)
		return NULL;
	if (add_head(o, e) ||
	    add_u64(o, "server_port", (uint64_t)e->server_port,
	    e->server_port > 0) ||
	    add_str(o, "protocol", e->protocol) ||
	    add_str(o, "direction", e->direction) ||
	    add_u64(o, "streams", (uint64_t)e->streams, e->streams >= 0) ||
	    add_copy(o, "requested", e->requested) ||
	    add_copy(o, "applied", e->applied) ||
	    add_seconds(o, e->seconds) ||
	    add_u64(o, "bytes_sent", e->bytes_sent, 1) ||
	    add_u64(o, "bytes_received", e->bytes_received, 1) ||
	    add_str(o, "result", e->result) || add_str(o, "error", e->error) ||
	    add_str(o, "reason", e->reason)) {
		cJSON_Delete(o);
		return NULL;
	}
	utf8_fix_tree(o);
	return o;
}

/* The whole line with its '\n' (malloc'd) and its length; NULL on ENOMEM. */
static char *
event_line(const struct audit_event *e, size_t *len)
{
	cJSON *o = event_json(e);
	char *text, *line;
	size_t n;

	if (o == NULL)
		return NULL;
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (text == NULL)
		return NULL;
	n = strlen(text);
	line = malloc(n + 2);
	if (line != NULL) {
		memcpy(line, text, n);
		line[n] = '\n';
		line[n + 1] = '\0';
		*len = n + 1;
	}
	cJSON_free(text);
	return line;
}

static int
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

int
audit_write(struct audit *a, const struct audit_event *e)
{
	size_t len = 0;
	char *line = event_line(e, &len);
	int rc;

	(void)pthread_mutex_lock(&a->lock);
	if (line != NULL && write_all(a->fd, line, len) == 0) {
		a->failing = 0;
		rc = 0;
	} else {
		rc = a->failing ? -1 : 1;
		a->failing = 1;
	}
	(void)pthread_mutex_unlock(&a->lock);
	free(line);
	return rc;
}
