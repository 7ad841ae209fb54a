/*
 * exp_query.c - the /probe parameters (exp_query.h): Go's ParseBool and
 * ParseDuration re-done from their documented behaviour, the bitrate
 * pattern of iperf3_exporter, target, port and bind.  Pure.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp_query.h"
#include "util.h"
#include "banned.h"

/* Go's durations are int64 nanoseconds. */
#define NS_MAX_U ((uint64_t)1 << 63)
#define HOST_NAME_MAX_LEN 253
/* A value quoted in a reason: at most this many bytes of it. */
#define QUOTE_MAX 64

int
exp_parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "t", "T", "TRUE", "true",
		"True" };
	static const char *const no[] = { "0", "f", "F", "FALSE", "false",
		"False" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(s, yes[i]) == 0)
			return 1;
		if (strcmp(s, no[i]) == 0)
			return 0;
	}
	return -1;
}

/* [0-9]* at *s into *v (Go's leadingInt): -1 on overflow. */
static int
leading_int(const char **s, uint64_t *v)
{
	uint64_t x = 0;
	const char *p = *s;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > NS_MAX_U / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
		if (x > NS_MAX_U)
			return -1;
	}
	*s = p;
	*v = x;
	return 0;
}

/* [0-9]* after a '.' (Go's leadingFraction): digits past what fits are
 * read and ignored. */
static void
leading_fraction(const char **s, uint64_t *f, double *scale)
{
	uint64_t x = 0;
	const char *p = *s;
	int overflow = 0;

	*scale = 1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (overflow)
			continue;
		if (x > (NS_MAX_U - 1) / 10) {
			overflow = 1;
			continue;
		}
		x = x * 10 + (uint64_t)(*p - '0');
		*scale *= 10;
	}
	*s = p;
	*f = x;
}

/* Nanoseconds in one `len`-byte unit at u, 0 if it is none. */
static uint64_t
unit_ns(const char *u, size_t len)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 },
		{ "\xce\xbcs", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000ull }, { "m", 60000000000ull },
		{ "h", 3600000000000ull },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].name) == len &&
		    memcmp(units[i].name, u, len) == 0)
			return units[i].ns;
	return 0;
}

/* One "number unit" element at *s added to *d; -1 if malformed. */
static int
duration_part(const char **s, uint64_t *d)
{
	const char *p = *s, *start;
	uint64_t v, f = 0, unit;
	double scale = 1;
	int pre, post = 0;
	size_t n;

	if (!(*p == '.' || (*p >= '0' && *p <= '9')))
		return -1;
	start = p;
	if (leading_int(&p, &v) == -1)
		return -1;
	pre = p != start;
	if (*p == '.') {
		start = ++p;
		leading_fraction(&p, &f, &scale);
		post = p != start;
	}
	if (!pre && !post)
		return -1;
	for (n = 0; p[n] != '\0' && p[n] != '.' && !(p[n] >= '0' &&
	    p[n] <= '9'); n++)
		;
	unit = n > 0 ? unit_ns(p, n) : 0;
	if (unit == 0 || v > NS_MAX_U / unit)
		return -1;
	v *= unit;
	if (f > 0) {
		v += (uint64_t)((double)f * ((double)unit / scale));
		if (v > NS_MAX_U)
			return -1;
	}
	*d += v;
	if (*d > NS_MAX_U)
		return -1;
	*s = p + n;
	return 0;
}

int
exp_parse_duration(const char *s, double *seconds)
{
	uint64_t d = 0;
	int neg = 0;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (strcmp(s, "0") == 0) {
		*seconds = 0;
		return 0;
	}
	if (*s == '\0')
		return -1;
	while (*s != '\0')
		if (duration_part(&s, &d) == -1)
			return -1;
	if (!neg && d > NS_MAX_U - 1)
		return -1;
	*seconds = (neg ? -1.0 : 1.0) * (double)d / 1e9;
	return 0;
}

/* [0-9]+ at *s, advanced past it; the count of digits. */
static size_t
digits(const char **s)
{
	const char *p = *s;
	size_t n;

	while (*p >= '0' && *p <= '9')
		p++;
	n = (size_t)(p - *s);
	*s = p;
	return n;
}

int
exp_parse_bitrate(const char *s, uint64_t *bps, int *burst)
{
	const char *p = s, *num;
	double v, mult = 1;
	long b = 0;

	num = p;
	if (digits(&p) == 0)
		return -1;
	if (*p == '.') {
		p++;
		if (digits(&p) == 0)
			return -1;
	}
	v = strtod(num, NULL);
	if (*p == 'K' || *p == 'M' || *p == 'G')
		mult = *p == 'K' ? 1e3 : *p == 'M' ? 1e6 : 1e9, p++;
	if (*p == '/') {
		if (*++p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++)
			if ((b = b * 10 + (*p - '0')) > EXP_MAX_BURST)
				return -1;
	}
	if (*p != '\0' || !(v * mult < 9223372036854775808.0))
		return -1;
	*bps = (uint64_t)(v * mult);
	*burst = (int)b;
	return 0;
}

int
exp_parse_port(const char *s)
{
	long v = 0;
	size_t i;

	if (s[0] == '\0' || strlen(s) > 5)
		return -1;
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 1 && v <= 65535 ? (int)v : -1;
}

int
exp_parse_addr(const char *s, char *out, size_t outlen)
{
	size_t len = strlen(s);

	if (len >= 2 && s[0] == '[' && s[len - 1] == ']')
		return str_numeric_addr(AF_INET6, s + 1, len - 2, out, outlen);
	return str_numeric_addr(strchr(s, ':') != NULL ? AF_INET6 : AF_INET,
	    s, len, out, outlen);
}

/* A DNS name or an IPv4 address: [A-Za-z0-9._-], not starting with '-'
 * or '.'. */
static int
host_name_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > HOST_NAME_MAX_LEN || s[0] == '-' || s[0] == '.')
		return 0;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'))
			return 0;
	}
	return 1;
}

int
exp_parse_target(const char *s, char *host, size_t hostlen, int *port)
{
	const char *colon, *end;
	size_t len;
	int p;

	if (s[0] == '[') {
		end = strchr(s, ']');
		if (end == NULL || str_numeric_addr(AF_INET6, s + 1,
		    (size_t)(end - s - 1), host, hostlen) == -1)
			return -1;
		if (end[1] == '\0')
			return 0;
		colon = end + 1;
		if (*colon != ':')
			return -1;
	} else if ((colon = strchr(s, ':')) != NULL &&
	    strchr(colon + 1, ':') != NULL) {
		return str_numeric_addr(AF_INET6, s, strlen(s), host, hostlen);
	} else {
		len = colon != NULL ? (size_t)(colon - s) : strlen(s);
		if (!host_name_ok(s, len) || len >= hostlen)
			return -1;
		memcpy(host, s, len);
		host[len] = '\0';
		if (colon == NULL)
			return 0;
	}
	p = exp_parse_port(colon + 1);
	if (p < 0)
		return -1;
	*port = p;
	return 1;
}

/* v for a one-line reason: at most QUOTE_MAX bytes, control characters
 * as '?'. */
static void
quote_value(char *dst, size_t len, const char *v)
{
	size_t i;

	for (i = 0; v[i] != '\0' && i + 1 < len && i < QUOTE_MAX; i++)
		dst[i] = (unsigned char)v[i] < 0x20 || v[i] == 0x7f ? '?' : v[i];
	dst[i] = '\0';
}

/* The reason "invalid NAME 'VALUE': WHY"; returns -1. */
static int
bad_value(char *err, size_t errlen, const char *name, const char *v,
    const char *why)
{
	char q[QUOTE_MAX + 1];

	quote_value(q, sizeof(q), v);
	(void)snprintf(err, errlen, "invalid %s '%s'%s%s", name, q,
	    why != NULL ? ": " : "", why != NULL ? why : "");
	return -1;
}

/* The argument `key`, NULL when absent or empty. */
static const char *
arg(exp_query_get get, const void *ctx, const char *key)
{
	const char *v = get(ctx, key);

	return v != NULL && v[0] != '\0' ? v : NULL;
}

static int
parse_flag(exp_query_get get, const void *ctx, const char *key, int *out,
    char *err, size_t errlen)
{
	const char *v = arg(get, ctx, key);

	*out = 0;
	if (v == NULL)
		return 0;
	*out = exp_parse_bool(v);
	if (*out == -1)
		return bad_value(err, errlen, key, v, "a boolean (1, t, T, TRUE, "
		    "true, True, 0, f, F, FALSE, false, False)");
	return 0;
}

/* target and port. */
static int
parse_where(exp_query_get get, const void *ctx, struct probe_req *out, char *err,
    size_t errlen)
{
	const char *t = get(ctx, "target"), *p = arg(get, ctx, "port");
	int rc;

	if (t == NULL || t[0] == '\0') {
		(void)snprintf(err, errlen, "missing parameter 'target'");
		return -1;
	}
	out->port = EXP_DEFAULT_PORT;
	rc = exp_parse_target(t, out->target, sizeof(out->target), &out->port);
	if (rc == -1 || str_copy(out->label, t, sizeof(out->label)) >=
	    sizeof(out->label))
		return bad_value(err, errlen, "target", t, "a host name or an "
		    "address, optionally with :port ([v6]:port)");
	if (p == NULL)
		return 0;
	if (rc == 1)
		return bad_value(err, errlen, "port", p, "the target has a port "
		    "already");
	out->port = exp_parse_port(p);
	if (out->port == -1)
		return bad_value(err, errlen, "port", p, "1 to 65535");
	return 0;
}

/* bitrate, period and bind. */
static int
parse_how(exp_query_get get, const void *ctx, double max_period_s,
    struct probe_req *out, char *err, size_t errlen)
{
	const char *b = arg(get, ctx, "bitrate"), *d = arg(get, ctx, "period");
	const char *a = arg(get, ctx, "bind");
	char q[QUOTE_MAX + 1];

	out->have_bitrate = b != NULL;
	if (b != NULL && exp_parse_bitrate(b, &out->bitrate, &out->burst) == -1)
		return bad_value(err, errlen, "bitrate", b, "^[0-9]+(\\.[0-9]+)?"
		    "([KMG])?(/[0-9]+)?$, a rate below 2^63 and a burst of at "
		    "most 1000");
	out->period_s = EXP_DEFAULT_PERIOD_S;
	if (d != NULL && exp_parse_duration(d, &out->period_s) == -1)
		return bad_value(err, errlen, "period", d, "a Go duration such "
		    "as 5s, 1m30s or 1.5s");
	if (!(out->period_s > 0))
		return bad_value(err, errlen, "period", d, "must be above 0");
	if (out->period_s > max_period_s) {
		quote_value(q, sizeof(q), d);
		(void)snprintf(err, errlen, "period '%s' is above the maximum "
		    "of %gs (--exporter-max-period)", q, max_period_s);
		return -1;
	}
	if (a != NULL && exp_parse_addr(a, out->bind, sizeof(out->bind)) == -1)
		return bad_value(err, errlen, "bind", a, "a numeric IPv4 or IPv6 "
		    "address");
	return 0;
}

int
exp_query_parse(exp_query_get get, const void *ctx, double max_period_s,
    struct probe_req *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (parse_where(get, ctx, out, err, errlen) == -1 ||
	    parse_flag(get, ctx, "reverse_mode", &out->reverse, err,
		errlen) == -1 ||
	    parse_flag(get, ctx, "udp_mode", &out->udp, err, errlen) == -1)
		return -1;
	return parse_how(get, ctx, max_period_s, out, err, errlen);
}
