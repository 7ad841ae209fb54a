/* iperf_pidfile.c - -I/--pidfile: the public iperf_create_pidfile() and
 * iperf_delete_pidfile(). */
#include "config.h"

#include <sys/types.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "iperf.h"
#include "iperf_error.h"
#include "test.h"
#include "banned.h"

#define PIDFILE_MAX 32 /* more than any decimal pid */

/* The pid the file names, or 0 (no file, empty, not a number). */
static pid_t
read_pid(const char *path)
{
	char buf[PIDFILE_MAX];
	ssize_t n;
	long v;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	v = strtol(buf, NULL, 10);
	return v > 0 && v <= 0x7fffffffL ? (pid_t)v : 0;
}

static int
pid_alive(pid_t pid)
{
	return pid > 0 && pid != getpid() &&
	    (kill(pid, 0) == 0 || errno == EPERM);
}

static int
write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
iperf_create_pidfile(struct iperf_test *test)
{
	char buf[PIDFILE_MAX];
	int fd, len, err;

	if (test->opt->pidfile == NULL)
		return 0;
	if (pid_alive(read_pid(test->opt->pidfile))) {
		iperf_fail(test, IEPIDFILE, EEXIST);
		errno = EEXIST;
		return test_api_fail(test);
	}
	len = snprintf(buf, sizeof(buf), "%ld", (long)getpid());
	fd = open(test->opt->pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644);
	if (fd == -1 || write_all(fd, buf, (size_t)len) == -1) {
		err = errno;
		if (fd != -1) {
			close(fd);
			(void)unlink(test->opt->pidfile);
		}
		iperf_fail(test, IEPIDFILE, err);
		errno = err;
		return test_api_fail(test);
	}
	if (close(fd) == -1) {
		err = errno;
		iperf_fail(test, IEPIDFILE, err);
		errno = err;
		return test_api_fail(test);
	}
	test->pidfile_written = 1;
	return 0;
}

int
iperf_delete_pidfile(struct iperf_test *test)
{
	if (test->opt->pidfile == NULL || !test->pidfile_written)
		return 0;
	test->pidfile_written = 0;
	if (unlink(test->opt->pidfile) == -1 && errno != ENOENT) {
		iperf_fail(test, IEPIDFILE, errno);
		return test_api_fail(test);
	}
	return 0;
}
