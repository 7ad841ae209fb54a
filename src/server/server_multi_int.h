/*
 * server_multi_int.h - the parts of a --max-tests dispatcher, shared by
 * its two files: server_dispatch.c (the listeners, connections until
 * their cookie is read, refusals at accept, the loop) and
 * server_multi.c (the tests: their threads, slots and data
 * connections).  Nothing outside server/ includes it.
 */
#ifndef IPERF_SERVER_MULTI_INT_H
#define IPERF_SERVER_MULTI_INT_H

#include <sys/socket.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "iperf.h"
#include "server_admit.h"
#include "server_ports.h"
#include "server_record.h"

/* Connections whose cookie is still coming, and tests still before their
 * parameters: at most this many each (beyond, the answer is "busy"). */
#define MULTI_HELLO_MAX 64
#define MULTI_HANDSHAKE_MIN 8
/* Refused connections kept open until their client has read the answer
 * (or for this long): closing one with its cookie unread would reset it
 * before the client reads "busy". */
#define MULTI_DRAIN_MAX 256
#define MULTI_DRAIN_US 1000000ULL
/* Longest wait for the setup turn of UDP and SCTP tests. */
#define MULTI_TURN_WAIT_US (10 * 1000000ULL)
#define MULTI_INBOX_MAX (2 * IPERF_MAX_STREAMS)
#define MULTI_LOOP_WAIT_US 250000ULL

/* A connection accepted, its cookie not complete yet. */
struct hello {
	int fd;
	struct sockaddr_storage ss;
	unsigned char buf[IPERF_COOKIE_SIZE];
	size_t len;
	int port; /* the port it came to */
	uint64_t start_us;
	struct hello *next;
};

/* A refused connection, its answer written, waiting for the client to
 * close. */
struct drain {
	int fd;
	uint64_t until_us;
	struct drain *next;
};

/* One test: its thread, slot and inbox.  Fields below `lock` are the
 * dispatcher's and the test thread's, under server_multi.lock. */
struct multi_run {
	struct server_multi *m;
	struct iperf_test *test;
	pthread_t thread;
	int fd; /* the control connection, until the thread takes it */
	struct sockaddr_storage peer;
	int port;
	int refusal_recorded; /* the test thread's */
	char cookie[IPERF_COOKIE_SIZE];
	/* under lock */
	int has_slot;
	int has_turn;
	int wants_data;
#ifdef HAVE_RPM
	int wants_probes; /* a running --rpm test: its foreign probes */
#endif
	int threads;
	int finished;
	int inbox[MULTI_INBOX_MAX];
	int inbox_len;
	struct multi_run *next;
};

struct server_multi {
	struct iperf_test *server;
	pthread_mutex_t lock;
	pthread_cond_t turn_cv;
	struct multi_run *runs; /* every test whose thread was started */
	int nruns;
	int active; /* tests holding a slot */
	int turn_busy;
	int threads;
	int next_tag;
	int served; /* tests that got a slot (--one-off) */
	struct hello *hellos;
	int nhellos;
	struct drain *drains;
	int ndrains;
	uint64_t idle_since_us;
	struct server_ports ports;
	struct server_gate gate;
	struct server_record rec;
};

/* server_multi.c: the source's connections not yet admitted and its
 * tests (the runs under m->lock). */
void multi_count_source(struct server_multi *m,
    const struct sockaddr_storage *ss, const struct multi_run *except,
    struct gate_counts *c);

/* server_multi.c: a whole cookie arrived: a data connection of a test
 * setting up its streams, else a new test (h's fd is taken). */
void multi_dispatch_cookie(struct server_multi *m, struct hello *h);
/* Join the tests whose threads have returned, and free them whole. */
void multi_reap(struct server_multi *m);
/* Interrupt every test (a signal to the server). */
void multi_interrupt_all(struct server_multi *m, int sig);

#endif /* IPERF_SERVER_MULTI_INT_H */
