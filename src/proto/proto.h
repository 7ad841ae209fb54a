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

/*
 * Why a socket option could not be set: what the test's error becomes
 * (i_errno code, errno, getaddrinfo error).  The option functions of the
 * transports fill one and return -1; they never write the test's error
 * state, so that a socket-option callback run inside net/ (net_dial,
 * net_listen_with) returns its failure through its own argument, and
 * the transport that called net/ fails the test with it.
 */
struct sockopt_fail {
	int code;
	int sys;
	int gai;
};
/* Record a failure in f; returns -1. */
int sockopt_fail(struct sockopt_fail *f, int code, int sys);
/* Fail the test with what f holds (iperf_fail); returns -1. */
int sockopt_fail_test(struct iperf_test *test, const struct sockopt_fail *f);
/* The argument of a transport's socket-option callback (net/). */
struct sockopt_call {
	struct iperf_test *test;
	struct sockopt_fail fail;
};

/* Shared by TCP-like transports: apply the negotiated data-socket options
 * (window, MSS, no-delay, TOS, congestion, pacing) to fd.  0, or -1
 * with the reason in *f. */
int proto_def_sockopts(struct iperf_test *test, int fd, int family,
    struct sockopt_fail *f);
/* Shared: -w was granted on fd in full, both directions; else -1 with
 * error 141 (IESETBUF2) in *f, as 3.21 checks on both ends. */
int proto_def_check_window(const struct iperf_test *test, int fd,
    struct sockopt_fail *f);
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
 * it; a->setopts_arg, if set, is a struct sockopt_call.  The fd, or -1
 * with the test's error set (a refused option's, if one was). */
int proto_def_dial(struct iperf_test *test, const struct net_dial_args *a);

#ifdef HAVE_MULTICAST
/* --multicast, server (proto_udp_mcast.c): a socket bound to the group
 * and the port, joined (with the source of --ssm-source); -1 with
 * IEMCASTDENIED (not in --multicast-allow), IEMCASTJOIN or IERECVPARAMS
 * on the test. */
int udp_mcast_join(struct iperf_test *test);
#endif

#endif /* IPERF_PROTO_H */
