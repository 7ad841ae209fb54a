/* server_ports.c - the dispatcher's control listeners (see the header). */
#include "config.h"

#include <sys/socket.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iperf.h"
#include "iperf_error.h"
#include "listen_fds.h"
#include "server.h"
#include "server_ports.h"
#include "banned.h"

int
server_ports_activated(void)
{
	const char *pid = getenv("LISTEN_PID");

	return pid != NULL && strtol(pid, NULL, 10) == (long)getpid();
}

/* The passed sockets: the listening TCP ones serve; anything else is an
 * error of the unit (a UDP or unbound socket), said at start. */
static int
take_activated(struct iperf_test *s, struct server_ports *p)
{
	int fds[SERVER_PORTS_MAX];
	char err[200], msg[300];
	int n, i, type, family, port, listening;

	n = listen_fds_take(fds, SERVER_PORTS_MAX, err, sizeof(err));
	if (n <= 0) {
		(void)snprintf(msg, sizeof(msg), "socket activation: %s",
		    n == 0 ? "no socket was passed" : err);
		return iperf_fail_arg(s, IESERVEROPT, msg);
	}
	for (i = 0; i < n; i++) {
		if (listen_fd_describe(fds[i], &type, &family, &port,
			&listening) == -1 || type != SOCK_STREAM || !listening) {
			(void)snprintf(msg, sizeof(msg), "socket activation: "
			    "passed socket %d is not a listening TCP socket "
			    "(ListenStream= in the .socket unit)", fds[i]);
			while (i < n)
				close(fds[i++]);
			return iperf_fail_arg(s, IESERVEROPT, msg);
		}
		p->fd[p->n] = fds[i];
		p->port[p->n++] = port;
	}
	p->activated = 1;
	return 0;
}

/* -p's port, or each port of -p FIRST-LAST. */
static int
open_range(struct iperf_test *s, struct server_ports *p)
{
	int first = s->opt->server_port, last = s->opt->server_port_last;
	int port, fd;

	if (last < first)
		last = first;
	/* A listener the caller opened (the API) serves the first port. */
	if (s->listener >= 0) {
		p->fd[p->n] = s->listener;
		p->port[p->n++] = first++;
	}
	for (port = first; port <= last && p->n < SERVER_PORTS_MAX; port++) {
		fd = server_open_listener(s, port);
		if (fd == -1)
			return -1;
		p->fd[p->n] = fd;
		p->port[p->n++] = port;
	}
	return 0;
}

int
server_ports_open(struct iperf_test *s, struct server_ports *p)
{
	int rc;

	p->n = 0;
	p->activated = 0;
	rc = server_ports_activated() ? take_activated(s, p) : open_range(s, p);
	if (rc == -1) {
		server_ports_close(s, p);
		return -1;
	}
	s->listener = p->fd[0];
	s->listen_port = p->port[0];
	return 0;
}

void
server_ports_close(struct iperf_test *s, struct server_ports *p)
{
	int i;

	for (i = 0; i < p->n; i++) {
		if (i == 0 && s->listener == p->fd[0]) {
			server_close_listener(s);
			continue;
		}
		close(p->fd[i]);
	}
	p->n = 0;
}

void
server_ports_describe(const struct server_ports *p, char *buf, size_t len)
{
	size_t used = 0;
	int i, contiguous = p->n > 1;

	buf[0] = '\0';
	for (i = 1; i < p->n; i++)
		if (p->port[i] != p->port[i - 1] + 1)
			contiguous = 0;
	if (contiguous) {
		(void)snprintf(buf, len, "%d-%d", p->port[0], p->port[p->n - 1]);
		return;
	}
	for (i = 0; i < p->n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%d", i > 0 ? ", " : "",
		    p->port[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}
