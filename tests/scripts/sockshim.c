/*
 * sockshim.c - an LD_PRELOAD library for tests/scripts/sockfail.py: the
 * process it is loaded into sees a host with other limits than this
 * machine's, so that a server (ours, 3.21, 3.12) can be refused an
 * option its client was granted, on one machine.  Read from the
 * environment:
 *
 *   SOCKSHIM_BUF_MAX=N     SO_SNDBUF/SO_RCVBUF requests above N are cut
 *                          to N (as net.core.wmem_max/rmem_max = N would)
 *   SOCKSHIM_SNDBUF_MAX=N, SOCKSHIM_RCVBUF_MAX=N   the same, one direction
 *   SOCKSHIM_FAIL=NAME[:ERRNO][,...]   setsockopt() of these options
 *                          fails with ERRNO (default EINVAL); NAME is
 *                          one of the option names in the table below
 *
 * Without these variables every call goes through unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef int setsockopt_fn(int, int, int, const void *, socklen_t);

static const struct {
	const char *name;
	int level, opt;
} options[] = {
	{ "SO_SNDBUF", SOL_SOCKET, SO_SNDBUF },
	{ "SO_RCVBUF", SOL_SOCKET, SO_RCVBUF },
#ifdef SO_BINDTODEVICE
	{ "SO_BINDTODEVICE", SOL_SOCKET, SO_BINDTODEVICE },
#endif
#ifdef SO_MAX_PACING_RATE
	{ "SO_MAX_PACING_RATE", SOL_SOCKET, SO_MAX_PACING_RATE },
#endif
	{ "TCP_MAXSEG", IPPROTO_TCP, TCP_MAXSEG },
#ifdef TCP_CONGESTION
	{ "TCP_CONGESTION", IPPROTO_TCP, TCP_CONGESTION },
#endif
	{ "IP_TOS", IPPROTO_IP, IP_TOS },
	{ "IPV6_TCLASS", IPPROTO_IPV6, IPV6_TCLASS },
};

/* The errno SOCKSHIM_FAIL names for this option, or 0. */
static int
failure(int level, int opt)
{
	const char *list = getenv("SOCKSHIM_FAIL");
	size_t i;

	if (list == NULL)
		return 0;
	for (i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		size_t n = strlen(options[i].name);
		const char *p;

		if (options[i].level != level || options[i].opt != opt)
			continue;
		for (p = strstr(list, options[i].name); p != NULL;
		     p = strstr(p + 1, options[i].name)) {
			if ((p == list || p[-1] == ',') &&
			    (p[n] == '\0' || p[n] == ',' || p[n] == ':'))
				return p[n] == ':' ? atoi(p + n + 1) : EINVAL;
		}
	}
	return 0;
}

/* The cap on this buffer request, or -1. */
static long
buffer_cap(int level, int opt)
{
	const char *v = NULL;

	if (level != SOL_SOCKET || (opt != SO_SNDBUF && opt != SO_RCVBUF))
		return -1;
	v = getenv(opt == SO_SNDBUF ? "SOCKSHIM_SNDBUF_MAX" :
				      "SOCKSHIM_RCVBUF_MAX");
	if (v == NULL)
		v = getenv("SOCKSHIM_BUF_MAX");
	return v != NULL ? atol(v) : -1;
}

int
setsockopt(int fd, int level, int opt, const void *val, socklen_t len)
{
	setsockopt_fn *real = (setsockopt_fn *)dlsym(RTLD_NEXT, "setsockopt");
	int err = failure(level, opt);
	long cap = buffer_cap(level, opt);
	int v;

	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (err != 0) {
		errno = err;
		return -1;
	}
	if (cap >= 0 && len == sizeof(int)) {
		memcpy(&v, val, sizeof(v));
		if (v > cap) {
			v = (int)cap;
			return real(fd, level, opt, &v, len);
		}
	}
	return real(fd, level, opt, val, len);
}
