/*
 * check_report_text_misc.c - the text reporter: prefixes (-T,
 * --timestamps), interrupted runs, -F, --get-server-output, errors.
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

START_TEST(title_prefixes_every_client_print_call)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	f.t->settings.title = str_dup("mytitle");
	sp = fx_client_start(&f, 5462, 48930);
	fx_cw(fx_interval(sp, 0, 1, 1, 1986520352), 6, 1.5 * MIB);
	fx_tick(&f);
	fx_final(sp, 1.0, 1986520352);
	sp->retransmits = 6;
	fx_peer(sp, 1986520352, 1.0, -1);
	fx_finish(&f);
	fx_assert_text(fx_out(&f),
	    "mytitle:  Connecting to host 127.0.0.1, port 5462\n"
	    "mytitle:  [  5] local 127.0.0.1 port 48930 connected to "
	    "127.0.0.1 port 5462\n"
	    "mytitle:  " LINE_HDR_CWND
	    "mytitle:  [  5]   0.00-1.00   sec  1.85 GBytes  15.9 Gbits/sec"
	    "    6   1.50 MBytes       \n"
	    "mytitle:  " SEP
	    "mytitle:  " LINE_HDR_RETR
	    "mytitle:  [  5]   0.00-1.00   sec  1.85 GBytes  15.9 Gbits/sec"
	    "    6            sender\n"
	    "mytitle:  [  5]   0.00-1.00   sec  1.85 GBytes  15.9 Gbits/sec"
	    "                  receiver\n"
	    "mytitle:  \n"
	    "mytitle:  iperf Done.\n");
	fx_free(&f);
}
END_TEST

START_TEST(verbose_uname_line_gets_the_prefixes_twice)
{
	char info[512], want[1024];
	struct fx f;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	f.t->cfg->opt.verbose = 1;
	f.t->cfg->opt.timestamps = 1;
	f.t->cfg->opt.timestamp_format = str_dup("[ts]");
	f.t->settings.title = str_dup("mytitle");
	f.t->reporter->begin(f.t);
	get_system_info(info, sizeof(info));
	(void)snprintf(want, sizeof(want), "[ts]mytitle:  iperf 3.21 (iperf3-compat " PACKAGE_VERSION ")\n"
	    "[ts]mytitle:  [ts]mytitle:  %s\n", info);
	fx_assert_text(fx_out(&f), want);
	fx_free(&f);
}
END_TEST

START_TEST(server_lines_never_get_the_title)
{
	struct fx f;

	fx_init(&f, 's', FX_TCP, 0, 0, 1);
	f.t->settings.title = str_dup("mytitle");
	f.t->cfg->opt.timestamps = 1;
	f.t->cfg->opt.timestamp_format = str_dup("T ");
	f.t->cfg->opt.server_port = 5424;
	f.t->server_test_number = 1;
	f.t->reporter->server_listening(f.t);
	fx_assert_text(fx_out(&f), "T " RULE
	    "T Server listening on 5424 (test #1)\n"
	    "T " RULE);
	fx_free(&f);
}
END_TEST

START_TEST(interrupted_client_shows_an_empty_receiver_and_no_done)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	sp = fx_client_start(&f, 5441, 36538);
	fx_cw(fx_interval(sp, 0, 1, 1, 2102707806), 0, 895 * KIB);
	fx_tick(&f);
	fx_cw(fx_interval(sp, 1, 2, 1, 2091089114), 0, 895 * KIB);
	fx_tick(&f);
	fx_cw(fx_interval(sp, 2, 2.5, 0.502, 833 * MIB), 2, 895 * KIB);
	fx_tick(&f);
	fx_final(sp, 2.5, 5068061408);
	sp->retransmits = 2;
	f.t->run.abort = ABORT_INTERRUPT;
	fx_finish(&f);
	fx_assert_text(strstr(fx_out(&f), "[ ID]"),
	    LINE_HDR_CWND
	    "[  5]   0.00-1.00   sec  1.96 GBytes  16.8 Gbits/sec    0    895 "
	    "KBytes       \n"
	    "[  5]   1.00-2.00   sec  1.95 GBytes  16.7 Gbits/sec    0    895 "
	    "KBytes       \n"
	    "[  5]   2.00-2.50   sec   833 MBytes  13.9 Gbits/sec    2    895 "
	    "KBytes       \n"
	    SEP
	    LINE_HDR_RETR
	    "[  5]   0.00-2.50   sec  4.72 GBytes  16.2 Gbits/sec    2        "
	    "    sender\n"
	    "[  5]   0.00-2.50   sec  0.00 Bytes  0.00 bits/sec               "
	    "   receiver\n");
	fx_free(&f);
}
END_TEST

START_TEST(file_transfer_line_follows_the_sender_row)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	f.t->cfg->opt.diskfile_name = str_dup("/path/to/file50M.bin");
	f.t->diskfile_size = 50000000;
	sp = fx_client_start(&f, 5466, 41098);
	fx_cw(fx_interval(sp, 0, 1, 1, 50013572), 0, 767 * KIB);
	fx_tick(&f);
	fx_final(sp, 1.002, 50013572);
	fx_peer(sp, 49898645, 1.0, -1);
	fx_finish(&f);
	fx_assert_text(strstr(fx_out(&f), "[ ID]"),
	    LINE_HDR_CWND
	    "[  5]   0.00-1.00   sec  47.7 MBytes   400 Mbits/sec    0    767 "
	    "KBytes       \n"
	    SEP
	    LINE_HDR_RETR
	    "[  5]   0.00-1.00   sec  47.7 MBytes   399 Mbits/sec    0        "
	    "    sender\n"
	    "        Sent 47.7 MByte / 47.7 MByte (100%) of "
	    "/path/to/file50M.bin\n"
	    "[  5]   0.00-1.00   sec  47.6 MBytes   399 Mbits/sec             "
	    "     receiver\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

#define GSO_SERVER_TEXT \
	"Accepted connection from 127.0.0.1, port 34424\n" \
	"[  5] local 127.0.0.1 port 5423 connected to 127.0.0.1 port 34428\n" \
	LINE_HDR_PLAIN \
	"[  5]   0.00-1.00   sec  2.12 GBytes  18.2 Gbits/sec                  \n" \
	"[  5]   1.00-1.00   sec  1.75 MBytes  12.0 Gbits/sec                  \n" \
	SEP \
	LINE_HDR_PLAIN \
	"[  5]   0.00-1.00   sec  2.12 GBytes  18.2 Gbits/sec                  " \
	"receiver\n"

START_TEST(server_captures_its_report_lines_for_the_client)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 's', FX_TCP, 0, 0, 1);
	f.t->cfg->opt.server_port = 5423;
	f.t->server_test_number = 1;
	f.t->reporter->server_listening(f.t);
	f.t->run.srv.capture_output = 1; /* the core starts capturing after it */
	str_copy(f.t->run.srv.peer_host, "127.0.0.1", sizeof(f.t->run.srv.peer_host));
	f.t->run.srv.peer_port = 34424;
	f.t->reporter->begin(f.t);
	f.t->reporter->on_connect(f.t);
	sp = fx_stream(&f, 5, 0);
	fx_ports(sp, 5423, 34428);
	f.t->reporter->on_new_stream(sp);
	fx_interval(sp, 0, 1, 1, 2276107180);
	fx_tick(&f);
	fx_interval(sp, 1, 1, 0.0012233, 1835008);
	fx_tick(&f);
	fx_final(sp, 1.0, 2276107180);
	fx_finish(&f);
	ck_assert_ptr_nonnull(f.t->run.rep.server_outbuf);
	fx_assert_text(f.t->run.rep.server_outbuf, GSO_SERVER_TEXT);
	fx_free(&f);
}
END_TEST

START_TEST(client_appends_the_server_output_block)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	f.t->settings.get_server_output = 1;
	f.t->run.ses.server_output_text = str_dup(GSO_SERVER_TEXT);
	sp = fx_client_start(&f, 5423, 34428);
	fx_cw(fx_interval(sp, 0, 1, 1, 2276107180), 1, 2.12 * MIB);
	fx_tick(&f);
	fx_final(sp, 1.0, 2276107180);
	sp->retransmits = 1;
	fx_peer(sp, 2276107180, 1.0, -1);
	fx_finish(&f);
	fx_assert_text(strstr(fx_out(&f), "[ ID]"),
	    LINE_HDR_CWND
	    "[  5]   0.00-1.00   sec  2.12 GBytes  18.2 Gbits/sec    1   2.12 "
	    "MBytes       \n"
	    SEP
	    LINE_HDR_RETR
	    "[  5]   0.00-1.00   sec  2.12 GBytes  18.2 Gbits/sec    1        "
	    "    sender\n"
	    "[  5]   0.00-1.00   sec  2.12 GBytes  18.2 Gbits/sec             "
	    "     receiver\n"
	    "\n"
	    "Server output:\n"
	    GSO_SERVER_TEXT
	    "\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

START_TEST(server_output_block_gets_one_title_prefix)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	f.t->settings.title = str_dup("tt");
	f.t->settings.get_server_output = 1;
	f.t->run.ses.server_output_text = str_dup("line one\nline two\n");
	sp = fx_stream(&f, 5, 1);
	fx_final(sp, 1.0, 1000);
	fx_peer(sp, 1000, 1.0, -1);
	f.t->reporter->summary(f.t);
	ck_assert_ptr_nonnull(strstr(fx_out(&f),
	    "receiver\ntt:  \nServer output:\nline one\nline two\n\n"));
	fx_free(&f);
}
END_TEST

START_TEST(client_prints_a_json_server_output_block)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	f.t->settings.get_server_output = 1;
	f.t->run.ses.json_server_output = cJSON_Parse("{\"start\":{\"a\":1}}");
	sp = fx_stream(&f, 5, 1);
	fx_final(sp, 1.0, 1000);
	fx_peer(sp, 1000, 1.0, -1);
	fx_finish(&f);
	ck_assert_ptr_nonnull(strstr(fx_out(&f),
	    "receiver\n\nServer JSON output:\n{\n\t\"start\":\t{\n\t\t\"a\":\t1"
	    "\n\t}\n}\n\niperf Done.\n"));
	fx_free(&f);
}
END_TEST

START_TEST(starting_test_line_describes_byte_limited_runs)
{
	struct fx f;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	f.t->cfg->opt.verbose = 1;
	f.t->settings.bytes = 524288000;
	f.t->reporter->on_test_start(f.t);
	fx_assert_text(fx_out(&f), "Starting Test: protocol: TCP, 1 streams, "
	    "131072 byte blocks, omitting 0 seconds, 524288000 bytes to send, "
	    "tos 0\n");
	fx_free(&f);
}
END_TEST

START_TEST(errors_go_to_the_logfile_when_one_is_open)
{
	struct fx f;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	f.t->cfg->opt.logfile = str_dup("/tmp/x.log");
	f.t->reporter->error(f.t, "error - unable to connect");
	fx_assert_text(fx_out(&f), "iperf3: error - unable to connect\n");
	/* freed with the configuration (fx_free) */
	fx_free(&f);
}
END_TEST

START_TEST(summary_without_streams_prints_nothing)
{
	struct fx f;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	f.t->reporter->interval(f.t);
	f.t->reporter->summary(f.t);
	fx_assert_text(fx_out(&f), "");
	fx_free(&f);
}
END_TEST

TCase *
report_text_misc_tcase(void)
{
	TCase *tc = tcase_create("text_misc");

	tcase_add_test(tc, title_prefixes_every_client_print_call);
	tcase_add_test(tc, verbose_uname_line_gets_the_prefixes_twice);
	tcase_add_test(tc, server_lines_never_get_the_title);
	tcase_add_test(tc, interrupted_client_shows_an_empty_receiver_and_no_done);
	tcase_add_test(tc, file_transfer_line_follows_the_sender_row);
	tcase_add_test(tc, server_captures_its_report_lines_for_the_client);
	tcase_add_test(tc, client_appends_the_server_output_block);
	tcase_add_test(tc, server_output_block_gets_one_title_prefix);
	tcase_add_test(tc, client_prints_a_json_server_output_block);
	tcase_add_test(tc, starting_test_line_describes_byte_limited_runs);
	tcase_add_test(tc, errors_go_to_the_logfile_when_one_is_open);
	tcase_add_test(tc, summary_without_streams_prints_nothing);
	return tc;
}
