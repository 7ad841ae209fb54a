/*
 * check_sctp.c - what SCTP changes in pure code: the parameter document,
 * and the reports of an SCTP test (run on every machine, SCTP in the
 * kernel or not).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check_main.h"
#include "check_report.h"
#include "iperf.h"
#include "test_config.h"
#include "params.h"
#include "proto.h"
#include "report.h"
#include "stream.h"

START_TEST(sctp_is_its_own_first_key)
{
	struct iperf_test *t = iperf_new_test();
	cJSON *j;
	char *s;

	iperf_defaults(t);
	t->cfg->opt.no_clamp = 1; /* the stock document (ext.h "clamp") */
	t->settings.protocol_id = Psctp;
	t->settings.blksize = DEFAULT_SCTP_BLKSIZE;
	t->settings.duration = 1;
	j = params_encode(t);
	s = cJSON_PrintUnformatted(j);
	ck_assert_str_eq(s, "{\"sctp\":true,\"omit\":0,\"time\":1,\"num\":0,"
			    "\"blockcount\":0,\"parallel\":1,\"len\":65536,"
			    "\"pacing_timer\":1000,\"client_version\":\"3.21\"}");
	free(s);
	cJSON_Delete(j);
	iperf_free_test(t);
}
END_TEST

START_TEST(a_server_takes_sctp_only_if_built_with_it)
{
	struct iperf_test *t = iperf_new_test();
	cJSON *j = cJSON_Parse("{\"sctp\":true,\"parallel\":2}");

	iperf_defaults(t);
	ck_assert_int_eq(params_decode(t, j), 0);
#ifdef HAVE_SCTP
	ck_assert_int_eq(t->settings.protocol_id, Psctp);
	ck_assert_int_eq(t->settings.blksize, DEFAULT_SCTP_BLKSIZE);
#else
	/* Without SCTP a server silently stays on TCP (as upstream). */
	ck_assert_int_eq(t->settings.protocol_id, Ptcp);
#endif
	cJSON_Delete(j);
	iperf_free_test(t);
}
END_TEST

#ifdef HAVE_SCTP
static struct iperf_stream *
sctp_client(struct fx *f)
{
	struct iperf_stream *sp;

	fx_init(f, 'c', FX_TCP, 0, 0, 1);
	f->t->proto = &proto_sctp;
	f->t->settings.protocol_id = Psctp;
	f->t->settings.blksize = DEFAULT_SCTP_BLKSIZE;
	f->t->sender_has_retransmits = 0; /* only TCP reads retransmits */
	sp = fx_stream(f, 5, 1);
	fx_ports(sp, 40000, 5201);
	return sp;
}

START_TEST(sctp_sending_streams_always_carry_the_retransmit_keys)
{
	struct fx f;
	struct iperf_stream *sp = sctp_client(&f);
	cJSON *iv, *st, *it;
	const char *keys[] = { "socket", "start", "end", "seconds", "bytes",
		"bits_per_second", "retransmits", "snd_cwnd", "snd_wnd", "rtt",
		"rttvar", "pmtu", "reorder", "omitted", "sender" };
	size_t i = 0;

	f.t->cfg->opt.json_output = 1;
	f.t->reporter = &report_json;
	f.t->reporter->begin(f.t);
	f.t->reporter->on_test_start(f.t);
	(void)fx_interval(sp, 0, 1.0, 1.0, 1000000);
	f.t->reporter->interval(f.t);
	iv = cJSON_GetArrayItem(f.t->run.rep.json_intervals, 0);
	st = cJSON_GetArrayItem(cJSON_GetObjectItem(iv, "streams"), 0);
	cJSON_ArrayForEach(it, st)
	{
		ck_assert_uint_lt(i, sizeof(keys) / sizeof(keys[0]));
		ck_assert_str_eq(it->string, keys[i]);
		i++;
	}
	ck_assert_uint_eq(i, sizeof(keys) / sizeof(keys[0]));
	it = cJSON_GetObjectItem(cJSON_GetObjectItem(f.t->run.rep.json_start,
				     "test_start"), "protocol");
	ck_assert_str_eq(it->valuestring, "SCTP");
	fx_free(&f);
}
END_TEST

START_TEST(sctp_text_header_has_no_retr_column_but_rows_do)
{
	struct fx f;
	struct iperf_stream *sp = sctp_client(&f);
	const char *out;

	f.t->reporter = &report_text;
	(void)fx_interval(sp, 0, 1.0, 1.0, 1000000);
	f.t->reporter->interval(f.t);
	out = fx_out(&f);
	ck_assert_ptr_nonnull(strstr(out,
	    "[ ID] Interval           Transfer     Bitrate\n"));
	ck_assert_ptr_null(strstr(out, "Retr"));
	ck_assert_ptr_nonnull(strstr(out, "    0   0.00 Bytes       \n"));
	fx_free(&f);
}
END_TEST
#endif

Suite *
make_suite(void)
{
	Suite *s = suite_create("sctp");
	TCase *tc = tcase_create("pure");

	tcase_add_test(tc, sctp_is_its_own_first_key);
	tcase_add_test(tc, a_server_takes_sctp_only_if_built_with_it);
#ifdef HAVE_SCTP
	tcase_add_test(tc, sctp_sending_streams_always_carry_the_retransmit_keys);
	tcase_add_test(tc, sctp_text_header_has_no_retr_column_but_rows_do);
#endif
	suite_add_tcase(s, tc);
	return s;
}
