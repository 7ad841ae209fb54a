/* proto_udp.c - UDP transport (stub until implemented). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include "iperf_api.h"
#include "proto.h"
#include "banned.h"

const struct iperf_proto_ops proto_udp = {
	.id = SOCK_DGRAM,
	.name = "UDP",
	.flags = PROTO_F_DATAGRAM,
	.default_blksize = DEFAULT_UDP_BLKSIZE,
};
