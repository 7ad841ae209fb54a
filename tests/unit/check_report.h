/*
 * check_report.h - in-memory tests and streams for the reporter suites.
 * A fixture owns a calloc'd struct iperf_test whose outfile is a memory
 * stream, and calloc'd streams with synthetic intervals and results.
 */
#ifndef IPERF_CHECK_REPORT_H
#define IPERF_CHECK_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>

struct iperf_test;
struct iperf_stream;
struct interval_result;
struct cJSON;

struct fx {
	struct iperf_test *t;
	char *buf;
	size_t len;
};

enum fx_proto { FX_TCP, FX_UDP };

/* Report lines used by many tests. */
#define SEP "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
#define LINE_HDR_UDP_SEND "[ ID] Interval           Transfer     Bitrate         " \
	"Total Datagrams\n"
#define LINE_HDR_UDP "[ ID] Interval           Transfer     Bitrate         " \
	"Jitter    Lost/Total Datagrams\n"
#define LINE_HDR_BIDIR_UDP "[ ID][Role] Interval           Transfer     " \
	"Bitrate         Jitter    Lost/Total Datagrams\n"
#define LINE_HDR_CWND "[ ID] Interval           Transfer     Bitrate         " \
	"Retr  Cwnd\n"
#define LINE_HDR_RETR "[ ID] Interval           Transfer     Bitrate         " \
	"Retr\n"
#define LINE_HDR_PLAIN "[ ID] Interval           Transfer     Bitrate\n"
#define LINE_HDR_BIDIR_CWND "[ ID][Role] Interval           Transfer     " \
	"Bitrate         Retr  Cwnd\n"
#define LINE_HDR_BIDIR_RETR "[ ID][Role] Interval           Transfer     " \
	"Bitrate         Retr\n"
#define KIB 1024.0
#define MIB 1048576.0
#define FX_MAXS 4
#define RULE "-----------------------------------------------------------\n"

/* One reporting interval: figures per stream. */
struct fx_iv {
	double start, end;
	struct {
		uint64_t bytes;
		double secs;
		int64_t retr;
		double cwnd;
		uint64_t pk;
		int64_t lost;
		double jit_ms;
	} s[FX_MAXS];
	int omitted;
};

/* End of test: local and peer figures per stream. */
struct fx_ends {
	double local, peer; /* elapsed seconds */
	struct {
		uint64_t bytes, peer_bytes;
		int64_t retr, peer_retr;
		int64_t pk, peer_pk;
		int64_t lost, peer_lost;
		double jit_ms, peer_jit_ms;
		uint64_t ooo;
	} s[FX_MAXS];
};


/* role 'c'/'s'; the mode and retransmit flags follow from the arguments
 * (a sending TCP end has retransmit info). */
void fx_init(struct fx *f, char role, enum fx_proto proto, int reverse,
    int bidir, int streams);
void fx_free(struct fx *f);
/* All output so far (NUL-terminated). */
const char *fx_out(struct fx *f);
/* Forget the output so far. */
void fx_clear(struct fx *f);

struct iperf_stream *fx_stream(struct fx *f, int sock, int sender);
struct interval_result *fx_interval(struct iperf_stream *sp, double start,
    double end, double seconds, uint64_t bytes);
/* Local end-of-test figures: elapsed seconds and bytes moved. */
void fx_final(struct iperf_stream *sp, double seconds, uint64_t bytes);
/* The peer's results for the stream. */
void fx_peer(struct iperf_stream *sp, uint64_t bytes, double end_time,
    int64_t retransmits);

/* Set the ports shown in the stream's "connected" line. */
void fx_ports(struct iperf_stream *sp, int lport, int rport);
/* Compare output, reporting the first line that differs. */
void fx_assert_text(const char *got, const char *want);

/* Keys of a JSON object, joined by ',' (into buf). */
const char *fx_keys(const struct cJSON *o, char *buf, size_t len);

/* Scenario helpers (check_report_scn.c). */
struct interval_result *fx_cw(struct interval_result *ir, int64_t retr,
    double cwnd);
void fx_tick(struct fx *f);
struct iperf_stream *fx_client_start(struct fx *f, int port, int lport);
struct iperf_stream *fx_server_start(struct fx *f, int port, int cport,
    int dport);
void fx_finish(struct fx *f);
void fx_streams(struct fx *f, const int *socks, int n);
void fx_run(struct fx *f, const struct fx_iv *ivs, int n);
void fx_end_setup(struct fx *f, const struct fx_ends *e);
void fx_end(struct fx *f, const struct fx_ends *e);
const char *fx_from_header(struct fx *f);

/* Expected JSON texts from the 3.21 captures (check_report_want.c). */
extern const char want_tcp_client_start[];
extern const char want_tcp_client_intervals[];
extern const char want_tcp_client_end[];
extern const char want_udp_client_intervals[];
extern const char want_udp_client_end[];
extern const char want_udp_server_start[];
extern const char want_udp_server_intervals[];
extern const char want_udp_server_end[];
extern const char want_tcp_server_start[];
extern const char want_tcp_server_end[];
extern const char want_tcp_reverse_end[];
extern const char want_tcp_bidir_end[];
extern const char want_udp_bidir_end[];
extern const char want_error_document[];
extern const char want_tcp_stream_lines[];
/* want with "@SYSINFO@" replaced by this host's uname text (malloc'd). */
char *fx_want(const char *want);
/* cJSON_Print of obj compared with want (NULL obj fails). */
void fx_assert_json(const struct cJSON *obj, const char *want);
/* A seconds value whose x1000 is exactly `ms` (JSON jitter_ms). */
double fx_ms_to_s(double ms);

/* TCases of the suite's files. */
TCase *report_rows_tcase(void);
TCase *report_text_tcase(void);
TCase *report_text_misc_tcase(void);
TCase *report_text_multi_tcase(void);
TCase *report_text_udp_tcase(void);
TCase *report_json_tcase(void);
TCase *report_json_end_tcase(void);

#endif /* IPERF_CHECK_REPORT_H */
