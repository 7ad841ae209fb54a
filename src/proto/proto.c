/* proto.c - the protocol registry: the transports this build has. */
#include "config.h"

#include <stddef.h>

#include "iperf.h"
#include "proto.h"
#include "banned.h"

/* Membership is decided at compile time. */
static const struct iperf_proto_ops *const protocols[] = {
	&proto_tcp,
	&proto_udp,
#ifdef HAVE_SCTP
	&proto_sctp,
#endif
	NULL,
};

const struct iperf_proto_ops *
proto_find(int id)
{
	size_t i;

	for (i = 0; protocols[i] != NULL; i++) {
		if (protocols[i]->id == id)
			return protocols[i];
	}
	return NULL;
}
