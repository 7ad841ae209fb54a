/*
 * check_report_text.c - the text reporter on single-stream TCP runs.
 * Each test replays the reporter events of one 3.21 capture with figures
 * that reproduce its numbers, and compares the whole output.
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



START_TEST(client_prints_the_tcp_basic_run)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	sp = fx_client_start(&f, 5401, 43760);
	fx_cw(fx_interval(sp, 0, 1, 1, 1802383829), 0, 895 * KIB);
	fx_tick(&f);
	fx_cw(fx_interval(sp, 1, 2, 1, 1738921661), 0, 1023 * KIB);
	fx_tick(&f);
	fx_cw(fx_interval(sp, 2, 3, 1, 1877464958), 0, 1.25 * MIB);
	fx_tick(&f);
	fx_final(sp, 3.0, 5423257352);
	fx_peer(sp, 5411658792, 3.0, -1);
	f.t->peer_has_retransmits = -1;
	fx_finish(&f);
	fx_assert_text(fx_out(&f),
	    "Connecting to host 127.0.0.1, port 5401\n"
	    "[  5] local 127.0.0.1 port 43760 connected to 127.0.0.1 port "
	    "5401\n"
	    LINE_HDR_CWND
	    "[  5]   0.00-1.00   sec  1.68 GBytes  14.4 Gbits/sec    0    895 "
	    "KBytes       \n"
	    "[  5]   1.00-2.00   sec  1.62 GBytes  13.9 Gbits/sec    0   1023 "
	    "KBytes       \n"
	    "[  5]   2.00-3.00   sec  1.75 GBytes  15.0 Gbits/sec    0   1.25 "
	    "MBytes       \n"
	    SEP
	    LINE_HDR_RETR
	    "[  5]   0.00-3.00   sec  5.05 GBytes  14.5 Gbits/sec    0        "
	    "    sender\n"
	    "[  5]   0.00-3.00   sec  5.04 GBytes  14.4 Gbits/sec             "
	    "     receiver\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

START_TEST(server_prints_the_tcp_basic_run_without_peer_figures)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 's', FX_TCP, 0, 0, 1);
	sp = fx_server_start(&f, 5401, 43758, 43760);
	fx_interval(sp, 0, 1, 1, 1796133580);
	fx_tick(&f);
	fx_interval(sp, 1, 2, 1, 1738921661);
	fx_tick(&f);
	fx_interval(sp, 2, 3, 1, 1877464958);
	fx_tick(&f);
	fx_interval(sp, 3, 3, 0.0004855, 262170);
	fx_tick(&f);
	fx_final(sp, 3.0, 5411658792);
	/* Whatever the client sent, the server reports only its own side. */
	fx_peer(sp, 5423257352, 3.1, 7);
	f.t->peer_has_retransmits = 1;
	fx_finish(&f);
	fx_assert_text(fx_out(&f),
	    RULE
	    "Server listening on 5401 (test #1)\n"
	    RULE
	    "Accepted connection from 127.0.0.1, port 43758\n"
	    "[  5] local 127.0.0.1 port 5401 connected to 127.0.0.1 port "
	    "43760\n"
	    LINE_HDR_PLAIN
	    "[  5]   0.00-1.00   sec  1.67 GBytes  14.4 Gbits/sec             "
	    "     \n"
	    "[  5]   1.00-2.00   sec  1.62 GBytes  13.9 Gbits/sec             "
	    "     \n"
	    "[  5]   2.00-3.00   sec  1.75 GBytes  15.0 Gbits/sec             "
	    "     \n"
	    "[  5]   3.00-3.00   sec   256 KBytes  4.32 Gbits/sec             "
	    "     \n"
	    SEP
	    LINE_HDR_PLAIN
	    "[  5]   0.00-3.00   sec  5.04 GBytes  14.4 Gbits/sec             "
	    "     receiver\n");
	fx_free(&f);
}
END_TEST

static void
verbose_setup(struct fx *f)
{
	f->t->cfg->opt.verbose = 1;
	f->t->run.start_wall_ms = 1795312544000ULL;
	str_copy(f->t->run.cookie, "nm6w3sui6gzxupes6qm5sivefproluadofm5",
	    sizeof(f->t->run.cookie));
	f->t->run.congestion_used = str_dup("bbr");
}

START_TEST(verbose_server_prints_time_cookie_and_unavailable_sender)
{
	char want[4096];
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 's', FX_TCP, 0, 0, 1);
	verbose_setup(&f);
	str_copy(f.t->run.srv.peer_host, "127.0.0.1", sizeof(f.t->run.srv.peer_host));
	f.t->run.srv.peer_port = 44132;
	f.t->reporter->begin(f.t);
	f.t->run.start_wall_ms = 1795312544000ULL;
	f.t->reporter->on_params(f.t);
	f.t->reporter->on_connect(f.t);
	sp = fx_stream(&f, 5, 0);
	fx_ports(sp, 5402, 44134);
	f.t->reporter->on_new_stream(sp);
	f.t->reporter->on_test_start(f.t);
	fx_interval(sp, 0, 1, 1, 2093750922);
	fx_tick(&f);
	fx_interval(sp, 1, 2, 1, 1943751874);
	fx_tick(&f);
	fx_interval(sp, 2, 2, 0.00238, 5117050);
	fx_tick(&f);
	fx_final(sp, 2.0, 4042640651);
	fx_finish(&f);
	(void)snprintf(want, sizeof(want), "%s",
	    "Time: Sun, 22 Nov 2026 01:55:44 GMT\n"
	    "Accepted connection from 127.0.0.1, port 44132\n"
	    "      Cookie: nm6w3sui6gzxupes6qm5sivefproluadofm5\n"
	    "      TCP MSS: 0 (default)\n"
	    "[  5] local 127.0.0.1 port 5402 connected to 127.0.0.1 port "
	    "44134\n"
	    "Starting Test: protocol: TCP, 1 streams, 131072 byte blocks, "
	    "omitting 0 seconds, 2 second test, tos 0\n"
	    LINE_HDR_PLAIN
	    "[  5]   0.00-1.00   sec  1.95 GBytes  16.8 Gbits/sec             "
	    "     \n"
	    "[  5]   1.00-2.00   sec  1.81 GBytes  15.6 Gbits/sec             "
	    "     \n"
	    "[  5]   2.00-2.00   sec  4.88 MBytes  17.2 Gbits/sec             "
	    "     \n"
	    SEP
	    "Test Complete. Summary Results:\n"
	    LINE_HDR_PLAIN
	    "[  5] (sender statistics not available)\n"
	    "[  5]   0.00-2.00   sec  3.77 GBytes  16.2 Gbits/sec             "
	    "     receiver\n"
	    "rcv_tcp_congestion bbr\n");
	fx_assert_text(fx_out(&f), want);
	fx_free(&f);
}
END_TEST

START_TEST(verbose_server_prints_version_and_uname_before_the_banner)
{
	char info[512], want[1024];
	struct fx f;

	fx_init(&f, 's', FX_TCP, 0, 0, 1);
	f.t->cfg->opt.verbose = 1;
	f.t->cfg->opt.server_port = 5402;
	f.t->server_test_number = 3;
	f.t->reporter->server_listening(f.t);
	get_system_info(info, sizeof(info));
	(void)snprintf(want, sizeof(want), "iperf 3.21 (iperf3-compat " PACKAGE_VERSION ")\n%s\n" RULE
	    "Server listening on 5402 (test #3)\n" RULE, info);
	fx_assert_text(fx_out(&f), want);
	fx_free(&f);
}
END_TEST

START_TEST(verbose_client_prints_connect_details_cpu_and_congestion)
{
	char info[512], want[4096];
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	verbose_setup(&f);
	f.t->run.cli.ctrl_mss = 32768;
	f.t->cfg->opt.server_hostname = str_dup("127.0.0.1");
	f.t->cfg->opt.server_port = 5402;
	f.t->reporter->begin(f.t);
	f.t->run.start_wall_ms = 1795312544000ULL;
	f.t->reporter->on_connect(f.t);
	sp = fx_stream(&f, 5, 1);
	fx_ports(sp, 44134, 5402);
	f.t->reporter->on_new_stream(sp);
	f.t->reporter->on_test_start(f.t);
	fx_cw(fx_interval(sp, 0, 1, 1, 2099167950), 6, 1023 * KIB);
	fx_tick(&f);
	fx_cw(fx_interval(sp, 1, 2, 1, 1943751874), 0, 895 * KIB);
	fx_tick(&f);
	fx_final(sp, 2.0, 4042640651);
	sp->retransmits = 6;
	fx_peer(sp, 4042640651, 2.0, -1);
	f.t->peer_has_retransmits = -1;
	f.t->run.cpu_util[0] = 31.5;
	f.t->run.cpu_util[1] = 0.8;
	f.t->run.cpu_util[2] = 30.7;
	f.t->run.remote_cpu_util[0] = 73.3;
	f.t->run.remote_cpu_util[1] = 1.0;
	f.t->run.remote_cpu_util[2] = 72.3;
	f.t->run.remote_congestion_used = str_dup("bbr");
	fx_finish(&f);
	get_system_info(info, sizeof(info));
	(void)snprintf(want, sizeof(want), "iperf 3.21 (iperf3-compat " PACKAGE_VERSION ")\n%s\n%s", info,
	    "Time: Sun, 22 Nov 2026 01:55:44 GMT\n"
	    "Connecting to host 127.0.0.1, port 5402\n"
	    "      Cookie: nm6w3sui6gzxupes6qm5sivefproluadofm5\n"
	    "      TCP MSS: 32768 (default)\n"
	    "[  5] local 127.0.0.1 port 44134 connected to 127.0.0.1 port "
	    "5402\n"
	    "Starting Test: protocol: TCP, 1 streams, 131072 byte blocks, "
	    "omitting 0 seconds, 2 second test, tos 0\n"
	    LINE_HDR_CWND
	    "[  5]   0.00-1.00   sec  1.96 GBytes  16.8 Gbits/sec    6   1023 "
	    "KBytes       \n"
	    "[  5]   1.00-2.00   sec  1.81 GBytes  15.6 Gbits/sec    0    895 "
	    "KBytes       \n"
	    SEP
	    "Test Complete. Summary Results:\n"
	    LINE_HDR_RETR
	    "[  5]   0.00-2.00   sec  3.77 GBytes  16.2 Gbits/sec    6        "
	    "    sender\n"
	    "[  5]   0.00-2.00   sec  3.77 GBytes  16.2 Gbits/sec             "
	    "     receiver\n"
	    "CPU Utilization: local/sender 31.5% (0.8%u/30.7%s), "
	    "remote/receiver 73.3% (1.0%u/72.3%s)\n"
	    "snd_tcp_congestion bbr\n"
	    "rcv_tcp_congestion bbr\n"
	    "\n"
	    "iperf Done.\n");
	fx_assert_text(fx_out(&f), want);
	fx_free(&f);
}
END_TEST

START_TEST(verbose_connect_shows_mss_option_and_target_bitrate)
{
	struct fx f;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	verbose_setup(&f);
	f.t->settings.mss = 1000;
	f.t->settings.rate = 10000000;
	f.t->cfg->opt.server_hostname = str_dup("127.0.0.1");
	f.t->cfg->opt.server_port = 5360;
	f.t->reporter->on_connect(f.t);
	fx_assert_text(fx_out(&f),
	    "Time: Sun, 22 Nov 2026 01:55:44 GMT\n"
	    "Connecting to host 127.0.0.1, port 5360\n"
	    "      Cookie: nm6w3sui6gzxupes6qm5sivefproluadofm5\n"
	    "      TCP MSS: 1000\n"
	    "      Target Bitrate: 10000000\n");
	fx_free(&f);
}
END_TEST

START_TEST(verbose_udp_connect_has_no_mss_line)
{
	struct fx f;

	fx_init(&f, 's', FX_UDP, 0, 0, 1);
	verbose_setup(&f);
	f.t->settings.rate = 10000000;
	str_copy(f.t->run.srv.peer_host, "127.0.0.1", sizeof(f.t->run.srv.peer_host));
	f.t->run.srv.peer_port = 47982;
	f.t->reporter->on_connect(f.t);
	fx_assert_text(fx_out(&f),
	    "Time: Sun, 22 Nov 2026 01:55:44 GMT\n"
	    "Accepted connection from 127.0.0.1, port 47982\n"
	    "      Cookie: nm6w3sui6gzxupes6qm5sivefproluadofm5\n"
	    "      Target Bitrate: 10000000\n");
	fx_free(&f);
}
END_TEST

START_TEST(reverse_client_has_a_plain_interval_header_and_retr_summary)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 1, 0, 1);
	sp = fx_client_start(&f, 5403, 37144);
	fx_interval(sp, 0, 1, 1, 1618751699);
	fx_tick(&f);
	fx_interval(sp, 1, 2, 1, 2893750321);
	fx_tick(&f);
	fx_final(sp, 2.0, 4515089738);
	fx_peer(sp, 4515089738, 2.0, 20);
	f.t->peer_has_retransmits = 1;
	fx_finish(&f);
	fx_assert_text(fx_out(&f),
	    "Connecting to host 127.0.0.1, port 5403\n"
	    "Reverse mode, remote host 127.0.0.1 is sending\n"
	    "[  5] local 127.0.0.1 port 37144 connected to 127.0.0.1 port "
	    "5403\n"
	    LINE_HDR_PLAIN
	    "[  5]   0.00-1.00   sec  1.51 GBytes  13.0 Gbits/sec             "
	    "     \n"
	    "[  5]   1.00-2.00   sec  2.70 GBytes  23.2 Gbits/sec             "
	    "     \n"
	    SEP
	    LINE_HDR_RETR
	    "[  5]   0.00-2.00   sec  4.21 GBytes  18.1 Gbits/sec   20        "
	    "    sender\n"
	    "[  5]   0.00-2.00   sec  4.21 GBytes  18.1 Gbits/sec             "
	    "     receiver\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

START_TEST(reverse_client_header_printed_late_shows_retr_cwnd)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 1, 0, 1);
	f.t->cfg->opt.server_hostname = str_dup("127.0.0.1");
	sp = fx_stream(&f, 5, 0);
	f.t->peer_has_retransmits = 1; /* results already arrived */
	fx_interval(sp, 0, 1, 1, 320 * MIB);
	fx_tick(&f);
	fx_assert_text(fx_out(&f), LINE_HDR_CWND
	    "[  5]   0.00-1.00   sec   320 MBytes  2.68 Gbits/sec             "
	    "     \n");
	fx_free(&f);
}
END_TEST

START_TEST(reverse_server_prints_only_its_sender_row)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 's', FX_TCP, 1, 0, 1);
	sp = fx_server_start(&f, 5403, 37132, 37144);
	fx_cw(fx_interval(sp, 0, 1, 1, 1618751699), 20, 4 * MIB);
	fx_tick(&f);
	fx_cw(fx_interval(sp, 1, 2, 1, 2893750321), 0, 4.62 * MIB);
	fx_tick(&f);
	fx_final(sp, 2.0, 4515089738);
	sp->retransmits = 20;
	fx_finish(&f);
	fx_assert_text(strstr(fx_out(&f), "[ ID]"),
	    LINE_HDR_CWND
	    "[  5]   0.00-1.00   sec  1.51 GBytes  13.0 Gbits/sec   20   4.00 "
	    "MBytes       \n"
	    "[  5]   1.00-2.00   sec  2.70 GBytes  23.2 Gbits/sec    0   4.62 "
	    "MBytes       \n"
	    SEP
	    LINE_HDR_RETR
	    "[  5]   0.00-2.00   sec  4.21 GBytes  18.1 Gbits/sec   20        "
	    "    sender\n");
	fx_free(&f);
}
END_TEST

START_TEST(omitted_intervals_are_marked_and_restart_at_zero)
{
	struct fx f;
	struct iperf_stream *sp;

	fx_init(&f, 'c', FX_TCP, 0, 0, 1);
	f.t->settings.omit = 1;
	sp = fx_client_start(&f, 5421, 51906);
	fx_cw(fx_interval(sp, 0, 1, 1, 2246619546), 14, 1.87 * MIB)->omitted = 1;
	fx_tick(&f);
	fx_cw(fx_interval(sp, 0, 1, 1, 2073220173), 15, 1.25 * MIB);
	fx_tick(&f);
	fx_cw(fx_interval(sp, 1, 2, 1, 1380504223), 4, 1.5 * MIB);
	fx_tick(&f);
	fx_final(sp, 2.0, 3446711254);
	sp->retransmits = 19;
	fx_peer(sp, 3457290027, 2.0, -1);
	fx_finish(&f);
	fx_assert_text(strstr(fx_out(&f), "[ ID]"),
	    LINE_HDR_CWND
	    "[  5]   0.00-1.00   sec  2.09 GBytes  18.0 Gbits/sec   14   1.87 "
	    "MBytes       (omitted)\n"
	    "[  5]   0.00-1.00   sec  1.93 GBytes  16.6 Gbits/sec   15   1.25 "
	    "MBytes       \n"
	    "[  5]   1.00-2.00   sec  1.29 GBytes  11.0 Gbits/sec    4   1.50 "
	    "MBytes       \n"
	    SEP
	    LINE_HDR_RETR
	    "[  5]   0.00-2.00   sec  3.21 GBytes  13.8 Gbits/sec   19        "
	    "    sender\n"
	    "[  5]   0.00-2.00   sec  3.22 GBytes  13.8 Gbits/sec             "
	    "     receiver\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

TCase *
report_text_tcase(void)
{
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, client_prints_the_tcp_basic_run);
	tcase_add_test(tc, server_prints_the_tcp_basic_run_without_peer_figures);
	tcase_add_test(tc, verbose_server_prints_time_cookie_and_unavailable_sender);
	tcase_add_test(tc, verbose_server_prints_version_and_uname_before_the_banner);
	tcase_add_test(tc, verbose_client_prints_connect_details_cpu_and_congestion);
	tcase_add_test(tc, verbose_connect_shows_mss_option_and_target_bitrate);
	tcase_add_test(tc, verbose_udp_connect_has_no_mss_line);
	tcase_add_test(tc, reverse_client_has_a_plain_interval_header_and_retr_summary);
	tcase_add_test(tc, reverse_client_header_printed_late_shows_retr_cwnd);
	tcase_add_test(tc, reverse_server_prints_only_its_sender_row);
	tcase_add_test(tc, omitted_intervals_are_marked_and_restart_at_zero);
	return tc;
}
