/* report.c - printing helpers shared by the reporters (see report.h). */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iperf.h"
#include "report.h"
#include "banned.h"

#define REPORT_LINE_MAX 4096

void
report_timestamp(const struct iperf_test *test, char *buf, size_t len)
{
	const char *fmt = test->opt->timestamp_format != NULL ?
	    test->opt->timestamp_format : IPERF_TIMESTAMP_DEFAULT;
	time_t now;
	struct tm tm;

	buf[0] = '\0';
	if (!test->opt->timestamps)
		return;
	now = time(NULL);
	if (localtime_r(&now, &tm) == NULL)
		return;
	/* The format is the user's --timestamps argument, by design. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (strftime(buf, len, fmt, &tm) == 0)
		buf[0] = '\0';
#pragma GCC diagnostic pop
}

/* Keep a server's report lines for --get-server-output. */
static void
capture_server_output(struct iperf_test *test, const char *text, size_t len)
{
	size_t need;
	char *nb;

	if (test->opt->role != 's' || !test->run.srv.capture_output)
		return;
	if (len > IPERF_SERVER_OUTPUT_LINE_MAX)
		len = IPERF_SERVER_OUTPUT_LINE_MAX;
	need = test->run.rep.server_outlen + len + 1;
	if (need > test->run.rep.server_outcap) {
		size_t ncap = test->run.rep.server_outcap > 0 ? test->run.rep.server_outcap : 1024;
		while (ncap < need)
			ncap *= 2;
		nb = realloc(test->run.rep.server_outbuf, ncap);
		if (nb == NULL)
			return;
		test->run.rep.server_outbuf = nb;
		test->run.rep.server_outcap = ncap;
	}
	memcpy(test->run.rep.server_outbuf + test->run.rep.server_outlen, text, len);
	test->run.rep.server_outlen += len;
	test->run.rep.server_outbuf[test->run.rep.server_outlen] = '\0';
}

/*
 * A --max-tests server's tests start each line with their tag, "[T<n>] ",
 * after the timestamp (so both a time-sorted and a per-test grep work).
 * The captured copy (--get-server-output) has no tag: the client sees
 * what a stock server would send it.
 */
static void
report_write_tagged(struct iperf_test *test, const char *text, size_t len,
    size_t tslen)
{
	if (test->tag <= 0) {
		(void)fwrite(text, 1, len, test->outfile);
		return;
	}
	if (tslen > len)
		tslen = len;
	while (len > 0) {
		const char *nl = memchr(text + tslen, '\n', len - tslen);
		size_t part = nl != NULL ? (size_t)(nl - text) + 1 : len;

		(void)fwrite(text, 1, tslen, test->outfile);
		(void)fprintf(test->outfile, "[T%d] ", test->tag);
		(void)fwrite(text + tslen, 1, part - tslen, test->outfile);
		text += part;
		len -= part;
		tslen = 0;
	}
}

void
report_write_plain(struct iperf_test *test, const char *text, size_t len)
{
	pthread_mutex_lock(test->out_lock);
	capture_server_output(test, text, len);
	if (test->outfile != NULL)
		(void)fwrite(text, 1, len, test->outfile);
	pthread_mutex_unlock(test->out_lock);
}

static int
iperf_vprintf(struct iperf_test *test, const char *fmt, va_list ap)
{
	char line[REPORT_LINE_MAX];
	char ts[128];
	size_t n = 0, tslen;
	int body;

	report_timestamp(test, ts, sizeof(ts));
	n = (size_t)snprintf(line, sizeof(line), "%s", ts);
	tslen = n < sizeof(line) ? n : sizeof(line) - 1;
	if (test->opt->role == 'c' && test->settings.title != NULL &&
	    n < sizeof(line))
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s:  ",
		    test->settings.title);
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	body = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	if (body < 0)
		return -1;
	n += (size_t)body;
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	pthread_mutex_lock(test->out_lock);
	capture_server_output(test, line, n);
	if (test->outfile != NULL)
		report_write_tagged(test, line, n, tslen);
	pthread_mutex_unlock(test->out_lock);
	return (int)n;
}

int
iperf_printf(struct iperf_test *test, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = iperf_vprintf(test, fmt, ap);
	va_end(ap);
	return rc;
}

void
report_raw(struct iperf_test *test, const char *fmt, ...)
{
	va_list ap;

	(void)test;
	va_start(ap, fmt);
	(void)vfprintf(stdout, fmt, ap);
	va_end(ap);
	(void)fflush(stdout);
}

void
report_debug(struct iperf_test *test, int lvl, const char *fmt, ...)
{
	va_list ap;

	if (test->opt->debug_level < lvl)
		return;
	va_start(ap, fmt);
	(void)vfprintf(stdout, fmt, ap);
	va_end(ap);
	(void)fputc('\n', stdout);
}

void
report_warning(struct iperf_test *test, const char *fmt, ...)
{
	va_list ap;

	(void)test;
	(void)fflush(stdout);
	(void)fputs("warning: ", stderr);
	va_start(ap, fmt);
	(void)vfprintf(stderr, fmt, ap);
	va_end(ap);
	(void)fputc('\n', stderr);
}

void
report_stderr(struct iperf_test *test, const char *fmt, ...)
{
	va_list ap;

	(void)test;
	(void)fflush(stdout);
	va_start(ap, fmt);
	(void)vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void
report_flush(struct iperf_test *test)
{
	if (test->outfile != NULL)
		(void)fflush(test->outfile);
}
