/*
 * report_int.h - pieces shared between the reporter files (report_text*.c,
 * report_json*.c).  Not used outside the reporters, except by tests.
 */
#ifndef IPERF_REPORT_INT_H
#define IPERF_REPORT_INT_H

#include <stdint.h>
#include <time.h>

struct cJSON;
struct iperf_test;
struct iperf_stream;

/* Text: the end-of-test section (report_text_sum.c). */
void report_text_summary(struct iperf_test *test);
/* Text: print one preformatted line through iperf_printf. */
void report_text_line(struct iperf_test *test, const char *line);

/* --latency (report_latency.c): two text lines after the summary, and
 * end.latency; nothing when the probe did not run. */
void report_latency_text(struct iperf_test *test);
void report_latency_json(const struct iperf_test *test, struct cJSON *end,
    int *err);
#ifdef HAVE_RPM
/* --rpm (report_rpm.c): the "Responsiveness:" line and end.rpm; nothing
 * unless the client measured it. */
void report_rpm_text(struct iperf_test *test);
void report_rpm_json(const struct iperf_test *test, struct cJSON *end,
    int *err);
#endif

/* Our distributions and socket drops (report_stats.c): keys added to the
 * objects the JSON builders make, and the text hint after the summary. */
struct interval_result;
void report_stats_interval_stream(const struct iperf_stream *sp,
    const struct interval_result *ir, struct cJSON *o, int *err);
void report_stats_interval_sum(const struct iperf_test *test, int g,
    int sends, struct cJSON *o, int *err);
void report_stats_end_sender(const struct iperf_stream *sp, struct cJSON *o,
    int *err);
void report_stats_end_udp(const struct iperf_stream *sp, struct cJSON *o,
    int *err);
void report_stats_end_sum_sent(const struct iperf_test *test, int g,
    struct cJSON *o, int *err);
void report_stats_end_loss_sum(const struct iperf_test *test, int g,
    struct cJSON *o, int *err);
void report_stats_text(struct iperf_test *test);
#ifdef HAVE_OWD
/* --owd (report_owd.c): a line per direction after the summary, end.owd
 * and intervals[].owd; nothing when the test had no --owd. */
void report_owd_text(struct iperf_test *test);
void report_owd_json_end(const struct iperf_test *test, struct cJSON *end,
    int *err);
void report_owd_json_interval(const struct iperf_test *test,
    struct cJSON *iv, int *err);
#endif
#ifdef HAVE_ISOCHRONOUS
/* --isochronous (report_iso.c): a line per stream after each interval's
 * rows and intervals[].isochronous; the sender and receiver lines after
 * the summary and end.isochronous.  Nothing without --isochronous. */
void report_iso_text_interval(struct iperf_test *test);
void report_iso_json_interval(const struct iperf_test *test,
    struct cJSON *iv, int *err);
void report_iso_text(struct iperf_test *test);
void report_iso_json_end(const struct iperf_test *test, struct cJSON *end,
    int *err);
#endif
/* --rr (report_rr.c): the text tables in place of the stock ones, and
 * the "rr" objects of the JSON document (nothing without --rr). */
void report_rr_text_interval(struct iperf_test *test);
void report_rr_text_summary(struct iperf_test *test);
void report_rr_json_interval_stream(const struct iperf_test *test,
    const struct iperf_stream *sp, struct cJSON *o, int *err);
void report_rr_json_interval_sum(const struct iperf_test *test,
    struct cJSON *o, int *err);
void report_rr_json_end_stream(const struct iperf_test *test,
    const struct iperf_stream *sp, struct cJSON *o, int *err);
void report_rr_json_end(const struct iperf_test *test, struct cJSON *end,
    int *err);

/* JSON builders (report_json_data.c); NULL on ENOMEM. */
struct cJSON *report_json_interval(struct iperf_test *test);
struct cJSON *report_json_end(struct iperf_test *test);
struct cJSON *report_json_connected(const struct iperf_stream *sp);
struct cJSON *report_json_test_start(const struct iperf_test *test);

/* The -J document written as the run goes (report_json_doc.c): whether
 * this run's may be (checked at the first interval); write one interval
 * (not owned; the caller frees it unless the test hook keeps a whole
 * copy); at finish, write the rest: 0 if the document was not streamed. */
int report_json_doc_wanted(const struct iperf_test *test);
int report_json_doc_copy_wanted(void);
void report_json_doc_interval(struct iperf_test *test, const struct cJSON *iv);
int report_json_doc_finish(struct iperf_test *test);

/* Add a member; an allocation failure sets *err (never cleared here).
 * attach takes ownership of child (freed when it cannot be added). */
void report_json_num(struct cJSON *o, const char *key, double v, int *err);
void report_json_flag(struct cJSON *o, const char *key, int v, int *err);
void report_json_str(struct cJSON *o, const char *key, const char *v,
    int *err);
void report_json_attach(struct cJSON *parent, const char *key,
    struct cJSON *child, int *err);

/* Wall-clock time of the test's start (taken once, then remembered). */
void report_wall_time(struct iperf_test *test, time_t *secs, uint64_t *ms);
/* "iperf 3.21": JSON start.version, which parsers read as stock's. */
#define REPORT_VERSION_TEXT ("iperf " IPERF_VERSION_COMPAT)
/* -V's first line: the same, naming this implementation as -v does. */
#define REPORT_VERSION_LINE \
	("iperf " IPERF_VERSION_COMPAT " (" PACKAGE_NAME " " PACKAGE_VERSION ")")

#endif /* IPERF_REPORT_INT_H */
