/*
 * operator_stub.c - the server without the operator's parts (configure
 * --disable-operator, the small boards' --minimal): no checks at
 * accept() beyond the dispatcher's own, one port (no range, no sockets
 * from systemd), no audit log or metrics (no caps that clamp either:
 * server_caps_stub.c).  Each function keeps the
 * dispatcher's behaviour with none of those options, which this build
 * cannot be given.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "iperf.h"
#include "server.h"
#include "server_admit.h"
#include "server_ports.h"
#include "server_record.h"
#include "test.h"
#include "banned.h"

void
gate_close(struct server_gate *g)
{
	(void)g;
}

int
gate_same_prefix(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b)
{
	(void)a;
	(void)b;
	return 0;
}

void
record_close(struct server_record *r)
{
	(void)r;
}

void
record_refused(struct server_record *r, struct iperf_test *s,
    const struct sockaddr_storage *ss, int port, enum gate_reason why,
    struct iperf_test *t)
{
	(void)r;
	(void)s;
	(void)ss;
	(void)port;
	(void)why;
	(void)t;
}

enum gate_reason
record_refusal_reason(const struct iperf_test *t)
{
	(void)t;
	return GATE_PARAMS;
}

void
record_started(struct server_record *r, struct iperf_test *t)
{
	(void)r;
	(void)t;
}

void
record_ended(struct server_record *r, struct iperf_test *s,
    struct iperf_test *t)
{
	(void)r;
	(void)s;
	(void)t;
}

int
server_ports_activated(void)
{
	return 0;
}

int
server_ports_open(struct iperf_test *s, struct server_ports *p)
{
	p->n = 0;
	p->activated = 0;
	if (server_listen(s) == -1)
		return -1;
	p->fd[0] = s->listener;
	p->port[0] = test_server_port(s);
	p->n = 1;
	return 0;
}

void
server_ports_close(struct iperf_test *s, struct server_ports *p)
{
	server_close_listener(s);
	p->n = 0;
}
