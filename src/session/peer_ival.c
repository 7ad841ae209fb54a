/* peer_ival.c - our server's interval figures, live to our client (see
 * peer_ival.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ctrl.h"
#include "evloop.h"
#include "ext.h"
#include "iperf.h"
#include "iperf_error.h"
#include "json.h"
#include "params.h"
#include "peer_ival.h"
#include "report.h"
#include "stream.h"
#include "banned.h"

/* ---- server: the document ---------------------------------------------- */

static int
add_udp(cJSON *o, double jitter_ms, int64_t lost, int64_t packets)
{
	return cJSON_AddNumberToObject(o, "jitter_ms", jitter_ms) == NULL ||
	    cJSON_AddNumberToObject(o, "lost_packets", (double)lost) == NULL ||
	    cJSON_AddNumberToObject(o, "packets", (double)packets) == NULL ?
	    -1 : 0;
}

/* One stream's figures; 1 if it has none worth sending. */
static int
encode_stream(const struct iperf_stream *sp, cJSON *arr)
{
	const struct interval_result *ir = sp->last_interval;
	int udp = sp->datagram && !sp->sender, rc = 0;
	cJSON *o;

	if (ir == NULL || (!ir->has_rtt && !ir->has_delay && !udp))
		return 1;
	o = cJSON_CreateObject();
	if (o == NULL || !cJSON_AddItemToArray(arr, o)) {
		cJSON_Delete(o);
		return -1;
	}
	rc |= cJSON_AddNumberToObject(o, "id", sp->id) == NULL ? -1 : 0;
	if (ir->has_rtt)
		rc |= params_add_latsum(o, "rtt_us", &ir->rtt_dist);
	if (ir->has_delay)
		rc |= params_add_latsum(o, "delay_var_us", &ir->delay_dist);
	if (udp)
		rc |= add_udp(o, ir->jitter * 1000.0, ir->lost,
		    (int64_t)ir->packets);
	return rc;
}

/* The sum: RTT over the sending streams, the rest over the receiving. */
static int
encode_sum(const struct iperf_test *test, cJSON *o)
{
	const struct iperf_stream *sp;
	int64_t lost = 0, packets = 0;
	double jitter = 0;
	int n = 0, rc = 0;

	if (test->run.rtt_ival_sum_valid)
		rc |= params_add_latsum(o, "rtt_us", &test->run.rtt_ival_sum);
	if (test->run.delay_ival_sum_valid)
		rc |= params_add_latsum(o, "delay_var_us",
		    &test->run.delay_ival_sum);
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (!sp->datagram || sp->sender || sp->last_interval == NULL)
			continue;
		jitter += sp->last_interval->jitter;
		lost += sp->last_interval->lost;
		packets += (int64_t)sp->last_interval->packets;
		n++;
	}
	if (n > 0)
		rc |= add_udp(o, jitter / n * 1000.0, lost, packets);
	return rc;
}

static char *
encode_doc(const struct iperf_test *test)
{
	const struct iperf_stream *sp;
	cJSON *doc = cJSON_CreateObject(), *arr, *sum;
	char *txt = NULL;
	int rc = 0;

	if (doc == NULL)
		return NULL;
	arr = cJSON_AddArrayToObject(doc, "streams");
	sum = cJSON_AddObjectToObject(doc, "sum");
	if (cJSON_AddNumberToObject(doc, "i", test->run.ses.ival_n) == NULL ||
	    arr == NULL || sum == NULL)
		rc = -1;
	for (sp = test->run.streams; sp != NULL && rc == 0; sp = sp->next)
		rc = encode_stream(sp, arr) == -1 ? -1 : 0;
	if (rc == 0 && encode_sum(test, sum) == 0)
		txt = json_print_compact(doc);
	cJSON_Delete(doc);
	return txt;
}

/* A failed send shows on the control connection soon enough: the test
 * goes on without this interval's figures. */
static void
send_doc(struct iperf_test *test)
{
	char *txt = encode_doc(test);
	size_t len = txt != NULL ? strlen(txt) : 0;

	if (txt != NULL && len <= EXT_PEER_IVAL_MAX &&
	    ctrl_send_state(test->run.ses.ctrl_sck, EXT_STATE_PEER_IVAL) == 0)
		(void)ctrl_send_json(test->run.ses.ctrl_sck, txt, len);
	if (txt == NULL || len > EXT_PEER_IVAL_MAX)
		report_debug(test, 1, "interval figures for the client not "
		    "sent (%s)", txt == NULL ? "no memory" : "too big");
	free(txt);
}

/* ---- client: holding an interval back ---------------------------------- */

static void
report_held(struct iperf_test *test)
{
	if (!test->run.ses.ival_held)
		return;
	test->run.ses.ival_held = 0;
	evloop_cancel_timer(test->loop, &test->run.ses.pival_timer);
	test->reporter->interval(test);
}

static int
hold_cb(timer_id t, uint64_t now_us, void *arg)
{
	struct iperf_test *test = arg;

	(void)t;
	(void)now_us;
	test->run.ses.pival_timer = TIMER_NONE;
	report_held(test);
	return 0;
}

static int
client_wants(const struct iperf_test *test)
{
	return test->opt->role == 'c' &&
	    (ext_client_wants(test) & EXT_PEER_IVAL) != 0;
}

void
peer_ival_interval(struct iperf_test *test)
{
	struct run_session *ses = &test->run.ses;
	uint64_t wait = (uint64_t)(test->opt->stats_interval * 1e6 / 2);

	ses->ival_n++;
	if (test->opt->role == 's') {
		test->reporter->interval(test);
		if (test->settings.ext_want & EXT_PEER_IVAL)
			send_doc(test);
		return;
	}
	report_held(test);
	if (!client_wants(test) || ses->pival_i >= ses->ival_n) {
		test->reporter->interval(test);
		return;
	}
	if (wait > PEER_IVAL_MAX_WAIT_US)
		wait = PEER_IVAL_MAX_WAIT_US;
	ses->pival_timer = evloop_add_timer(test->loop, wait, 0, hold_cb,
	    test);
	if (ses->pival_timer == TIMER_NONE) {
		test->reporter->interval(test);
		return;
	}
	ses->ival_held = 1;
}

void
peer_ival_final(struct iperf_test *test)
{
	report_held(test);
	test->run.ses.ival_n++;
}

/* ---- client: the document ---------------------------------------------- */

int
peer_ival_state(struct iperf_test *test)
{
	if (!client_wants(test) || (test->run.state != TEST_RUNNING &&
	    test->run.state != TEST_END) || test->run.ses.pival_expect)
		return iperf_fail(test, IEMESSAGE, 0);
	test->run.ses.pival_expect = 1;
	test->run.ses.ctrl_fail_code = IEMESSAGE;
	return 0;
}

int
peer_ival_expected(const struct iperf_test *test)
{
	return test->run.ses.pival_expect;
}

static void
decode_fig(const cJSON *o, struct peer_fig *f)
{
	double j;

	memset(f, 0, sizeof(*f));
	f->has_rtt = params_decode_latsum(o, "rtt_us", &f->rtt);
	f->has_delay = params_decode_latsum(o, "delay_var_us", &f->delay);
	f->has_udp = json_get_double(o, "jitter_ms", &j) == JSON_OK &&
	    j >= 0 && j < 1e9 &&
	    json_get_i64(o, "lost_packets", INT64_MIN, INT64_MAX, &f->lost) ==
		JSON_OK &&
	    json_get_i64(o, "packets", 0, INT64_MAX, &f->packets) == JSON_OK;
	f->jitter_ms = f->has_udp ? j : 0;
}

static void
decode_streams(struct iperf_test *test, const cJSON *arr)
{
	struct iperf_stream *sp;
	const cJSON *s;
	int n = 0;

	for (sp = test->run.streams; sp != NULL; sp = sp->next)
		memset(&sp->pival, 0, sizeof(sp->pival));
	cJSON_ArrayForEach(s, arr) {
		int id;

		if (++n > 2 * IPERF_MAX_STREAMS)
			break;
		if (json_get_int(s, "id", 1, INT32_MAX, &id) != JSON_OK)
			continue;
		for (sp = test->run.streams; sp != NULL; sp = sp->next)
			if (sp->id == id)
				decode_fig(s, &sp->pival);
	}
}

int
peer_ival_on_doc(struct iperf_test *test, const char *json, size_t len)
{
	cJSON *doc = cJSON_ParseWithLength(json, len);
	int i;

	test->run.ses.pival_expect = 0;
	if (doc == NULL || json_get_int(doc, "i", 1, INT32_MAX, &i) != JSON_OK) {
		cJSON_Delete(doc);
		return iperf_fail(test, IEMESSAGE, 0);
	}
	decode_streams(test, cJSON_GetObjectItemCaseSensitive(doc, "streams"));
	decode_fig(cJSON_GetObjectItemCaseSensitive(doc, "sum"),
	    &test->run.ses.pival_sum);
	test->run.ses.pival_i = i;
	cJSON_Delete(doc);
	if (test->run.ses.ival_held && i >= test->run.ses.ival_n)
		report_held(test);
	return 0;
}
