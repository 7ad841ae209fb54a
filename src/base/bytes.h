/*
 * bytes.h - big-endian integers in byte buffers, for the wire formats
 * (control channel, UDP datagram header, --rr message numbers), without
 * casting char pointers to wider types.
 */
#ifndef IPERF_BYTES_H
#define IPERF_BYTES_H

#include <stdint.h>

void put_be32(unsigned char *p, uint32_t v);
uint32_t get_be32(const unsigned char *p);
void put_be64(unsigned char *p, uint64_t v);
uint64_t get_be64(const unsigned char *p);

#endif /* IPERF_BYTES_H */
