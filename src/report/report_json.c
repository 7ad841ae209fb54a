/*
 * report_json.c - the JSON reporter (-J) and its --json-stream variant
 * (docs/iperf3-json.schema.json): builds the document as the test goes,
 * emits it at finish (pretty), or emits one compact event line per step.
 * The CLI's -J writes it as the run goes instead (report_json_doc.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "test.h"
#include "iperf_time.h"
#include "proto_ops.h"
#include "report.h"
#include "report_calc.h"
#include "report_int.h"
#include "stream.h"
#include "util.h"
#include "banned.h"

/* Write one JSON text (a document or an event line) to the output. */
static void
emit_text(struct iperf_test *test, char *text)
{
	if (test->json_callback != NULL) {
		test->json_callback(test, text);
		return;
	}
	if (test->outfile == NULL)
		return;
	pthread_mutex_lock(test->out_lock);
	(void)fprintf(test->outfile, "%s\n", text);
	(void)fflush(test->outfile);
	pthread_mutex_unlock(test->out_lock);
}

/* --json-stream: {"event":name,"data":data} on one line; data not owned. */
static void
emit_event(struct iperf_test *test, const char *name, cJSON *data)
{
	cJSON *ev = cJSON_CreateObject();
	char *line;

	if (ev == NULL)
		return;
	/* A --max-tests server's events name their test ("test": n). */
	if (cJSON_AddStringToObject(ev, "event", name) != NULL &&
	    (test->tag <= 0 ||
		cJSON_AddNumberToObject(ev, "test", test->tag) != NULL) &&
	    cJSON_AddItemReferenceToObject(ev, "data", data)) {
		line = cJSON_PrintUnformatted(ev);
		if (line != NULL) {
			emit_text(test, line);
			cJSON_free(line);
		}
	}
	cJSON_Delete(ev);
}

static cJSON *
add_object(cJSON *parent, const char *key)
{
	return parent != NULL ? cJSON_AddObjectToObject(parent, key) : NULL;
}

static void
add_num(cJSON *o, const char *key, double v)
{
	if (o != NULL)
		(void)cJSON_AddNumberToObject(o, key, v);
}

static void
add_str(cJSON *o, const char *key, const char *v)
{
	if (o != NULL && v != NULL)
		(void)cJSON_AddStringToObject(o, key, v);
}

/* start.implementation (ours; stock has no such key): which program made
 * the document, since "version" says "iperf 3.21" as stock does. */
static void
add_implementation(cJSON *start, const struct iperf_test *test)
{
	cJSON *o = add_object(start, "implementation");

	add_str(o, "name", PACKAGE_NAME);
	add_str(o, "version", PACKAGE_VERSION);
	/* A --max-tests server's document says which of its tests it is
	 * (the n of its [T<n>] text lines). */
	if (o != NULL && test->tag > 0)
		(void)cJSON_AddNumberToObject(o, "server_test", test->tag);
}

static void
json_begin(struct iperf_test *test)
{
	char info[512];

	test->run.start_wall_ms = 0;
	cJSON_Delete(test->run.rep.json_top);
	test->run.rep.json_top = cJSON_CreateObject();
	test->run.rep.json_start = add_object(test->run.rep.json_top, "start");
	test->run.rep.json_connected = test->run.rep.json_start != NULL ?
	    cJSON_AddArrayToObject(test->run.rep.json_start, "connected") : NULL;
	get_system_info(info, sizeof(info));
	add_str(test->run.rep.json_start, "version", REPORT_VERSION_TEXT);
	add_str(test->run.rep.json_start, "system_info", info);
	add_implementation(test->run.rep.json_start, test);
	test->run.rep.json_intervals = test->run.rep.json_top != NULL ?
	    cJSON_AddArrayToObject(test->run.rep.json_top, "intervals") : NULL;
	test->run.rep.json_end = add_object(test->run.rep.json_top, "end");
}

static void
add_buffer_sizes(struct iperf_test *test)
{
	if (report_is_sctp(test))
		return;
	add_num(test->run.rep.json_start, "sock_bufsize",
	    test->settings.socket_bufsize);
	add_num(test->run.rep.json_start, "sndbuf_actual", test->run.sndbuf_actual);
	add_num(test->run.rep.json_start, "rcvbuf_actual", test->run.rcvbuf_actual);
}

/* Server: parameters accepted (3.21 puts these before the timestamp). */
static void
json_on_params(struct iperf_test *test)
{
	if (test->settings.rate != 0)
		add_num(test->run.rep.json_start, "target_bitrate",
		    (double)test->settings.rate);
	if (!report_is_datagram(test))
		add_buffer_sizes(test);
}

static void
add_timestamp(struct iperf_test *test)
{
	cJSON *ts = add_object(test->run.rep.json_start, "timestamp");
	char when[64];
	time_t secs;
	uint64_t ms;

	report_wall_time(test, &secs, &ms);
	iperf_time_rfc1123(secs, when, sizeof(when));
	add_str(ts, "time", when);
	add_num(ts, "timesecs", (double)secs);
	add_num(ts, "timemillisecs", (double)ms);
}

static void
json_on_connect(struct iperf_test *test)
{
	int client = test->opt->role == 'c';
	cJSON *peer;

	add_timestamp(test);
	peer = add_object(test->run.rep.json_start,
	    client ? "connecting_to" : "accepted_connection");
	add_str(peer, "host", client ? test->opt->server_hostname :
	    test->run.srv.peer_host);
	add_num(peer, "port", client ? test->opt->server_port : test->run.srv.peer_port);
#ifdef HAVE_OPERATOR
	/* a dispatcher's test: the port it was reached on (of a -p range) */
	if (!client && test->listen_port > 0)
		add_num(test->run.rep.json_start, "server_port",
		    test->listen_port);
#endif
	add_str(test->run.rep.json_start, "cookie", test->run.cookie);
	if (!report_is_datagram(test) && !report_is_sctp(test)) {
		if (test->settings.mss > 0)
			add_num(test->run.rep.json_start, "tcp_mss",
			    test->settings.mss);
		else
			add_num(test->run.rep.json_start, "tcp_mss_default",
			    client ? test->run.cli.ctrl_mss : 0);
	}
	add_num(test->run.rep.json_start, "target_bitrate",
	    (double)test->settings.rate);
	add_num(test->run.rep.json_start, "fq_rate", (double)test->settings.fqrate);
#ifdef HAVE_MULTICAST
	/* --multicast (ours): the group, as both ends use it */
	if (test->settings.mcast_group != NULL) {
		cJSON *m = add_object(test->run.rep.json_start, "multicast");
		char id[20];

		(void)snprintf(id, sizeof(id), "%016llx",
		    (unsigned long long)test->settings.mcast_test_id);
		add_str(m, "group", test->settings.mcast_group);
		add_num(m, "port", client ? test->opt->server_port :
		    test_server_port(test));
		add_num(m, "ttl", test->settings.mcast_ttl);
		if (test->settings.mcast_source != NULL)
			add_str(m, "ssm_source", test->settings.mcast_source);
		add_str(m, "test_id", id);
	}
#endif
}

static void
json_on_new_stream(struct iperf_stream *sp)
{
	cJSON *c;

	if (sp->test->run.rep.json_connected == NULL)
		return;
	c = report_json_connected(sp);
	if (c != NULL && !cJSON_AddItemToArray(sp->test->run.rep.json_connected, c))
		cJSON_Delete(c);
}

static void
json_on_test_start(struct iperf_test *test)
{
	cJSON *ts;

	if (test->opt->role == 'c' || report_is_datagram(test))
		add_buffer_sizes(test);
	/* Ours: whether the UDP streams run with GSO/GRO (ext.h). */
	if (report_is_datagram(test) && test->run.rep.json_start != NULL) {
		cJSON *impl = cJSON_GetObjectItemCaseSensitive(
		    test->run.rep.json_start, "implementation");

		if (impl != NULL)
			(void)cJSON_AddBoolToObject(impl, "udp_offload",
			    test->run.udp_offload || test->settings.gso ||
			    test->settings.gro);
	}
	ts = report_json_test_start(test);
	if (ts != NULL && (test->run.rep.json_start == NULL ||
	    !cJSON_AddItemToObject(test->run.rep.json_start, "test_start", ts)))
		cJSON_Delete(ts);
	if (test->opt->json_stream && test->run.rep.json_start != NULL)
		emit_event(test, "start", test->run.rep.json_start);
}

/* json-stream without full output keeps no intervals, unless a server
 * has to hand its whole document to the client. */
static int
keep_intervals(const struct iperf_test *test)
{
	return !test->opt->json_stream || test->opt->json_stream_full_output ||
	    (test->opt->role == 's' && test->settings.get_server_output);
}

static void
json_interval(struct iperf_test *test)
{
	cJSON *iv = report_json_interval(test);

	if (iv == NULL)
		return;
	if (test->opt->json_stream)
		emit_event(test, "interval", iv);
	/* The CLI's -J: written now, not kept (report_json_doc.c). */
	if (test->run.rep.json_doc_state == 1 || report_json_doc_wanted(test)) {
		report_json_doc_interval(test, iv);
		if (!report_json_doc_copy_wanted()) {
			cJSON_Delete(iv);
			return;
		}
	}
	if (keep_intervals(test) && test->run.rep.json_intervals != NULL &&
	    cJSON_AddItemToArray(test->run.rep.json_intervals, iv))
		return;
	cJSON_Delete(iv);
}

static void
json_summary(struct iperf_test *test)
{
	cJSON *end;

	if (test->run.rep.json_top == NULL)
		return;
	end = report_json_end(test);
	if (end == NULL)
		return;
	if (cJSON_GetObjectItemCaseSensitive(test->run.rep.json_top, "end") != NULL) {
		if (cJSON_ReplaceItemInObjectCaseSensitive(test->run.rep.json_top,
		    "end", end)) {
			test->run.rep.json_end = end;
			return;
		}
	} else if (cJSON_AddItemToObject(test->run.rep.json_top, "end", end)) {
		test->run.rep.json_end = end;
		return;
	}
	cJSON_Delete(end);
}

/* title, extra_data, server_output_json, server_output_text */
static void
add_trailer(struct iperf_test *test)
{
	cJSON *copy;

	add_str(test->run.rep.json_top, "title", test->settings.title);
	add_str(test->run.rep.json_top, "extra_data", test->settings.extra_data);
	if (test->opt->role != 'c' || !test->settings.get_server_output)
		return;
	if (test->run.ses.json_server_output != NULL) {
		copy = cJSON_Duplicate(test->run.ses.json_server_output, 1);
		if (copy != NULL && !cJSON_AddItemToObject(test->run.rep.json_top,
		    "server_output_json", copy))
			cJSON_Delete(copy);
	}
	add_str(test->run.rep.json_top, "server_output_text",
	    test->run.ses.server_output_text);
}

static void
emit_document(struct iperf_test *test)
{
	free(test->run.rep.json_output_string);
	test->run.rep.json_output_string = cJSON_Print(test->run.rep.json_top);
	if (test->run.rep.json_output_string != NULL)
		emit_text(test, test->run.rep.json_output_string);
}

/* --json-stream closing events: error (first only), server output, end. */
static void
emit_closing_events(struct iperf_test *test)
{
	cJSON *err = cJSON_GetObjectItemCaseSensitive(test->run.rep.json_top, "error");
	cJSON *empty = NULL;

	if (err != NULL)
		emit_event(test, "error", err);
	if (test->opt->role == 'c' && test->settings.get_server_output) {
		if (test->run.ses.json_server_output != NULL)
			emit_event(test, "server_output_json",
			    test->run.ses.json_server_output);
		else if (test->run.ses.server_output_text != NULL) {
			cJSON *t = cJSON_CreateString(test->run.ses.server_output_text);
			if (t != NULL)
				emit_event(test, "server_output_text", t);
			cJSON_Delete(t);
		}
	}
	if (test->run.rep.json_end == NULL)
		empty = cJSON_CreateObject();
	emit_event(test, "end", test->run.rep.json_end != NULL ? test->run.rep.json_end : empty);
	cJSON_Delete(empty);
}

static void
json_finish(struct iperf_test *test)
{
	if (test->run.rep.json_top == NULL)
		return;
	if (test->opt->json_stream)
		emit_closing_events(test);
	add_trailer(test);
	if (report_json_doc_finish(test))
		return;
	if (!test->opt->json_stream || test->opt->json_stream_full_output)
		emit_document(test);
}

static void
json_error(struct iperf_test *test, const char *msg)
{
	cJSON *s;

	if (test->run.rep.json_top == NULL) {
		report_text.error(test, msg);
		return;
	}
	s = cJSON_CreateString(msg);
	if (s != NULL && !cJSON_AddItemToObject(test->run.rep.json_top, "error", s))
		cJSON_Delete(s);
}

static void
nop_test(struct iperf_test *test)
{
	(void)test;
}

const struct report_ops report_json = {
	.begin = json_begin,
	.server_listening = nop_test,
	.on_params = json_on_params,
	.on_connect = json_on_connect,
	.on_new_stream = json_on_new_stream,
	.on_test_start = json_on_test_start,
	.interval = json_interval,
	.summary = json_summary,
	.finish = json_finish,
	.error = json_error,
};
