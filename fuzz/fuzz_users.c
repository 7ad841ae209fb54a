/*
 * fuzz_users.c - the users-file matcher on hostile files.  Input: a user
 * name, NUL, a hash, NUL, then the file (without two NULs, a fixed user
 * and hash and the whole input as the file).  Invariants (abort on
 * failure): a match needs the user and the hash in the file; a well-formed
 * line "user,hash" appended after a newline always matches, unless the
 * pair itself cannot form a line.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "fuzz.h"

static int
contains(const char *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;

	if (k == 0)
		return 1;
	for (i = 0; i + k <= n; i++)
		if (memcmp(hay + i, needle, k) == 0)
			return 1;
	return 0;
}

/* A name or hash that can stand in a users-file field. */
static int
field_ok(const char *s)
{
	return s[0] != '\0' && strpbrk(s, ",\n\r") == NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *user = "mario";
	const char *hash =
	    "bf7a49a846d44b454a5d11e7acfaf13d138bbe0b7483aa3e050879700572709b";
	const uint8_t *file = data, *z1, *z2 = NULL;
	size_t flen = size;
	char *u = NULL, *h = NULL, *f, *g;
	int m;

	z1 = memchr(data, '\0', size);
	if (z1 != NULL)
		z2 = memchr(z1 + 1, '\0', size - (size_t)(z1 + 1 - data));
	if (z2 != NULL) {
		u = fuzz_strndup(data, (size_t)(z1 - data));
		h = fuzz_strndup(z1 + 1, (size_t)(z2 - z1 - 1));
		user = u;
		hash = h;
		file = z2 + 1;
		flen = size - (size_t)(file - data);
	}
	/* Exactly flen bytes on the heap: an over-read is caught. */
	f = malloc(flen > 0 ? flen : 1);
	if (f == NULL)
		abort();
	memcpy(f, file, flen);
	m = auth_users_match(f, flen, user, hash);
	if (m != 0 && m != 1)
		abort();
	if (m == 1 && (!contains(f, flen, user) || !contains(f, flen, hash)))
		abort();
	/* Append "\nuser,hash\n": found whenever the pair makes a line. */
	if (field_ok(user) && field_ok(hash) && user[0] != '#' &&
	    strlen(user) + strlen(hash) + 1 <= AUTH_USERS_LINE_MAX) {
		size_t ul = strlen(user), hl = strlen(hash);
		size_t glen = flen + 1 + ul + 1 + hl + 1;

		g = malloc(glen);
		if (g == NULL)
			abort();
		memcpy(g, f, flen);
		g[flen] = '\n';
		memcpy(g + flen + 1, user, ul);
		g[flen + 1 + ul] = ',';
		memcpy(g + flen + 2 + ul, hash, hl);
		g[glen - 1] = '\n';
		if (auth_users_match(g, glen, user, hash) != 1)
			abort();
		free(g);
	}
	(void)auth_users_match(f, flen, "", "");
	free(f);
	free(u);
	free(h);
	return 0;
}
