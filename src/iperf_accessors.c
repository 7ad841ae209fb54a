/* iperf_accessors.c - mechanical getters and setters of the public API. */
#include "config.h"

#include <stdlib.h>

#include "iperf.h"
#include "proto.h"
#include "report.h"
#include "test.h"
#include "util.h"
#include "banned.h"

int iperf_get_verbose(struct iperf_test *t) { return t->opt.verbose; }
int iperf_get_control_socket(struct iperf_test *t) { return t->ctrl_sck; }
int iperf_get_test_omit(struct iperf_test *t) { return t->settings.omit; }
int iperf_get_test_duration(struct iperf_test *t) { return t->settings.duration; }
char iperf_get_test_role(struct iperf_test *t) { return t->opt.role; }
int iperf_get_test_reverse(struct iperf_test *t) { return t->settings.reverse; }
int iperf_get_test_bidirectional(struct iperf_test *t) { return t->settings.bidirectional; }
int iperf_get_test_blksize(struct iperf_test *t) { return t->settings.blksize; }
FILE *iperf_get_test_outfile(struct iperf_test *t) { return t->outfile; }
uint64_t iperf_get_test_rate(struct iperf_test *t) { return t->settings.rate; }
uint64_t iperf_get_test_bytes(struct iperf_test *t) { return t->settings.bytes; }
uint64_t iperf_get_test_blocks(struct iperf_test *t) { return t->settings.blocks; }
int iperf_get_test_num_streams(struct iperf_test *t) { return t->settings.num_streams; }
int iperf_get_test_server_port(struct iperf_test *t) { return t->opt.server_port; }
char *iperf_get_test_server_hostname(struct iperf_test *t) { return t->opt.server_hostname; }
int iperf_get_test_protocol_id(struct iperf_test *t) { return t->settings.protocol_id; }
int iperf_get_test_json_output(struct iperf_test *t) { return t->opt.json_output; }
char *iperf_get_test_json_output_string(struct iperf_test *t) { return t->json_output_string; }
int iperf_get_test_one_off(struct iperf_test *t) { return t->opt.one_off; }
int iperf_get_test_daemon(struct iperf_test *t) { return t->opt.daemon; }

void iperf_set_verbose(struct iperf_test *t, int v) { t->opt.verbose = v; }
void iperf_set_test_server_port(struct iperf_test *t, int p) { t->opt.server_port = p; }
void iperf_set_test_duration(struct iperf_test *t, int s) { t->settings.duration = s; }
void iperf_set_test_one_off(struct iperf_test *t, int v) { t->opt.one_off = v; }
void iperf_set_test_num_streams(struct iperf_test *t, int n) { t->settings.num_streams = n; }
void iperf_set_test_blksize(struct iperf_test *t, int b) { t->settings.blksize = b; }
void iperf_set_test_omit(struct iperf_test *t, int o) { t->settings.omit = o; }

void
iperf_set_test_role(struct iperf_test *t, char role)
{
	t->opt.role = role;
	test_update_mode(t);
}

void
iperf_set_test_server_hostname(struct iperf_test *t, const char *host)
{
	(void)str_replace(&t->opt.server_hostname, host);
}

void
iperf_set_test_reverse(struct iperf_test *t, int reverse)
{
	t->settings.reverse = reverse;
	test_update_mode(t);
}

void
iperf_set_test_bidirectional(struct iperf_test *t, int bidir)
{
	t->settings.bidirectional = bidir;
	test_update_mode(t);
}

void
iperf_set_test_json_output(struct iperf_test *t, int json)
{
	t->opt.json_output = json;
	report_select(t);
}
