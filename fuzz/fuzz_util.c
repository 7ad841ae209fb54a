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

unsigned char *
fuzz_next_dgram(const uint8_t *data, size_t size, size_t *off, size_t *len)
{
	unsigned char *dg;
	size_t n;

	if (*off >= size)
		return NULL;
	n = data[(*off)++];
	if (n > size - *off)
		n = size - *off;
	dg = malloc(n > 0 ? n : 1);
	if (dg == NULL)
		abort();
	memcpy(dg, data + *off, n);
	*off += n;
	*len = n;
	return dg;
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
