/*
 * auth_run.c - authentication in a test: the client's token (built just
 * before the parameters are sent), the server's check of it (right after
 * they are decoded), the password prompt.  OpenSSL builds only;
 * auth_stub.c stands in otherwise.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "iperf.h"
#include "iperf_error.h"
#include "report.h"
#include "test_config.h"
#include "banned.h"

/* -d levels of the two lines (success is information, failure a
 * warning). */
#define AUTH_DEBUG_OK   3
#define AUTH_DEBUG_FAIL 2

static enum auth_padding
padding_of(const struct iperf_test *test)
{
	return test->opt->use_pkcs1_padding ? AUTH_PAD_PKCS1 : AUTH_PAD_OAEP;
}

int
auth_client_token(struct iperf_test *test)
{
	const struct iperf_local *o = test->opt;
	const struct auth_ctx *a = &test->cfg->auth;
	char *tok;

	if (o->auth_username == NULL && a->public_key == NULL)
		return 0; /* not configured */
	if (o->auth_username == NULL || a->public_key == NULL ||
	    a->password == NULL)
		return iperf_fail(test, IESETCLIENTAUTH, 0);
	tok = auth_token_build(a->public_key, padding_of(test),
	    o->auth_username, a->password, (int64_t)time(NULL));
	if (tok == NULL)
		return iperf_fail(test, IESETCLIENTAUTH, 0);
	free(test->settings.authtoken);
	test->settings.authtoken = tok;
	return 0;
}

/* The users file, read whole (bounded); NULL if unreadable or too big. */
static char *
read_users(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;

	*len = 0;
	if (f == NULL)
		return NULL;
	buf = malloc(AUTH_USERS_FILE_MAX + 1);
	if (buf != NULL)
		*len = fread(buf, 1, AUTH_USERS_FILE_MAX + 1, f);
	if (buf != NULL && (ferror(f) || *len > AUTH_USERS_FILE_MAX)) {
		free(buf);
		buf = NULL;
	}
	(void)fclose(f);
	return buf;
}

static void
debug_line(struct iperf_test *test, enum auth_result r,
    const struct auth_creds *c)
{
	char user[4 * AUTH_FIELD_MAX + 1];

	auth_printable(c->user, user, sizeof(user));
	if (r == AUTH_OK)
		report_debug(test, AUTH_DEBUG_OK,
		    "Authentication succeeded for user '%s' ts %" PRId64, user,
		    c->ts);
	else
		report_debug(test, AUTH_DEBUG_FAIL,
		    "Authentication failed with return code %d for user '%s' ts %" PRId64,
		    (int)r, user, c->ts);
}

int
auth_server_check(struct iperf_test *test)
{
	const struct iperf_local *o = test->opt;
	struct auth_creds c;
	enum auth_result r;
	size_t len = 0;
	char *users;

	const struct auth_key *key = test->cfg->auth.private_key;

	if (key == NULL && o->auth_users_path == NULL)
		return 0; /* not configured: a token is ignored */
	if (key == NULL || o->auth_users_path == NULL)
		return iperf_fail(test, IESETSERVERAUTH, 0); /* half set (API) */
	users = read_users(o->auth_users_path, &len);
	r = auth_token_verify(key, padding_of(test),
	    test->settings.authtoken, users, len, (int64_t)time(NULL),
	    o->auth_skew_threshold_s, &c);
	free(users);
	debug_line(test, r, &c);
	memset(&c, 0, sizeof(c));
	if (r != AUTH_OK)
		return iperf_fail(test, IEAUTHTEST, 0);
	return 0;
}

static void
auth_ctx_release(struct auth_ctx *a)
{
	auth_key_free(a->public_key);
	auth_key_free(a->private_key);
	auth_secret_free(a->password);
	a->public_key = a->private_key = NULL;
	a->password = NULL;
}

struct auth_ctx *
auth_ctx_of(struct iperf_test *test)
{
	test->cfg->auth.release = auth_ctx_release;
	return &test->cfg->auth;
}

/* ---- password ------------------------------------------------------------ */

/* One line from fd, byte by byte (nothing read past the newline).
 * 0, or -1 on EOF before any byte, a read error or a too long line. */
static int
read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;
	int too_long = 0;
	char ch;

	for (;;) {
		ssize_t r = read(fd, &ch, 1);

		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (n == 0 && !too_long)
				return -1;
			break;
		}
		if (ch == '\n')
			break;
		if (n + 1 < len)
			buf[n++] = ch;
		else
			too_long = 1;
	}
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	return too_long ? -1 : 0;
}

int
auth_password_prompt(struct iperf_test *test, char *buf, size_t len)
{
	struct termios saved, quiet;
	sigset_t block, old;
	int tty, rc;

	if (len == 0)
		return -1;
	buf[0] = '\0';
	report_raw(test, "Password: ");
	(void)fflush(stdout);
	tty = tcgetattr(STDIN_FILENO, &saved) == 0;
	if (tty) {
		/* No echo; keep the signals that could leave it so pending
		 * until the terminal is restored. */
		(void)sigemptyset(&block);
		(void)sigaddset(&block, SIGINT);
		(void)sigaddset(&block, SIGTERM);
		(void)sigaddset(&block, SIGHUP);
		(void)sigaddset(&block, SIGQUIT);
		(void)sigaddset(&block, SIGTSTP);
		(void)pthread_sigmask(SIG_BLOCK, &block, &old);
		quiet = saved;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		quiet.c_lflag |= ECHONL;
		(void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
	}
	rc = read_line(STDIN_FILENO, buf, len);
	if (tty) {
		(void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
		(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	} else {
		report_raw(test, "\n"); /* ends the prompt's line */
	}
	return rc;
}
