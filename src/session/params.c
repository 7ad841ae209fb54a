/* params.c - parameter and result documents (see params.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ext.h"
#include "iperf.h"
#include "iperf_error.h"
#ifdef HAVE_ISOCHRONOUS
#include "iso_stream.h"
#endif
#include "json.h"
#include "latstat.h"
#include "params.h"
#include "proto.h"
#include "rr.h"
#include "stats.h"
#include "stats_dist.h"
#include "stream.h"
#include "util.h"
#include "banned.h"

#define PARAMS_MAX_STRING 4096
/* peer_ival.c writes and reads the same summaries (params.h). */
#ifdef HAVE_PEERIVAL
#define LATSUM_API
#else
#define LATSUM_API static
#endif

/* Fields of the summaries in our results (stats_dist.h). */
#define RESULTS_LATSUM (LATSUM_SAMPLES | LATSUM_MIN | LATSUM_PCT | LATSUM_MAX)

/* ---- encode (client) ---------------------------------------------------- */

static int
add_num(cJSON *o, const char *key, double v)
{
	return cJSON_AddNumberToObject(o, key, v) != NULL ? 0 : -1;
}

static int
add_true(cJSON *o, const char *key)
{
	return cJSON_AddTrueToObject(o, key) != NULL ? 0 : -1;
}

static int
add_str(cJSON *o, const char *key, const char *v)
{
	return cJSON_AddStringToObject(o, key, v) != NULL ? 0 : -1;
}

static const char *
proto_key(int id)
{
	if (id == SOCK_DGRAM)
		return "udp";
	if (id == 12)
		return "sctp";
	return "tcp";
}

static int
encode_core(const struct iperf_settings *s, cJSON *o)
{
	int rc = 0;

	rc |= add_true(o, proto_key(s->protocol_id));
	rc |= add_num(o, "omit", s->omit);
	if (s->server_affinity >= 0)
		rc |= add_num(o, "server_affinity", s->server_affinity);
	rc |= add_num(o, "time", s->duration);
	rc |= add_num(o, "num", (double)s->bytes);
	rc |= add_num(o, "blockcount", (double)s->blocks);
	if (s->mss > 0)
		rc |= add_num(o, "MSS", s->mss);
	if (s->no_delay)
		rc |= add_true(o, "nodelay");
	rc |= add_num(o, "parallel", s->num_streams);
	if (s->reverse && !s->bidirectional)
		rc |= add_true(o, "reverse");
	if (s->bidirectional)
		rc |= add_true(o, "bidirectional");
	if (s->mptcp)
		rc |= add_true(o, "mptcp");
	if (s->socket_bufsize > 0)
		rc |= add_num(o, "window", s->socket_bufsize);
	rc |= add_num(o, "len", s->blksize);
	if (s->rate != 0)
		rc |= add_num(o, "bandwidth", (double)s->rate);
	if (s->fqrate != 0)
		rc |= add_num(o, "fqrate", (double)s->fqrate);
	rc |= add_num(o, "pacing_timer", s->pacing_timer);
	if (s->burst > 0)
		rc |= add_num(o, "burst", s->burst);
	return rc;
}

static int
encode_udp_offload(const struct iperf_settings *s, cJSON *o)
{
	int rc = 0;

	if (s->protocol_id != SOCK_DGRAM)
		return 0;
	rc |= add_num(o, "gso", s->gso);
	rc |= add_num(o, "gso_dg_size", s->gso_dg_size);
	rc |= add_num(o, "gso_bf_size", s->gso_bf_size);
	rc |= add_num(o, "gro", s->gro);
	rc |= add_num(o, "gro_bf_size", s->gro_bf_size);
	return rc;
}

static int
encode_extras(const struct iperf_settings *s, cJSON *o)
{
	int rc = 0;

	if (s->tos > 0)
		rc |= add_num(o, "TOS", s->tos);
	if (s->flowlabel > 0)
		rc |= add_num(o, "flowlabel", s->flowlabel);
	if (s->title != NULL)
		rc |= add_str(o, "title", s->title);
	if (s->extra_data != NULL)
		rc |= add_str(o, "extra_data", s->extra_data);
	if (s->congestion != NULL)
		rc |= add_str(o, "congestion", s->congestion);
	/* Presence-only flags: never sent as 0 or false. */
	if (s->get_server_output)
		rc |= add_num(o, "get_server_output", 1);
	if (s->udp_counters_64bit)
		rc |= add_num(o, "udp_counters_64bit", 1);
	if (s->repeating_payload)
		rc |= add_num(o, "repeating_payload", 1);
	if (s->zerocopy)
		rc |= add_num(o, "zerocopy", 1);
	if (s->dont_fragment)
		rc |= add_num(o, "dont_fragment", 1);
	if (s->authtoken != NULL)
		rc |= add_str(o, "authtoken", s->authtoken);
	if (s->skip_rx_copy)
		rc |= add_num(o, "skip_rx_copy", 1);
	rc |= add_str(o, "client_version", IPERF_VERSION_COMPAT);
	return rc;
}

cJSON *
params_encode(const struct iperf_test *test)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL)
		return NULL;
	if (encode_core(&test->settings, o) != 0 ||
	    encode_udp_offload(&test->settings, o) != 0 ||
	    encode_extras(&test->settings, o) != 0 ||
	    ext_encode(test, o) != 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* ---- decode (server) ---------------------------------------------------- */

/* A bounded integer key: absent or wrong type leaves *out alone; out of
 * range records `code`. */
static int
get_ranged(struct iperf_test *test, const cJSON *j, const char *key,
    int64_t min, int64_t max, int code, int64_t *out)
{
	enum json_get rc = json_get_i64(j, key, min, max, out);

	if (rc == JSON_OUT_OF_RANGE)
		return iperf_fail(test, code, 0);
	return 0;
}

static int
get_int_key(struct iperf_test *test, const cJSON *j, const char *key,
    int64_t min, int64_t max, int code, int *out)
{
	int64_t v = *out;

	if (get_ranged(test, j, key, min, max, code, &v) == -1)
		return -1;
	*out = (int)v;
	return 0;
}

static int
has_flag(const cJSON *j, const char *key)
{
	int v = 0;

	/* 3.18+ semantics: a JSON boolean (true or false) means "on". */
	return json_get_bool(j, key, &v) == JSON_OK;
}

static int
has_number(const cJSON *j, const char *key)
{
	double d;

	return json_get_double(j, key, &d) == JSON_OK;
}

static int
number_nonzero(const cJSON *j, const char *key)
{
	double d = 0;

	return json_get_double(j, key, &d) == JSON_OK && d != 0;
}

static int
get_string_key(const cJSON *j, const char *key, char **out)
{
	const char *s = NULL;

	if (json_get_string(j, key, &s) != JSON_OK)
		return 0;
	if (strlen(s) > PARAMS_MAX_STRING)
		return 0;
	return str_replace(out, s);
}

static void
decode_protocol(struct iperf_settings *s, const cJSON *j)
{
	s->protocol_id = SOCK_STREAM;
	if (has_flag(j, "udp"))
		s->protocol_id = SOCK_DGRAM;
	else if (has_flag(j, "sctp") && proto_find(12) != NULL)
		s->protocol_id = 12;
}

static int
decode_numbers(struct iperf_test *test, const cJSON *j)
{
	struct iperf_settings *s = &test->settings;
	int64_t v;

	if (get_int_key(test, j, "omit", 0, IPERF_MAX_OMIT_S, IEOMIT, &s->omit) ||
	    get_int_key(test, j, "server_affinity", -1, 1024, IEAFFINITY,
		&s->server_affinity) ||
	    get_int_key(test, j, "time", 0, IPERF_MAX_TIME_S, IEDURATION,
		&s->duration) ||
	    get_int_key(test, j, "MSS", 0, IPERF_MAX_MSS, IEMSS, &s->mss) ||
	    get_int_key(test, j, "parallel", 1, IPERF_MAX_STREAMS, IENUMSTREAMS,
		&s->num_streams) ||
	    get_int_key(test, j, "window", 0, IPERF_MAX_WINDOW_BYTES, IEBUFSIZE,
		&s->socket_bufsize) ||
	    get_int_key(test, j, "pacing_timer", 0, INT32_MAX, IERECVPARAMS,
		&s->pacing_timer) ||
	    get_int_key(test, j, "burst", 0, IPERF_MAX_BURST, IEBURST,
		&s->burst) ||
	    get_int_key(test, j, "TOS", 0, 255, IEBADTOS, &s->tos) ||
	    get_int_key(test, j, "flowlabel", 0, 0xFFFFF, IESETFLOW,
		&s->flowlabel))
		return -1;
	v = (int64_t)s->bytes;
	if (get_ranged(test, j, "num", 0, INT64_MAX, IERECVPARAMS, &v))
		return -1;
	s->bytes = (uint64_t)v;
	v = (int64_t)s->blocks;
	if (get_ranged(test, j, "blockcount", 0, INT64_MAX, IERECVPARAMS, &v))
		return -1;
	s->blocks = (uint64_t)v;
	v = (int64_t)s->rate;
	if (get_ranged(test, j, "bandwidth", 0, INT64_MAX, IERECVPARAMS, &v))
		return -1;
	s->rate = (uint64_t)v;
	v = (int64_t)s->fqrate;
	if (get_ranged(test, j, "fqrate", 0, INT64_MAX, IERECVPARAMS, &v))
		return -1;
	s->fqrate = (uint64_t)v;
	return 0;
}

static int
decode_blksize(struct iperf_test *test, const cJSON *j)
{
	struct iperf_settings *s = &test->settings;
	const struct iperf_proto_ops *p = proto_find(s->protocol_id);
	int udp = s->protocol_id == SOCK_DGRAM;
	/* --rr requests over UDP are bare payload (ext.h) */
	int64_t min = udp && !s->rr ? IPERF_MIN_UDP_BLOCKSIZE : 1;
	int64_t max = udp ? IPERF_MAX_UDP_BLOCKSIZE : IPERF_MAX_BLOCKSIZE;
	int64_t v = p != NULL ? p->default_blksize : DEFAULT_TCP_BLKSIZE;

	if (get_ranged(test, j, "len", min, max,
		udp ? IEUDPBLOCKSIZE : IEBLOCKSIZE, &v))
		return -1;
	s->blksize = (int)v;
	return 0;
}

static int
decode_udp_offload(struct iperf_test *test, const cJSON *j)
{
	struct iperf_settings *s = &test->settings;

	if (get_int_key(test, j, "gso", 0, 1, IERECVPARAMS, &s->gso) ||
	    get_int_key(test, j, "gso_dg_size", 0, IPERF_MAX_UDP_BLOCKSIZE,
		IERECVPARAMS, &s->gso_dg_size) ||
	    get_int_key(test, j, "gso_bf_size", 0, IPERF_MAX_UDP_BLOCKSIZE,
		IERECVPARAMS, &s->gso_bf_size) ||
	    get_int_key(test, j, "gro", 0, 1, IERECVPARAMS, &s->gro) ||
	    get_int_key(test, j, "gro_bf_size", 0, IPERF_MAX_UDP_BLOCKSIZE,
		IERECVPARAMS, &s->gro_bf_size))
		return -1;
	return 0;
}

static int
decode_flags_strings(struct iperf_test *test, const cJSON *j)
{
	struct iperf_settings *s = &test->settings;

	s->no_delay = has_flag(j, "nodelay");
	s->reverse = has_flag(j, "reverse");
	s->bidirectional = has_flag(j, "bidirectional");
	if (s->bidirectional)
		s->reverse = 0;
	s->mptcp = has_flag(j, "mptcp");
	s->get_server_output = has_number(j, "get_server_output");
	s->udp_counters_64bit = has_number(j, "udp_counters_64bit");
	s->repeating_payload = has_number(j, "repeating_payload");
	s->zerocopy = number_nonzero(j, "zerocopy");
	s->dont_fragment = number_nonzero(j, "dont_fragment");
	s->skip_rx_copy = number_nonzero(j, "skip_rx_copy");
	if (get_string_key(j, "title", &s->title) ||
	    get_string_key(j, "extra_data", &s->extra_data) ||
	    get_string_key(j, "congestion", &s->congestion) ||
	    get_string_key(j, "authtoken", &s->authtoken) ||
	    get_string_key(j, "client_version", &s->client_version))
		return iperf_fail(test, IERECVPARAMS, 0);
	return 0;
}

int
params_decode(struct iperf_test *test, const cJSON *doc)
{
	if (doc == NULL || !cJSON_IsObject(doc))
		return iperf_fail(test, IERECVPARAMS, 0);
	decode_protocol(&test->settings, doc);
	test->settings.ext_want = ext_decode(doc);
	if (ext_decode_settings(test, doc) == -1 ||
	    decode_numbers(test, doc) == -1 || decode_blksize(test, doc) == -1 ||
	    decode_udp_offload(test, doc) == -1 ||
	    decode_flags_strings(test, doc) == -1)
		return -1;
#ifdef HAVE_RPM
	/* --rpm: a TCP upload (rpm_stream.h) */
	if (test->settings.rpm && (test->settings.reverse ||
	    test->settings.bidirectional || test->settings.rr ||
	    test->settings.protocol_id != Ptcp))
		return iperf_fail(test, IERECVPARAMS, 0);
#endif
#ifdef HAVE_MULTICAST
	/* --multicast: one UDP stream from the client to the group */
	if (test->settings.mcast_group != NULL &&
	    (test->settings.reverse || test->settings.bidirectional ||
		test->settings.rr || test->settings.num_streams != 1 ||
		test->settings.protocol_id != Pudp))
		return iperf_fail(test, IERECVPARAMS, 0);
#endif
	return 0;
}

/* ---- results ------------------------------------------------------------ */

/* Our figures (ext.h "stats"): only from a server to a client that asked,
 * so a stock client's results document stays stock. */
static int
stats_for_peer(const struct iperf_test *test)
{
	return stats_dist_peer_asked(test);
}

LATSUM_API int
params_add_latsum(cJSON *o, const char *key, const struct latsum *s)
{
	cJSON *j = latsum_to_json(s, 1.0, RESULTS_LATSUM);

	if (j == NULL || !cJSON_AddItemToObject(o, key, j)) {
		cJSON_Delete(j);
		return -1;
	}
	return 0;
}

static int
encode_stream_stats(struct iperf_test *test, struct iperf_stream *sp,
    cJSON *o)
{
	struct latsum s;
	int rc = 0;

	if (!stats_for_peer(test))
		return 0;
	if (stats_dist_rtt(sp, &s))
		rc |= params_add_latsum(o, "rtt_us", &s);
	if (stats_dist_delay(sp, &s))
		rc |= params_add_latsum(o, "delay_var_us", &s);
	if (sp->rxq_drops_known)
		rc |= add_num(o, "lost_in_receiver",
		    (double)stats_local_rxq_drops(sp));
	return rc;
}

#ifdef HAVE_OWD
/* --owd, our server receiving UDP: "owd_raw", the transits of the
 * stream's datagrams (ref_us + each figure, microseconds of two clocks)
 * for the client to correct by the clock offset; only for a client that
 * asked for "owd". */
static int
encode_owd_raw(const struct iperf_test *test, const struct iperf_stream *sp,
    cJSON *o)
{
	struct latsum s;
	int64_t ref;

	if (test->opt->role != 's' || !(test->settings.ext_want & EXT_OWD) ||
	    !stats_dist_owd_raw(sp, &ref, &s))
		return 0;
	if (params_add_latsum(o, "owd_raw", &s) == -1)
		return -1;
	return add_num(cJSON_GetObjectItemCaseSensitive(o, "owd_raw"),
	    "ref_us", (double)ref);
}

static void
decode_owd_raw(const struct iperf_test *test, const cJSON *s,
    struct stream_peer *p)
{
	if (!test->opt->owd)
		return;
	p->has_owd = params_decode_latsum(s, "owd_raw", &p->owd) &&
	    json_get_i64(cJSON_GetObjectItemCaseSensitive(s, "owd_raw"),
		"ref_us", -(INT64_C(1) << 52), INT64_C(1) << 52,
		&p->owd_ref_us) == JSON_OK;
}
#endif

static int
encode_stream(struct iperf_test *test, struct iperf_stream *sp, cJSON *arr)
{
	cJSON *o = cJSON_CreateObject();
	int udp = (test->proto->flags & PROTO_F_DATAGRAM) != 0;
	int64_t retrans = -1;
	double jitter = 0;
	int64_t errors = 0, omitted_errors = 0, packets = 0, omitted_packets = 0;
	int rc = 0;

	if (o == NULL || !cJSON_AddItemToArray(arr, o)) {
		cJSON_Delete(o);
		return -1;
	}
	if (sp->sender && test->sender_has_retransmits == 1)
		retrans = sp->retransmits;
	if (udp) {
		packets = (int64_t)sp->final.packets;
		omitted_packets = (int64_t)sp->base_omit.packets;
		if (!sp->sender) {
			jitter = sp->final.jitter;
			errors = sp->final.lost;
			omitted_errors = sp->base_omit.lost;
		} else if (sp->peer.present) {
			/* A sender echoes the receiver's figures it already has. */
			jitter = sp->peer.jitter;
			errors = sp->peer.errors;
			omitted_errors = sp->peer.omitted_errors;
		}
	}
	rc |= add_num(o, "id", sp->id);
	rc |= add_num(o, "bytes", (double)stats_local_bytes(sp));
	rc |= add_num(o, "retransmits", (double)retrans);
	rc |= add_num(o, "jitter", jitter);
	rc |= add_num(o, "errors", (double)errors);
	rc |= add_num(o, "omitted_errors", (double)omitted_errors);
	rc |= add_num(o, "packets", (double)packets);
	rc |= add_num(o, "omitted_packets", (double)omitted_packets);
	rc |= add_num(o, "start_time", 0);
	rc |= add_num(o, "end_time", stats_local_seconds(sp));
	rc |= encode_stream_stats(test, sp, o);
#ifdef HAVE_OWD
	rc |= encode_owd_raw(test, sp, o);
#endif
	rc |= rr_results_encode(test, sp, o);
#ifdef HAVE_ISOCHRONOUS
	rc |= iso_results_encode(test, sp, o);
#endif
	return rc;
}

static int
encode_server_output(struct iperf_test *test, cJSON *o)
{
	if (test->opt->role != 's' || !test->settings.get_server_output)
		return 0;
	if (test->opt->json_output && test->run.rep.json_top != NULL) {
		cJSON *copy = cJSON_Duplicate(test->run.rep.json_top, 1);
		if (copy == NULL)
			return -1;
		if (!stats_for_peer(test))
			stats_dist_strip(copy);
#ifdef HAVE_OPERATOR
		if (test->settings.ext_want == 0) /* a stock client */
			cJSON_DeleteItemFromObject(cJSON_GetObjectItem(copy,
			    "start"), "server_port");
#endif
		cJSON_AddItemToObject(o, "server_output_json", copy);
		return 0;
	}
	return add_str(o, "server_output_text",
	    test->run.rep.server_outbuf != NULL ? test->run.rep.server_outbuf : "");
}

cJSON *
results_encode(struct iperf_test *test)
{
	cJSON *o = cJSON_CreateObject();
	struct latsum rtt;
	cJSON *arr;
	struct iperf_stream *sp;
	int rc = 0;

	if (o == NULL)
		return NULL;
	rc |= add_num(o, "cpu_util_total", test->run.cpu_util[0]);
	rc |= add_num(o, "cpu_util_user", test->run.cpu_util[1]);
	rc |= add_num(o, "cpu_util_system", test->run.cpu_util[2]);
	rc |= add_num(o, "sender_has_retransmits", test->sender_has_retransmits);
	if (test->run.congestion_used != NULL)
		rc |= add_str(o, "congestion_used", test->run.congestion_used);
	rc |= encode_server_output(test, o);
	arr = cJSON_AddArrayToObject(o, "streams");
	if (arr == NULL)
		rc = -1;
	for (sp = test->run.streams; sp != NULL && rc == 0; sp = sp->next)
		rc |= encode_stream(test, sp, arr);
	if (rc == 0 && stats_for_peer(test) && stats_dist_rtt_sum(test, &rtt))
		rc |= params_add_latsum(o, "sum_rtt_us", &rtt);
#ifdef HAVE_PEERIVAL
	if (rc == 0 && stats_for_peer(test) && stats_dist_delay_sum(test, &rtt))
		rc |= params_add_latsum(o, "sum_delay_var_us", &rtt);
#endif
	rc |= rr_results_encode_test(test, o);
	if (rc != 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* A summary our server sent ({"samples", "min", ..., "max"}, us): 1 if
 * every field is there, a finite number >= 0 (else it is ignored). */
LATSUM_API int
params_decode_latsum(const cJSON *o, const char *key, struct latsum *out)
{
	static const char *const names[] = { "samples", "min", "p50", "p90",
		"p99", "max" };
	uint64_t *vals[] = { &out->samples, &out->min, &out->p50, &out->p90,
		&out->p99, &out->max };
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(j))
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		double v;

		if (json_get_double(j, names[i], &v) != JSON_OK ||
		    !(v >= 0 && v < 1e15))
			return 0;
		*vals[i] = (uint64_t)v;
	}
	return 1;
}

/* Client: our server may have added its figures (stats_for_peer). */
static int
stats_asked(const struct iperf_test *test)
{
	return test->opt->role == 'c' &&
	    (ext_client_wants(test) & EXT_STATS) != 0;
}

static void
decode_stream_stats(const cJSON *s, struct stream_peer *p)
{
	p->has_rtt = params_decode_latsum(s, "rtt_us", &p->rtt);
	p->has_delay = params_decode_latsum(s, "delay_var_us", &p->delay);
	p->has_rxq = json_get_i64(s, "lost_in_receiver", 0, INT64_MAX,
	    &p->rxq_drops) == JSON_OK;
}

static int
decode_stream(struct iperf_test *test, const cJSON *s)
{
	struct stream_peer p;
	struct iperf_stream *sp;
	int id = 0;
	int64_t bytes = 0;
	int has_oe, has_op;

	memset(&p, 0, sizeof(p));
	if (json_get_int(s, "id", INT32_MIN, INT32_MAX, &id) != JSON_OK ||
	    json_get_i64(s, "bytes", INT64_MIN, INT64_MAX, &bytes) != JSON_OK ||
	    json_get_i64(s, "retransmits", INT64_MIN, INT64_MAX,
		&p.retransmits) != JSON_OK ||
	    json_get_double(s, "jitter", &p.jitter) != JSON_OK ||
	    json_get_i64(s, "errors", INT64_MIN, INT64_MAX, &p.errors) !=
		JSON_OK ||
	    json_get_i64(s, "packets", INT64_MIN, INT64_MAX, &p.packets) !=
		JSON_OK)
		return iperf_fail(test, IERECVRESULTS, 0);
	has_oe = json_get_i64(s, "omitted_errors", INT64_MIN, INT64_MAX,
	    &p.omitted_errors) == JSON_OK;
	has_op = json_get_i64(s, "omitted_packets", INT64_MIN, INT64_MAX,
	    &p.omitted_packets) == JSON_OK;
	if (has_oe != has_op)
		return iperf_fail(test, IERECVRESULTS, 0);
	p.has_omitted_pair = has_oe;
	(void)json_get_double(s, "start_time", &p.start_time);
	(void)json_get_double(s, "end_time", &p.end_time);
	p.bytes = bytes < 0 ? 0 : (uint64_t)bytes;
	p.present = 1;
	if (stats_asked(test))
		decode_stream_stats(s, &p);
#ifdef HAVE_OWD
	decode_owd_raw(test, s, &p);
#endif
	sp = stream_find(test, id);
	if (sp == NULL)
		return iperf_fail(test, IESTREAMID, 0);
	sp->peer = p;
	rr_results_decode(sp, s);
#ifdef HAVE_ISOCHRONOUS
	iso_results_decode(sp, s);
#endif
	return 0;
}

static void
decode_server_output(struct iperf_test *test, const cJSON *doc)
{
	const cJSON *js;
	const char *txt = NULL;

	if (test->opt->role != 'c' || !test->settings.get_server_output)
		return;
	js = cJSON_GetObjectItemCaseSensitive(doc, "server_output_json");
	if (js != NULL && cJSON_IsObject(js)) {
		cJSON_Delete(test->run.ses.json_server_output);
		test->run.ses.json_server_output = cJSON_Duplicate(js, 1);
	}
	if (json_get_string(doc, "server_output_text", &txt) == JSON_OK)
		(void)str_replace(&test->run.ses.server_output_text, txt);
}

int
results_decode(struct iperf_test *test, const cJSON *doc)
{
	const cJSON *streams, *s;
	const char *cc = NULL;
	int64_t shr = 0;
	int n = 0;

	if (doc == NULL || !cJSON_IsObject(doc) ||
	    json_get_double(doc, "cpu_util_total", &test->run.remote_cpu_util[0]) !=
		JSON_OK ||
	    json_get_double(doc, "cpu_util_user", &test->run.remote_cpu_util[1]) !=
		JSON_OK ||
	    json_get_double(doc, "cpu_util_system", &test->run.remote_cpu_util[2]) !=
		JSON_OK ||
	    json_get_i64(doc, "sender_has_retransmits", INT64_MIN, INT64_MAX,
		&shr) != JSON_OK)
		return iperf_fail(test, IERECVRESULTS, 0);
	test->peer_has_retransmits = shr == 1 ? 1 : (shr < 0 ? -1 : 0);
	streams = cJSON_GetObjectItemCaseSensitive(doc, "streams");
	if (streams == NULL || !cJSON_IsArray(streams))
		return iperf_fail(test, IERECVRESULTS, 0);
	if (json_get_string(doc, "congestion_used", &cc) == JSON_OK)
		(void)str_replace(&test->run.remote_congestion_used, cc);
	test->run.ses.peer_has_rtt_sum = stats_asked(test) &&
	    params_decode_latsum(doc, "sum_rtt_us", &test->run.ses.peer_rtt_sum);
#ifdef HAVE_PEERIVAL
	test->run.ses.peer_has_delay_sum = stats_asked(test) &&
	    params_decode_latsum(doc, "sum_delay_var_us",
		&test->run.ses.peer_delay_sum);
#endif
	cJSON_ArrayForEach(s, streams)
	{
		if (++n > 2 * IPERF_MAX_STREAMS || !cJSON_IsObject(s))
			return iperf_fail(test, IERECVRESULTS, 0);
		if (decode_stream(test, s) == -1)
			return -1;
	}
	decode_server_output(test, doc);
	rr_results_decode_test(test, doc);
	return 0;
}
