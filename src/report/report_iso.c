/*
 * report_iso.c - the --isochronous figures (stream/iso_stream.h) in the
 * text and JSON reports: a line per stream and interval, a sender and a
 * receiver line per stream at the end, intervals[].isochronous and
 * end.isochronous.  Nothing without --isochronous.
 *
 * Frame latency is the arrival of a frame's last byte (the receiver's
 * CLOCK_REALTIME) minus the frame's tick (the sender's): raw, two hosts'
 * clocks.  Our client with --owd moves the figures by the clock offset
 * it measured (session/probe.c, measure/clockoff.h) and says so; else
 * the line says they are raw.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#ifdef HAVE_OWD
#include "clockoff.h"
#endif
#include "iperf.h"
#include "iso_stream.h"
#include "report_int.h"
#include "stream.h"
#include "banned.h"

/* How a receiver's latency figures are to be read. */
struct iso_clock {
	int corrected;   /* moved by the --owd clock offset */
	double theta_us; /* the server's clock minus the client's */
	double bound_us; /* ... within this of the truth */
	double shift_us; /* what the latencies are moved by */
};

/* The offset to apply to latencies measured by the client (local) or by
 * the server (!local); none without a usable --owd fit. */
static void
iso_clock_of(const struct iperf_test *test, int local, struct iso_clock *c)
{
	memset(c, 0, sizeof(*c));
#ifdef HAVE_OWD
	if (test->opt->role == 'c' && test->run.ses.owd != NULL) {
		struct clockoff_fit f;

		clockoff_fit(test->run.ses.owd, &f);
		if (f.valid && !f.absurd) {
			double theta = (double)f.offset_ns / 1e3;

			/* server clock = client clock + theta */
			c->corrected = 1;
			c->theta_us = theta;
			c->bound_us = (double)f.bound_ns / 1e3;
			c->shift_us = local ? theta : -theta;
		}
	}
#else
	(void)test;
	(void)local;
#endif
}

static double
ms(double us)
{
	return us / 1e3;
}

/* ---- intervals ------------------------------------------------------------- */

void
report_iso_text_interval(struct iperf_test *test)
{
	struct iperf_stream *sp;
	char line[320];

	if (!test->settings.iso)
		return;
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		const struct iso_stream *is = sp->iso;
		const struct interval_result *ir = sp->last_interval;
		const struct iso_fig *f;

		if (is == NULL || !is->ival_ok || ir == NULL)
			continue;
		f = &is->ival;
		if (!f->receiver)
			(void)snprintf(line, sizeof(line), "[%3d] %6.2f-%-6.2f "
			    "sec  frames sent %llu  skipped %llu\n", sp->socket,
			    ir->start, ir->end, (unsigned long long)f->sent,
			    (unsigned long long)f->skipped);
		else
			(void)snprintf(line, sizeof(line), "[%3d] %6.2f-%-6.2f "
			    "sec  frames %llu  lost %llu  latency p50 %.3f ms  "
			    "p99 %.3f ms  jitter %.3f ms  inter-arrival %.3f ms"
			    "%s\n", sp->socket, ir->start, ir->end,
			    (unsigned long long)f->frames,
			    (unsigned long long)f->lost, ms(f->lat.p50),
			    ms(f->lat.p99), ms(f->jitter_us), ms(f->ia.mean),
			    " (raw)");
		report_text_line(test, line);
	}
}

/* intervals[].isochronous: [{socket, sender, the figures}] (raw). */
void
report_iso_json_interval(const struct iperf_test *test, cJSON *iv, int *err)
{
	const struct iperf_stream *sp;
	cJSON *arr;

	if (!test->settings.iso)
		return;
	arr = cJSON_CreateArray();
	if (arr == NULL) {
		*err = 1;
		return;
	}
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		cJSON *o;

		if (sp->iso == NULL || !sp->iso->ival_ok)
			continue;
		o = iso_fig_json(&sp->iso->ival);
		if (o == NULL || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			*err = 1;
			continue;
		}
		report_json_num(o, "socket", sp->socket, err);
		report_json_flag(o, "sender", sp->sender, err);
	}
	report_json_attach(iv, "isochronous", arr, err);
}

/* ---- end ------------------------------------------------------------------- */

/* The sender's and the receiver's figures of a stream: this end's, the
 * other end's from the results (has_*: 0 when not known). */
struct iso_pair {
	struct iso_fig snd, rcv;
	int has_snd, has_rcv, rcv_local;
};

static void
pair_of(struct iperf_stream *sp, struct iso_pair *p)
{
	struct iso_fig local;

	memset(p, 0, sizeof(*p));
	iso_stream_total(sp, &local);
	if (sp->sender) {
		p->snd = local;
		p->has_snd = 1;
		p->rcv = sp->iso->peer;
		p->has_rcv = sp->iso->has_peer && sp->iso->peer.receiver;
	} else {
		p->rcv = local;
		p->has_rcv = p->rcv_local = 1;
		p->snd = sp->iso->peer;
		p->has_snd = sp->iso->has_peer && !sp->iso->peer.receiver;
	}
}

static void
sender_line(struct iperf_test *test, const struct iperf_stream *sp,
    const struct iso_fig *f)
{
	const struct iperf_settings *s = &test->settings;
	char line[400];

	(void)snprintf(line, sizeof(line), "[%3d] isochronous sender: %llu "
	    "frames sent, %llu ticks skipped; frame size mean %.0f bytes, "
	    "stddev %.0f, min %llu, max %llu (%g fps, mean %.3f Mbit/s, "
	    "stddev %.3f Mbit/s)\n", sp->socket, (unsigned long long)f->sent,
	    (unsigned long long)f->skipped, iso_sizes_mean(&f->sizes),
	    iso_sizes_stddev(&f->sizes), (unsigned long long)f->sizes.min,
	    (unsigned long long)f->sizes.max, s->iso_fps,
	    (double)s->iso_mean / 1e6, (double)s->iso_stddev / 1e6);
	report_text_line(test, line);
}

static void
receiver_lines(struct iperf_test *test, const struct iperf_stream *sp,
    const struct iso_fig *f, const struct iso_clock *c, int local)
{
	struct iso_dist lat = f->lat;
	char line[480], clk[96];
	double secs = !local ? sp->peer.end_time - sp->peer.start_time :
	    sp->last_sample_us > sp->start_us ?
	    (double)(sp->last_sample_us - sp->start_us) / 1e6 : 0;

	iso_dist_shift(&lat, c->shift_us);
	if (c->corrected)
		(void)snprintf(clk, sizeof(clk), "corrected by the --owd clock "
		    "offset %+.3f ms +/- %.3f ms", ms(c->theta_us),
		    ms(c->bound_us));
	else
		(void)snprintf(clk, sizeof(clk), "raw: the two hosts' clocks, "
		    "not corrected");
	(void)snprintf(line, sizeof(line), "[%3d] isochronous receiver%s: "
	    "%llu frames (%.2f/s), %llu lost; jitter %.3f ms (RFC 3550)\n",
	    sp->socket, local ? "" : " (the server's figures)",
	    (unsigned long long)f->frames,
	    secs > 0 ? (double)f->frames / secs : 0.0,
	    (unsigned long long)f->lost, ms(f->jitter_us));
	report_text_line(test, line);
	(void)snprintf(line, sizeof(line), "[%3d]   frame latency min %.3f "
	    "mean %.3f p50 %.3f p99 %.3f max %.3f ms (%s)\n", sp->socket,
	    ms(lat.min), ms(lat.mean), ms(lat.p50), ms(lat.p99), ms(lat.max),
	    clk);
	report_text_line(test, line);
	(void)snprintf(line, sizeof(line), "[%3d]   inter-arrival min %.3f "
	    "mean %.3f p50 %.3f p99 %.3f max %.3f ms\n", sp->socket,
	    ms(f->ia.min), ms(f->ia.mean), ms(f->ia.p50), ms(f->ia.p99),
	    ms(f->ia.max));
	report_text_line(test, line);
}

void
report_iso_text(struct iperf_test *test)
{
	struct iperf_stream *sp;

	if (!test->settings.iso)
		return;
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct iso_pair p;
		struct iso_clock c;

		if (sp->iso == NULL)
			continue;
		pair_of(sp, &p);
		iso_clock_of(test, p.rcv_local, &c);
		if (p.has_snd)
			sender_line(test, sp, &p.snd);
		if (p.has_rcv)
			receiver_lines(test, sp, &p.rcv, &c, p.rcv_local);
	}
}

/* end.isochronous.streams[i].receiver, its latency as reported. */
static cJSON *
receiver_json(const struct iperf_test *test, const struct iso_pair *p,
    int *err)
{
	struct iso_fig f = p->rcv;
	struct iso_clock c;
	cJSON *o;

	iso_clock_of(test, p->rcv_local, &c);
	iso_dist_shift(&f.lat, c.shift_us);
	o = iso_fig_json(&f);
	if (o == NULL) {
		*err = 1;
		return NULL;
	}
	report_json_str(o, "measured_by", p->rcv_local ?
	    (test->opt->role == 'c' ? "client" : "server") : "server", err);
	report_json_str(o, "latency_clock", c.corrected ? "owd_corrected" :
	    "raw", err);
	if (c.corrected) {
		report_json_num(o, "clock_offset_us", c.theta_us, err);
		report_json_num(o, "clock_offset_bound_us", c.bound_us, err);
	}
	return o;
}

/* end.isochronous = {fps, mean_bps, stddev_bps, jitter_method, streams:
 * [{socket, sender {...}, receiver {...}}]}. */
void
report_iso_json_end(const struct iperf_test *test, cJSON *end, int *err)
{
	struct iperf_stream *sp;
	cJSON *o, *arr;

	if (!test->settings.iso)
		return;
	o = cJSON_CreateObject();
	arr = cJSON_CreateArray();
	if (o == NULL || arr == NULL) {
		cJSON_Delete(o);
		cJSON_Delete(arr);
		*err = 1;
		return;
	}
	report_json_num(o, "fps", test->settings.iso_fps, err);
	report_json_num(o, "mean_bps", (double)test->settings.iso_mean, err);
	report_json_num(o, "stddev_bps", (double)test->settings.iso_stddev,
	    err);
	report_json_str(o, "jitter_method", "rfc3550", err);
	report_json_attach(o, "streams", arr, err);
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct iso_pair p;
		cJSON *s;

		if (sp->iso == NULL || (s = cJSON_CreateObject()) == NULL)
			continue;
		if (!cJSON_AddItemToArray(arr, s)) {
			cJSON_Delete(s);
			*err = 1;
			continue;
		}
		pair_of(sp, &p);
		report_json_num(s, "socket", sp->socket, err);
		if (p.has_snd)
			report_json_attach(s, "sender", iso_fig_json(&p.snd),
			    err);
		if (p.has_rcv)
			report_json_attach(s, "receiver",
			    receiver_json(test, &p, err), err);
	}
	report_json_attach(end, "isochronous", o, err);
}
