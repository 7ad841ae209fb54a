/*
 * test_config.c - the options object shared by reference
 * (test_config.h).
 */
#include "config.h"

#include <stdlib.h>
#include <sys/socket.h>

#include "test_config.h"
#include "banned.h"

struct iperf_config *
config_new(void)
{
	struct iperf_config *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->opt.affinity = -1;
	atomic_init(&c->refs, 1);
	return c;
}

struct iperf_config *
config_ref(struct iperf_config *c)
{
	atomic_fetch_add(&c->refs, 1);
	return c;
}

/* The option strings and lists of o (the object goes right after). */
static void
config_free_strings(struct iperf_local *o)
{
	int i;

	for (i = 0; i < o->xbind_count; i++)
		free(o->xbind[i]);
	free(o->xbind);
#ifdef HAVE_OPERATOR /* the operator's server (--disable-operator) */
	for (i = 0; i < o->allow_count; i++)
		free(o->allow[i]);
	free(o->allow);
	for (i = 0; i < o->deny_count; i++)
		free(o->deny[i]);
	free(o->deny);
	free(o->allow_file);
	free(o->audit_log);
	free(o->metrics_listen);
#endif
#ifdef HAVE_MULTICAST
	for (i = 0; i < o->mcast_allow_count; i++)
		free(o->mcast_allow[i]);
	free(o->mcast_allow);
	free(o->mcast_listen);
#endif
#ifdef HAVE_EXPORTER
	for (i = 0; i < o->exporter_allow_count; i++)
		free(o->exporter_allow[i]);
	free(o->exporter_allow);
	free(o->exporter_listen);
#endif
	free(o->server_hostname);
	free(o->bind_address);
	free(o->bind_dev);
	free(o->pidfile);
	free(o->logfile);
	free(o->timestamp_format);
	free(o->diskfile_name);
	free(o->tmp_template);
	free(o->plot_file);
	free(o->metrics_file);
	free(o->auth_username);
	free(o->auth_public_key_path);
	free(o->auth_private_key_path);
	free(o->auth_users_path);
}

void
config_unref(struct iperf_config *c)
{
	if (c == NULL || atomic_fetch_sub(&c->refs, 1) != 1)
		return;
	if (c->auth.release != NULL)
		c->auth.release(&c->auth);
	config_free_strings(&c->opt);
	free(c);
}
