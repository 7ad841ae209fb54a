/*
 * check_auth_rsa.c - authentication, the OpenSSL parts: PEM keys, RSA
 * tokens with both paddings, SHA-256, the whole server check with a fixed
 * clock.  Keys are generated when the suite starts (EVP_RSA_gen).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "check_auth.h"

#if defined(HAVE_SSL)

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#define H_ALICE                                                                \
	"9fb9349969765cb57b343daf1872140068c079c5fdf209f18422b11d5b96fafc"
#define NOW 1795312528 /* the injected server clock */

static EVP_PKEY *key_a, *key_b;      /* two 2048-bit keys */
static char *pub_a, *priv_a, *pub_b; /* their PEM texts */

static char *
pem_of(EVP_PKEY *k, int private_part)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *data, *copy;
	long n;

	ck_assert_ptr_nonnull(bio);
	if (private_part)
		ck_assert_int_eq(PEM_write_bio_PrivateKey(bio, k, NULL, NULL, 0,
		                     NULL, NULL),
		    1);
	else
		ck_assert_int_eq(PEM_write_bio_PUBKEY(bio, k), 1);
	n = BIO_get_mem_data(bio, &data);
	copy = malloc((size_t)n + 1);
	memcpy(copy, data, (size_t)n);
	copy[n] = '\0';
	BIO_free(bio);
	return copy;
}

static void
make_keys(void)
{
	key_a = EVP_RSA_gen(2048);
	key_b = EVP_RSA_gen(2048);
	if (key_a == NULL || key_b == NULL)
		abort();
	pub_a = pem_of(key_a, 0);
	priv_a = pem_of(key_a, 1);
	pub_b = pem_of(key_b, 0);
}

static void
free_keys(void)
{
	EVP_PKEY_free(key_a);
	EVP_PKEY_free(key_b);
	free(pub_a);
	free(priv_a);
	free(pub_b);
}

static struct auth_key *
load(const char *pem, enum auth_key_kind kind)
{
	char err[256] = "";
	char *p = exact(pem, strlen(pem));
	struct auth_key *k =
	    auth_key_load_pem(p, strlen(pem), kind, err, sizeof(err));

	free(p);
	ck_assert_msg(k != NULL, "load failed: %s", err);
	return k;
}

/* Raw EVP decryption with the test's own settings. */
static size_t
raw_decrypt(EVP_PKEY *k, int padding, const char *b64, unsigned char *out)
{
	unsigned char ct[512];
	size_t ctn = 0, outn = 512;
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(k, NULL);

	ck_assert_int_eq(auth_b64_decode(b64, strlen(b64), ct, sizeof(ct),
	                     &ctn),
	    0);
	ck_assert_int_eq(EVP_PKEY_decrypt_init(ctx), 1);
	ck_assert_int_gt(EVP_PKEY_CTX_set_rsa_padding(ctx, padding), 0);
	if (padding == RSA_PKCS1_OAEP_PADDING) {
		ck_assert_int_gt(EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha1()),
		    0);
		ck_assert_int_gt(EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha1()),
		    0);
	}
	ck_assert_int_eq(EVP_PKEY_decrypt(ctx, out, &outn, ct, ctn), 1);
	EVP_PKEY_CTX_free(ctx);
	return outn;
}

/* Raw EVP encryption (OAEP) of arbitrary bytes, as base64. */
static char *
raw_encrypt_b64(EVP_PKEY *k, const char *plain)
{
	unsigned char ct[512];
	size_t ctn = sizeof(ct);
	char *b64 = malloc(700);
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(k, NULL);

	ck_assert_int_eq(EVP_PKEY_encrypt_init(ctx), 1);
	ck_assert_int_gt(EVP_PKEY_CTX_set_rsa_padding(ctx,
	                     RSA_PKCS1_OAEP_PADDING),
	    0);
	ck_assert_int_eq(EVP_PKEY_encrypt(ctx, ct, &ctn,
	                     (const unsigned char *)plain, strlen(plain)),
	    1);
	EVP_PKEY_CTX_free(ctx);
	ck_assert_int_eq(auth_b64_encode(ct, ctn, b64, 700), 0);
	return b64;
}

START_TEST(hash_matches_the_spec_example)
{
	char hash[AUTH_HASH_HEX_SIZE];
	char big[AUTH_FIELD_MAX + 2];

	ck_assert_int_eq(auth_salted_hash("alice", "s3cret", hash), 0);
	ck_assert_str_eq(hash, H_ALICE);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(auth_salted_hash(big, "p", hash), -1);
	ck_assert_int_eq(auth_salted_hash("u", big, hash), -1);
}
END_TEST

START_TEST(loads_pem_keys)
{
	struct auth_key *pub = load(pub_a, AUTH_KEY_PUBLIC);
	struct auth_key *priv = load(priv_a, AUTH_KEY_PRIVATE);
	char err[256];

	ck_assert_uint_eq(auth_key_size(pub), 256);
	ck_assert_uint_eq(auth_key_size(priv), 256);
	auth_key_free(pub);
	auth_key_free(priv);
	/* The wrong kind, garbage, nothing. */
	ck_assert_ptr_null(auth_key_load_pem(priv_a, strlen(priv_a),
	    AUTH_KEY_PUBLIC, err, sizeof(err)));
	ck_assert_ptr_null(auth_key_load_pem(pub_a, strlen(pub_a),
	    AUTH_KEY_PRIVATE, err, sizeof(err)));
	ck_assert_ptr_null(auth_key_load_pem("-----BEGIN PUBLIC KEY-----\nxx\n",
	    30, AUTH_KEY_PUBLIC, err, sizeof(err)));
	ck_assert_str_ne(err, "");
	ck_assert_ptr_null(
	    auth_key_load_pem("", 0, AUTH_KEY_PUBLIC, err, sizeof(err)));
	auth_key_free(NULL);
}
END_TEST

START_TEST(refuses_other_key_types_and_passphrases)
{
	EVP_PKEY *ec = EVP_EC_gen("P-256");
	char *ec_pub = pem_of(ec, 0);
	BIO *bio = BIO_new(BIO_s_mem());
	char err[256], *data, pass[] = "pass";
	long n;

	ck_assert_ptr_null(auth_key_load_pem(ec_pub, strlen(ec_pub),
	    AUTH_KEY_PUBLIC, err, sizeof(err)));
	ck_assert_str_eq(err, "the key is not an RSA key");
	/* Encrypted private key: refused, never prompted for. */
	ck_assert_int_eq(PEM_write_bio_PrivateKey(bio, key_a, EVP_aes_128_cbc(),
	                     NULL, 0, NULL, pass),
	    1);
	n = BIO_get_mem_data(bio, &data);
	ck_assert_ptr_null(auth_key_load_pem(data, (size_t)n, AUTH_KEY_PRIVATE,
	    err, sizeof(err)));
	BIO_free(bio);
	free(ec_pub);
	EVP_PKEY_free(ec);
}
END_TEST

START_TEST(loads_key_files_with_openssl_errors)
{
	char path[] = "/tmp/check_auth.XXXXXX";
	char err[256];
	struct auth_key *k;
	FILE *f;
	int fd = mkstemp(path), i;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	(void)fputs(pub_a, f);
	(void)fclose(f);
	k = auth_key_load_file(path, AUTH_KEY_PUBLIC, err, sizeof(err));
	ck_assert_ptr_nonnull(k);
	auth_key_free(k);
	/* Over 64 KiB: refused before parsing. */
	f = fopen(path, "w");
	for (i = 0; i < 200; i++)
		(void)fputs(pub_a, f);
	(void)fclose(f);
	ck_assert_ptr_null(
	    auth_key_load_file(path, AUTH_KEY_PUBLIC, err, sizeof(err)));
	ck_assert_str_eq(err, "the key file is too large");
	(void)unlink(path);
	ck_assert_ptr_null(
	    auth_key_load_file(path, AUTH_KEY_PUBLIC, err, sizeof(err)));
	ck_assert_str_eq(err,
	    "error:80000002:system library::No such file or directory");
	ck_assert_ptr_null(
	    auth_key_load_file(NULL, AUTH_KEY_PUBLIC, err, sizeof(err)));
}
END_TEST

START_TEST(tokens_round_trip_with_both_paddings)
{
	struct auth_key *pub = load(pub_a, AUTH_KEY_PUBLIC);
	struct auth_key *priv = load(priv_a, AUTH_KEY_PRIVATE);
	enum auth_padding pad = _i ? AUTH_PAD_PKCS1 : AUTH_PAD_OAEP;
	enum auth_padding other = _i ? AUTH_PAD_OAEP : AUTH_PAD_PKCS1;
	struct auth_creds c;
	char *tok = auth_token_build(pub, pad, "alice", "s3cret", NOW);
	char *copy;

	ck_assert_ptr_nonnull(tok);
	ck_assert_uint_eq(strlen(tok), 344); /* 256 bytes, no line breaks */
	ck_assert_ptr_null(strchr(tok, '\n'));
	copy = exact(tok, strlen(tok) + 1);
	ck_assert_int_eq(auth_token_open(priv, pad, copy, &c), AUTH_OK);
	ck_assert_str_eq(c.user, "alice");
	ck_assert_str_eq(c.pwd, "s3cret");
	ck_assert(c.ts == NOW);
	/* The other padding does not open it. */
	ck_assert_int_ne(auth_token_open(priv, other, copy, &c), AUTH_OK);
	ck_assert_str_eq(c.user, "");
	free(copy);
	free(tok);
	auth_key_free(pub);
	auth_key_free(priv);
}
END_TEST

START_TEST(token_plaintext_is_exact)
{
	static const char want[] =
	    "user: alice\npwd:  s3cret\nts:   1795312528";
	struct auth_key *pub = load(pub_a, AUTH_KEY_PUBLIC);
	unsigned char out[512];
	char *tok;
	size_t n;

	tok = auth_token_build(pub, AUTH_PAD_OAEP, "alice", "s3cret", NOW);
	n = raw_decrypt(key_a, RSA_PKCS1_OAEP_PADDING, tok, out);
	ck_assert_uint_eq(n, strlen(want));
	ck_assert_mem_eq(out, want, n);
	free(tok);
	tok = auth_token_build(pub, AUTH_PAD_PKCS1, "alice", "s3cret", NOW);
	n = raw_decrypt(key_a, RSA_PKCS1_PADDING, tok, out);
	ck_assert_uint_eq(n, strlen(want));
	ck_assert_mem_eq(out, want, n);
	free(tok);
	auth_key_free(pub);
}
END_TEST

static enum auth_result
verify(const struct auth_key *priv, const char *tok, const char *users,
    int64_t now, int threshold)
{
	struct auth_creds c;
	char *u = users != NULL ? exact(users, strlen(users)) : NULL;
	enum auth_result r = auth_token_verify(priv, AUTH_PAD_OAEP, tok, u,
	    users != NULL ? strlen(users) : 0, now, threshold, &c);

	free(u);
	return r;
}

START_TEST(verify_reports_each_failure)
{
	static const char users[] = "# users\nalice," H_ALICE "\n";
	struct auth_key *pub = load(pub_a, AUTH_KEY_PUBLIC);
	struct auth_key *priv = load(priv_a, AUTH_KEY_PRIVATE);
	struct auth_key *pub2 = load(pub_b, AUTH_KEY_PUBLIC);
	char *good =
	    auth_token_build(pub, AUTH_PAD_OAEP, "alice", "s3cret", NOW);
	char *wrong =
	    auth_token_build(pub, AUTH_PAD_OAEP, "alice", "S3cret", NOW);
	char *who = auth_token_build(pub, AUTH_PAD_OAEP, "bob", "s3cret", NOW);
	char *other =
	    auth_token_build(pub2, AUTH_PAD_OAEP, "alice", "s3cret", NOW);
	char *junk = raw_encrypt_b64(key_a, "user: alice\npwd:  s3cret\n");

	ck_assert_int_eq(verify(priv, good, users, NOW, 10), AUTH_OK);
	ck_assert_int_eq(verify(priv, good, users, NOW + 10, 10), AUTH_OK);
	ck_assert_int_eq(verify(priv, good, users, NOW - 10, 10), AUTH_OK);
	ck_assert_int_eq(verify(priv, good, users, NOW + 11, 10),
	    AUTH_ERR_SKEW);
	ck_assert_int_eq(verify(priv, good, users, NOW - 11, 0), AUTH_ERR_SKEW);
	ck_assert_int_eq(verify(priv, good, users, NOW + 100, 100), AUTH_OK);
	ck_assert_int_eq(verify(priv, wrong, users, NOW, 10), AUTH_ERR_DENIED);
	ck_assert_int_eq(verify(priv, who, users, NOW, 10), AUTH_ERR_DENIED);
	ck_assert_int_eq(verify(priv, good, NULL, NOW, 10),
	    AUTH_ERR_USERS_FILE);
	ck_assert_int_eq(verify(priv, other, users, NOW, 10), AUTH_ERR_TOKEN);
	ck_assert_int_eq(verify(priv, junk, users, NOW, 10),
	    AUTH_ERR_PLAINTEXT);
	ck_assert_int_eq(verify(priv, NULL, users, NOW, 10), AUTH_ERR_TOKEN);
	ck_assert_int_eq(verify(NULL, good, users, NOW, 10), AUTH_ERR_TOKEN);
	free(good);
	free(wrong);
	free(who);
	free(other);
	free(junk);
	auth_key_free(pub);
	auth_key_free(priv);
	auth_key_free(pub2);
}
END_TEST

START_TEST(verify_refuses_garbled_tokens)
{
	static const char users[] = "alice," H_ALICE "\n";
	struct auth_key *pub = load(pub_a, AUTH_KEY_PUBLIC);
	struct auth_key *priv = load(priv_a, AUTH_KEY_PRIVATE);
	char *good =
	    auth_token_build(pub, AUTH_PAD_OAEP, "alice", "s3cret", NOW);
	char *big = malloc(AUTH_TOKEN_B64_MAX + 2);
	size_t n = strlen(good);

	ck_assert_int_eq(verify(priv, "", users, NOW, 10), AUTH_ERR_TOKEN);
	ck_assert_int_eq(verify(priv, "!!!!", users, NOW, 10), AUTH_ERR_TOKEN);
	ck_assert_int_eq(verify(priv, "QUFBQQ==", users, NOW, 10),
	    AUTH_ERR_TOKEN);
	/* Too long (twice the key), then longer than any token. */
	memset(big, 'A', AUTH_TOKEN_B64_MAX + 1);
	big[688] = '\0';
	ck_assert_int_eq(verify(priv, big, users, NOW, 10), AUTH_ERR_TOKEN);
	big[688] = 'A';
	big[AUTH_TOKEN_B64_MAX + 1] = '\0';
	ck_assert_int_eq(verify(priv, big, users, NOW, 10), AUTH_ERR_TOKEN);
	/* Cut, and one bit flipped in the middle. */
	good[n - 4] = '\0';
	ck_assert_int_eq(verify(priv, good, users, NOW, 10), AUTH_ERR_TOKEN);
	good[n - 4] = 'A';
	good[n / 2] = good[n / 2] == 'A' ? 'B' : 'A';
	ck_assert_int_ne(verify(priv, good, users, NOW, 10), AUTH_OK);
	free(good);
	free(big);
	auth_key_free(pub);
	auth_key_free(priv);
}
END_TEST

START_TEST(tokens_must_fit_one_block)
{
	EVP_PKEY *small = EVP_RSA_gen(1024);
	char *pem = pem_of(small, 0);
	struct auth_key *k = load(pem, AUTH_KEY_PUBLIC);
	struct auth_key *pub = load(pub_a, AUTH_KEY_PUBLIC);
	char longest[AUTH_FIELD_MAX + 1];

	memset(longest, 'x', AUTH_FIELD_MAX);
	longest[AUTH_FIELD_MAX] = '\0';
	/* 1024 bits: 86 bytes with OAEP, 117 with PKCS#1 v1.5. */
	ck_assert_int_eq(auth_token_fits(k, AUTH_PAD_OAEP, "0123456789",
	                     "0123456789"),
	    1);
	ck_assert_int_eq(auth_token_fits(k, AUTH_PAD_OAEP,
	                     "0123456789012345678901234",
	                     "0123456789012345678901234"),
	    0);
	ck_assert_int_eq(auth_token_fits(k, AUTH_PAD_PKCS1,
	                     "0123456789012345678901234",
	                     "0123456789012345678901234"),
	    1);
	ck_assert_int_eq(auth_token_fits(pub, AUTH_PAD_OAEP, longest, "p"), 1);
	ck_assert_int_eq(auth_token_fits(pub, AUTH_PAD_OAEP, longest, longest),
	    0);
	ck_assert_int_eq(auth_token_fits(pub, AUTH_PAD_OAEP, "a b", "p"), 0);
	ck_assert_int_eq(auth_token_fits(NULL, AUTH_PAD_OAEP, "u", "p"), 0);
	ck_assert_ptr_null(
	    auth_token_build(pub, AUTH_PAD_OAEP, longest, longest, NOW));
	auth_key_free(k);
	auth_key_free(pub);
	free(pem);
	EVP_PKEY_free(small);
}
END_TEST

void
check_auth_add_rsa(Suite *s)
{
	TCase *tc = tcase_create("rsa");

	tcase_add_unchecked_fixture(tc, make_keys, free_keys);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, hash_matches_the_spec_example);
	tcase_add_test(tc, loads_pem_keys);
	tcase_add_test(tc, refuses_other_key_types_and_passphrases);
	tcase_add_test(tc, loads_key_files_with_openssl_errors);
	tcase_add_loop_test(tc, tokens_round_trip_with_both_paddings, 0, 2);
	tcase_add_test(tc, token_plaintext_is_exact);
	tcase_add_test(tc, verify_reports_each_failure);
	tcase_add_test(tc, verify_refuses_garbled_tokens);
	tcase_add_test(tc, tokens_must_fit_one_block);
	suite_add_tcase(s, tc);
}

#else /* !HAVE_SSL */

void
check_auth_add_rsa(Suite *s)
{
	(void)s;
}

#endif
