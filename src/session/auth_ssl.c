/*
 * auth_ssl.c - the OpenSSL side of authentication: PEM keys, RSA
 * encryption and decryption through EVP_PKEY (OpenSSL 3), SHA-256, the
 * token built by the client and verified by the server.
 *
 * Secrets (plaintext tokens, passwords, private-key PEM text) are wiped
 * with OPENSSL_cleanse() once used.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "auth.h"
#include "banned.h"

/* Bytes RSA padding takes from a block: OAEP with SHA-1 (2 * 20 + 2),
 * PKCS#1 v1.5 type 2 (11). */
#define OAEP_SHA1_OVERHEAD 42
#define PKCS1_OVERHEAD     11
/* Smallest key accepted: 1024 bits. */
#define AUTH_RSA_MIN_BYTES 128
#define SHA256_BYTES       32

struct auth_key {
	EVP_PKEY *pkey;
	size_t size; /* modulus, bytes */
};

/* The oldest queued OpenSSL error (what 3.21 prints), else `fallback`. */
static void
ssl_error_text(char *err, size_t errlen, const char *fallback)
{
	unsigned long e = ERR_get_error();

	if (errlen == 0)
		return;
	if (e != 0)
		ERR_error_string_n(e, err, errlen);
	else
		(void)snprintf(err, errlen, "%s", fallback);
	ERR_clear_error();
}

/* Never prompt for the passphrase of a private key. */
static int
no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

static struct auth_key *
key_wrap(EVP_PKEY *pk, char *err, size_t errlen)
{
	struct auth_key *key;
	int bits = EVP_PKEY_get_bits(pk);

	if (!EVP_PKEY_is_a(pk, "RSA")) {
		(void)snprintf(err, errlen, "the key is not an RSA key");
		goto fail;
	}
	if (bits < AUTH_RSA_MIN_BYTES * 8 || bits > AUTH_RSA_MAX_BYTES * 8) {
		(void)snprintf(err, errlen,
		    "unsupported RSA key size (%d bits)", bits);
		goto fail;
	}
	key = calloc(1, sizeof(*key));
	if (key == NULL) {
		(void)snprintf(err, errlen, "out of memory");
		goto fail;
	}
	key->pkey = pk;
	key->size = (size_t)EVP_PKEY_get_size(pk);
	return key;
fail:
	EVP_PKEY_free(pk);
	return NULL;
}

struct auth_key *
auth_key_load_pem(const char *pem, size_t len, enum auth_key_kind kind,
    char *err, size_t errlen)
{
	EVP_PKEY *pk;
	BIO *bio;

	if (pem == NULL || len == 0 || len > AUTH_KEY_FILE_MAX) {
		(void)snprintf(err, errlen, "no key, or the key is too large");
		return NULL;
	}
	ERR_clear_error();
	bio = BIO_new_mem_buf(pem, (int)len);
	if (bio == NULL) {
		ssl_error_text(err, errlen, "out of memory");
		return NULL;
	}
	if (kind == AUTH_KEY_PRIVATE)
		pk = PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL);
	else
		pk = PEM_read_bio_PUBKEY(bio, NULL, no_passphrase, NULL);
	BIO_free(bio);
	if (pk == NULL) {
		ssl_error_text(err, errlen, "no key found");
		return NULL;
	}
	ERR_clear_error();
	return key_wrap(pk, err, errlen);
}

/* Up to AUTH_KEY_FILE_MAX bytes of the file; NULL with err set. */
static char *
read_key_file(const char *path, size_t *len, char *err, size_t errlen)
{
	char *buf;
	BIO *bio;
	int n;

	ERR_clear_error();
	bio = BIO_new_file(path, "r");
	if (bio == NULL) {
		ssl_error_text(err, errlen, "cannot open the key file");
		return NULL;
	}
	buf = malloc(AUTH_KEY_FILE_MAX + 1);
	*len = 0;
	while (buf != NULL && *len <= AUTH_KEY_FILE_MAX &&
	    (n = BIO_read(bio, buf + *len,
	         (int)(AUTH_KEY_FILE_MAX + 1 - *len))) > 0)
		*len += (size_t)n;
	BIO_free(bio);
	if (buf == NULL)
		(void)snprintf(err, errlen, "out of memory");
	else if (*len > AUTH_KEY_FILE_MAX) {
		(void)snprintf(err, errlen, "the key file is too large");
		OPENSSL_cleanse(buf, AUTH_KEY_FILE_MAX + 1);
		free(buf);
		buf = NULL;
	}
	return buf;
}

struct auth_key *
auth_key_load_file(const char *path, enum auth_key_kind kind, char *err,
    size_t errlen)
{
	struct auth_key *key;
	size_t len = 0;
	char *pem;

	if (path == NULL) {
		(void)snprintf(err, errlen, "no key file");
		return NULL;
	}
	pem = read_key_file(path, &len, err, errlen);
	if (pem == NULL)
		return NULL;
	key = auth_key_load_pem(pem, len, kind, err, errlen);
	OPENSSL_cleanse(pem, len);
	free(pem);
	return key;
}

void
auth_key_free(struct auth_key *key)
{
	if (key == NULL)
		return;
	EVP_PKEY_free(key->pkey);
	free(key);
}

size_t
auth_key_size(const struct auth_key *key)
{
	return key != NULL ? key->size : 0;
}

/* ---- RSA ------------------------------------------------------------------ */

static EVP_PKEY_CTX *
rsa_ctx(const struct auth_key *key, enum auth_padding pad, int encrypt)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key->pkey, NULL);

	if (ctx == NULL)
		return NULL;
	if ((encrypt ? EVP_PKEY_encrypt_init(ctx) :
	               EVP_PKEY_decrypt_init(ctx)) <= 0)
		goto fail;
	if (pad == AUTH_PAD_PKCS1) {
		if (EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) <= 0)
			goto fail;
		return ctx;
	}
	if (EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha1()) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha1()) <= 0)
		goto fail;
	return ctx;
fail:
	EVP_PKEY_CTX_free(ctx);
	return NULL;
}

/* One RSA operation into out (outcap bytes, at least the key size). */
static int
rsa_crypt(const struct auth_key *key, enum auth_padding pad, int encrypt,
    const unsigned char *in, size_t n, unsigned char *out, size_t *outn)
{
	EVP_PKEY_CTX *ctx;
	size_t cap = *outn;
	int rc;

	*outn = 0;
	if (key == NULL || cap < key->size)
		return -1;
	ctx = rsa_ctx(key, pad, encrypt);
	if (ctx == NULL) {
		ERR_clear_error();
		return -1;
	}
	if (encrypt)
		rc = EVP_PKEY_encrypt(ctx, out, &cap, in, n);
	else
		rc = EVP_PKEY_decrypt(ctx, out, &cap, in, n);
	EVP_PKEY_CTX_free(ctx);
	ERR_clear_error();
	if (rc <= 0)
		return -1;
	*outn = cap;
	return 0;
}

int
auth_salted_hash(const char *user, const char *pwd,
    char out[AUTH_HASH_HEX_SIZE])
{
	char salted[2 * AUTH_FIELD_MAX + 3];
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	size_t i;
	int n;

	out[0] = '\0';
	if (user == NULL || pwd == NULL ||
	    strnlen(user, AUTH_FIELD_MAX + 1) > AUTH_FIELD_MAX ||
	    strnlen(pwd, AUTH_FIELD_MAX + 1) > AUTH_FIELD_MAX)
		return -1;
	n = snprintf(salted, sizeof(salted), "{%s}%s", user, pwd);
	if (n < 0 || (size_t)n >= sizeof(salted))
		return -1;
	if (EVP_Digest(salted, (size_t)n, md, &mdlen, EVP_sha256(), NULL) !=
	        1 ||
	    mdlen != SHA256_BYTES) {
		OPENSSL_cleanse(salted, sizeof(salted));
		ERR_clear_error();
		return -1;
	}
	OPENSSL_cleanse(salted, sizeof(salted));
	for (i = 0; i < mdlen; i++)
		(void)snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/* ---- tokens --------------------------------------------------------------- */

static size_t
pad_overhead(enum auth_padding pad)
{
	return pad == AUTH_PAD_PKCS1 ? PKCS1_OVERHEAD : OAEP_SHA1_OVERHEAD;
}

int
auth_token_fits(const struct auth_key *pub, enum auth_padding pad,
    const char *user, const char *pwd)
{
	char plain[AUTH_PLAINTEXT_MAX + 1];
	int n;

	if (pub == NULL)
		return 0;
	/* The widest timestamp the plaintext can carry. */
	n = auth_plaintext_build(user, pwd, INT64_MIN, plain, sizeof(plain));
	OPENSSL_cleanse(plain, sizeof(plain));
	return n > 0 && (size_t)n + pad_overhead(pad) <= pub->size;
}

char *
auth_token_build(const struct auth_key *pub, enum auth_padding pad,
    const char *user, const char *pwd, int64_t ts)
{
	char plain[AUTH_PLAINTEXT_MAX + 1];
	unsigned char ct[AUTH_RSA_MAX_BYTES];
	size_t ctlen = sizeof(ct), b64len;
	char *b64 = NULL;
	int n;

	n = auth_plaintext_build(user, pwd, ts, plain, sizeof(plain));
	if (n < 0 || pub == NULL)
		goto out;
	if (rsa_crypt(pub, pad, 1, (const unsigned char *)plain, (size_t)n, ct,
	        &ctlen) == -1)
		goto out;
	b64len = auth_b64_encoded_len(ctlen) + 1;
	b64 = malloc(b64len);
	if (b64 != NULL && auth_b64_encode(ct, ctlen, b64, b64len) == -1) {
		free(b64);
		b64 = NULL;
	}
out:
	OPENSSL_cleanse(plain, sizeof(plain));
	return b64;
}

enum auth_result
auth_token_open(const struct auth_key *priv, enum auth_padding pad,
    const char *b64, struct auth_creds *c)
{
	unsigned char ct[AUTH_RSA_MAX_BYTES], pt[AUTH_RSA_MAX_BYTES];
	size_t len, ctn = 0, ptn = sizeof(pt);
	enum auth_result r = AUTH_ERR_TOKEN;

	memset(c, 0, sizeof(*c));
	if (priv == NULL || b64 == NULL)
		return AUTH_ERR_TOKEN;
	len = strnlen(b64, AUTH_TOKEN_B64_MAX + 1);
	if (len > AUTH_TOKEN_B64_MAX ||
	    auth_b64_decode(b64, len, ct, sizeof(ct), &ctn) == -1 ||
	    ctn != priv->size)
		return AUTH_ERR_TOKEN;
	if (rsa_crypt(priv, pad, 0, ct, ctn, pt, &ptn) == 0) {
		r = auth_plaintext_parse((const char *)pt, ptn, c) == 0 ?
		    AUTH_OK :
		    AUTH_ERR_PLAINTEXT;
	}
	OPENSSL_cleanse(pt, sizeof(pt));
	return r;
}

enum auth_result
auth_token_verify(const struct auth_key *priv, enum auth_padding pad,
    const char *b64, const char *users, size_t users_len, int64_t now,
    int threshold_s, struct auth_creds *c)
{
	char hash[AUTH_HASH_HEX_SIZE];
	enum auth_result r;

	r = auth_token_open(priv, pad, b64, c);
	if (r != AUTH_OK)
		return r;
	if (!auth_skew_ok(now, c->ts,
	        threshold_s > 0 ? threshold_s : AUTH_DEFAULT_SKEW_S))
		return AUTH_ERR_SKEW;
	if (users == NULL)
		return AUTH_ERR_USERS_FILE;
	if (auth_salted_hash(c->user, c->pwd, hash) == -1)
		return AUTH_ERR_DENIED;
	r = auth_users_match(users, users_len, c->user, hash) ? AUTH_OK :
	                                                        AUTH_ERR_DENIED;
	OPENSSL_cleanse(hash, sizeof(hash));
	return r;
}

void
auth_secret_free(char *s)
{
	if (s == NULL)
		return;
	OPENSSL_cleanse(s, strlen(s));
	free(s);
}
