/* ext.c - negotiation of our extensions (see ext.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>

#include "addr.h"
#include "ext.h"
#include "util.h"
#include "iperf.h"
#include "iperf_error.h"
#include "proto_ops.h"
#include "banned.h"

/* Longest "want" list looked at: the rest of a hostile list is ignored. */
#define EXT_MAX_WANT 16

static const struct ext_name {
	const char *name;
	unsigned int bit;
} ext_names[] = {
	{ "count_stop", EXT_COUNT_STOP },
	{ "udp_offload", EXT_UDP_OFFLOAD },
	{ "stats", EXT_STATS },
#ifdef HAVE_RR
	{ "rr", EXT_RR }, /* a server without it never confirms it */
#endif
	{ "latency", EXT_LATENCY },
#ifdef HAVE_RPM
	{ "rpm", EXT_RPM }, /* a server without it never confirms it */
#endif
#ifdef HAVE_OPERATOR
	{ "clamp", EXT_CLAMP }, /* a server without it clamps nothing */
#endif
#ifdef HAVE_OWD
	{ "owd", EXT_OWD }, /* a server without it never confirms it */
#endif
#ifdef HAVE_PEERIVAL
	{ "peer_intervals", EXT_PEER_IVAL },
#endif
#ifdef HAVE_MULTICAST
	{ "multicast", EXT_MCAST }, /* a server without it never confirms it */
#endif
#ifdef HAVE_ISOCHRONOUS
	{ "isochronous", EXT_ISO }, /* a server without it never confirms it */
#endif
};



int
ext_udp_offload_built(void)
{
#if defined(HAVE_DECL_UDP_SEGMENT) && HAVE_DECL_UDP_SEGMENT && \
    defined(HAVE_DECL_UDP_GRO) && HAVE_DECL_UDP_GRO
	return 1;
#else
	return 0;
#endif
}

/* --multicast (the server joins the group) and --isochronous (frames):
 * every datagram alone with the extension (dgram_ext.h), no offload. */
static unsigned int
ext_dgx_wants(const struct iperf_settings *s, unsigned int want)
{
	(void)s;
#ifdef HAVE_MULTICAST
	if (s->mcast_group != NULL)
		want = (want & ~EXT_UDP_OFFLOAD) | EXT_MCAST;
#endif
#ifdef HAVE_ISOCHRONOUS
	if (s->iso)
		want = (want & ~EXT_UDP_OFFLOAD) | EXT_ISO;
#endif
	return want;
}

/*
 * udp_offload under -b, measured 2026-11-29 between two namespaces and
 * not adopted: sending what the pacer has due in one GSO call took client
 * + server CPU per Gbit/s at -b 1G from 0.96 of 3.21's to 0.33 with
 * 200 us batches, but through a tbf just above the rate the jitter of the
 * batches' first datagrams read 32-44 us where single datagrams gave
 * 2-21 (-b 150M, 500M, 700M); with 50 us batches (what leaves back to
 * back anyway) CPU 0.79 only, and jitter below single datagrams' at
 * -b 500M (the queue inside a burst unseen).
 */
unsigned int
ext_client_wants(const struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	unsigned int want = 0;
	int datagram = test->proto != NULL &&
	    (test->proto->flags & PROTO_F_DATAGRAM);

	if (datagram && (s->bytes != 0 || s->blocks != 0) &&
	    (s->reverse || s->bidirectional))
		want |= EXT_COUNT_STOP;
	/* --gsro asks stock's way (its keys go to any server) instead.
	 * Only at an unlimited rate (-b 0): under -b every datagram goes
	 * alone, so that each has a send time and an arrival time of its
	 * own.  A batch of datagrams with one send time is a burst the path
	 * spreads out (through a bottleneck its jitter and delay variation
	 * measured the burst: 0.03-0.15 ms where single datagrams gave
	 * 0.01), and received whole it gives them all one arrival time
	 * (jitter near 0 on loopback); see above for batches under -b. */
	if (datagram && s->rate == 0 && !test->opt->gsro &&
	    !test->opt->no_udp_offload && ext_udp_offload_built())
		want |= EXT_UDP_OFFLOAD;
	/* The server measures: a TCP sender's RTT (-R, --bidir), a UDP
	 * receiver's delay and socket drops (every direction but -R). */
	if (test->proto != NULL && (test->proto->flags & PROTO_F_RETRANSMITS) &&
	    (s->reverse || s->bidirectional))
		want |= EXT_STATS;
	if (datagram && (!s->reverse || s->bidirectional))
		want |= EXT_STATS;
	/* --rr: transactions, not a flow: no offload, no flow figures. */
	if (s->rr)
		want = (want & ~(EXT_UDP_OFFLOAD | EXT_STATS)) | EXT_RR;
	if (test->opt->latency)
		want |= EXT_LATENCY;
#ifdef HAVE_OWD
	/* --owd: "owd" alone (a server without it then refuses), and every
	 * datagram alone. */
	if (test->opt->owd)
		want = (want & ~(EXT_LATENCY | EXT_UDP_OFFLOAD)) | EXT_OWD;
#endif
#ifdef HAVE_RPM
	/* --rpm: framed load streams of a TCP upload, no flow figures */
	if (s->rpm)
		want = (want & ~EXT_STATS) | EXT_RPM;
#endif
	want = ext_dgx_wants(s, want);
#ifdef HAVE_OPERATOR
	if (!test->opt->no_clamp)
		want |= EXT_CLAMP;
#endif
#ifdef HAVE_PEERIVAL
	/* Only where the server's figures land: JSON intervals (-J,
	 * --json-stream, --plot draws from them). */
	if ((want & EXT_STATS) && test->opt->stats_interval > 0 &&
	    (test->opt->json_output || test->opt->plot_file != NULL))
		want |= EXT_PEER_IVAL;
#endif
	return want;
}

/* --multicast and --isochronous: their settings in the object. */
static int
ext_encode_dgx(const struct iperf_test *test, unsigned int want, cJSON *o)
{
	const struct iperf_settings *s = &test->settings;
	cJSON *m;
	char id[20];

	(void)s;
	(void)m;
	(void)id;
	(void)want;
	(void)o;
#ifdef HAVE_MULTICAST
	if (want & EXT_MCAST) {
		m = cJSON_AddObjectToObject(o, "multicast");
		(void)snprintf(id, sizeof(id), "%016llx",
		    (unsigned long long)s->mcast_test_id);
		if (m == NULL ||
		    cJSON_AddStringToObject(m, "group", s->mcast_group) == NULL ||
		    (s->mcast_source != NULL && cJSON_AddStringToObject(m,
			"source", s->mcast_source) == NULL) ||
		    cJSON_AddNumberToObject(m, "ttl", s->mcast_ttl) == NULL ||
		    cJSON_AddStringToObject(m, "test_id", id) == NULL)
			return -1;
	}
#endif
#ifdef HAVE_ISOCHRONOUS
	if (want & EXT_ISO) {
		m = cJSON_AddObjectToObject(o, "isochronous");
		if (m == NULL ||
		    cJSON_AddNumberToObject(m, "fps", s->iso_fps) == NULL ||
		    cJSON_AddNumberToObject(m, "mean", (double)s->iso_mean) ==
			NULL ||
		    cJSON_AddNumberToObject(m, "stddev", (double)s->iso_stddev) ==
			NULL)
			return -1;
	}
#endif
	return 0;
}

int
ext_encode(const struct iperf_test *test, cJSON *params)
{
	unsigned int want = ext_client_wants(test);
	cJSON *o, *list;
	size_t i;

	if (want == 0)
		return 0;
	o = cJSON_AddObjectToObject(params, EXT_PARAM_KEY);
	if (o == NULL || cJSON_AddStringToObject(o, "version",
			     PACKAGE_VERSION) == NULL)
		return -1;
	list = cJSON_AddArrayToObject(o, "want");
	if (list == NULL)
		return -1;
	for (i = 0; i < sizeof(ext_names) / sizeof(ext_names[0]); i++) {
		cJSON *n;

		if (!(want & ext_names[i].bit))
			continue;
		n = cJSON_CreateString(ext_names[i].name);
		if (n == NULL || !cJSON_AddItemToArray(list, n)) {
			cJSON_Delete(n);
			return -1;
		}
	}
	if ((want & EXT_RR) && cJSON_AddNumberToObject(o, "rr_response",
				   test->settings.rr_response) == NULL)
		return -1;
	if (ext_encode_dgx(test, want, o) == -1)
		return -1;
#ifdef HAVE_PEERIVAL
	if ((want & EXT_PEER_IVAL) && cJSON_AddNumberToObject(o, "interval",
					  test->opt->stats_interval) == NULL)
		return -1;
#endif
	return 0;
}

static unsigned int
ext_bit(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(ext_names) / sizeof(ext_names[0]); i++) {
		if (strcmp(ext_names[i].name, name) == 0)
			return ext_names[i].bit;
	}
	return 0;
}

unsigned int
ext_decode(const cJSON *params)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(params, EXT_PARAM_KEY);
	const cJSON *list, *item;
	unsigned int want = 0;
	int n = 0;

	if (!cJSON_IsObject(o))
		return 0;
	list = cJSON_GetObjectItemCaseSensitive(o, "want");
	if (!cJSON_IsArray(list))
		return 0;
	cJSON_ArrayForEach(item, list) {
		if (++n > EXT_MAX_WANT)
			break;
		if (cJSON_IsString(item) && item->valuestring != NULL)
			want |= ext_bit(item->valuestring);
	}
	return want;
}

#ifdef HAVE_MULTICAST
/* A numeric address of the family wanted (AF_UNSPEC: either), group or
 * not as asked; its text copied into *out. */
static int
dgx_addr(const cJSON *m, const char *key, int group, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);
	struct sockaddr_storage ss;
	socklen_t len;

	if (!cJSON_IsString(v) || v->valuestring == NULL ||
	    strlen(v->valuestring) > 64 ||
	    addr_parse_numeric(v->valuestring, 0, &ss, &len) == -1 ||
	    addr_is_multicast(&ss) != group)
		return -1;
	*out = str_dup(v->valuestring);
	return *out == NULL ? -1 : 0;
}
#endif

/* --multicast and --isochronous: the settings the client sent; -1 with
 * IERECVPARAMS for a malformed one. */
static int
ext_decode_dgx(struct iperf_test *test, const cJSON *o)
{
	struct iperf_settings *s = &test->settings;
	const cJSON *m, *n;

	(void)s;
	(void)m;
	(void)n;
	(void)o;
#ifdef HAVE_MULTICAST
	free(s->mcast_group);
	free(s->mcast_source);
	s->mcast_group = s->mcast_source = NULL;
	if (s->ext_want & EXT_MCAST) {
		m = cJSON_GetObjectItemCaseSensitive(o, "multicast");
		n = cJSON_GetObjectItemCaseSensitive(m, "ttl");
		if (dgx_addr(m, "group", 1, &s->mcast_group) == -1 ||
		    (cJSON_GetObjectItemCaseSensitive(m, "source") != NULL &&
			dgx_addr(m, "source", 0, &s->mcast_source) == -1) ||
		    !cJSON_IsNumber(n) || n->valuedouble < 1 ||
		    n->valuedouble > 255)
			return iperf_fail(test, IERECVPARAMS, 0);
		if (s->mcast_source != NULL &&
		    (strchr(s->mcast_source, ':') == NULL) !=
			(strchr(s->mcast_group, ':') == NULL))
			return iperf_fail(test, IERECVPARAMS, 0);
		s->mcast_ttl = (int)n->valuedouble;
		n = cJSON_GetObjectItemCaseSensitive(m, "test_id");
		s->mcast_test_id = cJSON_IsString(n) && n->valuestring != NULL ?
		    strtoull(n->valuestring, NULL, 16) : 0;
	}
#endif
#ifdef HAVE_ISOCHRONOUS
	s->iso = (s->ext_want & EXT_ISO) != 0;
	if (s->iso) {
		const cJSON *f, *mean, *sd;

		m = cJSON_GetObjectItemCaseSensitive(o, "isochronous");
		f = cJSON_GetObjectItemCaseSensitive(m, "fps");
		mean = cJSON_GetObjectItemCaseSensitive(m, "mean");
		sd = cJSON_GetObjectItemCaseSensitive(m, "stddev");
		if (!cJSON_IsNumber(f) || !(f->valuedouble >= 1) ||
		    f->valuedouble > 1000 || !cJSON_IsNumber(mean) ||
		    !(mean->valuedouble >= 1) || mean->valuedouble > 1e13 ||
		    !cJSON_IsNumber(sd) || !(sd->valuedouble >= 0) ||
		    sd->valuedouble > 1e13)
			return iperf_fail(test, IERECVPARAMS, 0);
		s->iso_fps = f->valuedouble;
		s->iso_mean = (uint64_t)mean->valuedouble;
		s->iso_stddev = (uint64_t)sd->valuedouble;
	}
#endif
	return 0;
}

int
ext_decode_settings(struct iperf_test *test, const cJSON *params)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(params, EXT_PARAM_KEY);
	const cJSON *n;

	test->settings.rr = (test->settings.ext_want & EXT_RR) != 0;
#ifdef HAVE_RPM
	test->settings.rpm = (test->settings.ext_want & EXT_RPM) != 0;
#endif
	test->settings.rr_response = 0;
#ifdef HAVE_PEERIVAL
	/* the client's -i: without a valid one, no figures (their intervals
	 * would not be the client's); a server given an -i other than the
	 * default 1 keeps its own intervals and sends none either */
	n = cJSON_GetObjectItemCaseSensitive(o, "interval");
	test->settings.peer_interval = 0;
	if (cJSON_IsNumber(n) && n->valuedouble >= 0.1 &&
	    n->valuedouble <= 60 && (test->opt->stats_interval == 1.0 ||
	    test->opt->stats_interval == n->valuedouble))
		test->settings.peer_interval = n->valuedouble;
	else
		test->settings.ext_want &= ~EXT_PEER_IVAL;
#endif
	if (ext_decode_dgx(test, o) == -1)
		return -1;
	if (!test->settings.rr)
		return 0;
	n = cJSON_GetObjectItemCaseSensitive(o, "rr_response");
	if (!cJSON_IsNumber(n) || n->valuedouble < 1 ||
	    n->valuedouble > (test->settings.protocol_id == SOCK_DGRAM ?
		IPERF_MAX_UDP_BLOCKSIZE : IPERF_MAX_BLOCKSIZE) ||
	    n->valuedouble != (double)(int)n->valuedouble)
		return iperf_fail(test, IERECVPARAMS, 0);
	test->settings.rr_response = (int)n->valuedouble;
	return 0;
}

int
ext_server_confirms(const struct iperf_test *test)
{
	return (test->settings.ext_want & EXT_NEEDS_CONFIRM) != 0;
}
