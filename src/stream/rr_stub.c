/*
 * rr_stub.c - a build without --rr (configure --disable-rr): the options
 * do not exist and a server does not take "rr" in a client's extension
 * list (ext.c), so no test has sp->rr and settings.rr stays 0.  These
 * stand in for rr.c where the callers look first (report_rr_stub.c for
 * report_rr.c).
 */
#include "config.h"

#include <errno.h>
#include <sys/types.h>

#include "iperf.h"
#include "rr.h"
#include "stream.h"
#include "banned.h"

int
rr_stream_init(struct iperf_stream *sp)
{
	(void)sp;
	return 0;
}

void
rr_stream_release(struct iperf_stream *sp)
{
	(void)sp;
}

void
rr_worker(struct iperf_stream *sp)
{
	(void)sp;
}

ssize_t
rr_step(struct iperf_stream *sp)
{
	(void)sp;
	errno = ENOSYS;
	return -1;
}

void
rr_take(struct iperf_stream *sp, struct stream_live *out)
{
	stream_snapshot(sp, out);
}

void
rr_interval_done(struct iperf_stream *sp, int omitted)
{
	(void)sp;
	(void)omitted;
}

void
rr_omit_reset_locked(struct iperf_stream *sp)
{
	(void)sp;
}

/* Without --rr no results document carries "rr". */
int
rr_results_encode(struct iperf_test *test, struct iperf_stream *sp,
    struct cJSON *stream_obj)
{
	(void)test;
	(void)sp;
	(void)stream_obj;
	return 0;
}

void
rr_results_decode(struct iperf_stream *sp, const struct cJSON *stream_obj)
{
	(void)sp;
	(void)stream_obj;
}

int
rr_results_encode_test(struct iperf_test *test, struct cJSON *doc)
{
	(void)test;
	(void)doc;
	return 0;
}

void
rr_results_decode_test(struct iperf_test *test, const struct cJSON *doc)
{
	(void)test;
	(void)doc;
}
