/* proto_sctp.c - SCTP transport (stub until implemented). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include "iperf_api.h"
#include "proto.h"
#include "banned.h"

const struct iperf_proto_ops proto_sctp = {
	.id = 12,
	.name = "SCTP",
	.flags = PROTO_F_COOKIE,
	.default_blksize = DEFAULT_SCTP_BLKSIZE,
};
