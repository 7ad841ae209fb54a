/*
 * server_caps_stub.c - a server without caps that clamp or the byte and
 * stream caps (configure --disable-operator): our client never asks for
 * a clamp in that build (ext.c), and --server-max-bytes cannot be
 * given, so there is nothing to compute or send.
 */
#include "config.h"

#include <stdint.h>

#include "iperf.h"
#include "server_caps.h"
#include "banned.h"

uint64_t
server_caps_byte_bound(const struct iperf_settings *s)
{
	(void)s;
	return UINT64_MAX;
}

int
server_caps_negotiate(struct iperf_test *test)
{
	(void)test;
	return 0;
}

int
server_caps_send(struct iperf_test *test)
{
	(void)test;
	return 0;
}
