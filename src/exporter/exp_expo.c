/*
 * exp_expo.c - the text exposition format (exp_expo.h) and /probe's
 * answer.  The figures come from the client's JSON result document:
 * sent from end.sum_sent (the sending host's counts), received from
 * end.sum_received (the receiving host's), whichever end the client is;
 * iperf3_exporter's names first, then what only we measure.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "exp_expo.h"
#include "json.h"
#include "banned.h"

#define BUF_FIRST 2048
#define LABELS_MAX 600

void
exp_buf_init(struct exp_buf *b)
{
	memset(b, 0, sizeof(*b));
}

static void
buf_free(struct exp_buf *b)
{
	free(b->p);
	exp_buf_init(b);
}

static int
buf_room(struct exp_buf *b, size_t need)
{
	size_t cap = b->cap != 0 ? b->cap : BUF_FIRST;
	char *p;

	if (b->failed)
		return -1;
	if (b->len + need < b->cap)
		return 0;
	while (cap <= b->len + need)
		cap *= 2;
	p = realloc(b->p, cap);
	if (p == NULL) {
		b->failed = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void
exp_buf_printf(struct exp_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_room(b, (size_t)n + 1) == -1)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *
exp_buf_take(struct exp_buf *b, size_t *len)
{
	char *p;

	if (buf_room(b, 1) == -1) {
		buf_free(b);
		return NULL;
	}
	b->p[b->len] = '\0';
	p = b->p;
	*len = b->len;
	exp_buf_init(b);
	return p;
}

void
exp_family(struct exp_buf *b, const char *name, const char *type,
    const char *help)
{
	exp_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void
exp_sample(struct exp_buf *b, const char *name, const char *labels, double v)
{
	char num[40];
	int prec;

	if (isnan(v))
		(void)snprintf(num, sizeof(num), "NaN");
	else if (isinf(v))
		(void)snprintf(num, sizeof(num), "%sInf", v > 0 ? "+" : "-");
	else
		for (prec = 15; prec <= 17; prec++) {
			(void)snprintf(num, sizeof(num), "%.*g", prec, v);
			if (strtod(num, NULL) == v)
				break;
		}
	exp_buf_printf(b, "%s%s%s%s %s\n", name, labels[0] != '\0' ? "{" : "",
	    labels, labels[0] != '\0' ? "}" : "", num);
}

/* A label value with \\, \" and \n escaped (no quotes added). */
static void
label_value(struct exp_buf *b, const char *v)
{
	const char *run = v;

	for (; *v != '\0'; v++) {
		if (*v != '\\' && *v != '"' && *v != '\n')
			continue;
		exp_buf_printf(b, "%.*s\\%c", (int)(v - run), run,
		    *v == '\n' ? 'n' : *v);
		run = v + 1;
	}
	exp_buf_printf(b, "%s", run);
}

/* ---- /probe -------------------------------------------------------------- */

enum fig_when { FIG_ALL, FIG_TCP, FIG_UDP };

/* A gauge read from end.<sum>.<key> (0 when the key is missing, as
 * iperf3_exporter's zero values). */
static const struct fig {
	const char *name, *help;
	int received; /* end.sum_received, else end.sum_sent */
	const char *key;
	enum fig_when when;
} figs[] = {
	{ "iperf3_sent_seconds", "Total seconds spent sending packets.", 0,
	    "seconds", FIG_ALL },
	{ "iperf3_sent_bytes", "Total sent bytes.", 0, "bytes", FIG_ALL },
	{ "iperf3_received_seconds", "Total seconds spent receiving packets.",
	    1, "seconds", FIG_ALL },
	{ "iperf3_received_bytes", "Total received bytes.", 1, "bytes",
	    FIG_ALL },
	{ "iperf3_retransmits", "Total retransmits for the last test run.", 0,
	    "retransmits", FIG_TCP },
	{ "iperf3_sent_packets", "Total sent packets.", 0, "packets", FIG_UDP },
	{ "iperf3_sent_jitter_ms", "Jitter in milliseconds of the sent "
	    "packets, as the sender counts it.", 0, "jitter_ms", FIG_UDP },
	{ "iperf3_sent_lost_packets", "Lost packets, as the sender counts "
	    "them.", 0, "lost_packets", FIG_UDP },
	{ "iperf3_sent_lost_percent", "Percentage of packets lost, as the "
	    "sender counts them.", 0, "lost_percent", FIG_UDP },
	{ "iperf3_received_packets", "Total received packets.", 1, "packets",
	    FIG_UDP },
	{ "iperf3_received_jitter_ms", "Jitter in milliseconds of the "
	    "received packets.", 1, "jitter_ms", FIG_UDP },
	{ "iperf3_received_lost_packets", "Lost packets, as the receiver "
	    "counts them.", 1, "lost_packets", FIG_UDP },
	{ "iperf3_received_lost_percent", "Percentage of packets lost, as the "
	    "receiver counts them.", 1, "lost_percent", FIG_UDP },
};

/* Our distributions (microseconds) as summaries in seconds, as
 * --metrics writes the round trips (report_metrics.c). */
static const struct quant {
	const char *key, *q;
} quants[] = {
	{ "p50", "0.5" }, { "p90", "0.9" }, { "p99", "0.99" },
};

struct probe_doc {
	cJSON *root;
	const cJSON *sent, *received, *stream0;
};

/* The document's parts, or -1 when it does not describe a finished
 * test. */
static int
doc_open(struct probe_doc *d, const char *json)
{
	const cJSON *end, *streams;

	memset(d, 0, sizeof(*d));
	if (json == NULL || (d->root = cJSON_Parse(json)) == NULL)
		return -1;
	end = cJSON_GetObjectItemCaseSensitive(d->root, "end");
	d->sent = cJSON_GetObjectItemCaseSensitive(end, "sum_sent");
	d->received = cJSON_GetObjectItemCaseSensitive(end, "sum_received");
	streams = cJSON_GetObjectItemCaseSensitive(end, "streams");
	d->stream0 = cJSON_IsArray(streams) ? cJSON_GetArrayItem(streams, 0) :
	    NULL;
	if (cJSON_GetObjectItemCaseSensitive(d->root, "error") != NULL ||
	    !cJSON_IsObject(d->sent) || !cJSON_IsObject(d->received))
		return -1;
	return 0;
}

static double
num(const cJSON *o, const char *key)
{
	double v = 0;

	return json_get_double(o, key, &v) == JSON_OK ? v : 0;
}

/* name{labels,quantile="q"} for each quantile of the microseconds in
 * dist, and name_count (nothing when dist has no samples). */
static void
write_summary(struct exp_buf *b, const char *name, const char *help,
    const char *labels, const cJSON *dist)
{
	char l[LABELS_MAX + 32], count[64];
	double v, n;
	size_t i;

	if (json_get_double(dist, "samples", &n) != JSON_OK || !(n > 0))
		return;
	exp_family(b, name, "summary", help);
	for (i = 0; i < sizeof(quants) / sizeof(quants[0]); i++) {
		if (json_get_double(dist, quants[i].key, &v) != JSON_OK)
			continue;
		(void)snprintf(l, sizeof(l), "%s,quantile=\"%s\"", labels,
		    quants[i].q);
		exp_sample(b, name, l, v / 1e6);
	}
	(void)snprintf(count, sizeof(count), "%s_count", name);
	exp_sample(b, count, labels, n);
}

/* What only we measure, when the document has it (the names of
 * --metrics where it has the figure). */
static void
write_ours(struct exp_buf *b, const struct exp_probe_view *v,
    const struct probe_doc *d, const char *labels)
{
	const cJSON *udp = cJSON_GetObjectItemCaseSensitive(d->stream0, "udp");
	double lost;

	if (!v->udp)
		write_summary(b, "iperf3_rtt_seconds", "TCP round trips the "
		    "sender sampled (quantiles).", labels,
		    cJSON_GetObjectItemCaseSensitive(d->sent, "rtt_us"));
	if (v->udp)
		write_summary(b, "iperf3_udp_delay_variation_seconds", "One-way "
		    "delay variation of the received datagrams, above the "
		    "smallest transit (quantiles).", labels,
		    cJSON_GetObjectItemCaseSensitive(udp, "delay_var_us"));
	if (v->udp && json_get_double(d->received, "lost_in_receiver",
	    &lost) == JSON_OK) {
		exp_family(b, "iperf3_udp_lost_in_receiver_packets", "gauge",
		    "Lost datagrams that the receiving host's socket buffer "
		    "dropped.");
		exp_sample(b, "iperf3_udp_lost_in_receiver_packets", labels,
		    lost);
	}
	exp_family(b, "iperf3_bitrate_capped", "gauge", "1 when the probe's "
	    "bitrate was lowered to --exporter-max-bitrate.");
	exp_sample(b, "iperf3_bitrate_capped", labels, v->capped ? 1 : 0);
}

static void
write_figures(struct exp_buf *b, const struct exp_probe_view *v,
    const struct probe_doc *d, const char *labels)
{
	size_t i;

	for (i = 0; i < sizeof(figs) / sizeof(figs[0]); i++) {
		if ((figs[i].when == FIG_TCP && v->udp) ||
		    (figs[i].when == FIG_UDP && !v->udp))
			continue;
		exp_family(b, figs[i].name, "gauge", figs[i].help);
		exp_sample(b, figs[i].name, labels, num(figs[i].received ?
		    d->received : d->sent, figs[i].key));
	}
	write_ours(b, v, d, labels);
}

int
exp_write_probe(struct exp_buf *b, const struct exp_probe_view *v)
{
	struct exp_buf lb;
	struct probe_doc d;
	char labels[LABELS_MAX];
	int up;

	exp_buf_init(&lb);
	exp_buf_printf(&lb, "target=\"");
	label_value(&lb, v->target);
	exp_buf_printf(&lb, "\",port=\"%d\"", v->port);
	(void)snprintf(labels, sizeof(labels), "%s", lb.failed || lb.p == NULL ?
	    "" : lb.p);
	buf_free(&lb);
	memset(&d, 0, sizeof(d));
	up = v->ran_ok && doc_open(&d, v->json) == 0;
	exp_family(b, "iperf3_up", "gauge", "Was the last iperf3 probe "
	    "successful.");
	exp_sample(b, "iperf3_up", labels, up);
	if (up)
		write_figures(b, v, &d, labels);
	cJSON_Delete(d.root);
	exp_family(b, "probe_success", "gauge", "Displays whether or not the "
	    "probe was a success");
	exp_sample(b, "probe_success", "", up);
	exp_family(b, "probe_duration_seconds", "gauge", "Returns how long the "
	    "probe took to complete in seconds");
	exp_sample(b, "probe_duration_seconds", "", v->duration_s);
	return up;
}
