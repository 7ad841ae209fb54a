/* udp_wire.c - UDP header and hello (see udp_wire.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>

#include "bytes.h"
#include "udp_wire.h"
#include "banned.h"

const unsigned char udp_hello_client[UDP_HELLO_LEN] = { 0x39, 0x38, 0x37,
	0x36 };
const unsigned char udp_hello_reply[UDP_HELLO_LEN] = { 0x36, 0x37, 0x38,
	0x39 };
const unsigned char udp_hello_reply_offload[UDP_HELLO_OFFLOAD_LEN] = {
	0x36, 0x37, 0x38, 0x39, 0x2b, 0x67, 0x73, 0x6f };
/* 987654321 as a little-endian host integer (servers up to 3.11). */
static const unsigned char udp_reply_legacy[UDP_HELLO_LEN] = { 0xb1, 0x68,
	0xde, 0x3a };

static const unsigned char udp_fb_magic[4] = { 0x69, 0x70, 0x66, 0x62 };

void
udp_fb_encode(unsigned char *buf, const struct udp_fb *fb)
{
	memcpy(buf, udp_fb_magic, sizeof(udp_fb_magic));
	put_be32(buf + 4, UDP_FB_KIND_DROPS);
	put_be64(buf + 8, fb->drops);
	put_be64(buf + 16, fb->bytes);
}

int
udp_fb_decode(const unsigned char *buf, size_t len, struct udp_fb *fb)
{
	if (len != UDP_FB_LEN ||
	    memcmp(buf, udp_fb_magic, sizeof(udp_fb_magic)) != 0 ||
	    get_be32(buf + 4) != UDP_FB_KIND_DROPS)
		return 0;
	fb->drops = get_be64(buf + 8);
	fb->bytes = get_be64(buf + 16);
	return 1;
}

static size_t
udp_header_len(int counters64)
{
	return counters64 ? UDP_HDR_LEN_64 : UDP_HDR_LEN_32;
}

int
udp_header_encode(unsigned char *buf, size_t len, const struct udp_header *h,
    int counters64)
{
	if (len < udp_header_len(counters64))
		return -1;
	put_be32(buf, h->sec);
	put_be32(buf + 4, h->usec);
	if (counters64)
		put_be64(buf + 8, h->seq);
	else
		put_be32(buf + 8, (uint32_t)h->seq);
	return 0;
}

int
udp_header_decode(const unsigned char *buf, size_t len, struct udp_header *h,
    int counters64)
{
	if (len < udp_header_len(counters64))
		return -1;
	h->sec = get_be32(buf);
	h->usec = get_be32(buf + 4);
	h->seq = counters64 ? get_be64(buf + 8) : get_be32(buf + 8);
	return 0;
}

int
udp_hello_is_reply(const unsigned char *buf, size_t len)
{
	if (len < UDP_HELLO_LEN)
		return 0;
	return memcmp(buf, udp_hello_reply, UDP_HELLO_LEN) == 0 ||
	    memcmp(buf, udp_reply_legacy, UDP_HELLO_LEN) == 0 ||
	    memcmp(buf, udp_hello_client, UDP_HELLO_LEN) == 0;
}

int
udp_hello_grants_offload(const unsigned char *buf, size_t len)
{
	return len == UDP_HELLO_OFFLOAD_LEN &&
	    memcmp(buf, udp_hello_reply_offload, UDP_HELLO_OFFLOAD_LEN) == 0;
}

int
udp_gso_buffer_size(int len)
{
	if (len <= 0)
		return UDP_GSO_MAX_BYTES;
	return UDP_GSO_MAX_BYTES - UDP_GSO_MAX_BYTES % len;
}

size_t
udp_gso_segments(size_t bf_size, size_t dg_len, size_t max_segs)
{
	size_t n;

	if (dg_len == 0)
		return 1;
	n = bf_size / dg_len;
	if (n > max_segs)
		n = max_segs;
	return n > 0 ? n : 1;
}

int
udp_gso_headers(unsigned char *buf, size_t count, size_t dg_len,
    const struct udp_header *first, int counters64)
{
	struct udp_header h = *first;
	size_t i;

	for (i = 0; i < count; i++) {
		if (udp_header_encode(buf + i * dg_len, dg_len, &h,
			counters64) == -1)
			return -1;
		h.seq++;
	}
	return 0;
}

void
udp_gro_iter_init(struct udp_gro_iter *it, size_t total, size_t seg)
{
	it->total = total;
	it->seg = seg > 0 ? seg : total;
	it->off = 0;
}

int
udp_gro_next(struct udp_gro_iter *it, size_t *off, size_t *len)
{
	size_t left;

	if (it->off >= it->total || it->seg == 0)
		return 0;
	left = it->total - it->off;
	*off = it->off;
	*len = left < it->seg ? left : it->seg;
	it->off += *len;
	return 1;
}

void
udp_rx_meta_parse(struct msghdr *m, struct udp_rx_meta *out)
{
	struct cmsghdr *cm;

	memset(out, 0, sizeof(*out));
	for (cm = CMSG_FIRSTHDR(m); cm != NULL; cm = CMSG_NXTHDR(m, cm)) {
#if defined(HAVE_DECL_UDP_GRO) && HAVE_DECL_UDP_GRO
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int seg;

			memcpy(&seg, CMSG_DATA(cm), sizeof(seg));
			out->gro_seg = seg > 0 ? (size_t)seg : 0;
			continue;
		}
#endif
#ifdef SO_RXQ_OVFL
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SO_RXQ_OVFL &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
			memcpy(&out->drops, CMSG_DATA(cm), sizeof(out->drops));
			out->has_drops = 1;
			continue;
		}
#endif
#ifdef SCM_TIMESTAMPNS
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMPNS &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			out->time_us = (int64_t)ts.tv_sec * 1000000 +
			    (int64_t)(ts.tv_nsec / 1000);
			out->has_time = 1;
		}
#endif
	}
}
