/*
 * report_select.c - which reporter a test prints with (report_select()):
 * text, JSON or CSV, with the tee of --plot/--metrics sinks in front, and
 * the printer of its notes.  The top of report/: it knows every reporter.
 */
#include "config.h"

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "notes.h"
#include "report.h"
#include "report_int.h"
#include "report_out.h"
#include "banned.h"

/* test->note_out: a note as a warning, a -V line or a -d line. */
static void
report_note(struct iperf_test *test, int kind, const char *text)
{
	switch (kind) {
	case NOTE_WARNING:
		report_warning(test, "%s", text);
		break;
	case NOTE_VERBOSE:
		if (test->opt->verbose && !test->opt->json_output)
			report_raw(test, "%s\n", text);
		break;
	case NOTE_DEBUG:
	default:
		report_debug(test, 2, "%s", text);
		break;
	}
}

void
report_select(struct iperf_test *test)
{
	test->note_out = report_note;
	if (test->opt->json_output)
		test->report_main = &report_json;
	else
#ifdef HAVE_CSV
		test->report_main = test->opt->csv ? &report_csv : &report_text;
#else
		test->report_main = &report_text; /* --csv is not built in */
#endif
	test->reporter = report_out_wanted(test) ? &report_tee :
	    test->report_main;
}

void
report_run_release(struct iperf_test *test)
{
	struct run_report *r = &test->run.rep;

	report_out_release(test);
	cJSON_Delete(r->json_top);
	r->json_top = NULL;
	free(r->json_output_string);
	r->json_output_string = NULL;
	free(r->server_outbuf);
	r->server_outbuf = NULL;
}
