/* check_latstat.c - histogram buckets and percentiles on known inputs. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "check_main.h"
#include "latstat.h"

START_TEST(small_values_are_exact)
{
	uint64_t v;

	for (v = 0; v < 2 * LATSTAT_SUB; v++) {
		ck_assert_uint_eq(latstat_bucket(v), v);
		ck_assert_uint_eq(latstat_bucket_low((unsigned int)v), v);
		ck_assert_uint_eq(latstat_bucket_high((unsigned int)v), v);
	}
}
END_TEST

START_TEST(buckets_are_contiguous_and_within_1_in_128)
{
	unsigned int b;

	for (b = 1; b < LATSTAT_BUCKETS; b++) {
		uint64_t lo = latstat_bucket_low(b), hi = latstat_bucket_high(b);

		ck_assert_uint_eq(lo, latstat_bucket_high(b - 1) + 1);
		ck_assert_uint_eq(latstat_bucket(lo), b);
		ck_assert_uint_eq(latstat_bucket(hi), b);
		/* above the exact range, width <= low / 128 */
		if (b >= 2 * LATSTAT_SUB)
			ck_assert_uint_le((hi - lo + 1) * LATSTAT_SUB, lo);
	}
	ck_assert_uint_eq(latstat_bucket(256), 256);
	ck_assert_uint_eq(latstat_bucket(257), 256);
	ck_assert_uint_eq(latstat_bucket(258), 257);
	ck_assert_uint_eq(latstat_bucket(512), 384);
	ck_assert_uint_eq(latstat_bucket(UINT64_MAX), LATSTAT_BUCKETS - 1);
	ck_assert_uint_eq(latstat_bucket((uint64_t)1 << 42),
	    LATSTAT_BUCKETS - 1);
}
END_TEST

START_TEST(nearest_rank_on_1_to_100)
{
	struct latstat h;
	struct latsum s;
	uint64_t v;

	latstat_init(&h);
	/* out of order on purpose */
	for (v = 100; v >= 1; v--)
		ck_assert_int_eq(latstat_add(&h, v), 0);
	latstat_summary(&h, &s);
	ck_assert_uint_eq(s.samples, 100);
	ck_assert_uint_eq(s.min, 1);
	ck_assert_uint_eq(s.p50, 50);
	ck_assert_uint_eq(s.p90, 90);
	ck_assert_uint_eq(s.p99, 99);
	ck_assert_uint_eq(s.p999, 100);
	ck_assert_uint_eq(s.max, 100);
	ck_assert(s.mean == 50.5);
	ck_assert_uint_eq(latstat_percentile(&h, 1), 1);
	ck_assert_uint_eq(latstat_percentile(&h, 0.5), 1);
	ck_assert_uint_eq(latstat_percentile(&h, 50.1), 51);
	latstat_free(&h);
}
END_TEST

START_TEST(large_values_report_bucket_midpoints)
{
	struct latstat h;
	int i;

	latstat_init(&h);
	/* 1000 is in the bucket [1000, 1003] (width 4 above 512) */
	for (i = 0; i < 9; i++)
		latstat_add(&h, 1000);
	latstat_add(&h, 5000);
	ck_assert_uint_eq(latstat_bucket_low(latstat_bucket(1000)), 1000);
	ck_assert_uint_eq(latstat_bucket_high(latstat_bucket(1000)), 1003);
	/* midpoint 1001, but never beyond the exact min and max */
	ck_assert_uint_eq(latstat_percentile(&h, 50), 1001);
	ck_assert_uint_eq(latstat_percentile(&h, 90), 1001);
	ck_assert_uint_eq(latstat_percentile(&h, 99), 5000);
	ck_assert_uint_eq(latstat_percentile(&h, 100), 5000);
	latstat_reset(&h);
	latstat_add(&h, 1001);
	ck_assert_uint_eq(latstat_percentile(&h, 50), 1001);
	latstat_add(&h, 1000);
	/* both in one bucket: p50 (rank 1) is its midpoint, clamped */
	ck_assert_uint_eq(latstat_percentile(&h, 50), 1001);
	latstat_free(&h);
}
END_TEST

START_TEST(empty_and_single)
{
	struct latstat h;
	struct latsum s;

	latstat_init(&h);
	latstat_summary(&h, &s);
	ck_assert_uint_eq(s.samples, 0);
	ck_assert_uint_eq(s.p99, 0);
	ck_assert_ptr_null(h.counts);
	latstat_add(&h, 123456789);
	latstat_summary(&h, &s);
	ck_assert_uint_eq(s.min, 123456789);
	ck_assert_uint_eq(s.p50, 123456789);
	ck_assert_uint_eq(s.max, 123456789);
	latstat_free(&h);
}
END_TEST

START_TEST(merge_equals_adding_everything_to_one)
{
	struct latstat a, b, all;
	uint64_t v;
	double ps[] = { 1, 10, 50, 90, 99, 99.9, 100 };
	size_t i;

	latstat_init(&a);
	latstat_init(&b);
	latstat_init(&all);
	for (v = 1; v < 300000; v = v * 3 / 2 + 1) {
		latstat_add(v % 2 ? &a : &b, v);
		latstat_add(&all, v);
	}
	ck_assert_int_eq(latstat_merge(&a, &b), 0);
	ck_assert_uint_eq(a.n, all.n);
	ck_assert_uint_eq(a.sum, all.sum);
	ck_assert_uint_eq(a.min, all.min);
	ck_assert_uint_eq(a.max, all.max);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		ck_assert_uint_eq(latstat_percentile(&a, ps[i]),
		    latstat_percentile(&all, ps[i]));
	/* merging an empty one changes nothing; copy replaces */
	latstat_reset(&b);
	ck_assert_int_eq(latstat_merge(&a, &b), 0);
	ck_assert_uint_eq(a.n, all.n);
	latstat_add(&b, 7);
	ck_assert_int_eq(latstat_copy(&a, &b), 0);
	ck_assert_uint_eq(a.n, 1);
	ck_assert_uint_eq(latstat_percentile(&a, 50), 7);
	latstat_free(&a);
	latstat_free(&b);
	latstat_free(&all);
}
END_TEST

START_TEST(json_fields_and_units)
{
	struct latsum s = { 4, 25400, 26001, 30000, 99999, 100000, 100000,
		27850.5 };
	cJSON *o = latsum_to_json(&s, 1000.0, LATSUM_SAMPLES | LATSUM_MIN |
	    LATSUM_PCT | LATSUM_MAX | LATSUM_MEAN);
	char *txt;

	ck_assert_ptr_nonnull(o);
	txt = cJSON_PrintUnformatted(o);
	ck_assert_str_eq(txt, "{\"samples\":4,\"min\":25.4,\"p50\":26.001,"
	    "\"p90\":30,\"p99\":99.999,\"max\":100,\"mean\":27.851}");
	free(txt);
	cJSON_Delete(o);
	o = latsum_to_json(&s, 1.0, LATSUM_PCT | LATSUM_P999);
	txt = cJSON_PrintUnformatted(o);
	ck_assert_str_eq(txt, "{\"p50\":26001,\"p90\":30000,\"p99\":99999,"
	    "\"p999\":100000}");
	free(txt);
	cJSON_Delete(o);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("latstat");
	TCase *tb = tcase_create("buckets");
	TCase *tp = tcase_create("percentiles");

	tcase_add_test(tb, small_values_are_exact);
	tcase_add_test(tb, buckets_are_contiguous_and_within_1_in_128);
	suite_add_tcase(s, tb);
	tcase_add_test(tp, nearest_rank_on_1_to_100);
	tcase_add_test(tp, large_values_report_bucket_midpoints);
	tcase_add_test(tp, empty_and_single);
	tcase_add_test(tp, merge_equals_adding_everything_to_one);
	tcase_add_test(tp, json_fields_and_units);
	suite_add_tcase(s, tp);
	return s;
}
