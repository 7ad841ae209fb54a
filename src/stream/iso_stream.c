/* iso_stream.c - the --isochronous records and workers (iso_stream.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bytes.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "iso_stream.h"
#include "proto_ops.h"
#include "stream.h"
#include "stream_io.h"
#include "test.h"
#include "util.h"
#include "banned.h"

#define ISO_RETRY_US 200 /* a send refused for a full queue waits so long */

/* ---- records ---------------------------------------------------------- */

void
iso_rec_header(unsigned char *h, uint32_t len, uint32_t id, uint64_t tick_us)
{
	put_be32(h, ISO_REC_MAGIC);
	put_be32(h + 4, len);
	put_be32(h + 8, id);
	put_be32(h + 12, 0);
	put_be64(h + 16, tick_us);
}

void
iso_rec_parser_init(struct iso_rec_parser *p)
{
	memset(p, 0, sizeof(*p));
}

int
iso_rec_parse(struct iso_rec_parser *p, const unsigned char *buf, size_t n,
    iso_rec_fn *done, void *arg)
{
	while (n > 0) {
		size_t k;

		if (p->left == 0) {
			k = ISO_REC_HDR - p->have;
			if (k > n)
				k = n;
			memcpy(p->hdr + p->have, buf, k);
			p->have += k;
			buf += k;
			n -= k;
			if (p->have < ISO_REC_HDR)
				break;
			p->have = 0;
			p->len = get_be32(p->hdr + 4);
			p->id = get_be32(p->hdr + 8);
			p->tick_us = get_be64(p->hdr + 16);
			if (get_be32(p->hdr) != ISO_REC_MAGIC ||
			    p->len < ISO_REC_HDR || p->len > ISO_FRAME_MAX)
				return -1;
			p->left = p->len - ISO_REC_HDR;
			if (p->left == 0)
				done(arg, p->id, p->tick_us, p->len);
			continue;
		}
		k = n < p->left ? n : (size_t)p->left;
		p->left -= k;
		buf += k;
		n -= k;
		if (p->left == 0)
			done(arg, p->id, p->tick_us, p->len);
	}
	return 0;
}

/* ---- set-up -------------------------------------------------------------- */

int
iso_stream_init(struct iperf_stream *sp)
{
	const struct iperf_settings *s = &sp->test->settings;
	struct iso_stream *is = calloc(1, sizeof(*is));
	uint64_t seed = 0;

	if (is == NULL)
		return iperf_fail(sp->test, IEINITSTREAM, ENOMEM);
	/* TCP: the buffer holds a header and some filler */
	if (!sp->datagram && sp->blksize < 2 * ISO_REC_HDR) {
		free(is);
		return iperf_fail(sp->test, IEINITSTREAM, EINVAL);
	}
	while (seed == 0)
		fill_random(&seed, sizeof(seed));
	iso_gen_init(&is->gen, s->iso_fps, s->iso_mean, s->iso_stddev, seed);
	iso_acc_init(&is->rx);
	iso_rec_parser_init(&is->parser);
	sp->iso = is;
	return 0;
}

void
iso_stream_release(struct iperf_stream *sp)
{
	if (sp->iso == NULL)
		return;
	iso_acc_release(&sp->iso->rx);
	free(sp->iso);
	sp->iso = NULL;
}

int
iso_stream_has_worker(const struct iperf_stream *sp)
{
	return sp->iso != NULL && (sp->sender || !sp->datagram);
}

/* Bytes moved (the worker's counters, under the lock as stream.h says;
 * not stream_count(): stream.c calls this file, not the other way). */
static void
count(struct iperf_stream *sp, uint64_t n, int rx)
{
	pthread_mutex_lock(&sp->w.lock);
	sp->w.live.bytes += n;
	if (sp->datagram)
		sp->w.live.packets++;
	if (rx) {
		sp->w.live.blocks = sp->blksize > 0 ?
		    sp->w.live.bytes / sp->blksize : 0;
		sp->w.live.last_rx_us = iperf_time_now_us();
	} else {
		sp->w.live.blocks++;
	}
	pthread_mutex_unlock(&sp->w.lock);
}

/* ---- sender ---------------------------------------------------------------- */

static int
transient(int err)
{
	return err == EINTR || err == EAGAIN || err == EWOULDBLOCK ||
	    err == ENOBUFS;
}

/* One datagram or TCP write of the frame; bytes sent, or -1 to stop. */
static ssize_t
send_piece(struct iperf_stream *sp, const void *buf, size_t len)
{
	for (;;) {
		ssize_t n;

		if (atomic_load(&sp->w.stop))
			return -1;
		atomic_store(&sp->w.in_send, 1);
		n = sp->datagram ? sp->test->proto->send(sp) :
		    send(sp->socket, buf, len, MSG_NOSIGNAL);
		atomic_store(&sp->w.in_send, 0);
		if (n > 0) {
			count(sp, (uint64_t)n, 0);
			test_count_sent_batch(sp->test, (uint64_t)n, 1, 0);
			return n;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && transient(errno)) {
			/* a full queue (ENOBUFS): a moment, not a spin */
			(void)stream_sleep_until(sp, iperf_time_now_us() +
			    ISO_RETRY_US);
			continue;
		}
		if (!atomic_load(&sp->w.stop))
			stream_worker_fail(sp, IESTREAMWRITE,
			    n < 0 ? errno : EPIPE);
		return -1;
	}
}

/* UDP: the frame's datagrams; its size grows so that the last one holds
 * the headers.  0, or -1 to stop. */
static int
send_udp_frame(struct iperf_stream *sp, uint32_t id, uint64_t tick,
    uint64_t *bytes)
{
	struct iso_dgram *dg = &sp->iso->dg;
	size_t bs = sp->blksize, last;
	uint64_t b = *bytes;

	if (b < ISO_UDP_MIN)
		b = ISO_UDP_MIN;
	last = (size_t)(b % bs);
	if (last != 0 && last < ISO_UDP_MIN)
		b += ISO_UDP_MIN - last;
	*bytes = b;
	dg->frame_id = id;
	dg->frame_bytes = (uint32_t)b;
	dg->tick_us = tick;
	for (dg->frame_off = 0; dg->frame_off < b;) {
		dg->len = b - dg->frame_off < bs ? (size_t)(b - dg->frame_off) :
		    bs;
		if (send_piece(sp, NULL, 0) < 0)
			return -1;
		dg->frame_off += (uint32_t)dg->len;
	}
	return 0;
}

/* TCP: the frame as one record, written from sp->buffer: its first
 * blksize bytes are the header and filler, the frame's later bytes come
 * from the buffer after the header.  0, or -1 to stop. */
static int
send_tcp_frame(struct iperf_stream *sp, uint32_t id, uint64_t tick,
    uint64_t *bytes)
{
	uint64_t b = *bytes < ISO_REC_HDR ? ISO_REC_HDR : *bytes, off = 0;
	unsigned char *buf = (unsigned char *)sp->buffer;

	*bytes = b;
	iso_rec_header(buf, (uint32_t)b, id, tick);
	while (off < b) {
		size_t pos = off < sp->blksize ? (size_t)off : ISO_REC_HDR;
		size_t len = sp->blksize - pos;
		ssize_t n;

		if (len > b - off)
			len = (size_t)(b - off);
		n = send_piece(sp, buf + pos, len);
		if (n < 0)
			return -1;
		off += (uint64_t)n;
	}
	return 0;
}

static void
send_loop(struct iperf_stream *sp)
{
	struct iso_stream *is = sp->iso;
	struct iperf_test *test = sp->test;
	double period = 1e6 / test->settings.iso_fps;
	uint64_t mono0 = iperf_time_now_us(), wall0 = iperf_time_wall_us();
	uint64_t k = 0, now;
	uint32_t id = 0;

	while (!atomic_load(&sp->w.stop)) {
		uint64_t bytes = iso_gen_frame(&is->gen, 1, ISO_FRAME_MAX);
		uint64_t tick = wall0 + (uint64_t)((double)k * period);

		if (test_count_stops_sender(test) &&
		    test_send_limit_reached(test))
			return;
		if (stream_sleep_until(sp,
			mono0 + (uint64_t)((double)k * period)) == -1)
			return;
		id++;
		if ((sp->datagram ? send_udp_frame(sp, id, tick, &bytes) :
			send_tcp_frame(sp, id, tick, &bytes)) == -1)
			return;
		now = iperf_time_now_us();
		pthread_mutex_lock(&sp->w.lock);
		is->sent++;
		iso_sizes_add(&is->sizes, bytes);
		iso_sizes_add(&is->sizes_ival, bytes);
		k = iso_next_tick(k, now - mono0, period, &is->skipped);
		pthread_mutex_unlock(&sp->w.lock);
	}
}

/* ---- TCP receiver -------------------------------------------------------- */

static void
record_done(void *arg, uint32_t id, uint64_t tick_us, uint32_t len)
{
	struct iperf_stream *sp = arg;
	int64_t now = (int64_t)iperf_time_wall_us();

	pthread_mutex_lock(&sp->w.lock);
	iso_acc_record(&sp->iso->rx, id, (int64_t)tick_us, len, now);
	pthread_mutex_unlock(&sp->w.lock);
}

static void
recv_loop(struct iperf_stream *sp)
{
	while (!atomic_load(&sp->w.stop)) {
		ssize_t n = recv(sp->socket, sp->buffer, sp->blksize, 0);

		if (n < 0 && transient(errno))
			continue;
		if (n <= 0) {
			if (n < 0 && !atomic_load(&sp->w.stop))
				stream_worker_fail(sp, IESTREAMREAD, errno);
			return;
		}
		count(sp, (uint64_t)n, 1);
		if (iso_rec_parse(&sp->iso->parser, (unsigned char *)sp->buffer,
			(size_t)n, record_done, sp) == -1) {
			if (!atomic_load(&sp->w.stop))
				stream_worker_fail(sp, IESTREAMREAD, EPROTO);
			return;
		}
	}
}

void
iso_worker(struct iperf_stream *sp)
{
	if (sp->sender)
		send_loop(sp);
	else
		recv_loop(sp);
}
