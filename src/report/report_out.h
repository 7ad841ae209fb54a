/*
 * report_out.h - side outputs (--plot FILE, --metrics FILE): sinks fed,
 * beside the text, JSON or CSV report, with the same interval and summary
 * records the JSON reporter builds (report_json_interval/report_json_end:
 * the objects of -J's "intervals" array and "end").  A sink never sees a
 * socket; it keeps what it needs from the records and writes its file at
 * the end of the test.
 *
 * report_select() puts report_tee in front of the chosen reporter when a
 * side output is asked for: the tee calls the reporter, then the sinks.
 */
#ifndef IPERF_REPORT_OUT_H
#define IPERF_REPORT_OUT_H

#include <stdio.h>

struct cJSON;
struct iperf_test;
struct report_ops;

struct out_sink {
	const char *name;  /* the option, for messages: "--plot" */
	/* the option's path (a pattern on a server), or NULL when this test
	 * does not want the sink */
	const char *(*path)(const struct iperf_test *test);
	/* per-run state, freed by release(); NULL on ENOMEM */
	void *(*open)(struct iperf_test *test);
	/* one interval record (an element of -J's "intervals"); not owned */
	void (*interval)(struct iperf_test *test, void *st,
	    const struct cJSON *iv);
	/* the end record (-J's "end"), possibly more than once (the last
	 * counts); not owned */
	void (*summary)(struct iperf_test *test, void *st,
	    const struct cJSON *end);
	/* end of the test: the file's contents into f; 0, 1 if there is
	 * nothing to write (the file is left as it is), -1 with errno */
	int (*render)(struct iperf_test *test, void *st, FILE *f);
	void (*release)(void *st);
};

/* The sinks (report_metrics.c: --metrics). */
extern const struct out_sink report_metrics;

/* The reporter that feeds the sinks after test->report_main. */
extern const struct report_ops report_tee;

/* Whether any side output is asked for (report_select). */
int report_out_wanted(const struct iperf_test *test);
/* Before any data: each wanted file's temporary name (a server's with
 * test 0 and peer "probe") is created and removed again.  0, or -1 with
 * IEOUTFILE naming the option, the path and the reason. */
int report_out_check(struct iperf_test *test);
/* Free the run's sink states (test_run_release). */
void report_out_release(struct iperf_test *test);

#endif /* IPERF_REPORT_OUT_H */
