/*
 * rr_wire.c - the pure parts of --rr (rr.h): request numbers in UDP
 * messages, the loss timeout, rates, and the "rr" object of the results
 * document.  No sockets, no clocks.
 */
#include "config.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "bytes.h"
#include "iperf.h"
#include "json.h"
#include "rr.h"
#include "stream.h"
#include "banned.h"

/* Every field of a latency object in the results document. */
#define RR_LAT_FIELDS (LATSUM_MIN | LATSUM_PCT | LATSUM_P999 | LATSUM_MAX | \
	LATSUM_MEAN)

int
rr_numbered(size_t req_len, size_t resp_len)
{
	return req_len >= RR_ID_LEN && resp_len >= RR_ID_LEN;
}

void
rr_id_put(unsigned char *buf, uint64_t id)
{
	put_be64(buf, id);
}

int
rr_id_get(const unsigned char *buf, size_t len, uint64_t *id)
{
	if (len < RR_ID_LEN)
		return -1;
	*id = get_be64(buf);
	return 0;
}

int
rr_is_answer(int numbered, const unsigned char *buf, size_t len,
    uint64_t want)
{
	uint64_t id;

	if (!numbered)
		return len > 0;
	return rr_id_get(buf, len, &id) == 0 && id == want;
}

uint64_t
rr_timeout_ns(uint64_t p99_ns, uint64_t samples)
{
	uint64_t t;

	if (samples == 0)
		return RR_TIMEOUT_FIRST_NS;
	if (p99_ns > RR_TIMEOUT_MAX_NS / RR_TIMEOUT_P99_FACTOR)
		return RR_TIMEOUT_MAX_NS;
	t = p99_ns * RR_TIMEOUT_P99_FACTOR;
	return t < RR_TIMEOUT_MIN_NS ? RR_TIMEOUT_MIN_NS : t;
}

uint64_t
rr_timeout_first_ns(uint64_t ctrl_rtt_us)
{
	if (ctrl_rtt_us == 0 || ctrl_rtt_us > RR_TIMEOUT_MAX_NS / 1000)
		return RR_TIMEOUT_FIRST_NS;
	return rr_timeout_ns(ctrl_rtt_us * 1000, 1);
}

int
rr_timeout_due(uint64_t samples)
{
	return samples == 1 || samples == 16 || samples == 64 ||
	    (samples > 0 && samples % 256 == 0);
}

double
rr_rate(uint64_t trans, double seconds)
{
	return seconds > 0 ? (double)trans / seconds : 0.0;
}

int
rr_results_add(cJSON *parent, uint64_t trans, uint64_t lost,
    const struct latsum *lat)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL ||
	    cJSON_AddNumberToObject(o, "transactions", (double)trans) == NULL ||
	    cJSON_AddNumberToObject(o, "lost", (double)lost) == NULL ||
	    !cJSON_AddItemToObject(o, "latency_us",
		latsum_to_json(lat, 1000.0, RR_LAT_FIELDS)) ||
	    !cJSON_AddItemToObject(parent, "rr", o)) {
		cJSON_Delete(o);
		return -1;
	}
	return 0;
}

/* A latency in us from the document, back in ns (absent: 0). */
static uint64_t
lat_ns(const cJSON *o, const char *key)
{
	double v = 0;

	if (json_get_double(o, key, &v) != JSON_OK || !(v > 0) || v > 1e12)
		return 0;
	return (uint64_t)(v * 1000.0 + 0.5);
}

void
rr_results_read(const cJSON *o, struct rr_peer *out)
{
	const cJSON *lat;
	int64_t trans = 0, lost = 0;
	double mean = 0;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(o) ||
	    json_get_i64(o, "transactions", 0, INT64_MAX, &trans) != JSON_OK)
		return;
	(void)json_get_i64(o, "lost", 0, INT64_MAX, &lost);
	out->trans = (uint64_t)trans;
	out->lost = (uint64_t)lost;
	out->lat.samples = out->trans;
	lat = cJSON_GetObjectItemCaseSensitive(o, "latency_us");
	if (cJSON_IsObject(lat)) {
		out->lat.min = lat_ns(lat, "min");
		out->lat.p50 = lat_ns(lat, "p50");
		out->lat.p90 = lat_ns(lat, "p90");
		out->lat.p99 = lat_ns(lat, "p99");
		out->lat.p999 = lat_ns(lat, "p999");
		out->lat.max = lat_ns(lat, "max");
		if (json_get_double(lat, "mean", &mean) == JSON_OK &&
		    mean > 0 && mean < 1e12)
			out->lat.mean = mean * 1000.0;
	}
	out->present = 1;
}

/* ---- totals ---------------------------------------------------------------------- */

int
rr_test_totals(const struct iperf_test *test, struct latstat *out,
    uint64_t *trans, uint64_t *lost)
{
	const struct iperf_stream *sp;
	int rc = 0;

	*trans = *lost = 0;
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (sp->rr == NULL)
			continue;
		*trans += sp->final.rr_trans - sp->base_omit.rr_trans;
		*lost += sp->final.rr_lost - sp->base_omit.rr_lost;
		if (latstat_merge(out, &sp->rr->total) == -1)
			rc = -1;
	}
	return rc;
}
