/*
 * check_iso.c - the pure parts of --isochronous: the log-normal frame
 * sizes (measure/iso_gen.h), the frame statistics (measure/iso_acc.h)
 * and the TCP records (stream/iso_stream.h) fed a byte at a time.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "check_main.h"
#include "iso_acc.h"
#include "iso_gen.h"
#include "iso_stream.h"

START_TEST(lognormal_sizes_have_the_asked_mean_and_deviation)
{
	struct iso_gen g;
	struct iso_sizes s = { 0 };
	int i;

	/* 60 fps, 20 Mbit/s mean, 5 Mbit/s deviation: 41666.7 bytes,
	 * deviation 10416.7 */
	iso_gen_init(&g, 60, 20000000, 5000000, 12345);
	for (i = 0; i < 200000; i++)
		iso_sizes_add(&s, iso_gen_frame(&g, 1, UINT64_MAX));
	ck_assert_double_eq_tol(iso_sizes_mean(&s), 41666.7, 41666.7 * 0.01);
	ck_assert_double_eq_tol(iso_sizes_stddev(&s), 10416.7,
	    10416.7 * 0.03);
	ck_assert_uint_gt(s.min, 1);
}
END_TEST

START_TEST(zero_deviation_gives_a_constant_size)
{
	struct iso_gen g;
	int i;

	iso_gen_init(&g, 60, 20000000, 0, 7);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(iso_gen_frame(&g, 1, UINT64_MAX), 41667);
	/* the bounds hold */
	iso_gen_init(&g, 1000, 8000, 0, 7); /* 1 byte a frame */
	ck_assert_uint_eq(iso_gen_frame(&g, 80, 1000), 80);
	iso_gen_init(&g, 1, 8000000000ULL, 0, 7);
	ck_assert_uint_eq(iso_gen_frame(&g, 80, 1000), 1000);
}
END_TEST

START_TEST(normal_deviates_are_standard)
{
	struct iso_gen g;
	double sum = 0, sq = 0;
	int i, n = 200000;

	iso_gen_init(&g, 60, 1000, 0, 99);
	for (i = 0; i < n; i++) {
		double z = iso_gen_normal(&g);

		sum += z;
		sq += z * z;
	}
	ck_assert_double_eq_tol(sum / n, 0.0, 0.01);
	ck_assert_double_eq_tol(sqrt(sq / n), 1.0, 0.01);
}
END_TEST

START_TEST(same_seed_same_sizes)
{
	struct iso_gen a, b;
	int i;

	iso_gen_init(&a, 30, 10000000, 3000000, 42);
	iso_gen_init(&b, 30, 10000000, 3000000, 42);
	for (i = 0; i < 100; i++)
		ck_assert_uint_eq(iso_gen_frame(&a, 1, UINT64_MAX),
		    iso_gen_frame(&b, 1, UINT64_MAX));
}
END_TEST

START_TEST(a_late_sender_skips_instead_of_bunching)
{
	uint64_t skipped = 0;

	/* 10 ms ticks: done with frame 0 at 3 ms, frame 1 is next */
	ck_assert_uint_eq(iso_next_tick(0, 3000, 10000, &skipped), 1);
	/* frame 1 done at 25 ms (tick 2 passed, less than a period ago):
	 * frame 2 next, at once */
	ck_assert_uint_eq(iso_next_tick(1, 25000, 10000, &skipped), 2);
	ck_assert_uint_eq(skipped, 0);
	/* frame 2 done at 29 ms: tick 3, in 1 ms */
	ck_assert_uint_eq(iso_next_tick(2, 29000, 10000, &skipped), 3);
	ck_assert_uint_eq(skipped, 0);
	/* frame 3 done at 75 ms: ticks 4, 5, 6 skipped, 7 next */
	ck_assert_uint_eq(iso_next_tick(3, 75000, 10000, &skipped), 7);
	ck_assert_uint_eq(skipped, 3);
}
END_TEST

START_TEST(datagram_frames_give_exact_figures)
{
	struct iso_acc a;
	struct iso_dist d;

	iso_acc_init(&a);
	/* frame 1: ticks at 1000, two datagrams of 500, done at 1300 */
	iso_acc_datagram(&a, 1, 1000, 1000, 500, 1100);
	ck_assert_uint_eq(a.frames, 0);
	iso_acc_datagram(&a, 1, 1000, 1000, 500, 1300);
	ck_assert_uint_eq(a.frames, 1);
	/* frame 2: one datagram of two: lost when frame 4 starts; frame 3
	 * never seen; frame 4 done at 5600 (latency 600) */
	iso_acc_datagram(&a, 2, 2000, 1000, 500, 2100);
	iso_acc_datagram(&a, 4, 5000, 400, 400, 5600);
	ck_assert_uint_eq(a.frames, 2);
	ck_assert_uint_eq(a.lost, 2);
	/* a late datagram of frame 2 is ignored */
	iso_acc_datagram(&a, 2, 2000, 1000, 500, 5700);
	ck_assert_uint_eq(a.frames, 2);
	ck_assert_uint_eq(a.lost, 2);
	/* frame 5, latency 100: D = 300 - 600... */
	iso_acc_datagram(&a, 5, 6000, 100, 100, 6100);
	ck_assert_uint_eq(a.frames, 3);
	ck_assert_int_eq(a.n_lat, 3);
	ck_assert_int_eq(a.lat_us[0], 300);
	ck_assert_int_eq(a.lat_us[1], 600);
	ck_assert_int_eq(a.lat_us[2], 100);
	/* inter-arrivals 5600 - 1300 and 6100 - 5600 */
	ck_assert_int_eq(a.n_ia, 2);
	ck_assert_int_eq(a.ia_us[0], 4300);
	ck_assert_int_eq(a.ia_us[1], 500);
	/* jitter: 300/16, then + (500 - 18.75)/16 */
	ck_assert_double_eq_tol(a.jitter_us, 18.75 + (500 - 18.75) / 16,
	    1e-9);
	ck_assert_int_eq(iso_dist_of(a.lat_us, a.n_lat, &d), 0);
	ck_assert_uint_eq(d.samples, 3);
	ck_assert_double_eq_tol(d.min, 100, 1e-9);
	ck_assert_double_eq_tol(d.mean, 1000.0 / 3, 1e-9);
	ck_assert_double_eq_tol(d.p50, 300, 1e-9);
	ck_assert_double_eq_tol(d.p99, 600, 1e-9);
	ck_assert_double_eq_tol(d.max, 600, 1e-9);
	iso_dist_shift(&d, -50);
	ck_assert_double_eq_tol(d.p50, 250, 1e-9);
	ck_assert_uint_eq(a.sizes.n, 3);
	ck_assert_uint_eq(a.sizes.min, 100);
	ck_assert_uint_eq(a.sizes.max, 1000);
	iso_acc_release(&a);
}
END_TEST

START_TEST(records_count_gaps_as_lost)
{
	struct iso_acc a;

	iso_acc_init(&a);
	iso_acc_record(&a, 1, 0, 100, 10);
	iso_acc_record(&a, 2, 100, 100, 120);
	iso_acc_record(&a, 5, 400, 100, 400); /* 3 and 4 lost */
	iso_acc_record(&a, 4, 300, 100, 500); /* late: ignored */
	ck_assert_uint_eq(a.frames, 3);
	ck_assert_uint_eq(a.lost, 2);
	ck_assert_int_eq(a.lat_us[2], 0);
	iso_acc_release(&a);
}
END_TEST

START_TEST(percentiles_are_nearest_rank)
{
	int64_t v[100];
	struct iso_dist d;
	int i;

	for (i = 0; i < 100; i++)
		v[i] = 100 - i; /* 100 .. 1 */
	ck_assert_int_eq(iso_dist_of(v, 100, &d), 0);
	ck_assert_double_eq_tol(d.p50, 50, 1e-9);
	ck_assert_double_eq_tol(d.p99, 99, 1e-9);
	ck_assert_double_eq_tol(d.mean, 50.5, 1e-9);
	ck_assert_int_eq(v[0], 100); /* the input is left alone */
	ck_assert_int_eq(iso_dist_of(v, 0, &d), 0);
	ck_assert_uint_eq(d.samples, 0);
}
END_TEST

struct got {
	int n;
	uint32_t id[8], len[8];
	uint64_t tick[8];
	size_t at[8]; /* the byte that completed it */
	size_t pos;
};

static void
on_rec(void *arg, uint32_t id, uint64_t tick_us, uint32_t len)
{
	struct got *g = arg;

	if (g->n < 8) {
		g->id[g->n] = id;
		g->tick[g->n] = tick_us;
		g->len[g->n] = len;
		g->at[g->n] = g->pos;
	}
	g->n++;
}

START_TEST(records_parse_a_byte_at_a_time)
{
	unsigned char buf[200];
	struct iso_rec_parser p;
	struct got g;
	size_t i;

	memset(buf, 0xaa, sizeof(buf));
	memset(&g, 0, sizeof(g));
	iso_rec_header(buf, 100, 7, 0x0102030405060708ULL);
	iso_rec_header(buf + 100, ISO_REC_HDR, 8, 5); /* no filler */
	iso_rec_header(buf + 124, 76, 9, 6);
	iso_rec_parser_init(&p);
	for (i = 0; i < sizeof(buf); i++) {
		g.pos = i;
		ck_assert_int_eq(iso_rec_parse(&p, buf + i, 1, on_rec, &g), 0);
	}
	ck_assert_int_eq(g.n, 3);
	ck_assert_uint_eq(g.id[0], 7);
	ck_assert_uint_eq(g.tick[0], 0x0102030405060708ULL);
	ck_assert_uint_eq(g.len[0], 100);
	ck_assert_uint_eq(g.at[0], 99);
	ck_assert_uint_eq(g.id[1], 8);
	ck_assert_uint_eq(g.at[1], 123);
	ck_assert_uint_eq(g.id[2], 9);
	ck_assert_uint_eq(g.at[2], 199);
	/* the same in one piece */
	memset(&g, 0, sizeof(g));
	iso_rec_parser_init(&p);
	ck_assert_int_eq(iso_rec_parse(&p, buf, sizeof(buf), on_rec, &g), 0);
	ck_assert_int_eq(g.n, 3);
}
END_TEST

START_TEST(bad_records_are_refused)
{
	unsigned char h[ISO_REC_HDR];
	struct iso_rec_parser p;
	struct got g;

	memset(&g, 0, sizeof(g));
	iso_rec_header(h, 100, 1, 0);
	h[0] ^= 1; /* magic */
	iso_rec_parser_init(&p);
	ck_assert_int_eq(iso_rec_parse(&p, h, sizeof(h), on_rec, &g), -1);
	iso_rec_header(h, ISO_REC_HDR - 1, 1, 0); /* shorter than a header */
	iso_rec_parser_init(&p);
	ck_assert_int_eq(iso_rec_parse(&p, h, sizeof(h), on_rec, &g), -1);
	ck_assert_int_eq(g.n, 0);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("iso");
	TCase *gen = tcase_create("gen");
	TCase *acc = tcase_create("acc");
	TCase *wire = tcase_create("wire");

	tcase_add_test(gen, lognormal_sizes_have_the_asked_mean_and_deviation);
	tcase_add_test(gen, zero_deviation_gives_a_constant_size);
	tcase_add_test(gen, normal_deviates_are_standard);
	tcase_add_test(gen, same_seed_same_sizes);
	tcase_add_test(gen, a_late_sender_skips_instead_of_bunching);
	tcase_add_test(acc, datagram_frames_give_exact_figures);
	tcase_add_test(acc, records_count_gaps_as_lost);
	tcase_add_test(acc, percentiles_are_nearest_rank);
	tcase_add_test(wire, records_parse_a_byte_at_a_time);
	tcase_add_test(wire, bad_records_are_refused);
	suite_add_tcase(s, gen);
	suite_add_tcase(s, acc);
	suite_add_tcase(s, wire);
	return s;
}
