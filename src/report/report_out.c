/*
 * report_out.c - the tee reporter in front of the text, JSON or CSV one
 * when side outputs (--plot, --metrics) are asked for, and the dispatch of
 * records to their sinks (report_out.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "iperf_error.h"
#include "report.h"
#include "report_int.h"
#include "report_out.h"
#include "report_plot.h"
#include "stream.h"
#include "banned.h"

/* Every sink this build has, in the order they are fed. */
static const struct out_sink *const sinks[] = {
#ifdef HAVE_METRICS
	&report_metrics,
#endif
#ifdef HAVE_PLOT
	&report_plot_sink,
#endif
	NULL,
};

#define NSINKS (sizeof(sinks) / sizeof(sinks[0]) - 1)

struct report_out {
	void *st[NSINKS + 1]; /* per sink: its state, NULL when not wanted */
};

int
report_out_wanted(const struct iperf_test *test)
{
	size_t i;

	for (i = 0; sinks[i] != NULL; i++)
		if (sinks[i]->path(test) != NULL)
			return 1;
	return 0;
}

/* buf[*n..] = src[0..k); -1 if it does not fit (with the '\0'). */
static int
put(char *buf, size_t len, size_t *n, const char *src, size_t k)
{
	if (*n + k >= len)
		return -1;
	memcpy(buf + *n, src, k);
	*n += k;
	buf[*n] = '\0';
	return 0;
}

/* "-<id>" before the extension of the file name in buf[0..*n). */
static int
insert_id(char *buf, size_t len, size_t *n, const char *id)
{
	char *base = strrchr(buf, '/'), *dot, tail[PATH_MAX];
	size_t at, k = strlen(id) + 1;

	base = base != NULL ? base + 1 : buf;
	dot = strrchr(base, '.');
	at = dot != NULL && dot > base ? (size_t)(dot - buf) : *n;
	if (*n + k >= len || *n - at >= sizeof(tail))
		return -1;
	memcpy(tail, buf + at, *n - at);
	buf[at] = '-';
	memcpy(buf + at + 1, id, k - 1);
	memcpy(buf + at + k, tail, *n - at);
	*n += k;
	buf[*n] = '\0';
	return 0;
}

static int
expand(const char *pattern, const char *id, const char *peer, char *buf,
    size_t len)
{
	const char *p = pattern;
	size_t n = 0;
	int placed = 0, rc = 0;

	buf[0] = '\0';
	while (*p != '\0' && rc == 0) {
		if (strncmp(p, "{test}", 6) == 0 || strncmp(p, "{peer}", 6) == 0) {
			const char *v = p[1] == 't' ? id : peer;

			rc = put(buf, len, &n, v, strlen(v));
			placed = 1;
			p += 6;
			continue;
		}
		rc = put(buf, len, &n, p++, 1);
	}
	if (rc == 0 && !placed)
		rc = insert_id(buf, len, &n, id);
	if (rc == -1)
		errno = ENAMETOOLONG;
	return rc;
}

/*
 * The file a sink writes for this test.  On a client, the option's path.
 * On a server the path is a pattern: "{test}" becomes the test's number
 * (as in "test #N", [T<N>]) and "{peer}" the client's address; a path
 * with neither gets "-{test}" before its extension ("m.prom":
 * "m-3.prom"), so that tests never write one file.  The file is written
 * whole to a temporary name beside it (report_out_tmp_path) and renamed
 * over it.  -1 (ENAMETOOLONG) if it does not fit in len.
 */
static int
report_out_path(const struct iperf_test *test, const char *pattern,
    char *buf, size_t len)
{
	char id[24];

	if (test->opt->role != 's') {
		if (strlen(pattern) >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(buf, pattern, strlen(pattern) + 1);
		return 0;
	}
	(void)snprintf(id, sizeof(id), "%d", test->server_test_number);
	return expand(pattern, id, test->run.srv.peer_host[0] != '\0' ?
	    test->run.srv.peer_host : "unknown", buf, len);
}

/* The name a file is written to before it is renamed over path: unique
 * to this process and, on a server, to the test. */
static int
tmp_path(const struct iperf_test *test, const char *path, char *buf,
    size_t len)
{
	int n = test->opt->role == 's' ?
	    snprintf(buf, len, "%s.tmp.%ld.%d", path, (long)getpid(),
		test->server_test_number) :
	    snprintf(buf, len, "%s.tmp.%ld", path, (long)getpid());

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* IEOUTFILE: "unable to write the --plot file PATH: reason". */
static int
out_fail(struct iperf_test *test, const char *option, const char *path,
    int err)
{
	char what[sizeof(test->run.err.arg)];

	(void)snprintf(what, sizeof(what), "%.32s file %.1000s", option, path);
	return iperf_fail_arg_errno(test, IEOUTFILE, what, err);
}

int
report_out_check(struct iperf_test *test)
{
	char path[PATH_MAX], tmp[PATH_MAX + 64];
	size_t i;

	for (i = 0; sinks[i] != NULL; i++) {
		const char *pattern = sinks[i]->path(test);
		int fd, rc;

		if (pattern == NULL)
			continue;
		rc = test->opt->role == 's' ?
		    expand(pattern, "0", "probe", path, sizeof(path)) :
		    report_out_path(test, pattern, path, sizeof(path));
		if (rc == 0)
			rc = tmp_path(test, path, tmp, sizeof(tmp));
		fd = rc == 0 ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC, 0666) : -1;
		if (fd == -1) {
			report_out_release(test); /* no file at the end either */
			return out_fail(test, sinks[i]->name,
			    test->opt->role == 's' ? pattern : path, errno);
		}
		(void)close(fd);
		(void)unlink(tmp);
	}
	return 0;
}

/* The sink's contents written whole to the temporary name, synced, then
 * renamed over path: 0, 1 (nothing to write: path left as it is), -1. */
static int
write_atomically(struct iperf_test *test, const struct out_sink *sink,
    void *st, const char *path)
{
	char tmp[PATH_MAX + 64];
	FILE *f;
	int fd, rc, saved;

	if (tmp_path(test, path, tmp, sizeof(tmp)) == -1)
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd == -1)
		return -1;
	f = fdopen(fd, "w");
	if (f == NULL) {
		saved = errno;
		(void)close(fd);
		(void)unlink(tmp);
		errno = saved;
		return -1;
	}
	rc = sink->render(test, st, f);
	if (rc == 0)
		rc = fflush(f) == 0 && !ferror(f) && fsync(fd) == 0 ? 0 : -1;
	saved = errno;
	if (fclose(f) != 0 && rc == 0) {
		rc = -1;
		saved = errno;
	}
	if (rc == 0 && rename(tmp, path) == 0)
		return 0;
	if (rc == 0)
		saved = errno;
	(void)unlink(tmp);
	errno = saved;
	return rc == 1 ? 1 : -1;
}

void
report_out_release(struct iperf_test *test)
{
	struct report_out *o = test->run.rep.out;
	size_t i;

	if (o == NULL)
		return;
	for (i = 0; sinks[i] != NULL; i++)
		if (o->st[i] != NULL)
			sinks[i]->release(o->st[i]);
	free(o);
	test->run.rep.out = NULL;
}

static void
tee_begin(struct iperf_test *test)
{
	struct report_out *o;
	size_t i;

	test->report_main->begin(test);
	report_out_release(test); /* a server's previous test */
	if (test->run.err.code == IEOUTFILE)
		return; /* report_out_check() refused a file: none at the end */
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return;
	for (i = 0; sinks[i] != NULL; i++)
		if (sinks[i]->path(test) != NULL)
			o->st[i] = sinks[i]->open(test);
	test->run.rep.out = o;
}

static void
tee_interval(struct iperf_test *test)
{
	struct report_out *o = test->run.rep.out;
	cJSON *iv;
	size_t i;

	test->report_main->interval(test);
	if (o == NULL)
		return;
	iv = report_json_interval(test);
	if (iv == NULL)
		return;
	for (i = 0; sinks[i] != NULL; i++)
		if (o->st[i] != NULL)
			sinks[i]->interval(test, o->st[i], iv);
	cJSON_Delete(iv);
}

static void
tee_summary(struct iperf_test *test)
{
	struct report_out *o = test->run.rep.out;
	cJSON *end;
	size_t i;

	test->report_main->summary(test);
	if (o == NULL)
		return;
	end = report_json_end(test);
	if (end == NULL)
		return;
	for (i = 0; sinks[i] != NULL; i++)
		if (o->st[i] != NULL)
			sinks[i]->summary(test, o->st[i], end);
	cJSON_Delete(end);
}

#if defined(HAVE_PLOT) || defined(HAVE_METRICS)
/* A file that could not be written, in the test's own report too: -J's
 * end.output_errors[] gets {"option", "path", "error"}; a server's text
 * report the error line (its stderr has it in any case). */
static void
record_failure(struct iperf_test *test, const char *option,
    const char *path, int err, const char *msg)
{
	cJSON *end = test->run.rep.json_end, *list, *o;

	if (test->opt->json_output) {
		list = cJSON_GetObjectItemCaseSensitive(end, "output_errors");
		if (end != NULL && list == NULL)
			list = cJSON_AddArrayToObject(end, "output_errors");
		o = cJSON_CreateObject();
		if (o == NULL || cJSON_AddStringToObject(o, "option", option) ==
		    NULL || cJSON_AddStringToObject(o, "path", path) == NULL ||
		    cJSON_AddStringToObject(o, "error", strerror(err)) == NULL ||
		    !cJSON_AddItemToArray(list, o))
			cJSON_Delete(o);
	} else if (test->opt->role == 's' && !test->opt->csv) {
		(void)iperf_printf(test, "iperf3: error - %s\n", msg);
	}
}
#endif

/* Write each file, before the report ends so that a failure is in it
 * (record_failure) besides an error line on stderr; the client exits
 * with status 1, a server goes on. */
static void
tee_finish(struct iperf_test *test)
{
	struct report_out *o = test->run.rep.out;
	char path[PATH_MAX], msg[PATH_MAX + 256];
	size_t i;

	for (i = 0; o != NULL && sinks[i] != NULL; i++) {
		struct iperf_err_state e;
		int err;

		if (o->st[i] == NULL)
			continue;
		if (report_out_path(test, sinks[i]->path(test), path,
			sizeof(path)) == 0 &&
		    write_atomically(test, sinks[i], o->st[i], path) >= 0)
			continue;
		err = errno;
		/* the client's iperf_run_client() fails with it */
		(void)out_fail(test, sinks[i]->name, path, err);
		e = test->run.err;
		iperf_error_format(&e, msg, sizeof(msg));
		report_stderr(test, "iperf3: error - %s\n", msg);
#if defined(HAVE_PLOT) || defined(HAVE_METRICS)
		record_failure(test, sinks[i]->name, path, err, msg);
#endif
		test->out_failed = 1;
	}
	report_out_release(test);
	test->report_main->finish(test);
}

/* The events the sinks do not need, passed on. */
static void
tee_server_listening(struct iperf_test *test)
{
	test->report_main->server_listening(test);
}

static void
tee_on_params(struct iperf_test *test)
{
	test->report_main->on_params(test);
}

static void
tee_on_connect(struct iperf_test *test)
{
	test->report_main->on_connect(test);
}

static void
tee_on_new_stream(struct iperf_stream *sp)
{
	sp->test->report_main->on_new_stream(sp);
}

static void
tee_on_test_start(struct iperf_test *test)
{
	test->report_main->on_test_start(test);
}

static void
tee_error(struct iperf_test *test, const char *msg)
{
	test->report_main->error(test, msg);
}

const struct report_ops report_tee = {
	.begin = tee_begin,
	.server_listening = tee_server_listening,
	.on_params = tee_on_params,
	.on_connect = tee_on_connect,
	.on_new_stream = tee_on_new_stream,
	.on_test_start = tee_on_test_start,
	.interval = tee_interval,
	.summary = tee_summary,
	.finish = tee_finish,
	.error = tee_error,
};
