/* check_report_scn.c - scenario helpers: replay reporter events. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check_report.h"
#include "iperf.h"
#include "test_config.h"
#include "report.h"
#include "stream.h"
#include "util.h"

struct interval_result *
fx_cw(struct interval_result *ir, int64_t retr, double cwnd)
{
	ir->has_tcpinfo = 1;
	ir->retransmits = retr;
	ir->snd_cwnd = (uint64_t)cwnd;
	return ir;
}

void
fx_tick(struct fx *f)
{
	f->t->reporter->interval(f->t);
}

/* Client events up to the first interval. */
struct iperf_stream *
fx_client_start(struct fx *f, int port, int lport)
{
	struct iperf_test *t = f->t;
	struct iperf_stream *sp;

	t->cfg->opt.server_hostname = str_dup("127.0.0.1");
	t->cfg->opt.server_port = port;
	t->reporter->begin(t);
	t->reporter->on_connect(t);
	sp = fx_stream(f, 5, t->mode == MODE_SENDER);
	fx_ports(sp, lport, port);
	t->reporter->on_new_stream(sp);
	t->reporter->on_test_start(t);
	return sp;
}

/* Server events up to the first interval. */
struct iperf_stream *
fx_server_start(struct fx *f, int port, int cport, int dport)
{
	struct iperf_test *t = f->t;
	struct iperf_stream *sp;

	t->cfg->opt.server_port = port;
	t->server_test_number = 1;
	str_copy(t->run.srv.peer_host, "127.0.0.1", sizeof(t->run.srv.peer_host));
	t->run.srv.peer_port = cport;
	t->reporter->server_listening(t);
	t->reporter->begin(t);
	t->reporter->on_params(t);
	t->reporter->on_connect(t);
	sp = fx_stream(f, 5, t->mode == MODE_SENDER);
	fx_ports(sp, port, dport);
	t->reporter->on_new_stream(sp);
	t->reporter->on_test_start(t);
	return sp;
}

void
fx_finish(struct fx *f)
{
	f->t->reporter->summary(f->t);
	f->t->reporter->finish(f->t);
}

void
fx_streams(struct fx *f, const int *socks, int n)
{
	struct iperf_test *t = f->t;
	int i, p = t->settings.num_streams;

	for (i = 0; i < n; i++) {
		int sender = t->mode == MODE_SENDER ||
		    (t->mode == MODE_BIDIR && (i < p) == (t->cfg->opt.role == 'c'));

		(void)fx_stream(f, socks[i], sender);
	}
}

void
fx_run(struct fx *f, const struct fx_iv *ivs, int n)
{
	int k, i;

	for (k = 0; k < n; k++) {
		struct iperf_stream *sp = f->t->run.streams;

		for (i = 0; sp != NULL; sp = sp->next, i++) {
			struct interval_result *ir = fx_interval(sp,
			    ivs[k].start, ivs[k].end, ivs[k].s[i].secs > 0 ?
				ivs[k].s[i].secs : ivs[k].end - ivs[k].start,
			    ivs[k].s[i].bytes);

			ir->retransmits = ivs[k].s[i].retr;
			ir->snd_cwnd = (uint64_t)ivs[k].s[i].cwnd;
			ir->has_tcpinfo = sp->sender;
			ir->packets = ivs[k].s[i].pk;
			ir->lost = ivs[k].s[i].lost;
			ir->jitter = ivs[k].s[i].jit_ms / 1000.0;
			ir->omitted = ivs[k].omitted;
		}
		f->t->reporter->interval(f->t);
	}
}

void
fx_end_setup(struct fx *f, const struct fx_ends *e)
{
	struct iperf_stream *sp = f->t->run.streams;
	int i;

	for (i = 0; sp != NULL; sp = sp->next, i++) {
		fx_final(sp, e->local, e->s[i].bytes);
		fx_peer(sp, e->s[i].peer_bytes, e->peer, e->s[i].peer_retr);
		sp->retransmits = e->s[i].retr;
		sp->final.packets = (uint64_t)e->s[i].pk;
		sp->final.lost = e->s[i].lost;
		sp->final.jitter = e->s[i].jit_ms / 1000.0;
		sp->final.ooo = e->s[i].ooo;
		sp->peer.packets = e->s[i].peer_pk;
		sp->peer.errors = e->s[i].peer_lost;
		sp->peer.jitter = e->s[i].peer_jit_ms / 1000.0;
	}
}

void
fx_end(struct fx *f, const struct fx_ends *e)
{
	fx_end_setup(f, e);
	f->t->reporter->summary(f->t);
	f->t->reporter->finish(f->t);
}

const char *
fx_from_header(struct fx *f)
{
	const char *p = strstr(fx_out(f), "[ ID]");

	ck_assert_ptr_nonnull(p);
	return p;
}
