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
	struct iperf_test *t = fuzz_client_with_streams(streams);

	(void)peer_ival_on_doc(t, (const char *)data, size);
	fuzz_client_done(t);
	return 0;
}
