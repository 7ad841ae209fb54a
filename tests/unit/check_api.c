/*
 * check_api.c - the public API without a network: the defaults of
 * captures/3.21/api_probe.txt, every getter/setter pair, the setter side
 * effects of docs/libiperf.3, callbacks, errors, stage functions.
 */
#include "config.h"

#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "check_main.h"
#include "iperf.h"
#include "test_config.h"
#include "iperf_api.h"
#include "proto.h"
#include "report.h"
#include "stream.h"
#include "tcp_info.h"

static struct iperf_test *t;

static void
setup(void)
{
	t = iperf_new_test();
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(iperf_defaults(t), 0);
}

static void
teardown(void)
{
	iperf_free_test(t);
	t = NULL;
}

/* ---- defaults (captures/3.21/api_probe.txt) ----------------------------- */

START_TEST(defaults_match_the_probe)
{
	ck_assert_str_eq(iperf_get_iperf_version(), "3.21");
	ck_assert_int_eq(iperf_get_test_server_port(t), 5201);
	ck_assert_int_eq(iperf_get_test_duration(t), 10);
	ck_assert_int_eq(iperf_get_test_blksize(t), 131072);
	ck_assert_int_eq(iperf_get_test_num_streams(t), 1);
	ck_assert_int_eq(iperf_get_test_role(t), 0);
	ck_assert_int_eq(iperf_get_test_unit_format(t), 'a');
	ck_assert(iperf_get_test_reporter_interval(t) == 1.0);
	ck_assert_int_eq(iperf_get_test_omit(t), 0);
	/* The probe (x86-64) shows 1: the id is SOCK_STREAM, 2 on MIPS. */
	ck_assert_int_eq(iperf_get_test_protocol_id(t), Ptcp);
	ck_assert_uint_eq(iperf_get_test_rate(t), 0);
	ck_assert_int_eq(iperf_get_test_json_output(t), 0);
	ck_assert_str_eq(iperf_strerror(IEACCESSDENIED),
	    "the server is busy running a test. try again later");
	ck_assert_int_eq(iperf_get_test_connect_timeout(t), -1);
	ck_assert_int_eq(iperf_get_test_tos(t), 0);
	ck_assert_int_eq(iperf_get_test_mss(t), 0);
	ck_assert_int_eq(iperf_get_test_bind_port(t), 0);
}
END_TEST

START_TEST(other_defaults)
{
	ck_assert(iperf_get_test_stats_interval(t) == 1.0);
	ck_assert_int_eq(iperf_get_test_pacing_timer(t), DEFAULT_PACING_TIMER);
	ck_assert_int_eq(iperf_get_test_rcv_timeout(t), DEFAULT_NO_MSG_RCVD_TIMEOUT);
	ck_assert(iperf_get_test_bitrate_limit_interval(t) == 5.0);
	ck_assert_int_eq(iperf_get_test_bitrate_limit_stats_per_interval(t), 5);
	ck_assert_uint_eq(iperf_get_test_bitrate_limit(t), 0);
	ck_assert_int_eq(iperf_get_control_socket(t), -1);
	ck_assert_ptr_eq(iperf_get_test_outfile(t), stdout);
	ck_assert_ptr_null(iperf_get_test_server_hostname(t));
	ck_assert_ptr_null(iperf_get_test_template(t));
	ck_assert_ptr_null(iperf_get_test_json_output_string(t));
	ck_assert_ptr_null(iperf_get_test_extra_data(t));
	ck_assert_ptr_null(iperf_get_test_congestion_control(t));
	ck_assert_str_eq(iperf_get_test_timestamp_format(t), "%c ");
	ck_assert_int_eq(iperf_get_test_errno(t), 0);
	ck_assert_int_eq(iperf_get_test_interrupt_signal(t), 0);
	ck_assert_int_eq(i_errno, IENONE);
	/* the default callbacks are installed, so a callback can chain */
	ck_assert(t->on_new_stream == iperf_on_new_stream);
	ck_assert(t->on_test_start == iperf_on_test_start);
	ck_assert(t->on_connect == iperf_on_connect);
	ck_assert(t->on_test_finish == iperf_on_test_finish);
	ck_assert(t->json_callback == NULL);
}
END_TEST

/* ---- plain setter/getter pairs ------------------------------------------- */

START_TEST(int_pairs_round_trip)
{
	iperf_set_verbose(t, 1);
	ck_assert_int_eq(iperf_get_verbose(t), 1);
	iperf_set_control_socket(t, 42);
	ck_assert_int_eq(iperf_get_control_socket(t), 42);
	iperf_set_control_socket(t, -1);
	iperf_set_test_omit(t, 3);
	ck_assert_int_eq(iperf_get_test_omit(t), 3);
	iperf_set_test_duration(t, 5);
	ck_assert_int_eq(iperf_get_test_duration(t), 5);
	iperf_set_test_blksize(t, 1400);
	ck_assert_int_eq(iperf_get_test_blksize(t), 1400);
	ck_assert_int_eq(t->settings.blksize_set, 1);
	iperf_set_test_pacing_timer(t, 2000);
	ck_assert_int_eq(iperf_get_test_pacing_timer(t), 2000);
	iperf_set_test_burst(t, 10);
	ck_assert_int_eq(iperf_get_test_burst(t), 10);
	iperf_set_test_bind_port(t, 5202);
	ck_assert_int_eq(iperf_get_test_bind_port(t), 5202);
	iperf_set_test_server_port(t, 6000);
	ck_assert_int_eq(iperf_get_test_server_port(t), 6000);
	iperf_set_test_socket_bufsize(t, 65536);
	ck_assert_int_eq(iperf_get_test_socket_bufsize(t), 65536);
	iperf_set_test_num_streams(t, 4);
	ck_assert_int_eq(iperf_get_test_num_streams(t), 4);
	iperf_set_test_repeating_payload(t, 1);
	ck_assert_int_eq(iperf_get_test_repeating_payload(t), 1);
	iperf_set_test_timestamps(t, 1);
	ck_assert_int_eq(iperf_get_test_timestamps(t), 1);
	iperf_set_test_get_server_output(t, 1);
	ck_assert_int_eq(iperf_get_test_get_server_output(t), 1);
	iperf_set_test_udp_counters_64bit(t, 1);
	ck_assert_int_eq(iperf_get_test_udp_counters_64bit(t), 1);
	iperf_set_test_one_off(t, 1);
	ck_assert_int_eq(iperf_get_test_one_off(t), 1);
	iperf_set_test_tos(t, 0x10);
	ck_assert_int_eq(iperf_get_test_tos(t), 0x10);
	iperf_set_test_no_delay(t, 1);
	ck_assert_int_eq(iperf_get_test_no_delay(t), 1);
	iperf_set_dont_fragment(t, 1);
	ck_assert_int_eq(iperf_get_dont_fragment(t), 1);
	iperf_set_test_mss(t, 535);
	ck_assert_int_eq(iperf_get_test_mss(t), 535);
	iperf_set_mapped_v4(t, 1);
	ck_assert_int_eq(iperf_get_mapped_v4(t), 1);
	iperf_set_test_connect_timeout(t, 2500);
	ck_assert_int_eq(iperf_get_test_connect_timeout(t), 2500);
	iperf_set_test_idle_timeout(t, 30);
	ck_assert_int_eq(iperf_get_test_idle_timeout(t), 30);
	iperf_set_test_rcv_timeout(t, 5000);
	ck_assert_int_eq(iperf_get_test_rcv_timeout(t), 5000);
	iperf_set_test_json_stream_full_output(t, 1);
	ck_assert_int_eq(iperf_get_test_json_stream_full_output(t), 1);
}
END_TEST

START_TEST(wide_and_double_pairs_round_trip)
{
	uint64_t big = (uint64_t)1 << 40;

	iperf_set_test_rate(t, big);
	ck_assert_uint_eq(iperf_get_test_rate(t), big);
	iperf_set_test_fqrate(t, big + 1);
	ck_assert_uint_eq(iperf_get_test_fqrate(t), big + 1);
	iperf_set_test_bytes(t, big + 2);
	ck_assert_uint_eq(iperf_get_test_bytes(t), big + 2);
	iperf_set_test_blocks(t, 300);
	ck_assert_uint_eq(iperf_get_test_blocks(t), 300);
	iperf_set_test_reporter_interval(t, 0.5);
	ck_assert(iperf_get_test_reporter_interval(t) == 0.5);
	iperf_set_test_stats_interval(t, 0.25);
	ck_assert(iperf_get_test_stats_interval(t) == 0.25);
	iperf_set_test_bitrate_limit_maximum(t, big);
	ck_assert_uint_eq(iperf_get_test_bitrate_limit(t), big);
	iperf_set_test_bitrate_limit_interval(t, 2.5);
	ck_assert(iperf_get_test_bitrate_limit_interval(t) == 2.5);
	ck_assert_int_eq(iperf_get_test_bitrate_limit_stats_per_interval(t), 3);
	iperf_set_test_bitrate_limit_stats_per_interval(t, 7);
	ck_assert_int_eq(iperf_get_test_bitrate_limit_stats_per_interval(t), 7);
}
END_TEST

START_TEST(string_setters_keep_a_copy)
{
	char buf[32];

	strcpy(buf, "example.net");
	iperf_set_test_server_hostname(t, buf);
	strcpy(buf, "changed");
	ck_assert_str_eq(iperf_get_test_server_hostname(t), "example.net");
	iperf_set_test_bind_address(t, "127.0.0.1");
	ck_assert_str_eq(iperf_get_test_bind_address(t), "127.0.0.1");
	iperf_set_test_bind_dev(t, "lo");
	ck_assert_str_eq(iperf_get_test_bind_dev(t), "lo");
	iperf_set_test_extra_data(t, "xyz");
	ck_assert_str_eq(iperf_get_test_extra_data(t), "xyz");
	strcpy(buf, "cubic");
	iperf_set_test_congestion_control(t, buf);
	ck_assert_str_eq(iperf_get_test_congestion_control(t), "cubic");
	iperf_set_test_template(t, "/tmp/iperf-api.XXXXXX");
	ck_assert_str_eq(iperf_get_test_template(t), "/tmp/iperf-api.XXXXXX");
	iperf_set_test_timestamp_format(t, "%H ");
	ck_assert_str_eq(iperf_get_test_timestamp_format(t), "%H ");
	iperf_set_test_logfile(t, "/tmp/x.log");
	ck_assert_str_eq(t->cfg->opt.logfile, "/tmp/x.log");
	iperf_set_test_server_hostname(t, NULL);
	ck_assert_ptr_null(iperf_get_test_server_hostname(t));
}
END_TEST

/* ---- side effects --------------------------------------------------------- */

static int
expected_retr(void)
{
	return tcp_info_has_retransmits() ? 1 : 0;
}

START_TEST(role_and_reverse_recompute_the_mode)
{
	iperf_set_test_role(t, 'c');
	ck_assert_int_eq(iperf_get_test_role(t), 'c');
	ck_assert_int_eq(t->mode, MODE_SENDER);
	ck_assert_int_eq(t->sender_has_retransmits, expected_retr());
	iperf_set_test_reverse(t, 1);
	ck_assert_int_eq(iperf_get_test_reverse(t), 1);
	ck_assert_int_eq(t->mode, MODE_RECEIVER);
	ck_assert_int_eq(t->sender_has_retransmits, -1);
	iperf_set_test_role(t, 's');
	ck_assert_int_eq(t->mode, MODE_SENDER);
	iperf_set_test_reverse(t, 0);
	ck_assert_int_eq(t->mode, MODE_RECEIVER);
}
END_TEST

START_TEST(bidir_on_only_sets_the_mode)
{
	iperf_set_test_role(t, 'c');
	iperf_set_test_reverse(t, 1);
	ck_assert_int_eq(t->sender_has_retransmits, -1);
	iperf_set_test_bidirectional(t, 1);
	ck_assert_int_eq(iperf_get_test_bidirectional(t), 1);
	ck_assert_int_eq(t->mode, MODE_BIDIR);
	/* the retransmit flag is left as it was */
	ck_assert_int_eq(t->sender_has_retransmits, -1);
}
END_TEST

START_TEST(reverse_ignores_a_bidir_flag)
{
	iperf_set_test_role(t, 'c');
	iperf_set_test_bidirectional(t, 1);
	iperf_set_test_reverse(t, 0);
	ck_assert_int_eq(iperf_get_test_bidirectional(t), 1);
	ck_assert_int_eq(t->mode, MODE_SENDER);
}
END_TEST

START_TEST(bidir_off_recomputes_through_reverse)
{
	iperf_set_test_role(t, 'c');
	iperf_set_test_bidirectional(t, 1);
	iperf_set_test_bidirectional(t, 0);
	ck_assert_int_eq(iperf_get_test_bidirectional(t), 0);
	ck_assert_int_eq(t->mode, MODE_SENDER);
	ck_assert_int_eq(t->sender_has_retransmits, expected_retr());
}
END_TEST

START_TEST(udp_sender_has_no_retransmits)
{
	ck_assert_int_eq(set_protocol(t, Pudp), 0);
	ck_assert_int_eq(iperf_get_test_protocol_id(t), Pudp);
	iperf_set_test_role(t, 'c');
	ck_assert_int_eq(t->mode, MODE_SENDER);
	ck_assert_int_eq(t->sender_has_retransmits, 0);
}
END_TEST

START_TEST(json_stream_alone_does_not_turn_on_json)
{
	iperf_set_test_json_stream(t, 1);
	ck_assert_int_eq(iperf_get_test_json_stream(t), 1);
	ck_assert_int_eq(iperf_get_test_json_output(t), 0);
	ck_assert_ptr_eq(t->reporter, &report_text);
	iperf_set_test_json_output(t, 1);
	ck_assert_int_eq(iperf_get_test_json_output(t), 1);
}
END_TEST

START_TEST(zerocopy_sticks_only_with_sendfile)
{
	iperf_set_test_zerocopy(t, 1);
	ck_assert_int_eq(iperf_get_test_zerocopy(t), iperf_has_zerocopy());
	iperf_set_test_zerocopy(t, 0);
	ck_assert_int_eq(iperf_get_test_zerocopy(t), 0);
}
END_TEST

START_TEST(unit_format_is_not_validated)
{
	iperf_set_test_unit_format(t, 'Q');
	ck_assert_int_eq(iperf_get_test_unit_format(t), 'Q');
}
END_TEST

START_TEST(set_state_sets_the_state)
{
	iperf_set_test_state(t, TEST_RUNNING);
	ck_assert_int_eq(t->run.state, TEST_RUNNING);
}
END_TEST

START_TEST(protocols_by_id)
{
	ck_assert_ptr_nonnull(get_protocol(t, Ptcp));
	ck_assert_ptr_nonnull(get_protocol(t, Pudp));
	ck_assert_ptr_ne(get_protocol(t, Ptcp), get_protocol(t, Pudp));
	ck_assert_ptr_null(get_protocol(t, 99));
	ck_assert_int_eq(i_errno, IEPROTOCOL);
	ck_assert_int_eq(iperf_get_test_errno(t), IEPROTOCOL);
	ck_assert_int_eq(set_protocol(t, 99), -1);
	ck_assert_int_eq(iperf_get_test_protocol_id(t), Ptcp);
	ck_assert_int_eq(set_protocol(t, Pudp), 0);
	ck_assert_int_eq(iperf_get_test_blksize(t), t->proto->default_blksize > 0 ?
	    t->proto->default_blksize : DEFAULT_TCP_BLKSIZE);
	ck_assert_int_eq(set_protocol(t, Ptcp), 0);
	ck_assert_int_eq(iperf_get_test_blksize(t), DEFAULT_TCP_BLKSIZE);
}
END_TEST

START_TEST(auth_setters_refuse_half_a_configuration)
{
	iperf_set_test_client_username(t, "alice");
	iperf_set_test_client_password(t, "s3cret");
	iperf_set_test_client_rsa_pubkey_from_file(t, "/nonexistent/key.pem");
	iperf_set_test_client_rsa_pubkey(t, "bm90IGEga2V5"); /* "not a key" */
	ck_assert_str_eq(t->cfg->opt.auth_username, "alice");
	ck_assert_ptr_null(t->cfg->auth.public_key);
	/* a user without a usable key: the client refuses to run */
	ck_assert_int_eq(auth_client_token(t), -1);
	ck_assert_int_eq(iperf_get_test_errno(t), IESETCLIENTAUTH);

	iperf_set_test_role(t, 's');
	iperf_set_test_server_authorized_users(t, "/nonexistent/users.csv");
	iperf_set_test_server_rsa_privkey_from_file(t, "/nonexistent/key.pem");
	ck_assert_ptr_null(t->cfg->auth.private_key);
	/* a users file without a key: refused, never "no authentication" */
	ck_assert_int_eq(auth_server_check(t), -1);
	ck_assert_int_eq(iperf_get_test_errno(t), IESETSERVERAUTH);
	iperf_set_test_server_skew_threshold(t, 30);
	ck_assert_int_eq(t->cfg->opt.auth_skew_threshold_s, 30);
}
END_TEST

/* ---- callbacks ------------------------------------------------------------ */

static int finish_calls;

static void
count_finish(struct iperf_test *test)
{
	(void)test;
	finish_calls++;
}

static void
json_cb(struct iperf_test *test, char *json)
{
	(void)test;
	(void)json;
}

START_TEST(callback_setters_install)
{
	iperf_set_on_test_finish_callback(t, count_finish);
	ck_assert(t->on_test_finish == count_finish);
	iperf_set_on_test_start_callback(t, count_finish);
	ck_assert(t->on_test_start == count_finish);
	iperf_set_on_test_connect_callback(t, count_finish);
	ck_assert(t->on_connect == count_finish);
	iperf_set_on_new_stream_callback(t, iperf_on_new_stream);
	ck_assert(t->on_new_stream == iperf_on_new_stream);
	iperf_set_test_json_callback(t, json_cb);
	ck_assert(t->json_callback == json_cb);
	t->on_test_finish(t);
	ck_assert_int_eq(finish_calls, 1);
	iperf_on_test_finish(t); /* the default does nothing */
}
END_TEST

static char *got_json;

static void
keep_json(struct iperf_test *test, char *json)
{
	(void)test;
	free(got_json);
	got_json = strdup(json);
}

START_TEST(json_start_and_finish_emit_a_document)
{
	iperf_set_test_json_output(t, 1);
	iperf_set_test_json_callback(t, keep_json);
	ck_assert_int_eq(iperf_json_finish(t), -1);
	ck_assert_int_eq(iperf_json_start(t), 0);
	iperf_err(t, "something %d", 42);
	ck_assert_int_eq(iperf_json_finish(t), 0);
	ck_assert_ptr_nonnull(got_json);
	ck_assert_ptr_nonnull(strstr(got_json, "\"start\""));
	ck_assert_ptr_nonnull(strstr(got_json, "something 42"));
	ck_assert_str_eq(iperf_get_test_json_output_string(t), got_json);
	free(got_json);
	got_json = NULL;
}
END_TEST

START_TEST(printf_and_iflush_write_the_outfile)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	t->outfile = f;
	ck_assert_int_eq(iperf_printf(t, "hello %s\n", "world"), 12);
	ck_assert_int_eq(iflush(t), 0);
	ck_assert_str_eq(buf, "hello world\n");
	t->outfile = stdout;
	fclose(f);
	free(buf);
}
END_TEST

/* ---- errors, stages ------------------------------------------------------- */

START_TEST(strerror_texts)
{
	errno = 0;
	ck_assert_str_eq(iperf_strerror(IENONE), "no error");
	ck_assert_str_eq(iperf_strerror(IEREVERSEBIDIR),
	    "cannot be both reverse and bidirectional");
	errno = ECONNREFUSED;
	ck_assert_str_eq(iperf_strerror(IECONNECT),
	    "unable to connect to server - server may have stopped running or "
	    "use a different port, firewall issue, etc.: Connection refused");
}
END_TEST

START_TEST(unit_value_errors_set_errarg)
{
	char a0[] = "iperf3", a1[] = "-c", a2[] = "localhost", a3[] = "-b",
	    a4[] = "12Q";
	char *argv[] = { a0, a1, a2, a3, a4, NULL };

	ck_assert_int_eq(iperf_parse_arguments(t, 5, argv), -1);
	ck_assert_int_eq(i_errno, IEUNITVAL);
	ck_assert_int_eq(iperf_get_test_errno(t), IEUNITVAL);
	ck_assert_ptr_nonnull(errarg);
	ck_assert_str_eq(errarg, "12Q");
	ck_assert_str_eq(iperf_get_test_error_string(t),
	    "invalid unit value or suffix: '12Q'");
}
END_TEST

START_TEST(parse_arguments_twice)
{
	char a0[] = "iperf3", a1[] = "-c", a2[] = "localhost", a3[] = "-t",
	    a4[] = "3", a5[] = "-R";
	char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };

	ck_assert_int_eq(iperf_parse_arguments(t, 6, argv), 0);
	ck_assert_int_eq(iperf_get_test_duration(t), 3);
	ck_assert_int_eq(iperf_get_test_reverse(t), 1);
	ck_assert_int_eq(iperf_parse_arguments(t, 5, argv), 0);
	ck_assert_int_eq(iperf_get_test_duration(t), 3);
}
END_TEST

static void
assert_refused(int rc)
{
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(i_errno, IEBADSTAGE);
	ck_assert_int_eq(iperf_get_test_errno(t), IEBADSTAGE);
	ck_assert_int_eq(iperf_get_test_state(t), 0);
}

START_TEST(stages_refuse_the_wrong_role_or_state)
{
	int (*const stages[])(struct iperf_test *) = {
		iperf_connect, iperf_handle_message_client, iperf_client_end,
		iperf_accept, iperf_handle_message_server,
		iperf_exchange_parameters, iperf_exchange_results,
	};
	size_t i;

	/* no role */
	for (i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
		i_errno = 0;
		assert_refused(stages[i](t));
	}
	assert_refused(iperf_create_streams(t, 1));
	/* a client that is not connected; a server that accepted nobody */
	iperf_set_test_role(t, 'c');
	assert_refused(iperf_handle_message_client(t));
	assert_refused(iperf_exchange_parameters(t));
	assert_refused(iperf_create_streams(t, 1));
	assert_refused(iperf_exchange_results(t));
	assert_refused(iperf_client_end(t));
	assert_refused(iperf_accept(t));
	iperf_set_test_role(t, 's');
	assert_refused(iperf_handle_message_server(t));
	assert_refused(iperf_exchange_parameters(t));
	assert_refused(iperf_create_streams(t, 0));
	assert_refused(iperf_exchange_results(t));
	assert_refused(iperf_connect(t));
	assert_refused(iperf_client_end(t));
	ck_assert_int_eq(iperf_get_control_socket(t), -1);
	ck_assert_str_eq(iperf_strerror(IEBADSTAGE),
	    "stage function called in the wrong role or state of the test");
}
END_TEST

/* 3.12's iperf_send/iperf_recv: one block per stream in the set. */
START_TEST(send_and_recv_move_one_block_per_stream_in_the_set)
{
	int sv[2];
	struct iperf_stream *tx, *rx;
	fd_set set;

	ck_assert_int_eq(iperf_send(t, NULL), -1);
	ck_assert_int_eq(i_errno, IESTREAMWRITE);
	ck_assert_int_eq(iperf_recv(t, NULL), -1);
	ck_assert_int_eq(i_errno, IESTREAMREAD);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	iperf_set_test_blksize(t, 100);
	tx = iperf_new_stream(t, sv[0], 1);
	ck_assert_ptr_nonnull(tx);
	iperf_add_stream(t, tx);
	ck_assert_int_eq(iperf_init_stream(tx, t), 0);
	rx = iperf_new_stream(t, sv[1], 0);
	ck_assert_ptr_nonnull(rx);
	iperf_add_stream(t, rx);
	ck_assert_int_eq(iperf_init_stream(rx, t), 0);
	FD_ZERO(&set);
	FD_SET(sv[0], &set);
	FD_SET(sv[1], &set);
	ck_assert_int_eq(iperf_send(t, &set), 0);
	ck_assert(!FD_ISSET(sv[0], &set)); /* handled: cleared */
	ck_assert(FD_ISSET(sv[1], &set));  /* not a sender */
	ck_assert_uint_eq(tx->w.live.bytes, 100);
	ck_assert_uint_eq(tx->w.live.blocks, 1);
	ck_assert_int_eq(iperf_recv(t, &set), 0);
	ck_assert(!FD_ISSET(sv[1], &set));
	ck_assert_uint_eq(rx->w.live.bytes, 100);
	/* while the streams' threads own them: refused */
	FD_SET(sv[0], &set);
	tx->w.thread_started = 1;
	ck_assert_int_eq(iperf_send(t, &set), -1);
	ck_assert_int_eq(i_errno, IEBADSTAGE);
	ck_assert_int_eq(iperf_recv(t, &set), -1);
	ck_assert_int_eq(iperf_send_mt(tx), -1);
	ck_assert_int_eq(i_errno, IEBADSTAGE);
	ck_assert_uint_eq(tx->w.live.bytes, 100);
	tx->w.thread_started = 0;
}
END_TEST

START_TEST(working_stages)
{
	char msg[8] = "x";

	ck_assert_int_eq(iperf_init_test(t), 0);
	ck_assert_int_eq(iperf_create_send_timers(t), 0);
	iperf_check_total_rate(t, 1000);
	iperf_check_throttle(NULL, NULL);
	ck_assert_int_eq(iperf_set_send_state(t, TEST_START), -1);
	ck_assert_int_eq(i_errno, IESENDMESSAGE);
	ck_assert_int_eq(has_tcpinfo_retransmits(), tcp_info_has_retransmits());
	ck_assert_int_eq(get_rtt(NULL), -1);
	build_tcpinfo_message(NULL, msg);
	ck_assert_str_eq(msg, "");
	iperf_reset_stats(t);
}
END_TEST

START_TEST(send_state_over_a_socket)
{
	int sv[2];
	signed char b = 0;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	iperf_set_control_socket(t, sv[0]);
	ck_assert_int_eq(iperf_set_send_state(t, EXCHANGE_RESULTS), 0);
	ck_assert_int_eq(t->run.state, EXCHANGE_RESULTS);
	ck_assert_int_eq(read(sv[1], &b, 1), 1);
	ck_assert_int_eq(b, EXCHANGE_RESULTS);
	close(sv[1]);
	/* the test closes its control socket when it is freed */
}
END_TEST

START_TEST(streams_through_the_api)
{
	int sv[2];
	struct iperf_stream *sp;
	char buf[256];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	iperf_set_test_blksize(t, 128);
	sp = iperf_new_stream(t, sv[0], 1);
	ck_assert_ptr_nonnull(sp);
	iperf_add_stream(t, sp);
	ck_assert_int_eq(iperf_init_stream(sp, t), 0);
	ck_assert_int_eq(iperf_send_mt(sp), 128);
	ck_assert_int_eq(read(sv[1], buf, sizeof(buf)), 128);
	ck_assert_int_eq(iperf_recv_mt(sp), -1);
	ck_assert_int_eq(i_errno, IESTREAMREAD);
	iperf_free_stream(sp);
	ck_assert_ptr_null(t->run.streams);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(reset_clears_the_error)
{
	ck_assert_int_eq(iperf_connect(t), -1);
	iperf_reset_test(t);
	ck_assert_int_eq(iperf_get_test_errno(t), 0);
	ck_assert_int_eq(i_errno, 0);
}
END_TEST

START_TEST(refused_connection_is_ieconnect)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	iperf_set_test_role(t, 'c');
	iperf_set_test_server_hostname(t, "127.0.0.1");
	iperf_set_test_server_port(t, ntohs(sa.sin_port));
	iperf_set_test_json_output(t, 1);
	iperf_set_test_json_callback(t, json_cb);
	ck_assert_int_eq(iperf_run_client(t), -1);
	ck_assert_int_eq(i_errno, IECONNECT);
	ck_assert_str_eq(iperf_strerror(i_errno),
	    "unable to connect to server - server may have stopped running or "
	    "use a different port, firewall issue, etc.: Connection refused");
	ck_assert_int_eq(iperf_get_test_errno(t), IECONNECT);
	ck_assert_ptr_nonnull(iperf_get_test_json_output_string(t));
	ck_assert_ptr_nonnull(strstr(iperf_get_test_json_output_string(t),
	    "\"error\":\t\"unable to connect to server"));
	close(fd);
}
END_TEST

START_TEST(got_sigend_interrupts_without_exiting)
{
	iperf_got_sigend(t, 15);
	ck_assert_int_eq(iperf_get_test_interrupt_signal(t), 15);
}
END_TEST

START_TEST(errexit_exits_1)
{
	iperf_errexit(t, "bye");
}
END_TEST

START_TEST(signormalexit_exits_0)
{
	iperf_signormalexit(t, "bye");
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("defaults");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, defaults_match_the_probe);
	tcase_add_test(tc, other_defaults);
	suite_add_tcase(s, tc);

	tc = tcase_create("accessors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, int_pairs_round_trip);
	tcase_add_test(tc, wide_and_double_pairs_round_trip);
	tcase_add_test(tc, string_setters_keep_a_copy);
	suite_add_tcase(s, tc);

	tc = tcase_create("side_effects");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, role_and_reverse_recompute_the_mode);
	tcase_add_test(tc, bidir_on_only_sets_the_mode);
	tcase_add_test(tc, reverse_ignores_a_bidir_flag);
	tcase_add_test(tc, bidir_off_recomputes_through_reverse);
	tcase_add_test(tc, udp_sender_has_no_retransmits);
	tcase_add_test(tc, json_stream_alone_does_not_turn_on_json);
	tcase_add_test(tc, zerocopy_sticks_only_with_sendfile);
	tcase_add_test(tc, unit_format_is_not_validated);
	tcase_add_test(tc, set_state_sets_the_state);
	tcase_add_test(tc, protocols_by_id);
	tcase_add_test(tc, auth_setters_refuse_half_a_configuration);
	suite_add_tcase(s, tc);

	tc = tcase_create("output");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, callback_setters_install);
	tcase_add_test(tc, json_start_and_finish_emit_a_document);
	tcase_add_test(tc, printf_and_iflush_write_the_outfile);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors_and_stages");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, strerror_texts);
	tcase_add_test(tc, unit_value_errors_set_errarg);
	tcase_add_test(tc, parse_arguments_twice);
	tcase_add_test(tc, stages_refuse_the_wrong_role_or_state);
	tcase_add_test(tc, send_and_recv_move_one_block_per_stream_in_the_set);
	tcase_add_test(tc, working_stages);
	tcase_add_test(tc, send_state_over_a_socket);
	tcase_add_test(tc, streams_through_the_api);
	tcase_add_test(tc, reset_clears_the_error);
	tcase_add_test(tc, got_sigend_interrupts_without_exiting);
	tcase_add_test(tc, refused_connection_is_ieconnect);
	/* These end the process: only where each test runs in a fork. */
	if (getenv("CK_FORK") == NULL || strcmp(getenv("CK_FORK"), "no") != 0) {
		tcase_add_exit_test(tc, errexit_exits_1, 1);
		tcase_add_exit_test(tc, signormalexit_exits_0, 0);
	}
	suite_add_tcase(s, tc);
	return s;
}
