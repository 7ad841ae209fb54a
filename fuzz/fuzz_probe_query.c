/*
 * fuzz_probe_query.c - the exporter's /probe query on hostile text.
 * Input: a query string ("target=h&port=5201&..."), split at '&' and the
 * first '=' and percent-decoded as an HTTP server would.  Invariants
 * (abort on failure): a refused query has a one-line reason; an accepted
 * one has a target, a port of 1 to 65535, a period above 0 and at most
 * the maximum, a burst of at most 1000 and a numeric bind address or
 * none; the /probe text written for it (with a fixed result document)
 * is made of whole lines, each a comment or a sample of one of our
 * families, whatever the target label holds.  The parsers of single
 * values get the whole input too.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exp_expo.h"
#include "exp_query.h"
#include "fuzz.h"

#define MAX_ARGS 32
#define MAX_PERIOD_S 30.0

struct query {
	char *key[MAX_ARGS], *val[MAX_ARGS];
	int n;
};

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* %XX and '+' decoded in place (a NUL from %00 ends the value, as a C
 * string would for the server). */
static void
decode(char *s)
{
	char *o = s;

	for (; *s != '\0'; s++) {
		if (*s == '+')
			*o++ = ' ';
		else if (*s == '%' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
			*o++ = (char)(hexval(s[1]) * 16 + hexval(s[2]));
			s += 2;
		} else
			*o++ = *s;
	}
	*o = '\0';
}

static void
split(char *s, struct query *q)
{
	char *amp, *eq;

	q->n = 0;
	while (s != NULL && q->n < MAX_ARGS) {
		amp = strchr(s, '&');
		if (amp != NULL)
			*amp++ = '\0';
		eq = strchr(s, '=');
		if (eq != NULL)
			*eq++ = '\0';
		decode(s);
		if (eq != NULL)
			decode(eq);
		q->key[q->n] = s;
		q->val[q->n++] = eq != NULL ? eq : s + strlen(s);
		s = amp;
	}
}

static const char *
get(const void *ctx, const char *key)
{
	const struct query *q = ctx;
	int i;

	for (i = 0; i < q->n; i++)
		if (strcmp(q->key[i], key) == 0)
			return q->val[i];
	return NULL;
}

/* Every line a comment or "name{...} value" / "name value" of ours. */
static void
check_lines(const char *text)
{
	const char *p = text, *nl;

	while (*p != '\0') {
		nl = strchr(p, '\n');
		if (nl == NULL)
			abort();
		if (!(p[0] == '#' || strncmp(p, "iperf3_", 7) == 0 ||
		    strncmp(p, "probe_", 6) == 0))
			abort();
		p = nl + 1;
	}
}

static void
check_request(const struct probe_req *r)
{
	static const char doc[] = "{\"end\":{\"sum_sent\":{\"seconds\":1,"
	    "\"bytes\":10,\"retransmits\":0},\"sum_received\":{\"seconds\":1,"
	    "\"bytes\":10}}}";
	struct exp_probe_view v = { r->label, r->port, r->udp, 1, 0, 0.5, doc };
	struct exp_buf b;
	size_t len;
	char *text;

	if (r->target[0] == '\0' || r->port < 1 || r->port > 65535 ||
	    !(r->period_s > 0) || r->period_s > MAX_PERIOD_S ||
	    r->burst < 0 || r->burst > EXP_MAX_BURST ||
	    memchr(r->label, '\0', sizeof(r->label)) == NULL)
		abort();
	if (r->bind[0] != '\0' && strpbrk(r->bind, ".:") == NULL)
		abort();
	exp_buf_init(&b);
	if (exp_write_probe(&b, &v) != 1)
		abort();
	text = exp_buf_take(&b, &len);
	if (text == NULL || strlen(text) != len)
		abort();
	check_lines(text);
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size), *copy = fuzz_strndup(data, size);
	struct probe_req r;
	struct query q;
	char err[256], host[EXP_HOST_MAX];
	uint64_t bps;
	double d;
	int burst, port;

	(void)exp_parse_bool(s);
	(void)exp_parse_duration(s, &d);
	(void)exp_parse_bitrate(s, &bps, &burst);
	(void)exp_parse_target(s, host, sizeof(host), &port);
	(void)exp_parse_port(s);
	(void)exp_parse_addr(s, host, sizeof(host));
	split(copy, &q);
	err[0] = '\0';
	if (exp_query_parse(get, &q, MAX_PERIOD_S, &r, err, sizeof(err)) == 0)
		check_request(&r);
	else if (err[0] == '\0' || strchr(err, '\n') != NULL)
		abort();
	free(copy);
	free(s);
	return 0;
}
