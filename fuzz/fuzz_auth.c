/*
 * fuzz_auth.c - what a server does with a token before and after RSA:
 * strict base64 decoding of the peer's text, then the plaintext parser on
 * the decoded bytes and on the raw input.  Invariants checked (abort on
 * failure): whatever decodes re-encodes to the same text; encoded input
 * decodes back to itself; a parsed plaintext builds back to the same layout
 * and fields;
 * the printable copy of a parsed name is always terminated.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "fuzz.h"

static void
check_plaintext(const char *buf, size_t len)
{
	struct auth_creds c, c2;
	size_t d;
	char again[AUTH_PLAINTEXT_MAX + 1];
	char shown[4 * AUTH_FIELD_MAX + 1];
	int n;

	if (auth_plaintext_parse(buf, len, &c) == -1)
		return;
	/* A parsed token builds back to the same layout (the number may have
	 * had leading zeros) and parses again to the same fields. */
	n = auth_plaintext_build(c.user, c.pwd, c.ts, again, sizeof(again));
	if (n < 0 || (size_t)n > len)
		abort();
	d = strlen(c.user) + strlen(c.pwd) + 3 * 6 + 2;
	if (memcmp(again, buf, d) != 0 ||
	    auth_plaintext_parse(again, (size_t)n, &c2) == -1 ||
	    strcmp(c.user, c2.user) != 0 || strcmp(c.pwd, c2.pwd) != 0 ||
	    c.ts != c2.ts)
		abort();
	auth_printable(c.user, shown, sizeof(shown));
	if (strlen(shown) >= sizeof(shown))
		abort();
	(void)auth_skew_ok(0, c.ts, 10);
	(void)auth_skew_ok(c.ts, INT64_MIN, 1 << 30);
	(void)auth_skew_ok(INT64_MAX, c.ts, 1 << 30);
}

static void
check_decode(const char *in, size_t n)
{
	unsigned char out[AUTH_TOKEN_B64_MAX];
	char back[AUTH_TOKEN_B64_MAX + 1];
	size_t outn = 0;

	if (n > AUTH_TOKEN_B64_MAX)
		n = AUTH_TOKEN_B64_MAX;
	if (auth_b64_decode(in, n, out, sizeof(out), &outn) == -1)
		return;
	if (outn > sizeof(out) || outn > n)
		abort();
	/* Strict decoding accepts only canonical text. */
	if (auth_b64_encode(out, outn, back, sizeof(back)) == -1 ||
	    strlen(back) != n || memcmp(back, in, n) != 0)
		abort();
	check_plaintext((const char *)out, outn);
}

static void
check_encode(const unsigned char *in, size_t n)
{
	char *enc;
	unsigned char *dec;
	size_t elen = auth_b64_encoded_len(n), outn = 0;

	enc = malloc(elen + 1);
	dec = malloc(n + 1);
	if (enc == NULL || dec == NULL)
		abort();
	/* One byte too small fails; the exact size works. */
	if (auth_b64_encode(in, n, enc, elen) != -1)
		abort();
	if (auth_b64_encode(in, n, enc, elen + 1) == -1 || strlen(enc) != elen)
		abort();
	if (n > 0) {
		if (auth_b64_decode(enc, elen, dec, n, &outn) == -1 ||
		    outn != n || memcmp(dec, in, n) != 0)
			abort();
		/* Too small an output buffer is refused, never overrun. */
		if (auth_b64_decode(enc, elen, dec, n - 1, &outn) != -1)
			abort();
	}
	free(enc);
	free(dec);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Exact-size heap copies, so an over-read is caught. */
	char *s = fuzz_strndup(data, size);

	check_decode(s, size);
	check_plaintext(s, size);
	if (size <= AUTH_TOKEN_B64_MAX)
		check_encode(data, size);
	(void)auth_field_valid(s);
	free(s);
	return 0;
}
