/* fuzz.h - shared by the fuzz targets (libFuzzer entry point). */
#ifndef IPERF_FUZZ_H
#define IPERF_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated heap copy of exactly size bytes (+1 for the NUL). */
char *fuzz_strndup(const uint8_t *data, size_t size);

#endif /* IPERF_FUZZ_H */
