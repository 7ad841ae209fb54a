/* fuzz_results.c - a peer's result document (streams 1, 3, 4, 5). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "iperf.h"
#include "test_config.h"
#include "params.h"
#include "stream.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iperf_stream streams[4];
	struct iperf_test *t;
	cJSON *doc;

	doc = cJSON_ParseWithLength((const char *)data, size);
	if (doc == NULL)
		return 0;
	t = fuzz_client_with_streams(streams);
	t->settings.get_server_output = 1;
	(void)results_decode(t, doc);
	cJSON_Delete(doc);
	fuzz_client_done(t);
	return 0;
}
