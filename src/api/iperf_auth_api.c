/*
 * iperf_auth_api.c - the authentication setters of the public API.
 *
 * Keys are loaded when they are set (a key that cannot be loaded leaves
 * none, and the test then fails with IESETCLIENTAUTH / IESETSERVERAUTH).
 * The base64 variants take the PEM text encoded in base64, as upstream.
 * Without OpenSSL the user name and the users file are recorded so that
 * a test asking for authentication fails rather than running without it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "iperf.h"
#include "util.h"
#include "test_config.h"
#include "banned.h"

void
iperf_set_test_client_username(struct iperf_test *t, const char *user)
{
	(void)str_replace(&t->cfg->opt.auth_username, user);
}

void
iperf_set_test_server_authorized_users(struct iperf_test *t, const char *path)
{
	(void)str_replace(&t->cfg->opt.auth_users_path, path);
}

void
iperf_set_test_server_skew_threshold(struct iperf_test *t, int seconds)
{
	t->cfg->opt.auth_skew_threshold_s = seconds;
}

#ifdef HAVE_SSL
void
iperf_set_test_client_password(struct iperf_test *t, const char *pwd)
{
	struct auth_ctx *a = auth_ctx_of(t);

	auth_secret_free(a->password);
	a->password = str_dup(pwd);
}

/* base64 of a PEM text -> key, or NULL. */
static struct auth_key *
key_from_b64(const char *b64, enum auth_key_kind kind)
{
	char err[256];
	struct auth_key *key = NULL;
	unsigned char *pem;
	size_t n, len;

	if (b64 == NULL)
		return NULL;
	n = strlen(b64);
	if (n > 2 * AUTH_KEY_FILE_MAX)
		return NULL;
	pem = malloc(n + 1);
	if (pem == NULL)
		return NULL;
	if (auth_b64_decode(b64, n, pem, n + 1, &len) == 0)
		key = auth_key_load_pem((const char *)pem, len, kind, err,
		    sizeof(err));
	auth_wipe(pem, n + 1);
	free(pem);
	return key;
}

static void
set_key(struct auth_key **slot, struct auth_key *key)
{
	auth_key_free(*slot);
	*slot = key;
}

static struct auth_key *
key_from_file(const char *path, enum auth_key_kind kind)
{
	char err[256];

	return path != NULL ? auth_key_load_file(path, kind, err, sizeof(err)) :
	    NULL;
}

/* A server with a key checks the time skew: 10 s unless set. */
static void
default_skew(struct iperf_test *t)
{
	if (t->cfg->opt.auth_skew_threshold_s <= 0)
		t->cfg->opt.auth_skew_threshold_s = AUTH_DEFAULT_SKEW_S;
}

void
iperf_set_test_client_rsa_pubkey(struct iperf_test *t, const char *b64)
{
	set_key(&auth_ctx_of(t)->public_key, key_from_b64(b64, AUTH_KEY_PUBLIC));
}

void
iperf_set_test_client_rsa_pubkey_from_file(struct iperf_test *t,
    const char *path)
{
	set_key(&auth_ctx_of(t)->public_key, key_from_file(path, AUTH_KEY_PUBLIC));
}

void
iperf_set_test_server_rsa_privkey(struct iperf_test *t, const char *b64)
{
	set_key(&auth_ctx_of(t)->private_key, key_from_b64(b64, AUTH_KEY_PRIVATE));
	default_skew(t);
}

void
iperf_set_test_server_rsa_privkey_from_file(struct iperf_test *t,
    const char *path)
{
	set_key(&auth_ctx_of(t)->private_key, key_from_file(path, AUTH_KEY_PRIVATE));
	default_skew(t);
}
#else /* !HAVE_SSL */
void
iperf_set_test_client_password(struct iperf_test *t, const char *pwd)
{
	(void)t;
	(void)pwd;
}

void
iperf_set_test_client_rsa_pubkey(struct iperf_test *t, const char *b64)
{
	(void)t;
	(void)b64;
}

void
iperf_set_test_client_rsa_pubkey_from_file(struct iperf_test *t,
    const char *path)
{
	(void)t;
	(void)path;
}

void
iperf_set_test_server_rsa_privkey(struct iperf_test *t, const char *b64)
{
	(void)t;
	(void)b64;
}

void
iperf_set_test_server_rsa_privkey_from_file(struct iperf_test *t,
    const char *path)
{
	(void)t;
	(void)path;
}
#endif
