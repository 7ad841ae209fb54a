/*
 * fuzz_allow.c - the --allow-file parser and the prefix parser on hostile
 * text.  Input: the file.  Invariants (abort on failure): every line that
 * cidr_parse() takes formats back to text that parses to the same prefix,
 * which contains its own address; a failed acl_load_text() says "line N:"
 * and leaves the earlier file part in force; a load that succeeds gives
 * the same verdicts when repeated.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "cidr.h"
#include "fuzz.h"

/* A socket address holding the prefix's own (network) address. */
static void
to_sockaddr(const struct cidr *c, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (c->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, c->addr, 4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, c->addr, 16);
	}
}

static void
check_line(const char *line)
{
	struct cidr c, again;
	struct sockaddr_storage ss;
	char text[CIDR_TEXT_MAX];

	if (cidr_parse(line, &c) == -1)
		return;
	if (cidr_format(&c, text, sizeof(text)) == -1 ||
	    cidr_parse(text, &again) == -1 || !cidr_equal(&c, &again))
		abort();
	to_sockaddr(&c, &ss);
	if (!cidr_match(&c, &ss))
		abort();
}

/* cidr_parse() on every line of the input (split at '\n'). */
static void
check_lines(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size), *p = s, *nl;

	for (;;) {
		nl = strchr(p, '\n');
		if (nl != NULL)
			*nl = '\0';
		check_line(p);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char before[] = "deny 198.51.100.1\n";
	struct acl *a = acl_new();
	struct sockaddr_storage probe;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&probe;
	char err[128];
	int v1, v2;

	if (a == NULL)
		abort();
	check_lines(data, size);
	memset(&probe, 0, sizeof(probe));
	s4->sin_family = AF_INET;
	s4->sin_addr.s_addr = htonl(0xc6336401u); /* 198.51.100.1 */
	if (acl_load_text(a, before, sizeof(before) - 1, err,
	    sizeof(err)) != 0 || acl_permits(a, &probe))
		abort();
	err[0] = '\0';
	if (acl_load_text(a, (const char *)data, size, err, sizeof(err)) == -1) {
		if (strncmp(err, "line ", 5) != 0 || acl_permits(a, &probe))
			abort();
	} else {
		v1 = acl_permits(a, &probe);
		if (acl_load_text(a, (const char *)data, size, err,
		    sizeof(err)) != 0)
			abort();
		v2 = acl_permits(a, &probe);
		if (v1 != v2)
			abort();
	}
	acl_free(a);
	return 0;
}
