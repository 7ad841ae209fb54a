/*
 * report_mcast.c - a --multicast-listen receiver's output (see
 * report_mcast.h): text in the layout of a stock UDP receiver's report,
 * each row followed by its one-way delay; with -J one document per test.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "mcast_acct.h"
#include "report.h"
#include "report_mcast.h"
#include "report_rows.h"
#include "banned.h"

#define MCAST_ROW_ID 1
#define MCAST_RULE "-----------------------------------------------------------"
#define MCAST_HEADER "[ ID] Interval           Transfer     Bitrate" \
	"         Jitter    Lost/Total Datagrams"
#define MCAST_OWD_NOTE "one-way delay from the sender's clock: the " \
	"clocks are assumed synchronised (no offset measured)"

struct mcast_report {
	struct iperf_test *test;
	int json;
	cJSON *doc;       /* -J: the test's document */
	cJSON *intervals; /* its "intervals" array */
	int header_done;  /* text: the interval header was printed */
};

void
mcast_report_listening(struct iperf_test *test, const char *group, int port,
    const char *interface)
{
	if (test->opt->json_output)
		return;
	iperf_printf(test, "%s\n", MCAST_RULE);
	iperf_printf(test, "Multicast listener on %s port %d%s%s%s\n", group,
	    port, interface != NULL ? " (interface " : "",
	    interface != NULL ? interface : "", interface != NULL ? ")" : "");
	iperf_printf(test, "%s\n", MCAST_RULE);
	report_flush(test);
}

static void
doc_write(struct iperf_test *test, cJSON *doc)
{
	char *text = cJSON_Print(doc);

	if (text == NULL)
		return;
	report_write_plain(test, text, strlen(text));
	report_write_plain(test, "\n", 1);
	report_flush(test);
	free(text);
}

void
mcast_report_error(struct iperf_test *test, const char *msg)
{
	char line[600];
	cJSON *doc;

	if (!test->opt->json_output) {
		(void)snprintf(line, sizeof(line), "error - %s", msg);
		report_text.error(test, line);
		return;
	}
	doc = cJSON_CreateObject();
	if (doc != NULL && cJSON_AddStringToObject(doc, "error", msg) != NULL)
		doc_write(test, doc);
	cJSON_Delete(doc);
}

static void
text_start(struct iperf_test *test, const struct mcast_test_info *i)
{
	iperf_printf(test, "Test %016" PRIx64 " from %s port %d to %s port %d"
	    ", planned %.2f sec; join latency %.3f ms\n", i->test_id,
	    i->sender, i->sender_port, i->group, i->port,
	    (double)i->duration_ms / 1000.0, i->join_latency_ms);
	if (i->joined_late)
		iperf_printf(test, "Joined late: counting from datagram %" PRIu64
		    "\n", i->first_seq);
	iperf_printf(test, "Note: %s\n", MCAST_OWD_NOTE);
	report_flush(test);
}

static cJSON *
json_start(const struct mcast_test_info *i)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON *start = cJSON_AddObjectToObject(doc, "start");
	cJSON *m = cJSON_AddObjectToObject(start, "multicast");
	char id[24];

	if (m == NULL) {
		cJSON_Delete(doc);
		return NULL;
	}
	(void)snprintf(id, sizeof(id), "%016" PRIx64, i->test_id);
	(void)cJSON_AddStringToObject(m, "group", i->group);
	(void)cJSON_AddNumberToObject(m, "port", i->port);
	(void)cJSON_AddStringToObject(m, "sender", i->sender);
	(void)cJSON_AddNumberToObject(m, "sender_port", i->sender_port);
	(void)cJSON_AddStringToObject(m, "test_id", id);
	(void)cJSON_AddNumberToObject(m, "start_us", (double)i->start_us);
	(void)cJSON_AddNumberToObject(m, "duration_ms", i->duration_ms);
	(void)cJSON_AddNumberToObject(m, "join_latency_ms", i->join_latency_ms);
	(void)cJSON_AddBoolToObject(m, "joined_late", i->joined_late);
	(void)cJSON_AddNumberToObject(m, "first_seq", (double)i->first_seq);
	(void)cJSON_AddBoolToObject(m, "counters_64bit", i->counters64);
	if (i->interface != NULL)
		(void)cJSON_AddStringToObject(m, "interface", i->interface);
	(void)cJSON_AddStringToObject(m, "owd_clock",
	    "sender clock assumed synchronised, no offset measured");
	if (cJSON_AddArrayToObject(doc, "intervals") == NULL) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

struct mcast_report *
mcast_report_start(struct iperf_test *test, const struct mcast_test_info *info)
{
	struct mcast_report *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->test = test;
	r->json = test->opt->json_output;
	if (!r->json) {
		text_start(test, info);
		return r;
	}
	r->doc = json_start(info);
	if (r->doc == NULL) {
		free(r);
		return NULL;
	}
	r->intervals = cJSON_GetObjectItemCaseSensitive(r->doc, "intervals");
	return r;
}

static cJSON *
json_sum(double start, double end, const struct mcast_stats *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *owd;
	double secs = end - start;

	if (o == NULL)
		return NULL;
	(void)cJSON_AddNumberToObject(o, "start", start);
	(void)cJSON_AddNumberToObject(o, "end", end);
	(void)cJSON_AddNumberToObject(o, "seconds", secs);
	(void)cJSON_AddNumberToObject(o, "bytes", (double)s->bytes);
	(void)cJSON_AddNumberToObject(o, "bits_per_second",
	    secs > 0 ? (double)s->bytes * 8.0 / secs : 0.0);
	(void)cJSON_AddNumberToObject(o, "jitter_ms", s->jitter_ms);
	(void)cJSON_AddNumberToObject(o, "lost_packets", (double)s->lost);
	(void)cJSON_AddNumberToObject(o, "packets", (double)s->packets);
	(void)cJSON_AddNumberToObject(o, "lost_percent",
	    mcast_stats_lost_percent(s));
	(void)cJSON_AddNumberToObject(o, "out_of_order", (double)s->ooo);
	(void)cJSON_AddNumberToObject(o, "received_packets",
	    (double)s->received);
	owd = cJSON_AddObjectToObject(o, "owd_ms");
	(void)cJSON_AddNumberToObject(owd, "min", s->owd_min_ms);
	(void)cJSON_AddNumberToObject(owd, "mean", mcast_stats_owd_mean_ms(s));
	(void)cJSON_AddNumberToObject(owd, "max", s->owd_max_ms);
	(void)cJSON_AddNumberToObject(owd, "samples", (double)s->owd_n);
	return o;
}

/* The row of a span in the stock UDP receiver's layout. */
static void
text_row(struct iperf_test *test, double start, double end,
    const struct mcast_stats *s, const char *tail)
{
	struct report_row row;
	char line[REPORT_LINE_LEN];

	memset(&row, 0, sizeof(row));
	row.id = MCAST_ROW_ID;
	row.role = "";
	row.start = start;
	row.end = end;
	row.bytes = (double)s->bytes;
	row.seconds = end - start;
	row.fmt = test->opt->unit_format;
	row.tail = tail;
	row.jitter_ms = s->jitter_ms;
	row.lost = s->lost;
	row.packets = s->packets;
	(void)report_fmt_row(line, sizeof(line), ROW_UDP_LOSS, &row);
	iperf_printf(test, "%s", line);
}

/* "0.051/0.080/0.203 ms", or "-" without a sample. */
static void
owd_text(char *buf, size_t len, const struct mcast_stats *s)
{
	if (s->owd_n == 0)
		(void)snprintf(buf, len, "-");
	else
		(void)snprintf(buf, len, "%.3f/%.3f/%.3f ms", s->owd_min_ms,
		    mcast_stats_owd_mean_ms(s), s->owd_max_ms);
}

void
mcast_report_interval(struct mcast_report *r, double start, double end,
    const struct mcast_stats *s)
{
	char owd[96];
	cJSON *iv, *sum;

	if (r == NULL)
		return;
	if (r->json) {
		iv = cJSON_CreateObject();
		sum = json_sum(start, end, s);
		if (iv == NULL || sum == NULL ||
		    !cJSON_AddItemToObject(iv, "sum", sum) ||
		    !cJSON_AddItemToArray(r->intervals, iv)) {
			cJSON_Delete(iv);
			cJSON_Delete(sum);
		}
		return;
	}
	if (!r->header_done) {
		iperf_printf(r->test, "%s  One-way delay min/mean/max\n",
		    MCAST_HEADER);
		r->header_done = 1;
	}
	owd_text(owd, sizeof(owd), s);
	text_row(r->test, start, end, s, owd);
	report_flush(r->test);
}

static void
text_end(struct mcast_report *r, double secs, const struct mcast_stats *t,
    const struct mcast_end_info *e)
{
	struct iperf_test *test = r->test;
	char owd[96];

	iperf_printf(test, "- - - - - - - - - - - - - - - - - - - - - - - - -\n");
	iperf_printf(test, "%s\n", MCAST_HEADER);
	text_row(test, 0.0, secs, t, "receiver");
	owd_text(owd, sizeof(owd), t);
	iperf_printf(test, "[%3d] one-way delay min/mean/max %s (clocks "
	    "assumed synchronised)\n", MCAST_ROW_ID, owd);
	if (t->ooo > 0)
		iperf_printf(test, "[%3d] %" PRIu64 " datagrams received "
		    "out-of-order\n", MCAST_ROW_ID, t->ooo);
	if (e->foreign > 0)
		iperf_printf(test, "[%3d] %" PRIu64 " datagrams of no test (or of "
		    "another one) ignored since the listener started\n",
		    MCAST_ROW_ID, e->foreign);
	if (e->end_marker)
		iperf_printf(test, "End marker: the sender sent %" PRIu64
		    " datagrams, %" PRIu64 " bytes\n", e->sender_packets,
		    e->sender_bytes);
	else
		iperf_printf(test, "Left early / no end marker: %s; the "
		    "datagrams lost at the end are not counted\n",
		    e->interrupted ? "the listener was interrupted" :
				     "the test timed out");
	report_flush(test);
}

void
mcast_report_end(struct mcast_report *r, double secs,
    const struct mcast_stats *total, const struct mcast_end_info *e)
{
	cJSON *end, *sum;

	if (r == NULL)
		return;
	if (!r->json) {
		text_end(r, secs, total, e);
		free(r);
		return;
	}
	end = cJSON_AddObjectToObject(r->doc, "end");
	sum = json_sum(0.0, secs, total);
	if (end != NULL && sum != NULL && cJSON_AddItemToObject(end, "sum", sum)) {
		(void)cJSON_AddBoolToObject(end, "end_marker", e->end_marker);
		(void)cJSON_AddBoolToObject(end, "left_early", e->left_early);
		(void)cJSON_AddBoolToObject(end, "interrupted", e->interrupted);
		(void)cJSON_AddNumberToObject(end, "sender_packets",
		    (double)e->sender_packets);
		(void)cJSON_AddNumberToObject(end, "sender_bytes",
		    (double)e->sender_bytes);
		(void)cJSON_AddNumberToObject(end, "foreign_datagrams",
		    (double)e->foreign);
	} else {
		cJSON_Delete(sum);
	}
	doc_write(r->test, r->doc);
	cJSON_Delete(r->doc);
	free(r);
}
