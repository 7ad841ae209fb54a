/*
 * csv.h - one CSV row (RFC 4180), built field by field: pure, no I/O.
 * A field holding a comma, a double quote, CR or LF is quoted, its quotes
 * doubled; numbers are written as the JSON output writes them, so a CSV
 * figure reads back equal to the -J one.  Rows end with CRLF.
 */
#ifndef IPERF_CSV_H
#define IPERF_CSV_H

#include <stddef.h>

#define CSV_EOL "\r\n"

struct csv_row {
	char *buf;     /* the row so far, NUL-terminated (NULL before use) */
	size_t len;
	size_t cap;
	int nfields;
	int err;       /* an allocation failed: the row is incomplete */
};

/* Append a field: text (NULL is the empty field). */
void csv_row_text(struct csv_row *row, const char *text);
/* Append a number (csv_num_format). */
void csv_row_num(struct csv_row *row, double v);
/* End the row (CRLF); 0, or -1 when an allocation failed. */
int csv_row_end(struct csv_row *row);
/* Empty the row for the next one (keeps the buffer). */
void csv_row_reset(struct csv_row *row);
void csv_row_release(struct csv_row *row);

/* A double as cJSON prints it in -J: an integer without a fraction, else
 * 15 significant digits when they read back equal within an epsilon,
 * else 17. */
void csv_num_format(double v, char *buf, size_t len);

#endif /* IPERF_CSV_H */
