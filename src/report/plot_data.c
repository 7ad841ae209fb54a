/*
 * plot_data.c - the series a plot is drawn from (plot.h): find-or-add by
 * panel and label, and the bounded store of points (pairwise merging
 * once PLOT_MAX_POINTS are kept).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "banned.h"

#define FIRST_CAP 64

struct plot_data *
plot_data_new(void)
{
	return calloc(1, sizeof(struct plot_data));
}

void
plot_data_free(struct plot_data *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->nseries; i++) {
		free(d->series[i].label);
		free(d->series[i].x);
		free(d->series[i].y);
	}
	for (i = 0; i < PLOT_MAX_NOTES; i++)
		free(d->notes[i]);
	free(d->series);
	free(d->title);
	free(d);
}

static int
replace(char **slot, const char *text)
{
	char *copy = NULL;

	if (text != NULL && (copy = strdup(text)) == NULL)
		return -1;
	free(*slot);
	*slot = copy;
	return 0;
}

int
plot_set_title(struct plot_data *d, const char *title)
{
	return replace(&d->title, title);
}

int
plot_set_note(struct plot_data *d, size_t i, const char *note)
{
	if (i >= PLOT_MAX_NOTES)
		return 0;
	return replace(&d->notes[i], note);
}

struct plot_series *
plot_series_get(struct plot_data *d, enum plot_panel panel,
    const char *label, enum plot_style style, int color, int dashed)
{
	struct plot_series *s;
	size_t i;

	for (i = 0; i < d->nseries; i++)
		if (d->series[i].panel == panel &&
		    strcmp(d->series[i].label, label) == 0)
			return &d->series[i];
	s = realloc(d->series, (d->nseries + 1) * sizeof(*s));
	if (s == NULL)
		return NULL;
	d->series = s;
	s = &d->series[d->nseries];
	memset(s, 0, sizeof(*s));
	if ((s->label = strdup(label)) == NULL)
		return NULL;
	s->panel = panel;
	s->style = style;
	s->color = color;
	s->dashed = dashed;
	s->stride = 1;
	d->nseries++;
	return s;
}

static int
grow(struct plot_series *s)
{
	size_t cap = s->cap != 0 ? s->cap * 2 : FIRST_CAP;
	double *x, *y;

	if (cap > PLOT_MAX_POINTS)
		cap = PLOT_MAX_POINTS;
	x = realloc(s->x, cap * sizeof(*x));
	if (x == NULL)
		return -1;
	s->x = x;
	y = realloc(s->y, cap * sizeof(*y));
	if (y == NULL)
		return -1;
	s->y = y;
	s->cap = cap;
	return 0;
}

/* Full: every two neighbours become one (the later end, the mean), and
 * from now on twice as many intervals make a point. */
static void
halve(struct plot_series *s)
{
	size_t i;

	for (i = 0; 2 * i + 1 < s->n; i++) {
		s->x[i] = s->x[2 * i + 1];
		s->y[i] = (s->y[2 * i] + s->y[2 * i + 1]) / 2;
	}
	s->n = i;
	s->stride *= 2;
}

int
plot_series_add(struct plot_series *s, double x, double y)
{
	if (!isfinite(x) || !isfinite(y))
		return 0;
	s->pend_x = x;
	s->pend_y += y;
	if (++s->pend_n < s->stride)
		return 0;
	if (s->n == PLOT_MAX_POINTS) {
		halve(s);
		if (s->pend_n < s->stride)
			return 0; /* half a point now: wait for the rest */
	}
	if (s->n == s->cap && grow(s) != 0)
		return -1;
	s->x[s->n] = s->pend_x;
	s->y[s->n] = s->pend_y / s->pend_n;
	s->n++;
	s->pend_n = 0;
	s->pend_y = 0;
	return 0;
}
