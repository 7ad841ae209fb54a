/* listen_fds.c - systemd socket activation, the environment protocol:
 * LISTEN_PID names the process the sockets are for, LISTEN_FDS how many
 * there are, from fd 3 on (LISTEN_FDNAMES, their names, is not used). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "listen_fds.h"
#include "banned.h"

/* A decimal number of digits only (no sign, no blanks), at most `limit`:
 * 0 with it in *out, -1 otherwise. */
static int
parse_decimal(const char *s, unsigned long limit, unsigned long *out)
{
	unsigned long v = 0;
	unsigned d;

	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		d = (unsigned)(*s - '0');
		if (v > (limit - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static void
unset_vars(void)
{
	(void)unsetenv("LISTEN_PID");
	(void)unsetenv("LISTEN_FDS");
	(void)unsetenv("LISTEN_FDNAMES");
}

/* -1 with a message unless every fd from 3 on of the n is an open
 * socket. */
static int
check_fds(int n, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	for (fd = LISTEN_FDS_START; fd < LISTEN_FDS_START + n; fd++) {
		if (fcntl(fd, F_GETFD) < 0) {
			snprintf(err, errlen, "socket activation: fd %d (of LISTEN_FDS=%d) is not open",
			    fd, n);
			return -1;
		}
		if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "socket activation: fd %d (of LISTEN_FDS=%d) is not a socket",
			    fd, n);
			return -1;
		}
	}
	return 0;
}

/* The count of LISTEN_FDS (LISTEN_PID being ours), or -1 with a message. */
static int
count_fds(int max, char *err, size_t errlen)
{
	const char *s = getenv("LISTEN_FDS");
	unsigned long n;

	if (s == NULL) {
		snprintf(err, errlen, "socket activation: LISTEN_PID is set but LISTEN_FDS is not");
		return -1;
	}
	if (parse_decimal(s, INT_MAX - LISTEN_FDS_START, &n) != 0 || n == 0) {
		snprintf(err, errlen, "socket activation: LISTEN_FDS=\"%.32s\" is not a positive number",
		    s);
		return -1;
	}
	if (max < 0 || n > (unsigned long)max) {
		snprintf(err, errlen, "socket activation: LISTEN_FDS=%lu, more than the %d sockets expected",
		    n, max < 0 ? 0 : max);
		return -1;
	}
	return (int)n;
}

int
listen_fds_take(int *fds, int max, char *err, size_t errlen)
{
	const char *pid = getenv("LISTEN_PID");
	unsigned long p;
	int n, i;

	if (errlen > 0)
		err[0] = '\0';
	if (pid == NULL)
		return 0;
	if (parse_decimal(pid, (unsigned long)LONG_MAX, &p) != 0 || p == 0) {
		snprintf(err, errlen, "socket activation: LISTEN_PID=\"%.32s\" is not a process id",
		    pid);
		return -1;
	}
	if (p != (unsigned long)getpid())
		return 0;
	n = count_fds(max, err, errlen);
	if (n > 0 && check_fds(n, err, errlen) != 0)
		n = -1;
	unset_vars();
	for (i = 0; i < n; i++) {
		int fd = LISTEN_FDS_START + i, fl = fcntl(fd, F_GETFD);

		if (fl < 0 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) != 0) {
			snprintf(err, errlen, "socket activation: fd %d: %s", fd,
			    strerror(errno));
			return -1;
		}
		fds[i] = fd;
	}
	return n;
}

int
listen_fd_describe(int fd, int *type, int *family, int *port, int *listening)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int t = 0, acc = 0;
	socklen_t tl = sizeof(t), al = sizeof(acc);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &tl) != 0)
		return -1;
	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return -1;
#ifdef SO_ACCEPTCONN
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) != 0)
		return -1;
#else
	(void)al;
#endif
	if (type)
		*type = t;
	if (family)
		*family = ss.ss_family;
	if (port) {
		if (ss.ss_family == AF_INET)
			*port = ntohs(((struct sockaddr_in *)(void *)&ss)->sin_port);
		else if (ss.ss_family == AF_INET6)
			*port = ntohs(((struct sockaddr_in6 *)(void *)&ss)->sin6_port);
		else
			*port = 0;
	}
	if (listening)
		*listening = acc != 0;
	return 0;
}
