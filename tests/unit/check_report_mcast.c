/*
 * check_report_mcast.c - a --multicast-listen receiver's output
 * (report/report_mcast.h) into a memory stream: the banner, the start
 * lines, interval rows with their one-way delay, the summary with an end
 * marker and without one (interrupted), and the -J document's keys.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check_main.h"
#include "check_report.h"
#include "iperf.h"
#include "mcast_acct.h"
#include "report_mcast.h"
#include "test_config.h"

static const struct mcast_test_info info = {
	.group = "239.1.2.3",
	.port = 5201,
	.sender = "10.0.0.1",
	.sender_port = 40000,
	.test_id = 0x0123456789abcdefULL,
	.start_us = 1700000000000000ULL,
	.duration_ms = 2000,
	.join_latency_ms = 12.5,
	.joined_late = 0,
	.counters64 = 0,
	.first_seq = 1,
	.interface = NULL,
};

/* 1 s of 1000 datagrams of 1250 bytes (10 Mbit/s), 10 lost. */
static void
stats(struct mcast_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->bytes = 1250000;
	s->received = 990;
	s->packets = 1000;
	s->lost = 10;
	s->jitter_ms = 0.05;
	s->owd_n = 990;
	s->owd_min_ms = 0.1;
	s->owd_max_ms = 0.5;
	s->owd_sum_ms = 0.2 * 990;
}

START_TEST(text_start_rows_and_summary_with_end_marker)
{
	struct fx f;
	struct mcast_report *r;
	struct mcast_stats s;
	struct mcast_end_info e = { 1, 0, 0, 1000, 1250000, 0 };

	fx_init(&f, 's', FX_UDP, 0, 0, 1);
	mcast_report_listening(f.t, "239.1.2.3", 5201, NULL);
	r = mcast_report_start(f.t, &info);
	ck_assert_ptr_nonnull(r);
	stats(&s);
	mcast_report_interval(r, 0.0, 1.0, &s);
	mcast_report_end(r, 1.0, &s, &e);
	fx_assert_text(fx_out(&f),
	    RULE
	    "Multicast listener on 239.1.2.3 port 5201\n"
	    RULE
	    "Test 0123456789abcdef from 10.0.0.1 port 40000 to 239.1.2.3 port "
	    "5201, planned 2.00 sec; join latency 12.500 ms\n"
	    "Note: one-way delay from the sender's clock: the clocks are "
	    "assumed synchronised (no offset measured)\n"
	    "[ ID] Interval           Transfer     Bitrate         Jitter    "
	    "Lost/Total Datagrams  One-way delay min/mean/max\n"
	    "[  1]   0.00-1.00   sec  1.19 MBytes  10.0 Mbits/sec  0.050 ms  "
	    "10/1000 (1%)  0.100/0.200/0.500 ms\n"
	    SEP
	    LINE_HDR_UDP
	    "[  1]   0.00-1.00   sec  1.19 MBytes  10.0 Mbits/sec  0.050 ms  "
	    "10/1000 (1%)  receiver\n"
	    "[  1] one-way delay min/mean/max 0.100/0.200/0.500 ms (clocks "
	    "assumed synchronised)\n"
	    "End marker: the sender sent 1000 datagrams, 1250000 bytes\n");
	fx_free(&f);
}
END_TEST

START_TEST(text_late_join_interrupted_without_samples)
{
	struct fx f;
	struct mcast_report *r;
	struct mcast_stats s;
	struct mcast_test_info late = info;
	struct mcast_end_info e = { 0, 1, 1, 0, 0, 4 };

	fx_init(&f, 's', FX_UDP, 0, 0, 1);
	late.joined_late = 1;
	late.first_seq = 501;
	r = mcast_report_start(f.t, &late);
	memset(&s, 0, sizeof(s));
	s.ooo = 2;
	mcast_report_end(r, 0.0, &s, &e);
	ck_assert_ptr_nonnull(strstr(fx_out(&f),
	    "Joined late: counting from datagram 501\n"));
	ck_assert_ptr_nonnull(strstr(fx_out(&f),
	    "[  1] one-way delay min/mean/max - (clocks"));
	ck_assert_ptr_nonnull(strstr(fx_out(&f),
	    "[  1] 2 datagrams received out-of-order\n"));
	ck_assert_ptr_nonnull(strstr(fx_out(&f), "[  1] 4 datagrams of no "
	    "test"));
	ck_assert_ptr_nonnull(strstr(fx_out(&f), "Left early / no end marker: "
	    "the listener was interrupted"));
	fx_free(&f);
}
END_TEST

static double
num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	ck_assert_msg(cJSON_IsNumber(v), "no number %s", key);
	return v->valuedouble;
}

START_TEST(json_document_at_the_end)
{
	struct fx f;
	struct mcast_report *r;
	struct mcast_stats s;
	struct mcast_end_info e = { 1, 0, 0, 1000, 1250000, 3 };
	cJSON *doc, *m, *iv, *end, *sum;

	fx_init(&f, 's', FX_UDP, 0, 0, 1);
	f.t->cfg->opt.json_output = 1;
	mcast_report_listening(f.t, "239.1.2.3", 5201, NULL);
	r = mcast_report_start(f.t, &info);
	stats(&s);
	mcast_report_interval(r, 0.0, 1.0, &s);
	ck_assert_str_eq(fx_out(&f), ""); /* nothing before the end */
	mcast_report_end(r, 1.0, &s, &e);
	doc = cJSON_Parse(fx_out(&f));
	ck_assert_ptr_nonnull(doc);
	m = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(doc, "start"), "multicast");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(m, "test_id")
			     ->valuestring, "0123456789abcdef");
	ck_assert_double_eq(num(m, "join_latency_ms"), 12.5);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(m,
	    "joined_late")));
	iv = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc,
	    "intervals"), 0);
	sum = cJSON_GetObjectItemCaseSensitive(iv, "sum");
	ck_assert_double_eq(num(sum, "bits_per_second"), 1e7);
	ck_assert_double_eq_tol(num(sum, "lost_percent"), 1.0, 1e-9);
	ck_assert_double_eq_tol(num(cJSON_GetObjectItemCaseSensitive(sum,
	    "owd_ms"), "mean"), 0.2, 1e-9);
	end = cJSON_GetObjectItemCaseSensitive(doc, "end");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(end,
	    "end_marker")));
	ck_assert_double_eq(num(end, "sender_packets"), 1000);
	ck_assert_double_eq(num(end, "foreign_datagrams"), 3);
	ck_assert_double_eq(num(cJSON_GetObjectItemCaseSensitive(end, "sum"),
	    "packets"), 1000);
	cJSON_Delete(doc);
	fx_free(&f);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("report_mcast");
	TCase *tc = tcase_create("output");

	tcase_add_test(tc, text_start_rows_and_summary_with_end_marker);
	tcase_add_test(tc, text_late_join_interrupted_without_samples);
	tcase_add_test(tc, json_document_at_the_end);
	suite_add_tcase(s, tc);
	return s;
}
