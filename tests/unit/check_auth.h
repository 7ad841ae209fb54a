/* check_auth.h - shared by check_auth.c and check_auth_rsa.c. */
#ifndef IPERF_CHECK_AUTH_H
#define IPERF_CHECK_AUTH_H

#include <stddef.h>

#include <check.h>

/* A heap copy of exactly len bytes (so over-reads are caught). */
char *exact(const void *src, size_t len);
/* Add the RSA test cases (nothing without OpenSSL). */
void check_auth_add_rsa(Suite *s);

#endif
