/*
 * proto_udp_fb.c - udp_offload's drop reports (udp_wire.h): a receiver
 * whose socket drops tells its sender, and the sender holds its rate
 * (backoff.h) through sp->tx_cap_bps, which its stream's pacer follows.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <pthread.h>
#include <stdint.h>

#include "backoff.h"
#include "iperf.h"
#include "iperf_time.h"
#include "notes.h"
#include "stream.h"
#include "udp_wire.h"
#include "banned.h"

#include "proto_udp_int.h"

/* A drop report reached the sender at now: what the receiver took in
 * since the previous one, in bits/s (0 if unknown), and whether it is a
 * new one. */
static int
fb_take(struct udp_ctx *c, const struct udp_fb *r, uint64_t now,
    double *intake)
{
	uint64_t span = now - c->fb_last_us;

	*intake = 0;
	if (r->drops <= c->fb_rx.drops)
		return 0; /* an old or repeated report */
	if (c->fb_last_us != 0 && r->bytes > c->fb_rx.bytes &&
	    span >= UDP_FB_SPAN_MIN_US && span <= UDP_FB_SPAN_MAX_US)
		*intake = (double)(r->bytes - c->fb_rx.bytes) * 8.0 * 1e6 /
		    (double)span;
	c->fb_rx = *r;
	c->fb_last_us = now;
	return 1;
}

void
udp_fb_sent(struct iperf_stream *sp, struct udp_ctx *c, uint64_t n)
{
	unsigned char buf[UDP_FB_LEN + 1];
	uint64_t now = iperf_time_now_us();
	struct udp_fb r1, *newest = NULL;
	double intake;
	ssize_t got;
	int i, cut = 0;

	backoff_sent(&c->bo, n, now);
	if (++c->fb_sends >= UDP_FB_POLL_SENDS) {
		c->fb_sends = 0;
		/* Only the newest report waiting counts: its bytes against
		 * the one taken at the last look give the intake over about
		 * the time between the looks. */
		for (i = 0; i < UDP_FB_POLL_MAX; i++) {
			got = recv(sp->socket, buf, sizeof(buf), MSG_DONTWAIT);
			if (got <= 0)
				break;
			if (udp_fb_decode(buf, (size_t)got, &r1))
				newest = &r1;
		}
		if (newest != NULL && fb_take(c, newest, now, &intake))
			cut = backoff_dropped(&c->bo, now, intake);
		if (cut && c->bo.cuts == 1)
			note_add(sp->test, NOTE_VERBOSE, "UDP sender: the "
			    "receiver reported drops; this stream holds its "
			    "rate at %.2f Gbit/s and then looks for more",
			    c->bo.cap_bps / 1e9);
	}
	sp->tx_cap_bps = (uint64_t)backoff_cap(&c->bo, now);
}

void
udp_fb_dropped(struct iperf_stream *sp, struct udp_ctx *c, uint32_t drops)
{
	unsigned char buf[UDP_FB_LEN];
	uint64_t now = iperf_time_now_us();
	struct udp_fb r;

	c->fb_drops += drops;
	if (c->fb_last_us != 0 && now < c->fb_last_us + UDP_FB_GAP_US)
		return;
	c->fb_last_us = now;
	r.drops = c->fb_drops;
	pthread_mutex_lock(&sp->w.lock);
	r.bytes = sp->w.live.bytes;
	pthread_mutex_unlock(&sp->w.lock);
	udp_fb_encode(buf, &r);
	(void)send(sp->socket, buf, sizeof(buf), MSG_DONTWAIT | MSG_NOSIGNAL);
}
