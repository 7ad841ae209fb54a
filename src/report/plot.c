/*
 * plot.c - plot_svg(): the SVG document of a plot_data (plot.h).  A title
 * and note lines, then one panel per kind of data present (throughput
 * always, then retransmits, RTT, UDP loss, jitter), sharing the time axis:
 * grid, tick labels, axis labels with units, the series (thin lines per
 * stream, thick lines for sums, bars for retransmits) and a legend at the
 * right of each panel.  Pure: text out of numbers, no clock, no locale.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "banned.h"

#define X0_PX 78.0          /* left edge of the plot area */
#define X1_PX 716.0         /* right edge; the legend is beyond it */
#define LEGEND_PX 730.0
#define LEGEND_LINE_PX 15.0
#define PANEL_GAP_PX 34.0
#define TITLE_CHARS 88      /* a longer title gets a smaller font */

struct panel_info {
	const char *id;
	const char *axis;   /* y axis label; NULL: the rate unit */
	double height;      /* px */
};

static const struct panel_info panels[PLOT_NPANELS] = {
	{ "throughput", NULL, 270 },
	{ "retransmits", "retransmits", 110 },
	{ "rtt", "RTT (ms)", 120 },
	{ "loss", "UDP loss (%)", 110 },
	{ "jitter", "jitter (ms)", 110 },
};

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

#define NCOLORS (sizeof(palette) / sizeof(palette[0]))

struct frame {
	double xmax;                 /* seconds at X1_PX */
	struct plot_ticks xt;
	double top[PLOT_NPANELS];    /* panel top in px; < 0: not drawn */
	int last;                    /* the lowest panel drawn */
	double height;               /* of the picture */
	char xlabel[80];             /* under the lowest panel */
};

/* Points of a series, the partly filled last one included. */
static size_t
npoints(const struct plot_series *s)
{
	return s->n + (s->pend_n > 0 ? 1 : 0);
}

static void
point(const struct plot_series *s, size_t i, double *x, double *y)
{
	if (i < s->n) {
		*x = s->x[i];
		*y = s->y[i];
	} else {
		*x = s->pend_x;
		*y = s->pend_y / s->pend_n;
	}
}

/* The largest x (axis 0) or y (axis 1) of a panel's series (or of all
 * series: panel PLOT_NPANELS). */
static double
data_max(const struct plot_data *d, int panel, int axis)
{
	double m = 0, x, y;
	size_t i, j;

	for (i = 0; i < d->nseries; i++) {
		const struct plot_series *s = &d->series[i];

		if (panel != PLOT_NPANELS && (int)s->panel != panel)
			continue;
		for (j = 0; j < npoints(s); j++) {
			point(s, j, &x, &y);
			if ((axis == 0 ? x : y) > m)
				m = axis == 0 ? x : y;
		}
	}
	return m;
}

static int
panel_has_data(const struct plot_data *d, int panel)
{
	size_t i;

	for (i = 0; i < d->nseries; i++)
		if ((int)d->series[i].panel == panel &&
		    npoints(&d->series[i]) > 0)
			return 1;
	return 0;
}

static size_t
nnotes(const struct plot_data *d)
{
	size_t i, n = 0;

	for (i = 0; i < PLOT_MAX_NOTES; i++)
		if (d->notes[i] != NULL)
			n++;
	return n;
}

static void
layout(const struct plot_data *d, struct frame *f)
{
	double y = 50 + 16.0 * (double)nnotes(d);
	unsigned int stride = 1;
	size_t i;
	int p;

	f->xmax = data_max(d, PLOT_NPANELS, 0);
	plot_ticks(f->xmax, 10, &f->xt);
	if (!(f->xmax > 0))
		f->xmax = f->xt.top;
	f->last = PLOT_RATE;
	for (p = 0; p < PLOT_NPANELS; p++) {
		f->top[p] = -1;
		if (p != PLOT_RATE && !panel_has_data(d, p))
			continue;
		f->top[p] = y;
		f->last = p;
		y += panels[p].height + PANEL_GAP_PX;
	}
	f->height = y - PANEL_GAP_PX + 50;
	for (i = 0; i < d->nseries; i++)
		if (d->series[i].stride > stride)
			stride = d->series[i].stride;
	if (stride > 1)
		(void)snprintf(f->xlabel, sizeof(f->xlabel), "time (s); a "
		    "point is the mean of up to %u intervals", stride);
	else
		(void)snprintf(f->xlabel, sizeof(f->xlabel), "time (s)");
}

static double
px_x(const struct frame *f, double x)
{
	return X0_PX + x / f->xmax * (X1_PX - X0_PX);
}

static void
header(struct plot_buf *b, const struct frame *f)
{
	plot_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	plot_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
	    "width=\"%d\" height=\"", PLOT_WIDTH_PX);
	plot_buf_num(b, f->height, 0);
	plot_buf_printf(b, "\" viewBox=\"0 0 %d ", PLOT_WIDTH_PX);
	plot_buf_num(b, f->height, 0);
	plot_buf_puts(b, "\" font-family=\"sans-serif\" font-size=\"11\">\n");
	plot_buf_puts(b, "<rect width=\"100%\" height=\"100%\" "
	    "fill=\"#ffffff\"/>\n");
}

static void
titles(struct plot_buf *b, const struct plot_data *d)
{
	const char *t = d->title != NULL ? d->title : "iperf3";
	size_t len = strlen(t), i;
	int y = 46, size = 16;

	if (len > TITLE_CHARS)
		size = (int)(16 * TITLE_CHARS / len);
	if (size < 9)
		size = 9;
	plot_buf_printf(b, "<text id=\"title\" x=\"%d\" y=\"26\" "
	    "text-anchor=\"middle\" font-size=\"%d\" font-weight=\"bold\">",
	    PLOT_WIDTH_PX / 2, size);
	plot_buf_escape(b, t);
	plot_buf_puts(b, "</text>\n");
	for (i = 0; i < PLOT_MAX_NOTES; i++) {
		if (d->notes[i] == NULL)
			continue;
		plot_buf_printf(b, "<text class=\"note\" x=\"%d\" y=\"%d\" "
		    "text-anchor=\"middle\" font-size=\"12\" fill=\"#444444\">",
		    PLOT_WIDTH_PX / 2, y);
		plot_buf_escape(b, d->notes[i]);
		plot_buf_puts(b, "</text>\n");
		y += 16;
	}
}

/* An SVG attribute pair x="..": numbers with one decimal. */
static void
attr(struct plot_buf *b, const char *name, double v)
{
	plot_buf_printf(b, " %s=\"", name);
	plot_buf_num(b, v, 1);
	plot_buf_puts(b, "\"");
}

static void
line(struct plot_buf *b, double x1, double y1, double x2, double y2,
    const char *style)
{
	plot_buf_puts(b, "<line");
	attr(b, "x1", x1);
	attr(b, "y1", y1);
	attr(b, "x2", x2);
	attr(b, "y2", y2);
	plot_buf_printf(b, " %s/>\n", style);
}

static void
text_at(struct plot_buf *b, double x, double y, const char *anchor,
    const char *s)
{
	plot_buf_puts(b, "<text");
	attr(b, "x", x);
	attr(b, "y", y);
	plot_buf_printf(b, " text-anchor=\"%s\">", anchor);
	plot_buf_escape(b, s);
	plot_buf_puts(b, "</text>\n");
}

/* Vertical grid lines and their labels under the panel; the axis title
 * under the lowest panel only. */
static void
x_axis(struct plot_buf *b, const struct frame *f, double top, double h,
    int last)
{
	char s[40];
	int k;

	for (k = 0; k <= f->xt.count; k++) {
		double x = k * f->xt.step;

		if (x > f->xmax * (1 + 1e-9))
			break;
		line(b, px_x(f, x), top, px_x(f, x), top + h,
		    "stroke=\"#e0e0e0\"");
		(void)plot_fmt_fixed(s, sizeof(s), x, f->xt.decimals);
		text_at(b, px_x(f, x), top + h + 14, "middle", s);
	}
	if (last)
		text_at(b, (X0_PX + X1_PX) / 2, top + h + 34, "middle",
		    f->xlabel);
}

static void
y_axis(struct plot_buf *b, const struct plot_ticks *yt, double top,
    double h, const char *title)
{
	char s[40];
	int k;

	for (k = 0; k <= yt->count; k++) {
		double y = top + h - h * k / yt->count;

		line(b, X0_PX, y, X1_PX, y, "stroke=\"#e0e0e0\"");
		(void)plot_fmt_fixed(s, sizeof(s), k * yt->step, yt->decimals);
		text_at(b, X0_PX - 6, y + 4, "end", s);
	}
	plot_buf_puts(b, "<text transform=\"translate(18,");
	plot_buf_num(b, top + h / 2, 1);
	plot_buf_puts(b, ") rotate(-90)\" text-anchor=\"middle\" "
	    "font-size=\"12\">");
	plot_buf_escape(b, title);
	plot_buf_puts(b, "</text>\n");
}

static const char *
color_of(const struct plot_series *s)
{
	if (s->color < 0)
		return "#111111";
	return palette[(size_t)s->color % NCOLORS];
}

/* stroke="..", its width and dashes, for a line series. */
static void
stroke(struct plot_buf *b, const struct plot_series *s)
{
	plot_buf_printf(b, " fill=\"none\" stroke=\"%s\" stroke-width=\"%s\""
	    " stroke-linejoin=\"round\"%s", color_of(s),
	    s->style == PLOT_THICK ? "2.5" : "1.2",
	    s->dashed ? " stroke-dasharray=\"7,3\"" : "");
}

/* y scale of a panel: value to px */
struct yscale {
	double top, h, div, max;
};

static double
px_y(const struct yscale *ys, double v)
{
	double r = v / ys->div / ys->max;

	r = r < 0 ? 0 : r > 1 ? 1 : r;
	return ys->top + ys->h - r * ys->h;
}

static void
draw_line(struct plot_buf *b, const struct frame *f, const struct yscale *ys,
    const struct plot_series *s)
{
	size_t i, n = npoints(s);
	double x, y;

	plot_buf_printf(b, "<polyline class=\"series\" data-label=\"");
	plot_buf_escape(b, s->label);
	plot_buf_puts(b, "\"");
	stroke(b, s);
	plot_buf_puts(b, " points=\"");
	if (n == 1) { /* one interval: a level line across it */
		point(s, 0, &x, &y);
		plot_buf_num(b, X0_PX, 1);
		plot_buf_puts(b, ",");
		plot_buf_num(b, px_y(ys, y), 1);
		plot_buf_puts(b, " ");
	}
	for (i = 0; i < n; i++) {
		point(s, i, &x, &y);
		plot_buf_num(b, px_x(f, x), 1);
		plot_buf_puts(b, ",");
		plot_buf_num(b, px_y(ys, y), 1);
		plot_buf_puts(b, i + 1 < n ? " " : "");
	}
	plot_buf_puts(b, "\"/>\n");
}

/* One bar per point, from the previous point's time to its own. */
static void
draw_bars(struct plot_buf *b, const struct frame *f, const struct yscale *ys,
    const struct plot_series *s)
{
	size_t i, n = npoints(s);
	double x, y, left = 0, l, r;

	plot_buf_printf(b, "<path class=\"series\" data-label=\"");
	plot_buf_escape(b, s->label);
	plot_buf_printf(b, "\" fill=\"%s\" fill-opacity=\"0.8\" d=\"",
	    color_of(s));
	for (i = 0; i < n; i++, left = x) {
		point(s, i, &x, &y);
		if (!(y > 0))
			continue;
		l = px_x(f, left) + 0.5;
		r = px_x(f, x) - 0.5;
		if (r - l < 1)
			r = l + 1;
		plot_buf_puts(b, "M");
		plot_buf_num(b, l, 1);
		plot_buf_puts(b, ",");
		plot_buf_num(b, px_y(ys, 0), 1);
		plot_buf_puts(b, "H");
		plot_buf_num(b, r, 1);
		plot_buf_puts(b, "V");
		plot_buf_num(b, px_y(ys, y), 1);
		plot_buf_puts(b, "H");
		plot_buf_num(b, l, 1);
		plot_buf_puts(b, "Z");
	}
	plot_buf_puts(b, "\"/>\n");
}

/* The panel's series named at its right; what does not fit is counted. */
static void
legend(struct plot_buf *b, const struct plot_data *d, int p, double top,
    double h)
{
	size_t i, shown = 0, total = 0, fit = (size_t)((h - 4) / LEGEND_LINE_PX);
	char more[40];
	double y;

	for (i = 0; i < d->nseries; i++)
		total += (int)d->series[i].panel == p;
	for (i = 0; i < d->nseries; i++) {
		const struct plot_series *s = &d->series[i];

		if ((int)s->panel != p)
			continue;
		if (shown + 1 == fit && total > fit)
			break;
		y = top + 10 + LEGEND_LINE_PX * (double)shown++;
		if (s->style == PLOT_BARS)
			plot_buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"18\" "
			    "height=\"8\" fill=\"%s\"/>\n", (int)LEGEND_PX,
			    (int)y - 7, color_of(s));
		else {
			plot_buf_puts(b, "<path");
			stroke(b, s);
			plot_buf_printf(b, " d=\"M%d,%dh22\"/>\n", (int)LEGEND_PX,
			    (int)y - 3);
		}
		text_at(b, LEGEND_PX + 28, y + 1, "start", s->label);
	}
	if (shown < total) {
		(void)snprintf(more, sizeof(more), "+%zu more", total - shown);
		text_at(b, LEGEND_PX + 28, top + 11 + LEGEND_LINE_PX *
		    (double)shown, "start", more);
	}
}

static void
series_pass(struct plot_buf *b, const struct plot_data *d,
    const struct frame *f, const struct yscale *ys, int p)
{
	int pass;
	size_t i;

	/* bars, then the streams' lines, then the sums on top */
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < d->nseries; i++) {
			const struct plot_series *s = &d->series[i];

			if ((int)s->panel != p || npoints(s) == 0 ||
			    (s->style == PLOT_BARS) != (pass == 0) ||
			    (s->style == PLOT_THICK) != (pass == 2))
				continue;
			if (s->style == PLOT_BARS)
				draw_bars(b, f, ys, s);
			else
				draw_line(b, f, ys, s);
		}
}

/* The plot area of a panel: its background, or its frame. */
static void
area(struct plot_buf *b, const struct yscale *ys, const char *style)
{
	plot_buf_puts(b, "<rect");
	attr(b, "x", X0_PX);
	attr(b, "y", ys->top);
	attr(b, "width", X1_PX - X0_PX);
	attr(b, "height", ys->h);
	plot_buf_printf(b, " %s/>\n", style);
}

static void
panel(struct plot_buf *b, const struct plot_data *d, const struct frame *f,
    int p)
{
	struct plot_ticks yt;
	struct yscale ys;
	char title[64];
	const char *unit;

	ys.top = f->top[p];
	ys.h = panels[p].height;
	ys.div = 1;
	unit = p == PLOT_RATE ? plot_rate_unit(data_max(d, p, 1), &ys.div) :
	    NULL;
	plot_ticks(data_max(d, p, 1) / ys.div, p == PLOT_RATE ? 6 : 3, &yt);
	if (p == PLOT_RETR && yt.step < 1) {
		/* counts: whole ticks (an all-zero panel showed a lone 0.5) */
		yt.step = 1;
		yt.count = yt.top > 1 ? (int)ceil(yt.top) : 1;
		yt.top = yt.count;
		yt.decimals = 0;
	}
	ys.max = yt.top;
	(void)snprintf(title, sizeof(title), "throughput (%s)",
	    unit != NULL ? unit : "");
	plot_buf_printf(b, "<g id=\"panel-%s\" class=\"panel\">\n",
	    panels[p].id);
	area(b, &ys, "fill=\"#fbfbfb\"");
	y_axis(b, &yt, ys.top, ys.h, panels[p].axis != NULL ?
	    panels[p].axis : title);
	x_axis(b, f, ys.top, ys.h, p == f->last);
	series_pass(b, d, f, &ys, p);
	area(b, &ys, "fill=\"none\" stroke=\"#888888\"");
	if (!panel_has_data(d, p))
		text_at(b, (X0_PX + X1_PX) / 2, ys.top + ys.h / 2, "middle",
		    "no intervals to draw");
	legend(b, d, p, ys.top, ys.h);
	plot_buf_puts(b, "</g>\n");
}

char *
plot_svg(const struct plot_data *d, size_t *len)
{
	struct plot_buf b = { NULL, 0, 0, 0 };
	struct frame f;
	int p;

	layout(d, &f);
	header(&b, &f);
	titles(&b, d);
	for (p = 0; p < PLOT_NPANELS; p++)
		if (f.top[p] >= 0)
			panel(&b, d, &f, p);
	plot_buf_puts(&b, "</svg>\n");
	if (b.err) {
		free(b.p);
		return NULL;
	}
	if (len != NULL)
		*len = b.len;
	return b.p;
}
