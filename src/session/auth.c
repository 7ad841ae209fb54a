/*
 * auth.c - the pure parts of authentication: token plaintext, base64,
 * users-file lines, clock skew.  No I/O, no OpenSSL; every parser takes
 * an exact-length buffer.  Built with and without OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "auth.h"
#include "banned.h"

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

#define PFX_USER      "user: "
#define PFX_PWD       "pwd:  "
#define PFX_TS        "ts:   "
#define PFX_LEN       6
#define TS_DIGITS_MAX 19 /* INT64_MAX has 19 digits */

/* A byte allowed in a user name or password (the peer splits the
 * plaintext at whitespace, so none of that, and no controls). */
static int
field_byte(unsigned char c)
{
	return c > 0x20 && c != 0x7f;
}

int
auth_field_valid(const char *s)
{
	size_t i;

	if (s == NULL || s[0] == '\0')
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		if (i >= AUTH_FIELD_MAX || !field_byte((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

int
auth_plaintext_build(const char *user, const char *pwd, int64_t ts, char *out,
    size_t outlen)
{
	int n;

	if (!auth_field_valid(user) || !auth_field_valid(pwd) || out == NULL)
		return -1;
	n = snprintf(out, outlen,
	    PFX_USER "%s\n" PFX_PWD "%s\n" PFX_TS "%" PRId64, user, pwd, ts);
	if (n < 0 || (size_t)n >= outlen)
		return -1;
	return n;
}

/*
 * One field: `pfx`, then 1..AUTH_FIELD_MAX field bytes, then `end` (or
 * the end of the buffer when end is 0).  Advances *pos.
 */
static int
parse_field(const char *buf, size_t len, size_t *pos, const char *pfx, char end,
    char *out)
{
	size_t p = *pos, n = 0;

	if (len - p < PFX_LEN || memcmp(buf + p, pfx, PFX_LEN) != 0)
		return -1;
	p += PFX_LEN;
	while (p < len && field_byte((unsigned char)buf[p])) {
		if (n == AUTH_FIELD_MAX)
			return -1;
		out[n++] = buf[p++];
	}
	out[n] = '\0';
	if (n == 0)
		return -1;
	if (end != '\0') {
		if (p >= len || buf[p] != end)
			return -1;
		p++;
	}
	*pos = p;
	return 0;
}

/* Signed decimal, 1..19 digits, exactly the rest of the buffer. */
static int
parse_ts(const char *s, size_t n, int64_t *out)
{
	uint64_t v = 0, lim = (uint64_t)INT64_MAX;
	size_t i = 0;
	int neg = 0;

	if (n > 0 && s[0] == '-') {
		neg = 1;
		i = 1;
		lim += 1; /* |INT64_MIN| */
	}
	if (n == i || n - i > TS_DIGITS_MAX)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > lim)
			return -1;
	}
	if (neg)
		*out = v == lim ? INT64_MIN : -(int64_t)v;
	else
		*out = (int64_t)v;
	return 0;
}

int
auth_plaintext_parse(const char *buf, size_t len, struct auth_creds *c)
{
	size_t pos = 0;

	if (buf == NULL || c == NULL || len > AUTH_PLAINTEXT_MAX)
		return -1;
	memset(c, 0, sizeof(*c));
	if (parse_field(buf, len, &pos, PFX_USER, '\n', c->user) == -1 ||
	    parse_field(buf, len, &pos, PFX_PWD, '\n', c->pwd) == -1)
		goto fail;
	if (len - pos < PFX_LEN || memcmp(buf + pos, PFX_TS, PFX_LEN) != 0)
		goto fail;
	pos += PFX_LEN;
	if (parse_ts(buf + pos, len - pos, &c->ts) == -1)
		goto fail;
	return 0;
fail:
	memset(c, 0, sizeof(*c));
	return -1;
}

/* ---- base64 ------------------------------------------------------------- */

size_t
auth_b64_encoded_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

int
auth_b64_encode(const unsigned char *in, size_t n, char *out, size_t outlen)
{
	size_t i, o = 0;

	if (n > (SIZE_MAX - 3) / 4 * 3 || auth_b64_encoded_len(n) >= outlen)
		return -1;
	for (i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		size_t left = n - i;

		if (left > 1)
			v |= (uint32_t)in[i + 1] << 8;
		if (left > 2)
			v |= in[i + 2];
		out[o++] = b64_alphabet[(v >> 18) & 63];
		out[o++] = b64_alphabet[(v >> 12) & 63];
		out[o++] = b64_alphabet[(v >> 6) & 63];
		out[o++] = b64_alphabet[v & 63];
		if (left < 3)
			out[o - 1] = '=';
		if (left < 2)
			out[o - 2] = '=';
	}
	out[o] = '\0';
	return 0;
}

static int
b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* One group of 4 characters; `last` allows '=' padding.  Returns the
 * number of bytes (1..3) or -1. */
static int
b64_group(const char *g, int last, unsigned char b[3])
{
	int v[4], k, pad = 0;
	uint32_t w = 0;

	for (k = 0; k < 4; k++) {
		if (g[k] == '=' && last && k >= 2) {
			pad++;
			v[k] = 0;
			continue;
		}
		if (pad > 0 || (v[k] = b64_value(g[k])) < 0)
			return -1;
	}
	for (k = 0; k < 4; k++)
		w = w << 6 | (uint32_t)v[k];
	/* Bits under the padding must be zero (canonical encoding). */
	if ((pad == 1 && (w & 0xff) != 0) || (pad == 2 && (w & 0xffff) != 0))
		return -1;
	b[0] = (unsigned char)(w >> 16);
	b[1] = (unsigned char)(w >> 8);
	b[2] = (unsigned char)w;
	return 3 - pad;
}

int
auth_b64_decode(const char *in, size_t n, unsigned char *out, size_t outlen,
    size_t *outn)
{
	size_t i, o = 0;

	*outn = 0;
	if (in == NULL || n == 0 || n % 4 != 0 || n / 4 * 3 - 2 > outlen)
		return -1;
	for (i = 0; i < n; i += 4) {
		unsigned char b[3];
		int got = b64_group(in + i, i + 4 == n, b);

		if (got < 0 || (size_t)got > outlen - o)
			return -1;
		memcpy(out + o, b, (size_t)got);
		o += (size_t)got;
	}
	*outn = o;
	return 0;
}

/* ---- skew, users file, printing ----------------------------------------- */

int
auth_skew_ok(int64_t now, int64_t ts, int threshold_s)
{
	uint64_t d;

	if (threshold_s <= 0)
		return 0;
	/* |now - ts| without signed overflow. */
	d = now >= ts ? (uint64_t)now - (uint64_t)ts :
	                (uint64_t)ts - (uint64_t)now;
	return d <= (uint64_t)threshold_s;
}

/* Next non-empty comma-separated field of line[*p..n): start and length. */
static int
next_field(const char *line, size_t n, size_t *p, size_t *start, size_t *flen)
{
	while (*p < n && line[*p] == ',')
		(*p)++;
	if (*p >= n)
		return 0;
	*start = *p;
	while (*p < n && line[*p] != ',')
		(*p)++;
	*flen = *p - *start;
	return 1;
}

static int
field_is(const char *f, size_t flen, const char *want)
{
	return strlen(want) == flen && memcmp(f, want, flen) == 0;
}

static int
line_matches(const char *line, size_t n, const char *user, const char *hash)
{
	size_t p = 0, us, ul, hs, hl;

	if (n == 0 || line[0] == '#' || memchr(line, ',', n) == NULL)
		return 0;
	if (!next_field(line, n, &p, &us, &ul) ||
	    !next_field(line, n, &p, &hs, &hl))
		return 0;
	return field_is(line + us, ul, user) && field_is(line + hs, hl, hash);
}

int
auth_users_match(const char *buf, size_t len, const char *user,
    const char *hash)
{
	size_t pos = 0;

	if (buf == NULL || user == NULL || hash == NULL)
		return 0;
	while (pos < len) {
		const char *line = buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t full = nl != NULL ? (size_t)(nl - line) : len - pos;
		size_t n = 0;

		while (n < full && line[n] != '\r' && line[n] != '\0')
			n++;
		if (n <= AUTH_USERS_LINE_MAX &&
		    line_matches(line, n, user, hash))
			return 1;
		pos += full + (nl != NULL ? 1 : 0);
	}
	return 0;
}

void
auth_wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n-- > 0)
		*v++ = 0;
}

void
auth_printable(const char *s, char *out, size_t outlen)
{
	size_t o = 0;

	if (outlen == 0)
		return;
	for (; s != NULL && *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c > 0x20 && c < 0x7f) {
			if (o + 1 >= outlen)
				break;
			out[o++] = (char)c;
		} else {
			if (o + 4 >= outlen)
				break;
			(void)snprintf(out + o, outlen - o, "\\x%02x", c);
			o += 4;
		}
	}
	out[o] = '\0';
}
