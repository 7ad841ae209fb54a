/* check_caps.c - the server's caps as a clamp (server_caps.h) and the
 * caps document (caps_doc.h), with exact values. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "caps_doc.h"
#include "check_main.h"
#include "iperf.h"
#include "json.h"
#include "server_caps.h"

#define M 1000000ULL

static struct iperf_settings s;
static struct caps_limits lim;
static struct server_caps c;

static void
setup(void)
{
	memset(&s, 0, sizeof(s));
	memset(&lim, 0, sizeof(lim));
	memset(&c, 0, sizeof(c));
	s.duration = 10;
	s.num_streams = 1;
	s.blksize = 131072;
}

static void
teardown(void)
{
}

/* Clamp, then apply to s, as the server does. */
static void
clamp(void)
{
	ck_assert_int_eq(server_caps_compute(&lim, &s, &c), 0);
	ck_assert_int_eq(caps_apply(&c, &s), 0);
}

START_TEST(duration_above_the_cap_runs_for_the_cap)
{
	lim.duration_s = 10;
	s.duration = 30;
	s.omit = 2;
	clamp();
	ck_assert_uint_eq(c.configured, CAP_DURATION);
	ck_assert_uint_eq(c.changed, CAP_DURATION);
	ck_assert_uint_eq(c.duration.requested, 30);
	ck_assert_uint_eq(c.duration.applied, 8);
	ck_assert_uint_eq(c.duration.limit, 10);
	ck_assert_int_eq(s.duration, 8);
	ck_assert_int_eq(s.omit, 2);
	ck_assert_int_eq(c.omit_applied, c.omit_requested);
}
END_TEST

START_TEST(duration_within_the_cap_is_kept)
{
	lim.duration_s = 10;
	s.duration = 8;
	s.omit = 2;
	clamp();
	ck_assert_uint_eq(c.changed, 0);
	ck_assert_uint_eq(c.duration.requested, 8);
	ck_assert_uint_eq(c.duration.applied, 8);
	ck_assert_int_eq(s.duration, 8);
}
END_TEST

START_TEST(omit_beyond_the_cap_goes)
{
	lim.duration_s = 5;
	s.duration = 10;
	s.omit = 5;
	clamp();
	ck_assert_int_eq(s.omit, 0);
	ck_assert_int_eq(s.duration, 5);
	ck_assert_int_eq(c.omit_requested, 5);
	ck_assert_int_eq(c.omit_applied, 0);
}
END_TEST

START_TEST(untimed_and_counted_tests_end_at_the_duration_cap)
{
	lim.duration_s = 3;
	s.duration = 0; /* -t 0 */
	clamp();
	ck_assert_uint_eq(c.duration.requested, 0);
	ck_assert_uint_eq(c.duration.applied, 3);
	ck_assert_int_eq(s.duration, 3);
	setup();
	lim.duration_s = 3;
	s.duration = 0;
	s.bytes = 5 * M; /* -n 5M: the count stays, the timer is added */
	clamp();
	ck_assert_int_eq(s.duration, 3);
	ck_assert_uint_eq(s.bytes, 5 * M);
}
END_TEST

START_TEST(streams_above_the_cap_are_lowered)
{
	lim.streams = 4;
	s.num_streams = 8;
	clamp();
	ck_assert_uint_eq(c.streams.requested, 8);
	ck_assert_uint_eq(c.streams.applied, 4);
	ck_assert_int_eq(s.num_streams, 4);
	/* --bidir: every direction counts, a whole number a direction */
	setup();
	lim.streams = 5;
	s.num_streams = 4;
	s.bidirectional = 1;
	clamp();
	ck_assert_uint_eq(c.streams.requested, 8);
	ck_assert_uint_eq(c.streams.applied, 4);
	ck_assert_int_eq(s.num_streams, 2);
	/* a cap below the directions: no clamp meets it */
	setup();
	lim.streams = 1;
	s.bidirectional = 1;
	ck_assert_int_eq(server_caps_compute(&lim, &s, &c), -1);
}
END_TEST

START_TEST(rate_above_the_cap_or_unlimited_is_paced_at_the_cap)
{
	lim.bitrate = 100 * M;
	s.num_streams = 4;
	s.rate = 50 * M; /* 200M in all */
	clamp();
	ck_assert_uint_eq(c.bitrate.requested, 200 * M);
	ck_assert_uint_eq(c.bitrate.applied, 100 * M);
	ck_assert_uint_eq(s.rate, 25 * M);
	setup();
	lim.bitrate = 100 * M;
	s.num_streams = 3;
	s.bidirectional = 1; /* six streams */
	s.rate = 0;
	s.fqrate = 40 * M;
	clamp();
	ck_assert_uint_eq(c.bitrate.requested, 0);
	ck_assert_uint_eq(s.rate, 16666666);
	ck_assert_uint_eq(c.bitrate.applied, 6 * 16666666ULL);
	ck_assert_uint_eq(s.fqrate, 16666666);
	ck_assert_uint_eq(c.changed, CAP_BITRATE);
	/* within the cap: kept */
	setup();
	lim.bitrate = 100 * M;
	s.rate = 10 * M;
	clamp();
	ck_assert_uint_eq(c.changed, 0);
	ck_assert_uint_eq(s.rate, 10 * M);
}
END_TEST

START_TEST(the_rate_cap_counts_the_streams_the_streams_cap_left)
{
	lim.streams = 2;
	lim.bitrate = 100 * M;
	s.num_streams = 8;
	s.rate = 40 * M;
	clamp();
	ck_assert_uint_eq(c.changed, CAP_STREAMS);
	ck_assert_uint_eq(c.bitrate.requested, 80 * M);
	ck_assert_uint_eq(s.rate, 40 * M);
}
END_TEST

START_TEST(byte_bounds)
{
	s.rate = 8 * M; /* 1 MB/s */
	s.duration = 10;
	s.omit = 2;
	s.num_streams = 2;
	ck_assert_uint_eq(server_caps_byte_bound(&s), 24 * M);
	s.bidirectional = 1;
	ck_assert_uint_eq(server_caps_byte_bound(&s), 48 * M);
	s.rate = 0;
	ck_assert_uint_eq(server_caps_byte_bound(&s), UINT64_MAX);
	/* a count: both directions, and its omitted seconds at the rate */
	s.duration = 0;
	s.bytes = 3 * M;
	ck_assert_uint_eq(server_caps_byte_bound(&s), UINT64_MAX);
	s.omit = 0;
	ck_assert_uint_eq(server_caps_byte_bound(&s), 6 * M);
	s.bytes = 0;
	s.blocks = 10;
	ck_assert_uint_eq(server_caps_byte_bound(&s), 2 * 10 * 131072ULL);
	s.blocks = 0; /* -t 0 */
	ck_assert_uint_eq(server_caps_byte_bound(&s), UINT64_MAX);
	/* a count and a timer: the smaller */
	s.bidirectional = 0;
	s.num_streams = 1;
	s.rate = 8 * M;
	s.duration = 2;
	s.bytes = 5 * M;
	ck_assert_uint_eq(server_caps_byte_bound(&s), 2 * M);
}
END_TEST

START_TEST(bytes_above_the_cap_become_a_count)
{
	lim.bytes = 10 * M;
	s.rate = 0; /* -b 0 TCP, 10 s: unbounded */
	s.omit = 1;
	clamp();
	ck_assert_uint_eq(c.changed, CAP_BYTES);
	ck_assert_uint_eq(c.bytes.requested, 0);
	ck_assert_uint_eq(c.bytes.applied, 10 * M);
	ck_assert_uint_eq(s.bytes, 10 * M);
	ck_assert_int_eq(s.duration, 10);
	ck_assert_int_eq(s.omit, 0);
	ck_assert_int_eq(c.omit_requested, 1);
	/* --bidir -k: half a direction, in bytes */
	setup();
	lim.bytes = 10 * M;
	s.duration = 0;
	s.blocks = 1000;
	s.bidirectional = 1;
	clamp();
	ck_assert_uint_eq(c.bytes.requested, 2 * 1000 * 131072ULL);
	ck_assert_uint_eq(c.bytes.applied, 10 * M);
	ck_assert_uint_eq(s.bytes, 5 * M);
	ck_assert_uint_eq(s.blocks, 0);
	/* within: kept, the bound shown */
	setup();
	lim.bytes = 10 * M;
	s.rate = 4 * M;
	s.duration = 2;
	clamp();
	ck_assert_uint_eq(c.changed, 0);
	ck_assert_uint_eq(c.bytes.requested, M);
	ck_assert_uint_eq(c.bytes.applied, M);
	ck_assert_uint_eq(s.bytes, 0);
}
END_TEST

START_TEST(every_cap_at_once)
{
	lim.duration_s = 5;
	lim.streams = 4;
	lim.bitrate = 80 * M;
	lim.bytes = 20 * M;
	s.duration = 0; /* -t 0 -P 8 -b 0 */
	s.num_streams = 8;
	clamp();
	ck_assert_uint_eq(c.configured, CAP_ALL);
	ck_assert_uint_eq(c.changed, CAP_ALL);
	ck_assert_int_eq(s.duration, 5);
	ck_assert_int_eq(s.num_streams, 4);
	ck_assert_uint_eq(s.rate, 20 * M);
	/* 80 Mbit/s for 5 s is 50 MB, above 20 MB */
	ck_assert_uint_eq(c.bytes.requested, 50 * M);
	ck_assert_uint_eq(s.bytes, 20 * M);
}
END_TEST

START_TEST(the_document_round_trips)
{
	struct server_caps d;
	cJSON *doc, *r, *a;
	char *txt;

	lim.duration_s = 10;
	lim.bytes = 10 * M;
	s.duration = 30;
	s.omit = 3;
	ck_assert_int_eq(server_caps_compute(&lim, &s, &c), 0);
	doc = caps_doc_encode(&c);
	txt = json_print_compact(doc);
	ck_assert_str_eq(txt, "{\"duration\":{\"requested\":30,\"applied\":7,"
	    "\"limit\":10},\"bytes\":{\"requested\":0,\"applied\":10000000,"
	    "\"limit\":10000000},\"omit\":{\"requested\":3,\"applied\":0}}");
	free(txt);
	ck_assert_int_eq(caps_doc_decode(doc, &d), 0);
	ck_assert_int_eq(memcmp(&d, &c, sizeof(c)), 0);
	r = caps_requested_json(&c);
	a = caps_applied_json(&c);
	txt = json_print_compact(r);
	ck_assert_str_eq(txt, "{\"duration\":30,\"bytes\":0}");
	free(txt);
	txt = json_print_compact(a);
	ck_assert_str_eq(txt, "{\"duration\":7,\"bytes\":10000000}");
	free(txt);
	cJSON_Delete(r);
	cJSON_Delete(a);
	cJSON_Delete(doc);
}
END_TEST

static int
decode(const char *json)
{
	cJSON *j = cJSON_Parse(json);
	int rc = caps_doc_decode(j, &c);

	cJSON_Delete(j);
	return rc;
}

START_TEST(bad_documents_are_refused)
{
	ck_assert_int_eq(decode("[]"), -1);
	ck_assert_int_eq(decode("{\"duration\":5}"), -1);
	ck_assert_int_eq(decode("{\"duration\":{\"requested\":5,\"applied\":1}}"),
	    -1);
	ck_assert_int_eq(decode("{\"streams\":{\"requested\":-1,\"applied\":1,"
	    "\"limit\":1}}"), -1);
	ck_assert_int_eq(decode("{\"omit\":{\"requested\":1,\"applied\":"
	    "\"0\"}}"), -1);
	ck_assert_int_eq(decode("{\"x\":1}"), 0); /* unknown: ignored */
	ck_assert_uint_eq(c.configured, 0);
}
END_TEST

/* A document that raises the request is not a clamp. */
START_TEST(only_clamps_are_applied)
{
	ck_assert_int_eq(decode("{\"duration\":{\"requested\":10,\"applied\":"
	    "20,\"limit\":20}}"), 0);
	ck_assert_int_eq(caps_apply(&c, &s), -1);
	ck_assert_int_eq(decode("{\"streams\":{\"requested\":1,\"applied\":2,"
	    "\"limit\":2}}"), 0);
	ck_assert_int_eq(caps_apply(&c, &s), -1);
	s.rate = 1000;
	ck_assert_int_eq(decode("{\"bitrate\":{\"requested\":1000,\"applied\":"
	    "2000,\"limit\":2000}}"), 0);
	ck_assert_int_eq(caps_apply(&c, &s), -1);
	s.bytes = 1000;
	ck_assert_int_eq(decode("{\"bytes\":{\"requested\":1000,\"applied\":"
	    "2000,\"limit\":2000}}"), 0);
	ck_assert_int_eq(caps_apply(&c, &s), -1);
	s.omit = 2;
	ck_assert_int_eq(decode("{\"omit\":{\"requested\":2,\"applied\":3}}"),
	    0);
	ck_assert_int_eq(caps_apply(&c, &s), -1);
	ck_assert_int_eq(s.duration, 10);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *su = suite_create("caps");
	TCase *tc = tcase_create("clamp");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, duration_above_the_cap_runs_for_the_cap);
	tcase_add_test(tc, duration_within_the_cap_is_kept);
	tcase_add_test(tc, omit_beyond_the_cap_goes);
	tcase_add_test(tc, untimed_and_counted_tests_end_at_the_duration_cap);
	tcase_add_test(tc, streams_above_the_cap_are_lowered);
	tcase_add_test(tc, rate_above_the_cap_or_unlimited_is_paced_at_the_cap);
	tcase_add_test(tc, the_rate_cap_counts_the_streams_the_streams_cap_left);
	tcase_add_test(tc, byte_bounds);
	tcase_add_test(tc, bytes_above_the_cap_become_a_count);
	tcase_add_test(tc, every_cap_at_once);
	tcase_add_test(tc, the_document_round_trips);
	tcase_add_test(tc, bad_documents_are_refused);
	tcase_add_test(tc, only_clamps_are_applied);
	suite_add_tcase(su, tc);
	return su;
}
