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
	int i;

	doc = cJSON_ParseWithLength((const char *)data, size);
	if (doc == NULL)
		return 0;
	t = iperf_new_test();
	if (t == NULL)
		abort();
	iperf_defaults(t);
	t->cfg->opt.role = 'c';
	t->settings.get_server_output = 1;
	memset(streams, 0, sizeof(streams));
	for (i = 0; i < 4; i++) {
		streams[i].id = i == 0 ? 1 : i + 2;
		streams[i].test = t;
		streams[i].socket = -1;
		streams[i].next = i < 3 ? &streams[i + 1] : NULL;
	}
	t->run.streams = &streams[0];
	(void)results_decode(t, doc);
	t->run.streams = NULL;
	cJSON_Delete(doc);
	iperf_free_test(t);
	return 0;
}
