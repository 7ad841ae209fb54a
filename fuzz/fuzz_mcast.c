/* fuzz_mcast.c - datagrams as a --multicast-listen receiver reads them
 * (server/mcast_listen.c): the stock header (32- or 64-bit counters, the
 * first input byte picks), the extension (proto/dgram_ext.h), then the
 * test's accounting (measure/mcast_acct.h), an interval taken every few
 * datagrams and the total at the end.  Each datagram is prefixed by one
 * length byte; it is copied to a buffer of exactly that size, so that
 * over-reads show. */
#include "config.h"

#include <stdlib.h>

#include "dgram_ext.h"
#include "fuzz.h"
#include "mcast_acct.h"
#include "udp_wire.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcast_acct a;
	struct mcast_stats st;
	size_t off = 1, n = 0, len;
	unsigned char *dg;
	int c64, have_end = 0;
	uint64_t sender_pkts = 0;
	int64_t now = 1000000;

	if (size == 0)
		return 0;
	c64 = data[0] & 1;
	mcast_acct_init(&a, c64);
	while ((dg = fuzz_next_dgram(data, size, &off, &len)) != NULL) {
		struct udp_header h;
		struct dgram_ext x;
		int kind = DGX_READ_NONE;

		now += 997;
		if (udp_header_decode(dg, len, &h, c64) == 0)
			kind = dgram_ext_read(dg, len, c64 ? UDP_HDR_LEN_64 :
			    UDP_HDR_LEN_32, DGX_MCAST, &x);
		if (kind == DGX_READ_END) {
			have_end = 1;
			sender_pkts = x.total_pkts;
		} else if (kind == DGX_READ_DATA) {
			mcast_acct_datagram(&a, h.seq, len, (int64_t)x.sent_us,
			    now);
		}
		free(dg);
		if (++n % 7 == 0) {
			mcast_acct_interval(&a, &st);
			(void)mcast_stats_lost_percent(&st);
			(void)mcast_stats_owd_mean_ms(&st);
		}
	}
	mcast_acct_total(&a, have_end, sender_pkts, &st);
	(void)mcast_stats_lost_percent(&st);
	(void)mcast_stats_owd_mean_ms(&st);
	return 0;
}
