/* csv.c - CSV rows (RFC 4180), pure (see csv.h). */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "banned.h"

static int
grow(struct csv_row *row, size_t more)
{
	size_t need = row->len + more + 1, ncap;
	char *nb;

	if (row->err)
		return -1;
	if (need <= row->cap)
		return 0;
	ncap = row->cap > 0 ? row->cap : 256;
	while (ncap < need)
		ncap *= 2;
	nb = realloc(row->buf, ncap);
	if (nb == NULL) {
		row->err = 1;
		return -1;
	}
	row->buf = nb;
	row->cap = ncap;
	return 0;
}

static void
put(struct csv_row *row, const char *s, size_t n)
{
	if (grow(row, n) == -1)
		return;
	memcpy(row->buf + row->len, s, n);
	row->len += n;
	row->buf[row->len] = '\0';
}

static void
put_quoted(struct csv_row *row, const char *text)
{
	const char *p, *q;

	put(row, "\"", 1);
	for (p = text; (q = strchr(p, '"')) != NULL; p = q + 1) {
		put(row, p, (size_t)(q - p) + 1);
		put(row, "\"", 1);
	}
	put(row, p, strlen(p));
	put(row, "\"", 1);
}

void
csv_row_text(struct csv_row *row, const char *text)
{
	if (row->nfields++ > 0)
		put(row, ",", 1);
	else
		put(row, "", 0); /* an empty first field still makes a row */
	if (text == NULL)
		return;
	if (strpbrk(text, ",\"\r\n") != NULL)
		put_quoted(row, text);
	else
		put(row, text, strlen(text));
}

void
csv_num_format(double v, char *buf, size_t len)
{
	double back;

	if (!isfinite(v)) {
		(void)snprintf(buf, len, "%s", "");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15) {
		(void)snprintf(buf, len, "%.0f", v);
		return;
	}
	(void)snprintf(buf, len, "%1.15g", v);
	back = strtod(buf, NULL);
	/* cJSON keeps 15 digits when they read back within an epsilon */
	if (fabs(back - v) > fmax(fabs(back), fabs(v)) * DBL_EPSILON)
		(void)snprintf(buf, len, "%1.17g", v);
}

void
csv_row_num(struct csv_row *row, double v)
{
	char num[64];

	csv_num_format(v, num, sizeof(num));
	csv_row_text(row, num);
}

int
csv_row_end(struct csv_row *row)
{
	put(row, CSV_EOL, strlen(CSV_EOL));
	return row->err ? -1 : 0;
}

void
csv_row_reset(struct csv_row *row)
{
	row->len = 0;
	row->nfields = 0;
	row->err = 0;
	if (row->buf != NULL)
		row->buf[0] = '\0';
}

void
csv_row_release(struct csv_row *row)
{
	free(row->buf);
	row->buf = NULL;
	row->len = row->cap = 0;
	row->nfields = 0;
}
