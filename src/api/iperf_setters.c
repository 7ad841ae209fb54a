/*
 * iperf_setters.c - the setters of the public API (docs/libiperf.3),
 * with upstream's side effects: role, reverse and bidir recompute the
 * direction mode; json_stream does not turn JSON output on; zerocopy only
 * sticks where sendfile() exists; the unit format is not validated.
 * String setters keep a copy.  An allocation failure leaves the field
 * unset (NULL), as a void setter has no way to report it.
 */
#include "config.h"

#include <stdlib.h>

#include "iperf.h"
#include "iperf_error.h"
#include "proto.h"
#include "report.h"
#include "tcp_info.h"
#include "test.h"
#include "util.h"
#include "test_config.h"
#include "banned.h"

void iperf_set_verbose(struct iperf_test *t, int v) { t->cfg->opt.verbose = v; }
void iperf_set_control_socket(struct iperf_test *t, int s) { t->run.ses.ctrl_sck = s; }
void iperf_set_test_omit(struct iperf_test *t, int o) { t->settings.omit = o; }
void iperf_set_test_duration(struct iperf_test *t, int s) { t->settings.duration = s; }
void iperf_set_test_reporter_interval(struct iperf_test *t, double i) { t->cfg->opt.reporter_interval = i; }
void iperf_set_test_stats_interval(struct iperf_test *t, double i) { t->cfg->opt.stats_interval = i; }
void iperf_set_test_rate(struct iperf_test *t, uint64_t r) { t->settings.rate = r; }
void iperf_set_test_fqrate(struct iperf_test *t, uint64_t r) { t->settings.fqrate = r; }
void iperf_set_test_pacing_timer(struct iperf_test *t, int p) { t->settings.pacing_timer = p; }
void iperf_set_test_bytes(struct iperf_test *t, uint64_t b) { t->settings.bytes = b; }
void iperf_set_test_blocks(struct iperf_test *t, uint64_t b) { t->settings.blocks = b; }
void iperf_set_test_burst(struct iperf_test *t, int b) { t->settings.burst = b; }
void iperf_set_test_bind_port(struct iperf_test *t, int p) { t->cfg->opt.bind_port = p; }
void iperf_set_test_server_port(struct iperf_test *t, int p) { t->cfg->opt.server_port = p; }
void iperf_set_test_socket_bufsize(struct iperf_test *t, int b) { t->settings.socket_bufsize = b; }
void iperf_set_test_num_streams(struct iperf_test *t, int n) { t->settings.num_streams = n; }
void iperf_set_test_repeating_payload(struct iperf_test *t, int r) { t->settings.repeating_payload = r; }
void iperf_set_test_timestamps(struct iperf_test *t, int v) { t->cfg->opt.timestamps = v; }
void iperf_set_test_json_stream(struct iperf_test *t, int v) { t->cfg->opt.json_stream = v; }
void iperf_set_test_json_stream_full_output(struct iperf_test *t, int v) { t->cfg->opt.json_stream_full_output = v; }
void iperf_set_test_get_server_output(struct iperf_test *t, int v) { t->settings.get_server_output = v; }
void iperf_set_test_unit_format(struct iperf_test *t, char f) { t->cfg->opt.unit_format = f; }
void iperf_set_test_udp_counters_64bit(struct iperf_test *t, int v) { t->settings.udp_counters_64bit = v; }
void iperf_set_test_one_off(struct iperf_test *t, int v) { t->cfg->opt.one_off = v; }
void iperf_set_test_tos(struct iperf_test *t, int v) { t->settings.tos = v; }
void iperf_set_test_no_delay(struct iperf_test *t, int v) { t->settings.no_delay = v; }
void iperf_set_dont_fragment(struct iperf_test *t, int v) { t->settings.dont_fragment = v; }
void iperf_set_test_mss(struct iperf_test *t, int v) { t->settings.mss = v; }
void iperf_set_mapped_v4(struct iperf_test *t, const int v) { t->mapped_v4 = v; }
void iperf_set_test_connect_timeout(struct iperf_test *t, int ms) { t->cfg->opt.connect_timeout_ms = ms; }
void iperf_set_test_idle_timeout(struct iperf_test *t, int s) { t->cfg->opt.idle_timeout_s = s; }
void iperf_set_test_rcv_timeout(struct iperf_test *t, int ms) { t->cfg->opt.rcv_timeout_ms = ms; }
void iperf_set_test_bitrate_limit_maximum(struct iperf_test *t, uint64_t bps) { t->cfg->opt.bitrate_limit = bps; }
void iperf_set_test_bitrate_limit_interval(struct iperf_test *t, double s) { t->cfg->opt.bitrate_limit_interval = s; }
void iperf_set_test_bitrate_limit_stats_per_interval(struct iperf_test *t, int n) { t->cfg->opt.bitrate_limit_samples = n; }

void iperf_set_test_logfile(struct iperf_test *t, const char *v) { (void)str_replace(&t->cfg->opt.logfile, v); }
void iperf_set_test_timestamp_format(struct iperf_test *t, const char *v) { (void)str_replace(&t->cfg->opt.timestamp_format, v); }
void iperf_set_test_server_hostname(struct iperf_test *t, const char *v) { (void)str_replace(&t->cfg->opt.server_hostname, v); }
void iperf_set_test_template(struct iperf_test *t, const char *v) { (void)str_replace(&t->cfg->opt.tmp_template, v); }
void iperf_set_test_bind_address(struct iperf_test *t, const char *v) { (void)str_replace(&t->cfg->opt.bind_address, v); }
void iperf_set_test_bind_dev(struct iperf_test *t, const char *v) { (void)str_replace(&t->cfg->opt.bind_dev, v); }
void iperf_set_test_extra_data(struct iperf_test *t, const char *v) { (void)str_replace(&t->settings.extra_data, v); }
void iperf_set_test_congestion_control(struct iperf_test *t, char *v) { (void)str_replace(&t->settings.congestion, v); }

/* An explicit block size: the transport does not pick its own. */
void
iperf_set_test_blksize(struct iperf_test *t, int b)
{
	t->settings.blksize = b;
	t->settings.blksize_set = 1;
}

void
iperf_set_test_state(struct iperf_test *t, signed char state)
{
	t->run.state = state;
	report_debug(t, 3, "State change: State set to %d", state);
}

void
iperf_set_test_json_output(struct iperf_test *t, int json)
{
	t->cfg->opt.json_output = json;
	report_select(t);
}

int
iperf_has_zerocopy(void)
{
#ifdef HAVE_SENDFILE
	return 1;
#else
	return 0;
#endif
}

void
iperf_set_test_zerocopy(struct iperf_test *t, int z)
{
	t->settings.zerocopy = z && iperf_has_zerocopy();
}

/*
 * The direction from role and reverse only (a bidir flag already set is
 * ignored here), and whether this end's sender can report retransmits:
 * TCP, not purely receiving, and the system gives retransmit counts.
 */
static void
mode_from_reverse(struct iperf_test *t)
{
	int client = t->cfg->opt.role == 'c';

	if (client)
		t->mode = t->settings.reverse ? MODE_RECEIVER : MODE_SENDER;
	else
		t->mode = t->settings.reverse ? MODE_SENDER : MODE_RECEIVER;
	if (t->mode == MODE_RECEIVER)
		t->sender_has_retransmits = -1;
	else
		t->sender_has_retransmits =
		    t->settings.protocol_id == Ptcp && tcp_info_has_retransmits();
}

void
iperf_set_test_role(struct iperf_test *t, char role)
{
	t->cfg->opt.role = role;
	mode_from_reverse(t);
}

void
iperf_set_test_reverse(struct iperf_test *t, int reverse)
{
	t->settings.reverse = reverse;
	mode_from_reverse(t);
}

/* On: only the mode changes.  Off: as iperf_set_test_reverse(). */
void
iperf_set_test_bidirectional(struct iperf_test *t, int bidir)
{
	t->settings.bidirectional = bidir;
	if (bidir)
		t->mode = MODE_BIDIR;
	else
		iperf_set_test_reverse(t, t->settings.reverse);
}

int
set_protocol(struct iperf_test *t, int prot_id)
{
	const struct iperf_proto_ops *p = proto_find(prot_id);

	if (p == NULL) {
		iperf_fail(t, IEPROTOCOL, 0);
		return test_api_fail(t);
	}
	t->settings.protocol_id = prot_id;
	t->proto = p;
	if (!t->settings.blksize_set && p->default_blksize > 0)
		t->settings.blksize = p->default_blksize;
	return 0;
}

/* ---- callbacks ---------------------------------------------------------- */

void
iperf_set_on_new_stream_callback(struct iperf_test *t,
    void (*cb)(struct iperf_stream *))
{
	t->on_new_stream = cb;
}

void
iperf_set_on_test_start_callback(struct iperf_test *t,
    void (*cb)(struct iperf_test *))
{
	t->on_test_start = cb;
}

void
iperf_set_on_test_connect_callback(struct iperf_test *t,
    void (*cb)(struct iperf_test *))
{
	t->on_connect = cb;
}

void
iperf_set_on_test_finish_callback(struct iperf_test *t,
    void (*cb)(struct iperf_test *))
{
	t->on_test_finish = cb;
}

void
iperf_set_test_json_callback(struct iperf_test *t,
    void (*cb)(struct iperf_test *, char *))
{
	t->json_callback = cb;
}

/* --max-tests / --max-tests-per-ip (extensions; see iperf_api.h). */
int
iperf_set_test_max_tests(struct iperf_test *t, int n)
{
	if (n < 1 || n > IPERF_MAX_TESTS) {
		(void)iperf_fail(t, IEMAXTESTS, 0);
		return test_api_fail(t);
	}
	t->cfg->opt.max_tests = n;
	return 0;
}

int
iperf_set_test_max_tests_per_ip(struct iperf_test *t, int per_ip)
{
	if (per_ip < 0 || per_ip > IPERF_MAX_TESTS) {
		(void)iperf_fail(t, IEMAXTESTSPERIP, 0);
		return test_api_fail(t);
	}
	t->cfg->opt.max_tests_per_ip = per_ip;
	return 0;
}
