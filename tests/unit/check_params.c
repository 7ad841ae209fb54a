/* check_params.c - parameter and result documents (pure JSON <-> settings). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check_main.h"
#include "ext.h"
#include "iperf.h"
#include "test_config.h"
#include "json.h"
#include "params.h"
#include "proto.h"
#include "stream.h"

static struct iperf_test *t;

static void
setup(void)
{
	t = iperf_new_test();
	ck_assert_ptr_nonnull(t);
	iperf_defaults(t);
	/* Our client asks every server for "clamp" (ext.h); the documents
	 * below are the stock ones and each other feature's own key
	 * (asks_for_clamp_unless_no_clamp has clamp's). */
	t->cfg->opt.no_clamp = 1;
}

static void
teardown(void)
{
	iperf_free_test(t);
}

static char *
encode(void)
{
	cJSON *j = params_encode(t);
	char *s;

	ck_assert_ptr_nonnull(j);
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return s;
}

START_TEST(encodes_the_minimal_tcp_document_in_upstream_order)
{
	char *s;

	t->settings.duration = 2;
	s = encode();
	ck_assert_str_eq(s, "{\"tcp\":true,\"omit\":0,\"time\":2,\"num\":0,"
			    "\"blockcount\":0,\"parallel\":1,\"len\":131072,"
			    "\"pacing_timer\":1000,\"client_version\":\"3.21\"}");
	free(s);
}
END_TEST

START_TEST(encodes_many_options_in_upstream_order)
{
	char *s;

	t->settings.duration = 2;
	t->settings.omit = 1;
	t->settings.server_affinity = 0;
	t->settings.mss = 1400;
	t->settings.no_delay = 1;
	t->settings.socket_bufsize = 262144;
	t->settings.blksize = 65536;
	t->settings.rate = 2000000;
	t->settings.fqrate = 5000000;
	t->settings.pacing_timer = 500;
	t->settings.burst = 2;
	t->settings.tos = 16;
	t->settings.title = strdup("mytitle");
	t->settings.extra_data = strdup("xyz");
	t->settings.congestion = strdup("cubic");
	t->settings.get_server_output = 1;
	t->settings.repeating_payload = 1;
	t->settings.zerocopy = 1;
	s = encode();
	ck_assert_str_eq(s, "{\"tcp\":true,\"omit\":1,\"server_affinity\":0,"
	    "\"time\":2,\"num\":0,\"blockcount\":0,\"MSS\":1400,\"nodelay\":true,"
	    "\"parallel\":1,\"window\":262144,\"len\":65536,\"bandwidth\":2000000,"
	    "\"fqrate\":5000000,\"pacing_timer\":500,\"burst\":2,\"TOS\":16,"
	    "\"title\":\"mytitle\",\"extra_data\":\"xyz\",\"congestion\":\"cubic\","
	    "\"get_server_output\":1,\"repeating_payload\":1,\"zerocopy\":1,"
	    "\"client_version\":\"3.21\"}");
	free(s);
}
END_TEST

START_TEST(encodes_udp_with_offload_keys)
{
	char *s;

	t->settings.protocol_id = SOCK_DGRAM;
	t->settings.omit = 1;
	t->settings.duration = 2;
	t->settings.num_streams = 2;
	t->settings.blksize = 1000;
	t->settings.rate = 1000000;
	s = encode();
	ck_assert_str_eq(s, "{\"udp\":true,\"omit\":1,\"time\":2,\"num\":0,"
	    "\"blockcount\":0,\"parallel\":2,\"len\":1000,\"bandwidth\":1000000,"
	    "\"pacing_timer\":1000,\"gso\":0,\"gso_dg_size\":0,"
	    "\"gso_bf_size\":65507,\"gro\":0,\"gro_bf_size\":65507,"
	    "\"client_version\":\"3.21\"}");
	free(s);
}
END_TEST

START_TEST(never_sends_flags_as_false_or_zero)
{
	char *s = encode();

	ck_assert_ptr_null(strstr(s, "false"));
	ck_assert_ptr_null(strstr(s, "reverse"));
	ck_assert_ptr_null(strstr(s, "get_server_output"));
	ck_assert_ptr_null(strstr(s, "udp_counters_64bit"));
	ck_assert_ptr_null(strstr(s, "bandwidth"));
	free(s);
}
END_TEST

START_TEST(bidir_wins_over_reverse_when_encoding)
{
	char *s;

	t->settings.reverse = 1;
	t->settings.bidirectional = 1;
	s = encode();
	ck_assert_ptr_nonnull(strstr(s, "\"bidirectional\":true"));
	ck_assert_ptr_null(strstr(s, "\"reverse\""));
	free(s);
}
END_TEST

START_TEST(asks_for_count_stop_only_when_receiving_a_udp_count)
{
	char *s;

	t->proto = proto_find(SOCK_DGRAM);
	t->settings.protocol_id = SOCK_DGRAM;
	t->settings.bytes = 5000000;
	t->cfg->opt.no_udp_offload = 1; /* udp_offload has its own test */
	s = encode(); /* sending the count: stock behaviour, no count_stop */
	ck_assert_ptr_null(strstr(s, "count_stop"));
	free(s);
	t->settings.reverse = 1;
	s = encode();
	ck_assert_ptr_nonnull(strstr(s, ",\"client_version\":\"3.21\","
	    "\"iperf3_compat\":{\"version\":\"" PACKAGE_VERSION "\","
	    "\"want\":[\"count_stop\"]}}"));
	free(s);
	t->proto = proto_find(SOCK_STREAM); /* TCP: no loss, no count_stop */
	t->settings.protocol_id = SOCK_STREAM;
	s = encode();
	ck_assert_ptr_null(strstr(s, "count_stop"));
	free(s);
}
END_TEST

/* stats: where the server measures what our client reports (a TCP
 * sender's RTT under -R/--bidir, a UDP receiver's figures); rr and
 * latency with their options, rr with the response size. */
START_TEST(asks_for_stats_rr_latency_where_needed)
{
	char *s;

	t->cfg->opt.no_udp_offload = 1;
	s = encode(); /* TCP client sends: it measures its RTT itself */
	ck_assert_ptr_null(strstr(s, "iperf3_compat"));
	free(s);
	t->settings.reverse = 1;
	s = encode();
	ck_assert_ptr_nonnull(strstr(s, "\"want\":[\"stats\"]}"));
	free(s);
	t->proto = proto_find(SOCK_DGRAM);
	t->settings.protocol_id = SOCK_DGRAM;
	s = encode(); /* UDP -R: the client receives and measures */
	ck_assert_ptr_null(strstr(s, "iperf3_compat"));
	free(s);
	t->settings.bidirectional = 1;
	s = encode();
	ck_assert_ptr_nonnull(strstr(s, "\"want\":[\"stats\"]}"));
	free(s);
	t->settings.reverse = t->settings.bidirectional = 0;
#ifdef HAVE_RR
	t->proto = proto_find(SOCK_STREAM);
	t->settings.protocol_id = SOCK_STREAM;
	t->settings.rr = 1;
	t->settings.rr_response = 300;
	t->cfg->opt.latency = 1;
	s = encode();
	ck_assert_ptr_nonnull(strstr(s, "\"want\":[\"rr\",\"latency\"],"
	    "\"rr_response\":300}"));
	free(s);
	/* UDP --rr: transactions, neither offload nor flow figures */
	t->cfg->opt.no_udp_offload = 0;
	t->cfg->opt.latency = 0;
	t->proto = proto_find(SOCK_DGRAM);
	t->settings.protocol_id = SOCK_DGRAM;
	s = encode();
	ck_assert_ptr_nonnull(strstr(s, "\"want\":[\"rr\"],"
	    "\"rr_response\":300}"));
	free(s);
#endif
}
END_TEST

/* UDP asks for udp_offload unless --gsro (stock's own keys) or
 * --no-udp-offload; TCP never. */
START_TEST(asks_for_udp_offload_on_udp_only)
{
	char *s;

	if (!ext_udp_offload_built())
		return;
	t->proto = proto_find(SOCK_DGRAM);
	t->settings.protocol_id = SOCK_DGRAM;
	s = encode();
	ck_assert_ptr_nonnull(strstr(s, "\"iperf3_compat\":{\"version\":\""
	    PACKAGE_VERSION "\",\"want\":[\"udp_offload\",\"stats\"]}"));
	free(s);
	t->cfg->opt.gsro = 1;
	s = encode();
	ck_assert_ptr_null(strstr(s, "udp_offload"));
	free(s);
	t->cfg->opt.gsro = 0;
	t->cfg->opt.no_udp_offload = 1;
	s = encode();
	ck_assert_ptr_null(strstr(s, "udp_offload"));
	free(s);
	t->cfg->opt.no_udp_offload = 0;
	t->proto = proto_find(SOCK_STREAM);
	t->settings.protocol_id = SOCK_STREAM;
	s = encode();
	ck_assert_ptr_null(strstr(s, "iperf3_compat"));
	free(s);
}
END_TEST

#ifdef HAVE_OPERATOR /* the operator's server (--disable-operator) */
START_TEST(asks_for_clamp_unless_no_clamp)
{
	char *s;

	t->cfg->opt.no_clamp = 0;
	s = encode();
	ck_assert_ptr_nonnull(strstr(s, ",\"client_version\":\"3.21\","
	    "\"iperf3_compat\":{\"version\":\"" PACKAGE_VERSION "\","
	    "\"want\":[\"clamp\"]}}"));
	free(s);
	t->settings.reverse = 1; /* with another feature: after it */
	s = encode();
	ck_assert_ptr_nonnull(strstr(s, "\"want\":[\"stats\",\"clamp\"]}}"));
	free(s);
	t->cfg->opt.no_clamp = 1;
	t->settings.reverse = 0;
	s = encode();
	ck_assert_ptr_null(strstr(s, "iperf3_compat"));
	free(s);
}
END_TEST
#endif

static int
decode(const char *json)
{
	cJSON *j = cJSON_Parse(json);
	int rc;

	ck_assert_ptr_nonnull(j);
	rc = params_decode(t, j);
	cJSON_Delete(j);
	return rc;
}

START_TEST(decodes_a_312_document)
{
	ck_assert_int_eq(decode("{\"tcp\":true,\"omit\":0,\"time\":2,\"num\":0,"
	    "\"blockcount\":0,\"parallel\":3,\"len\":131072,\"bandwidth\":4000000,"
	    "\"pacing_timer\":1000,\"reverse\":true,\"client_version\":\"3.12\"}"),
	    0);
	ck_assert_int_eq(t->settings.protocol_id, SOCK_STREAM);
	ck_assert_int_eq(t->settings.duration, 2);
	ck_assert_int_eq(t->settings.num_streams, 3);
	ck_assert_uint_eq(t->settings.rate, 4000000);
	ck_assert_int_eq(t->settings.reverse, 1);
	ck_assert_str_eq(t->settings.client_version, "3.12");
}
END_TEST

START_TEST(presence_flags_are_on_whatever_their_value)
{
	ck_assert_int_eq(decode("{\"udp\":true,\"len\":1400,"
	    "\"get_server_output\":0,\"udp_counters_64bit\":0,\"nodelay\":false,"
	    "\"zerocopy\":0}"), 0);
	ck_assert_int_eq(t->settings.protocol_id, SOCK_DGRAM);
	ck_assert_int_eq(t->settings.get_server_output, 1);
	ck_assert_int_eq(t->settings.udp_counters_64bit, 1);
	ck_assert_int_eq(t->settings.no_delay, 1);
	ck_assert_int_eq(t->settings.zerocopy, 0);
}
END_TEST

START_TEST(wrong_types_are_ignored)
{
	ck_assert_int_eq(decode("{\"time\":\"5\",\"parallel\":[1],"
	    "\"reverse\":1,\"title\":7,\"udp\":\"yes\"}"), 0);
	ck_assert_int_eq(t->settings.duration, 10);
	ck_assert_int_eq(t->settings.num_streams, 1);
	ck_assert_int_eq(t->settings.reverse, 0);
	ck_assert_ptr_null(t->settings.title);
	ck_assert_int_eq(t->settings.protocol_id, SOCK_STREAM);
}
END_TEST

struct ext_case {
	const char *json;
	unsigned int want;
};

static const struct ext_case ext_cases[] = {
	{ "{\"iperf3_compat\":{\"want\":[\"count_stop\"]}}", EXT_COUNT_STOP },
	{ "{\"iperf3_compat\":{\"version\":\"9\",\"want\":[\"x\",\"count_stop\"]}}",
	    EXT_COUNT_STOP },
#ifdef HAVE_OPERATOR
	{ "{\"iperf3_compat\":{\"want\":[\"stats\",\"clamp\"]}}",
	    EXT_STATS | EXT_CLAMP },
#else
	{ "{\"iperf3_compat\":{\"want\":[\"stats\",\"clamp\"]}}",
	    EXT_STATS },
#endif
#ifdef HAVE_PEERIVAL
	/* peer_intervals only with the client's -i (0.1-60 s) */
	{ "{\"iperf3_compat\":{\"want\":[\"stats\",\"peer_intervals\"],"
	    "\"interval\":0.5}}", EXT_STATS | EXT_PEER_IVAL },
	{ "{\"iperf3_compat\":{\"want\":[\"peer_intervals\"],"
	    "\"interval\":60}}", EXT_PEER_IVAL },
	{ "{\"iperf3_compat\":{\"want\":[\"peer_intervals\"],"
	    "\"interval\":0.05}}", 0 },
	{ "{\"iperf3_compat\":{\"want\":[\"peer_intervals\"],"
	    "\"interval\":\"1\"}}", 0 },
#endif
	{ "{\"iperf3_compat\":{\"want\":[\"stats\",\"peer_intervals\"]}}",
	    EXT_STATS },
	{ "{}", 0 },
	{ "{\"iperf3_compat\":\"count_stop\"}", 0 },
	{ "{\"iperf3_compat\":{\"want\":\"count_stop\"}}", 0 },
	{ "{\"iperf3_compat\":{\"want\":[1,null,{},[\"count_stop\"]]}}", 0 },
	{ "{\"iperf3_compat\":{\"want\":[\"Count_stop\",\"count_stop \"]}}", 0 },
	/* only the first 16 names are looked at */
	{ "{\"iperf3_compat\":{\"want\":[\"a\",\"a\",\"a\",\"a\",\"a\",\"a\","
	    "\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\","
	    "\"count_stop\"]}}", 0 },
};

#ifdef HAVE_PEERIVAL
/* peer_intervals: with stats, only where the intervals are JSON (-J,
 * --json-stream, --plot) and taken (-i), with the client's -i. */
START_TEST(asks_for_peer_intervals_with_json_intervals)
{
	char *s;

	t->settings.reverse = 1;
	s = encode(); /* text: nothing to put them in */
	ck_assert_ptr_nonnull(strstr(s, "\"want\":[\"stats\"]}"));
	free(s);
	t->cfg->opt.json_output = 1;
	t->cfg->opt.stats_interval = 0.5;
	s = encode();
	ck_assert_ptr_nonnull(strstr(s, "\"want\":[\"stats\","
	    "\"peer_intervals\"],\"interval\":0.5}"));
	free(s);
	t->cfg->opt.stats_interval = 0;
	s = encode(); /* -i 0: no intervals */
	ck_assert_ptr_nonnull(strstr(s, "\"want\":[\"stats\"]}"));
	free(s);
	t->cfg->opt.stats_interval = 1;
	t->settings.reverse = 0;
	s = encode(); /* a TCP sender measures its RTT itself */
	ck_assert_ptr_null(strstr(s, "iperf3_compat"));
	free(s);
}
END_TEST
#endif

START_TEST(extension_key_is_read_leniently)
{
	ck_assert_int_eq(decode(ext_cases[_i].json), 0);
	ck_assert_uint_eq(t->settings.ext_want, ext_cases[_i].want);
}
END_TEST

START_TEST(missing_keys_keep_server_defaults)
{
	ck_assert_int_eq(decode("{}"), 0);
	ck_assert_int_eq(t->settings.duration, 10);
	ck_assert_int_eq(t->settings.num_streams, 1);
	ck_assert_int_eq(t->settings.blksize, 131072);
}
END_TEST

struct range_case {
	const char *json;
	int code;
};

static const struct range_case range_cases[] = {
	{ "{\"parallel\":0}", IENUMSTREAMS },
	{ "{\"parallel\":-1}", IENUMSTREAMS },
	{ "{\"parallel\":129}", IENUMSTREAMS },
	{ "{\"time\":86401}", IEDURATION },
	{ "{\"time\":-5}", IEDURATION },
	{ "{\"omit\":601}", IEOMIT },
	{ "{\"len\":0}", IEBLOCKSIZE },
	{ "{\"len\":1048577}", IEBLOCKSIZE },
	{ "{\"udp\":true,\"len\":15}", IEUDPBLOCKSIZE },
	{ "{\"udp\":true,\"len\":65508}", IEUDPBLOCKSIZE },
	{ "{\"window\":536870913}", IEBUFSIZE },
	{ "{\"MSS\":32768}", IEMSS },
	{ "{\"burst\":1001}", IEBURST },
	{ "{\"TOS\":256}", IEBADTOS },
	{ "{\"num\":-1}", IERECVPARAMS },
	{ "{\"bandwidth\":-1}", IERECVPARAMS },
	{ "{\"parallel\":1e300}", IENUMSTREAMS },
	{ "{\"time\":18446744073709551615}", IEDURATION },
#ifdef HAVE_RR
	/* --rr needs its response size, within the protocol's -l range */
	{ "{\"iperf3_compat\":{\"want\":[\"rr\"]}}", IERECVPARAMS },
	{ "{\"iperf3_compat\":{\"want\":[\"rr\"],\"rr_response\":0}}",
	    IERECVPARAMS },
	{ "{\"iperf3_compat\":{\"want\":[\"rr\"],\"rr_response\":1.5}}",
	    IERECVPARAMS },
	{ "{\"udp\":true,\"len\":1,\"iperf3_compat\":{\"want\":[\"rr\"],"
	    "\"rr_response\":65508}}", IERECVPARAMS },
	{ "{\"udp\":true,\"len\":0,\"iperf3_compat\":{\"want\":[\"rr\"],"
	    "\"rr_response\":1}}", IEUDPBLOCKSIZE },
#endif
};

START_TEST(rr_settings_are_decoded)
{
#ifndef HAVE_RR
	/* configure --disable-rr: "rr" is not a key this server takes */
	ck_assert_int_eq(decode("{\"len\":1,\"iperf3_compat\":{\"want\":"
	    "[\"rr\"],\"rr_response\":9}}"), 0);
	ck_assert_int_eq(t->settings.rr, 0);
	return;
#endif
	ck_assert_int_eq(decode("{\"udp\":true,\"len\":1,\"iperf3_compat\":"
	    "{\"want\":[\"rr\",\"latency\"],\"rr_response\":65507}}"), 0);
	ck_assert_int_eq(t->settings.rr, 1);
	ck_assert_int_eq(t->settings.rr_response, 65507);
	ck_assert_int_eq(t->settings.blksize, 1);
	ck_assert_uint_eq(t->settings.ext_want, EXT_RR | EXT_LATENCY);
	ck_assert_int_eq(decode("{\"len\":100}"), 0);
	ck_assert_int_eq(t->settings.rr, 0);
	ck_assert_int_eq(t->settings.rr_response, 0);
}
END_TEST

START_TEST(out_of_range_values_fail_with_their_code)
{
	ck_assert_int_eq(decode(range_cases[_i].json), -1);
	ck_assert_int_eq(t->run.err.code, range_cases[_i].code);
}
END_TEST

START_TEST(huge_numbers_do_not_overflow)
{
	ck_assert_int_eq(decode("{\"num\":1e15}"), 0);
	ck_assert_uint_eq(t->settings.bytes, 1000000000000000ULL);
	ck_assert_int_eq(decode("{\"num\":1e300}"), -1);
	ck_assert_int_eq(t->run.err.code, IERECVPARAMS);
}
END_TEST

START_TEST(reads_unsigned_minus_one_as_minus_one)
{
	ck_assert_int_eq(json_number_to_i64(18446744073709551615.0), -1);
	ck_assert_int_eq(json_number_to_i64(9223372036854775808.0), INT64_MIN);
	ck_assert_int_eq(json_number_to_i64(-1.9), -1);
	ck_assert_int_eq(json_number_to_i64(3.99), 3);
	ck_assert_int_eq(json_number_to_i64(1e300), -1);
	ck_assert_int_eq(json_number_to_i64(-1e300), INT64_MIN);
}
END_TEST

/* ---- results ------------------------------------------------------------ */

static struct iperf_stream streams[3];

static void
add_fake_streams(int n)
{
	int i;

	memset(streams, 0, sizeof(streams));
	for (i = 0; i < n; i++) {
		streams[i].id = i == 0 ? 1 : i + 2;
		streams[i].test = t;
		streams[i].socket = -1;
		streams[i].next = i + 1 < n ? &streams[i + 1] : NULL;
	}
	t->run.streams = &streams[0];
}

static int
decode_results(const char *json)
{
	cJSON *j = cJSON_Parse(json);
	int rc;

	ck_assert_ptr_nonnull(j);
	rc = results_decode(t, j);
	cJSON_Delete(j);
	return rc;
}

static void
results_teardown(void)
{
	t->run.streams = NULL; /* static fakes */
	iperf_free_test(t);
}

START_TEST(decodes_312_results_with_unsigned_minus_one)
{
	add_fake_streams(1);
	ck_assert_int_eq(decode_results("{\"cpu_util_total\":0.03,"
	    "\"cpu_util_user\":0,\"cpu_util_system\":0.03,"
	    "\"sender_has_retransmits\":18446744073709551615,"
	    "\"congestion_used\":\"bbr\",\"streams\":[{\"id\":1,\"bytes\":1048576,"
	    "\"retransmits\":18446744073709551615,\"jitter\":0,\"errors\":0,"
	    "\"packets\":0,\"start_time\":0,\"end_time\":2.000445}]}"), 0);
	ck_assert_int_eq(t->peer_has_retransmits, -1);
	ck_assert_int_eq(streams[0].peer.retransmits, -1);
	ck_assert_uint_eq(streams[0].peer.bytes, 1048576);
	ck_assert_double_eq(streams[0].peer.end_time, 2.000445);
	ck_assert_int_eq(streams[0].peer.has_omitted_pair, 0);
	ck_assert_str_eq(t->run.remote_congestion_used, "bbr");
}
END_TEST

START_TEST(decodes_ids_1_3_4)
{
	add_fake_streams(3);
	ck_assert_int_eq(decode_results("{\"cpu_util_total\":1,"
	    "\"cpu_util_user\":1,\"cpu_util_system\":0,"
	    "\"sender_has_retransmits\":-1,\"streams\":["
	    "{\"id\":1,\"bytes\":1,\"retransmits\":-1,\"jitter\":0,\"errors\":0,"
	    "\"omitted_errors\":0,\"packets\":0,\"omitted_packets\":0},"
	    "{\"id\":3,\"bytes\":3,\"retransmits\":-1,\"jitter\":2.5e-05,"
	    "\"errors\":7,\"omitted_errors\":2,\"packets\":100,"
	    "\"omitted_packets\":40},"
	    "{\"id\":4,\"bytes\":4,\"retransmits\":-1,\"jitter\":0,\"errors\":0,"
	    "\"omitted_errors\":0,\"packets\":0,\"omitted_packets\":0}]}"), 0);
	ck_assert_uint_eq(streams[1].peer.bytes, 3);
	ck_assert_int_eq(streams[1].peer.errors, 7);
	ck_assert_int_eq(streams[1].peer.omitted_packets, 40);
	ck_assert_double_eq(streams[1].peer.jitter, 2.5e-05);
	ck_assert_uint_eq(streams[2].peer.bytes, 4);
}
END_TEST

static const char *const bad_results[] = {
	"[]",
	"{}",
	"{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,"
	"\"streams\":[]}",
	"{\"cpu_util_total\":\"1\",\"cpu_util_user\":1,\"cpu_util_system\":0,"
	"\"sender_has_retransmits\":0,\"streams\":[]}",
	"{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,"
	"\"sender_has_retransmits\":0,\"streams\":{}}",
	"{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,"
	"\"sender_has_retransmits\":0,\"streams\":[7]}",
	"{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,"
	"\"sender_has_retransmits\":0,\"streams\":[{\"id\":1,\"bytes\":1}]}",
	/* only one of the omitted pair */
	"{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,"
	"\"sender_has_retransmits\":0,\"streams\":[{\"id\":1,\"bytes\":1,"
	"\"retransmits\":0,\"jitter\":0,\"errors\":0,\"packets\":0,"
	"\"omitted_errors\":0}]}",
};

START_TEST(rejects_results_with_missing_or_mistyped_keys)
{
	add_fake_streams(1);
	ck_assert_int_eq(decode_results(bad_results[_i]), -1);
	ck_assert_int_eq(t->run.err.code, IERECVRESULTS);
}
END_TEST

START_TEST(rejects_an_unknown_stream_id)
{
	add_fake_streams(1);
	ck_assert_int_eq(decode_results("{\"cpu_util_total\":1,"
	    "\"cpu_util_user\":1,\"cpu_util_system\":0,"
	    "\"sender_has_retransmits\":0,\"streams\":[{\"id\":2,\"bytes\":1,"
	    "\"retransmits\":0,\"jitter\":0,\"errors\":0,\"packets\":0}]}"), -1);
	ck_assert_int_eq(t->run.err.code, IESTREAMID);
}
END_TEST

START_TEST(rejects_more_streams_than_possible)
{
	char *doc = malloc(64 * 1024);
	size_t n = 0;
	int i;

	add_fake_streams(1);
	n += (size_t)snprintf(doc, 64 * 1024, "{\"cpu_util_total\":1,"
	    "\"cpu_util_user\":1,\"cpu_util_system\":0,"
	    "\"sender_has_retransmits\":0,\"streams\":[");
	for (i = 0; i < 300; i++)
		n += (size_t)snprintf(doc + n, 64 * 1024 - n, "%s7", i ? "," : "");
	(void)snprintf(doc + n, 64 * 1024 - n, "]}");
	ck_assert_int_eq(decode_results(doc), -1);
	free(doc);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("params");
	TCase *tc = tcase_create("encode");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, encodes_the_minimal_tcp_document_in_upstream_order);
	tcase_add_test(tc, encodes_many_options_in_upstream_order);
	tcase_add_test(tc, encodes_udp_with_offload_keys);
	tcase_add_test(tc, never_sends_flags_as_false_or_zero);
	tcase_add_test(tc, bidir_wins_over_reverse_when_encoding);
	tcase_add_test(tc, asks_for_count_stop_only_when_receiving_a_udp_count);
	tcase_add_test(tc, asks_for_udp_offload_on_udp_only);
#ifdef HAVE_OPERATOR
	tcase_add_test(tc, asks_for_clamp_unless_no_clamp);
#endif
	tcase_add_test(tc, asks_for_stats_rr_latency_where_needed);
#ifdef HAVE_PEERIVAL
	tcase_add_test(tc, asks_for_peer_intervals_with_json_intervals);
#endif
	suite_add_tcase(s, tc);
	tc = tcase_create("decode");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, decodes_a_312_document);
	tcase_add_test(tc, presence_flags_are_on_whatever_their_value);
	tcase_add_test(tc, wrong_types_are_ignored);
	tcase_add_test(tc, missing_keys_keep_server_defaults);
	tcase_add_loop_test(tc, extension_key_is_read_leniently, 0,
	    (int)(sizeof(ext_cases) / sizeof(ext_cases[0])));
	tcase_add_loop_test(tc, out_of_range_values_fail_with_their_code, 0,
	    (int)(sizeof(range_cases) / sizeof(range_cases[0])));
	tcase_add_test(tc, huge_numbers_do_not_overflow);
	tcase_add_test(tc, rr_settings_are_decoded);
	tcase_add_test(tc, reads_unsigned_minus_one_as_minus_one);
	suite_add_tcase(s, tc);
	tc = tcase_create("results");
	tcase_add_checked_fixture(tc, setup, results_teardown);
	tcase_add_test(tc, decodes_312_results_with_unsigned_minus_one);
	tcase_add_test(tc, decodes_ids_1_3_4);
	tcase_add_loop_test(tc, rejects_results_with_missing_or_mistyped_keys, 0,
	    (int)(sizeof(bad_results) / sizeof(bad_results[0])));
	tcase_add_test(tc, rejects_an_unknown_stream_id);
	tcase_add_test(tc, rejects_more_streams_than_possible);
	suite_add_tcase(s, tc);
	return s;
}
