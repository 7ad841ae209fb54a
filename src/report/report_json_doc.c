/*
 * report_json_doc.c - the -J document written as the run goes (the CLI's
 * output, issue 17): "start" and the opening of "intervals" at the first
 * interval, each interval when it is taken (then freed), the rest at
 * finish.  The bytes are those of cJSON_Print() of the whole document:
 * the formatted printer indents one tab per depth and escapes newlines
 * inside strings, so a member printed alone gets its depth back by a tab
 * after each of its newlines.
 *
 * Only when nothing needs the whole document (report_json_doc_wanted()):
 * a library user reading iperf_get_test_json_output_string() or a JSON
 * callback, a server sending its document to the client
 * (--get-server-output), --json-stream and a --max-tests server's tests
 * (several documents on one output) keep the whole-document path.
 *
 * Tests only: IPERF3_JSON_WHOLE_COPY=FILE in the environment also keeps
 * the whole document and writes its cJSON_Print() to FILE at finish, so
 * a test can compare the two byte for byte (memory then grows as before).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "report.h"
#include "report_int.h"
#include "banned.h"

#define JSON_WHOLE_COPY_ENV "IPERF3_JSON_WHOLE_COPY"

int
report_json_doc_wanted(const struct iperf_test *test)
{
	return test->opt->json_incremental && test->opt->json_output &&
	    !test->opt->json_stream && test->json_callback == NULL &&
	    test->outfile != NULL && test->tag <= 0 &&
	    !(test->opt->role == 's' && test->settings.get_server_output) &&
	    test->run.rep.json_top != NULL && test->run.rep.json_intervals != NULL;
}

int
report_json_doc_copy_wanted(void)
{
	return getenv(JSON_WHOLE_COPY_ENV) != NULL;
}

/* text, a tab more after each newline (depth levels deeper). */
static void
put_indented(FILE *f, const char *text, int depth)
{
	const char *nl;
	int i;

	while ((nl = strchr(text, '\n')) != NULL) {
		(void)fwrite(text, 1, (size_t)(nl - text) + 1, f);
		for (i = 0; i < depth; i++)
			(void)fputc('\t', f);
		text = nl + 1;
	}
	(void)fputs(text, f);
}

/* One member of the top object as cJSON_Print() writes it (no comma). */
static void
put_member(FILE *f, const cJSON *item)
{
	char *value = cJSON_Print(item);

	if (value == NULL)
		return;
	(void)fprintf(f, "\t\"%s\":\t", item->string);
	put_indented(f, value, 1);
	cJSON_free(value);
}

static void
put_done(struct iperf_test *test)
{
	(void)fflush(test->outfile);
	pthread_mutex_unlock(test->out_lock);
}

/* Everything before "intervals" (the whole "start"), then its '['. */
static void
put_head(struct iperf_test *test)
{
	const cJSON *item;

	(void)fputs("{\n", test->outfile);
	for (item = test->run.rep.json_top->child;
	    item != NULL && item != test->run.rep.json_intervals; item = item->next) {
		put_member(test->outfile, item);
		(void)fputs(",\n", test->outfile);
	}
	(void)fputs("\t\"intervals\":\t[", test->outfile);
	test->run.rep.json_doc_state = 1;
}

void
report_json_doc_interval(struct iperf_test *test, const cJSON *iv)
{
	char *text = cJSON_Print(iv);

	if (text == NULL)
		return;
	pthread_mutex_lock(test->out_lock);
	if (test->run.rep.json_doc_state == 2) { /* closed: nothing after it */
		pthread_mutex_unlock(test->out_lock);
		cJSON_free(text);
		return;
	}
	if (test->run.rep.json_doc_state == 0)
		put_head(test);
	if (test->run.rep.json_doc_count++ > 0)
		(void)fputs(", ", test->outfile);
	put_indented(test->outfile, text, 2);
	put_done(test);
	cJSON_free(text);
}

/* The test hook's file: the whole document as the library path prints it. */
static void
write_whole_copy(const struct iperf_test *test)
{
	const char *path = getenv(JSON_WHOLE_COPY_ENV);
	char *text;
	FILE *f;

	if (path == NULL || (text = cJSON_Print(test->run.rep.json_top)) == NULL)
		return;
	f = fopen(path, "w");
	if (f != NULL) {
		(void)fprintf(f, "%s\n", text);
		(void)fclose(f);
	}
	cJSON_free(text);
}

/* 0 when the document was not streamed (print it whole), else nonzero. */
int
report_json_doc_finish(struct iperf_test *test)
{
	const cJSON *item;

	if (test->run.rep.json_doc_state != 1)
		return test->run.rep.json_doc_state;
	pthread_mutex_lock(test->out_lock);
	(void)fputc(']', test->outfile);
	for (item = test->run.rep.json_intervals->next; item != NULL;
	    item = item->next) {
		(void)fputs(",\n", test->outfile);
		put_member(test->outfile, item);
	}
	(void)fputs("\n}\n", test->outfile);
	test->run.rep.json_doc_state = 2;
	put_done(test);
	write_whole_copy(test);
	return 1;
}
