/* caps_doc.c - the caps document (see the header). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "caps_doc.h"
#include "iperf.h"
#include "json.h"
#include "banned.h"

/* Largest value a document carries exactly (a JSON number is a double). */
#define CAPS_DOC_MAX ((int64_t)1 << 53)

struct cap_name {
	const char *name;
	unsigned int bit;
	size_t off; /* of its struct cap_value in struct server_caps */
};

static const struct cap_name cap_names[] = {
	{ "duration", CAP_DURATION, offsetof(struct server_caps, duration) },
	{ "bytes", CAP_BYTES, offsetof(struct server_caps, bytes) },
	{ "streams", CAP_STREAMS, offsetof(struct server_caps, streams) },
	{ "bitrate", CAP_BITRATE, offsetof(struct server_caps, bitrate) },
};
#define CAP_NAMES (sizeof(cap_names) / sizeof(cap_names[0]))

static const struct cap_value *
value_of(const struct server_caps *c, size_t i)
{
	return (const struct cap_value *)(const void *)((const char *)c +
	    cap_names[i].off);
}

/* Saturated at CAPS_DOC_MAX: a request beyond it (a saturated bound,
 * -b in the exabits) is still more than any cap. */
static int
add_num(cJSON *o, const char *key, uint64_t v)
{
	if (v > (uint64_t)CAPS_DOC_MAX)
		v = (uint64_t)CAPS_DOC_MAX;
	return cJSON_AddNumberToObject(o, key, (double)v) != NULL ? 0 : -1;
}

static int
add_cap(cJSON *doc, const char *name, const struct cap_value *v, int limit)
{
	cJSON *o = cJSON_AddObjectToObject(doc, name);

	if (o == NULL || add_num(o, "requested", v->requested) == -1 ||
	    add_num(o, "applied", v->applied) == -1 ||
	    (limit && add_num(o, "limit", v->limit) == -1))
		return -1;
	return 0;
}

cJSON *
caps_doc_encode(const struct server_caps *c)
{
	cJSON *doc = cJSON_CreateObject();
	size_t i;

	if (doc == NULL)
		return NULL;
	for (i = 0; i < CAP_NAMES; i++) {
		if ((c->configured & cap_names[i].bit) &&
		    add_cap(doc, cap_names[i].name, value_of(c, i), 1) == -1)
			goto fail;
	}
	if (c->omit_requested != c->omit_applied) {
		struct cap_value om = { (uint64_t)c->omit_requested,
			(uint64_t)c->omit_applied, 0 };
		if (add_cap(doc, "omit", &om, 0) == -1)
			goto fail;
	}
	return doc;
fail:
	cJSON_Delete(doc);
	return NULL;
}

static cJSON *
one_value_each(const struct server_caps *c, int applied)
{
	cJSON *doc = cJSON_CreateObject();
	size_t i;

	if (doc == NULL)
		return NULL;
	for (i = 0; i < CAP_NAMES; i++) {
		const struct cap_value *v = value_of(c, i);

		if ((c->configured & cap_names[i].bit) &&
		    add_num(doc, cap_names[i].name,
			applied ? v->applied : v->requested) == -1) {
			cJSON_Delete(doc);
			return NULL;
		}
	}
	return doc;
}

cJSON *
caps_requested_json(const struct server_caps *c)
{
	return one_value_each(c, 0);
}

cJSON *
caps_applied_json(const struct server_caps *c)
{
	return one_value_each(c, 1);
}

static int
get_u64(const cJSON *o, const char *key, int64_t max, uint64_t *out)
{
	int64_t v;

	if (json_get_i64(o, key, 0, max, &v) != JSON_OK)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int
decode_cap(const cJSON *o, struct cap_value *v)
{
	if (!cJSON_IsObject(o) || get_u64(o, "requested", CAPS_DOC_MAX,
		&v->requested) == -1 ||
	    get_u64(o, "applied", CAPS_DOC_MAX, &v->applied) == -1 ||
	    get_u64(o, "limit", CAPS_DOC_MAX, &v->limit) == -1)
		return -1;
	return 0;
}

static int
decode_omit(const cJSON *doc, struct server_caps *out)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(doc, "omit");
	uint64_t r, a;

	if (o == NULL)
		return 0;
	if (!cJSON_IsObject(o) ||
	    get_u64(o, "requested", IPERF_MAX_OMIT_S, &r) == -1 ||
	    get_u64(o, "applied", IPERF_MAX_OMIT_S, &a) == -1)
		return -1;
	out->omit_requested = (int)r;
	out->omit_applied = (int)a;
	return 0;
}

int
caps_doc_decode(const cJSON *doc, struct server_caps *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(doc))
		return -1;
	for (i = 0; i < CAP_NAMES; i++) {
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(doc,
		    cap_names[i].name);
		struct cap_value *v = (struct cap_value *)(void *)((char *)out +
		    cap_names[i].off);

		if (o == NULL)
			continue;
		if (decode_cap(o, v) == -1)
			return -1;
		out->configured |= cap_names[i].bit;
		if (v->requested != v->applied)
			out->changed |= cap_names[i].bit;
	}
	return decode_omit(doc, out);
}

/* ---- the settings ------------------------------------------------------- */

static int
apply_time(const struct server_caps *c, struct iperf_settings *s)
{
	uint64_t d = c->duration.applied;

	if (c->changed & CAP_DURATION) {
		if (d < 1 || d > IPERF_MAX_TIME_S ||
		    (s->duration > 0 && d > (uint64_t)s->duration))
			return -1;
		s->duration = (int)d;
	}
	if (c->omit_requested != c->omit_applied) {
		if (c->omit_requested != s->omit ||
		    c->omit_applied > c->omit_requested)
			return -1;
		s->omit = c->omit_applied;
	}
	return 0;
}

static int
apply_streams(const struct server_caps *c, struct iperf_settings *s,
    uint64_t dirs)
{
	uint64_t n = c->streams.applied;

	if (!(c->changed & CAP_STREAMS))
		return 0;
	if (n % dirs != 0 || n / dirs < 1 || n / dirs > (uint64_t)s->num_streams)
		return -1;
	s->num_streams = (int)(n / dirs);
	return 0;
}

static int
apply_rate(const struct server_caps *c, struct iperf_settings *s,
    uint64_t dirs)
{
	uint64_t k = (uint64_t)s->num_streams * dirs, r;

	if (!(c->configured & CAP_BITRATE))
		return 0;
	if (c->changed & CAP_BITRATE) {
		r = c->bitrate.applied / k;
		if (r < 1 || (s->rate != 0 && r > s->rate))
			return -1;
		s->rate = r;
	}
	/* --fq-rate within the cap too (3.21 refuses it above) */
	if (c->bitrate.limit > 0 && s->fqrate > c->bitrate.limit / k)
		s->fqrate = c->bitrate.limit / k;
	return 0;
}

static int
apply_bytes(const struct server_caps *c, struct iperf_settings *s,
    uint64_t dirs)
{
	uint64_t per = c->bytes.applied / dirs, own;

	if (!(c->changed & CAP_BYTES))
		return 0;
	own = s->bytes;
	if (own == 0 && __builtin_mul_overflow(s->blocks,
		(uint64_t)(s->blksize > 0 ? s->blksize : 0), &own))
		own = UINT64_MAX;
	if (per < 1 || (own != 0 && per > own))
		return -1;
	s->bytes = per;
	s->blocks = 0;
	return 0;
}

int
caps_apply(const struct server_caps *c, struct iperf_settings *s)
{
	uint64_t dirs = s->bidirectional ? 2 : 1;

	if (s->num_streams < 1 || apply_time(c, s) == -1 ||
	    apply_streams(c, s, dirs) == -1 || apply_rate(c, s, dirs) == -1 ||
	    apply_bytes(c, s, dirs) == -1)
		return -1;
	return 0;
}
