/*
 * plot.h - the SVG picture of a run (--plot FILE): series of numbers
 * collected from the interval records (report_plot.c), drawn by a pure
 * function (plot.c) into a standalone SVG document.  Nothing here knows
 * a test, a socket or a clock: the same data always gives the same bytes.
 *
 * Memory: a series keeps at most PLOT_MAX_POINTS points.  When it is full,
 * neighbouring points are merged pairwise (the later end time, the mean of
 * the values) and later intervals are averaged in groups of the same size,
 * so a day-long run at -i 1 still draws from at most 2048 points a series.
 */
#ifndef IPERF_PLOT_H
#define IPERF_PLOT_H

#include <stddef.h>

#define PLOT_MAX_POINTS 2048
#define PLOT_MAX_NOTES 4
#define PLOT_WIDTH_PX 900

/* The panels, top to bottom; a panel is drawn only when it has data. */
enum plot_panel {
	PLOT_RATE,      /* throughput, bits/s (drawn in an automatic unit) */
	PLOT_RETR,      /* TCP retransmits per interval (bars) */
	PLOT_RTT,       /* round-trip time, ms */
	PLOT_LOSS,      /* UDP datagrams lost, % */
	PLOT_JITTER,    /* UDP jitter, ms */
	PLOT_NPANELS
};

enum plot_style {
	PLOT_THIN,      /* one stream */
	PLOT_THICK,     /* a sum */
	PLOT_BARS
};

/* Colour of the sums: the palette's streams colours are 0..9. */
#define PLOT_COLOR_SUM (-1)

struct plot_series {
	char *label;          /* legend text */
	enum plot_panel panel;
	enum plot_style style;
	int color;            /* palette index, or PLOT_COLOR_SUM */
	int dashed;           /* the reverse direction of --bidir */
	size_t n, cap;        /* points kept (cap <= PLOT_MAX_POINTS) */
	double *x, *y;        /* x: seconds (end of interval); y: value */
	unsigned int stride;  /* intervals averaged into one point */
	unsigned int pend_n;  /* intervals waiting for the next point */
	double pend_x, pend_y; /* their last end time and sum of values */
};

struct plot_data {
	char *title;
	char *notes[PLOT_MAX_NOTES]; /* lines under the title, or NULL */
	size_t nseries;
	struct plot_series *series;
};

struct plot_data *plot_data_new(void);
void plot_data_free(struct plot_data *d);
/* Copies of the text; -1 on ENOMEM. */
int plot_set_title(struct plot_data *d, const char *title);
int plot_set_note(struct plot_data *d, size_t i, const char *note);
/* The series with this panel and label, added when missing with the
 * given look; NULL on ENOMEM. */
struct plot_series *plot_series_get(struct plot_data *d,
    enum plot_panel panel, const char *label, enum plot_style style,
    int color, int dashed);
/* One interval's value; NaN and infinities are ignored.  -1 on ENOMEM. */
int plot_series_add(struct plot_series *s, double x, double y);

/* The SVG document (NUL-terminated, malloc'd) and its length; NULL on
 * ENOMEM.  Deterministic and locale-independent. */
char *plot_svg(const struct plot_data *d, size_t *len);

/* Pieces of the writer, exposed for the unit tests (plot_fmt.c). */
struct plot_ticks {
	double step;     /* 1, 2 or 5 times a power of ten */
	double top;      /* axis end: a whole number of steps >= max */
	int count;       /* steps from 0 to top */
	int decimals;    /* digits after the point the labels need */
};
/* Ticks from 0 to at least max (max <= 0 or not finite: 0..1). */
void plot_ticks(double max, int target, struct plot_ticks *t);
/* The unit to show rates up to max_bps in ("Mbit/s"), and its size. */
const char *plot_rate_unit(double max_bps, double *div);
/* v with `decimals` digits after a '.', whatever the locale; "0" for a
 * value that is not finite.  Returns the length (truncated to len - 1). */
size_t plot_fmt_fixed(char *buf, size_t len, double v, int decimals);

/* A growing text buffer; err is set (and nothing more appended) after a
 * failed allocation. */
struct plot_buf {
	char *p;
	size_t len, cap;
	int err;
};
void plot_buf_puts(struct plot_buf *b, const char *s);
void plot_buf_printf(struct plot_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A number, as plot_fmt_fixed. */
void plot_buf_num(struct plot_buf *b, double v, int decimals);
/* Text escaped for XML content and attributes; bytes that are not UTF-8
 * or not allowed in XML 1.0 become '?'. */
void plot_buf_escape(struct plot_buf *b, const char *s);

#endif /* IPERF_PLOT_H */
