/* rr.c - the --rr data path and its per-interval accounting (rr.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "iperf_error.h"
#include "json.h"
#include "rr.h"
#include "stream.h"
#include "stream_io.h"
#include "tcp_info.h"
#include "banned.h"

static uint64_t
now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- set-up ----------------------------------------------------------------- */

/* The control connection's smoothed RTT (us), 0 if unknown. */
static uint64_t
ctrl_rtt_us(const struct iperf_test *test)
{
	struct tcpinfo_snapshot ti;

	if (test->run.ses.ctrl_sck < 0 || tcp_info_read(test->run.ses.ctrl_sck,
		&ti) == -1)
		return 0;
	return ti.rtt;
}

/* The response payload: the request's, repeated. */
static void
fill_response(struct rr_stream *rr)
{
	size_t off, n;

	for (off = 0; off < rr->resp_len; off += n) {
		n = rr->resp_len - off < rr->req_len ? rr->resp_len - off :
		    rr->req_len;
		memcpy(rr->resp + off, rr->req, n);
	}
}

int
rr_stream_init(struct iperf_stream *sp)
{
	const struct iperf_settings *s = &sp->test->settings;
	struct rr_stream *rr = calloc(1, sizeof(*rr));

	if (rr == NULL)
		return iperf_fail(sp->test, IEINITSTREAM, ENOMEM);
	/* Requests go out of (and come into) the stream's payload buffer
	 * of blksize bytes; responses carry the same payload. */
	rr->req = (unsigned char *)sp->buffer;
	rr->req_len = sp->blksize;
	rr->resp_len = (size_t)s->rr_response;
	rr->resp = malloc(rr->resp_len);
	if (rr->resp == NULL || rr->req == NULL || rr->req_len == 0) {
		free(rr->resp);
		free(rr);
		return iperf_fail(sp->test, IEINITSTREAM, ENOMEM);
	}
	fill_response(rr);
	rr->numbered = sp->datagram && rr_numbered(rr->req_len, rr->resp_len);
	if (sp->datagram && sp->sender)
		rr->timeout_ns = rr_timeout_first_ns(ctrl_rtt_us(sp->test));
	latstat_init(&rr->seen);
	latstat_init(&rr->shared);
	latstat_init(&rr->interval);
	latstat_init(&rr->total);
	latstat_init(&rr->peer_hist);
	sp->rr = rr;
	return 0;
}

void
rr_stream_release(struct iperf_stream *sp)
{
	struct rr_stream *rr = sp->rr;

	if (rr == NULL)
		return;
	latstat_free(&rr->seen);
	latstat_free(&rr->shared);
	latstat_free(&rr->interval);
	latstat_free(&rr->total);
	latstat_free(&rr->peer_hist);
	free(rr->resp);
	free(rr);
	sp->rr = NULL;
}

/* ---- publishing ------------------------------------------------------------ */

static void
publish(struct iperf_stream *sp, struct rr_batch *b, uint64_t now)
{
	struct rr_stream *rr = sp->rr;
	unsigned int i;

	if (b->since_ns == 0)
		return;
	pthread_mutex_lock(&sp->w.lock);
	for (i = 0; i < b->samples; i++)
		(void)latstat_add(&rr->shared, b->rtt[i]);
	sp->w.live.bytes += b->bytes;
	sp->w.live.blocks += b->trans;
	sp->w.live.packets += b->packets;
	sp->w.live.rr_trans += b->trans;
	sp->w.live.rr_lost += b->lost;
	sp->w.live.rr_stale += b->stale;
	sp->w.live.last_rx_us = now / 1000;
	pthread_mutex_unlock(&sp->w.lock);
	memset(b, 0, sizeof(*b));
}

/* Publish when the batch is full or old enough. */
static void
maybe_publish(struct iperf_stream *sp, struct rr_batch *b, uint64_t now)
{
	if (b->since_ns == 0)
		b->since_ns = now;
	if (b->samples >= RR_BATCH || b->trans >= RR_BATCH ||
	    now - b->since_ns >= RR_FLUSH_NS)
		publish(sp, b, now);
}

static void
rr_fail(struct iperf_stream *sp, int code, int err)
{
	if (!atomic_load(&sp->w.stop))
		stream_worker_fail(sp, code, err);
}

/* ---- I/O helpers ------------------------------------------------------------- */

/* A datagram call that may fail now and work next time. */
static int
dgram_transient(int err)
{
	return err == EAGAIN || err == EWOULDBLOCK || err == EINTR ||
	    err == ENOBUFS;
}

/* The whole buffer out: 1, or -1 with errno. */
static int
send_all(int fd, const unsigned char *b, size_t n)
{
	while (n > 0) {
		ssize_t k = send(fd, b, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 1;
}

/* The whole buffer in: 1, 0 at the end of the stream, -1 with errno. */
static int
recv_all(int fd, unsigned char *b, size_t n)
{
	while (n > 0) {
		ssize_t k = recv(fd, b, n, MSG_WAITALL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return (int)k;
		b += k;
		n -= (size_t)k;
	}
	return 1;
}

static void
set_rcvtimeo(int fd, struct rr_stream *rr, uint64_t ns)
{
	struct timeval tv;

	if (ns == rr->rcvtimeo_ns)
		return;
	if (ns < 1000)
		ns = 1000; /* 0 would mean forever */
	tv.tv_sec = (time_t)(ns / 1000000000ULL);
	tv.tv_usec = (suseconds_t)(ns % 1000000000ULL / 1000);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0)
		rr->rcvtimeo_ns = ns;
}

/* ---- client -------------------------------------------------------------------- */

static void
client_answered(struct iperf_stream *sp, struct rr_batch *b, uint64_t rtt)
{
	struct rr_stream *rr = sp->rr;

	b->rtt[b->samples++] = rtt;
	b->trans++;
	b->bytes += rr->req_len + rr->resp_len;
	if (!sp->datagram)
		return;
	b->packets += 2;
	(void)latstat_add(&rr->seen, rtt);
	if (rr_timeout_due(rr->seen.n))
		rr->timeout_ns = rr_timeout_ns(latstat_percentile(&rr->seen,
		    99.0), rr->seen.n);
}

/* TCP: 1 after a transaction, 0 at the end, -1 on an error. */
static int
client_tcp(struct iperf_stream *sp, struct rr_batch *b)
{
	struct rr_stream *rr = sp->rr;
	uint64_t t0, t1;
	int r;

	t0 = now_ns();
	if (send_all(sp->socket, rr->req, rr->req_len) == -1) {
		rr_fail(sp, IESTREAMWRITE, errno);
		return -1;
	}
	r = recv_all(sp->socket, rr->resp, rr->resp_len);
	if (r <= 0) {
		if (r == -1)
			rr_fail(sp, IESTREAMREAD, errno);
		return r;
	}
	t1 = now_ns();
	client_answered(sp, b, t1 - t0);
	maybe_publish(sp, b, t1);
	return 1;
}

/* UDP: wait for the answer to request `id` sent at t0 until the timeout:
 * 1 answered, 2 lost, 0 asked to stop, -1 on an error. */
static int
client_udp_wait(struct iperf_stream *sp, struct rr_batch *b, uint64_t id,
    uint64_t t0)
{
	struct rr_stream *rr = sp->rr;
	uint64_t deadline = t0 + rr->timeout_ns, t1;

	set_rcvtimeo(sp->socket, rr, rr->timeout_ns);
	for (;;) {
		ssize_t n = recv(sp->socket, rr->resp, rr->resp_len, 0);

		if (atomic_load_explicit(&sp->w.stop, memory_order_relaxed))
			return 0;
		t1 = now_ns();
		if (n > 0 && rr_is_answer(rr->numbered, rr->resp, (size_t)n,
			id)) {
			client_answered(sp, b, t1 - t0);
			maybe_publish(sp, b, t1);
			return 1;
		}
		if (n >= 0) { /* another request's answer */
			b->stale++;
			b->bytes += (uint64_t)n;
			b->packets++;
		} else if (!dgram_transient(errno)) {
			rr_fail(sp, IESTREAMREAD, errno);
			return -1;
		}
		if (t1 >= deadline)
			break;
		set_rcvtimeo(sp->socket, rr, deadline - t1);
	}
	b->lost++;
	maybe_publish(sp, b, t1);
	return 2;
}

/* UDP: 1 after a transaction (answered or lost), 0 at the end, -1. */
static int
client_udp(struct iperf_stream *sp, struct rr_batch *b)
{
	struct rr_stream *rr = sp->rr;
	uint64_t id = ++rr->next_id, t0;
	ssize_t n;
	int r;

	if (rr->numbered)
		rr_id_put(rr->req, id);
	t0 = now_ns();
	n = send(sp->socket, rr->req, rr->req_len, 0);
	/* A request the host could not send now (full queue) is lost. */
	if (n < 0 && !dgram_transient(errno)) {
		rr_fail(sp, IESTREAMWRITE, errno);
		return -1;
	}
	r = client_udp_wait(sp, b, id, t0);
	if (r != 2)
		return r;
	if (n > 0) { /* lost: the request went out all the same */
		b->bytes += (uint64_t)n;
		b->packets++;
	}
	return 1;
}

/* ---- server ---------------------------------------------------------------------- */

/* A UDP request: 1 (its size in *got), 0 at the end, -1 on an error, 2
 * when the receive timeout passed (the caller looks at stop). */
static int
serve_recv_dgram(struct iperf_stream *sp, size_t *got)
{
	struct rr_stream *rr = sp->rr;
	ssize_t n = recv(sp->socket, rr->req, rr->req_len, 0);

	if (n < 0)
		return dgram_transient(errno) ? 2 : -1;
	if (n == 0 && atomic_load(&sp->w.stop))
		return 0; /* shut down */
	*got = (size_t)n;
	if (rr->numbered && *got >= RR_ID_LEN)
		memcpy(rr->resp, rr->req, RR_ID_LEN);
	return 1;
}

/* The response: 1, or -1 with errno (a datagram the host could not
 * send now is lost, as on the way). */
static int
serve_send(struct iperf_stream *sp)
{
	struct rr_stream *rr = sp->rr;

	if (!sp->datagram)
		return send_all(sp->socket, rr->resp, rr->resp_len);
	if (send(sp->socket, rr->resp, rr->resp_len, 0) < 0 &&
	    !dgram_transient(errno))
		return -1;
	return 1;
}

/* One answer: 1, 0 at the end, -1 on an error, 2 nothing yet. */
static int
serve_one(struct iperf_stream *sp, struct rr_batch *b)
{
	struct rr_stream *rr = sp->rr;
	size_t got = rr->req_len;
	int r = sp->datagram ? serve_recv_dgram(sp, &got) :
	    recv_all(sp->socket, rr->req, rr->req_len);

	if (r != 1) {
		if (r == -1)
			rr_fail(sp, IESTREAMREAD, errno);
		return r;
	}
	if (serve_send(sp) == -1) {
		rr_fail(sp, IESTREAMWRITE, errno);
		return -1;
	}
	b->trans++;
	b->bytes += got + rr->resp_len;
	if (sp->datagram)
		b->packets += 2;
	maybe_publish(sp, b, now_ns());
	return 1;
}

/* ---- worker ---------------------------------------------------------------------- */

static int
one(struct iperf_stream *sp, struct rr_batch *b)
{
	if (!sp->sender)
		return serve_one(sp, b);
	return sp->datagram ? client_udp(sp, b) : client_tcp(sp, b);
}

void
rr_worker(struct iperf_stream *sp)
{
	struct rr_batch *b = &sp->rr->batch;

	memset(b, 0, sizeof(*b));
	while (!atomic_load_explicit(&sp->w.stop, memory_order_relaxed) &&
	    one(sp, b) > 0)
		;
	publish(sp, b, now_ns());
}

ssize_t
rr_step(struct iperf_stream *sp)
{
	struct rr_batch *b = &sp->rr->batch;
	uint64_t moved;
	int r;

	memset(b, 0, sizeof(*b));
	r = one(sp, b);
	moved = b->bytes;
	publish(sp, b, now_ns());
	if (r == 2) /* a UDP server's receive timeout, as a plain receive */
		return iperf_fail(sp->test, IESTREAMREAD, EAGAIN);
	if (r == -1)
		return iperf_fail(sp->test, sp->sender ? IESTREAMWRITE :
		    IESTREAMREAD, errno);
	return r == 0 ? 0 : (ssize_t)moved;
}

/* ---- loop thread ------------------------------------------------------------------ */

void
rr_take(struct iperf_stream *sp, struct stream_live *out)
{
	struct rr_stream *rr = sp->rr;
	struct latstat t;

	latstat_reset(&rr->interval);
	pthread_mutex_lock(&sp->w.lock);
	*out = sp->w.live;
	t = rr->shared;
	rr->shared = rr->interval;
	rr->interval = t;
	pthread_mutex_unlock(&sp->w.lock);
}

void
rr_interval_done(struct iperf_stream *sp, int omitted)
{
	if (!omitted)
		(void)latstat_merge(&sp->rr->total, &sp->rr->interval);
}

void
rr_omit_reset_locked(struct iperf_stream *sp)
{
	latstat_reset(&sp->rr->shared);
	latstat_reset(&sp->rr->total);
}

/* ---- the results document ---------------------------------------------------- */


int
rr_hist_add(cJSON *rr_obj, const struct latstat *h)
{
	cJSON *o = cJSON_CreateObject(), *b = cJSON_CreateArray();
	unsigned int i;
	int bad = o == NULL || b == NULL || !cJSON_AddItemToObject(o, "b", b);

	if (bad)
		cJSON_Delete(b);
	for (i = 0; !bad && h->counts != NULL && i < LATSTAT_BUCKETS; i++)
		if (h->counts[i] != 0)
			bad = !cJSON_AddItemToArray(b, cJSON_CreateNumber(i)) ||
			    !cJSON_AddItemToArray(b,
				cJSON_CreateNumber(h->counts[i]));
	if (bad || cJSON_AddNumberToObject(o, "n", (double)h->n) == NULL ||
	    cJSON_AddNumberToObject(o, "sum", (double)h->sum) == NULL ||
	    cJSON_AddNumberToObject(o, "min", (double)h->min) == NULL ||
	    cJSON_AddNumberToObject(o, "max", (double)h->max) == NULL ||
	    !cJSON_AddItemToObject(rr_obj, "hist", o)) {
		cJSON_Delete(o);
		return -1;
	}
	return 0;
}

/* The buckets of a "hist" object into h (allocated); 0, or -1 when they
 * are malformed or do not add up to n. */
static int
hist_buckets(const cJSON *b, struct latstat *h, uint64_t n)
{
	const cJSON *k, *c;
	uint64_t seen = 0;

	if (!cJSON_IsArray(b) || (h->counts == NULL && latstat_add(h, 0) ==
	    -1))
		return -1;
	latstat_reset(h);
	for (k = b->child; k != NULL; k = c->next) {
		c = k->next;
		if (c == NULL || !cJSON_IsNumber(k) || !cJSON_IsNumber(c) ||
		    !(k->valuedouble >= 0) || k->valuedouble >= LATSTAT_BUCKETS ||
		    !(c->valuedouble >= 1) || c->valuedouble > UINT32_MAX)
			return -1;
		h->counts[(unsigned int)k->valuedouble] +=
		    (uint32_t)c->valuedouble;
		seen += (uint64_t)c->valuedouble;
	}
	return seen == n ? 0 : -1;
}

void
rr_hist_read(const cJSON *rr_obj, struct latstat *h)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(rr_obj, "hist");
	int64_t n = 0, sum = 0, min = 0, max = 0;

	latstat_reset(h);
	if (!cJSON_IsObject(o) ||
	    json_get_i64(o, "n", 1, INT64_MAX, &n) != JSON_OK ||
	    json_get_i64(o, "sum", 0, INT64_MAX, &sum) != JSON_OK ||
	    json_get_i64(o, "min", 0, INT64_MAX, &min) != JSON_OK ||
	    json_get_i64(o, "max", min, INT64_MAX, &max) != JSON_OK ||
	    hist_buckets(cJSON_GetObjectItemCaseSensitive(o, "b"), h,
		(uint64_t)n) == -1) {
		latstat_reset(h);
		return;
	}
	h->n = (uint64_t)n;
	h->sum = (uint64_t)sum;
	h->min = (uint64_t)min;
	h->max = (uint64_t)max;
}

int
rr_results_encode(struct iperf_test *test, struct iperf_stream *sp,
    cJSON *stream_obj)
{
	struct latsum lat;

	/* the requester (the end whose stream sends) knows the round trips */
	if (sp->rr == NULL || !sp->sender)
		return 0;
	latstat_summary(&sp->rr->total, &lat);
	if (rr_results_add(stream_obj, sp->final.rr_trans -
	    sp->base_omit.rr_trans, sp->final.rr_lost - sp->base_omit.rr_lost,
	    &lat) == -1)
		return -1;
	if (test->settings.bidirectional)
		return rr_hist_add(cJSON_GetObjectItemCaseSensitive(stream_obj,
		    "rr"), &sp->rr->total);
	return 0;
}

void
rr_results_decode(struct iperf_stream *sp, const cJSON *stream_obj)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(stream_obj, "rr");

	if (sp->rr == NULL || sp->sender)
		return;
	rr_results_read(o, &sp->rr->peer);
	rr_hist_read(o, &sp->rr->peer_hist);
}

int
rr_results_encode_test(struct iperf_test *test, cJSON *doc)
{
	struct latstat all;
	struct latsum lat;
	uint64_t trans, lost;

	if (!test->settings.rr || !rr_test_requests(test))
		return 0;
	latstat_init(&all);
	(void)rr_test_totals(test, &all, &trans, &lost);
	latstat_summary(&all, &lat);
	latstat_free(&all);
	return rr_results_add(doc, trans, lost, &lat);
}

void
rr_results_decode_test(struct iperf_test *test, const cJSON *doc)
{
	if (test->settings.rr)
		rr_results_read(cJSON_GetObjectItemCaseSensitive(doc, "rr"),
		    &test->run.rr_peer);
}

int
rr_test_requests(const struct iperf_test *test)
{
	const struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next)
		if (sp->rr != NULL && sp->sender)
			return 1;
	return 0;
}
