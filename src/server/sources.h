/*
 * sources.h - what the --max-tests dispatcher counts per source (an
 * address or a network, by its struct cidr key): tests waiting and
 * running, the --accept-rate bucket, the last time it was seen.  A hash
 * table for one thread (no locks); idle entries are pruned.
 */
#ifndef IPERF_SOURCES_H
#define IPERF_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "cidr.h"
#include "tbucket.h"

struct source {
	struct cidr key;
	int pending;		/* connections not yet running a test */
	int active;		/* tests running */
	struct tbucket bucket;	/* --accept-rate, once bucket_set */
	int bucket_set;
	uint64_t last_us;	/* the last sources_get() */
	/* private: */
	struct source *next;
};

struct source_table;

/* An empty table; NULL on ENOMEM. */
struct source_table *sources_new(void);
/* Frees the table and every entry (pointers to them become invalid). */
void sources_free(struct source_table *t);
/* The entry of key, made (zeroed) if there is none; its last_us set to
 * now_us.  NULL only on ENOMEM.  Valid until it is pruned or freed. */
struct source *sources_get(struct source_table *t, const struct cidr *key,
    uint64_t now_us);
/* The entry of key or NULL; last_us unchanged. */
struct source *sources_find(struct source_table *t, const struct cidr *key);
/* Free every entry with pending and active 0 whose last_us is idle_us or
 * more before now_us; the table shrinks with them. */
void sources_prune(struct source_table *t, uint64_t now_us,
    uint64_t idle_us);
/* The number of entries. */
size_t sources_count(const struct source_table *t);

#endif /* IPERF_SOURCES_H */
