/*
 * report.h - output: the reporter vtable (text, JSON or CSV, chosen once at
 * start) and the printing helpers every module uses.  No other module
 * tests for JSON mode or writes to stdout/stderr directly.
 *
 * Events, in the order a test produces them:
 *   begin              start of a client run / of each server test (when
 *                      the control connection is accepted): JSON creates
 *                      its document skeleton here
 *   server_listening   server: "Server listening on N (test #n)" banner
 *   on_params          server: the client's parameters were accepted
 *   on_connect         client: "Connecting to host ..." (+ -V lines);
 *                      server: "Accepted connection from ..." (+ -V lines)
 *   on_new_stream      one "[  5] local ... connected to ..." per stream
 *   on_test_start      "Starting Test: ..." (-V) / JSON start.test_start
 *   interval           after stats_sample() kept an interval: the newest
 *                      interval of every stream (sp->last_interval)
 *   summary            after the results exchange (client) or after the
 *                      test ended (server): the end-of-test section
 *   finish             client: "\niperf Done."; JSON: emit the document
 *   error              an error message (already formatted, no prefix)
 */
#ifndef IPERF_REPORT_H
#define IPERF_REPORT_H

#include <stdarg.h>
#include <stddef.h>

struct iperf_test;
struct iperf_stream;

struct report_ops {
	void (*begin)(struct iperf_test *test);
	void (*server_listening)(struct iperf_test *test);
	void (*on_params)(struct iperf_test *test);
	void (*on_connect)(struct iperf_test *test);
	void (*on_new_stream)(struct iperf_stream *sp);
	void (*on_test_start)(struct iperf_test *test);
	void (*interval)(struct iperf_test *test);
	void (*summary)(struct iperf_test *test);
	void (*finish)(struct iperf_test *test);
	/* "error - <msg>" style runtime error: text prints "iperf3: <msg>",
	 * JSON adds an "error" member (the caller passes the full text). */
	void (*error)(struct iperf_test *test, const char *msg);
};

extern const struct report_ops report_text;
extern const struct report_ops report_json;
extern const struct report_ops report_csv;

/* Pick the reporter from the test's options (JSON, CSV or text). */
void report_select(struct iperf_test *test);
/* The reporters' part of the run (struct run_report) released: the
 * documents, the captured server output, the --plot/--metrics sinks. */
void report_run_release(struct iperf_test *test);

/*
 * Report output: adds the --timestamps prefix and (client only) the -T
 * title prefix once per call, writes to the test's output file, and on a
 * server keeps a copy of each line for --get-server-output.
 */
int iperf_printf(struct iperf_test *test, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Debug/verbose lines that upstream prints straight to stdout (no prefix,
 * not captured, not sent to --logfile). */
void report_raw(struct iperf_test *test, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Debug trace at level >= lvl (1 error .. 4 debug). */
void report_debug(struct iperf_test *test, int lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "warning: <msg>" on stderr. */
void report_warning(struct iperf_test *test, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A diagnostic written to stderr as given, stdout flushed first (the
 * OpenSSL line that precedes an authentication parameter error). */
void report_stderr(struct iperf_test *test, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The --timestamps prefix for now ("" when off). */
void report_timestamp(const struct iperf_test *test, char *buf, size_t len);
/* Write text to the output as it is (no timestamp, title or tag; kept
 * for --get-server-output on a server): the CSV rows. */
void report_write_plain(struct iperf_test *test, const char *text,
    size_t len);
/* Flush the output file (--forceflush, logfile). */
void report_flush(struct iperf_test *test);

#endif /* IPERF_REPORT_H */
