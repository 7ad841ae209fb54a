/* fuzz_util.c - helpers shared by the fuzz targets. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "iperf.h"
#include "test_config.h"
#include "stream.h"

char *
fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

struct iperf_test *
fuzz_client_with_streams(struct iperf_stream *streams)
{
	struct iperf_test *t = iperf_new_test();
	int i;

	if (t == NULL)
		abort();
	iperf_defaults(t);
	t->cfg->opt.role = 'c';
	memset(streams, 0, 4 * sizeof(*streams));
	for (i = 0; i < 4; i++) {
		streams[i].id = i == 0 ? 1 : i + 2;
		streams[i].test = t;
		streams[i].socket = -1;
		streams[i].next = i < 3 ? &streams[i + 1] : NULL;
	}
	t->run.streams = &streams[0];
	return t;
}

void
fuzz_client_done(struct iperf_test *t)
{
	t->run.streams = NULL;
	iperf_free_test(t);
}
