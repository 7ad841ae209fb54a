/* check_audit.c - the audit trail: JSON lines read back with cJSON, keys
 * in order with nulls, logrotate's rename and reopen, write failures. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check_main.h"
#include "audit.h"

static const char *const keys[] = {
	"time", "event", "source", "source_port", "server_port", "protocol",
	"direction", "streams", "requested", "applied", "seconds",
	"bytes_sent", "bytes_received", "result", "error", "reason",
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static char dir[] = "/tmp/check_audit_XXXXXX";

static void
setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
	char cmd[64];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static void
path_in(char *buf, size_t len, const char *name)
{
	(void)snprintf(buf, len, "%s/%s", dir, name);
}

/* The file's lines (at most max), each parsed; the count. */
static int
read_lines(const char *path, cJSON **out, int max)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	int n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		size_t l = strlen(line);

		ck_assert_msg(l > 0 && line[l - 1] == '\n', "unterminated line");
		ck_assert_int_lt(n, max);
		out[n] = cJSON_Parse(line);
		ck_assert_msg(out[n] != NULL, "not JSON: %s", line);
		n++;
	}
	(void)fclose(f);
	return n;
}

static void
free_lines(cJSON **v, int n)
{
	while (n-- > 0)
		cJSON_Delete(v[n]);
}

static void
check_keys(const cJSON *o)
{
	const cJSON *k = o->child;
	size_t i;

	for (i = 0; i < NKEYS; i++, k = k->next) {
		ck_assert_ptr_nonnull(k);
		ck_assert_str_eq(k->string, keys[i]);
	}
	ck_assert_ptr_null(k);
}

static void
check_time(const char *t)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
	size_t i;

	ck_assert_uint_eq(strlen(t), strlen(shape));
	for (i = 0; shape[i] != '\0'; i++)
		if (shape[i] == 'd')
			ck_assert_msg(t[i] >= '0' && t[i] <= '9', "time %s", t);
		else
			ck_assert_int_eq(t[i], shape[i]);
}

static struct sockaddr_storage
mapped(const char *v4, int port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	char text[64];

	memset(&ss, 0, sizeof(ss));
	(void)snprintf(text, sizeof(text), "::ffff:%s", v4);
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons((uint16_t)port);
	ck_assert_int_eq(inet_pton(AF_INET6, text, &s6->sin6_addr), 1);
	return ss;
}

static const struct audit_event unknown = {
	.event = "refused", .server_port = 0, .streams = -1, .seconds = -1,
	.result = "refused", .reason = "denied by --allow-file",
};

START_TEST(a_full_line_and_an_unknown_one)
{
	struct sockaddr_storage src = mapped("192.0.2.7", 40123);
	cJSON *req = cJSON_Parse("{\"tcp\":true,\"parallel\":2,\"time\":10}");
	cJSON *app = cJSON_Parse("{\"parallel\":2,\"time\":5}");
	struct audit_event e = {
		.event = "test", .source = &src, .server_port = 5201,
		.protocol = "TCP", .direction = "bidir", .streams = 4,
		.requested = req, .applied = app, .seconds = 5.25,
		.bytes_sent = UINT64_MAX, .bytes_received = 1234567,
		.result = "ok",
	};
	char path[128], err[256];
	struct audit *a;
	cJSON *l[4];
	struct stat st;
	mode_t um = umask(022);

	path_in(path, sizeof(path), "audit.log");
	a = audit_open(path, err, sizeof(err));
	(void)umask(um);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(audit_write(a, &e), 0);
	ck_assert_int_eq(audit_write(a, &unknown), 0);
	audit_close(a);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0640);
	ck_assert_int_eq(read_lines(path, l, 4), 2);
	check_keys(l[0]);
	check_keys(l[1]);
	check_time(cJSON_GetObjectItem(l[0], "time")->valuestring);
	ck_assert_str_eq(cJSON_GetObjectItem(l[0], "event")->valuestring, "test");
	ck_assert_str_eq(cJSON_GetObjectItem(l[0], "source")->valuestring,
	    "192.0.2.7");
	ck_assert_int_eq(cJSON_GetObjectItem(l[0], "source_port")->valueint,
	    40123);
	ck_assert_int_eq(cJSON_GetObjectItem(l[0], "server_port")->valueint,
	    5201);
	ck_assert_str_eq(cJSON_GetObjectItem(l[0], "protocol")->valuestring,
	    "TCP");
	ck_assert_str_eq(cJSON_GetObjectItem(l[0], "direction")->valuestring,
	    "bidir");
	ck_assert_int_eq(cJSON_GetObjectItem(l[0], "streams")->valueint, 4);
	ck_assert(cJSON_Compare(cJSON_GetObjectItem(l[0], "requested"), req, 1));
	ck_assert(cJSON_Compare(cJSON_GetObjectItem(l[0], "applied"), app, 1));
	ck_assert_double_eq(cJSON_GetObjectItem(l[0], "seconds")->valuedouble,
	    5.25);
	ck_assert_double_eq(
	    cJSON_GetObjectItem(l[0], "bytes_received")->valuedouble, 1234567);
	ck_assert_str_eq(cJSON_GetObjectItem(l[0], "result")->valuestring, "ok");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(l[0], "error")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(l[0], "reason")));
	{
		static const char *const nulls[] = { "source", "source_port",
		    "server_port", "protocol", "direction", "streams",
		    "requested", "applied", "seconds", "error" };
		size_t i;

		for (i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
			ck_assert_msg(cJSON_IsNull(cJSON_GetObjectItem(l[1],
			    nulls[i])), "%s not null", nulls[i]);
	}
	ck_assert_str_eq(cJSON_GetObjectItem(l[1], "reason")->valuestring,
	    "denied by --allow-file");
	ck_assert_double_eq(cJSON_GetObjectItem(l[1], "bytes_sent")->valuedouble,
	    0);
	free_lines(l, 2);
	cJSON_Delete(req);
	cJSON_Delete(app);
}
END_TEST

/* The 64-bit counters are written exactly, and a bad string is fixed. */
START_TEST(exact_counters_and_utf8)
{
	struct audit_event e = unknown;
	char path[128], err[256], line[1024];
	struct audit *a;
	FILE *f;
	cJSON *o;

	e.bytes_sent = UINT64_MAX;
	e.bytes_received = (1ULL << 53) + 1;
	e.error = "bad \xff\xc3(\xe2\x82 text \xc3\xa9 \"quoted\"\n";
	path_in(path, sizeof(path), "x.log");
	a = audit_open(path, err, sizeof(err));
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(audit_write(a, &e), 0);
	audit_close(a);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	(void)fclose(f);
	ck_assert_ptr_nonnull(strstr(line,
	    "\"bytes_sent\":18446744073709551615,"));
	ck_assert_ptr_nonnull(strstr(line,
	    "\"bytes_received\":9007199254740993,"));
	o = cJSON_Parse(line);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(cJSON_GetObjectItem(o, "error")->valuestring,
	    "bad ?" "?(?" "? text \xc3\xa9 \"quoted\"\n");
	cJSON_Delete(o);
}
END_TEST

START_TEST(reopen_after_rename)
{
	char path[128], old[128], err[256];
	struct audit *a;
	cJSON *l[4];

	path_in(path, sizeof(path), "audit.log");
	path_in(old, sizeof(old), "audit.log.1");
	a = audit_open(path, err, sizeof(err));
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(audit_write(a, &unknown), 0);
	ck_assert_int_eq(rename(path, old), 0);
	ck_assert_int_eq(audit_write(a, &unknown), 0); /* still the old one */
	ck_assert_int_eq(audit_reopen(a, err, sizeof(err)), 0);
	ck_assert_int_eq(audit_write(a, &unknown), 0);
	audit_close(a);
	ck_assert_int_eq(read_lines(old, l, 4), 2);
	free_lines(l, 2);
	ck_assert_int_eq(read_lines(path, l, 4), 1);
	check_keys(l[0]);
	free_lines(l, 1);
}
END_TEST

START_TEST(failures_warn_once)
{
	char link[128], good[128], err[256];
	struct audit *a;
	cJSON *l[4];

	path_in(link, sizeof(link), "audit.log");
	path_in(good, sizeof(good), "good.log");
	ck_assert_int_eq(symlink("/dev/full", link), 0);
	a = audit_open(link, err, sizeof(err));
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(audit_write(a, &unknown), 1);
	ck_assert_int_eq(audit_write(a, &unknown), -1);
	ck_assert_int_eq(audit_write(a, &unknown), -1);
	/* The rotation points the path at a good file. */
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(symlink(good, link), 0);
	ck_assert_int_eq(audit_reopen(a, err, sizeof(err)), 0);
	ck_assert_int_eq(audit_write(a, &unknown), 0);
	ck_assert_int_eq(audit_write(a, &unknown), 0);
	/* A failed reopen keeps the file in use. */
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(mkdir(link, 0700), 0);
	ck_assert_int_eq(audit_reopen(a, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, ": Is a directory"));
	ck_assert_int_eq(audit_write(a, &unknown), 0);
	audit_close(a);
	ck_assert_int_eq(read_lines(good, l, 4), 3);
	free_lines(l, 3);
}
END_TEST

START_TEST(open_errors_and_stdout)
{
	char path[128], err[256];
	struct audit *a;
	int saved, fd;
	cJSON *l[4];

	path_in(path, sizeof(path), "no/such/dir");
	ck_assert_ptr_null(audit_open(path, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "no/such/dir: No such file"));
	ck_assert_ptr_null(audit_open(path, err, 0));
	audit_close(NULL);
	/* "-": standard output, never closed, reopen does nothing. */
	path_in(path, sizeof(path), "stdout.log");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ne(fd, -1);
	(void)fflush(stdout);
	saved = dup(STDOUT_FILENO);
	ck_assert_int_ne(dup2(fd, STDOUT_FILENO), -1);
	(void)close(fd);
	a = audit_open("-", err, sizeof(err));
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(audit_write(a, &unknown), 0);
	ck_assert_int_eq(audit_reopen(a, err, sizeof(err)), 0);
	ck_assert_int_eq(audit_write(a, &unknown), 0);
	audit_close(a);
	ck_assert_int_ne(fcntl(STDOUT_FILENO, F_GETFD), -1);
	ck_assert_int_ne(dup2(saved, STDOUT_FILENO), -1);
	(void)close(saved);
	ck_assert_int_eq(read_lines(path, l, 4), 2);
	free_lines(l, 2);
}
END_TEST

#define THREADS 4
#define PER_THREAD 250

static void *
writer(void *arg)
{
	struct audit *a = arg;
	struct audit_event e = unknown;
	int i;

	e.error = "a longer error text, so that lines are not tiny, a longer "
	    "error text, so that lines are not tiny";
	for (i = 0; i < PER_THREAD; i++)
		if (audit_write(a, &e) != 0)
			return arg;
	return NULL;
}

START_TEST(threads_write_whole_lines)
{
	static cJSON *l[THREADS * PER_THREAD + 1];
	pthread_t th[THREADS];
	char path[128], err[256];
	struct audit *a;
	int i, n;

	path_in(path, sizeof(path), "threads.log");
	a = audit_open(path, err, sizeof(err));
	ck_assert_ptr_nonnull(a);
	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, writer, a), 0);
	for (i = 0; i < THREADS; i++) {
		void *rc;

		ck_assert_int_eq(pthread_join(th[i], &rc), 0);
		ck_assert_ptr_null(rc);
	}
	audit_close(a);
	n = read_lines(path, l, THREADS * PER_THREAD + 1);
	ck_assert_int_eq(n, THREADS * PER_THREAD);
	for (i = 0; i < n; i++)
		check_keys(l[i]);
	free_lines(l, n);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("audit");
	TCase *tc = tcase_create("lines");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_full_line_and_an_unknown_one);
	tcase_add_test(tc, exact_counters_and_utf8);
	tcase_add_test(tc, reopen_after_rename);
	tcase_add_test(tc, failures_warn_once);
	tcase_add_test(tc, open_errors_and_stdout);
	tcase_add_test(tc, threads_write_whole_lines);
	suite_add_tcase(s, tc);
	return s;
}
