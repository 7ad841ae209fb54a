/*
 * report_rows.h - pure formatters for the lines of the human-readable
 * report (3.21's layouts, docs/iperf3.1).  They take numbers and write one
 * complete line, newline included, into a caller buffer; they know nothing
 * about tests or streams, so every layout is unit-testable.
 *
 * Every function returns the length snprintf would have produced (the
 * text is truncated, and NUL-terminated, when the buffer is too small).
 */
#ifndef IPERF_REPORT_ROWS_H
#define IPERF_REPORT_ROWS_H

#include <stddef.h>
#include <stdint.h>

#define REPORT_LINE_LEN 512
#define REPORT_SUM_ID (-1) /* the "[SUM]" tag instead of "[  5]" */

/* One data row: interval rows and summary rows. */
struct report_row {
	int id;            /* socket number, or REPORT_SUM_ID */
	const char *role;  /* "" or "[TX-C]", "[RX-C]", "[TX-S]", "[RX-S]" */
	double start, end; /* seconds */
	double bytes;      /* Transfer */
	double seconds;    /* Bitrate divisor (<= 0 prints a zero rate) */
	char fmt;          /* Bitrate format: -f char, 'a' by default */
	const char *tail;  /* "", "(omitted)", "sender" or "receiver" */
	int64_t retransmits;
	double cwnd;       /* bytes */
	double jitter_ms;
	int64_t lost;
	int64_t packets;
	int bidir;         /* UDP packet rows get 10 more spaces in bidir */
};

enum report_row_kind {
	ROW_TCP_CWND,     /* interval, sender with Retr/Cwnd values */
	ROW_TCP_RETR,     /* summary, per-stream sender: Retr + 12 spaces */
	ROW_TCP_RETR_SUM, /* [SUM] with Retr (interval and summary): 13 sp. */
	ROW_TCP_PLAIN,    /* no Retr: 18 spaces before the tail */
	ROW_UDP_PACKETS,  /* interval, UDP sender: datagram count */
	ROW_UDP_LOSS,     /* jitter, lost/total (pct%) */
	ROW_UDP_UNKNOWN,  /* jitter, Unknown/total (peer sent no omit count) */
};

enum report_header_kind {
	HDR_TCP_CWND,  /* Retr  Cwnd */
	HDR_TCP_RETR,  /* Retr (summary) */
	HDR_PLAIN,     /* Transfer and Bitrate only */
	HDR_UDP_SEND,  /* Total Datagrams */
	HDR_UDP_LOSS,  /* Jitter    Lost/Total Datagrams */
};

int report_fmt_row(char *buf, size_t len, enum report_row_kind kind,
    const struct report_row *r);
int report_fmt_header(char *buf, size_t len, enum report_header_kind kind,
    int bidir);
/* "[  5] (sender statistics not available)", what = "sender"/"receiver" */
int report_fmt_unavailable(char *buf, size_t len, int id, const char *what);
/* "[SUM]ROLE 0.0- 2.0 sec  N datagrams received out-of-order" */
int report_fmt_ooo(char *buf, size_t len, const char *role, double start,
    double end, uint64_t count);
/* "        Sent X / Y (P%) of path" */
int report_fmt_diskfile(char *buf, size_t len, double moved, double size,
    const char *path);
/* "CPU Utilization: local/<l> T% (U%u/S%s), remote/<r> ..." */
int report_fmt_cpu(char *buf, size_t len, const char *local_label,
    const double local[3], const char *remote_label, const double remote[3]);
/* "- - - ... -" (25 dashes) */
int report_fmt_separator(char *buf, size_t len);

struct report_start_info {
	const char *protocol;
	int num_streams;
	int blksize;
	int omit;
	int duration;
	uint64_t bytes;  /* -n, 0 = not set */
	uint64_t blocks; /* -k, 0 = not set */
	int tos;
};

/* "Starting Test: protocol: TCP, 1 streams, ..." */
int report_fmt_starting(char *buf, size_t len,
    const struct report_start_info *s);
struct report_conn {
	int id;
	const char *lhost;
	int lport;
	const char *rhost;
	int rport;
};

/* "[  5] local A port P connected to B port Q" */
int report_fmt_connected(char *buf, size_t len, const struct report_conn *c);

/*
 * --rr (rr.h) tables: the Interval/Transfer/Bitrate columns of a stock row,
 * then, on interval rows, transactions per second and the p50/p90/p99 of
 * the interval's round trips; on summary rows the transactions, their
 * rate and p50/p90/p99/p99.9/max of the whole test.  UDP adds the lost
 * transactions.  Latencies without figures (a server's intervals) leave
 * their columns out.
 */
struct report_rr {
	uint64_t trans;  /* transactions (summary rows) */
	double rate;     /* transactions per second */
	int has_lat;     /* round trips known */
	uint64_t lat_ns[5]; /* interval: p50 p90 p99; summary: p50 p90 p99
			       p99.9 max */
	int datagram;    /* the Lost column */
	uint64_t lost;
};

enum report_rr_kind {
	RR_ROW_INTERVAL,
	RR_ROW_SUMMARY,
};

int report_fmt_rr_header(char *buf, size_t len, enum report_rr_kind kind,
    int has_lat, int datagram);
int report_fmt_rr_row(char *buf, size_t len, enum report_rr_kind kind,
    const struct report_row *r, const struct report_rr *x);
/* A latency for the tables: "25.1 us", "1.25 ms", "2.50 s". */
int report_fmt_latency(char *buf, size_t len, uint64_t ns);

/* Percentages shared by rows and JSON: 100 * lost / total, 0 if no total. */
double report_loss_percent(int64_t lost, int64_t total);
/* Integer percentage of a file moved (truncated; 100 for an empty file). */
int report_file_percent(double moved, double size);

#endif /* IPERF_REPORT_ROWS_H */
