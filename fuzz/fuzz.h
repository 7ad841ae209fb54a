/* fuzz.h - shared by the fuzz targets (libFuzzer entry point). */
#ifndef IPERF_FUZZ_H
#define IPERF_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated heap copy of exactly size bytes (+1 for the NUL). */
char *fuzz_strndup(const uint8_t *data, size_t size);

/* The next datagram of a length-prefixed list (one length byte, then at
 * most that many bytes) at data[*off], as a heap copy of exactly its size
 * (so that over-reads show); its length into *len, *off moved past it.
 * NULL at the end. */
unsigned char *fuzz_next_dgram(const uint8_t *data, size_t size, size_t *off,
    size_t *len);

struct iperf_test;
struct iperf_stream;
/* A client test (defaults) whose stream list is streams[0..3], ids 1, 3,
 * 4, 5 (no sockets); drop it with fuzz_client_done(). */
struct iperf_test *fuzz_client_with_streams(struct iperf_stream *streams);
void fuzz_client_done(struct iperf_test *t);

#endif /* IPERF_FUZZ_H */
