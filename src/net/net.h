/*
 * net.h - socket helpers (resolve, dial with a timeout, listen dual-stack,
 * address formatting).  They report failures through errno or a resolver
 * code in *gai_err, never through a test object.
 */
#ifndef IPERF_NET_H
#define IPERF_NET_H

#include <sys/types.h>
#include <sys/socket.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Called on a fresh socket before bind/connect; return 0 or -1. */
typedef int net_setopts_fn(int fd, int family, void *arg);

struct net_dial_args {
	int type;           /* SOCK_STREAM, SOCK_DGRAM */
	int protocol;       /* 0, or IPPROTO_SCTP / IPPROTO_MPTCP */
	int domain;         /* AF_UNSPEC, AF_INET, AF_INET6 */
	const char *local;  /* bind address or NULL */
	int local_port;     /* 0 = ephemeral */
	const char *bind_dev;
	const char *server;
	int port;
	int timeout_ms;     /* <0: no timeout */
	int flowlabel;      /* IPv6 flow label for the connection, 0 = none */
	net_setopts_fn *setopts;
	void *setopts_arg;
	/* Give up (EINTR) once this becomes nonzero; NULL: never. */
	const atomic_int *stop;
};

/* Longest a blocking wait of this module sleeps between two looks at its
 * stop flag. */
#define NET_WAIT_SLICE_MS 100

/* *gai_err values that are not resolver errors: a step other than the
 * connection failed (errno says why). */
#define NET_ERR_FLOWLABEL (-1001)
#define NET_ERR_BINDDEV (-1002)

/* Returns a connected blocking socket, or -1 (errno, or *gai_err != 0:
 * a getaddrinfo() code or one of the NET_ERR_* steps above). */
int net_dial(const struct net_dial_args *a, int *gai_err);

/*
 * Listening socket on port; local NULL with AF_UNSPEC listens dual-stack
 * (IPv6 wildcard accepting IPv4-mapped peers, IPv4 if there is no IPv6).
 * For SOCK_DGRAM the socket is only bound.  setopts (may be NULL) runs
 * before bind.  -1 on failure.
 */
int net_listen(int type, int domain, const char *local, int port,
    const char *bind_dev, net_setopts_fn *setopts, void *arg, int *gai_err);

/* The same with a socket() protocol (IPPROTO_MPTCP), arguments named. */
struct net_listen_args {
	int type;          /* SOCK_STREAM, SOCK_DGRAM */
	int protocol;      /* 0, IPPROTO_MPTCP or IPPROTO_SCTP */
	int domain;
	const char *local;
	int port;
	const char *bind_dev;
	net_setopts_fn *setopts;
	void *setopts_arg;
	int setopts_binds; /* setopts binds the socket itself (SCTP --xbind,
			    * by sctp_bindx): no bind() after it */
};
int net_listen_with(const struct net_listen_args *a, int *gai_err);

/* socket() protocol for a TCP socket: IPPROTO_MPTCP when `mptcp` is set
 * and this build knows it, else 0 (plain TCP). */
int net_tcp_protocol(int mptcp);

int net_set_nonblocking(int fd, int on);
int net_set_nodelay(int fd);
/* TCP_USER_TIMEOUT in ms (0: the system's default).  0 or -1 (errno). */
int net_set_user_timeout(int fd, int ms);

/* TCP keepalive: idle time (s), probe interval (s), probe count; a value
 * <= 0 leaves the system default. */
struct net_keepalive {
	int idle, intvl, cnt;
};
/* Which step failed (errno set), or 0. */
#define NET_KA_ENABLE 1 /* SO_KEEPALIVE */
#define NET_KA_IDLE 2   /* TCP_KEEPIDLE */
#define NET_KA_INTVL 3  /* TCP_KEEPINTVL */
#define NET_KA_CNT 4    /* TCP_KEEPCNT */
/* SO_KEEPALIVE, then each of idle/intvl/cnt that is > 0: 0 or a step. */
int net_set_keepalive(int fd, const struct net_keepalive *ka);
/* The values in effect: 0 or the step that failed. */
int net_get_keepalive(int fd, struct net_keepalive *ka);
/* TCP_MAXSEG of fd, or 0 if unknown. */
int net_get_mss(int fd);
/* The kernel's send and receive buffer sizes of fd (left as they are if
 * they cannot be read). */
void net_get_bufsizes(int fd, int *snd, int *rcv);
/* The next byte waiting on a stream socket, left there (0-255);
 * NET_PEEK_NONE if nothing is waiting, NET_PEEK_END at end of stream or
 * on an error. */
#define NET_PEEK_NONE (-2)
#define NET_PEEK_END (-1)
int net_peek_byte(int fd);
/* Write all of buf to a socket (blocking or not: EAGAIN waits in poll()),
 * within timeout_us in all; 0, or -1 with errno (ETIMEDOUT at the end). */
int net_write_all(int fd, const void *buf, size_t len, uint64_t timeout_us);

#endif /* IPERF_NET_H */
