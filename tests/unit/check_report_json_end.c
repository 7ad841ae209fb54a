/*
 * check_report_json_end.c - the JSON "end" object against the 3.21
 * captures: TCP and UDP, client and server, -R, --bidir, UDP --bidir -P 2,
 * plus key orders the captures do not show (-F, -P 2 sums).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check_report.h"
#include "iperf.h"
#include "test_config.h"
#include "report.h"
#include "report_int.h"
#include "stream.h"
#include "util.h"

static void
json_mode(struct fx *f)
{
	f->t->cfg->opt.json_output = 1;
	f->t->reporter = &report_json;
	f->t->reporter->begin(f->t);
}

static void
set_cpu(struct iperf_test *t, const double local[3], const double remote[3])
{
	int i;

	for (i = 0; i < 3; i++) {
		t->run.cpu_util[i] = local[i];
		t->run.remote_cpu_util[i] = remote[i];
	}
}

static void
tcp_sender_info(struct iperf_stream *sp, uint64_t reorder, uint64_t cwnd,
    uint64_t wnd, uint64_t max_rtt, uint64_t min_rtt, uint64_t mean_rtt)
{
	sp->reorder = reorder;
	sp->max_snd_cwnd = cwnd;
	sp->max_snd_wnd = wnd;
	sp->max_rtt = max_rtt;
	sp->min_rtt = min_rtt;
	sp->rtt_sum = 2 * mean_rtt;
	sp->rtt_samples = 2;
}

/* summary() replaces the skeleton's "end" and prints nothing. */
static const cJSON *
summary_end(struct fx *f)
{
	const cJSON *end;

	f->t->reporter->summary(f->t);
	end = cJSON_GetObjectItemCaseSensitive(f->t->run.rep.json_top, "end");
	ck_assert_ptr_eq(end, f->t->run.rep.json_end);
	ck_assert_str_eq(fx_out(f), "");
	return end;
}

START_TEST(tcp_client_end_matches_the_capture)
{
	static const double local[3] = { 86.060891658127076,
		0.41947475895909225, 85.641367032934156 };
	static const double remote[3] = { 36.5217790494192,
		0.61140914513993849, 35.910320005548741 };
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	json_mode(&f);
	sp = fx_stream(&f, 5, 1);
	fx_final(sp, 2.003611, 4353687552);
	sp->retransmits = 31;
	tcp_sender_info(sp, 29, 2357388, 21542912, 144, 130, 137);
	fx_peer(sp, 4353818624, 2.004041, -1);
	f.t->peer_has_retransmits = -1;
	set_cpu(f.t, local, remote);
	f.t->run.congestion_used = str_dup("bbr");
	f.t->run.remote_congestion_used = str_dup("bbr");
	fx_assert_json(summary_end(&f), want_tcp_client_end);
	fx_free(&f);
}
END_TEST

START_TEST(tcp_server_end_has_zero_peer_halves)
{
	static const double local[3] = { 63.497162233946945,
		2.4294752229673326, 61.067187755868247 };
	static const double remote[3] = { 1, 2, 3 }; /* not known yet */
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 's', FX_TCP, 0, 0, 1);
	json_mode(&f);
	sp = fx_stream(&f, 5, 0);
	fx_final(sp, 1.00143, 1774977024);
	fx_peer(sp, 1774977024, 1.001378, 28);
	f.t->peer_has_retransmits = 1;
	set_cpu(f.t, local, remote);
	f.t->run.congestion_used = str_dup("bbr");
	f.t->run.remote_congestion_used = str_dup("cubic");
	fx_assert_json(summary_end(&f), want_tcp_server_end);
	fx_free(&f);
}
END_TEST

START_TEST(tcp_reverse_client_end_takes_sender_figures_from_the_peer)
{
	static const double local[3] = { 34.995257445810083,
		1.2824864962009646, 33.712521341493854 };
	static const double remote[3] = { 81.216362967328521,
		0.82922733423680273, 80.387085772750524 };
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 1, 0, 1);
	json_mode(&f);
	sp = fx_stream(&f, 5, 0);
	fx_final(sp, 2.001213, 3393716224);
	fx_peer(sp, 3400794112, 2.00555, 19);
	f.t->peer_has_retransmits = 1;
	set_cpu(f.t, local, remote);
	f.t->run.congestion_used = str_dup("bbr");
	f.t->run.remote_congestion_used = str_dup("bbr");
	fx_assert_json(summary_end(&f), want_tcp_reverse_end);
	fx_free(&f);
}
END_TEST

START_TEST(tcp_bidir_client_end_adds_reverse_sums)
{
	static const double local[3] = { 53.098294692469814,
		1.5746659931369644, 51.5234793947191 };
	static const double remote[3] = { 64.3120548704724,
		0.89280194017140047, 63.419053488339628 };
	struct fx f;
	struct iperf_stream *tx, *rx;

	fx_init(&f, 'c', FX_TCP, 0, 1, 1);
	json_mode(&f);
	tx = fx_stream(&f, 5, 1);
	rx = fx_stream(&f, 7, 0);
	fx_final(tx, 2.003309, 2656174080);
	tcp_sender_info(tx, 4, 4452844, 28921856, 451, 114, 282);
	fx_peer(tx, 2656174080, 2.005572, -1);
	fx_final(rx, 2.003309, 1794244608);
	tcp_sender_info(rx, 0, 360448, 65536, 50, 50, 50);
	fx_peer(rx, 1802502144, 2.005572, 16);
	f.t->peer_has_retransmits = 1;
	set_cpu(f.t, local, remote);
	f.t->run.congestion_used = str_dup("bbr");
	f.t->run.remote_congestion_used = str_dup("bbr");
	fx_assert_json(summary_end(&f), want_tcp_bidir_end);
	fx_free(&f);
}
END_TEST

START_TEST(udp_client_end_matches_the_capture)
{
	static const double local[3] = { 0.55120174363301822, 0,
		0.55110187919898734 };
	static const double remote[3] = { 0.13841041309839028,
		0.069180231736293951, 0.069180231736293951 };
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_UDP, 0, 0, 1);
	json_mode(&f);
	sp = fx_stream(&f, 5, 1);
	fx_final(sp, 2.0015, 2523136);
	sp->final.packets = 77;
	fx_peer(sp, 2523136, 2.002002, -1);
	sp->peer.packets = 77;
	sp->peer.jitter = fx_ms_to_s(0.023191553287465111);
	set_cpu(f.t, local, remote);
	fx_assert_json(summary_end(&f), want_udp_client_end);
	fx_free(&f);
}
END_TEST

START_TEST(udp_server_end_reports_zero_sent_bytes)
{
	static const double local[3] = { 0.13841041309839028,
		0.069180231736293951, 0.069180231736293951 };
	static const double remote[3] = { 9, 9, 9 };
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 's', FX_UDP, 0, 0, 1);
	json_mode(&f);
	sp = fx_stream(&f, 5, 0);
	fx_final(sp, 2.002002, 2523136);
	sp->final.packets = 77;
	sp->final.jitter = fx_ms_to_s(0.023191553287465111);
	set_cpu(f.t, local, remote);
	fx_assert_json(summary_end(&f), want_udp_server_end);
	fx_free(&f);
}
END_TEST

START_TEST(udp_bidir_parallel_client_end_interleaves_group_sums)
{
	static const double local[3] = { 0.43732883338419709, 0,
		0.43727896692657064 };
	static const double remote[3] = { 0.33817308585938832,
		0.0330778047929839, 0.3049453816489136 };
	static const double jit_ms[4] = { 0.18899734316399752,
		0.13854278156327185, 0.048983224305496113, 0.2540893794112512 };
	static const int socks[4] = { 5, 7, 9, 12 };
	struct fx f;
	int i;

	fx_init(&f, 'c', FX_UDP, 0, 1, 2);
	json_mode(&f);
	for (i = 0; i < 4; i++) {
		struct iperf_stream *sp = fx_stream(&f, socks[i], i < 2);

		fx_final(sp, 2.001172, 524288);
		sp->final.packets = 16;
		fx_peer(sp, 524288, 2.001298, -1);
		sp->peer.packets = 16;
		if (sp->sender)
			sp->peer.jitter = fx_ms_to_s(jit_ms[i]);
		else
			sp->final.jitter = fx_ms_to_s(jit_ms[i]);
	}
	set_cpu(f.t, local, remote);
	fx_assert_json(summary_end(&f), want_udp_bidir_end);
	fx_free(&f);
}
END_TEST

START_TEST(parallel_tcp_end_lists_every_stream_then_the_sums)
{
	char keys[512];
	struct fx f;
	const cJSON *end, *arr;

	fx_init(&f, 'c', FX_TCP, 0, 0, 2);
	json_mode(&f);
	fx_final(fx_stream(&f, 5, 1), 2.0, 100);
	fx_final(fx_stream(&f, 7, 1), 2.0, 200);
	f.t->run.congestion_used = str_dup("cubic");
	end = summary_end(&f);
	ck_assert_str_eq(fx_keys(end, keys, sizeof(keys)), "streams,sum_sent,"
	    "sum_received,cpu_utilization_percent,sender_tcp_congestion");
	arr = cJSON_GetObjectItemCaseSensitive(end, "streams");
	ck_assert_int_eq(cJSON_GetArraySize(arr), 2);
	ck_assert_str_eq(fx_keys(cJSON_GetArrayItem(arr, 1), keys,
	    sizeof(keys)), "sender,receiver");
	ck_assert_str_eq(fx_keys(cJSON_GetObjectItemCaseSensitive(end,
	    "sum_sent"), keys, sizeof(keys)),
	    "start,end,seconds,bytes,bits_per_second,retransmits,sender");
	ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(
	    end, "sum_sent"), "bytes")->valuedouble == 300, 1);
	fx_free(&f);
}
END_TEST

START_TEST(file_transfer_adds_a_diskfile_object_between_halves)
{
	char keys[512];
	struct fx f;
	const cJSON *s, *d;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	json_mode(&f);
	f.t->cfg->opt.diskfile_name = str_dup("/path/to/file50M.bin");
	f.t->diskfile_size = 50000000;
	fx_final(fx_stream(&f, 5, 1), 1.0, 50000000);
	fx_peer(f.t->run.streams, 49898645, 1.0, -1);
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(summary_end(&f), "streams"),
	    0);
	ck_assert_str_eq(fx_keys(s, keys, sizeof(keys)),
	    "sender,diskfile,receiver");
	d = cJSON_GetObjectItemCaseSensitive(s, "diskfile");
	ck_assert_str_eq(fx_keys(d, keys, sizeof(keys)), "sent,received,size,"
	    "percent_sent,percent_received,filename");
	ck_assert_int_eq((int)cJSON_GetObjectItem(d, "percent_sent")->valuedouble,
	    100);
	ck_assert_int_eq((int)cJSON_GetObjectItem(d,
	    "percent_received")->valuedouble, 99);
	ck_assert_str_eq(cJSON_GetObjectItem(d, "filename")->valuestring,
	    "/path/to/file50M.bin");
	fx_free(&f);
}
END_TEST

START_TEST(interval_objects_have_the_documented_keys)
{
	char keys[512];
	struct fx f;
	cJSON *iv;
	const cJSON *arr;

	fx_init(&f, 'c', FX_UDP, 0, 1, 1);
	json_mode(&f);
	fx_interval(fx_stream(&f, 5, 1), 0, 1, 1, 1000)->packets = 3;
	fx_interval(fx_stream(&f, 7, 0), 0, 1, 1, 1000)->packets = 3;
	iv = report_json_interval(f.t);
	ck_assert_str_eq(fx_keys(iv, keys, sizeof(keys)),
	    "streams,sum,sum_bidir_reverse");
	arr = cJSON_GetObjectItem(iv, "streams");
	ck_assert_str_eq(fx_keys(cJSON_GetArrayItem(arr, 0), keys,
	    sizeof(keys)), "socket,start,end,seconds,bytes,bits_per_second,"
	    "packets,omitted,sender");
	ck_assert_str_eq(fx_keys(cJSON_GetArrayItem(arr, 1), keys,
	    sizeof(keys)), "socket,start,end,seconds,bytes,bits_per_second,"
	    "jitter_ms,lost_packets,packets,lost_percent,omitted,sender");
	ck_assert_str_eq(fx_keys(cJSON_GetObjectItem(iv, "sum"), keys,
	    sizeof(keys)), "start,end,seconds,bytes,bits_per_second,packets,"
	    "omitted,sender");
	ck_assert_str_eq(fx_keys(cJSON_GetObjectItem(iv, "sum_bidir_reverse"),
	    keys, sizeof(keys)), "start,end,seconds,bytes,bits_per_second,"
	    "jitter_ms,lost_packets,packets,lost_percent,omitted,sender");
	cJSON_Delete(iv);
	fx_free(&f);
}
END_TEST

START_TEST(tcp_receiver_intervals_have_no_tcp_info_keys)
{
	char keys[512];
	struct fx f;
	cJSON *iv;

	fx_init(&f, 'c', FX_TCP, 0, 1, 1);
	json_mode(&f);
	fx_interval(fx_stream(&f, 5, 1), 0, 1, 1, 1000);
	fx_interval(fx_stream(&f, 7, 0), 0, 1, 1, 1000);
	iv = report_json_interval(f.t);
	ck_assert_str_eq(fx_keys(cJSON_GetArrayItem(cJSON_GetObjectItem(iv,
	    "streams"), 1), keys, sizeof(keys)), "socket,start,end,seconds,"
	    "bytes,bits_per_second,omitted,sender");
	ck_assert_str_eq(fx_keys(cJSON_GetObjectItem(iv, "sum"), keys,
	    sizeof(keys)), "start,end,seconds,bytes,bits_per_second,"
	    "retransmits,omitted,sender");
	ck_assert_str_eq(fx_keys(cJSON_GetObjectItem(iv, "sum_bidir_reverse"),
	    keys, sizeof(keys)), "start,end,seconds,bytes,bits_per_second,"
	    "omitted,sender");
	cJSON_Delete(iv);
	fx_free(&f);
}
END_TEST

START_TEST(omitted_intervals_say_so_in_json)
{
	struct fx f;
	cJSON *iv;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	json_mode(&f);
	fx_interval(fx_stream(&f, 5, 1), 0, 1, 1, 1000)->omitted = 1;
	iv = report_json_interval(f.t);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(
	    cJSON_GetObjectItem(iv, "streams"), 0), "omitted")));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(iv,
	    "sum"), "omitted")));
	cJSON_Delete(iv);
	fx_free(&f);
}
END_TEST

TCase *
report_json_end_tcase(void)
{
	TCase *tc = tcase_create("json_end");

	tcase_add_test(tc, tcp_client_end_matches_the_capture);
	tcase_add_test(tc, tcp_server_end_has_zero_peer_halves);
	tcase_add_test(tc, tcp_reverse_client_end_takes_sender_figures_from_the_peer);
	tcase_add_test(tc, tcp_bidir_client_end_adds_reverse_sums);
	tcase_add_test(tc, udp_client_end_matches_the_capture);
	tcase_add_test(tc, udp_server_end_reports_zero_sent_bytes);
	tcase_add_test(tc, udp_bidir_parallel_client_end_interleaves_group_sums);
	tcase_add_test(tc, parallel_tcp_end_lists_every_stream_then_the_sums);
	tcase_add_test(tc, file_transfer_adds_a_diskfile_object_between_halves);
	tcase_add_test(tc, interval_objects_have_the_documented_keys);
	tcase_add_test(tc, tcp_receiver_intervals_have_no_tcp_info_keys);
	tcase_add_test(tc, omitted_intervals_say_so_in_json);
	return tc;
}
