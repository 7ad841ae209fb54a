/*
 * auth.h - authentication with RSA tokens (docs/architecture.md,
 * Authentication).
 *
 * The client sends, in the parameter document, an "authtoken": the
 * plaintext "user: U\npwd:  P\nts:   T" encrypted with the server's RSA
 * public key (OAEP with SHA-1 by default, PKCS#1 v1.5 for servers up to
 * 3.16) and base64-encoded.  The server decrypts it with its private key,
 * checks the clock skew and looks up sha256("{U}" P) in its users file.
 *
 * Three layers:
 *   pure       plaintext, base64, users-file lines, skew (auth.c; built
 *              with and without OpenSSL, no I/O, exact-length buffers)
 *   crypto     keys, RSA, SHA-256, tokens (auth_ssl.c, OpenSSL 3 EVP)
 *   test glue  what the option checks, the client and the server call
 *              (auth_ssl.c; auth_stub.c when built without OpenSSL)
 *
 * Everything peer-controlled is bounded before it is copied or decoded.
 */
#ifndef IPERF_AUTH_H
#define IPERF_AUTH_H

#include <stddef.h>
#include <stdint.h>

struct iperf_test;
struct auth_key; /* an RSA key (public or private); opaque */

/* Longest user name or password (bytes). */
#define AUTH_FIELD_MAX 128
/* Longest base64 token accepted (a 16384-bit key gives 2732 chars). */
#define AUTH_TOKEN_B64_MAX 4096
/* Largest RSA key handled (bytes of modulus). */
#define AUTH_RSA_MAX_BYTES 2048
/* Longest decoded plaintext ("user: " ... "ts:   " + 20 digits). */
#define AUTH_PLAINTEXT_MAX (3 * 6 + 2 + 2 * AUTH_FIELD_MAX + 20)
/* Largest key file and users file read (bytes). */
#define AUTH_KEY_FILE_MAX   ((size_t)64 * 1024)
#define AUTH_USERS_FILE_MAX ((size_t)1024 * 1024)
/* Longest users-file line considered (longer lines never match). */
#define AUTH_USERS_LINE_MAX 1024
/* Lowercase hex SHA-256 plus NUL. */
#define AUTH_HASH_HEX_SIZE  65
#define AUTH_DEFAULT_SKEW_S 10

enum auth_padding {
	AUTH_PAD_OAEP = 0, /* RSA-OAEP, SHA-1, MGF1-SHA-1, empty label */
	AUTH_PAD_PKCS1 = 1 /* RSA PKCS#1 v1.5 type 2 */
};

enum auth_key_kind {
	AUTH_KEY_PUBLIC = 0, /* PEM "PUBLIC KEY" (SubjectPublicKeyInfo) */
	AUTH_KEY_PRIVATE = 1 /* PEM private key (PKCS#8 or PKCS#1) */
};

/* Why the server refused a token: the "return code" of the -d line. */
enum auth_result {
	AUTH_OK = 0,
	AUTH_ERR_TOKEN = 1,      /* missing, bad base64, cannot decrypt */
	AUTH_ERR_SKEW = 2,       /* timestamp outside the window */
	AUTH_ERR_DENIED = 3,     /* user unknown or wrong password */
	AUTH_ERR_USERS_FILE = 4, /* users file unreadable or too large */
	AUTH_ERR_PLAINTEXT = 5   /* decrypted text is not a token */
};

/* What a token carries. */
struct auth_creds {
	char user[AUTH_FIELD_MAX + 1];
	char pwd[AUTH_FIELD_MAX + 1];
	int64_t ts;
};

/* ---- pure (auth.c) ------------------------------------------------------ */

/* 1 if s is 1..AUTH_FIELD_MAX bytes with no whitespace or control
 * character (bytes >= 0x80 are allowed), else 0. */
int auth_field_valid(const char *s);
/*
 * "user: U\npwd:  P\nts:   T" into out (NUL-terminated, no newline at the
 * end).  Returns its length, or -1 (invalid field, or out too small).
 */
int auth_plaintext_build(const char *user, const char *pwd, int64_t ts,
    char *out, size_t outlen);
/* Parse exactly len bytes (not NUL-terminated) of plaintext.  0 or -1. */
int auth_plaintext_parse(const char *buf, size_t len, struct auth_creds *c);

/* Encoded size of n bytes (without the NUL). */
size_t auth_b64_encoded_len(size_t n);
/* Standard alphabet, '=' padding, no line breaks; NUL-terminated.
 * 0, or -1 if out is too small. */
int auth_b64_encode(const unsigned char *in, size_t n, char *out,
    size_t outlen);
/*
 * Strict decode of exactly n characters: length a multiple of 4, only the
 * alphabet, at most two '=' at the end, zero padding bits.  Writes at
 * most outlen bytes and the count to *outn.  0 or -1.
 */
int auth_b64_decode(const char *in, size_t n, unsigned char *out, size_t outlen,
    size_t *outn);

/* 1 if |now - ts| <= threshold_s (threshold_s > 0), else 0. */
int auth_skew_ok(int64_t now, int64_t ts, int threshold_s);

/*
 * Users file in buf (exactly len bytes): 1 if a line names `user` with
 * the lowercase hex `hash`, else 0.  Lines end at '\n'; a line stops at
 * its first '\r' or NUL; empty lines, '#' lines and lines without a comma
 * are skipped; fields are split at commas, empty fields skipped; the
 * first field is the user, the second the hash, the rest is ignored.
 */
int auth_users_match(const char *buf, size_t len, const char *user,
    const char *hash);

/* Overwrite n bytes (not optimised away). */
void auth_wipe(void *p, size_t n);

/* Copy of s for printing: bytes outside 0x21..0x7e as \xNN. */
void auth_printable(const char *s, char *out, size_t outlen);

/* ---- crypto (auth_ssl.c; absent without OpenSSL) ------------------------ */

/*
 * Load a PEM RSA key from a file or from memory.  On failure returns NULL
 * and puts a one-line reason in err (the first OpenSSL error, e.g.
 * "error:80000002:system library::No such file or directory").  Private
 * keys protected by a passphrase are refused (no prompt).
 */
struct auth_key *auth_key_load_file(const char *path, enum auth_key_kind kind,
    char *err, size_t errlen);
struct auth_key *auth_key_load_pem(const char *pem, size_t len,
    enum auth_key_kind kind, char *err, size_t errlen);
void auth_key_free(struct auth_key *key);
/* Modulus size in bytes. */
size_t auth_key_size(const struct auth_key *key);

/* sha256("{" user "}" pwd) as lowercase hex.  0 or -1. */
int auth_salted_hash(const char *user, const char *pwd,
    char out[AUTH_HASH_HEX_SIZE]);

/* 1 if a token for user/pwd (any timestamp) fits in one RSA block. */
int auth_token_fits(const struct auth_key *pub, enum auth_padding pad,
    const char *user, const char *pwd);
/* The base64 token for user/pwd at time ts (malloc'd), or NULL. */
char *auth_token_build(const struct auth_key *pub, enum auth_padding pad,
    const char *user, const char *pwd, int64_t ts);
/* Decrypt and parse a token (no skew or users check).  AUTH_OK or why. */
enum auth_result auth_token_open(const struct auth_key *priv,
    enum auth_padding pad, const char *b64, struct auth_creds *c);
/*
 * The whole server check (docs/architecture.md, Authentication): open
 * the token, skew against `now` (threshold_s <= 0 means the default
 * 10 s), then the users file in buf.
 * c receives what the token held (user "" and ts 0 if it could not be
 * opened).
 */
enum auth_result auth_token_verify(const struct auth_key *priv,
    enum auth_padding pad, const char *b64, const char *users, size_t users_len,
    int64_t now, int threshold_s, struct auth_creds *c);

/* Overwrite and free a secret string (NULL allowed). */
void auth_secret_free(char *s);

/* ---- test glue (auth_ssl.c, or auth_stub.c without OpenSSL) ------------- */

/* Client: set settings.authtoken when a user and a key are configured
 * (fresh timestamp).  0, or -1 with IESETCLIENTAUTH recorded. */
int auth_client_token(struct iperf_test *test);
/* Server: when authentication is configured, verify the client's token
 * and print the -d line.  0, or -1 with IEAUTHTEST recorded. */
int auth_server_check(struct iperf_test *test);
/* The test's authentication context (its configuration's, test_config.h)
 * for storing a key or password: it frees them with the configuration. */
struct auth_ctx *auth_ctx_of(struct iperf_test *test);
/* OpenSSL builds only: read a password, "Password: " on stdout, then one
 * line from stdin with echo off when stdin is a terminal.  0, or -1 (EOF,
 * too long). */
int auth_password_prompt(struct iperf_test *test, char *buf, size_t len);

#endif /* IPERF_AUTH_H */
