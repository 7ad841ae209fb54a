/*
 * test_config.h - the options of a test as one object (docs/architecture.md,
 * "State by owner").
 *
 * struct iperf_config holds what the command line or the API setters
 * chose (struct iperf_local, iperf.h) and the secrets loaded for
 * authentication (struct auth_ctx).  A test holds one reference
 * (test->cfg) and reads the options through test->opt, a read-only view;
 * only its owners write them: options/ (the parser and its checks), api/
 * (the setters) and session/auth* (the loaded keys).  A --max-tests
 * server's tests hold a reference to the server's object: one
 * configuration, shared, never copied.  The last reference frees it
 * whole, strings, lists and secrets included.
 */
#ifndef IPERF_TEST_CONFIG_H
#define IPERF_TEST_CONFIG_H

#include <stdatomic.h>

#include "iperf.h"

struct auth_key; /* session/auth.h */

/* Secrets loaded for authentication, apart from the options (never
 * printed, never sent).  Whoever stores one sets `release`
 * (session/auth.h: auth_ctx_of), which frees the keys and wipes the
 * password when the configuration goes. */
struct auth_ctx {
	struct auth_key *public_key;  /* client: the server's public key */
	struct auth_key *private_key; /* server */
	char *password;               /* client */
	void (*release)(struct auth_ctx *a);
};

struct iperf_config {
	struct iperf_local opt;
	struct auth_ctx auth;
	atomic_int refs;
};

/* A configuration with the library's defaults of a new test (nothing
 * chosen yet), one reference; NULL if out of memory. */
struct iperf_config *config_new(void);
/* One more reference to c (any thread); returns c. */
struct iperf_config *config_ref(struct iperf_config *c);
/* Drop a reference; the last one frees c and everything it holds. */
void config_unref(struct iperf_config *c);

#endif /* IPERF_TEST_CONFIG_H */
