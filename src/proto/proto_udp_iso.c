/*
 * proto_udp_iso.c - the UDP transport's part of --isochronous
 * (stream/iso_stream.h): the sender's datagrams of a frame (the stock
 * header, then the datagram extension with DGX_ISO), and the receiver's
 * frame assembly.  Nothing else of the transport changes.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>

#include "dgram_ext.h"
#include "iperf.h"
#include "iperf_time.h"
#include "iso_stream.h"
#include "proto_udp_int.h"
#include "stream.h"
#include "udp_wire.h"
#include "banned.h"

ssize_t
udp_iso_send(struct iperf_stream *sp, struct udp_ctx *c)
{
	const struct iso_dgram *dg = &sp->iso->dg;
	unsigned char *buf = (unsigned char *)sp->buffer;
	size_t hlen = c->counters64 ? UDP_HDR_LEN_64 : UDP_HDR_LEN_32;
	struct udp_header h;
	struct dgram_ext x = { 0 };
	uint64_t now;
	ssize_t n;

#ifdef HAVE_OWD
	now = c->owd ? iperf_time_wall_us() : iperf_time_now_us();
#else
	now = iperf_time_now_us();
#endif
	h.sec = (uint32_t)(now / USEC_PER_SEC);
	h.usec = (uint32_t)(now % USEC_PER_SEC);
	h.seq = c->next_seq;
	x.flags = DGX_ISO;
	x.frame_id = dg->frame_id;
	x.sent_us = dg->tick_us;
	x.frame_bytes = dg->frame_bytes;
	x.frame_off = dg->frame_off;
	/* (nothing to send outside the worker's frames: stream_step) */
	if (dg->len > sp->blksize ||
	    udp_header_encode(buf, dg->len, &h, c->counters64) == -1 ||
	    dgram_ext_encode(buf, dg->len, hlen, &x) == -1) {
		errno = EINVAL;
		return -1;
	}
	n = send(sp->socket, buf, dg->len, 0);
	if (n > 0)
		c->next_seq++;
	return n;
}

void
udp_iso_account(struct iperf_stream *sp, const struct udp_ctx *c,
    const unsigned char *d, size_t len)
{
	size_t hlen = c->counters64 ? UDP_HDR_LEN_64 : UDP_HDR_LEN_32;
	struct dgram_ext x;

	if (dgram_ext_read(d, len, hlen, DGX_ISO, &x) != DGX_READ_DATA)
		return;
	iso_acc_datagram(&sp->iso->rx, x.frame_id, (int64_t)x.sent_us,
	    x.frame_bytes, len, (int64_t)iperf_time_wall_us());
}
