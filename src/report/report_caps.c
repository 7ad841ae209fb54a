/* report_caps.c - the server's caps in the output (see the header). */
#include "config.h"

#include <stdio.h>

#include <cjson/cJSON.h>

#include "caps.h"
#include "iperf.h"
#include "report.h"
#include "report_caps.h"
#include "units.h"
#include "banned.h"

static void
set_num(cJSON *o, const char *key, double v)
{
	cJSON *n = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsNumber(n))
		cJSON_SetNumberValue(n, v);
}

static void
json_caps(struct iperf_test *test, const cJSON *doc)
{
	cJSON *start = test->run.rep.json_start;
	cJSON *copy;

	if (start == NULL || doc == NULL)
		return;
	copy = cJSON_Duplicate(doc, 1);
	if (copy != NULL && !cJSON_AddItemToObject(start, "server_caps", copy))
		cJSON_Delete(copy);
	set_num(start, "target_bitrate", (double)test->settings.rate);
	set_num(start, "fq_rate", (double)test->settings.fqrate);
}

/* A value as the line shows it: seconds, bytes, streams or bits/s. */
static void
fmt_value(char *buf, size_t len, unsigned int bit, uint64_t v)
{
	char pad[64];
	const char *u = pad;

	switch (bit) {
	case CAP_DURATION:
		if (v == 0)
			(void)snprintf(buf, len, "untimed");
		else
			(void)snprintf(buf, len, "%llu s", (unsigned long long)v);
		break;
	case CAP_BYTES:
		units_format(pad, sizeof(pad), (double)v, 'A');
		while (*u == ' ')
			u++;
		if (v == 0)
			(void)snprintf(buf, len, "unbounded");
		else
			(void)snprintf(buf, len, "%ss", u);
		break;
	case CAP_BITRATE:
		units_format(pad, sizeof(pad), (double)v / 8.0, 'a');
		while (*u == ' ')
			u++;
		if (v == 0)
			(void)snprintf(buf, len, "unlimited");
		else
			(void)snprintf(buf, len, "%ss/sec", u);
		break;
	default:
		(void)snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	}
}

static void
text_line(struct iperf_test *test, const char *what, const char *option,
    unsigned int bit, const struct cap_value *v)
{
	char req[80], app[80], lim[80];

	fmt_value(req, sizeof(req), bit, v->requested);
	fmt_value(app, sizeof(app), bit, v->applied);
	/* the limit as the option is given */
	if (bit == CAP_DURATION)
		(void)snprintf(lim, sizeof(lim), "%llu",
		    (unsigned long long)v->limit);
	else
		fmt_value(lim, sizeof(lim), bit, v->limit);
	(void)iperf_printf(test, "Server cap: %s %s -> %s (server %s %s)\n",
	    what, req, app, option, lim);
}

static void
text_caps(struct iperf_test *test, const struct server_caps *c)
{
	if (c->changed & CAP_DURATION)
		text_line(test, "duration", "--server-max-duration",
		    CAP_DURATION, &c->duration);
	if (c->changed & CAP_STREAMS)
		text_line(test, "streams", "--server-max-streams", CAP_STREAMS,
		    &c->streams);
	if (c->changed & CAP_BITRATE)
		text_line(test, "bitrate", "--server-bitrate-limit",
		    CAP_BITRATE, &c->bitrate);
	if (c->changed & CAP_BYTES)
		text_line(test, "bytes", "--server-max-bytes", CAP_BYTES,
		    &c->bytes);
	if (c->omit_requested != c->omit_applied)
		(void)iperf_printf(test, "Server cap: omit %d s -> %d s (within "
		    "the caps)\n", c->omit_requested, c->omit_applied);
}

void
report_server_caps(struct iperf_test *test, const struct server_caps *c,
    const cJSON *doc)
{
	if (test->opt->json_output) {
		json_caps(test, doc);
		return;
	}
	if (test->opt->role == 'c' && !test->opt->csv)
		text_caps(test, c);
}
