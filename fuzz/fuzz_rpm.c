/* fuzz_rpm.c - the records of an --rpm load connection (rpm_stream.h) as
 * either end reads them: the input is cut into reads at the sizes its
 * first byte picks, so records split across reads are covered. */
#include "config.h"

#include <stdlib.h>

#include "fuzz.h"
#include "iperf.h"
#include "rpm_stream.h"

static void
on_small(void *arg, int type, const unsigned char *body)
{
	uint32_t id;
	uint64_t t_ns;

	(void)type;
	rpm_ping_read(body, &id, &t_ns);
	*(uint64_t *)arg += id + t_ns;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpm_parser p;
	uint64_t sum = 0;
	size_t off = 1, step;

	if (size < 1)
		return 0;
	step = (size_t)(data[0] % 17) + 1;
	rpm_parser_init(&p);
	while (off < size) {
		size_t n = size - off < step ? size - off : step;

		if (rpm_parse(&p, data + off, n, on_small, &sum) == -1)
			break;
		off += n;
	}
	return 0;
}
