/* check_server_stats.c - the server's live figures (server_stats.c):
 * counts after a sequence of calls, read back from the rendered text. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "server_stats.h"

static char *
render(struct server_stats *s)
{
	char *text = NULL;
	size_t len = 0;

	ck_assert_int_eq(server_stats_render(s, &text, &len), 0);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(strlen(text), len);
	ck_assert(len > 0 && text[len - 1] == '\n');
	return text;
}

/* The whole line `line` is in text. */
static int
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
		p += n;
	}
	return 0;
}

#define LINE(text, line) \
	ck_assert_msg(has_line(text, line), "no line \"%s\" in:\n%s", line, text)
#define NO_LINE(text, line) \
	ck_assert_msg(!has_line(text, line), "line \"%s\" in:\n%s", line, text)

START_TEST(a_new_registry_has_every_family_at_zero)
{
	struct server_stats *s = server_stats_new();
	char *t = render(s);

	LINE(t, "# HELP iperf3_server_tests_running Tests running now, by protocol.");
	LINE(t, "# TYPE iperf3_server_tests_running gauge");
	LINE(t, "iperf3_server_tests_running{protocol=\"TCP\"} 0");
	LINE(t, "iperf3_server_tests_running{protocol=\"UDP\"} 0");
	LINE(t, "iperf3_server_tests_running{protocol=\"SCTP\"} 0");
	LINE(t, "# TYPE iperf3_server_tests_total counter");
	LINE(t, "iperf3_server_tests_total{protocol=\"SCTP\",result=\"error\"} 0");
	LINE(t, "iperf3_server_tests_total{protocol=\"TCP\",result=\"ok\"} 0");
	LINE(t, "# TYPE iperf3_server_refusals_total counter");
	LINE(t, "iperf3_server_refusals_total{reason=\"busy\"} 0");
	LINE(t, "iperf3_server_refusals_total{reason=\"pending\"} 0");
	LINE(t, "# TYPE iperf3_server_bytes_total counter");
	LINE(t, "iperf3_server_bytes_total{direction=\"sent\"} 0");
	LINE(t, "iperf3_server_bytes_total{direction=\"received\"} 0");
	LINE(t, "# TYPE iperf3_server_test_duration_seconds histogram");
	LINE(t, "iperf3_server_test_duration_seconds_bucket{le=\"+Inf\"} 0");
	LINE(t, "iperf3_server_test_duration_seconds_sum 0");
	LINE(t, "iperf3_server_test_duration_seconds_count 0");
	LINE(t, "# TYPE iperf3_server_limits_hit_total counter");
	LINE(t, "iperf3_server_limits_hit_total{limit=\"bitrate\"} 0");
	LINE(t, "# TYPE iperf3_server_start_time_seconds gauge");
	LINE(t, "# TYPE process_cpu_seconds_total counter");
	LINE(t, "# TYPE process_open_fds gauge");
	LINE(t, "# TYPE process_max_fds gauge");
	LINE(t, "# TYPE process_resident_memory_bytes gauge");
	/* Nothing counted as "other": no such series. */
	ck_assert_ptr_null(strstr(t, "\"other\""));
	free(t);
	server_stats_free(s);
	server_stats_free(NULL);
}
END_TEST

START_TEST(tests_are_counted_by_protocol_and_result)
{
	struct server_stats *s = server_stats_new();
	char *t;

	server_stats_test_started(s, "TCP");
	server_stats_test_started(s, "TCP");
	server_stats_test_started(s, "UDP");
	server_stats_test_started(s, "TCP");
	server_stats_test_ended(s, "TCP", "ok", 10, 1000, 5000000000ULL);
	server_stats_test_ended(s, "TCP", "error", 0.5, 0, 0);
	server_stats_test_started(s, "SCTP");
	t = render(s);
	LINE(t, "iperf3_server_tests_running{protocol=\"TCP\"} 1");
	LINE(t, "iperf3_server_tests_running{protocol=\"UDP\"} 1");
	LINE(t, "iperf3_server_tests_running{protocol=\"SCTP\"} 1");
	LINE(t, "iperf3_server_tests_total{protocol=\"TCP\",result=\"ok\"} 1");
	LINE(t, "iperf3_server_tests_total{protocol=\"TCP\",result=\"error\"} 1");
	LINE(t, "iperf3_server_tests_total{protocol=\"UDP\",result=\"ok\"} 0");
	LINE(t, "iperf3_server_bytes_total{direction=\"sent\"} 1000");
	LINE(t, "iperf3_server_bytes_total{direction=\"received\"} 5000000000");
	free(t);
	/* Ended more often than started: the gauge stays at 0; an unknown
	 * result is an error, an unknown protocol "other". */
	server_stats_test_ended(s, "UDP", "weird", 1, 1, 2);
	server_stats_test_ended(s, "UDP", NULL, 1, 0, 0);
	server_stats_test_ended(s, "QUIC", "ok", 1, 0, 0);
	t = render(s);
	LINE(t, "iperf3_server_tests_running{protocol=\"UDP\"} 0");
	LINE(t, "iperf3_server_tests_total{protocol=\"UDP\",result=\"error\"} 2");
	LINE(t, "iperf3_server_tests_total{protocol=\"other\",result=\"ok\"} 1");
	LINE(t, "iperf3_server_tests_total{protocol=\"other\",result=\"error\"} 0");
	LINE(t, "iperf3_server_bytes_total{direction=\"sent\"} 1001");
	LINE(t, "iperf3_server_bytes_total{direction=\"received\"} 5000000002");
	free(t);
	server_stats_free(s);
}
END_TEST

START_TEST(the_duration_histogram_is_cumulative)
{
	static const double d[] = { 0.2, 1, 1.5, 3, 10, 10.5, 59, 700, 86400, -1 };
	struct server_stats *s = server_stats_new();
	char *t;
	size_t i;

	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		server_stats_test_ended(s, "TCP", "ok", d[i], 0, 0);
	t = render(s);
	/* -1 counts as 0 s; a bucket holds what is <= its bound. */
	LINE(t, "iperf3_server_test_duration_seconds_bucket{le=\"1\"} 3");
	LINE(t, "iperf3_server_test_duration_seconds_bucket{le=\"2\"} 4");
	LINE(t, "iperf3_server_test_duration_seconds_bucket{le=\"5\"} 5");
	LINE(t, "iperf3_server_test_duration_seconds_bucket{le=\"10\"} 6");
	LINE(t, "iperf3_server_test_duration_seconds_bucket{le=\"30\"} 7");
	LINE(t, "iperf3_server_test_duration_seconds_bucket{le=\"60\"} 8");
	LINE(t, "iperf3_server_test_duration_seconds_bucket{le=\"120\"} 8");
	LINE(t, "iperf3_server_test_duration_seconds_bucket{le=\"300\"} 8");
	LINE(t, "iperf3_server_test_duration_seconds_bucket{le=\"600\"} 8");
	LINE(t, "iperf3_server_test_duration_seconds_bucket{le=\"+Inf\"} 10");
	LINE(t, "iperf3_server_test_duration_seconds_sum 87185.2");
	LINE(t, "iperf3_server_test_duration_seconds_count 10");
	/* The buckets in order, +Inf last, then _sum and _count. */
	ck_assert(strstr(t, "le=\"1\"") < strstr(t, "le=\"2\""));
	ck_assert(strstr(t, "le=\"600\"") < strstr(t, "le=\"+Inf\""));
	ck_assert(strstr(t, "le=\"+Inf\"") < strstr(t, "_sum "));
	ck_assert(strstr(t, "_sum ") < strstr(t, "_count "));
	free(t);
	server_stats_free(s);
}
END_TEST

START_TEST(refusals_and_limits_by_label)
{
	struct server_stats *s = server_stats_new();
	char name[16], *t;
	int i;

	server_stats_refused(s, "busy");
	server_stats_refused(s, "busy");
	server_stats_refused(s, "per_ip");
	server_stats_refused(s, "new_reason");
	server_stats_refused(s, "Bad-Label");
	server_stats_refused(s, "");
	server_stats_refused(s, NULL);
	server_stats_refused(s, "a_label_of_thirty_two_characters");
	server_stats_limit_hit(s, "bytes");
	server_stats_limit_hit(s, "duration");
	server_stats_limit_hit(s, "duration");
	t = render(s);
	LINE(t, "iperf3_server_refusals_total{reason=\"busy\"} 2");
	LINE(t, "iperf3_server_refusals_total{reason=\"per_ip\"} 1");
	LINE(t, "iperf3_server_refusals_total{reason=\"denied\"} 0");
	LINE(t, "iperf3_server_refusals_total{reason=\"new_reason\"} 1");
	LINE(t, "iperf3_server_refusals_total{reason=\"other\"} 4");
	LINE(t, "iperf3_server_limits_hit_total{limit=\"duration\"} 2");
	LINE(t, "iperf3_server_limits_hit_total{limit=\"bytes\"} 1");
	LINE(t, "iperf3_server_limits_hit_total{limit=\"streams\"} 0");
	ck_assert_ptr_null(strstr(t, "Bad-Label"));
	free(t);
	/* 7 known + new_reason + 24 more fill the 32; the rest is "other". */
	for (i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "r_%c%c", 'a' + i / 26, 'a' + i % 26);
		server_stats_refused(s, name);
	}
	t = render(s);
	LINE(t, "iperf3_server_refusals_total{reason=\"r_ax\"} 1");
	NO_LINE(t, "iperf3_server_refusals_total{reason=\"r_ay\"} 1");
	LINE(t, "iperf3_server_refusals_total{reason=\"other\"} 10");
	free(t);
	server_stats_free(s);
}
END_TEST

START_TEST(the_start_time_is_now)
{
	struct server_stats *s = server_stats_new();
	char *t = render(s), *p;
	double when;
	time_t now = time(NULL);

	p = strstr(t, "\niperf3_server_start_time_seconds ");
	ck_assert_ptr_nonnull(p);
	when = strtod(p + strlen("\niperf3_server_start_time_seconds "), NULL);
	ck_assert_double_le(fabs(when - (double)now), 2);
	p = strstr(t, "\nprocess_open_fds ");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_ge(strtol(p + strlen("\nprocess_open_fds "), NULL, 10), 3);
	free(t);
	server_stats_free(s);
}
END_TEST

static void *
hammer(void *arg)
{
	struct server_stats *s = arg;
	char *t;
	size_t len;
	int i;

	for (i = 0; i < 1000; i++) {
		server_stats_test_started(s, "UDP");
		server_stats_refused(s, "caps");
		server_stats_test_ended(s, "UDP", "ok", 1, 1, 1);
		if (i % 100 == 0 && server_stats_render(s, &t, &len) == 0)
			free(t);
	}
	return NULL;
}

START_TEST(threads_count_together)
{
	struct server_stats *s = server_stats_new();
	pthread_t th[4];
	char *t;
	int i;

	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, hammer, s), 0);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	t = render(s);
	LINE(t, "iperf3_server_tests_total{protocol=\"UDP\",result=\"ok\"} 4000");
	LINE(t, "iperf3_server_refusals_total{reason=\"caps\"} 4000");
	LINE(t, "iperf3_server_bytes_total{direction=\"sent\"} 4000");
	LINE(t, "iperf3_server_tests_running{protocol=\"UDP\"} 0");
	free(t);
	server_stats_free(s);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("server_stats");
	TCase *tc = tcase_create("registry");

	tcase_add_test(tc, a_new_registry_has_every_family_at_zero);
	tcase_add_test(tc, tests_are_counted_by_protocol_and_result);
	tcase_add_test(tc, the_duration_histogram_is_cumulative);
	tcase_add_test(tc, refusals_and_limits_by_label);
	tcase_add_test(tc, the_start_time_is_now);
	tcase_add_test(tc, threads_count_together);
	suite_add_tcase(s, tc);
	return s;
}
