/* units.c - suffix parsing and adaptive number formatting (see units.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "units.h"
#include "banned.h"

static int
suffix_power(int c)
{
	switch (c) {
	case 'k': case 'K': return 1;
	case 'm': case 'M': return 2;
	case 'g': case 'G': return 3;
	case 't': case 'T': return 4;
	default: return -1;
	}
}

int
units_parse(const char *s, enum units_kind kind, double *out)
{
	char *end = NULL;
	double v, base = kind == UNITS_RATE ? 1000.0 : 1024.0;
	int p;

	if (s == NULL)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end == s)
		return -1;
	if (*end != '\0') {
		p = suffix_power((unsigned char)*end);
		if (p < 0)
			return -1;
		while (p-- > 0)
			v *= base;
	}
	*out = v;
	return 0;
}

/* Per-unit multipliers, evaluated left to right as the reports expect. */
static const double bits_factor[5] = {
	1.0, 1.0 / 1000, 1.0 / 1000 / 1000, 1.0 / 1000 / 1000 / 1000,
	1.0 / 1000 / 1000 / 1000 / 1000
};
static const double bytes_factor[5] = {
	1.0, 1.0 / 1024, 1.0 / 1024 / 1024, 1.0 / 1024 / 1024 / 1024,
	1.0 / 1024 / 1024 / 1024 / 1024
};
static const char *const bits_label[5] = { "bit", "Kbit", "Mbit", "Gbit",
	"Tbit" };
static const char *const bytes_label[5] = { "Byte", "KByte", "MByte",
	"GByte", "TByte" };

static int
scale_index(double v, char fmt, double base)
{
	int c = 0;

	switch (toupper((unsigned char)fmt)) {
	case 'B': return 0;
	case 'K': return 1;
	case 'M': return 2;
	case 'G': return 3;
	case 'T': return 4;
	default: break;
	}
	while (v >= base && c < 4) {
		v /= base;
		c++;
	}
	return c;
}

void
units_format(char *buf, size_t len, double value, char fmt)
{
	int bits = !isupper((unsigned char)fmt);
	double v = bits ? value * 8 : value;
	int c = scale_index(v, fmt, bits ? 1000.0 : 1024.0);
	const char *label;

	v = v * (bits ? bits_factor[c] : bytes_factor[c]);
	label = bits ? bits_label[c] : bytes_label[c];
	if (v < 9.995)
		(void)snprintf(buf, len, "%4.2f %s", v, label);
	else if (v < 99.95)
		(void)snprintf(buf, len, "%4.1f %s", v, label);
	else
		(void)snprintf(buf, len, "%4.0f %s", v, label);
}
