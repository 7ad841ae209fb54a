/*
 * check_rpm.c - --rpm arithmetic (rpm_calc.h): the trimmed mean, the
 * percentiles, the aggregate and RPM, goodput stability (a ramp that
 * stops at a plateau) and responsiveness stability; and the record
 * framing of rpm_stream.h (a PING split across reads, a bad record).
 */
#include "config.h"

#include <string.h>

#include "check_main.h"
#include "rpm_calc.h"
#include "rpm_stream.h"

START_TEST(trimmed_mean_drops_the_slowest_5_percent)
{
	uint64_t v[100];
	size_t i;

	/* 95 samples of 10 and 5 outliers of 1000: the outliers go. */
	for (i = 0; i < 100; i++)
		v[i] = i < 95 ? 10 : 1000;
	ck_assert_double_eq_tol(rpm_trimmed_mean(v, 100), 10.0, 1e-9);
	/* 20 samples 1..20: 19 kept (ceil(0.95 x 20)), mean 10 */
	for (i = 0; i < 20; i++)
		v[i] = i + 1;
	ck_assert_double_eq_tol(rpm_trimmed_mean(v, 20), 10.0, 1e-9);
	/* one sample is its own mean; none gives 0 */
	ck_assert_double_eq_tol(rpm_trimmed_mean(v, 1), 1.0, 1e-9);
	ck_assert_double_eq_tol(rpm_trimmed_mean(v, 0), 0.0, 1e-9);
}
END_TEST

START_TEST(dist_sorts_and_reports_microseconds)
{
	uint64_t v[10] = { 10000, 1000, 9000, 2000, 8000, 3000, 7000, 4000,
		6000, 5000 };
	struct rpm_dist d;

	rpm_dist_of(v, 10, &d);
	ck_assert_uint_eq(d.samples, 10);
	ck_assert_uint_eq(v[0], 1000);
	ck_assert_uint_eq(v[9], 10000);
	ck_assert_double_eq_tol(d.p50_us, 5.0, 1e-9);
	ck_assert_double_eq_tol(d.p90_us, 9.0, 1e-9);
	ck_assert_double_eq_tol(d.trimmed_us, 5.5, 1e-9); /* all 10 kept */
}
END_TEST

START_TEST(aggregate_weighs_self_half_foreign_quarters)
{
	ck_assert_double_eq_tol(rpm_aggregate(40, 60, 80), 20 + 15 + 20,
	    1e-9);
	/* every part 50 ms: 1200 RPM; 6 ms: 10,000 RPM */
	ck_assert_double_eq_tol(rpm_from_ms(rpm_aggregate(50, 50, 50)),
	    1200.0, 1e-9);
	ck_assert_double_eq_tol(rpm_from_ms(6.0), 10000.0, 1e-9);
	ck_assert_double_eq_tol(rpm_from_ms(0), 0.0, 1e-9);
}
END_TEST

START_TEST(ramp_stops_at_a_plateau)
{
	/* Goodput grows by 10 Mbit/s per added stream up to 50, then holds:
	 * stable only after RPM_MAD moving averages of the plateau. */
	struct rpm_stab st;
	int streams = 1, t, stable_at = -1;

	rpm_stab_init(&st);
	for (t = 0; t < 30 && stable_at < 0; t++) {
		double gp = streams < 5 ? 10.0 * streams : 50.0;

		if (rpm_stab_push(&st, gp))
			stable_at = t;
		else
			streams++;
	}
	ck_assert_int_ge(stable_at, 0);
	/* the plateau starts at t = 4; 4 values then 4 averages of them */
	ck_assert_int_le(stable_at, 4 + 2 * RPM_MAD);
	ck_assert_double_eq_tol(st.last_ma, 50.0, 1e-9);
}
END_TEST

START_TEST(stability_needs_mad_averages_within_sdt)
{
	struct rpm_stab st;
	int i, stable = 0;

	/* Fewer than 2 x RPM_MAD - 1 values are never stable. */
	rpm_stab_init(&st);
	for (i = 0; i < 2 * RPM_MAD - 2; i++)
		ck_assert_int_eq(rpm_stab_push(&st, 100), 0);
	ck_assert_int_eq(rpm_stab_push(&st, 100), 1);
	/* Alternating 50 / 150: the averages hold at 100, stable. */
	rpm_stab_init(&st);
	for (i = 0; i < 12; i++)
		stable = rpm_stab_push(&st, i % 2 ? 50 : 150);
	ck_assert_int_eq(stable, 1);
	/* Doubling every interval never is. */
	rpm_stab_init(&st);
	for (i = 0; i < 12; i++)
		stable = rpm_stab_push(&st, (double)(1 << i));
	ck_assert_int_eq(stable, 0);
}
END_TEST

struct seen {
	int n, type;
	uint32_t id;
	uint64_t t;
};

static void
on_small(void *arg, int type, const unsigned char *body)
{
	struct seen *s = arg;

	s->n++;
	s->type = type;
	rpm_ping_read(body, &s->id, &s->t);
}

START_TEST(records_parse_across_reads)
{
	unsigned char buf[8 + 100 + RPM_PING_REC];
	struct rpm_parser p;
	struct seen s = { 0, 0, 0, 0 };
	size_t i;

	rpm_rec_header(buf, RPM_REC_LOAD, 100);
	memset(buf + RPM_HDR_LEN, 0xaa, 100);
	rpm_rec_header(buf + 104, RPM_REC_PING, RPM_PING_LEN);
	rpm_ping_body(buf + 108, 0x01020304u, 0x1122334455667788ULL);
	ck_assert_uint_eq(buf[1], 0);
	ck_assert_uint_eq(buf[3], 100);
	rpm_parser_init(&p);
	for (i = 0; i < 104 + RPM_PING_REC; i++) /* a byte at a time */
		ck_assert_int_eq(rpm_parse(&p, buf + i, 1, on_small, &s), 0);
	ck_assert_int_eq(s.n, 1);
	ck_assert_int_eq(s.type, RPM_REC_PING);
	ck_assert_uint_eq(s.id, 0x01020304u);
	ck_assert_uint_eq(s.t, 0x1122334455667788ULL);
}
END_TEST

START_TEST(bad_records_are_refused)
{
	unsigned char h[RPM_HDR_LEN];
	struct rpm_parser p;
	struct seen s = { 0, 0, 0, 0 };

	rpm_parser_init(&p);
	rpm_rec_header(h, 9, 1); /* unknown type */
	ck_assert_int_eq(rpm_parse(&p, h, sizeof(h), on_small, &s), -1);
	rpm_parser_init(&p);
	rpm_rec_header(h, RPM_REC_PONG, RPM_PING_LEN + 1);
	ck_assert_int_eq(rpm_parse(&p, h, sizeof(h), on_small, &s), -1);
	rpm_parser_init(&p);
	rpm_rec_header(h, RPM_REC_LOAD, RPM_LOAD_MAX + 1);
	ck_assert_int_eq(rpm_parse(&p, h, sizeof(h), on_small, &s), -1);
	ck_assert_int_eq(s.n, 0);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("rpm");
	TCase *calc = tcase_create("calc");
	TCase *wire = tcase_create("wire");

	tcase_add_test(calc, trimmed_mean_drops_the_slowest_5_percent);
	tcase_add_test(calc, dist_sorts_and_reports_microseconds);
	tcase_add_test(calc, aggregate_weighs_self_half_foreign_quarters);
	tcase_add_test(calc, ramp_stops_at_a_plateau);
	tcase_add_test(calc, stability_needs_mad_averages_within_sdt);
	tcase_add_test(wire, records_parse_across_reads);
	tcase_add_test(wire, bad_records_are_refused);
	suite_add_tcase(s, calc);
	suite_add_tcase(s, wire);
	return s;
}
