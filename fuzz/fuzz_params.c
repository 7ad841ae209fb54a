/* fuzz_params.c - the parameter document as a server decodes it. */
#include "config.h"

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "iperf.h"
#include "test_config.h"
#include "params.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iperf_test *t;
	cJSON *doc, *back;

	if (size > 8192) /* the server refuses bigger documents unread */
		return 0;
	doc = cJSON_ParseWithLength((const char *)data, size);
	if (doc == NULL)
		return 0;
	t = iperf_new_test();
	if (t == NULL)
		abort();
	iperf_defaults(t);
	t->cfg->opt.role = 's';
	if (params_decode(t, doc) == 0) {
		back = params_encode(t); /* what was accepted encodes again */
		cJSON_Delete(back);
	}
	cJSON_Delete(doc);
	iperf_free_test(t);
	return 0;
}
