/*
 * check_report.c - the reporter suite: line layouts of the text report
 * (this file), the text reporter (check_report_text*.c) and the JSON
 * reporter (check_report_json*.c).  Expected lines are copied from the
 * iperf3 3.21 captures in spec/captures/3.21, trailing spaces included.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "check_report.h"
#include "report_rows.h"

#define GIB 1073741824.0

struct row_case {
	const char *name;
	enum report_row_kind kind;
	struct report_row row;
	const char *want;
};

/* Each row: the numbers that reproduce one line of a 3.21 capture. */
static const struct row_case row_cases[] = {
	{ "tcp sender interval (tcp_basic)", ROW_TCP_CWND,
	    { .id = 5, .role = "", .start = 0, .end = 1, .bytes = 1798522923,
		.seconds = 1, .fmt = 'a', .tail = "", .retransmits = 0,
		.cwnd = 916480 },
	    "[  5]   0.00-1.00   sec  1.68 GBytes  14.4 Gbits/sec    0    895 "
	    "KBytes       \n" },
	{ "tcp sender interval, 1023 KBytes cwnd", ROW_TCP_CWND,
	    { .id = 5, .start = 1, .end = 2, .bytes = 1.62 * GIB, .seconds = 1,
		.fmt = 'a', .tail = "", .cwnd = 1047552 },
	    "[  5]   1.00-2.00   sec  1.62 GBytes  13.9 Gbits/sec    0   1023 "
	    "KBytes       \n" },
	{ "tcp receiver interval ends in 18 spaces", ROW_TCP_PLAIN,
	    { .id = 5, .start = 0, .end = 1, .bytes = 1793750141, .seconds = 1,
		.fmt = 'a', .tail = "" },
	    "[  5]   0.00-1.00   sec  1.67 GBytes  14.4 Gbits/sec"
	    "                  \n" },
	{ "server tail interval 3.00-3.00", ROW_TCP_PLAIN,
	    { .id = 5, .start = 3, .end = 3, .bytes = 262144,
		.seconds = 0.000485, .fmt = 'a', .tail = "" },
	    "[  5]   3.00-3.00   sec   256 KBytes  4.32 Gbits/sec"
	    "                  \n" },
	{ "summary sender row has 12 spaces before sender", ROW_TCP_RETR,
	    { .id = 5, .start = 0, .end = 3, .bytes = 5418750857, .seconds = 3,
		.fmt = 'a', .tail = "sender" },
	    "[  5]   0.00-3.00   sec  5.05 GBytes  14.5 Gbits/sec    0"
	    "            sender\n" },
	{ "summary receiver row", ROW_TCP_PLAIN,
	    { .id = 5, .start = 0, .end = 3, .bytes = 5.04 * GIB, .seconds = 3,
		.fmt = 'a', .tail = "receiver" },
	    "[  5]   0.00-3.00   sec  5.04 GBytes  14.4 Gbits/sec"
	    "                  receiver\n" },
	{ "sum sender row has 13 spaces before sender", ROW_TCP_RETR_SUM,
	    { .id = REPORT_SUM_ID, .start = 0, .end = 2, .bytes = 5159334833,
		.seconds = 2, .fmt = 'a', .tail = "sender", .retransmits = 3 },
	    "[SUM]   0.00-2.00   sec  4.81 GBytes  20.6 Gbits/sec    3"
	    "             sender\n" },
	{ "interval sum with retransmits", ROW_TCP_RETR_SUM,
	    { .id = REPORT_SUM_ID, .start = 0, .end = 1, .bytes = 2706253524,
		.seconds = 1, .fmt = 'a', .tail = "", .retransmits = 3 },
	    "[SUM]   0.00-1.00   sec  2.52 GBytes  21.7 Gbits/sec    3"
	    "             \n" },
	{ "bidir role tag", ROW_TCP_CWND,
	    { .id = 5, .role = "[TX-C]", .start = 0, .end = 1,
		.bytes = 1315339103, .seconds = 1, .fmt = 'a', .tail = "",
		.retransmits = 15, .cwnd = 1.87 * 1048576 },
	    "[  5][TX-C]   0.00-1.00   sec  1.23 GBytes  10.5 Gbits/sec   15"
	    "   1.87 MBytes       \n" },
	{ "bidir sum with role", ROW_TCP_PLAIN,
	    { .id = REPORT_SUM_ID, .role = "[RX-S]", .start = 0, .end = 2,
		.bytes = 4085593009, .seconds = 2, .fmt = 'a',
		.tail = "receiver" },
	    "[SUM][RX-S]   0.00-2.00   sec  3.81 GBytes  16.3 Gbits/sec"
	    "                  receiver\n" },
	{ "bidir sum retransmits (tcp_bidir_P2)", ROW_TCP_RETR_SUM,
	    { .id = REPORT_SUM_ID, .role = "[TX-C]", .start = 0, .end = 1,
		.bytes = 1993750662, .seconds = 1, .fmt = 'a', .tail = "",
		.retransmits = 3 },
	    "[SUM][TX-C]   0.00-1.00   sec  1.86 GBytes  16.0 Gbits/sec    3"
	    "             \n" },
	{ "three-digit transfer keeps its leading space", ROW_TCP_CWND,
	    { .id = 5, .role = "[TX-C]", .start = 0, .end = 1,
		.bytes = 786432000, .seconds = 1, .fmt = 'a', .tail = "",
		.retransmits = 2, .cwnd = 3145728 },
	    "[  5][TX-C]   0.00-1.00   sec   750 MBytes  6.29 Gbits/sec    2"
	    "   3.00 MBytes       \n" },
	{ "two-digit stream id", ROW_TCP_PLAIN,
	    { .id = 12, .role = "[RX-C]", .start = 0, .end = 1,
		.bytes = 810 * 1048576.0, .seconds = 1, .fmt = 'a',
		.tail = "" },
	    "[ 12][RX-C]   0.00-1.00   sec   810 MBytes  6.79 Gbits/sec"
	    "                  \n" },
	{ "zero bytes interval", ROW_TCP_PLAIN,
	    { .id = 8, .role = "[RX-S]", .start = 2, .end = 2, .bytes = 0,
		.seconds = 0.0003, .fmt = 'a', .tail = "" },
	    "[  8][RX-S]   2.00-2.00   sec  0.00 Bytes  0.00 bits/sec"
	    "                  \n" },
	{ "omitted tcp interval", ROW_TCP_CWND,
	    { .id = 5, .start = 0, .end = 1, .bytes = 2243755339, .seconds = 1,
		.fmt = 'a', .tail = "(omitted)", .retransmits = 14,
		.cwnd = 1.87 * 1048576 },
	    "[  5]   0.00-1.00   sec  2.09 GBytes  18.0 Gbits/sec   14"
	    "   1.87 MBytes       (omitted)\n" },
	{ "omitted receiver interval", ROW_TCP_PLAIN,
	    { .id = 5, .start = 0, .end = 1, .bytes = 2241251103, .seconds = 1,
		.fmt = 'a', .tail = "(omitted)" },
	    "[  5]   0.00-1.00   sec  2.09 GBytes  17.9 Gbits/sec"
	    "                  (omitted)\n" },
	{ "udp sender interval", ROW_UDP_PACKETS,
	    { .id = 5, .start = 0, .end = 1, .bytes = 1277952,
		.seconds = 1.000731, .fmt = 'a', .tail = "", .packets = 39 },
	    "[  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  39  \n" },
	{ "udp sender interval in bidir has 10 more spaces", ROW_UDP_PACKETS,
	    { .id = 5, .role = "[TX-C]", .start = 0, .end = 1,
		.bytes = 655360, .seconds = 1, .fmt = 'a', .tail = "",
		.packets = 20, .bidir = 1 },
	    "[  5][TX-C]   0.00-1.00   sec   640 KBytes  5.24 Mbits/sec"
	    "            20  \n" },
	{ "udp omitted sender interval", ROW_UDP_PACKETS,
	    { .id = 5, .start = 0, .end = 1, .bytes = 655360, .seconds = 1,
		.fmt = 'a', .tail = "(omitted)", .packets = 20 },
	    "[  5]   0.00-1.00   sec   640 KBytes  5.24 Mbits/sec  20  "
	    "(omitted)\n" },
	{ "udp receiver interval", ROW_UDP_LOSS,
	    { .id = 5, .start = 0, .end = 1, .bytes = 1277952,
		.seconds = 1.001227, .fmt = 'a', .tail = "",
		.jitter_ms = 0.019, .packets = 39 },
	    "[  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  0.019 ms"
	    "  0/39 (0%)  \n" },
	{ "udp omitted receiver interval", ROW_UDP_LOSS,
	    { .id = 5, .start = 0, .end = 1, .bytes = 655360, .seconds = 1,
		.fmt = 'a', .tail = "(omitted)", .jitter_ms = 0.922,
		.packets = 20 },
	    "[  5]   0.00-1.00   sec   640 KBytes  5.24 Mbits/sec  0.922 ms"
	    "  0/20 (0%)  (omitted)\n" },
	{ "udp loss uses %.2g (udp_gsro)", ROW_UDP_LOSS,
	    { .id = 5, .start = 0, .end = 1.03, .bytes = 12237720,
		.seconds = 1.03, .fmt = 'a', .tail = "receiver",
		.jitter_ms = 0.351, .lost = 18, .packets = 393 },
	    "[  5]   0.00-1.03   sec  11.7 MBytes  95.1 Mbits/sec  0.351 ms"
	    "  18/393 (4.6%)  receiver\n" },
	{ "udp total loss prints 1e+02%", ROW_UDP_LOSS,
	    { .id = 5, .start = 0, .end = 1, .bytes = 0, .seconds = 1,
		.fmt = 'a', .tail = "receiver", .lost = 7, .packets = 7 },
	    "[  5]   0.00-1.00   sec  0.00 Bytes  0.00 bits/sec  0.000 ms"
	    "  7/7 (1e+02%)  receiver\n" },
	{ "udp two-digit loss percent", ROW_UDP_LOSS,
	    { .id = 5, .start = 0, .end = 1, .bytes = 0, .seconds = 1,
		.fmt = 'a', .tail = "", .lost = 12, .packets = 100 },
	    "[  5]   0.00-1.00   sec  0.00 Bytes  0.00 bits/sec  0.000 ms"
	    "  12/100 (12%)  \n" },
	{ "udp summary sender row", ROW_UDP_LOSS,
	    { .id = 5, .start = 0, .end = 3, .bytes = 3.59 * 1048576,
		.seconds = 3, .fmt = 'a', .tail = "sender", .packets = 115 },
	    "[  5]   0.00-3.00   sec  3.59 MBytes  10.0 Mbits/sec  0.000 ms"
	    "  0/115 (0%)  sender\n" },
	{ "udp sum row (udp_parallel2)", ROW_UDP_LOSS,
	    { .id = REPORT_SUM_ID, .start = 0, .end = 2, .bytes = 2553287,
		.seconds = 2, .fmt = 'a', .tail = "receiver",
		.jitter_ms = 0.081, .packets = 78 },
	    "[SUM]   0.00-2.00   sec  2.44 MBytes  10.2 Mbits/sec  0.081 ms"
	    "  0/78 (0%)  receiver\n" },
	{ "udp receiver without an omitted loss count", ROW_UDP_UNKNOWN,
	    { .id = 5, .start = 0, .end = 2, .bytes = 1243752, .seconds = 2,
		.fmt = 'a', .tail = "receiver", .jitter_ms = 0.214,
		.packets = 38 },
	    "[  5]   0.00-2.00   sec  1.19 MBytes  4.98 Mbits/sec  0.214 ms"
	    "  Unknown/38  receiver\n" },
	{ "forced kbit format (-f k)", ROW_TCP_PLAIN,
	    { .id = 5, .start = 0, .end = 1, .bytes = 1987438250, .seconds = 1,
		.fmt = 'k', .tail = "" },
	    "[  5]   0.00-1.00   sec  1.85 GBytes  15899506 Kbits/sec"
	    "                  \n" },
	{ "forced MByte format (-f M)", ROW_TCP_PLAIN,
	    { .id = 5, .start = 0, .end = 1, .bytes = 2376073216.0,
		.seconds = 1, .fmt = 'M', .tail = "" },
	    "[  5]   0.00-1.00   sec  2.21 GBytes  2266 MBytes/sec"
	    "                  \n" },
	{ "interrupted interval 2.00-2.50", ROW_TCP_CWND,
	    { .id = 5, .start = 2, .end = 2.5, .bytes = 833 * 1048576.0,
		.seconds = 0.5, .fmt = 'a', .tail = "", .retransmits = 2,
		.cwnd = 916480 },
	    "[  5]   2.00-2.50   sec   833 MBytes  14.0 Gbits/sec    2    895 "
	    "KBytes       \n" },
	{ "zero seconds gives a zero bitrate", ROW_TCP_PLAIN,
	    { .id = 5, .start = 0, .end = 0, .bytes = 1024, .seconds = 0,
		.fmt = 'a', .tail = "receiver" },
	    "[  5]   0.00-0.00   sec  1.00 KBytes  0.00 bits/sec"
	    "                  receiver\n" },
};

START_TEST(formats_rows_like_the_captures)
{
	const struct row_case *c = &row_cases[_i];
	char buf[REPORT_LINE_LEN];
	int n = report_fmt_row(buf, sizeof(buf), c->kind, &c->row);

	ck_assert_msg(strcmp(buf, c->want) == 0, "%s:\n got  '%s'\n want '%s'",
	    c->name, buf, c->want);
	ck_assert_int_eq(n, (int)strlen(c->want));
}
END_TEST

START_TEST(formats_every_header)
{
	static const struct {
		enum report_header_kind kind;
		int bidir;
		const char *want;
	} hc[] = {
		{ HDR_TCP_CWND, 0, "[ ID] Interval           Transfer     "
		    "Bitrate         Retr  Cwnd\n" },
		{ HDR_TCP_RETR, 0, "[ ID] Interval           Transfer     "
		    "Bitrate         Retr\n" },
		{ HDR_PLAIN, 0, "[ ID] Interval           Transfer     "
		    "Bitrate\n" },
		{ HDR_UDP_SEND, 0, "[ ID] Interval           Transfer     "
		    "Bitrate         Total Datagrams\n" },
		{ HDR_UDP_LOSS, 0, "[ ID] Interval           Transfer     "
		    "Bitrate         Jitter    Lost/Total Datagrams\n" },
		{ HDR_TCP_CWND, 1, "[ ID][Role] Interval           Transfer"
		    "     Bitrate         Retr  Cwnd\n" },
		{ HDR_TCP_RETR, 1, "[ ID][Role] Interval           Transfer"
		    "     Bitrate         Retr\n" },
		{ HDR_UDP_LOSS, 1, "[ ID][Role] Interval           Transfer"
		    "     Bitrate         Jitter    Lost/Total Datagrams\n" },
	};
	char buf[REPORT_LINE_LEN];
	size_t i;

	for (i = 0; i < sizeof(hc) / sizeof(hc[0]); i++) {
		(void)report_fmt_header(buf, sizeof(buf), hc[i].kind,
		    hc[i].bidir);
		ck_assert_str_eq(buf, hc[i].want);
	}
}
END_TEST

START_TEST(formats_statistics_not_available)
{
	char buf[REPORT_LINE_LEN];

	(void)report_fmt_unavailable(buf, sizeof(buf), 5, "sender");
	ck_assert_str_eq(buf, "[  5] (sender statistics not available)\n");
	(void)report_fmt_unavailable(buf, sizeof(buf), 8, "receiver");
	ck_assert_str_eq(buf, "[  8] (receiver statistics not available)\n");
	(void)report_fmt_unavailable(buf, sizeof(buf), REPORT_SUM_ID,
	    "sender");
	ck_assert_str_eq(buf, "[SUM] (sender statistics not available)\n");
}
END_TEST

START_TEST(formats_the_out_of_order_row_with_the_sum_tag)
{
	char buf[REPORT_LINE_LEN];

	(void)report_fmt_ooo(buf, sizeof(buf), "", 0.0, 2.0015, 3);
	ck_assert_str_eq(buf,
	    "[SUM]  0.0- 2.0 sec  3 datagrams received out-of-order\n");
	(void)report_fmt_ooo(buf, sizeof(buf), "[RX-C]", 0.0, 10.04, 12);
	ck_assert_str_eq(buf, "[SUM][RX-C]  0.0-10.0 sec  12 datagrams "
	    "received out-of-order\n");
}
END_TEST

START_TEST(formats_the_cpu_line)
{
	const double local[3] = { 31.5, 0.8, 30.7 };
	const double remote[3] = { 73.3, 1.0, 72.3 };
	const double zero[3] = { 0, 0, 0 };
	char buf[REPORT_LINE_LEN];

	(void)report_fmt_cpu(buf, sizeof(buf), "sender", local, "receiver",
	    remote);
	ck_assert_str_eq(buf, "CPU Utilization: local/sender 31.5% "
	    "(0.8%u/30.7%s), remote/receiver 73.3% (1.0%u/72.3%s)\n");
	(void)report_fmt_cpu(buf, sizeof(buf), "receiver", local, "sender",
	    zero);
	ck_assert_str_eq(buf, "CPU Utilization: local/receiver 31.5% "
	    "(0.8%u/30.7%s), remote/sender 0.0% (0.0%u/0.0%s)\n");
}
END_TEST

START_TEST(formats_the_file_transfer_line)
{
	char buf[REPORT_LINE_LEN];

	(void)report_fmt_diskfile(buf, sizeof(buf), 50000000, 50000000,
	    "/path/to/file50M.bin");
	ck_assert_str_eq(buf, "        Sent 47.7 MByte / 47.7 MByte (100%) "
	    "of /path/to/file50M.bin\n");
	(void)report_fmt_diskfile(buf, sizeof(buf), 320 * 1048576.0,
	    320 * 1048576.0, "/path/to/recv.bin");
	ck_assert_str_eq(buf, "        Sent  320 MByte /  320 MByte (100%) "
	    "of /path/to/recv.bin\n");
	ck_assert_int_eq(report_file_percent(999, 1000), 99);
	ck_assert_int_eq(report_file_percent(0, 0), 100);
}
END_TEST

START_TEST(formats_the_starting_test_line)
{
	struct report_start_info si = { "TCP", 1, 131072, 0, 2, 0, 0, 0 };
	char buf[REPORT_LINE_LEN];

	(void)report_fmt_starting(buf, sizeof(buf), &si);
	ck_assert_str_eq(buf, "Starting Test: protocol: TCP, 1 streams, "
	    "131072 byte blocks, omitting 0 seconds, 2 second test, tos 0\n");
	si.duration = 1;
	si.tos = 16;
	(void)report_fmt_starting(buf, sizeof(buf), &si);
	ck_assert_str_eq(buf, "Starting Test: protocol: TCP, 1 streams, "
	    "131072 byte blocks, omitting 0 seconds, 1 second test, tos 16\n");
	si.bytes = 524288000;
	si.tos = 0;
	(void)report_fmt_starting(buf, sizeof(buf), &si);
	ck_assert_str_eq(buf, "Starting Test: protocol: TCP, 1 streams, "
	    "131072 byte blocks, omitting 0 seconds, 524288000 bytes to send, "
	    "tos 0\n");
	si.bytes = 0;
	si.blocks = 3000;
	(void)report_fmt_starting(buf, sizeof(buf), &si);
	ck_assert_str_eq(buf, "Starting Test: protocol: TCP, 1 streams, "
	    "131072 byte blocks, omitting 0 seconds, 3000 blocks to send, "
	    "tos 0\n");
	si = (struct report_start_info){ "UDP", 1, 32768, 0, 2, 0, 0, 0 };
	(void)report_fmt_starting(buf, sizeof(buf), &si);
	ck_assert_str_eq(buf, "Starting Test: protocol: UDP, 1 streams, "
	    "32768 byte blocks, omitting 0 seconds, 2 second test, tos 0\n");
}
END_TEST

START_TEST(formats_connected_and_separator_lines)
{
	char buf[REPORT_LINE_LEN];

	struct report_conn c4 = { 5, "127.0.0.1", 43760, "127.0.0.1", 5401 };
	struct report_conn c6 = { 12, "::1", 5201, "::1", 59738 };

	(void)report_fmt_connected(buf, sizeof(buf), &c4);
	ck_assert_str_eq(buf, "[  5] local 127.0.0.1 port 43760 connected to "
	    "127.0.0.1 port 5401\n");
	(void)report_fmt_connected(buf, sizeof(buf), &c6);
	ck_assert_str_eq(buf,
	    "[ 12] local ::1 port 5201 connected to ::1 port 59738\n");
	(void)report_fmt_separator(buf, sizeof(buf));
	ck_assert_str_eq(buf,
	    "- - - - - - - - - - - - - - - - - - - - - - - - -\n");
}
END_TEST

START_TEST(truncates_rows_to_the_buffer)
{
	char buf[16];
	int n = report_fmt_row(buf, sizeof(buf), ROW_TCP_PLAIN,
	    &row_cases[2].row);

	ck_assert_int_eq(n, (int)strlen(row_cases[2].want));
	ck_assert_uint_eq(strlen(buf), sizeof(buf) - 1);
	ck_assert_int_eq(strncmp(buf, row_cases[2].want, sizeof(buf) - 1), 0);
}
END_TEST

TCase *
report_rows_tcase(void)
{
	TCase *tc = tcase_create("rows");

	tcase_add_loop_test(tc, formats_rows_like_the_captures, 0,
	    (int)(sizeof(row_cases) / sizeof(row_cases[0])));
	tcase_add_test(tc, formats_every_header);
	tcase_add_test(tc, formats_statistics_not_available);
	tcase_add_test(tc, formats_the_out_of_order_row_with_the_sum_tag);
	tcase_add_test(tc, formats_the_cpu_line);
	tcase_add_test(tc, formats_the_file_transfer_line);
	tcase_add_test(tc, formats_the_starting_test_line);
	tcase_add_test(tc, formats_connected_and_separator_lines);
	tcase_add_test(tc, truncates_rows_to_the_buffer);
	return tc;
}

Suite *
make_suite(void)
{
	Suite *s = suite_create("report");

	suite_add_tcase(s, report_rows_tcase());
	suite_add_tcase(s, report_text_tcase());
	suite_add_tcase(s, report_text_misc_tcase());
	suite_add_tcase(s, report_text_multi_tcase());
	suite_add_tcase(s, report_text_udp_tcase());
	suite_add_tcase(s, report_json_tcase());
	suite_add_tcase(s, report_json_end_tcase());
	return s;
}
