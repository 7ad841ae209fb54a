/* util.h - small pure helpers and system queries. */
#ifndef IPERF_UTIL_H
#define IPERF_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* CPU accounting snapshot. */
struct cpu_sample {
	uint64_t wall_us;
	uint64_t user_us;
	uint64_t system_us;
	uint64_t proc_us; /* user + system of the process */
};


/* Copy with truncation; always NUL-terminates when len > 0.  Returns the
 * length of src (so truncation is detectable as >= len). */
size_t str_copy(char *dst, const char *src, size_t len);
/* strdup that accepts NULL (returns NULL). */
char *str_dup(const char *s);
/* Replace *dst with a copy of src (NULL allowed); 0 or -1 on ENOMEM. */
int str_replace(char **dst, const char *src);
/* The len bytes at s, if they are a numeric address of `family`
 * (AF_INET, AF_INET6; inet_pton()), into out (outlen bytes) with a NUL:
 * 0, or -1 (out untouched). */
int str_numeric_addr(int family, const char *s, size_t len, char *out,
    size_t outlen);

/* 36 characters of [a-z2-7] plus NUL, from /dev/urandom (or a fallback). */
void make_cookie(char cookie[37]);
/* Fill buf with random bytes (best effort). */
void fill_random(void *buf, size_t len);

/* "sysname nodename release version machine" from uname(2). */
void get_system_info(char *buf, size_t len);

/* CPU usage of the process and the wall clock, now. */
void cpu_sample_now(struct cpu_sample *s);
/* Percentages over [a, b]: total, user, system. */
void cpu_util_between(const struct cpu_sample *a, const struct cpu_sample *b,
    double out[3]);

/* Descriptors this process has open (/proc/self/fd), or -1 where there
 * is no /proc. */
int open_fd_count(void);

/* Parse a decimal integer the way C's atoi does (leading digits only,
 * garbage gives 0), without its undefined overflow. */
int parse_atoi(const char *s);

#endif /* IPERF_UTIL_H */
