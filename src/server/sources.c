/* sources.c - per-source accounting of the dispatcher (see sources.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cidr.h"
#include "sources.h"
#include "banned.h"

#define SOURCES_MIN_BUCKETS 16u

struct source_table {
	struct source **bucket;
	size_t nbuckets; /* a power of two */
	size_t count;
};

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* FNV-1a (64 bits) over the key's family, address and prefix length. */
static uint64_t
key_hash(const struct cidr *k)
{
	uint64_t h = 14695981039346656037ULL;

	h = fnv(h, &k->family, sizeof(k->family));
	h = fnv(h, k->addr, sizeof(k->addr));
	h = fnv(h, &k->bits, sizeof(k->bits));
	return h ^ (h >> 32);
}

static size_t
slot(const struct source_table *t, const struct cidr *k)
{
	return (size_t)(key_hash(k) & (t->nbuckets - 1));
}

/* Move every entry into n buckets; on ENOMEM the table stays as it was
 * (it works at any size). */
static void
rehash(struct source_table *t, size_t n)
{
	struct source **nb = calloc(n, sizeof(*nb));
	size_t i;

	if (nb == NULL)
		return;
	for (i = 0; i < t->nbuckets; i++) {
		struct source *s = t->bucket[i], *next;

		for (; s != NULL; s = next) {
			size_t j = (size_t)(key_hash(&s->key) & (n - 1));

			next = s->next;
			s->next = nb[j];
			nb[j] = s;
		}
	}
	free(t->bucket);
	t->bucket = nb;
	t->nbuckets = n;
}

struct source_table *
sources_new(void)
{
	struct source_table *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->bucket = calloc(SOURCES_MIN_BUCKETS, sizeof(*t->bucket));
	if (t->bucket == NULL) {
		free(t);
		return NULL;
	}
	t->nbuckets = SOURCES_MIN_BUCKETS;
	return t;
}

void
sources_free(struct source_table *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->nbuckets; i++) {
		struct source *s = t->bucket[i], *next;

		for (; s != NULL; s = next) {
			next = s->next;
			free(s);
		}
	}
	free(t->bucket);
	free(t);
}

struct source *
sources_find(struct source_table *t, const struct cidr *key)
{
	struct source *s;

	for (s = t->bucket[slot(t, key)]; s != NULL; s = s->next)
		if (cidr_equal(&s->key, key))
			return s;
	return NULL;
}

struct source *
sources_get(struct source_table *t, const struct cidr *key, uint64_t now_us)
{
	struct source *s = sources_find(t, key);
	size_t i;

	if (s == NULL) {
		if ((s = calloc(1, sizeof(*s))) == NULL)
			return NULL;
		s->key = *key;
		if (t->count >= t->nbuckets)
			rehash(t, 2 * t->nbuckets);
		i = slot(t, key);
		s->next = t->bucket[i];
		t->bucket[i] = s;
		t->count++;
	}
	s->last_us = now_us;
	return s;
}

void
sources_prune(struct source_table *t, uint64_t now_us, uint64_t idle_us)
{
	size_t i, n = t->nbuckets;

	for (i = 0; i < t->nbuckets; i++) {
		struct source **p = &t->bucket[i];

		while (*p != NULL) {
			struct source *s = *p;

			if (s->pending == 0 && s->active == 0 &&
			    now_us >= s->last_us && now_us - s->last_us >= idle_us) {
				*p = s->next;
				free(s);
				t->count--;
			} else
				p = &s->next;
		}
	}
	while (n > SOURCES_MIN_BUCKETS && t->count < n / 4)
		n /= 2;
	if (n != t->nbuckets)
		rehash(t, n);
}

size_t
sources_count(const struct source_table *t)
{
	return t->count;
}
