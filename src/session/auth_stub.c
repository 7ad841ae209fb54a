/*
 * auth_stub.c - authentication in a build without OpenSSL: nothing can
 * be configured (the options do not exist), so there is no token to
 * send and none to check.
 */
#include "config.h"

#include "auth.h"
#include "iperf.h"
#include "iperf_error.h"
#include "banned.h"

int
auth_client_token(struct iperf_test *test)
{
	/* Only the library's setters can ask for it: refuse. */
	if (test->opt.auth_username != NULL)
		return iperf_fail(test, IESETCLIENTAUTH, 0);
	return 0;
}

int
auth_server_check(struct iperf_test *test)
{
	if (test->opt.auth_users_path != NULL)
		return iperf_fail(test, IESETSERVERAUTH, 0);
	return 0;
}

void
auth_release(struct iperf_test *test)
{
	(void)test;
}
