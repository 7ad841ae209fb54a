/* check_report_fx.c - fixture for the reporter suites (check_report.h). */
#include "config.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check_report.h"
#include "iperf.h"
#include "test_config.h"
#include "proto.h"
#include "report.h"
#include "stream.h"
#include "util.h"

void
fx_init(struct fx *f, char role, enum fx_proto proto, int reverse, int bidir,
    int streams)
{
	struct iperf_test *t = calloc(1, sizeof(*t));
	int sends;

	ck_assert_ptr_nonnull(t);
	t->cfg = config_new();
	ck_assert_ptr_nonnull(t->cfg);
	t->opt = &t->cfg->opt;
	memset(f, 0, sizeof(*f));
	f->t = t;
	t->outfile = open_memstream(&f->buf, &f->len);
	ck_assert_ptr_nonnull(t->outfile);
	pthread_mutex_init(&t->print_lock, NULL);
	t->out_lock = &t->print_lock;
	pthread_mutex_init(&t->note_lock, NULL);
	t->cfg->opt.role = role;
	t->cfg->opt.unit_format = 'a';
	t->cfg->opt.reporter_interval = 1.0;
	t->cfg->opt.stats_interval = 1.0;
	t->cfg->opt.server_port = 5201;
	t->settings.protocol_id = proto == FX_UDP ? Pudp : Ptcp;
	t->proto = proto == FX_UDP ? &proto_udp : &proto_tcp;
	t->settings.num_streams = streams;
	t->settings.reverse = reverse;
	t->settings.bidirectional = bidir;
	t->settings.duration = 2;
	t->settings.blksize = proto == FX_UDP ? 32768 : 131072;
	if (bidir)
		t->mode = MODE_BIDIR;
	else if ((role == 'c') == !reverse)
		t->mode = MODE_SENDER;
	else
		t->mode = MODE_RECEIVER;
	sends = t->mode != MODE_RECEIVER;
	t->sender_has_retransmits = !sends ? -1 : (proto == FX_TCP);
	t->reporter = &report_text;
}

void
fx_free(struct fx *f)
{
	struct iperf_test *t = f->t;
	struct iperf_stream *sp, *next;

	for (sp = t->run.streams; sp != NULL; sp = next) {
		struct interval_result *ir, *inext;

		next = sp->next;
		for (ir = sp->intervals; ir != NULL; ir = inext) {
			inext = ir->next;
			free(ir);
		}
		free(sp);
	}
	config_unref(t->cfg); /* its strings with it */
	free(t->settings.title);
	free(t->settings.extra_data);
	free(t->run.congestion_used);
	free(t->run.remote_congestion_used);
	cJSON_Delete(t->run.rep.json_top);
	cJSON_Delete(t->run.ses.json_server_output);
	free(t->run.rep.json_output_string);
	free(t->run.ses.server_output_text);
	free(t->run.rep.server_outbuf);
	fclose(t->outfile);
	free(f->buf);
	pthread_mutex_destroy(&t->print_lock);
	pthread_mutex_destroy(&t->note_lock);
	free(t);
}

const char *
fx_out(struct fx *f)
{
	fflush(f->t->outfile);
	return f->buf != NULL ? f->buf : "";
}

void
fx_clear(struct fx *f)
{
	fflush(f->t->outfile);
	fseeko(f->t->outfile, 0, SEEK_SET);
	if (f->buf != NULL)
		f->buf[0] = '\0';
}

static void
set_addr(struct sockaddr_storage *ss, int port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

struct iperf_stream *
fx_stream(struct fx *f, int sock, int sender)
{
	struct iperf_stream *sp = calloc(1, sizeof(*sp)), **pp;

	ck_assert_ptr_nonnull(sp);
	sp->test = f->t;
	sp->socket = sock;
	sp->sender = sender;
	sp->min_rtt = UINT64_MAX;
	sp->peer.retransmits = -1;
	set_addr(&sp->local_addr, 40000 + sock);
	set_addr(&sp->remote_addr, 5201);
	for (pp = &f->t->run.streams; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = sp;
	return sp;
}

struct interval_result *
fx_interval(struct iperf_stream *sp, double start, double end, double seconds,
    uint64_t bytes)
{
	struct interval_result *ir = calloc(1, sizeof(*ir));

	ck_assert_ptr_nonnull(ir);
	ir->start = start;
	ir->end = end;
	ir->seconds = (float)seconds;
	ir->bytes = bytes;
	if (sp->last_interval != NULL)
		sp->last_interval->next = ir;
	else
		sp->intervals = ir;
	sp->last_interval = ir;
	return ir;
}

void
fx_final(struct iperf_stream *sp, double seconds, uint64_t bytes)
{
	sp->start_us = 1000000;
	sp->last_sample_us = sp->start_us + (uint64_t)(seconds * 1e6 + 0.5);
	sp->final.bytes = bytes;
}

void
fx_peer(struct iperf_stream *sp, uint64_t bytes, double end_time,
    int64_t retransmits)
{
	sp->peer.present = 1;
	sp->peer.bytes = bytes;
	sp->peer.end_time = end_time;
	sp->peer.retransmits = retransmits;
	sp->peer.has_omitted_pair = 1;
}

const char *
fx_keys(const cJSON *o, char *buf, size_t len)
{
	const cJSON *it;
	size_t off = 0;

	buf[0] = '\0';
	for (it = o != NULL ? o->child : NULL; it != NULL; it = it->next) {
		int n = snprintf(buf + off, len - off, "%s%s",
		    off > 0 ? "," : "", it->string != NULL ? it->string : "?");

		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
	return buf;
}

void
fx_ports(struct iperf_stream *sp, int lport, int rport)
{
	set_addr(&sp->local_addr, lport);
	set_addr(&sp->remote_addr, rport);
}

void
fx_assert_text(const char *got, const char *want)
{
	const char *g = got, *w = want;
	int line = 1;

	while (*g != '\0' && *g == *w) {
		if (*g == '\n')
			line++;
		g++;
		w++;
	}
	if (*g == '\0' && *w == '\0')
		return;
	while (g > got && g[-1] != '\n') {
		g--;
		w--;
	}
	ck_abort_msg("output line %d differs:\n got  '%.*s'\n want '%.*s'",
	    line, (int)strcspn(g, "\n"), g, (int)strcspn(w, "\n"), w);
}

/* Replace the first `key` in *text (heap) by `value`. */
static void
fx_subst(char **text, const char *key, const char *value)
{
	const char *at = strstr(*text, key);
	char *out;
	size_t n;

	if (at == NULL)
		return;
	n = strlen(*text) + strlen(value) + 1;
	out = malloc(n);
	ck_assert_ptr_nonnull(out);
	(void)snprintf(out, n, "%.*s%s%s", (int)(at - *text), *text, value,
	    at + strlen(key));
	free(*text);
	*text = out;
}

/* The expected text with @SYSINFO@ (uname) and @PKGVER@ (this package's
 * version, in start.implementation) filled in. */
char *
fx_want(const char *want)
{
	char info[512], *out = strdup(want);

	ck_assert_ptr_nonnull(out);
	get_system_info(info, sizeof(info));
	fx_subst(&out, "@SYSINFO@", info);
	fx_subst(&out, "@PKGVER@", PACKAGE_VERSION);
	return out;
}

void
fx_assert_json(const cJSON *obj, const char *want)
{
	char *text, *w;

	ck_assert_ptr_nonnull(obj);
	text = cJSON_Print(obj);
	ck_assert_ptr_nonnull(text);
	w = fx_want(want);
	fx_assert_text(text, w);
	free(w);
	cJSON_free(text);
}

double
fx_ms_to_s(double ms)
{
	double s = ms / 1000.0;
	int i;

	for (i = 0; i < 64 && s * 1000.0 != ms; i++)
		s = nextafter(s, s * 1000.0 < ms ? 1.0 : 0.0);
	ck_assert_msg(s * 1000.0 == ms, "no seconds value for %.17g ms", ms);
	return s;
}
