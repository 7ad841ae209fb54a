/* iso_figs.c - --isochronous figures per interval and per test, and the
 * copy of them in the results (iso_stream.h). */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ext.h"
#include "iperf.h"
#include "iso_stream.h"
#include "json.h"
#include "stream.h"
#include "banned.h"

/* The figures since the given baselines (sp->w.lock held); the frame
 * sizes of the interval (ival) or of the test. */
static void
fig_since(struct iperf_stream *sp, uint64_t frames, uint64_t lost,
    uint64_t sent, uint64_t skipped, size_t lat, size_t ia, int ival,
    struct iso_fig *f)
{
	const struct iso_stream *is = sp->iso;
	const struct iso_acc *a = &is->rx;

	memset(f, 0, sizeof(*f));
	f->receiver = !sp->sender;
	if (sp->sender) {
		f->sent = is->sent - sent;
		f->skipped = is->skipped - skipped;
		f->sizes = ival ? is->sizes_ival : is->sizes;
		return;
	}
	f->frames = a->frames - frames;
	f->lost = a->lost - lost;
	f->jitter_us = a->jitter_us;
	f->sizes = ival ? a->sizes_ival : a->sizes;
	if (lat > a->n_lat)
		lat = a->n_lat;
	if (ia > a->n_ia)
		ia = a->n_ia;
	(void)iso_dist_of(a->lat_us + lat, a->n_lat - lat, &f->lat);
	(void)iso_dist_of(a->ia_us + ia, a->n_ia - ia, &f->ia);
}

void
iso_stream_sample(struct iperf_test *test, int keep)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct iso_stream *is = sp->iso;

		if (is == NULL)
			continue;
		pthread_mutex_lock(&sp->w.lock);
		if (keep)
			fig_since(sp, is->b_frames, is->b_lost, is->b_sent,
			    is->b_skipped, is->b_lat, is->b_ia, 1, &is->ival);
		memset(&is->sizes_ival, 0, sizeof(is->sizes_ival));
		memset(&is->rx.sizes_ival, 0, sizeof(is->rx.sizes_ival));
		is->b_frames = is->rx.frames;
		is->b_lost = is->rx.lost;
		is->b_sent = is->sent;
		is->b_skipped = is->skipped;
		is->b_lat = is->rx.n_lat;
		is->b_ia = is->rx.n_ia;
		pthread_mutex_unlock(&sp->w.lock);
		is->ival_ok = keep;
	}
}

void
iso_stream_omit_end(struct iperf_test *test)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct iso_stream *is = sp->iso;

		if (is == NULL)
			continue;
		pthread_mutex_lock(&sp->w.lock);
		is->o_frames = is->b_frames = is->rx.frames;
		is->o_lost = is->b_lost = is->rx.lost;
		is->o_sent = is->b_sent = is->sent;
		is->o_skipped = is->b_skipped = is->skipped;
		is->o_lat = is->b_lat = is->rx.n_lat;
		is->o_ia = is->b_ia = is->rx.n_ia;
		memset(&is->sizes, 0, sizeof(is->sizes));
		memset(&is->sizes_ival, 0, sizeof(is->sizes_ival));
		memset(&is->rx.sizes, 0, sizeof(is->rx.sizes));
		memset(&is->rx.sizes_ival, 0, sizeof(is->rx.sizes_ival));
		pthread_mutex_unlock(&sp->w.lock);
	}
}

void
iso_stream_total(struct iperf_stream *sp, struct iso_fig *out)
{
	struct iso_stream *is = sp->iso;

	pthread_mutex_lock(&sp->w.lock);
	fig_since(sp, is->o_frames, is->o_lost, is->o_sent, is->o_skipped,
	    is->o_lat, is->o_ia, 0, out);
	pthread_mutex_unlock(&sp->w.lock);
}

/* ---- JSON ---------------------------------------------------------------- */

static double
r3(double v)
{
	return floor(v * 1000.0 + 0.5) / 1000.0;
}

static cJSON *
dist_json(const struct iso_dist *d)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL ||
	    cJSON_AddNumberToObject(o, "samples", (double)d->samples) == NULL ||
	    cJSON_AddNumberToObject(o, "min", r3(d->min)) == NULL ||
	    cJSON_AddNumberToObject(o, "mean", r3(d->mean)) == NULL ||
	    cJSON_AddNumberToObject(o, "p50", r3(d->p50)) == NULL ||
	    cJSON_AddNumberToObject(o, "p99", r3(d->p99)) == NULL ||
	    cJSON_AddNumberToObject(o, "max", r3(d->max)) == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *
sizes_json(const struct iso_sizes *s)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL ||
	    cJSON_AddNumberToObject(o, "frames", (double)s->n) == NULL ||
	    cJSON_AddNumberToObject(o, "min", (double)s->min) == NULL ||
	    cJSON_AddNumberToObject(o, "mean", r3(iso_sizes_mean(s))) ==
		NULL ||
	    cJSON_AddNumberToObject(o, "stddev", r3(iso_sizes_stddev(s))) ==
		NULL ||
	    cJSON_AddNumberToObject(o, "max", (double)s->max) == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static int
attach(cJSON *o, const char *key, cJSON *child)
{
	if (child == NULL || !cJSON_AddItemToObject(o, key, child)) {
		cJSON_Delete(child);
		return -1;
	}
	return 0;
}

cJSON *
iso_fig_json(const struct iso_fig *f)
{
	cJSON *o = cJSON_CreateObject();
	int rc = o == NULL ? -1 : 0;

	if (rc == 0 && f->receiver) {
		if (cJSON_AddNumberToObject(o, "frames", (double)f->frames) ==
			NULL ||
		    cJSON_AddNumberToObject(o, "lost", (double)f->lost) == NULL ||
		    cJSON_AddNumberToObject(o, "jitter_us", r3(f->jitter_us)) ==
			NULL)
			rc = -1;
		rc |= attach(o, "latency_us", dist_json(&f->lat));
		rc |= attach(o, "interarrival_us", dist_json(&f->ia));
	} else if (rc == 0) {
		if (cJSON_AddNumberToObject(o, "frames_sent", (double)f->sent) ==
			NULL ||
		    cJSON_AddNumberToObject(o, "frames_skipped",
			(double)f->skipped) == NULL)
			rc = -1;
	}
	if (rc == 0)
		rc |= attach(o, "frame_bytes", sizes_json(&f->sizes));
	if (rc != 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int
iso_results_encode(const struct iperf_test *test, struct iperf_stream *sp,
    cJSON *o)
{
	struct iso_fig f;

	if (sp->iso == NULL || test->opt->role != 's' ||
	    !(test->settings.ext_want & EXT_ISO))
		return 0;
	iso_stream_total(sp, &f);
	return attach(o, "isochronous", iso_fig_json(&f));
}

/* A number >= 0 of o (0 when absent or not one). */
static double
num(const cJSON *o, const char *key)
{
	double v = 0;

	if (json_get_double(o, key, &v) != JSON_OK || !(v >= -1e15) ||
	    !(v <= 1e15))
		return 0;
	return v;
}

static void
dist_read(const cJSON *o, struct iso_dist *d)
{
	d->samples = (uint64_t)(num(o, "samples") > 0 ? num(o, "samples") : 0);
	d->min = num(o, "min");
	d->mean = num(o, "mean");
	d->p50 = num(o, "p50");
	d->p99 = num(o, "p99");
	d->max = num(o, "max");
}

static uint64_t
count(const cJSON *o, const char *key)
{
	double v = num(o, key);

	return v > 0 ? (uint64_t)v : 0;
}

void
iso_results_decode(struct iperf_stream *sp, const cJSON *s)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(s, "isochronous");
	const cJSON *b;
	struct iso_fig *f;
	double m, sd;

	if (sp->iso == NULL || !cJSON_IsObject(o))
		return;
	f = &sp->iso->peer;
	memset(f, 0, sizeof(*f));
	f->receiver = cJSON_GetObjectItemCaseSensitive(o, "frames") != NULL;
	f->frames = count(o, "frames");
	f->lost = count(o, "lost");
	f->jitter_us = num(o, "jitter_us");
	dist_read(cJSON_GetObjectItemCaseSensitive(o, "latency_us"), &f->lat);
	dist_read(cJSON_GetObjectItemCaseSensitive(o, "interarrival_us"),
	    &f->ia);
	f->sent = count(o, "frames_sent");
	f->skipped = count(o, "frames_skipped");
	b = cJSON_GetObjectItemCaseSensitive(o, "frame_bytes");
	f->sizes.n = count(b, "frames");
	f->sizes.min = count(b, "min");
	f->sizes.max = count(b, "max");
	m = num(b, "mean");
	sd = num(b, "stddev");
	/* back to sums that give the same mean and deviation */
	f->sizes.sum = m * (double)f->sizes.n;
	f->sizes.sumsq = sd * sd * (double)(f->sizes.n > 1 ? f->sizes.n - 1 :
	    0) + (double)f->sizes.n * m * m;
	sp->iso->has_peer = 1;
}
