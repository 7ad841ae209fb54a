/*
 * check_report_text_udp.c - the text reporter on UDP runs: datagram
 * counts, jitter and loss, bidir padding, omitted and out-of-order rows.
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

/* ---- UDP ---------------------------------------------------------------- */

static const struct fx_iv udp_client_iv[] = {
	{ 0, 1, { { 1277635, 0, 0, 0, 39, 0, 0 } }, 0 },
	{ 1, 2, { { 1245000, 0, 0, 0, 38, 0, 0 } }, 0 },
	{ 2, 3, { { 1243749, 0, 0, 0, 38, 0, 0 } }, 0 },
};

START_TEST(udp_client_prints_datagram_counts_and_loss_summary)
{
	static const int socks[] = { 5 };
	struct fx_ends e = { 3.0, 3.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 'c', FX_UDP, 0, 0, 1);
	fx_streams(&f, socks, 1);
	fx_run(&f, udp_client_iv, 3);
	e.s[0].bytes = e.s[0].peer_bytes = 3763947;
	e.s[0].pk = e.s[0].peer_pk = 115;
	e.s[0].peer_jit_ms = 0.061;
	fx_end(&f, &e);
	fx_assert_text(fx_from_header(&f),
	    LINE_HDR_UDP_SEND
	    "[  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  39  \n"
	    "[  5]   1.00-2.00   sec  1.19 MBytes  9.96 Mbits/sec  38  \n"
	    "[  5]   2.00-3.00   sec  1.19 MBytes  9.95 Mbits/sec  38  \n"
	    SEP
	    LINE_HDR_UDP
	    "[  5]   0.00-3.00   sec  3.59 MBytes  10.0 Mbits/sec  0.000 ms  "
	    "0/115 (0%)  sender\n"
	    "[  5]   0.00-3.00   sec  3.59 MBytes  10.0 Mbits/sec  0.061 ms  "
	    "0/115 (0%)  receiver\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

static const struct fx_iv udp_server_iv[] = {
	{ 0, 1, { { 1277635, 0, 0, 0, 39, 0, 0.019 } }, 0 },
	{ 1, 2, { { 1245000, 0, 0, 0, 38, 0, 0.017 } }, 0 },
	{ 2, 3, { { 1245000, 0, 0, 0, 38, 0, 0.061 } }, 0 },
};

START_TEST(udp_server_prints_jitter_and_loss)
{
	static const int socks[] = { 5 };
	struct fx_ends e = { 3.0, 3.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 's', FX_UDP, 0, 0, 1);
	fx_streams(&f, socks, 1);
	fx_run(&f, udp_server_iv, 3);
	e.s[0].bytes = 3763947;
	e.s[0].pk = 115;
	e.s[0].jit_ms = 0.061;
	fx_end(&f, &e);
	fx_assert_text(fx_from_header(&f),
	    LINE_HDR_UDP
	    "[  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  0.019 ms  "
	    "0/39 (0%)  \n"
	    "[  5]   1.00-2.00   sec  1.19 MBytes  9.96 Mbits/sec  0.017 ms  "
	    "0/38 (0%)  \n"
	    "[  5]   2.00-3.00   sec  1.19 MBytes  9.96 Mbits/sec  0.061 ms  "
	    "0/38 (0%)  \n"
	    SEP
	    LINE_HDR_UDP
	    "[  5]   0.00-3.00   sec  3.59 MBytes  10.0 Mbits/sec  0.061 ms  "
	    "0/115 (0%)  receiver\n");
	fx_free(&f);
}
END_TEST

static const struct fx_iv udp_p2_client_iv[] = {
	{ 0, 1, { { 655236, 0, 0, 0, 20, 0, 0 }, { 655236, 0, 0, 0, 20, 0, 0 } },
	    0 },
	{ 1, 2, { { 622133, 0, 0, 0, 19, 0, 0 }, { 622134, 0, 0, 0, 19, 0, 0 } },
	    0 },
};

START_TEST(udp_parallel_client_sums_datagrams_and_mean_jitter)
{
	static const int socks[] = { 5, 7 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 'c', FX_UDP, 0, 0, 2);
	fx_streams(&f, socks, 2);
	fx_run(&f, udp_p2_client_iv, 2);
	e.s[0].bytes = e.s[0].peer_bytes = 1277695;
	e.s[1].bytes = e.s[1].peer_bytes = 1277696;
	e.s[0].pk = e.s[0].peer_pk = 39;
	e.s[1].pk = e.s[1].peer_pk = 39;
	e.s[0].peer_jit_ms = 0.084;
	e.s[1].peer_jit_ms = 0.077;
	fx_end(&f, &e);
	fx_assert_text(fx_from_header(&f),
	    LINE_HDR_UDP_SEND
	    "[  5]   0.00-1.00   sec   640 KBytes  5.24 Mbits/sec  20  \n"
	    "[  7]   0.00-1.00   sec   640 KBytes  5.24 Mbits/sec  20  \n"
	    "[SUM]   0.00-1.00   sec  1.25 MBytes  10.5 Mbits/sec  40  \n"
	    SEP
	    "[  5]   1.00-2.00   sec   608 KBytes  4.98 Mbits/sec  19  \n"
	    "[  7]   1.00-2.00   sec   608 KBytes  4.98 Mbits/sec  19  \n"
	    "[SUM]   1.00-2.00   sec  1.19 MBytes  9.95 Mbits/sec  38  \n"
	    SEP
	    LINE_HDR_UDP
	    "[  5]   0.00-2.00   sec  1.22 MBytes  5.11 Mbits/sec  0.000 ms  "
	    "0/39 (0%)  sender\n"
	    "[  5]   0.00-2.00   sec  1.22 MBytes  5.11 Mbits/sec  0.084 ms  "
	    "0/39 (0%)  receiver\n"
	    "[  7]   0.00-2.00   sec  1.22 MBytes  5.11 Mbits/sec  0.000 ms  "
	    "0/39 (0%)  sender\n"
	    "[  7]   0.00-2.00   sec  1.22 MBytes  5.11 Mbits/sec  0.077 ms  "
	    "0/39 (0%)  receiver\n"
	    "[SUM]   0.00-2.00   sec  2.44 MBytes  10.2 Mbits/sec  0.000 ms  "
	    "0/78 (0%)  sender\n"
	    "[SUM]   0.00-2.00   sec  2.44 MBytes  10.2 Mbits/sec  0.081 ms  "
	    "0/78 (0%)  receiver\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

static const struct fx_iv udp_p2_server_iv[] = {
	{ 0, 1, { { 655236, 0, 0, 0, 20, 0, 0.103 },
		    { 655236, 0, 0, 0, 20, 0, 0.050 } }, 0 },
	{ 1, 2, { { 622500, 0, 0, 0, 19, 0, 0.084 },
		    { 622500, 0, 0, 0, 19, 0, 0.077 } }, 0 },
};

START_TEST(udp_parallel_server_sums_loss_rows)
{
	static const int socks[] = { 5, 6 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 's', FX_UDP, 0, 0, 2);
	f.t->cfg->opt.verbose = 1; /* UDP: no "[SUM] (... not available)" */
	fx_streams(&f, socks, 2);
	fx_run(&f, udp_p2_server_iv, 2);
	e.s[0].bytes = 1277695;
	e.s[1].bytes = 1277696;
	e.s[0].pk = e.s[1].pk = 39;
	e.s[0].jit_ms = 0.084;
	e.s[1].jit_ms = 0.077;
	fx_end(&f, &e);
	fx_assert_text(fx_from_header(&f),
	    LINE_HDR_UDP
	    "[  5]   0.00-1.00   sec   640 KBytes  5.24 Mbits/sec  0.103 ms  "
	    "0/20 (0%)  \n"
	    "[  6]   0.00-1.00   sec   640 KBytes  5.24 Mbits/sec  0.050 ms  "
	    "0/20 (0%)  \n"
	    "[SUM]   0.00-1.00   sec  1.25 MBytes  10.5 Mbits/sec  0.076 ms  "
	    "0/40 (0%)  \n"
	    SEP
	    "[  5]   1.00-2.00   sec   608 KBytes  4.98 Mbits/sec  0.084 ms  "
	    "0/19 (0%)  \n"
	    "[  6]   1.00-2.00   sec   608 KBytes  4.98 Mbits/sec  0.077 ms  "
	    "0/19 (0%)  \n"
	    "[SUM]   1.00-2.00   sec  1.19 MBytes  9.96 Mbits/sec  0.081 ms  "
	    "0/38 (0%)  \n"
	    SEP
	    "Test Complete. Summary Results:\n"
	    LINE_HDR_UDP
	    "[  5] (sender statistics not available)\n"
	    "[  5]   0.00-2.00   sec  1.22 MBytes  5.11 Mbits/sec  0.084 ms  "
	    "0/39 (0%)  receiver\n"
	    "[  6] (sender statistics not available)\n"
	    "[  6]   0.00-2.00   sec  1.22 MBytes  5.11 Mbits/sec  0.077 ms  "
	    "0/39 (0%)  receiver\n"
	    "[SUM]   0.00-2.00   sec  2.44 MBytes  10.2 Mbits/sec  0.081 ms  "
	    "0/78 (0%)  receiver\n");
	fx_free(&f);
}
END_TEST

static const struct fx_iv udp_bidir_client_iv[] = {
	{ 0, 1, { { 655360, 0, 0, 0, 20, 0, 0 },
		    { 655360, 0, 0, 0, 20, 0, 0.271 } }, 0 },
	{ 1, 2, { { 622592, 1.002, 0, 0, 19, 0, 0 },
		    { 622592, 1.002, 0, 0, 19, 0, 0.116 } }, 0 },
};

START_TEST(udp_bidir_client_pads_sender_rows)
{
	static const int socks[] = { 5, 7 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 'c', FX_UDP, 0, 1, 1);
	fx_streams(&f, socks, 2);
	fx_run(&f, udp_bidir_client_iv, 2);
	e.s[0].bytes = e.s[0].peer_bytes = 1275135;
	e.s[0].pk = e.s[0].peer_pk = 39;
	e.s[0].peer_jit_ms = 0.036;
	e.s[1].bytes = e.s[1].peer_bytes = 1275135;
	e.s[1].pk = e.s[1].peer_pk = 39;
	e.s[1].jit_ms = 0.116;
	fx_end(&f, &e);
	fx_assert_text(fx_from_header(&f),
	    LINE_HDR_BIDIR_UDP
	    "[  5][TX-C]   0.00-1.00   sec   640 KBytes  5.24 Mbits/sec"
	    "            20  \n"
	    "[  7][RX-C]   0.00-1.00   sec   640 KBytes  5.24 Mbits/sec"
	    "  0.271 ms  0/20 (0%)  \n"
	    "[  5][TX-C]   1.00-2.00   sec   608 KBytes  4.97 Mbits/sec"
	    "            19  \n"
	    "[  7][RX-C]   1.00-2.00   sec   608 KBytes  4.97 Mbits/sec"
	    "  0.116 ms  0/19 (0%)  \n"
	    SEP
	    LINE_HDR_BIDIR_UDP
	    "[  5][TX-C]   0.00-2.00   sec  1.22 MBytes  5.10 Mbits/sec"
	    "  0.000 ms  0/39 (0%)  sender\n"
	    "[  5][TX-C]   0.00-2.00   sec  1.22 MBytes  5.10 Mbits/sec"
	    "  0.036 ms  0/39 (0%)  receiver\n"
	    "[  7][RX-C]   0.00-2.00   sec  1.22 MBytes  5.10 Mbits/sec"
	    "  0.000 ms  0/39 (0%)  sender\n"
	    "[  7][RX-C]   0.00-2.00   sec  1.22 MBytes  5.10 Mbits/sec"
	    "  0.116 ms  0/39 (0%)  receiver\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

START_TEST(udp_bidir_server_prints_its_own_halves)
{
	static const int socks[] = { 5, 6 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 's', FX_UDP, 0, 1, 1);
	fx_streams(&f, socks, 2);
	e.s[0].bytes = 1275135;
	e.s[0].pk = 39;
	e.s[0].jit_ms = 0.036;
	e.s[1].bytes = 1275135;
	e.s[1].pk = 39;
	fx_end(&f, &e);
	fx_assert_text(fx_out(&f),
	    SEP
	    LINE_HDR_BIDIR_UDP
	    "[  5][RX-S]   0.00-2.00   sec  1.22 MBytes  5.10 Mbits/sec"
	    "  0.036 ms  0/39 (0%)  receiver\n"
	    "[  6][TX-S]   0.00-2.00   sec  1.22 MBytes  5.10 Mbits/sec"
	    "  0.000 ms  0/39 (0%)  sender\n");
	fx_free(&f);
}
END_TEST

START_TEST(udp_reverse_client_takes_sender_figures_from_the_peer)
{
	static const struct fx_iv ivs[] = {
		{ 0, 1, { { 1277635, 0, 0, 0, 39, 0, 0.029 } }, 0 },
		{ 1, 2, { { 1243749, 0, 0, 0, 38, 0, 0.049 } }, 0 },
	};
	static const int socks[] = { 5 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 'c', FX_UDP, 1, 0, 1);
	fx_streams(&f, socks, 1);
	fx_run(&f, ivs, 2);
	e.s[0].bytes = e.s[0].peer_bytes = 2527068;
	e.s[0].pk = e.s[0].peer_pk = 77;
	e.s[0].jit_ms = 0.049;
	fx_end(&f, &e);
	fx_assert_text(fx_from_header(&f),
	    LINE_HDR_UDP
	    "[  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  0.029 ms  "
	    "0/39 (0%)  \n"
	    "[  5]   1.00-2.00   sec  1.19 MBytes  9.95 Mbits/sec  0.049 ms  "
	    "0/38 (0%)  \n"
	    SEP
	    LINE_HDR_UDP
	    "[  5]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.000 ms  "
	    "0/77 (0%)  sender\n"
	    "[  5]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.049 ms  "
	    "0/77 (0%)  receiver\n"
	    "\n"
	    "iperf Done.\n");
	fx_free(&f);
}
END_TEST

START_TEST(udp_reverse_server_sends_and_reports_the_sender_row)
{
	static const struct fx_iv ivs[] = {
		{ 0, 1, { { 1277635, 0, 0, 0, 39, 0, 0 } }, 0 },
		{ 1, 2, { { 1245000, 0, 0, 0, 38, 0, 0 } }, 0 },
	};
	static const int socks[] = { 5 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 's', FX_UDP, 1, 0, 1);
	fx_streams(&f, socks, 1);
	fx_run(&f, ivs, 2);
	e.s[0].bytes = 2527068;
	e.s[0].pk = 77;
	fx_end(&f, &e);
	fx_assert_text(fx_from_header(&f),
	    LINE_HDR_UDP_SEND
	    "[  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  39  \n"
	    "[  5]   1.00-2.00   sec  1.19 MBytes  9.96 Mbits/sec  38  \n"
	    SEP
	    LINE_HDR_UDP
	    "[  5]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.000 ms  "
	    "0/77 (0%)  sender\n");
	fx_free(&f);
}
END_TEST

START_TEST(udp_omitted_intervals_are_marked_on_both_ends)
{
	static const struct fx_iv civ[] = {
		{ 0, 1, { { 655236, 0, 0, 0, 20, 0, 0 } }, 1 },
		{ 0, 1, { { 622592, 0, 0, 0, 19, 0, 0 } }, 0 },
	};
	static const struct fx_iv siv[] = {
		{ 0, 1, { { 655236, 0, 0, 0, 20, 0, 0.922 } }, 1 },
		{ 0, 1, { { 622592, 0, 0, 0, 19, 0, 0.004 } }, 0 },
	};
	static const int socks[] = { 5 };
	struct fx c, s;

	fx_init(&c, 'c', FX_UDP, 0, 0, 1);
	fx_streams(&c, socks, 1);
	fx_run(&c, civ, 2);
	fx_assert_text(fx_out(&c), LINE_HDR_UDP_SEND
	    "[  5]   0.00-1.00   sec   640 KBytes  5.24 Mbits/sec  20  "
	    "(omitted)\n"
	    "[  5]   0.00-1.00   sec   608 KBytes  4.98 Mbits/sec  19  \n");
	fx_init(&s, 's', FX_UDP, 0, 0, 1);
	fx_streams(&s, socks, 1);
	fx_run(&s, siv, 2);
	fx_assert_text(fx_out(&s), LINE_HDR_UDP
	    "[  5]   0.00-1.00   sec   640 KBytes  5.24 Mbits/sec  0.922 ms  "
	    "0/20 (0%)  (omitted)\n"
	    "[  5]   0.00-1.00   sec   608 KBytes  4.98 Mbits/sec  0.004 ms  "
	    "0/19 (0%)  \n");
	fx_free(&c);
	fx_free(&s);
}
END_TEST

START_TEST(udp_receiver_row_says_unknown_without_an_omit_loss_count)
{
	static const int socks[] = { 5 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 'c', FX_UDP, 0, 0, 1);
	f.t->settings.omit = 1;
	fx_streams(&f, socks, 1);
	e.s[0].bytes = e.s[0].peer_bytes = 1245000;
	e.s[0].pk = e.s[0].peer_pk = 38;
	e.s[0].peer_jit_ms = 0.214;
	fx_end_setup(&f, &e);
	f.t->run.streams->peer.has_omitted_pair = 0;
	f.t->reporter->summary(f.t);
	ck_assert_ptr_nonnull(strstr(fx_out(&f), "[  5]   0.00-2.00   sec  "
	    "1.19 MBytes  4.98 Mbits/sec  0.214 ms  Unknown/38  receiver\n"));
	fx_free(&f);
}
END_TEST

START_TEST(udp_out_of_order_row_follows_the_sender_slot)
{
	static const int socks[] = { 5 };
	struct fx_ends e = { 2.0, 2.0, { { 0 } } };
	struct fx f;

	fx_init(&f, 's', FX_UDP, 0, 0, 1);
	fx_streams(&f, socks, 1);
	e.s[0].bytes = 1245000;
	e.s[0].pk = 38;
	e.s[0].ooo = 3;
	fx_end(&f, &e);
	fx_assert_text(fx_out(&f), SEP LINE_HDR_UDP
	    "[SUM]  0.0- 2.0 sec  3 datagrams received out-of-order\n"
	    "[  5]   0.00-2.00   sec  1.19 MBytes  4.98 Mbits/sec  0.000 ms  "
	    "0/38 (0%)  receiver\n");
	fx_free(&f);
}
END_TEST

TCase *
report_text_udp_tcase(void)
{
	TCase *tc = tcase_create("text_udp");

	tcase_add_test(tc, udp_client_prints_datagram_counts_and_loss_summary);
	tcase_add_test(tc, udp_server_prints_jitter_and_loss);
	tcase_add_test(tc, udp_parallel_client_sums_datagrams_and_mean_jitter);
	tcase_add_test(tc, udp_parallel_server_sums_loss_rows);
	tcase_add_test(tc, udp_bidir_client_pads_sender_rows);
	tcase_add_test(tc, udp_bidir_server_prints_its_own_halves);
	tcase_add_test(tc, udp_reverse_client_takes_sender_figures_from_the_peer);
	tcase_add_test(tc, udp_reverse_server_sends_and_reports_the_sender_row);
	tcase_add_test(tc, udp_omitted_intervals_are_marked_on_both_ends);
	tcase_add_test(tc, udp_receiver_row_says_unknown_without_an_omit_loss_count);
	tcase_add_test(tc, udp_out_of_order_row_follows_the_sender_slot);
	return tc;
}
