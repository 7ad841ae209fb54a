/*
 * check_rr.c - --rr pieces (rr.h): request numbers, the UDP loss timeout,
 * one transaction over a socket pair each way (TCP-like and datagram:
 * answers, stale answers, a loss), the interval take and the omit reset,
 * whole-test sums, the results object and the text table layout.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check_main.h"
#include "ctrl.h"
#include "iperf.h"
#include "proto.h"
#include "report_rows.h"
#include "rr.h"
#include "stream.h"

static struct iperf_test *test;
static int sv[2];

/* A test with --rr settings; the caller makes the socket pair. */
static void
make_test(const struct iperf_proto_ops *proto, int req, int resp)
{
	test = iperf_new_test();
	ck_assert_ptr_nonnull(test);
	iperf_defaults(test);
	test->proto = proto;
	test->settings.protocol_id = proto->id;
	test->settings.rr = 1;
	test->settings.blksize = req;
	test->settings.rr_response = resp;
}

static struct iperf_stream *
rr_stream(int fd, int sender)
{
	struct iperf_stream *sp = stream_new(test, fd, sender);

	ck_assert_ptr_nonnull(sp);
	stream_add(test, sp);
	ck_assert_int_eq(rr_stream_init(sp), 0);
	return sp;
}

static void
teardown(void)
{
	if (test != NULL)
		iperf_free_test(test); /* closes sv[0] with the stream */
	test = NULL;
	close(sv[1]);
}

/* ---- pure parts ------------------------------------------------------------ */

START_TEST(numbers_need_8_bytes_both_ways)
{
	ck_assert_int_eq(rr_numbered(8, 8), 1);
	ck_assert_int_eq(rr_numbered(1000, 8), 1);
	ck_assert_int_eq(rr_numbered(7, 1000), 0);
	ck_assert_int_eq(rr_numbered(1000, 7), 0);
	ck_assert_int_eq(rr_numbered(1, 1), 0);
}
END_TEST

START_TEST(numbers_are_big_endian_and_checked)
{
	unsigned char b[16] = { 0 };
	uint64_t id = 0;

	rr_id_put(b, 0x0102030405060708ULL);
	ck_assert_uint_eq(b[0], 1);
	ck_assert_uint_eq(b[7], 8);
	ck_assert_int_eq(rr_id_get(b, 8, &id), 0);
	ck_assert_uint_eq(id, 0x0102030405060708ULL);
	ck_assert_int_eq(rr_id_get(b, 7, &id), -1);
	ck_assert_int_eq(rr_is_answer(1, b, 16, 0x0102030405060708ULL), 1);
	ck_assert_int_eq(rr_is_answer(1, b, 16, 0x0102030405060709ULL), 0);
	ck_assert_int_eq(rr_is_answer(1, b, 7, 0x0102030405060708ULL), 0);
	/* without numbers any response answers, an empty one does not */
	ck_assert_int_eq(rr_is_answer(0, b, 1, 99), 1);
	ck_assert_int_eq(rr_is_answer(0, b, 0, 99), 0);
}
END_TEST

START_TEST(timeout_is_20_p99_within_10ms_and_2s)
{
	ck_assert_uint_eq(rr_timeout_ns(0, 0), RR_TIMEOUT_FIRST_NS);
	ck_assert_uint_eq(rr_timeout_ns(123456789, 0), 1000000000ULL);
	ck_assert_uint_eq(rr_timeout_ns(30000, 5), 10000000ULL);
	ck_assert_uint_eq(rr_timeout_ns(499999, 5), 10000000ULL);
	ck_assert_uint_eq(rr_timeout_ns(1000000, 5), 20000000ULL);
	ck_assert_uint_eq(rr_timeout_ns(99000000, 5), 1980000000ULL);
	ck_assert_uint_eq(rr_timeout_ns(100000001, 5), 2000000000ULL);
	ck_assert_uint_eq(rr_timeout_ns(UINT64_MAX, 5), 2000000000ULL);
	/* before the first answer: the control connection's RTT, or 1 s */
	ck_assert_uint_eq(rr_timeout_first_ns(0), 1000000000ULL);
	ck_assert_uint_eq(rr_timeout_first_ns(40), 10000000ULL);
	ck_assert_uint_eq(rr_timeout_first_ns(5000), 100000000ULL);
	ck_assert_uint_eq(rr_timeout_first_ns(UINT64_MAX), 1000000000ULL);
}
END_TEST

START_TEST(timeout_recomputed_at_1_16_64_then_every_256)
{
	uint64_t n, due = 0;

	ck_assert_int_eq(rr_timeout_due(0), 0);
	for (n = 1; n <= 1024; n++)
		due += (uint64_t)rr_timeout_due(n);
	ck_assert_uint_eq(due, 3 + 4); /* 1, 16, 64; 256, 512, 768, 1024 */
	ck_assert_int_eq(rr_timeout_due(17), 0);
	ck_assert_int_eq(rr_timeout_due(2560), 1);
}
END_TEST

START_TEST(rate_is_transactions_over_seconds)
{
	ck_assert(rr_rate(1000, 2.0) == 500.0);
	ck_assert(rr_rate(1000, 0.0) == 0.0);
	ck_assert(rr_rate(0, 1.0) == 0.0);
}
END_TEST

START_TEST(results_object_round_trips_in_us)
{
	struct latsum in = { 10, 12000, 25100, 31000, 99000, 123456, 2500000,
		40000.4 };
	struct rr_peer out;
	cJSON *doc = cJSON_CreateObject(), *o, *lat;

	ck_assert_int_eq(rr_results_add(doc, 10, 3, &in), 0);
	o = cJSON_GetObjectItemCaseSensitive(doc, "rr");
	lat = cJSON_GetObjectItemCaseSensitive(o, "latency_us");
	ck_assert(cJSON_GetObjectItemCaseSensitive(lat, "p50")->valuedouble ==
	    25.1);
	ck_assert(cJSON_GetObjectItemCaseSensitive(lat, "max")->valuedouble ==
	    2500.0);
	rr_results_read(o, &out);
	ck_assert_int_eq(out.present, 1);
	ck_assert_uint_eq(out.trans, 10);
	ck_assert_uint_eq(out.lost, 3);
	ck_assert_uint_eq(out.lat.min, 12000);
	ck_assert_uint_eq(out.lat.p50, 25100);
	ck_assert_uint_eq(out.lat.p999, 123456);
	ck_assert_uint_eq(out.lat.max, 2500000);
	ck_assert(out.lat.mean >= 40000 && out.lat.mean < 40001);
	cJSON_Delete(doc);
	/* not an object, no count, a negative count: absent */
	o = cJSON_CreateString("x");
	rr_results_read(o, &out);
	ck_assert_int_eq(out.present, 0);
	cJSON_Delete(o);
	o = cJSON_Parse("{\"transactions\": -1}");
	rr_results_read(o, &out);
	ck_assert_int_eq(out.present, 0);
	cJSON_Delete(o);
	rr_results_read(NULL, &out);
	ck_assert_int_eq(out.present, 0);
}
END_TEST

START_TEST(histogram_round_trips_exactly)
{
	static const uint64_t v[] = { 17, 300, 25100, 25101, 25100, 9000000,
		1ULL << 40 };
	struct latstat in, out;
	cJSON *o = cJSON_CreateObject(), *h;
	unsigned int i;

	latstat_init(&in);
	latstat_init(&out);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		ck_assert_int_eq(latstat_add(&in, v[i]), 0);
	ck_assert_int_eq(rr_hist_add(o, &in), 0);
	rr_hist_read(o, &out);
	ck_assert_uint_eq(out.n, in.n);
	ck_assert_uint_eq(out.sum, in.sum);
	ck_assert_uint_eq(out.min, 17);
	ck_assert_uint_eq(out.max, 1ULL << 40);
	ck_assert_mem_eq(out.counts, in.counts,
	    LATSTAT_BUCKETS * sizeof(in.counts[0]));
	/* counts that do not add up to n: nothing */
	h = cJSON_GetObjectItemCaseSensitive(o, "hist");
	cJSON_ReplaceItemInObjectCaseSensitive(h, "n", cJSON_CreateNumber(8));
	rr_hist_read(o, &out);
	ck_assert_uint_eq(out.n, 0);
	/* a bucket out of range, an odd array: nothing */
	cJSON_ReplaceItemInObjectCaseSensitive(h, "n", cJSON_CreateNumber(1));
	cJSON_ReplaceItemInObjectCaseSensitive(h, "b",
	    cJSON_Parse("[99999, 1]"));
	rr_hist_read(o, &out);
	ck_assert_uint_eq(out.n, 0);
	cJSON_ReplaceItemInObjectCaseSensitive(h, "b", cJSON_Parse("[3]"));
	rr_hist_read(o, &out);
	ck_assert_uint_eq(out.n, 0);
	rr_hist_read(NULL, &out);
	ck_assert_uint_eq(out.n, 0);
	cJSON_Delete(o);
	latstat_free(&in);
	latstat_free(&out);
}
END_TEST

/* ---- one transaction over a socket pair -------------------------------------- */

START_TEST(stream_client_times_one_whole_response)
{
	struct iperf_stream *sp;
	char resp[300], req[200];

	make_test(&proto_tcp, 100, 300);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	sp = rr_stream(sv[0], 1);
	memset(resp, 'r', sizeof(resp));
	ck_assert_int_eq((int)write(sv[1], resp, sizeof(resp)), 300);
	ck_assert_int_eq((int)rr_step(sp), 400);
	/* exactly one request went out */
	ck_assert_int_eq((int)recv(sv[1], req, sizeof(req), MSG_DONTWAIT),
	    100);
	ck_assert_uint_eq(sp->w.live.rr_trans, 1);
	ck_assert_uint_eq(sp->w.live.bytes, 400);
	ck_assert_uint_eq(sp->rr->shared.n, 1);
	/* the peer closed: the end, nothing counted */
	shutdown(sv[1], SHUT_WR);
	ck_assert_int_eq((int)rr_step(sp), 0);
	ck_assert_uint_eq(sp->w.live.rr_trans, 1);
}
END_TEST

START_TEST(stream_server_answers_each_whole_request)
{
	struct iperf_stream *sp;
	char buf[64];

	make_test(&proto_tcp, 10, 20);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	sp = rr_stream(sv[0], 0);
	memset(buf, 'q', sizeof(buf));
	ck_assert_int_eq((int)write(sv[1], buf, 10), 10);
	ck_assert_int_eq((int)rr_step(sp), 30);
	ck_assert_int_eq((int)recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), 20);
	ck_assert_uint_eq(sp->w.live.rr_trans, 1);
	ck_assert_uint_eq(sp->rr->shared.n, 0); /* a server does not time */
}
END_TEST

START_TEST(datagram_answers_carry_the_request_number)
{
	struct iperf_stream *sp;
	unsigned char buf[64];
	uint64_t id = 0;

	make_test(&proto_udp, 16, 32);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	sp = rr_stream(sv[0], 1);
	ck_assert_int_eq(sp->rr->numbered, 1);
	/* a late answer (number 7), then the one for request 1 */
	memset(buf, 0, sizeof(buf));
	rr_id_put(buf, 7);
	ck_assert_int_eq((int)send(sv[1], buf, 32, 0), 32);
	rr_id_put(buf, 1);
	ck_assert_int_eq((int)send(sv[1], buf, 32, 0), 32);
	ck_assert_int_gt((int)rr_step(sp), 0);
	ck_assert_int_eq((int)recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), 16);
	ck_assert_int_eq(rr_id_get(buf, 16, &id), 0);
	ck_assert_uint_eq(id, 1);
	ck_assert_uint_eq(sp->w.live.rr_trans, 1);
	ck_assert_uint_eq(sp->w.live.rr_stale, 1);
	ck_assert_uint_eq(sp->w.live.rr_lost, 0);
	ck_assert_uint_eq(sp->w.live.packets, 3); /* 1 out, 2 in */
}
END_TEST

START_TEST(datagram_without_answer_is_lost_after_the_timeout)
{
	struct iperf_stream *sp;
	unsigned char buf[64];

	make_test(&proto_udp, 16, 16);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	sp = rr_stream(sv[0], 1);
	sp->rr->timeout_ns = 20000000ULL; /* 20 ms */
	ck_assert_int_gt((int)rr_step(sp), 0);
	ck_assert_uint_eq(sp->w.live.rr_trans, 0);
	ck_assert_uint_eq(sp->w.live.rr_lost, 1);
	ck_assert_uint_eq(sp->w.live.bytes, 16); /* the request went out */
	/* the next request has the next number */
	memset(buf, 0, sizeof(buf));
	rr_id_put(buf, 2);
	ck_assert_int_eq((int)send(sv[1], buf, 16, 0), 16);
	ck_assert_int_gt((int)rr_step(sp), 0);
	ck_assert_uint_eq(sp->w.live.rr_trans, 1);
	ck_assert_uint_eq(sp->w.live.rr_stale, 0);
}
END_TEST

START_TEST(datagram_server_echoes_the_number)
{
	struct iperf_stream *sp;
	unsigned char buf[64];
	uint64_t id = 0;

	make_test(&proto_udp, 8, 100);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	sp = rr_stream(sv[0], 0);
	rr_id_put(buf, 42);
	ck_assert_int_eq((int)send(sv[1], buf, 8, 0), 8);
	ck_assert_int_eq((int)rr_step(sp), 108);
	ck_assert_int_eq((int)recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT),
	    64); /* 100 bytes, our buffer takes 64 */
	ck_assert_int_eq(rr_id_get(buf, 8, &id), 0);
	ck_assert_uint_eq(id, 42);
}
END_TEST

START_TEST(short_datagrams_are_just_counted)
{
	struct iperf_stream *sp;
	unsigned char buf[4] = { 9, 9, 9, 9 };

	make_test(&proto_udp, 1, 4);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	sp = rr_stream(sv[0], 1);
	ck_assert_int_eq(sp->rr->numbered, 0);
	ck_assert_int_eq((int)send(sv[1], buf, 4, 0), 4);
	ck_assert_int_eq((int)rr_step(sp), 5);
	ck_assert_uint_eq(sp->w.live.rr_trans, 1);
}
END_TEST

/* ---- intervals, omit, sums ----------------------------------------------------- */

static void
publish_samples(struct iperf_stream *sp, uint64_t first, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		(void)latstat_add(&sp->rr->shared, first + i);
	sp->w.live.rr_trans += n;
}

START_TEST(take_moves_the_interval_and_omit_drops_it)
{
	struct iperf_stream *sp;
	struct stream_live l;

	make_test(&proto_tcp, 1, 1);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	sp = rr_stream(sv[0], 1);
	publish_samples(sp, 100, 10);
	rr_take(sp, &l);
	ck_assert_uint_eq(l.rr_trans, 10);
	ck_assert_uint_eq(sp->rr->interval.n, 10);
	ck_assert_uint_eq(sp->rr->shared.n, 0);
	rr_interval_done(sp, 1); /* omitted: not in the total */
	ck_assert_uint_eq(sp->rr->total.n, 0);
	publish_samples(sp, 200, 5);
	rr_omit_reset_locked(sp); /* the omit period ends */
	ck_assert_uint_eq(sp->rr->shared.n, 0);
	publish_samples(sp, 300, 4);
	rr_take(sp, &l);
	rr_interval_done(sp, 0);
	ck_assert_uint_eq(sp->rr->interval.n, 4);
	ck_assert_uint_eq(sp->rr->interval.min, 300);
	publish_samples(sp, 400, 6);
	rr_take(sp, &l);
	rr_interval_done(sp, 0);
	ck_assert_uint_eq(sp->rr->interval.n, 6);
	ck_assert_uint_eq(sp->rr->total.n, 10);
	ck_assert_uint_eq(sp->rr->total.min, 300);
	ck_assert_uint_eq(sp->rr->total.max, 405);
}
END_TEST

START_TEST(test_totals_merge_every_stream)
{
	struct iperf_stream *a, *b;
	struct latstat all;
	uint64_t trans, lost;
	int fd2;

	make_test(&proto_udp, 8, 8);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	fd2 = dup(sv[1]);
	a = rr_stream(sv[0], 1);
	b = rr_stream(fd2, 1);
	(void)latstat_add(&a->rr->total, 10);
	(void)latstat_add(&a->rr->total, 30);
	(void)latstat_add(&b->rr->total, 20);
	a->final.rr_trans = 12; /* 2 before the omit period ended */
	a->base_omit.rr_trans = 10;
	a->final.rr_lost = 1;
	b->final.rr_trans = 1;
	b->final.rr_lost = 2;
	latstat_init(&all);
	ck_assert_int_eq(rr_test_totals(test, &all, &trans, &lost), 0);
	ck_assert_uint_eq(trans, 3);
	ck_assert_uint_eq(lost, 3);
	ck_assert_uint_eq(all.n, 3);
	ck_assert_uint_eq(all.min, 10);
	ck_assert_uint_eq(all.max, 30);
	ck_assert_uint_eq(latstat_percentile(&all, 50), 20);
	latstat_free(&all);
}
END_TEST

/* ---- text table ----------------------------------------------------------------- */

START_TEST(latency_cells_pick_their_unit)
{
	char b[32];

	(void)report_fmt_latency(b, sizeof(b), 25123);
	ck_assert_str_eq(b, "25.1 us");
	(void)report_fmt_latency(b, sizeof(b), 999949);
	ck_assert_str_eq(b, "999.9 us");
	(void)report_fmt_latency(b, sizeof(b), 1250000);
	ck_assert_str_eq(b, "1.25 ms");
	(void)report_fmt_latency(b, sizeof(b), 2500000000ULL);
	ck_assert_str_eq(b, "2.50 s");
}
END_TEST

/* Each column's text ends where its header does. */
static void
assert_aligned(const char *hdr, const char *row, const char *name,
    const char *cell)
{
	const char *h = strstr(hdr, name), *r = strstr(row, cell);

	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq((int)(h - hdr + (long)strlen(name)),
	    (int)(r - row + (long)strlen(cell)));
}

START_TEST(tables_line_up_with_their_headers)
{
	struct report_row r = { 0 };
	struct report_rr x = { 0 };
	char hdr[REPORT_LINE_LEN], row[REPORT_LINE_LEN];

	r.id = 5;
	r.role = "";
	r.end = r.seconds = 1.0;
	r.bytes = 72178;
	r.fmt = 'a';
	r.tail = "";
	x.trans = 36089;
	x.rate = 36089;
	x.has_lat = 1;
	x.lat_ns[0] = 25100;
	x.lat_ns[1] = 27300;
	x.lat_ns[2] = 41000;
	x.lat_ns[3] = 80000;
	x.lat_ns[4] = 1200000;
	(void)report_fmt_rr_header(hdr, sizeof(hdr), RR_ROW_INTERVAL, 1, 0);
	(void)report_fmt_rr_row(row, sizeof(row), RR_ROW_INTERVAL, &r, &x);
	ck_assert_str_eq(hdr, "[ ID] Interval           Transfer     Bitrate"
	    "         Trans/s       p50       p90       p99\n");
	ck_assert_str_eq(row, "[  5]   0.00-1.00   sec  70.5 KBytes   577 "
	    "Kbits/sec    36089   25.1 us   27.3 us   41.0 us\n");
	assert_aligned(hdr, row, "Trans/s", "36089");
	assert_aligned(hdr, row, "p99", "41.0 us");
	x.datagram = 1;
	x.lost = 7;
	(void)report_fmt_rr_header(hdr, sizeof(hdr), RR_ROW_SUMMARY, 1, 1);
	(void)report_fmt_rr_row(row, sizeof(row), RR_ROW_SUMMARY, &r, &x);
	assert_aligned(hdr, row, "Trans ", "36089 ");
	assert_aligned(hdr, row, "p99.9", "80.0 us");
	assert_aligned(hdr, row, "max", "1.20 ms");
	/* the last column, Lost, ends both lines */
	ck_assert_uint_eq(strlen(hdr), strlen(row));
	ck_assert_str_eq(hdr + strlen(hdr) - 5, "Lost\n");
	ck_assert_str_eq(row + strlen(row) - 3, " 7\n");
	/* a server's intervals: no latencies, no losses */
	(void)report_fmt_rr_header(hdr, sizeof(hdr), RR_ROW_INTERVAL, 0, 0);
	ck_assert_ptr_null(strstr(hdr, "p50"));
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("rr");
	TCase *pure = tcase_create("pure");
	TCase *io = tcase_create("io");
	TCase *acct = tcase_create("accounting");

	tcase_add_test(pure, numbers_need_8_bytes_both_ways);
	tcase_add_test(pure, numbers_are_big_endian_and_checked);
	tcase_add_test(pure, timeout_is_20_p99_within_10ms_and_2s);
	tcase_add_test(pure, timeout_recomputed_at_1_16_64_then_every_256);
	tcase_add_test(pure, rate_is_transactions_over_seconds);
	tcase_add_test(pure, results_object_round_trips_in_us);
	tcase_add_test(pure, histogram_round_trips_exactly);
	tcase_add_test(pure, latency_cells_pick_their_unit);
	tcase_add_test(pure, tables_line_up_with_their_headers);
	tcase_add_checked_fixture(io, NULL, teardown);
	tcase_add_test(io, stream_client_times_one_whole_response);
	tcase_add_test(io, stream_server_answers_each_whole_request);
	tcase_add_test(io, datagram_answers_carry_the_request_number);
	tcase_add_test(io, datagram_without_answer_is_lost_after_the_timeout);
	tcase_add_test(io, datagram_server_echoes_the_number);
	tcase_add_test(io, short_datagrams_are_just_counted);
	tcase_add_checked_fixture(acct, NULL, teardown);
	tcase_add_test(acct, take_moves_the_interval_and_omit_drops_it);
	tcase_add_test(acct, test_totals_merge_every_stream);
	suite_add_tcase(s, pure);
	suite_add_tcase(s, io);
	suite_add_tcase(s, acct);
	return s;
}
