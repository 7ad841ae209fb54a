/* server_caps.c - the server's caps on a test (see the header). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "caps_doc.h"
#include "ctrl.h"
#include "ext.h"
#include "iperf.h"
#include "iperf_error.h"
#include "json.h"
#include "report_caps.h"
#include "server_caps.h"
#include "session.h"
#include "banned.h"

#define CAPS_UNBOUNDED UINT64_MAX

/* What the caps look at of a test. */
struct caps_shape {
	int duration, omit;
	int streams, dirs; /* -P, and 2 with --bidir */
	uint64_t bytes, blocks, rate;
	uint64_t blksize;
};

static uint64_t
mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? CAPS_UNBOUNDED : r;
}

static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? CAPS_UNBOUNDED : r;
}

static void
shape_of(const struct iperf_settings *s, struct caps_shape *t)
{
	t->duration = s->duration > 0 ? s->duration : 0;
	t->omit = s->omit > 0 ? s->omit : 0;
	t->streams = s->num_streams > 0 ? s->num_streams : 1;
	t->dirs = s->bidirectional ? 2 : 1;
	t->bytes = s->bytes;
	t->blocks = s->blocks;
	t->rate = s->rate;
	t->blksize = s->blksize > 0 ? (uint64_t)s->blksize : 0;
}

/* Bytes at the rate over secs seconds, every stream; unbounded at 0. */
static uint64_t
rate_bytes(const struct caps_shape *t, int secs)
{
	uint64_t k = (uint64_t)t->streams * (uint64_t)t->dirs;

	if (t->rate == 0)
		return CAPS_UNBOUNDED;
	return mul_sat(mul_sat(t->rate, (uint64_t)secs), k) / 8;
}

/* The count of one direction (-n, or -k blocks), 0 without one. */
static uint64_t
count_per_dir(const struct caps_shape *t)
{
	if (t->bytes != 0)
		return t->bytes;
	return mul_sat(t->blocks, t->blksize);
}

static uint64_t
shape_bound(const struct caps_shape *t)
{
	uint64_t timed = CAPS_UNBOUNDED, counted = CAPS_UNBOUNDED;

	if (t->duration > 0)
		timed = rate_bytes(t, t->duration + t->omit);
	if (t->bytes != 0 || t->blocks != 0) {
		counted = mul_sat(count_per_dir(t), (uint64_t)t->dirs);
		if (t->omit > 0)
			counted = add_sat(counted, rate_bytes(t, t->omit));
	}
	return timed < counted ? timed : counted;
}

uint64_t
server_caps_byte_bound(const struct iperf_settings *s)
{
	struct caps_shape t;

	shape_of(s, &t);
	return shape_bound(&t);
}

static void
cap_set(struct server_caps *c, unsigned int bit, struct cap_value *v,
    uint64_t requested, uint64_t applied, uint64_t limit)
{
	c->configured |= bit;
	v->requested = requested;
	v->applied = applied;
	v->limit = limit;
	if (requested != applied)
		c->changed |= bit;
}

static void
clamp_duration(struct caps_shape *t, int max, struct server_caps *c)
{
	int req = t->duration;

	if (t->duration == 0 || t->duration + t->omit > max) {
		if (t->omit >= max)
			t->omit = 0;
		t->duration = max - t->omit;
	}
	cap_set(c, CAP_DURATION, &c->duration, (uint64_t)req,
	    (uint64_t)t->duration, (uint64_t)max);
}

static int
clamp_streams(struct caps_shape *t, int max, struct server_caps *c)
{
	int req = t->streams * t->dirs;

	if (req > max) {
		if (max / t->dirs < 1)
			return -1;
		t->streams = max / t->dirs;
	}
	cap_set(c, CAP_STREAMS, &c->streams, (uint64_t)req,
	    (uint64_t)(t->streams * t->dirs), (uint64_t)max);
	return 0;
}

static void
clamp_rate(struct caps_shape *t, uint64_t max, struct server_caps *c)
{
	uint64_t k = (uint64_t)t->streams * (uint64_t)t->dirs;
	uint64_t req = mul_sat(t->rate, k);

	if (t->rate == 0 || req > max) {
		t->rate = max / k;
		if (t->rate == 0)
			t->rate = 1;
	}
	cap_set(c, CAP_BITRATE, &c->bitrate, req, mul_sat(t->rate, k), max);
}

/* Above the cap: a count of cap / directions a direction (no larger
 * than the test's own), and no omitted seconds outside it. */
static void
clamp_bytes(struct caps_shape *t, uint64_t max, struct server_caps *c)
{
	uint64_t bound = shape_bound(t);
	uint64_t req = bound == CAPS_UNBOUNDED ? 0 : bound;
	uint64_t per, own;

	if (bound <= max) {
		cap_set(c, CAP_BYTES, &c->bytes, req, req, max);
		return;
	}
	per = max / (uint64_t)t->dirs;
	own = count_per_dir(t);
	if (own != 0 && own < per)
		per = own;
	if (per == 0)
		per = 1;
	t->omit = 0;
	t->bytes = per;
	t->blocks = 0;
	cap_set(c, CAP_BYTES, &c->bytes, req, per * (uint64_t)t->dirs, max);
	c->changed |= CAP_BYTES;
}

int
server_caps_compute(const struct caps_limits *lim,
    const struct iperf_settings *s, struct server_caps *out)
{
	struct caps_shape t;

	memset(out, 0, sizeof(*out));
	shape_of(s, &t);
	out->omit_requested = t.omit;
	if (lim->duration_s > 0)
		clamp_duration(&t, lim->duration_s, out);
	if (lim->streams > 0 && clamp_streams(&t, lim->streams, out) == -1)
		return -1;
	if (lim->bitrate > 0)
		clamp_rate(&t, lim->bitrate, out);
	if (lim->bytes > 0)
		clamp_bytes(&t, lim->bytes, out);
	out->omit_applied = t.omit;
	return 0;
}

/* ---- the server's part -------------------------------------------------- */

/* The caps this server was given. */
static void
server_caps_limits(const struct iperf_test *test, struct caps_limits *lim)
{
	lim->duration_s = test->opt->max_server_duration_s;
	lim->bytes = test->opt->max_server_bytes;
	lim->streams = test->opt->max_server_streams;
	lim->bitrate = test->opt->bitrate_limit;
}

int
server_caps_negotiate(struct iperf_test *test)
{
	struct caps_limits lim;
	struct server_caps *c = &test->run.srv.caps;

	server_caps_limits(test, &lim);
	if (!(test->settings.ext_want & EXT_CLAMP) ||
	    (lim.duration_s <= 0 && lim.bytes == 0 && lim.streams <= 0 &&
		lim.bitrate == 0))
		return 0;
	if (server_caps_compute(&lim, &test->settings, c) == -1)
		return iperf_fail(test, IEMAXSERVERTESTDURATIONEXCEEDED, 0);
	if (caps_apply(c, &test->settings) == -1)
		return iperf_fail(test, IEMAXSERVERTESTDURATIONEXCEEDED, 0);
	/* A count the cap set: our client ends it on the sender's
	 * evidence, so our datagram sender may stop at it (ext.h). */
	if (c->changed & CAP_BYTES)
		test->settings.ext_want |= EXT_COUNT_STOP;
	/* udp_offload is for -b 0 alone: a rate the cap set goes without,
	 * as our client, which now sees a rate, no longer expects it. */
	if (c->changed & CAP_BITRATE)
		test->settings.ext_want &= ~EXT_UDP_OFFLOAD;
	test->run.srv.caps_clamped = 1;
	return 0;
}

int
server_caps_send(struct iperf_test *test)
{
	cJSON *doc;
	char *txt;
	int rc;

	if (!test->run.srv.caps_clamped)
		return 0;
	doc = caps_doc_encode(&test->run.srv.caps);
	if (doc == NULL)
		return iperf_fail(test, IESENDMESSAGE, ENOMEM);
	report_server_caps(test, &test->run.srv.caps, doc);
	txt = json_print_compact(doc);
	cJSON_Delete(doc);
	if (txt == NULL)
		return iperf_fail(test, IESENDMESSAGE, ENOMEM);
	if (session_send_state(test, EXT_STATE_CAPS) == -1) {
		free(txt);
		return -1;
	}
	rc = ctrl_send_json(test->run.ses.ctrl_sck, txt, strlen(txt));
	free(txt);
	if (rc == -1)
		return iperf_fail(test, IESENDMESSAGE, errno);
	return 0;
}
