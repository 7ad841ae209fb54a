/*
 * report_rr_stub.c - a build without --rr (configure --disable-rr): no
 * test has --rr figures, and these stand in for report_rr.c (rr_stub.c
 * for rr.c).
 */
#include "config.h"

#include "iperf.h"
#include "report_int.h"
#include "banned.h"

void
report_rr_text_interval(struct iperf_test *test)
{
	(void)test;
}

void
report_rr_text_summary(struct iperf_test *test)
{
	(void)test;
}

void
report_rr_json_interval_stream(const struct iperf_test *test,
    const struct iperf_stream *sp, struct cJSON *o, int *err)
{
	(void)test;
	(void)sp;
	(void)o;
	(void)err;
}

void
report_rr_json_interval_sum(const struct iperf_test *test, struct cJSON *o,
    int *err)
{
	(void)test;
	(void)o;
	(void)err;
}

void
report_rr_json_end_stream(const struct iperf_test *test,
    const struct iperf_stream *sp, struct cJSON *o, int *err)
{
	(void)test;
	(void)sp;
	(void)o;
	(void)err;
}

void
report_rr_json_end(const struct iperf_test *test, struct cJSON *end,
    int *err)
{
	(void)test;
	(void)end;
	(void)err;
}
