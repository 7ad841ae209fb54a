/* util.c - small helpers (see util.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iperf_time.h"
#include "util.h"
#include "banned.h"

size_t
str_copy(char *dst, const char *src, size_t len)
{
	size_t n = strlen(src);

	if (len == 0)
		return n;
	if (n < len) {
		memcpy(dst, src, n + 1);
	} else {
		memcpy(dst, src, len - 1);
		dst[len - 1] = '\0';
	}
	return n;
}

char *
str_dup(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

int
str_replace(char **dst, const char *src)
{
	char *copy = NULL;

	if (src != NULL) {
		copy = strdup(src);
		if (copy == NULL)
			return -1;
	}
	free(*dst);
	*dst = copy;
	return 0;
}

int
str_numeric_addr(int family, const char *s, size_t len, char *out,
    size_t outlen)
{
	unsigned char buf[sizeof(struct in6_addr)];
	char tmp[INET6_ADDRSTRLEN];

	if (len == 0 || len >= sizeof(tmp) || len >= outlen)
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (inet_pton(family, tmp, buf) != 1)
		return -1;
	memcpy(out, tmp, len + 1);
	return 0;
}

void
fill_random(void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t got = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		while (got < len) {
			ssize_t n = read(fd, p + got, len - got);
			if (n <= 0) {
				if (n == -1 && errno == EINTR)
					continue;
				break;
			}
			got += (size_t)n;
		}
		close(fd);
	}
	if (got < len) {
		/* Fallback: not cryptographic, but unpredictable enough. */
		uint64_t x = iperf_time_wall_us() ^ ((uint64_t)getpid() << 32) ^
		    (uint64_t)(uintptr_t)buf;
		for (; got < len; got++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			p[got] = (unsigned char)x;
		}
	}
}

void
make_cookie(char cookie[37])
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
	unsigned char rnd[36];
	int i;

	fill_random(rnd, sizeof(rnd));
	for (i = 0; i < 36; i++)
		cookie[i] = alphabet[rnd[i] % 32];
	cookie[36] = '\0';
}

void
get_system_info(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u) == -1) {
		str_copy(buf, "", len);
		return;
	}
	(void)snprintf(buf, len, "%s %s %s %s %s", u.sysname, u.nodename,
	    u.release, u.version, u.machine);
}

static uint64_t
tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * USEC_PER_SEC + (uint64_t)tv->tv_usec;
}

void
cpu_sample_now(struct cpu_sample *s)
{
	struct rusage ru;
	struct timespec ts;

	memset(s, 0, sizeof(*s));
	s->wall_us = iperf_time_now_us();
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		s->user_us = tv_us(&ru.ru_utime);
		s->system_us = tv_us(&ru.ru_stime);
	}
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
		s->proc_us = (uint64_t)ts.tv_sec * USEC_PER_SEC +
		    (uint64_t)ts.tv_nsec / 1000;
	else
		s->proc_us = s->user_us + s->system_us;
}

static double
pct(uint64_t part_b, uint64_t part_a, uint64_t wall)
{
	if (wall == 0 || part_b < part_a)
		return 0.0;
	return (double)(part_b - part_a) * 100.0 / (double)wall;
}

void
cpu_util_between(const struct cpu_sample *a, const struct cpu_sample *b,
    double out[3])
{
	uint64_t wall = b->wall_us > a->wall_us ? b->wall_us - a->wall_us : 0;

	out[0] = pct(b->proc_us, a->proc_us, wall);
	out[1] = pct(b->user_us, a->user_us, wall);
	out[2] = pct(b->system_us, a->system_us, wall);
}

int
parse_atoi(const char *s)
{
	long long v = 0;
	int neg = 0;

	if (s == NULL)
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s++ - '0');
		if (v > (long long)INT_MAX + 1)
			v = (long long)INT_MAX + 1;
	}
	if (neg)
		v = -v;
	if (v > INT_MAX)
		v = INT_MAX;
	return (int)v;
}

int
open_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	(void)closedir(d);
	return n - 1; /* the directory's own */
}
