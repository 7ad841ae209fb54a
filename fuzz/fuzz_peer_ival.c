/* fuzz_peer_ival.c - a peer's interval document (byte 103,
 * peer_intervals) as our client reads it, streams 1, 3, 4, 5. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "iperf.h"
#include "test_config.h"
#include "peer_ival.h"
#include "stream.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iperf_stream streams[4];
	struct iperf_test *t;
	int i;

	t = iperf_new_test();
	if (t == NULL)
		abort();
	iperf_defaults(t);
	t->cfg->opt.role = 'c';
	memset(streams, 0, sizeof(streams));
	for (i = 0; i < 4; i++) {
		streams[i].id = i == 0 ? 1 : i + 2;
		streams[i].test = t;
		streams[i].socket = -1;
		streams[i].next = i < 3 ? &streams[i + 1] : NULL;
	}
	t->run.streams = &streams[0];
	(void)peer_ival_on_doc(t, (const char *)data, size);
	t->run.streams = NULL;
	iperf_free_test(t);
	return 0;
}
