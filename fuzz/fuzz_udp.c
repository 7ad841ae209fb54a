/*
 * fuzz_udp.c - UDP datagram headers, receiver accounting and drop reports.  The input is
 * a sequence of datagrams, each prefixed by one length byte; the first
 * byte chooses 32- or 64-bit counters.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "udp_acct.h"
#include "udp_wire.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct udp_acct a;
	size_t off = 1;
	int c64;
	int64_t now = 0;

	if (size == 0)
		return 0;
	c64 = data[0] & 1;
	udp_acct_init(&a);
	while (off < size) {
		size_t len = data[off++];
		struct udp_header h;
		unsigned char *dg;
		struct udp_fb fb;

		if (len > size - off)
			len = size - off;
		dg = malloc(len > 0 ? len : 1); /* exact size: over-reads show */
		if (dg == NULL)
			abort();
		memcpy(dg, data + off, len);
		off += len;
		now += 997;
		if (udp_header_decode(dg, len, &h, c64) == 0)
			(void)udp_acct_update(&a, h.seq, c64,
			    (int64_t)h.sec * 1000000 + h.usec, now,
			    (len & 1) ? UDP_ACCT_SHARED_ARRIVAL : 0);
		(void)udp_hello_is_reply(dg, len);
		(void)udp_fb_decode(dg, len, &fb);
		free(dg);
	}
	return 0;
}
