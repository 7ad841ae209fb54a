/*
 * proto.h - the transports behind the vtable (proto_ops.h): their
 * registry and the hooks they share.
 */
#ifndef IPERF_PROTO_H
#define IPERF_PROTO_H

#include "proto_ops.h"

extern const struct iperf_proto_ops proto_tcp;
extern const struct iperf_proto_ops proto_udp;
#ifdef HAVE_SCTP
extern const struct iperf_proto_ops proto_sctp;
#endif

/* The registered protocol with this wire id, or NULL. */
const struct iperf_proto_ops *proto_find(int id);

/* Shared by TCP-like transports: apply the negotiated data-socket options
 * (window, MSS, no-delay, TOS, congestion, pacing) to fd. */
int proto_def_sockopts(struct iperf_test *test, int fd, int family);
/* Shared: -w was granted on fd in full, both directions; else -1 with
 * error 141 (IESETBUF2), as 3.21 checks on both ends. */
int proto_def_check_window(struct iperf_test *test, int fd);
/* Server, before CREATE_STREAMS: the options a data socket of this
 * transport will get from the client's parameters (-w, -S) tried on a
 * socket of the family given, so that a refusal reaches the client
 * before any stream is made.  0, or -1 with the error on the test. */
int proto_def_trial(struct iperf_test *test, int family);
struct net_dial_args;
/* Shared by connection-oriented transports: accept one data connection
 * and make it blocking (workers block); its address family in *family.
 * The fd, or -1 with IESTREAMACCEPT. */
int proto_def_accept(struct iperf_test *test, int listen_fd, int *family);
/* Client: dial a data connection as a describes and send the cookie on
 * it.  The fd, or -1 with the test's error set. */
int proto_def_dial(struct iperf_test *test, const struct net_dial_args *a);
/* Close the protocol listener of the test, if any. */
void proto_def_listen_done(struct iperf_test *test);

#endif /* IPERF_PROTO_H */
