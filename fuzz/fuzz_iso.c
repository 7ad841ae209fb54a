/* fuzz_iso.c - what an --isochronous receiver reads (stream/iso_stream.h):
 * the first input byte picks TCP or UDP and a read size.  TCP: the rest is
 * a byte stream of frame records, cut into reads of that size (records
 * split across reads), parsed by iso_rec_parse, each record counted.  UDP:
 * the rest is datagrams, each prefixed by one length byte, decoded (stock
 * header and extension) and counted as the receiving transport does. */
#include "config.h"

#include <stdlib.h>

#include "dgram_ext.h"
#include "fuzz.h"
#include "iso_acc.h"
#include "iso_stream.h"
#include "udp_wire.h"

struct fz {
	struct iso_acc *acc;
	int64_t now;
};

static void
on_record(void *arg, uint32_t id, uint64_t tick_us, uint32_t len)
{
	struct fz *f = arg;

	f->now += 1013;
	iso_acc_record(f->acc, id, (int64_t)tick_us, len, f->now);
}

static void
udp_case(struct fz *f, const uint8_t *data, size_t size)
{
	size_t off = 0, len;
	unsigned char *dg;
	struct dgram_ext x;

	while ((dg = fuzz_next_dgram(data, size, &off, &len)) != NULL) {
		f->now += 997;
		if (dgram_ext_read(dg, len, UDP_HDR_LEN_32, DGX_ISO, &x) ==
		    DGX_READ_DATA)
			iso_acc_datagram(f->acc, x.frame_id, (int64_t)x.sent_us,
			    x.frame_bytes, len, f->now);
		free(dg);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iso_acc acc;
	struct iso_rec_parser p;
	struct fz f;
	size_t off = 1, step;

	if (size < 1)
		return 0;
	iso_acc_init(&acc);
	f.acc = &acc;
	f.now = 1000000;
	if (data[0] & 0x80) {
		udp_case(&f, data + 1, size - 1);
	} else {
		step = (size_t)(data[0] % 29) + 1;
		iso_rec_parser_init(&p);
		while (off < size) {
			size_t n = size - off < step ? size - off : step;

			if (iso_rec_parse(&p, data + off, n, on_record, &f) == -1)
				break;
			off += n;
		}
	}
	iso_acc_release(&acc);
	return 0;
}
