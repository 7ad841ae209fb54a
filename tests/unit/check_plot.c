/* check_plot.c - the --plot SVG writer (plot.h): ticks, units, numbers,
 * escaping, bounded series, and documents that are the same for the same
 * input and never hold NaN or infinities. */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "plot.h"

static char *
escaped(const char *s)
{
	struct plot_buf b = { NULL, 0, 0, 0 };

	plot_buf_escape(&b, s);
	ck_assert(!b.err);
	return b.p != NULL ? b.p : strdup("");
}

static char *
fixed(double v, int decimals)
{
	static char s[64];

	(void)plot_fmt_fixed(s, sizeof(s), v, decimals);
	return s;
}

/* Every character of an SVG that carries no number where none belongs. */
static void
assert_clean(const char *svg)
{
	ck_assert_ptr_nonnull(svg);
	ck_assert(strncmp(svg, "<?xml", 5) == 0);
	ck_assert_ptr_nonnull(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
	ck_assert_ptr_nonnull(strstr(svg, "viewBox=\"0 0 900 "));
	ck_assert_ptr_null(strstr(svg, "nan"));
	ck_assert_ptr_null(strstr(svg, "inf"));
	ck_assert_ptr_null(strstr(svg, "NaN"));
	ck_assert(strcmp(svg + strlen(svg) - 7, "</svg>\n") == 0);
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)) != NULL; hay++)
		n++;
	return n;
}

/* Four streams and their sum over 10 one-second intervals, retransmits,
 * an RTT per stream. */
static struct plot_data *
sample(void)
{
	struct plot_data *d = plot_data_new();
	char label[32];
	int i, k;

	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(plot_set_title(d, "iperf3 TCP upload to h<1>&:5201"),
	    0);
	ck_assert_int_eq(plot_set_note(d, 0, "sent 9.41 Gbit/s"), 0);
	for (i = 1; i <= 10; i++) {
		for (k = 0; k < 4; k++) {
			(void)snprintf(label, sizeof(label), "stream %d", k + 5);
			ck_assert_int_eq(plot_series_add(plot_series_get(d,
			    PLOT_RATE, label, PLOT_THIN, k, 0), i,
			    2.3e9 + 1e7 * k * i), 0);
			ck_assert_int_eq(plot_series_add(plot_series_get(d,
			    PLOT_RTT, label, PLOT_THIN, k, 0), i, 0.2 * k), 0);
		}
		ck_assert_int_eq(plot_series_add(plot_series_get(d, PLOT_RATE,
		    "total", PLOT_THICK, PLOT_COLOR_SUM, 0), i, 9.4e9), 0);
		ck_assert_int_eq(plot_series_add(plot_series_get(d, PLOT_RETR,
		    "total", PLOT_BARS, 3, 0), i, i % 3), 0);
	}
	return d;
}

START_TEST(ticks_are_1_2_5_steps_covering_the_maximum)
{
	struct plot_ticks t;

	plot_ticks(57.2, 6, &t);
	ck_assert(t.step == 10 && t.count == 6 && t.top == 60);
	ck_assert_int_eq(t.decimals, 0);
	plot_ticks(3.0, 10, &t);
	ck_assert(fabs(t.step - 0.5) < 1e-12 && t.count == 6);
	ck_assert_int_eq(t.decimals, 1);
	plot_ticks(0.03, 3, &t);
	ck_assert(fabs(t.step - 0.01) < 1e-12 && t.count == 3);
	ck_assert_int_eq(t.decimals, 2);
	plot_ticks(100, 5, &t);
	ck_assert(t.step == 20 && t.count == 5 && t.top == 100);
	plot_ticks(7, 3, &t);
	ck_assert(t.step == 5 && t.count == 2 && t.top == 10);
	plot_ticks(20.005, 10, &t); /* a hair over: 2 s steps, 11 of them */
	ck_assert(t.step == 2 && t.count == 11);
	plot_ticks(0, 5, &t);
	ck_assert(t.step == 0.2 && t.count == 5 && t.top == 1);
	plot_ticks(NAN, 5, &t);
	ck_assert(t.top == 1 && isfinite(t.step));
	plot_ticks(INFINITY, 5, &t);
	ck_assert(isfinite(t.top) && isfinite(t.step));
	plot_ticks(-3, 0, &t);
	ck_assert(t.top == 1 && t.count == 1);
}
END_TEST

START_TEST(rate_unit_keeps_labels_under_1000)
{
	double div;

	ck_assert_str_eq(plot_rate_unit(999, &div), "bit/s");
	ck_assert(div == 1);
	ck_assert_str_eq(plot_rate_unit(1000, &div), "Kbit/s");
	ck_assert_str_eq(plot_rate_unit(56.2e6, &div), "Mbit/s");
	ck_assert(div == 1e6);
	ck_assert_str_eq(plot_rate_unit(57.2e9, &div), "Gbit/s");
	ck_assert_str_eq(plot_rate_unit(5e15, &div), "Tbit/s");
	ck_assert_str_eq(plot_rate_unit(NAN, &div), "bit/s");
	ck_assert_str_eq(plot_rate_unit(0, &div), "bit/s");
}
END_TEST

START_TEST(numbers_have_fixed_decimals_in_any_locale)
{
	ck_assert_str_eq(fixed(1.25, 1), "1.3");
	ck_assert_str_eq(fixed(-1.5, 1), "-1.5");
	ck_assert_str_eq(fixed(-0.001, 2), "0.00");
	ck_assert_str_eq(fixed(1234567.891, 3), "1234567.891");
	ck_assert_str_eq(fixed(0.05, 2), "0.05");
	ck_assert_str_eq(fixed(7, 0), "7");
	ck_assert_str_eq(fixed(INFINITY, 2), "0.00");
	ck_assert_str_eq(fixed(NAN, 0), "0");
	ck_assert_str_eq(fixed(1e300, 0), "1000000000000000");
	/* a locale with a decimal comma changes nothing (where installed) */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL ||
	    setlocale(LC_NUMERIC, "fr_FR.UTF-8") != NULL) {
		ck_assert_str_eq(fixed(2.5, 1), "2.5");
		(void)setlocale(LC_NUMERIC, "C");
	}
}
END_TEST

START_TEST(text_is_escaped_for_xml)
{
	char *s;

	s = escaped("a<b>&\"'");
	ck_assert_str_eq(s, "a&lt;b&gt;&amp;&quot;&apos;");
	free(s);
	s = escaped("x\x01y\tz");
	ck_assert_str_eq(s, "x?y?z");
	free(s);
	s = escaped("caf\xc3\xa9 \xe2\x86\x91"); /* "café ↑" stays */
	ck_assert_str_eq(s, "caf\xc3\xa9 \xe2\x86\x91");
	free(s);
	s = escaped("\xff-\xc0\xaf-\xed\xa0\x80-\xc3"); /* not UTF-8 */
	ck_assert_str_eq(s, "?" "-" "??" "-" "???" "-" "?");
	free(s);
}
END_TEST

START_TEST(same_input_same_bytes)
{
	struct plot_data *d1 = sample(), *d2 = sample();
	size_t l1, l2;
	char *a = plot_svg(d1, &l1), *b = plot_svg(d2, &l2), *c;

	assert_clean(a);
	ck_assert_uint_eq(l1, l2);
	ck_assert(memcmp(a, b, l1) == 0);
	c = plot_svg(d1, &l2); /* drawing does not change the data */
	ck_assert(l1 == l2 && memcmp(a, c, l1) == 0);
	/* title escaped; 5 lines + 1 bar series on top, 4 RTT lines */
	ck_assert_ptr_nonnull(strstr(a, ">iperf3 TCP upload to h&lt;1&gt;&amp;:"
	    "5201</text>"));
	ck_assert_uint_eq(count(a, "<polyline class=\"series\""), 9);
	ck_assert_uint_eq(count(a, "<path class=\"series\""), 1);
	ck_assert_ptr_nonnull(strstr(a, "throughput (Gbit/s)"));
	ck_assert_ptr_nonnull(strstr(a, "id=\"panel-rtt\""));
	ck_assert_ptr_null(strstr(a, "id=\"panel-loss\""));
	free(a);
	free(b);
	free(c);
	plot_data_free(d1);
	plot_data_free(d2);
}
END_TEST

START_TEST(empty_and_one_interval_runs)
{
	struct plot_data *d = plot_data_new();
	struct plot_series *s;
	char *svg;

	svg = plot_svg(d, NULL);
	assert_clean(svg);
	ck_assert_ptr_nonnull(strstr(svg, "no intervals to draw"));
	free(svg);
	s = plot_series_get(d, PLOT_RATE, "total", PLOT_THICK,
	    PLOT_COLOR_SUM, 0);
	ck_assert_int_eq(plot_series_add(s, NAN, 5), 0);
	ck_assert_int_eq(plot_series_add(s, 1, INFINITY), 0);
	ck_assert_uint_eq(s->n, 0);
	svg = plot_svg(d, NULL);
	assert_clean(svg);
	free(svg);
	ck_assert_int_eq(plot_series_add(s, 0.5, 0), 0); /* all zero */
	s = plot_series_get(d, PLOT_LOSS, "total", PLOT_THICK,
	    PLOT_COLOR_SUM, 1);
	ck_assert_int_eq(plot_series_add(s, 0.5, 0), 0);
	svg = plot_svg(d, NULL);
	assert_clean(svg);
	ck_assert_ptr_null(strstr(svg, "no intervals to draw"));
	ck_assert_ptr_nonnull(strstr(svg, "stroke-dasharray"));
	free(svg);
	plot_data_free(d);
}
END_TEST

START_TEST(long_runs_keep_at_most_max_points)
{
	struct plot_data *d = plot_data_new();
	struct plot_series *s = plot_series_get(d, PLOT_RATE, "total",
	    PLOT_THICK, PLOT_COLOR_SUM, 0);
	char *svg;
	size_t i;

	for (i = 1; i <= 86400; i++)
		ck_assert_int_eq(plot_series_add(s, (double)i, (double)i), 0);
	ck_assert_uint_le(s->n, PLOT_MAX_POINTS);
	ck_assert_uint_ge(s->n, PLOT_MAX_POINTS / 2);
	ck_assert_uint_eq(s->stride, 64);
	/* a point: the mean of its intervals, at the last one's end */
	ck_assert(s->x[0] == 64 && s->y[0] == 32.5);
	ck_assert(s->x[1] == 128 && s->y[1] == 96.5);
	svg = plot_svg(d, NULL);
	assert_clean(svg);
	ck_assert_ptr_nonnull(strstr(svg, "mean of up to 64 intervals"));
	free(svg);
	plot_data_free(d);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("plot");
	TCase *tf = tcase_create("format");
	TCase *ts = tcase_create("svg");

	tcase_add_test(tf, ticks_are_1_2_5_steps_covering_the_maximum);
	tcase_add_test(tf, rate_unit_keeps_labels_under_1000);
	tcase_add_test(tf, numbers_have_fixed_decimals_in_any_locale);
	tcase_add_test(tf, text_is_escaped_for_xml);
	suite_add_tcase(s, tf);
	tcase_add_test(ts, same_input_same_bytes);
	tcase_add_test(ts, empty_and_one_interval_runs);
	tcase_add_test(ts, long_runs_keep_at_most_max_points);
	suite_add_tcase(s, ts);
	return s;
}
