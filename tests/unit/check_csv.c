/* check_csv.c - CSV rows: RFC 4180 quoting, numbers as -J writes them. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check_main.h"
#include "csv.h"

/* Build one row from fields (NULL: empty) and compare with want. */
static void
row_is(const char *const *fields, size_t n, const char *want)
{
	struct csv_row row = { 0 };
	size_t i;

	for (i = 0; i < n; i++)
		csv_row_text(&row, fields[i]);
	ck_assert_int_eq(csv_row_end(&row), 0);
	ck_assert_str_eq(row.buf, want);
	ck_assert_uint_eq(row.len, strlen(want));
	csv_row_release(&row);
}

START_TEST(plain_fields_are_joined_with_commas_and_crlf)
{
	static const char *const f[] = { "interval", "5", "upload" };

	row_is(f, 3, "interval,5,upload\r\n");
}
END_TEST

START_TEST(empty_fields_stay_empty)
{
	static const char *const f[] = { NULL, "a", NULL, "", NULL };

	row_is(f, 5, ",a,,,\r\n");
}
END_TEST

START_TEST(comma_quote_and_newlines_are_quoted)
{
	static const char *const f[] = { "a,b", "say \"hi\"", "x\ny", "c\rd",
	    "\"", "plain" };

	row_is(f, 6, "\"a,b\",\"say \"\"hi\"\"\",\"x\ny\",\"c\rd\",\"\"\"\","
	    "plain\r\n");
}
END_TEST

START_TEST(spaces_alone_are_not_quoted)
{
	static const char *const f[] = { " lead", "trail " };

	row_is(f, 2, " lead,trail \r\n");
}
END_TEST

START_TEST(long_fields_grow_the_buffer)
{
	struct csv_row row = { 0 };
	char *big = malloc(10001);
	size_t i;

	ck_assert_ptr_nonnull(big);
	memset(big, 'x', 10000);
	big[10000] = '\0';
	for (i = 0; i < 3; i++)
		csv_row_text(&row, big);
	ck_assert_int_eq(csv_row_end(&row), 0);
	ck_assert_uint_eq(row.len, 3 * 10000 + 2 + 2);
	csv_row_reset(&row);
	ck_assert_uint_eq(row.len, 0);
	csv_row_text(&row, "z");
	ck_assert_int_eq(csv_row_end(&row), 0);
	ck_assert_str_eq(row.buf, "z\r\n");
	csv_row_release(&row);
	free(big);
}
END_TEST

/* The text cJSON_Print gives a number, which -J shows. */
static void
same_as_cjson(double v)
{
	cJSON *n = cJSON_CreateNumber(v);
	char *want = cJSON_PrintUnformatted(n);
	char got[64];

	csv_num_format(v, got, sizeof(got));
	ck_assert_str_eq(got, want);
	cJSON_free(want);
	cJSON_Delete(n);
}

START_TEST(numbers_print_as_json_does)
{
	static const double v[] = { 0, -0.0, 1, 5, 1798045696, 4138467328.0,
	    8019771392.0, 1.000067, 1.0000669956207275, 14383401943.058651,
	    0.009420166015625, 0.1, 1e-7, 123456789012345.0, -42.5,
	    0.0063791503906249995 };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		same_as_cjson(v[i]);
}
END_TEST

START_TEST(numbers_read_back_within_an_epsilon)
{
	static const double v[] = { 1.0 / 3, 2.0 / 3, 1e300, 123.456e-200,
	    9007199254740993.0, 0.30000000000000004 };
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		csv_num_format(v[i], buf, sizeof(buf));
		ck_assert(fabs(strtod(buf, NULL) - v[i]) <=
		    fabs(v[i]) * DBL_EPSILON);
	}
}
END_TEST

START_TEST(non_finite_numbers_are_empty_fields)
{
	struct csv_row row = { 0 };

	csv_row_num(&row, NAN);
	csv_row_num(&row, INFINITY);
	csv_row_num(&row, 2.5);
	ck_assert_int_eq(csv_row_end(&row), 0);
	ck_assert_str_eq(row.buf, ",,2.5\r\n");
	csv_row_release(&row);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("csv");
	TCase *tq = tcase_create("quote");
	TCase *tn = tcase_create("numbers");

	tcase_add_test(tq, plain_fields_are_joined_with_commas_and_crlf);
	tcase_add_test(tq, empty_fields_stay_empty);
	tcase_add_test(tq, comma_quote_and_newlines_are_quoted);
	tcase_add_test(tq, spaces_alone_are_not_quoted);
	tcase_add_test(tq, long_fields_grow_the_buffer);
	suite_add_tcase(s, tq);
	tcase_add_test(tn, numbers_print_as_json_does);
	tcase_add_test(tn, numbers_read_back_within_an_epsilon);
	tcase_add_test(tn, non_finite_numbers_are_empty_fields);
	suite_add_tcase(s, tn);
	return s;
}
