/* report_rows.c - line formatters of the human-readable report. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "report_rows.h"
#include "units.h"
#include "banned.h"

#define SEPARATOR "- - - - - - - - - - - - - - - - - - - - - - - - -"
#define SP10 "          "

/* Bounded append: keeps the would-be length in *off like snprintf. */
static void append(char *buf, size_t len, size_t *off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
append(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (*off < len)
		n = vsnprintf(buf + *off, len - *off, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n;
}

static int
done(size_t off)
{
	return off > INT32_MAX ? INT32_MAX : (int)off;
}

/* "[  5]" or "[SUM]" */
static void
append_tag(char *buf, size_t len, size_t *off, int id)
{
	if (id == REPORT_SUM_ID)
		append(buf, len, off, "[SUM]");
	else
		append(buf, len, off, "[%3d]", id);
}

/* "ID ROLE  start-end   sec  Transfer  Bitrate" */
static void
append_common(char *buf, size_t len, size_t *off, const struct report_row *r)
{
	char xfer[64], rate[64];
	double bps = r->seconds > 0 ? r->bytes / r->seconds : 0.0;

	units_format(xfer, sizeof(xfer), r->bytes, 'A');
	units_format(rate, sizeof(rate), bps, r->fmt != '\0' ? r->fmt : 'a');
	append_tag(buf, len, off, r->id);
	append(buf, len, off, "%s %6.2f-%-6.2f sec  %ss  %ss/sec",
	    r->role != NULL ? r->role : "", r->start, r->end, xfer, rate);
}

double
report_loss_percent(int64_t lost, int64_t total)
{
	if (total <= 0)
		return 0.0;
	return 100.0 * (double)lost / (double)total;
}

static void
append_kind(char *buf, size_t len, size_t *off, enum report_row_kind kind,
    const struct report_row *r, const char *tail)
{
	char cwnd[64];

	switch (kind) {
	case ROW_TCP_CWND:
		units_format(cwnd, sizeof(cwnd), r->cwnd, 'A');
		append(buf, len, off, "  %3" PRId64 "   %ss       %s\n",
		    r->retransmits, cwnd, tail);
		break;
	case ROW_TCP_RETR:
		append(buf, len, off, "  %3" PRId64 "            %s\n",
		    r->retransmits, tail);
		break;
	case ROW_TCP_RETR_SUM:
		append(buf, len, off, "  %3" PRId64 "             %s\n",
		    r->retransmits, tail);
		break;
	case ROW_UDP_PACKETS:
		append(buf, len, off, " %s %" PRId64 "  %s\n",
		    r->bidir ? SP10 : "", r->packets, tail);
		break;
	case ROW_UDP_LOSS:
		append(buf, len, off, "  %5.3f ms  %" PRId64 "/%" PRId64
		    " (%.2g%%)  %s\n", r->jitter_ms, r->lost, r->packets,
		    report_loss_percent(r->lost, r->packets), tail);
		break;
	case ROW_UDP_UNKNOWN:
		append(buf, len, off, "  %5.3f ms  Unknown/%" PRId64 "  %s\n",
		    r->jitter_ms, r->packets, tail);
		break;
	case ROW_TCP_PLAIN:
	default:
		append(buf, len, off, "                  %s\n", tail);
		break;
	}
}

int
report_fmt_row(char *buf, size_t len, enum report_row_kind kind,
    const struct report_row *r)
{
	size_t off = 0;

	if (len > 0)
		buf[0] = '\0';
	append_common(buf, len, &off, r);
	append_kind(buf, len, &off, kind, r, r->tail != NULL ? r->tail : "");
	return done(off);
}

int
report_fmt_header(char *buf, size_t len, enum report_header_kind kind,
    int bidir)
{
	static const char *const tails[] = {
		[HDR_TCP_CWND] = "         Retr  Cwnd",
		[HDR_TCP_RETR] = "         Retr",
		[HDR_PLAIN] = "",
		[HDR_UDP_SEND] = "         Total Datagrams",
		[HDR_UDP_LOSS] = "         Jitter    Lost/Total Datagrams",
	};
	const char *tail = (unsigned int)kind <= HDR_UDP_LOSS ?
	    tails[kind] : "";

	return snprintf(buf, len, "[ ID]%s Interval           Transfer     "
	    "Bitrate%s\n", bidir ? "[Role]" : "", tail);
}

int
report_fmt_unavailable(char *buf, size_t len, int id, const char *what)
{
	size_t off = 0;

	if (len > 0)
		buf[0] = '\0';
	append_tag(buf, len, &off, id);
	append(buf, len, &off, " (%s statistics not available)\n", what);
	return done(off);
}

int
report_fmt_ooo(char *buf, size_t len, const char *role, double start,
    double end, uint64_t count)
{
	return snprintf(buf, len, "[SUM]%s %4.1f-%4.1f sec  %" PRIu64
	    " datagrams received out-of-order\n", role != NULL ? role : "",
	    start, end, count);
}

int
report_file_percent(double moved, double size)
{
	double pct;

	if (size <= 0)
		return 100;
	pct = moved * 100.0 / size;
	if (pct > (double)INT32_MAX)
		return INT32_MAX;
	return (int)pct;
}

int
report_fmt_diskfile(char *buf, size_t len, double moved, double size,
    const char *path)
{
	char m[64], s[64];

	units_format(m, sizeof(m), moved, 'A');
	units_format(s, sizeof(s), size, 'A');
	return snprintf(buf, len, "        Sent %s / %s (%d%%) of %s\n", m, s,
	    report_file_percent(moved, size), path);
}

int
report_fmt_cpu(char *buf, size_t len, const char *local_label,
    const double local[3], const char *remote_label, const double remote[3])
{
	return snprintf(buf, len, "CPU Utilization: local/%s %.1f%% "
	    "(%.1f%%u/%.1f%%s), remote/%s %.1f%% (%.1f%%u/%.1f%%s)\n",
	    local_label, local[0], local[1], local[2], remote_label,
	    remote[0], remote[1], remote[2]);
}

int
report_fmt_separator(char *buf, size_t len)
{
	return snprintf(buf, len, "%s\n", SEPARATOR);
}

int
report_fmt_starting(char *buf, size_t len, const struct report_start_info *s)
{
	size_t off = 0;

	if (len > 0)
		buf[0] = '\0';
	append(buf, len, &off, "Starting Test: protocol: %s, %d streams, "
	    "%d byte blocks, omitting %d seconds, ", s->protocol,
	    s->num_streams, s->blksize, s->omit);
	if (s->bytes != 0)
		append(buf, len, &off, "%" PRIu64 " bytes to send", s->bytes);
	else if (s->blocks != 0)
		append(buf, len, &off, "%" PRIu64 " blocks to send",
		    s->blocks);
	else
		append(buf, len, &off, "%d second test", s->duration);
	append(buf, len, &off, ", tos %d\n", s->tos);
	return done(off);
}

int
report_fmt_connected(char *buf, size_t len, const struct report_conn *c)
{
	return snprintf(buf, len, "[%3d] local %s port %d connected to %s "
	    "port %d\n", c->id, c->lhost, c->lport, c->rhost, c->rport);
}

/* ---- --rr tables ---------------------------------------------------------- */

#define RR_COL_RATE "%9.0f"   /* Trans/s */
#define RR_COL_TRANS "%11" PRIu64
#define RR_COL_LAT "%10s"
#define RR_COL_LOST "%8" PRIu64

static const char *const rr_lat_names[5] = { "p50", "p90", "p99", "p99.9",
	"max" };

static int
rr_lat_cols(enum report_rr_kind kind)
{
	return kind == RR_ROW_SUMMARY ? 5 : 3;
}

int
report_fmt_latency(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000000ULL)
		return snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	if (ns < 1000000000ULL)
		return snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	return snprintf(buf, len, "%.2f s", (double)ns / 1e9);
}

int
report_fmt_rr_header(char *buf, size_t len, enum report_rr_kind kind,
    int has_lat, int datagram)
{
	size_t off = 0;
	int i;

	if (len > 0)
		buf[0] = '\0';
	append(buf, len, &off, "[ ID] Interval           Transfer     "
	    "Bitrate       ");
	if (kind == RR_ROW_SUMMARY)
		append(buf, len, &off, "%11s", "Trans");
	append(buf, len, &off, "%9s", "Trans/s");
	for (i = 0; has_lat && i < rr_lat_cols(kind); i++)
		append(buf, len, &off, RR_COL_LAT, rr_lat_names[i]);
	if (datagram)
		append(buf, len, &off, "%8s", "Lost");
	append(buf, len, &off, "\n");
	return done(off);
}

int
report_fmt_rr_row(char *buf, size_t len, enum report_rr_kind kind,
    const struct report_row *r, const struct report_rr *x)
{
	char lat[32];
	size_t off = 0;
	int i;

	if (len > 0)
		buf[0] = '\0';
	append_common(buf, len, &off, r);
	if (kind == RR_ROW_SUMMARY)
		append(buf, len, &off, RR_COL_TRANS, x->trans);
	append(buf, len, &off, RR_COL_RATE, x->rate);
	for (i = 0; x->has_lat && i < rr_lat_cols(kind); i++) {
		(void)report_fmt_latency(lat, sizeof(lat), x->lat_ns[i]);
		append(buf, len, &off, RR_COL_LAT, lat);
	}
	if (x->datagram)
		append(buf, len, &off, RR_COL_LOST, x->lost);
	if (r->tail != NULL && r->tail[0] != '\0')
		append(buf, len, &off, "  %s", r->tail);
	append(buf, len, &off, "\n");
	return done(off);
}
