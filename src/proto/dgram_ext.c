/* dgram_ext.c - the datagram extension (see dgram_ext.h). */
#include "config.h"

#include <string.h>

#include "bytes.h"
#include "dgram_ext.h"
#include "banned.h"

static const unsigned char dgx_magic[4] = { 'i', '3', 'x', '1' };

static int
has_magic(const unsigned char *buf, size_t len, size_t hdr_len)
{
	return len >= hdr_len && len - hdr_len >= DGX_LEN &&
	    memcmp(buf + hdr_len, dgx_magic, sizeof(dgx_magic)) == 0;
}

int
dgram_ext_encode(unsigned char *buf, size_t len, size_t hdr_len,
    const struct dgram_ext *x)
{
	unsigned char *p = buf + hdr_len;

	if (len < hdr_len || len - hdr_len < DGX_LEN)
		return -1;
	memcpy(p, dgx_magic, sizeof(dgx_magic));
	put_be32(p + 4, x->flags);
	put_be64(p + 8, x->test_id);
	put_be64(p + 16, x->start_us);
	put_be32(p + 24, x->duration_ms);
	put_be32(p + 28, x->frame_id);
	put_be64(p + 32, x->sent_us);
	put_be32(p + 40, x->frame_bytes);
	put_be32(p + 44, x->frame_off);
	put_be64(p + 48, x->total_pkts);
	put_be64(p + 56, x->total_bytes);
	return 0;
}

/* Read it; -1 when the datagram is too short or lacks the magic. */
static int
decode(const unsigned char *buf, size_t len, size_t hdr_len,
    struct dgram_ext *x)
{
	const unsigned char *p = buf + hdr_len;

	if (!has_magic(buf, len, hdr_len))
		return -1;
	x->flags = get_be32(p + 4);
	x->test_id = get_be64(p + 8);
	x->start_us = get_be64(p + 16);
	x->duration_ms = get_be32(p + 24);
	x->frame_id = get_be32(p + 28);
	x->sent_us = get_be64(p + 32);
	x->frame_bytes = get_be32(p + 40);
	x->frame_off = get_be32(p + 44);
	x->total_pkts = get_be64(p + 48);
	x->total_bytes = get_be64(p + 56);
	return 0;
}

uint32_t
dgram_ext_flags(const unsigned char *buf, size_t len, size_t hdr_len)
{
	return has_magic(buf, len, hdr_len) ? get_be32(buf + hdr_len + 4) : 0;
}

int
dgram_ext_read(const unsigned char *buf, size_t len, size_t hdr_len,
    uint32_t want, struct dgram_ext *x)
{
	if (decode(buf, len, hdr_len, x) == -1 ||
	    (x->flags & want) != want)
		return DGX_READ_NONE;
	if (x->flags & DGX_END)
		return DGX_READ_END;
	if ((want & DGX_ISO) && x->frame_id == 0)
		return DGX_READ_NONE;
	return DGX_READ_DATA;
}
