/* proto_tcp.c - TCP transport (stub until implemented). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include "iperf_api.h"
#include "proto.h"
#include "banned.h"

const struct iperf_proto_ops proto_tcp = {
	.id = SOCK_STREAM,
	.name = "TCP",
	.flags = PROTO_F_RETRANSMITS | PROTO_F_COOKIE | PROTO_F_CONGESTION,
	.default_blksize = DEFAULT_TCP_BLKSIZE,
};
