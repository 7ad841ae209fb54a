/*
 * iperf_accessors.c - the getters of the public API: each reads one field
 * of the test (docs/libiperf.3).
 */
#include "config.h"

#include <stdlib.h>

#include "iperf.h"
#include "banned.h"

int iperf_get_verbose(struct iperf_test *t) { return t->opt->verbose; }
int iperf_get_control_socket(struct iperf_test *t) { return t->run.ses.ctrl_sck; }
int iperf_get_control_socket_mss(struct iperf_test *t) { return t->run.cli.ctrl_mss; }
int iperf_get_test_omit(struct iperf_test *t) { return t->settings.omit; }
int iperf_get_test_duration(struct iperf_test *t) { return t->settings.duration; }
char iperf_get_test_role(struct iperf_test *t) { return t->opt->role; }
int iperf_get_test_reverse(struct iperf_test *t) { return t->settings.reverse; }
int iperf_get_test_bidirectional(struct iperf_test *t) { return t->settings.bidirectional; }
int iperf_get_test_blksize(struct iperf_test *t) { return t->settings.blksize; }
FILE *iperf_get_test_outfile(struct iperf_test *t) { return t->outfile; }
uint64_t iperf_get_test_rate(struct iperf_test *t) { return t->settings.rate; }
uint64_t iperf_get_test_fqrate(struct iperf_test *t) { return t->settings.fqrate; }
int iperf_get_test_pacing_timer(struct iperf_test *t) { return t->settings.pacing_timer; }
uint64_t iperf_get_test_bytes(struct iperf_test *t) { return t->settings.bytes; }
uint64_t iperf_get_test_blocks(struct iperf_test *t) { return t->settings.blocks; }
int iperf_get_test_burst(struct iperf_test *t) { return t->settings.burst; }
int iperf_get_test_socket_bufsize(struct iperf_test *t) { return t->settings.socket_bufsize; }
double iperf_get_test_reporter_interval(struct iperf_test *t) { return t->opt->reporter_interval; }
double iperf_get_test_stats_interval(struct iperf_test *t) { return t->opt->stats_interval; }
int iperf_get_test_num_streams(struct iperf_test *t) { return t->settings.num_streams; }
int iperf_get_test_repeating_payload(struct iperf_test *t) { return t->settings.repeating_payload; }
int iperf_get_test_timestamps(struct iperf_test *t) { return t->opt->timestamps; }
int iperf_get_test_bind_port(struct iperf_test *t) { return t->opt->bind_port; }
int iperf_get_test_server_port(struct iperf_test *t) { return t->opt->server_port; }
char *iperf_get_test_server_hostname(struct iperf_test *t) { return t->opt->server_hostname; }
char *iperf_get_test_template(struct iperf_test *t) { return t->opt->tmp_template; }
int iperf_get_test_protocol_id(struct iperf_test *t) { return t->settings.protocol_id; }
int iperf_get_test_json_output(struct iperf_test *t) { return t->opt->json_output; }
char *iperf_get_test_json_output_string(struct iperf_test *t) { return t->run.rep.json_output_string; }
int iperf_get_test_json_stream(struct iperf_test *t) { return t->opt->json_stream; }
int iperf_get_test_json_stream_full_output(struct iperf_test *t) { return t->opt->json_stream_full_output; }
int iperf_get_test_zerocopy(struct iperf_test *t) { return t->settings.zerocopy; }
int iperf_get_test_get_server_output(struct iperf_test *t) { return t->settings.get_server_output; }
char iperf_get_test_unit_format(struct iperf_test *t) { return t->opt->unit_format; }
char *iperf_get_test_bind_address(struct iperf_test *t) { return t->opt->bind_address; }
char *iperf_get_test_bind_dev(struct iperf_test *t) { return t->opt->bind_dev; }
int iperf_get_test_udp_counters_64bit(struct iperf_test *t) { return t->settings.udp_counters_64bit; }
int iperf_get_test_one_off(struct iperf_test *t) { return t->opt->one_off; }
int iperf_get_test_tos(struct iperf_test *t) { return t->settings.tos; }
char *iperf_get_test_extra_data(struct iperf_test *t) { return t->settings.extra_data; }
int iperf_get_test_no_delay(struct iperf_test *t) { return t->settings.no_delay; }
int iperf_get_test_connect_timeout(struct iperf_test *t) { return t->opt->connect_timeout_ms; }
int iperf_get_dont_fragment(struct iperf_test *t) { return t->settings.dont_fragment; }
char *iperf_get_test_congestion_control(struct iperf_test *t) { return t->settings.congestion; }
int iperf_get_test_mss(struct iperf_test *t) { return t->settings.mss; }
int iperf_get_mapped_v4(struct iperf_test *t) { return t->mapped_v4; }
int iperf_get_test_idle_timeout(struct iperf_test *t) { return t->opt->idle_timeout_s; }
int iperf_get_test_max_tests(struct iperf_test *t) { return t->opt->max_tests > 1 ? t->opt->max_tests : 1; }
int iperf_get_test_max_tests_per_ip(struct iperf_test *t) { return t->opt->max_tests_per_ip; }
int iperf_get_test_rcv_timeout(struct iperf_test *t) { return t->opt->rcv_timeout_ms; }
uint64_t iperf_get_test_bitrate_limit(struct iperf_test *t) { return t->opt->bitrate_limit; }
double iperf_get_test_bitrate_limit_interval(struct iperf_test *t) { return t->opt->bitrate_limit_interval; }
int iperf_get_test_daemon(struct iperf_test *t) { return t->opt->daemon; }

const char *
iperf_get_test_timestamp_format(struct iperf_test *t)
{
	return t->opt->timestamp_format != NULL ? t->opt->timestamp_format :
	    IPERF_TIMESTAMP_DEFAULT;
}

/* Set, or what the server uses: one sample per second of the interval. */
int
iperf_get_test_bitrate_limit_stats_per_interval(struct iperf_test *t)
{
	double win = t->opt->bitrate_limit_interval;
	int n;

	if (t->opt->bitrate_limit_samples > 0)
		return t->opt->bitrate_limit_samples;
	if (win <= 0)
		return 1;
	n = (int)win;
	return (double)n < win ? n + 1 : n;
}

char *
iperf_get_iperf_version(void)
{
	static char version[] = IPERF_VERSION_COMPAT;

	return version;
}
