/*
 * server_ports.h - the control listeners of a --max-tests dispatcher:
 * the sockets systemd passed (socket activation, LISTEN_FDS), else one
 * per port of -p (a range FIRST-LAST serves each of its ports).  The
 * first is the server object's `listener`; a test remembers the port it
 * was reached on (test->listen_port) for its data listeners.
 */
#ifndef IPERF_SERVER_PORTS_H
#define IPERF_SERVER_PORTS_H

#include <stddef.h>

struct iperf_test;

#define SERVER_PORTS_MAX 128

struct server_ports {
	int n;
	int fd[SERVER_PORTS_MAX];
	int port[SERVER_PORTS_MAX];
	int activated; /* the sockets came from the service manager */
};

/* 1 when this process was given sockets by systemd (LISTEN_PID is
 * ours): the server then serves them, through the dispatcher. */
int server_ports_activated(void);
/* Open (or take) the listeners.  0, or -1 with the error recorded. */
int server_ports_open(struct iperf_test *s, struct server_ports *p);
/* Close every one (the first through server_close_listener). */
void server_ports_close(struct iperf_test *s, struct server_ports *p);
/* "5201", "5201-5210" or "5201, 5301" for the banner. */
void server_ports_describe(const struct server_ports *p, char *buf,
    size_t len);

#endif /* IPERF_SERVER_PORTS_H */
