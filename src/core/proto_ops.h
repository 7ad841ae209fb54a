/*
 * proto_ops.h - the transport vtable (the model's view of a transport:
 * streams, reporters and the session reach it through these hooks and
 * flags).  One const instance per protocol in proto/; the proto_<x>.c
 * file is the only place that knows its socket options.  Capability
 * differences are flags, not protocol-id checks.
 */
#ifndef IPERF_PROTO_OPS_H
#define IPERF_PROTO_OPS_H

#include <sys/types.h>

struct iperf_test;
struct iperf_stream;
struct tcpinfo_snapshot;

#define PROTO_F_RETRANSMITS (1u << 0) /* sender reads retransmits (TCP_INFO) */
#define PROTO_F_DATAGRAM (1u << 1)    /* message oriented (UDP) */
#define PROTO_F_COOKIE (1u << 2)      /* data connections begin with the cookie */
#define PROTO_F_CONGESTION (1u << 3)  /* has a congestion algorithm (TCP) */
#define PROTO_F_ZEROCOPY (1u << 4)    /* -Z: senders may use sendfile() */

#define PROTO_ACCEPT_FATAL (-2)
#define PROTO_CONNECT_CTRL (-2)
#define PROTO_LISTEN_CTRL (-2)

/* What a test's data listener needs of the server's control port
 * (port_needed). */
enum proto_port {
	PROTO_PORT_SHARED = 0, /* nothing: it listens beside it */
	PROTO_PORT_SETUP = 1,  /* the port to itself until every stream is in */
	PROTO_PORT_TEST = 2    /* the port to itself until the test ends */
};

struct iperf_proto_ops {
	int id;           /* wire id: SOCK_STREAM, SOCK_DGRAM, 12 (SCTP) */
	const char *name; /* "TCP", "UDP", "SCTP" */
	unsigned int flags;
	int default_blksize;
	/* socket() type and protocol of its data sockets */
	int sock_type;
	int sock_protocol;
	/* Client: the control connection is up (its MSS known); optional. */
	int (*client_init)(struct iperf_test *test);
	/*
	 * Listeners belong to the server (server/): a transport opens a data
	 * listener when asked and hands it over; it never closes or replaces
	 * the server's.  port_needed (optional: PROTO_PORT_SHARED) says
	 * whether this test's data listener needs the control port to
	 * itself: the server then closes its control listener before
	 * listen() and opens it again after (enum proto_port).
	 */
	int (*port_needed)(const struct iperf_test *test);
	/* Server, before CREATE_STREAMS: a new data listener (the server
	 * owns it from then on, watches it and closes it when every stream
	 * is in), PROTO_LISTEN_CTRL (the streams come to the control
	 * listener), or -1 (error on the test). */
	int (*listen)(struct iperf_test *test);
	/* Server: the data listener listen_fd is readable.  Returns a
	 * stream socket; -1 if this candidate failed (the test goes on: a
	 * stranger, a connection gone before accept); PROTO_ACCEPT_FATAL if
	 * the test fails (this host refused an option of the test's; the
	 * error is on the test).  *ready = 0 if the socket still has to pass
	 * the cookie check (PROTO_F_COOKIE).  *next_listener, listen_fd on
	 * entry: a datagram transport whose listener became the stream sets
	 * the new listener it opened (or -1); the server owns it. */
	int (*accept)(struct iperf_test *test, int listen_fd, int *ready,
	    int *next_listener);
	/* Server: a data connection whose cookie was right (read by the
	 * server, or by the dispatcher of a --max-tests server on the shared
	 * listener): apply the data options.  0, or -1 (error on the test:
	 * the test fails; fd left open).  NULL: accept() applied them, and
	 * the transport has its own listener per test. */
	int (*adopt)(struct iperf_test *test, int fd);
	/* Client: open data connection `index` (0-based creation order),
	 * cookie or hello included; returns the socket, -1 (error on the
	 * test), or PROTO_CONNECT_CTRL: while it waited for the server, the
	 * control connection got the server's last word (an error, its end):
	 * the client stops connecting and reads it. */
	int (*connect)(struct iperf_test *test, int index);
	/* Per-stream set-up after connect/accept (proto_ctx etc.); optional. */
	int (*stream_init)(struct iperf_stream *sp);
	void (*stream_release)(struct iperf_stream *sp);
	/* A sender's connection figures (cwnd, window, RTT, path MTU) where
	 * they do not come from TCP_INFO; 0, or -1 if unavailable.  Optional. */
	int (*sender_info)(struct iperf_stream *sp,
	    struct tcpinfo_snapshot *out);
	/* Worker I/O of one block: bytes moved, 0 at end of stream, -1.
	 * A sender sends what stream_io_data()/stream_io_left() describe (a
	 * datagram transport: whole blocks), or, on a stream_io zerocopy
	 * stream, uses stream_io_sendfile(). */
	ssize_t (*send)(struct iperf_stream *sp);
	ssize_t (*recv)(struct iperf_stream *sp);
	/* End of the omit period (under sp->lock); optional. */
	void (*omit_reset)(struct iperf_stream *sp);
#ifdef HAVE_MULTICAST
	/* A sender's worker is done sending (the test's end, a count
	 * reached): what the transport sends after the data (--multicast:
	 * end markers); optional. */
	void (*send_end)(struct iperf_stream *sp);
#endif
};

#endif /* IPERF_PROTO_OPS_H */
