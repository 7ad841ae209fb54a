/* bytes.c - big-endian integers in byte buffers (bytes.h). */
#include "config.h"

#include "bytes.h"
#include "banned.h"

void
put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

uint32_t
get_be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	    ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

void
put_be64(unsigned char *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

uint64_t
get_be64(const unsigned char *p)
{
	return ((uint64_t)get_be32(p) << 32) | get_be32(p + 4);
}
