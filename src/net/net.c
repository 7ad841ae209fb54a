/* net.c - socket helpers (see net.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "flowlabel.h"
#include "iperf_time.h"
#include "net.h"
#include "util.h"
#include "banned.h"

static int
resolve(const char *host, int port, int domain, int type, int passive,
    struct addrinfo **res, int *gai_err)
{
	struct addrinfo hints;
	char portstr[16];
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = domain;
	hints.ai_socktype = type;
	if (passive)
		hints.ai_flags = AI_PASSIVE;
	(void)snprintf(portstr, sizeof(portstr), "%d", port);
	rc = getaddrinfo(host, portstr, &hints, res);
	if (rc != 0) {
		if (gai_err != NULL)
			*gai_err = rc;
		return -1;
	}
	return 0;
}

static int
bind_device(int fd, const char *dev)
{
#ifdef SO_BINDTODEVICE
	if (dev == NULL || *dev == '\0')
		return 0;
	return setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev,
	    (socklen_t)strlen(dev) + 1);
#else
	if (dev == NULL || *dev == '\0')
		return 0;
	errno = ENOPROTOOPT;
	return -1;
#endif
}

static int
bind_local(int fd, const struct net_dial_args *a, int family, int *gai_err)
{
	struct addrinfo *lres = NULL;
	int rc, one = 1;

	if (a->local == NULL && a->local_port == 0)
		return 0;
	if (resolve(a->local, a->local_port, family, a->type, 1, &lres,
		gai_err) == -1)
		return -1;
	if (a->local_port != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	rc = bind(fd, lres->ai_addr, lres->ai_addrlen);
	freeaddrinfo(lres);
	return rc;
}

/* Poll a connecting fd until it is writable, the deadline (0: none)
 * passes (0, ETIMEDOUT) or *stop is set (-1, EINTR).  1 when writable. */
static int
connect_wait(int fd, uint64_t deadline, const atomic_int *stop)
{
	struct pollfd pfd;
	int rc;

	pfd.fd = fd;
	pfd.events = POLLOUT;
	for (;;) {
		int slice = NET_WAIT_SLICE_MS;
		uint64_t now = iperf_time_now_us();

		if (stop != NULL && *stop) {
			errno = EINTR;
			return -1;
		}
		if (deadline != 0 && now >= deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (deadline != 0 && (deadline - now) / 1000 < (uint64_t)slice)
			slice = (int)((deadline - now) / 1000) + 1;
		rc = poll(&pfd, 1, slice);
		if (rc > 0)
			return 1;
		if (rc == -1 && errno != EINTR)
			return -1;
	}
}

/* A connect() in progress: wait for it and read its outcome; 0 once
 * connected, else -1 with errno. */
static int
connect_outcome(int fd, const struct sockaddr *sa, socklen_t len,
    uint64_t deadline, const atomic_int *stop, int tcp)
{
	int err = 0;
	socklen_t elen = sizeof(err);

	if (connect_wait(fd, deadline, stop) == -1)
		return -1;
	/*
	 * TCP: a second connect() reports the outcome through errno
	 * (0 or EISCONN once connected, the pending error otherwise),
	 * which every layer translates, qemu-user included (it passes
	 * SO_ERROR's value through untranslated, so a MIPS binary
	 * would read x86 errno numbers).  Other protocols (SCTP would
	 * start a new association) read SO_ERROR.
	 */
	if (tcp) {
		if (connect(fd, sa, len) == 0 || errno == EISCONN)
			return 0;
		if (errno != EALREADY && errno != EINPROGRESS)
			return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == -1)
		return -1;
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * connect() within ms milliseconds (ms < 0: as long as the kernel tries),
 * given up at once when *stop becomes nonzero (a signal or another
 * thread interrupting the test): errno EINTR then.  The wait is a poll()
 * in slices, so neither a signal nor a flag set without one is missed.
 */
static int
connect_timeout(int fd, const struct sockaddr *sa, socklen_t len, int ms,
    const atomic_int *stop, int tcp)
{
	uint64_t deadline = ms < 0 ? 0 : iperf_time_now_us() +
	    (uint64_t)ms * 1000;
	int rc;

	if (net_set_nonblocking(fd, 1) == -1)
		return -1;
	rc = connect(fd, sa, len);
	if (rc == -1 && errno != EINPROGRESS && errno != EINTR)
		return -1;
	if (rc == -1 && connect_outcome(fd, sa, len, deadline, stop, tcp) == -1)
		return -1;
	return net_set_nonblocking(fd, 0);
}

static int
dial_one(const struct net_dial_args *a, const struct addrinfo *ai,
    int *gai_err)
{
	int fd = socket(ai->ai_family, ai->ai_socktype, a->protocol);
	struct sockaddr_storage dst;
	int saved;

	if (fd == -1)
		return -1;
	if (bind_device(fd, a->bind_dev) == -1) {
		*gai_err = NET_ERR_BINDDEV;
		goto out_close_fd;
	}
	if (a->setopts != NULL &&
	    a->setopts(fd, ai->ai_family, a->setopts_arg) == -1)
		goto out_close_fd;
	if (bind_local(fd, a, ai->ai_family, gai_err) == -1)
		goto out_close_fd;
	memcpy(&dst, ai->ai_addr, ai->ai_addrlen);
	if (a->flowlabel > 0 && ai->ai_family == AF_INET6 &&
	    flowlabel_apply(fd, (struct sockaddr *)&dst, a->flowlabel) == -1) {
		*gai_err = NET_ERR_FLOWLABEL;
		goto out_close_fd;
	}
	if (connect_timeout(fd, (struct sockaddr *)&dst, ai->ai_addrlen,
		a->timeout_ms, a->stop, ai->ai_socktype == SOCK_STREAM &&
		(a->protocol == 0 || a->protocol == IPPROTO_TCP)) == -1)
		goto out_close_fd;
	return fd;
out_close_fd:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int
net_dial(const struct net_dial_args *a, int *gai_err)
{
	struct addrinfo *res = NULL, *ai;
	int fd = -1, saved = 0;

	*gai_err = 0;
	if (resolve(a->server, a->port, a->domain, a->type, 0, &res,
		gai_err) == -1)
		return -1;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = dial_one(a, ai, gai_err);
		if (fd >= 0 || *gai_err != 0)
			break;
		saved = errno;
	}
	freeaddrinfo(res);
	if (fd < 0)
		errno = saved != 0 ? saved : errno;
	return fd;
}

struct listen_args {
	int type;
	int protocol;
	const char *bind_dev;
	int v6only;
	net_setopts_fn *setopts;
	void *arg;
	int setopts_binds;
};

static int
listen_on(const struct addrinfo *ai, const struct listen_args *la)
{
	int fd = socket(ai->ai_family, ai->ai_socktype, la->protocol);
	int one = 1, saved;

	if (fd == -1)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1)
		goto out_close_fd;
	if (ai->ai_family == AF_INET6 && la->v6only >= 0 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &la->v6only,
		sizeof(la->v6only)) == -1)
		goto out_close_fd;
	if (bind_device(fd, la->bind_dev) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -2;
	}
	if (la->setopts != NULL && la->setopts(fd, ai->ai_family, la->arg) == -1)
		goto out_close_fd;
	if (!la->setopts_binds && bind(fd, ai->ai_addr, ai->ai_addrlen) == -1)
		goto out_close_fd;
	if (la->type == SOCK_STREAM && listen(fd, SOMAXCONN) == -1)
		goto out_close_fd;
	/* A listener only ever accepts after select() said so, but the peer
	 * may be gone by then: accept() must not block the loop. */
	if (la->type == SOCK_STREAM && net_set_nonblocking(fd, 1) == -1)
		goto out_close_fd;
	return fd;
out_close_fd:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int
net_listen_with(const struct net_listen_args *a, int *gai_err)
{
	struct addrinfo *res = NULL, *ai;
	int fd = -1, saved = 0;
	int fam = a->domain;
	int unspec = a->local == NULL && a->domain == AF_UNSPEC;
	struct listen_args la = { a->type, a->protocol, a->bind_dev, -1,
		a->setopts, a->setopts_arg, a->setopts_binds };

	*gai_err = 0;
	/* Dual-stack by default: prefer the IPv6 wildcard. */
	if (unspec)
		fam = AF_INET6;
	if (resolve(a->local, a->port, fam, a->type, 1, &res, gai_err) == -1) {
		if (!unspec)
			return -1;
		*gai_err = 0;
		fam = AF_INET;
		if (resolve(NULL, a->port, fam, a->type, 1, &res, gai_err) == -1)
			return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		la.v6only = a->domain == AF_INET6 ? 1 :
						    (a->domain == AF_UNSPEC ? 0 : -1);
		fd = listen_on(ai, &la);
		if (fd == -2) {
			saved = errno;
			*gai_err = NET_ERR_BINDDEV;
			fd = -1;
			break;
		}
		if (fd >= 0)
			break;
		saved = errno;
	}
	freeaddrinfo(res);
	if (fd < 0 && unspec && saved == EAFNOSUPPORT) {
		struct net_listen_args v4 = *a;

		v4.domain = AF_INET;
		return net_listen_with(&v4, gai_err);
	}
	if (fd < 0)
		errno = saved;
	return fd;
}

int
net_listen(int type, int domain, const char *local, int port,
    const char *bind_dev, net_setopts_fn *setopts, void *arg, int *gai_err)
{
	struct net_listen_args a = { type, 0, domain, local, port, bind_dev,
		setopts, arg, 0 };

	return net_listen_with(&a, gai_err);
}

int
net_tcp_protocol(int mptcp)
{
#if defined(HAVE_DECL_IPPROTO_MPTCP) && HAVE_DECL_IPPROTO_MPTCP
	return mptcp ? IPPROTO_MPTCP : 0;
#else
	(void)mptcp;
	return 0;
#endif
}

int
net_set_nonblocking(int fd, int on)
{
	int flags = fcntl(fd, F_GETFL, 0);

	if (flags == -1)
		return -1;
	flags = on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
	return fcntl(fd, F_SETFL, flags);
}

int
net_set_nodelay(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int
net_set_user_timeout(int fd, int ms)
{
#if HAVE_DECL_TCP_USER_TIMEOUT
	unsigned int v = ms > 0 ? (unsigned int)ms : 0;

	return setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &v, sizeof(v));
#else
	(void)fd;
	(void)ms;
	errno = ENOPROTOOPT;
	return -1;
#endif
}

#if HAVE_DECL_TCP_KEEPIDLE
static int
set_int(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v));
}
#endif

int
net_set_keepalive(int fd, const struct net_keepalive *ka)
{
	int one = 1;

	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) == -1)
		return NET_KA_ENABLE;
#if HAVE_DECL_TCP_KEEPIDLE
	if (ka->idle > 0 && set_int(fd, IPPROTO_TCP, TCP_KEEPIDLE, ka->idle) == -1)
		return NET_KA_IDLE;
	if (ka->intvl > 0 &&
	    set_int(fd, IPPROTO_TCP, TCP_KEEPINTVL, ka->intvl) == -1)
		return NET_KA_INTVL;
	if (ka->cnt > 0 && set_int(fd, IPPROTO_TCP, TCP_KEEPCNT, ka->cnt) == -1)
		return NET_KA_CNT;
#else
	if (ka->idle > 0 || ka->intvl > 0 || ka->cnt > 0) {
		errno = ENOPROTOOPT;
		return NET_KA_IDLE;
	}
#endif
	return 0;
}

int
net_get_keepalive(int fd, struct net_keepalive *ka)
{
#if HAVE_DECL_TCP_KEEPIDLE
	socklen_t len = sizeof(ka->idle);

	if (getsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &ka->idle, &len) == -1)
		return NET_KA_IDLE;
	len = sizeof(ka->intvl);
	if (getsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &ka->intvl, &len) == -1)
		return NET_KA_INTVL;
	len = sizeof(ka->cnt);
	if (getsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &ka->cnt, &len) == -1)
		return NET_KA_CNT;
	return 0;
#else
	(void)fd;
	(void)ka;
	errno = ENOPROTOOPT;
	return NET_KA_IDLE;
#endif
}

int
net_get_mss(int fd)
{
	int mss = 0;
	socklen_t len = sizeof(mss);

	if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) == -1)
		return 0;
	return mss;
}

void
net_get_bufsizes(int fd, int *snd, int *rcv)
{
	int v = 0;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &len) == 0)
		*snd = v;
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len) == 0)
		*rcv = v;
}

int
net_peek_byte(int fd)
{
	unsigned char b;
	ssize_t n;

	do {
		n = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	} while (n == -1 && errno == EINTR);
	if (n == 1)
		return b;
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return NET_PEEK_NONE;
	return NET_PEEK_END;
}

int
net_write_all(int fd, const void *buf, size_t len, uint64_t timeout_us)
{
	const unsigned char *p = buf;
	uint64_t deadline = iperf_time_now_us() + timeout_us;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			uint64_t now = iperf_time_now_us();
			if (now >= deadline) {
				errno = ETIMEDOUT;
				return -1;
			}
			(void)poll(&pfd, 1, (int)((deadline - now) / 1000 + 1));
			continue;
		}
		return -1;
	}
	return 0;
}
