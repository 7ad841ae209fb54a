/*
 * auth_stub.c - authentication in a build without OpenSSL: nothing can
 * be configured (the options do not exist), so there is no token to
 * send and none to check.
 */
#include "config.h"

#include <stdlib.h>

#include "auth.h"
#include "iperf.h"
#include "iperf_error.h"
#include "test_config.h"
#include "banned.h"

int
auth_client_token(struct iperf_test *test)
{
	/* Only the library's setters can ask for it: refuse. */
	if (test->opt->auth_username != NULL)
		return iperf_fail(test, IESETCLIENTAUTH, 0);
	return 0;
}

int
auth_server_check(struct iperf_test *test)
{
	if (test->opt->auth_users_path != NULL)
		return iperf_fail(test, IESETSERVERAUTH, 0);
	return 0;
}

/* Nothing can be loaded without OpenSSL but a password given through
 * the API (kept so that a test asking for authentication fails). */
static void
auth_ctx_release(struct auth_ctx *a)
{
	free(a->password);
	a->password = NULL;
}

struct auth_ctx *
auth_ctx_of(struct iperf_test *test)
{
	test->cfg->auth.release = auth_ctx_release;
	return &test->cfg->auth;
}
