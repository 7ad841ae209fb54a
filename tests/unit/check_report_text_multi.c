/*
 * check_report_text_multi.c - the text reporter on multi-stream TCP runs:
 * --bidir and -P 2, client and server side, against 3.21 captures.
 * Scenarios are tables (struct fx_iv, struct fx_ends) with the figures of
 * each stream in creation order.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check_report.h"
#include "iperf.h"
#include "test_config.h"
#include "report.h"
#include "stream.h"
#include "util.h"




/* ---- TCP --bidir -------------------------------------------------------- */

static const struct fx_iv bidir_client_iv[] = {
	{ 0, 1, { { 1315336418, 0, 15, 1.87 * MIB, 0, 0, 0 },
		    { 1476395008, 0, 0, 0, 0, 0, 0 } }, 0 },
	{ 1, 2, { { 2270966642, 0, 0, 1.87 * MIB, 0, 0, 0 },
		    { 2850787227, 0, 0, 0, 0, 0, 0 } }, 0 },
};

START_TEST(bidir_client_prints_tx_and_rx_groups)
{
	static const int socks[] = { 5, 7 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 'c', FX_TCP, 0, 1, 1);
	f.t->cfg->opt.server_hostname = str_dup("127.0.0.1");
	f.t->cfg->opt.server_port = 5404;
	f.t->reporter->begin(f.t);
	f.t->reporter->on_connect(f.t);
	fx_streams(&f, socks, 2);
	fx_ports(f.t->run.streams, 43062, 5404);
	fx_ports(f.t->run.streams->next, 43072, 5404);
	f.t->reporter->on_new_stream(f.t->run.streams);
	f.t->reporter->on_new_stream(f.t->run.streams->next);
	fx_run(&f, bidir_client_iv, 2);
	f.t->peer_has_retransmits = 1;
	e.s[0].bytes = 3591669085;
	e.s[0].retr = 15;
	e.s[0].peer_bytes = 3591669085;
	e.s[1].bytes = 4321813525;
	e.s[1].peer_bytes = 4332550944;
	e.s[1].peer_retr = 17;
	fx_end(&f, &e);
	fx_assert_text(fx_out(&f),
	    "Connecting to host 127.0.0.1, port 5404\n"
	    "[  5] local 127.0.0.1 port 43062 connected to 127.0.0.1 port "
	    "5404\n"
	    "[  7] local 127.0.0.1 port 43072 connected to 127.0.0.1 port "
	    "5404\n"
	    LINE_HDR_BIDIR_CWND
	    "[  5][TX-C]   0.00-1.00   sec  1.23 GBytes  10.5 Gbits/sec   15"
	    "   1.87 MBytes       \n"
	    "[  7][RX-C]   0.00-1.00   sec  1.38 GBytes  11.8 Gbits/sec"
	    "                  \n"
	    "[  5][TX-C]   1.00-2.00   sec  2.12 GBytes  18.2 Gbits/sec    0"
	    "   1.87 MBytes       \n"
	    "[  7][RX-C]   1.00-2.00   sec  2.66 GBytes  22.8 Gbits/sec"
	    "                  \n"
	    SEP
	    LINE_HDR_BIDIR_RETR
	    "[  5][TX-C]   0.00-2.00   sec  3.35 GBytes  14.4 Gbits/sec   15"
	    "            sender\n"
	    "[  5][TX-C]   0.00-2.00   sec  3.35 GBytes  14.4 Gbits/sec"
	    "                  receiver\n"
	    "[  7][RX-C]   0.00-2.00   sec  4.04 GBytes  17.3 Gbits/sec   17"
	    "            sender\n"
	    "[  7][RX-C]   0.00-2.00   sec  4.03 GBytes  17.3 Gbits/sec"
	    "                  receiver\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

static const struct fx_iv bidir_server_iv[] = {
	{ 0, 1, { { 1315336418, 0, 0, 0, 0, 0, 0 },
		    { 1481251005, 0, 17, 2.87 * MIB, 0, 0, 0 } }, 0 },
	{ 1, 2, { { 2270966642, 0, 0, 0, 0, 0, 0 },
		    { 2850787227, 0, 0, 1.87 * MIB, 0, 0, 0 } }, 0 },
};

START_TEST(bidir_server_prints_rx_then_tx_groups)
{
	static const int socks[] = { 5, 8 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 's', FX_TCP, 0, 1, 1);
	fx_streams(&f, socks, 2);
	fx_run(&f, bidir_server_iv, 2);
	e.s[0].bytes = 3591669085;
	e.s[1].bytes = 4332550944;
	e.s[1].retr = 17;
	fx_end(&f, &e);
	fx_assert_text(fx_from_header(&f),
	    LINE_HDR_BIDIR_CWND
	    "[  5][RX-S]   0.00-1.00   sec  1.23 GBytes  10.5 Gbits/sec"
	    "                  \n"
	    "[  8][TX-S]   0.00-1.00   sec  1.38 GBytes  11.9 Gbits/sec   17"
	    "   2.87 MBytes       \n"
	    "[  5][RX-S]   1.00-2.00   sec  2.12 GBytes  18.2 Gbits/sec"
	    "                  \n"
	    "[  8][TX-S]   1.00-2.00   sec  2.66 GBytes  22.8 Gbits/sec    0"
	    "   1.87 MBytes       \n"
	    SEP
	    LINE_HDR_BIDIR_RETR
	    "[  5][RX-S]   0.00-2.00   sec  3.35 GBytes  14.4 Gbits/sec"
	    "                  receiver\n"
	    "[  8][TX-S]   0.00-2.00   sec  4.04 GBytes  17.3 Gbits/sec   17"
	    "            sender\n");
	fx_free(&f);
}
END_TEST

static const struct fx_iv vbidir_iv[] = {
	{ 0, 1, { { 2426269169, 0, 0, 895 * KIB, 0, 0, 0 },
		    { 1847977056, 0, 0, 0, 0, 0, 0 } }, 0 },
	{ 1, 2, { { 1738921661, 0, 0, 1023 * KIB, 0, 0, 0 },
		    { 1911439492, 0, 0, 0, 0, 0, 0 } }, 0 },
};

static void
cpu(struct iperf_test *t, double a, double b, double c, double ra, double rb,
    double rc)
{
	t->run.cpu_util[0] = a;
	t->run.cpu_util[1] = b;
	t->run.cpu_util[2] = c;
	t->run.remote_cpu_util[0] = ra;
	t->run.remote_cpu_util[1] = rb;
	t->run.remote_cpu_util[2] = rc;
	t->run.congestion_used = str_dup("bbr");
	t->run.remote_congestion_used = str_dup("bbr");
}

START_TEST(verbose_bidir_client_closes_each_group)
{
	static const int socks[] = { 5, 7 };
	struct fx_ends e = { 2.002, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 'c', FX_TCP, 0, 1, 1);
	f.t->cfg->opt.verbose = 1;
	fx_streams(&f, socks, 2);
	fx_run(&f, vbidir_iv, 2);
	f.t->peer_has_retransmits = 1;
	cpu(f.t, 98.5, 1.3, 97.1, 97.3, 2.6, 94.6);
	e.s[0].bytes = 4166993376;
	e.s[0].peer_bytes = 4166993376;
	e.s[1].bytes = 3757614004;
	e.s[1].peer_bytes = 3763467777;
	e.s[1].peer_retr = 2;
	fx_end(&f, &e);
	fx_assert_text(strstr(fx_out(&f), SEP),
	    SEP
	    "Test Complete. Summary Results:\n"
	    LINE_HDR_BIDIR_RETR
	    "[  5][TX-C]   0.00-2.00   sec  3.88 GBytes  16.7 Gbits/sec    0"
	    "            sender\n"
	    "[  5][TX-C]   0.00-2.00   sec  3.88 GBytes  16.7 Gbits/sec"
	    "                  receiver\n"
	    "CPU Utilization: local/sender 98.5% (1.3%u/97.1%s), "
	    "remote/receiver 97.3% (2.6%u/94.6%s)\n"
	    "CPU Utilization: local/receiver 98.5% (1.3%u/97.1%s), "
	    "remote/sender 97.3% (2.6%u/94.6%s)\n"
	    "snd_tcp_congestion bbr\n"
	    "rcv_tcp_congestion bbr\n"
	    "[  7][RX-C]   0.00-2.00   sec  3.51 GBytes  15.0 Gbits/sec    2"
	    "            sender\n"
	    "[  7][RX-C]   0.00-2.00   sec  3.50 GBytes  15.0 Gbits/sec"
	    "                  receiver\n"
	    "snd_tcp_congestion bbr\n"
	    "rcv_tcp_congestion bbr\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

START_TEST(verbose_bidir_server_marks_missing_halves)
{
	static const int socks[] = { 5, 8 };
	struct fx_ends e = { 2.002, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 's', FX_TCP, 0, 1, 1);
	f.t->cfg->opt.verbose = 1;
	fx_streams(&f, socks, 2);
	cpu(f.t, 97.3, 2.6, 94.6, 50, 1, 49); /* remote: not known yet */
	e.s[0].bytes = 4166993376;
	e.s[1].bytes = 3763467777;
	e.s[1].retr = 2;
	fx_end(&f, &e);
	fx_assert_text(fx_out(&f),
	    SEP
	    "Test Complete. Summary Results:\n"
	    LINE_HDR_BIDIR_RETR
	    "[  5] (sender statistics not available)\n"
	    "[  5][RX-S]   0.00-2.00   sec  3.88 GBytes  16.7 Gbits/sec"
	    "                  receiver\n"
	    "rcv_tcp_congestion bbr\n"
	    "[  8][TX-S]   0.00-2.00   sec  3.51 GBytes  15.0 Gbits/sec    2"
	    "            sender\n"
	    "[  8] (receiver statistics not available)\n"
	    "CPU Utilization: local/sender 97.3% (2.6%u/94.6%s), "
	    "remote/receiver 0.0% (0.0%u/0.0%s)\n"
	    "CPU Utilization: local/receiver 97.3% (2.6%u/94.6%s), "
	    "remote/sender 0.0% (0.0%u/0.0%s)\n"
	    "snd_tcp_congestion bbr\n");
	fx_free(&f);
}
END_TEST

START_TEST(bidir_server_output_block_sits_between_the_groups)
{
	static const int socks[] = { 5, 7 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;
	const char *out, *blk, *rx;

	fx_init(&f, 'c', FX_TCP, 0, 1, 1);
	f.t->cfg->opt.verbose = 1;
	f.t->settings.get_server_output = 1;
	f.t->run.ses.server_output_text = str_dup("server says hi\n");
	fx_streams(&f, socks, 2);
	cpu(f.t, 1, 1, 1, 1, 1, 1);
	fx_end(&f, &e);
	out = fx_out(&f);
	blk = strstr(out, "rcv_tcp_congestion bbr\n\nServer output:\n"
	    "server says hi\n\n[  7][RX-C]");
	rx = strstr(out, "[  7][RX-C]");
	ck_assert_ptr_nonnull(blk);
	ck_assert_ptr_nonnull(rx);
	ck_assert_ptr_nonnull(strstr(rx, "rcv_tcp_congestion bbr\n\n"
	    "iperf Done.\n"));
	fx_free(&f);
}
END_TEST

/* ---- TCP -P 2 ----------------------------------------------------------- */

static const struct fx_iv p2_client_iv[] = {
	{ 0, 1, { { 1572100103, 0, 0, 4.5 * MIB, 0, 0, 0 },
		    { 1135353059, 0, 3, 4.37 * MIB, 0, 0, 0 } }, 0 },
	{ 1, 2, { { 1247499825, 0, 0, 2.25 * MIB, 0, 0, 0 },
		    { 1201250007, 0, 0, 4.62 * MIB, 0, 0, 0 } }, 0 },
};

START_TEST(parallel_client_prints_sum_rows_and_separators)
{
	static const int socks[] = { 5, 7 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 'c', FX_TCP, 0, 0, 2);
	fx_streams(&f, socks, 2);
	fx_run(&f, p2_client_iv, 2);
	e.s[0].bytes = e.s[0].peer_bytes = 2821486308;
	e.s[1].bytes = e.s[1].peer_bytes = 2339428533;
	e.s[1].retr = 3;
	fx_end(&f, &e);
	fx_assert_text(fx_from_header(&f),
	    LINE_HDR_CWND
	    "[  5]   0.00-1.00   sec  1.46 GBytes  12.6 Gbits/sec    0   4.50 "
	    "MBytes       \n"
	    "[  7]   0.00-1.00   sec  1.06 GBytes  9.08 Gbits/sec    3   4.37 "
	    "MBytes       \n"
	    "[SUM]   0.00-1.00   sec  2.52 GBytes  21.7 Gbits/sec    3        "
	    "     \n"
	    SEP
	    "[  5]   1.00-2.00   sec  1.16 GBytes  9.98 Gbits/sec    0   2.25 "
	    "MBytes       \n"
	    "[  7]   1.00-2.00   sec  1.12 GBytes  9.61 Gbits/sec    0   4.62 "
	    "MBytes       \n"
	    "[SUM]   1.00-2.00   sec  2.28 GBytes  19.6 Gbits/sec    0        "
	    "     \n"
	    SEP
	    LINE_HDR_RETR
	    "[  5]   0.00-2.00   sec  2.63 GBytes  11.3 Gbits/sec    0        "
	    "    sender\n"
	    "[  5]   0.00-2.00   sec  2.63 GBytes  11.3 Gbits/sec             "
	    "     receiver\n"
	    "[  7]   0.00-2.00   sec  2.18 GBytes  9.36 Gbits/sec    3        "
	    "    sender\n"
	    "[  7]   0.00-2.00   sec  2.18 GBytes  9.36 Gbits/sec             "
	    "     receiver\n"
	    "[SUM]   0.00-2.00   sec  4.81 GBytes  20.6 Gbits/sec    3        "
	    "     sender\n"
	    "[SUM]   0.00-2.00   sec  4.81 GBytes  20.6 Gbits/sec             "
	    "     receiver\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

static const struct fx_iv p2_server_iv[] = {
	{ 0, 1, { { 1570443182, 0, 0, 0, 0, 0, 0 },
		    { 1133619370, 0, 0, 0, 0, 0, 0 } }, 0 },
	{ 1, 2, { { 1247499825, 0, 0, 0, 0, 0, 0 },
		    { 1202499843, 0, 0, 0, 0, 0, 0 } }, 0 },
	{ 2, 2, { { 2097124, 0.0018957, 0, 0, 0, 0, 0 },
		    { 4320161, 0.0018886, 0, 0, 0, 0, 0 } }, 0 },
};

START_TEST(parallel_server_sums_use_the_first_stream_time)
{
	static const int socks[] = { 5, 8 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 's', FX_TCP, 0, 0, 2);
	fx_streams(&f, socks, 2);
	fx_run(&f, p2_server_iv, 3);
	e.s[0].bytes = 2821486308;
	e.s[1].bytes = 2339428533;
	fx_end(&f, &e);
	fx_assert_text(fx_from_header(&f),
	    LINE_HDR_PLAIN
	    "[  5]   0.00-1.00   sec  1.46 GBytes  12.6 Gbits/sec             "
	    "     \n"
	    "[  8]   0.00-1.00   sec  1.06 GBytes  9.07 Gbits/sec             "
	    "     \n"
	    "[SUM]   0.00-1.00   sec  2.52 GBytes  21.6 Gbits/sec             "
	    "     \n"
	    SEP
	    "[  5]   1.00-2.00   sec  1.16 GBytes  9.98 Gbits/sec             "
	    "     \n"
	    "[  8]   1.00-2.00   sec  1.12 GBytes  9.62 Gbits/sec             "
	    "     \n"
	    "[SUM]   1.00-2.00   sec  2.28 GBytes  19.6 Gbits/sec             "
	    "     \n"
	    SEP
	    "[  5]   2.00-2.00   sec  2.00 MBytes  8.85 Gbits/sec             "
	    "     \n"
	    "[  8]   2.00-2.00   sec  4.12 MBytes  18.3 Gbits/sec             "
	    "     \n"
	    "[SUM]   2.00-2.00   sec  6.12 MBytes  27.1 Gbits/sec             "
	    "     \n"
	    SEP
	    LINE_HDR_PLAIN
	    "[  5]   0.00-2.00   sec  2.63 GBytes  11.3 Gbits/sec             "
	    "     receiver\n"
	    "[  8]   0.00-2.00   sec  2.18 GBytes  9.36 Gbits/sec             "
	    "     receiver\n"
	    "[SUM]   0.00-2.00   sec  4.81 GBytes  20.6 Gbits/sec             "
	    "     receiver\n");
	fx_free(&f);
}
END_TEST

START_TEST(verbose_parallel_server_marks_the_missing_tcp_sum)
{
	static const int socks[] = { 5, 8 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;
	const char *out;

	fx_init(&f, 's', FX_TCP, 1, 0, 2);
	f.t->cfg->opt.verbose = 1;
	fx_streams(&f, socks, 2);
	e.s[0].bytes = 2821486308;
	e.s[1].bytes = 2339428533;
	fx_end(&f, &e);
	out = fx_out(&f);
	ck_assert_ptr_nonnull(strstr(out, "[  8] (receiver statistics not "
	    "available)\n[SUM]   0.00-2.00   sec  4.81 GBytes  20.6 Gbits/sec"
	    "    0             sender\n[SUM] (receiver statistics not "
	    "available)\nCPU Utilization: local/sender"));
	fx_free(&f);
}
END_TEST

static const struct fx_iv bidir_p2_iv[] = {
	{ 0, 1, { { 786391366, 0, 2, 3 * MIB, 0, 0, 0 },
		    { 1212500137, 0, 1, 3.87 * MIB, 0, 0, 0 },
		    { 951103835, 0, 0, 0, 0, 0, 0 },
		    { 849098649, 0, 0, 0, 0, 0, 0 } }, 0 },
};

START_TEST(bidir_parallel_client_sums_each_group)
{
	static const int socks[] = { 5, 7, 9, 12 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;
	const char *out;

	fx_init(&f, 'c', FX_TCP, 0, 1, 2);
	fx_streams(&f, socks, 4);
	fx_run(&f, bidir_p2_iv, 1);
	fx_run(&f, bidir_p2_iv, 1);
	f.t->peer_has_retransmits = 1;
	e.s[2].peer_retr = 5;
	e.s[3].peer_retr = 7;
	fx_end(&f, &e);
	out = fx_out(&f);
	fx_assert_text(out,
	    LINE_HDR_BIDIR_CWND
	    "[  5][TX-C]   0.00-1.00   sec   750 MBytes  6.29 Gbits/sec    2"
	    "   3.00 MBytes       \n"
	    "[  7][TX-C]   0.00-1.00   sec  1.13 GBytes  9.70 Gbits/sec    1"
	    "   3.87 MBytes       \n"
	    "[SUM][TX-C]   0.00-1.00   sec  1.86 GBytes  16.0 Gbits/sec    3"
	    "             \n"
	    "[  9][RX-C]   0.00-1.00   sec   907 MBytes  7.61 Gbits/sec"
	    "                  \n"
	    "[ 12][RX-C]   0.00-1.00   sec   810 MBytes  6.79 Gbits/sec"
	    "                  \n"
	    "[SUM][RX-C]   0.00-1.00   sec  1.68 GBytes  14.4 Gbits/sec"
	    "                  \n"
	    SEP
	    "[  5][TX-C]   0.00-1.00   sec   750 MBytes  6.29 Gbits/sec    2"
	    "   3.00 MBytes       \n"
	    "[  7][TX-C]   0.00-1.00   sec  1.13 GBytes  9.70 Gbits/sec    1"
	    "   3.87 MBytes       \n"
	    "[SUM][TX-C]   0.00-1.00   sec  1.86 GBytes  16.0 Gbits/sec    3"
	    "             \n"
	    "[  9][RX-C]   0.00-1.00   sec   907 MBytes  7.61 Gbits/sec"
	    "                  \n"
	    "[ 12][RX-C]   0.00-1.00   sec   810 MBytes  6.79 Gbits/sec"
	    "                  \n"
	    "[SUM][RX-C]   0.00-1.00   sec  1.68 GBytes  14.4 Gbits/sec"
	    "                  \n"
	    SEP
	    LINE_HDR_BIDIR_RETR
	    "[  5][TX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec    0"
	    "            sender\n"
	    "[  5][TX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec"
	    "                  receiver\n"
	    "[  7][TX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec    0"
	    "            sender\n"
	    "[  7][TX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec"
	    "                  receiver\n"
	    "[SUM][TX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec    0"
	    "             sender\n"
	    "[SUM][TX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec"
	    "                  receiver\n"
	    "[  9][RX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec    5"
	    "            sender\n"
	    "[  9][RX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec"
	    "                  receiver\n"
	    "[ 12][RX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec    7"
	    "            sender\n"
	    "[ 12][RX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec"
	    "                  receiver\n"
	    "[SUM][RX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec   12"
	    "             sender\n"
	    "[SUM][RX-C]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec"
	    "                  receiver\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

TCase *
report_text_multi_tcase(void)
{
	TCase *tc = tcase_create("text_multi");

	tcase_add_test(tc, bidir_client_prints_tx_and_rx_groups);
	tcase_add_test(tc, bidir_server_prints_rx_then_tx_groups);
	tcase_add_test(tc, verbose_bidir_client_closes_each_group);
	tcase_add_test(tc, verbose_bidir_server_marks_missing_halves);
	tcase_add_test(tc, bidir_server_output_block_sits_between_the_groups);
	tcase_add_test(tc, parallel_client_prints_sum_rows_and_separators);
	tcase_add_test(tc, parallel_server_sums_use_the_first_stream_time);
	tcase_add_test(tc, verbose_parallel_server_marks_the_missing_tcp_sum);
	tcase_add_test(tc, bidir_parallel_client_sums_each_group);
	return tc;
}
