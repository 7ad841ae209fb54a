/* check_units.c - unit suffix parsing and report number formatting. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "units.h"

struct fmt_case {
	double value;
	char fmt;
	const char *want;
};

/* Worked examples of the report number formatting (3.21's output). */
static const struct fmt_case fmt_cases[] = {
	{ 0, 'A', "0.00 Byte" },
	{ 1000, 'A', "1000 Byte" },
	{ 1023.4, 'A', "1023 Byte" },
	{ 1023.5, 'A', "1024 Byte" },
	{ 1024, 'A', "1.00 KByte" },
	{ 10234, 'A', "9.99 KByte" },
	{ 10235, 'A', "10.0 KByte" },
	{ 102348, 'A', "99.9 KByte" },
	{ 102349, 'A', " 100 KByte" },
	{ 1048063, 'A', "1023 KByte" },
	{ 1048064, 'A', "1024 KByte" },
	{ 1048576, 'A', "1.00 MByte" },
	{ 1288490189, 'A', "1.20 GByte" },
	{ 1073741824000.0, 'A', "1000 GByte" },
	{ 0, 'a', "0.00 bit" },
	{ 124.9375, 'a', "1000 bit" },
	{ 125, 'a', "1.00 Kbit" },
	{ 1249.375, 'a', "10.0 Kbit" },
	{ 12493.75, 'a', " 100 Kbit" },
	{ 124937.5, 'a', "1000 Kbit" },
	{ 1250000, 'a', "10.0 Mbit" },
	{ 124999999, 'a', "1000 Mbit" },
	{ 125000000000000.0, 'a', "1000 Tbit" },
	{ 1987438250, 'k', "15899506 Kbit" },
	{ 125, 'k', "1.00 Kbit" },
	{ 1250000000, 'm', "10000 Mbit" },
	{ 2012500000, 'g', "16.1 Gbit" },
	{ 2012500000, 't', "0.02 Tbit" },
	{ 1048575, 'K', "1024 KByte" },
	{ 2376073216.0, 'M', "2266 MByte" },
	{ 5000000, 'G', "0.00 GByte" },
	{ 1249.3749999999998, 'a', "10.0 Kbit" },
};

START_TEST(formats_like_the_reports)
{
	const struct fmt_case *c = &fmt_cases[_i];
	char buf[64];

	units_format(buf, sizeof(buf), c->value, c->fmt);
	ck_assert_msg(strcmp(buf, c->want) == 0, "%.17g '%c': got '%s' want '%s'",
	    c->value, c->fmt, buf, c->want);
}
END_TEST

struct parse_case {
	const char *text;
	enum units_kind kind;
	int rc;
	double want;
};

static const struct parse_case parse_cases[] = {
	{ "500M", UNITS_SIZE, 0, 524288000.0 },
	{ "10M", UNITS_RATE, 0, 10000000.0 },
	{ "1.5M", UNITS_RATE, 0, 1500000.0 },
	{ "10Mbps", UNITS_RATE, 0, 10000000.0 },
	{ "2k", UNITS_SIZE, 0, 2048.0 },
	{ "2K", UNITS_RATE, 0, 2000.0 },
	{ "1g", UNITS_SIZE, 0, 1073741824.0 },
	{ "1T", UNITS_RATE, 0, 1e12 },
	{ "1t", UNITS_SIZE, 0, 1099511627776.0 },
	{ "123", UNITS_SIZE, 0, 123.0 },
	{ "0", UNITS_RATE, 0, 0.0 },
	{ "-5", UNITS_SIZE, 0, -5.0 },
	{ "10X", UNITS_RATE, -1, 0 },
	{ "10 M", UNITS_RATE, -1, 0 },
	{ "x", UNITS_SIZE, -1, 0 },
	{ "", UNITS_SIZE, -1, 0 },
	{ "M", UNITS_SIZE, -1, 0 },
};

START_TEST(parses_suffixes)
{
	const struct parse_case *c = &parse_cases[_i];
	double v = -42;
	int rc = units_parse(c->text, c->kind, &v);

	ck_assert_int_eq(rc, c->rc);
	if (rc == 0)
		ck_assert_msg(v == c->want, "'%s': got %.17g want %.17g",
		    c->text, v, c->want);
}
END_TEST

START_TEST(rejects_null)
{
	double v;

	ck_assert_int_eq(units_parse(NULL, UNITS_SIZE, &v), -1);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("format");

	tcase_add_loop_test(tc, formats_like_the_reports, 0,
	    (int)(sizeof(fmt_cases) / sizeof(fmt_cases[0])));
	suite_add_tcase(s, tc);
	tc = tcase_create("parse");
	tcase_add_loop_test(tc, parses_suffixes, 0,
	    (int)(sizeof(parse_cases) / sizeof(parse_cases[0])));
	tcase_add_test(tc, rejects_null);
	suite_add_tcase(s, tc);
	return s;
}
