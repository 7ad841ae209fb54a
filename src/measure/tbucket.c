/* tbucket.c - a token bucket for --accept-rate (see tbucket.h). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "tbucket.h"
#include "banned.h"

/* Slack for the rounding of rate * elapsed: a token that is short of 1 by
 * less than this is whole. */
#define TBUCKET_EPS 1e-9

/* Decimal digits at *p into *v (at most 7, so that the value stays
 * exact); the count of digits read, 0 when none or too many. */
static size_t
digits(const char *p, double *v)
{
	size_t n = 0;

	*v = 0;
	while (p[n] >= '0' && p[n] <= '9') {
		if (n == 7)
			return 0;
		*v = *v * 10 + (double)(p[n] - '0');
		n++;
	}
	return n;
}

/* An integer in 1..TBUCKET_MAX_N at *p; advances *p.  0 or -1. */
static int
parse_count(const char **p, double *v)
{
	size_t n = digits(*p, v);

	if (n == 0 || *v < 1 || *v > TBUCKET_MAX_N)
		return -1;
	*p += n;
	return 0;
}

/* "D", "D.D" or ".D" in (0, TBUCKET_MAX_SECS] at *p; advances *p. */
static int
parse_secs(const char **p, double *v)
{
	const char *s = *p;
	double frac = 0, scale = 1;
	size_t n = digits(s, v), m = 0;

	s += n;
	if (*s == '.') {
		s++;
		while (s[m] >= '0' && s[m] <= '9' && m < 9) {
			scale /= 10;
			frac += (double)(s[m] - '0') * scale;
			m++;
		}
		if (m == 0 || (s[m] >= '0' && s[m] <= '9'))
			return -1;
		s += m;
	}
	if (n == 0 && m == 0)
		return -1;
	*v += frac;
	if (!(*v > 0) || *v > TBUCKET_MAX_SECS)
		return -1;
	*p = s;
	return 0;
}

int
tbucket_parse(const char *s, double *per_second, double *burst)
{
	double n, secs = 1, size;

	if (s == NULL || parse_count(&s, &n) == -1)
		return -1;
	if (*s == '/') {
		s++;
		if (parse_secs(&s, &secs) == -1)
			return -1;
	}
	size = n;
	if (*s == ':') {
		s++;
		if (parse_count(&s, &size) == -1)
			return -1;
	}
	if (*s != '\0')
		return -1;
	*per_second = n / secs;
	*burst = size;
	return 0;
}

void
tbucket_init(struct tbucket *b, double per_second, double burst,
    uint64_t now_us)
{
	memset(b, 0, sizeof(*b));
	b->burst = burst >= 1 ? burst : 1;
	b->rate = per_second > 0 ? per_second / 1e6 : 0;
	b->tokens = b->burst;
	b->last_us = now_us;
}

int
tbucket_take(struct tbucket *b, uint64_t now_us)
{
	if (now_us > b->last_us) {
		b->tokens += (double)(now_us - b->last_us) * b->rate;
		if (b->tokens > b->burst)
			b->tokens = b->burst;
	}
	b->last_us = now_us;
	if (b->tokens < 1 - TBUCKET_EPS)
		return 0;
	b->tokens -= 1;
	if (b->tokens < 0)
		b->tokens = 0;
	return 1;
}
