/* acl.c - allowed and denied sources (see acl.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl.h"
#include "cidr.h"
#include "banned.h"

struct acl_list {
	struct cidr *v;
	size_t n, cap;
};

struct acl_part {
	struct acl_list allow, deny;
};

struct acl {
	struct acl_part opt;  /* --allow, --deny */
	struct acl_part file; /* the file's, replaced whole */
};

static int
list_add(struct acl_list *l, const struct cidr *c)
{
	if (l->n == l->cap) {
		size_t cap = l->cap > 0 ? 2 * l->cap : 16;
		struct cidr *v = realloc(l->v, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *c;
	return 0;
}

static void
part_free(struct acl_part *p)
{
	free(p->allow.v);
	free(p->deny.v);
	memset(p, 0, sizeof(*p));
}

struct acl *
acl_new(void)
{
	return calloc(1, sizeof(struct acl));
}

void
acl_free(struct acl *a)
{
	if (a == NULL)
		return;
	part_free(&a->opt);
	part_free(&a->file);
	free(a);
}

int
acl_add(struct acl *a, int deny, const char *cidr)
{
	struct cidr c;

	if (cidr_parse(cidr, &c) == -1)
		return -1;
	return list_add(deny ? &a->opt.deny : &a->opt.allow, &c);
}

/* ---- the file ---------------------------------------------------------- */

static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* "line N: <what>" into err; -1. */
static int
line_error(char *err, size_t errlen, size_t line, const char *what,
    const char *text)
{
	char shown[65];
	size_t i;

	for (i = 0; text != NULL && text[i] != '\0' && i + 1 < sizeof(shown);
	    i++)
		shown[i] = text[i] >= ' ' && text[i] < 0x7f ? text[i] : '?';
	shown[i] = '\0';
	if (errlen > 0)
		(void)snprintf(err, errlen, "line %zu: %s%s%s%s", line, what,
		    text != NULL ? " '" : "", shown, text != NULL ? "'" : "");
	return -1;
}

/* One line (len <= ACL_MAX_LINE bytes, no '\n') into p. */
static int
load_line(struct acl_part *p, const char *text, size_t len, size_t line,
    char *err, size_t errlen)
{
	char buf[ACL_MAX_LINE + 1], *s, *e, *arg;
	struct cidr c;
	int deny = 0;

	if (memchr(text, '\0', len) != NULL)
		return line_error(err, errlen, line, "NUL byte", NULL);
	memcpy(buf, text, len);
	buf[len] = '\0';
	if ((e = strchr(buf, '#')) != NULL)
		*e = '\0';
	for (s = buf; is_blank(*s); s++)
		;
	for (e = s + strlen(s); e > s && is_blank(e[-1]); e--)
		e[-1] = '\0';
	if (*s == '\0')
		return 0;
	for (arg = s; *arg != '\0' && !is_blank(*arg); arg++)
		;
	if (*arg != '\0') {
		*arg++ = '\0';
		while (is_blank(*arg))
			arg++;
		if (strcmp(s, "deny") != 0 && strcmp(s, "allow") != 0)
			return line_error(err, errlen, line,
			    "expected CIDR, allow CIDR or deny CIDR, not", s);
		deny = s[0] == 'd';
		s = arg;
	}
	if (cidr_parse(s, &c) == -1)
		return line_error(err, errlen, line,
		    "not an address or prefix:", s);
	if (p->allow.n + p->deny.n >= ACL_MAX_ENTRIES)
		return line_error(err, errlen, line,
		    "more than 100000 entries", NULL);
	if (list_add(deny ? &p->deny : &p->allow, &c) == -1)
		return line_error(err, errlen, line, "out of memory", NULL);
	return 0;
}

int
acl_load_text(struct acl *a, const char *text, size_t len, char *err,
    size_t errlen)
{
	struct acl_part next;
	size_t pos = 0, line = 0;

	memset(&next, 0, sizeof(next));
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl != NULL ? (size_t)(nl - (text + pos)) : len - pos;

		line++;
		if (n > ACL_MAX_LINE) {
			part_free(&next);
			return line_error(err, errlen, line,
			    "longer than 1024 bytes", NULL);
		}
		if (load_line(&next, text + pos, n, line, err, errlen) == -1) {
			part_free(&next);
			return -1;
		}
		pos += n + 1;
	}
	part_free(&a->file);
	a->file = next;
	return 0;
}

/* The whole file at path into *buf (malloc'd), at most ACL_MAX_FILE
 * bytes.  0, or -1 with errno (EFBIG when larger). */
static int
read_file(const char *path, char **buf, size_t *len)
{
	size_t cap = 0, n = 0;
	char *b = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd == -1)
		return -1;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb = NULL;

			if (cap > ACL_MAX_FILE) {
				errno = EFBIG;
				break;
			}
			cap = cap > 0 ? 2 * cap : 65536;
			if (cap > ACL_MAX_FILE + 1)
				cap = ACL_MAX_FILE + 1;
			if ((nb = realloc(b, cap)) == NULL)
				break;
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			break;
		if (r == 0) {
			(void)close(fd);
			*buf = b;
			*len = n;
			return 0;
		}
		n += (size_t)r;
	}
	e = errno;
	free(b);
	(void)close(fd);
	errno = e;
	return -1;
}

int
acl_load_file(struct acl *a, const char *path, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (read_file(path, &text, &len) == -1) {
		if (errlen > 0)
			(void)snprintf(err, errlen, "%s: %s", path,
			    errno == EFBIG ? "larger than 16 MiB" :
			    strerror(errno));
		return -1;
	}
	rc = acl_load_text(a, text, len, err, errlen);
	free(text);
	return rc;
}

/* ---- the verdict ------------------------------------------------------- */

/* Does net contain host (a /32 or /128 of cidr_of_addr())? */
static int
covers(const struct cidr *net, const struct cidr *host)
{
	size_t whole = net->bits / 8;
	unsigned int rest = net->bits % 8;
	unsigned char m;

	if (net->family != host->family)
		return 0;
	if (memcmp(net->addr, host->addr, whole) != 0)
		return 0;
	if (rest == 0)
		return 1;
	m = (unsigned char)(0xffu << (8 - rest));
	return (host->addr[whole] & m) == net->addr[whole];
}

static int
any_covers(const struct acl_list *l, const struct cidr *host)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (covers(&l->v[i], host))
			return 1;
	return 0;
}

int
acl_permits(const struct acl *a, const struct sockaddr_storage *ss)
{
	struct cidr host;

	cidr_of_addr(ss, 32, 128, &host);
	if (any_covers(&a->opt.deny, &host) || any_covers(&a->file.deny, &host))
		return 0;
	if (a->opt.allow.n == 0 && a->file.allow.n == 0)
		return 1;
	return any_covers(&a->opt.allow, &host) ||
	    any_covers(&a->file.allow, &host);
}

int
acl_empty(const struct acl *a)
{
	return a->opt.allow.n + a->opt.deny.n + a->file.allow.n +
	    a->file.deny.n == 0;
}
