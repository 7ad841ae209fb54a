/*
 * plot_fmt.c - the small pure pieces of the SVG writer: nice tick steps,
 * the rate unit, numbers with a fixed number of decimals that never depend
 * on LC_NUMERIC, a growing text buffer, and XML escaping.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "banned.h"

#define FMT_MAX_ABS 1e15 /* beyond this a plot number is nonsense anyway */

/*
 * The power of ten at or below raw (10^k <= raw < 10^(k+1)), by whole
 * steps rather than libm's log10()/pow(): those bring about 12 KB of
 * tables into a static embedded build.  Negative powers divide by an
 * exact integer power, so mag is the double nearest 10^k, as pow() gives.
 */
static double
decade(double raw, int *k)
{
	double p = 1;

	*k = 0;
	while (p * 10 <= raw) {
		p *= 10;
		(*k)++;
	}
	if (p <= raw)
		return p;
	while (1 / p > raw) {
		p *= 10;
		(*k)--;
	}
	return 1 / p;
}

void
plot_ticks(double max, int target, struct plot_ticks *t)
{
	double raw, mag, r;
	int k;

	if (!isfinite(max) || max <= 0)
		max = 1;
	if (max > FMT_MAX_ABS)
		max = FMT_MAX_ABS;
	if (target < 1)
		target = 1;
	raw = max / target;
	if (raw < 1e-12)
		raw = 1e-12;
	mag = decade(raw, &k);
	r = raw / mag;
	/* 20.005 s at 10 ticks: steps of 2, not 5 (the last tick is 20) */
	r /= 1 + 1e-3;
	t->step = (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
	if (r > 5)
		k++;
	/* a hair over a step (rounding) does not open another one */
	t->count = (int)ceil(max / t->step * (1 - 1e-9));
	if (t->count < 1)
		t->count = 1;
	t->top = t->count * t->step;
	t->decimals = k < 0 ? -k : 0;
}

const char *
plot_rate_unit(double max_bps, double *div)
{
	static const char *const name[] = {
		"bit/s", "Kbit/s", "Mbit/s", "Gbit/s", "Tbit/s",
	};
	size_t i = 0;

	*div = 1;
	while (i + 1 < sizeof(name) / sizeof(name[0]) && isfinite(max_bps) &&
	    max_bps / *div >= 1000) {
		*div *= 1000;
		i++;
	}
	return name[i];
}

size_t
plot_fmt_fixed(char *buf, size_t len, double v, int decimals)
{
	long long scale = 1, q;
	int d, n;
	const char *sign;

	if (len == 0)
		return 0;
	decimals = decimals < 0 ? 0 : decimals > 6 ? 6 : decimals;
	if (!isfinite(v))
		v = 0;
	v = v > FMT_MAX_ABS ? FMT_MAX_ABS : v < -FMT_MAX_ABS ? -FMT_MAX_ABS : v;
	for (d = 0; d < decimals; d++)
		scale *= 10;
	q = llround(fabs(v) * (double)scale);
	sign = v < 0 && q != 0 ? "-" : "";
	if (decimals == 0)
		n = snprintf(buf, len, "%s%lld", sign, q);
	else
		n = snprintf(buf, len, "%s%lld.%0*lld", sign, q / scale,
		    decimals, q % scale);
	if (n < 0) {
		buf[0] = '\0';
		return 0;
	}
	return (size_t)n < len ? (size_t)n : len - 1;
}

static int
buf_reserve(struct plot_buf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->err)
		return -1;
	if (b->len + more + 1 <= b->cap)
		return 0;
	cap = b->cap != 0 ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (p == NULL) {
		b->err = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static void
buf_put(struct plot_buf *b, const char *s, size_t n)
{
	if (buf_reserve(b, n) != 0)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
plot_buf_puts(struct plot_buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

/* Callers format integers and strings only: numbers go through
 * plot_buf_num, so no %f ever meets a locale. */
void
plot_buf_printf(struct plot_buf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = 1;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		buf_put(b, small, (size_t)n);
		return;
	}
	if (buf_reserve(b, (size_t)n) != 0)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void
plot_buf_num(struct plot_buf *b, double v, int decimals)
{
	char s[40];

	buf_put(b, s, plot_fmt_fixed(s, sizeof(s), v, decimals));
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, at most U+10FFFF), or 0. */
static size_t
utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void
plot_buf_escape(struct plot_buf *b, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n;

	while (*u != '\0') {
		if (*u == '&')
			plot_buf_puts(b, "&amp;");
		else if (*u == '<')
			plot_buf_puts(b, "&lt;");
		else if (*u == '>')
			plot_buf_puts(b, "&gt;");
		else if (*u == '"')
			plot_buf_puts(b, "&quot;");
		else if (*u == '\'')
			plot_buf_puts(b, "&apos;");
		else if (*u >= 0x80 && (n = utf8_len(u)) != 0) {
			buf_put(b, (const char *)u, n);
			u += n;
			continue;
		} else if (*u < 0x20 || *u >= 0x7f)
			buf_put(b, "?", 1);
		else
			buf_put(b, (const char *)u, 1);
		u++;
	}
}
