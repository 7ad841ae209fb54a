/* server_record.c - the audit trail and live metrics of a dispatcher
 * (see server_record.h). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "audit.h"
#include "caps_doc.h"
#include "http.h"
#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "proto_ops.h"
#include "report.h"
#include "server_metrics_http.h"
#include "server_record.h"
#include "server_stats.h"
#include "stream.h"
#include "test.h"
#include "banned.h"

int
record_open(struct server_record *r, struct iperf_test *s)
{
	char err[256], msg[512];
	const struct iperf_local *o = s->opt;

	memset(r, 0, sizeof(*r));
	if (o->audit_log != NULL) {
		r->audit = audit_open(o->audit_log, err, sizeof(err));
		if (r->audit == NULL) {
			(void)snprintf(msg, sizeof(msg), "unable to open "
			    "--audit-log %.120s: %s", o->audit_log, err);
			return iperf_fail_arg(s, IESERVEROPT, msg);
		}
	}
	if (o->metrics_listen != NULL) {
		r->stats = server_stats_new();
		if (r->stats != NULL)
			r->http = server_metrics_listen(r->stats,
			    o->metrics_listen, err, sizeof(err));
		if (r->http == NULL) {
			(void)snprintf(msg, sizeof(msg), "unable to serve "
			    "--metrics-listen %.60s: %s", o->metrics_listen,
			    r->stats == NULL ? "out of memory" : err);
			record_close(r);
			return iperf_fail_arg(s, IESERVEROPT, msg);
		}
	}
	return 0;
}

void
record_close(struct server_record *r)
{
	if (r->http != NULL)
		http_stop(r->http);
	if (r->stats != NULL)
		server_stats_free(r->stats);
	if (r->audit != NULL)
		audit_close(r->audit);
	memset(r, 0, sizeof(*r));
}

void
record_reopen(struct server_record *r, struct iperf_test *s)
{
	char err[256];

	if (r->audit != NULL && audit_reopen(r->audit, err, sizeof(err)) == -1)
		report_warning(s, "--audit-log could not be opened again, "
		    "writing on to the old file: %s", err);
}

static void
audit_out(struct server_record *r, struct iperf_test *s,
    const struct audit_event *e)
{
	if (r->audit != NULL && audit_write(r->audit, e) == 1)
		report_warning(s, "--audit-log cannot be written (said once; "
		    "the server goes on; SIGHUP opens it again)");
}

static const char *
direction(const struct iperf_test *t)
{
	if (t->settings.bidirectional)
		return "bidir";
	return t->settings.reverse ? "reverse" : "forward";
}

/* What the test's parameters say, for a refused or finished test; the
 * caps it was clamped to (requested and applied), which the caller
 * frees (caps_free). */
static void
event_of_test(struct audit_event *e, struct iperf_test *t)
{
	e->source = &t->run.srv.peer_addr;
	e->server_port = test_server_port(t);
	e->protocol = t->proto != NULL ? t->proto->name : NULL;
	e->direction = direction(t);
	e->streams = test_total_streams(t);
	if (t->run.srv.caps_clamped) {
		e->requested = caps_requested_json(&t->run.srv.caps);
		e->applied = caps_applied_json(&t->run.srv.caps);
	}
}

static void
caps_free(struct audit_event *e)
{
	cJSON_Delete((cJSON *)(uintptr_t)e->requested);
	cJSON_Delete((cJSON *)(uintptr_t)e->applied);
}

/* The limits a failed test ran into, for the metrics. */
static const char *
limit_of(int code)
{
	switch (code) {
	case IEMAXSERVERTESTDURATIONEXCEEDED:
	case IESERVERTESTDURATIONEXPIRED:
		return "duration";
	case IETOTALRATE:
		return "bitrate";
	default:
		return NULL;
	}
}

enum gate_reason
record_refusal_reason(const struct iperf_test *t)
{
	return limit_of(t->run.err.code) != NULL ? GATE_CAPS : GATE_PARAMS;
}

void
record_refused(struct server_record *r, struct iperf_test *s,
    const struct sockaddr_storage *ss, int port, enum gate_reason why,
    struct iperf_test *t)
{
	struct audit_event e;
	char err[256];

	if (r->stats != NULL) {
		server_stats_refused(r->stats, gate_label(why));
		if (t != NULL && limit_of(t->run.err.code) != NULL)
			server_stats_limit_hit(r->stats,
			    limit_of(t->run.err.code));
	}
	if (r->audit == NULL)
		return;
	memset(&e, 0, sizeof(e));
	e.event = "refused";
	e.source = ss;
	e.server_port = port;
	e.streams = -1;
	e.seconds = -1;
	if (t != NULL) {
		event_of_test(&e, t);
		if (t->run.err.code != 0) {
			iperf_error_format(&t->run.err, err, sizeof(err));
			e.error = err;
		}
	}
	e.result = "refused";
	e.reason = gate_label(why);
	audit_out(r, s, &e);
	caps_free(&e);
}

void
record_started(struct server_record *r, struct iperf_test *t)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} caps[] = { { CAP_DURATION, "duration" }, { CAP_BYTES, "bytes" },
		{ CAP_STREAMS, "streams" }, { CAP_BITRATE, "bitrate" } };
	size_t i;

	if (r->stats == NULL)
		return;
	server_stats_test_started(r->stats,
	    t->proto != NULL ? t->proto->name : "TCP");
	/* each cap that clamped the test is a limit hit */
	for (i = 0; t->run.srv.caps_clamped && i < sizeof(caps) / sizeof(caps[0]);
	     i++)
		if (t->run.srv.caps.changed & caps[i].bit)
			server_stats_limit_hit(r->stats, caps[i].name);
}

/* Bytes this end sent and received on the test's streams. */
static void
count_bytes(struct iperf_test *t, uint64_t *sent, uint64_t *received)
{
	struct iperf_stream *sp;

	*sent = *received = 0;
	for (sp = t->run.streams; sp != NULL; sp = sp->next) {
		struct stream_live l;

		stream_snapshot(sp, &l);
		if (sp->sender)
			*sent += l.bytes;
		else
			*received += l.bytes;
	}
}

void
record_ended(struct server_record *r, struct iperf_test *s,
    struct iperf_test *t)
{
	struct audit_event e;
	char err[256];
	int failed = t->run.err.code != 0 || t->run.abort == ABORT_ERROR;

	memset(&e, 0, sizeof(e));
	event_of_test(&e, t);
	e.event = "test";
	e.seconds = t->run.start_us > 0 ?
	    (double)(iperf_time_now_us() - t->run.start_us) / 1e6 : 0;
	count_bytes(t, &e.bytes_sent, &e.bytes_received);
	e.result = failed ? "error" : "ok";
	if (failed) {
		iperf_error_format(&t->run.err, err, sizeof(err));
		e.error = err;
	}
	if (r->stats != NULL) {
		server_stats_test_ended(r->stats, e.protocol != NULL ? e.protocol :
		    "TCP", e.result, e.seconds, e.bytes_sent, e.bytes_received);
		if (failed && limit_of(t->run.err.code) != NULL)
			server_stats_limit_hit(r->stats,
			    limit_of(t->run.err.code));
	}
	audit_out(r, s, &e);
	caps_free(&e);
}
