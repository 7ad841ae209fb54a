/*
 * check_report_json.c - the JSON reporter: the start object, interval
 * objects, the error document, finish and --json-stream events, compared
 * with the 3.21 captures byte for byte.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check_report.h"
#include "iperf.h"
#include "test_config.h"
#include "report.h"
#include "stream.h"
#include "util.h"

static void
json_mode(struct fx *f)
{
	f->t->cfg->opt.json_output = 1;
	f->t->reporter = &report_json;
}

static struct interval_result *
tcpinfo(struct interval_result *ir, int64_t retr, uint64_t cwnd,
    uint64_t wnd, uint64_t rtt, uint64_t rttvar, uint64_t reorder)
{
	ir->has_tcpinfo = 1;
	ir->retransmits = retr;
	ir->snd_cwnd = cwnd;
	ir->snd_wnd = wnd;
	ir->rtt = rtt;
	ir->rttvar = rttvar;
	ir->pmtu = 65535;
	ir->reorder = reorder;
	return ir;
}

/* tcp_json.client.json up to test_start. */
static struct iperf_stream *
tcp_client_start(struct fx *f)
{
	struct iperf_test *t;
	struct iperf_stream *sp;

	fx_init(f, 'c', FX_TCP, 0, 0, 1);
	json_mode(f);
	t = f->t;
	t->cfg->opt.server_hostname = str_dup("127.0.0.1");
	t->cfg->opt.server_port = 5410;
	t->reporter->begin(t);
	t->run.start_wall_ms = 1795312570955ULL;
	str_copy(t->run.cookie, "dfdyih5rsutbtka2355bypd44zg4upbigx4o",
	    sizeof(t->run.cookie));
	t->run.cli.ctrl_mss = 32768;
	t->run.sndbuf_actual = 16384;
	t->run.rcvbuf_actual = 131072;
	t->reporter->on_connect(t);
	sp = fx_stream(f, 5, 1);
	fx_ports(sp, 40568, 5410);
	t->reporter->on_new_stream(sp);
	t->reporter->on_test_start(t);
	return sp;
}

START_TEST(client_start_object_matches_the_tcp_capture)
{
	struct fx f;

	(void)tcp_client_start(&f);
	fx_assert_json(f.t->run.rep.json_start, want_tcp_client_start);
	fx_free(&f);
}
END_TEST

START_TEST(client_intervals_match_the_tcp_capture)
{
	struct fx f;
	struct iperf_stream *sp = tcp_client_start(&f);

	tcpinfo(fx_interval(sp, 0, 1.001088, 1.001088, 2220883968), 12,
	    2357388, 15763456, 130, 76, 6);
	f.t->reporter->interval(f.t);
	tcpinfo(fx_interval(sp, 1.001088, 2.003611, 1.002523, 2132803584), 19,
	    1440626, 21542912, 144, 151, 29);
	f.t->reporter->interval(f.t);
	fx_assert_json(f.t->run.rep.json_intervals, want_tcp_client_intervals);
	ck_assert_str_eq(fx_out(&f), ""); /* nothing printed before finish */
	fx_free(&f);
}
END_TEST

/* The CLI's -J written as the run goes: an interval taken after the
 * document was closed (a failure and a due interval timer in one loop
 * pass) writes nothing, so the output stays one JSON document. */
START_TEST(streamed_document_takes_no_interval_after_finish)
{
	struct fx f;
	struct iperf_stream *sp = tcp_client_start(&f);
	const char *out, *end = NULL;
	cJSON *doc;

	f.t->cfg->opt.json_incremental = 1; /* as the CLI asks */
	tcpinfo(fx_interval(sp, 0, 0.2, 0.2, 1000000), 0, 1, 1, 1, 1, 0);
	f.t->reporter->interval(f.t);
	f.t->reporter->error(f.t, "the control socket closed");
	f.t->reporter->finish(f.t);
	ck_assert_int_eq(f.t->run.rep.json_doc_state, 2);
	tcpinfo(fx_interval(sp, 0.2, 0.4, 0.2, 1000000), 0, 1, 1, 1, 1, 0);
	f.t->reporter->interval(f.t);
	out = fx_out(&f);
	doc = cJSON_ParseWithOpts(out, &end, 0);
	ck_assert_ptr_nonnull(doc);
	end += strspn(end, " \t\n");
	ck_assert_str_eq(end, "");
	ck_assert_int_eq(cJSON_GetArraySize(
	    cJSON_GetObjectItemCaseSensitive(doc, "intervals")), 1);
	ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(doc, "error"));
	cJSON_Delete(doc);
	fx_free(&f);
}
END_TEST

START_TEST(udp_client_intervals_match_the_capture)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_UDP, 0, 0, 1);
	json_mode(&f);
	f.t->reporter->begin(f.t);
	sp = fx_stream(&f, 5, 1);
	fx_interval(sp, 0, 1.000731, 1.000731, 1277952)->packets = 39;
	f.t->reporter->interval(f.t);
	fx_interval(sp, 1.000731, 2.0015, 1.000769, 1245184)->packets = 38;
	f.t->reporter->interval(f.t);
	fx_assert_json(f.t->run.rep.json_intervals, want_udp_client_intervals);
	fx_free(&f);
}
END_TEST

/* udp_json.server.json up to test_start. */
static struct iperf_stream *
udp_server_start(struct fx *f)
{
	struct iperf_test *t;
	struct iperf_stream *sp;

	fx_init(f, 's', FX_UDP, 0, 0, 1);
	json_mode(f);
	t = f->t;
	t->settings.rate = 10000000;
	t->reporter->server_listening(t); /* no banner in JSON mode */
	t->reporter->begin(t);
	t->run.start_wall_ms = 1795312573623ULL;
	t->reporter->on_params(t);
	str_copy(t->run.srv.peer_host, "127.0.0.1", sizeof(t->run.srv.peer_host));
	t->run.srv.peer_port = 42948;
	str_copy(t->run.cookie, "cqodabeqkgvhudksizntkpsojfj435xoco7y",
	    sizeof(t->run.cookie));
	t->reporter->on_connect(t);
	sp = fx_stream(f, 5, 0);
	fx_ports(sp, 5411, 56979);
	t->reporter->on_new_stream(sp);
	t->run.sndbuf_actual = 212992;
	t->run.rcvbuf_actual = 212992;
	t->reporter->on_test_start(t);
	return sp;
}

START_TEST(udp_server_start_repeats_the_target_bitrate)
{
	struct fx f;

	(void)udp_server_start(&f);
	fx_assert_json(f.t->run.rep.json_start, want_udp_server_start);
	ck_assert_str_eq(fx_out(&f), "");
	fx_free(&f);
}
END_TEST

START_TEST(udp_server_intervals_carry_jitter_and_loss)
{
	struct fx f;
	struct iperf_stream *sp = udp_server_start(&f);
	struct interval_result *ir;

	ir = fx_interval(sp, 0, 1.001227, 1.001227, 1277952);
	ir->packets = 39;
	ir->jitter = fx_ms_to_s(0.01101905780500646);
	f.t->reporter->interval(f.t);
	ir = fx_interval(sp, 1.001227, 2.001638, 1.000411, 1245184);
	ir->packets = 38;
	ir->jitter = fx_ms_to_s(0.023191553287465111);
	f.t->reporter->interval(f.t);
	fx_assert_json(f.t->run.rep.json_intervals, want_udp_server_intervals);
	fx_free(&f);
}
END_TEST

START_TEST(tcp_server_start_puts_buffers_before_the_timestamp)
{
	struct fx f;
	struct iperf_test *t;
	struct iperf_stream *sp;

	fx_init(&f, 's', FX_TCP, 0, 0, 1);
	json_mode(&f);
	t = f.t;
	t->settings.duration = 1;
	t->reporter->begin(t);
	t->run.start_wall_ms = 1795312746550ULL;
	t->run.sndbuf_actual = 16384;
	t->run.rcvbuf_actual = 131072;
	t->reporter->on_params(t);
	str_copy(t->run.srv.peer_host, "127.0.0.1", sizeof(t->run.srv.peer_host));
	t->run.srv.peer_port = 51128;
	str_copy(t->run.cookie, "etinpnajhwoeoqycyww6rrbgco7f6dgv55qj",
	    sizeof(t->run.cookie));
	t->run.cli.ctrl_mss = 32768; /* the server always shows 0 */
	t->reporter->on_connect(t);
	sp = fx_stream(&f, 5, 0);
	fx_ports(sp, 5473, 51136);
	t->reporter->on_new_stream(sp);
	t->reporter->on_test_start(t);
	fx_assert_json(t->run.rep.json_start, want_tcp_server_start);
	fx_free(&f);
}
END_TEST

START_TEST(error_document_keeps_duplicate_error_members)
{
	struct fx f;
	struct iperf_test *t;
	char *want;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	json_mode(&f);
	t = f.t;
	t->settings.duration = 5;
	t->cfg->opt.server_hostname = str_dup("127.0.0.1");
	t->cfg->opt.server_port = 5491;
	t->reporter->begin(t);
	t->run.start_wall_ms = 1795313245810ULL;
	str_copy(t->run.cookie, "ze3rbdggfihyrw3ioulyqggx7dojhtikuewp",
	    sizeof(t->run.cookie));
	t->run.cli.ctrl_mss = 32768;
	t->reporter->on_connect(t);
	t->reporter->error(t, "SERVER ERROR - client's requested duration "
	    "exceeds the server's maximum permitted limit");
	t->reporter->error(t, "client's requested duration exceeds the "
	    "server's maximum permitted limit");
	t->reporter->finish(t);
	want = fx_want(want_error_document);
	ck_assert_ptr_nonnull(t->run.rep.json_output_string);
	fx_assert_text(t->run.rep.json_output_string, want);
	ck_assert_uint_eq(strlen(fx_out(&f)), strlen(want) + 1);
	ck_assert_int_eq(fx_out(&f)[strlen(want)], '\n');
	free(want);
	fx_free(&f);
}
END_TEST

START_TEST(error_before_the_document_exists_is_printed_as_text)
{
	struct fx f;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	json_mode(&f);
	f.t->cfg->opt.logfile = str_dup("/tmp/x.log");
	f.t->reporter->error(f.t, "error - unable to open log file");
	fx_assert_text(fx_out(&f), "iperf3: error - unable to open log file\n");
	/* freed with the configuration (fx_free) */
	fx_free(&f);
}
END_TEST

static char cb_buf[65536];
static int cb_calls;

static void
capture_json(struct iperf_test *test, char *json)
{
	size_t n = strlen(cb_buf);

	(void)test;
	(void)snprintf(cb_buf + n, sizeof(cb_buf) - n, "%s|", json);
	cb_calls++;
}

START_TEST(finish_appends_title_extra_data_and_server_output_in_order)
{
	char keys[512];
	struct fx f;
	struct iperf_test *t;

	cb_buf[0] = '\0';
	cb_calls = 0;
	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	json_mode(&f);
	t = f.t;
	t->reporter->begin(t);
	t->settings.title = str_dup("mytitle");
	t->settings.extra_data = str_dup("hello_extra");
	t->settings.get_server_output = 1;
	t->run.ses.json_server_output = cJSON_Parse("{\"start\":{}}");
	t->run.ses.server_output_text = str_dup("text\n");
	t->reporter->error(t, "oops");
	t->json_callback = capture_json;
	t->reporter->finish(t);
	ck_assert_str_eq(fx_keys(t->run.rep.json_top, keys, sizeof(keys)),
	    "start,intervals,end,error,title,extra_data,server_output_json,"
	    "server_output_text");
	ck_assert_int_eq(cb_calls, 1);
	ck_assert_str_eq(fx_out(&f), "");
	ck_assert_ptr_nonnull(t->run.rep.json_output_string);
	ck_assert_int_eq(strncmp(cb_buf, t->run.rep.json_output_string,
	    strlen(t->run.rep.json_output_string)), 0);
	fx_free(&f);
}
END_TEST

START_TEST(json_mode_prints_no_banner_and_no_lines)
{
	struct fx f;

	fx_init(&f, 's', FX_TCP, 0, 0, 1);
	json_mode(&f);
	f.t->cfg->opt.verbose = 1;
	f.t->reporter->server_listening(f.t);
	f.t->reporter->begin(f.t);
	f.t->reporter->on_connect(f.t);
	ck_assert_str_eq(fx_out(&f), "");
	fx_free(&f);
}
END_TEST

/* --json-stream: the four lines of tcp_json_stream.client.jsonl. */
START_TEST(json_stream_emits_start_interval_and_end_lines)
{
	struct fx f;
	struct iperf_test *t;
	struct iperf_stream *sp;
	char *want;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	json_mode(&f);
	t = f.t;
	t->cfg->opt.json_stream = 1;
	t->cfg->opt.server_hostname = str_dup("127.0.0.1");
	t->cfg->opt.server_port = 5417;
	t->reporter->begin(t);
	t->run.start_wall_ms = 1795312590543ULL;
	str_copy(t->run.cookie, "kgbjaocczri2u3dld7xlbu6yjwa4g3434cm5",
	    sizeof(t->run.cookie));
	t->run.cli.ctrl_mss = 32768;
	t->run.sndbuf_actual = 16384;
	t->run.rcvbuf_actual = 131072;
	t->reporter->on_connect(t);
	sp = fx_stream(&f, 5, 1);
	fx_ports(sp, 41232, 5417);
	t->reporter->on_new_stream(sp);
	t->reporter->on_test_start(t);
	tcpinfo(fx_interval(sp, 0, 1.000573, 1.000573, 1683619840), 12,
	    1047728, 148480, 116, 28, 14);
	t->reporter->interval(t);
	tcpinfo(fx_interval(sp, 1.000573, 2.002786, 1.002213, 1776418816), 2,
	    1833524, 1655808, 112, 101, 15);
	t->reporter->interval(t);
	fx_final(sp, 2.002786, 3460038656);
	sp->retransmits = 14;
	sp->reorder = 15;
	sp->max_snd_cwnd = 1833524;
	sp->max_snd_wnd = 1655808;
	sp->max_rtt = 116;
	sp->min_rtt = 112;
	sp->rtt_sum = 228;
	sp->rtt_samples = 2;
	fx_peer(sp, 3460038656, 2.003058, -1);
	t->peer_has_retransmits = -1;
	t->run.cpu_util[0] = 28.742159092212216;
	t->run.cpu_util[1] = 0;
	t->run.cpu_util[2] = 28.742059374761613;
	t->run.remote_cpu_util[0] = 66.2501085826741;
	t->run.remote_cpu_util[1] = 2.2784888486841779;
	t->run.remote_cpu_util[2] = 63.971420041715717;
	t->run.congestion_used = str_dup("bbr");
	t->run.remote_congestion_used = str_dup("bbr");
	t->reporter->summary(t);
	t->reporter->finish(t);
	want = fx_want(want_tcp_stream_lines);
	ck_assert_int_eq(fx_out(&f)[strlen(want)], '\n');
	ck_assert_int_eq(fx_out(&f)[strlen(want) + 1], '\0');
	f.buf[strlen(want)] = '\0'; /* the capture text has no final newline */
	fx_assert_text(f.buf, want);
	ck_assert_ptr_null(t->run.rep.json_output_string);
	ck_assert_int_eq(cJSON_GetArraySize(t->run.rep.json_intervals), 0);
	free(want);
	fx_free(&f);
}
END_TEST

START_TEST(json_stream_error_gives_exactly_two_lines)
{
	struct fx f;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	json_mode(&f);
	f.t->cfg->opt.json_stream = 1;
	f.t->settings.title = str_dup("not an event");
	f.t->reporter->begin(f.t);
	f.t->reporter->error(f.t, "unable to connect to server - server may "
	    "have stopped running or use a different port, firewall issue, "
	    "etc.: Connection refused");
	f.t->reporter->error(f.t, "second");
	f.t->reporter->finish(f.t);
	fx_assert_text(fx_out(&f), "{\"event\":\"error\",\"data\":\"unable to "
	    "connect to server - server may have stopped running or use a "
	    "different port, firewall issue, etc.: Connection refused\"}\n"
	    "{\"event\":\"end\",\"data\":{}}\n");
	fx_free(&f);
}
END_TEST

START_TEST(json_stream_full_output_follows_the_end_line_with_the_document)
{
	struct fx f;
	const char *out;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	json_mode(&f);
	f.t->cfg->opt.json_stream = 1;
	f.t->cfg->opt.json_stream_full_output = 1;
	f.t->settings.get_server_output = 1;
	f.t->run.ses.server_output_text = str_dup("srv\n");
	f.t->reporter->begin(f.t);
	f.t->reporter->finish(f.t);
	static const char lines[] = "{\"event\":\"server_output_text\","
	    "\"data\":\"srv\\n\"}\n{\"event\":\"end\",\"data\":{}}\n{\n"
	    "\t\"start\":\t{\n";

	out = fx_out(&f);
	ck_assert_int_eq(strncmp(out, lines, strlen(lines)), 0);
	ck_assert_ptr_nonnull(f.t->run.rep.json_output_string);
	ck_assert_ptr_nonnull(strstr(out, "\"server_output_text\":\t\"srv\\n\"\n}\n"));
	fx_free(&f);
}
END_TEST

START_TEST(json_stream_server_keeps_intervals_for_the_client)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 's', FX_TCP, 0, 0, 1);
	json_mode(&f);
	f.t->cfg->opt.json_stream = 1;
	f.t->settings.get_server_output = 1;
	f.t->reporter->begin(f.t);
	sp = fx_stream(&f, 5, 0);
	fx_interval(sp, 0, 1, 1, 1000);
	f.t->reporter->interval(f.t);
	ck_assert_int_eq(cJSON_GetArraySize(f.t->run.rep.json_intervals), 1);
	ck_assert_ptr_nonnull(strstr(fx_out(&f), "{\"event\":\"interval\","
	    "\"data\":{\"streams\":[{\"socket\":5,\"start\":0,\"end\":1,"
	    "\"seconds\":1,\"bytes\":1000,\"bits_per_second\":8000,"
	    "\"omitted\":false,\"sender\":false}],\"sum\":{\"start\":0,"
	    "\"end\":1,\"seconds\":1,\"bytes\":1000,\"bits_per_second\":8000,"
	    "\"omitted\":false,\"sender\":false}}}\n"));
	fx_free(&f);
}
END_TEST

START_TEST(json_stream_events_go_to_the_callback_one_per_line)
{
	struct fx f;

	cb_buf[0] = '\0';
	cb_calls = 0;
	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	json_mode(&f);
	f.t->cfg->opt.json_stream = 1;
	f.t->json_callback = capture_json;
	f.t->reporter->begin(f.t);
	f.t->reporter->error(f.t, "x");
	f.t->reporter->finish(f.t);
	ck_assert_int_eq(cb_calls, 2);
	ck_assert_str_eq(cb_buf, "{\"event\":\"error\",\"data\":\"x\"}|"
	    "{\"event\":\"end\",\"data\":{}}|");
	ck_assert_str_eq(fx_out(&f), "");
	fx_free(&f);
}
END_TEST

TCase *
report_json_tcase(void)
{
	TCase *tc = tcase_create("json");

	tcase_add_test(tc, client_start_object_matches_the_tcp_capture);
	tcase_add_test(tc, client_intervals_match_the_tcp_capture);
	tcase_add_test(tc, streamed_document_takes_no_interval_after_finish);
	tcase_add_test(tc, udp_client_intervals_match_the_capture);
	tcase_add_test(tc, udp_server_start_repeats_the_target_bitrate);
	tcase_add_test(tc, udp_server_intervals_carry_jitter_and_loss);
	tcase_add_test(tc, tcp_server_start_puts_buffers_before_the_timestamp);
	tcase_add_test(tc, error_document_keeps_duplicate_error_members);
	tcase_add_test(tc, error_before_the_document_exists_is_printed_as_text);
	tcase_add_test(tc, finish_appends_title_extra_data_and_server_output_in_order);
	tcase_add_test(tc, json_mode_prints_no_banner_and_no_lines);
	tcase_add_test(tc, json_stream_emits_start_interval_and_end_lines);
	tcase_add_test(tc, json_stream_error_gives_exactly_two_lines);
	tcase_add_test(tc, json_stream_full_output_follows_the_end_line_with_the_document);
	tcase_add_test(tc, json_stream_server_keeps_intervals_for_the_client);
	tcase_add_test(tc, json_stream_events_go_to_the_callback_one_per_line);
	return tc;
}
