/* notes.c - notes recorded by any thread, handed to the reporter's
 * note_out by the loop thread (see notes.h). */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "iperf.h"
#include "notes.h"
#include "banned.h"

void
note_add(struct iperf_test *test, enum note_kind kind, const char *fmt, ...)
{
	struct iperf_run *r = &test->run;
	va_list ap;

	pthread_mutex_lock(&test->note_lock);
	if (r->nnotes < IPERF_NOTES_MAX) {
		r->note_kind[r->nnotes] = (int)kind;
		va_start(ap, fmt);
		(void)vsnprintf(r->notes[r->nnotes], sizeof(r->notes[0]), fmt, ap);
		va_end(ap);
		r->nnotes++;
	}
	pthread_mutex_unlock(&test->note_lock);
}

void
note_flush(struct iperf_test *test)
{
	struct iperf_run *r = &test->run;
	char text[IPERF_NOTES_MAX][sizeof(r->notes[0])];
	int kind[IPERF_NOTES_MAX];
	int i, n;

	if (test->note_out == NULL)
		return; /* kept until there is a reporter */
	pthread_mutex_lock(&test->note_lock);
	n = r->nnotes;
	memcpy(text, r->notes, sizeof(text[0]) * (size_t)n);
	memcpy(kind, r->note_kind, sizeof(kind[0]) * (size_t)n);
	r->nnotes = 0;
	pthread_mutex_unlock(&test->note_lock);
	for (i = 0; i < n; i++)
		test->note_out(test, kind[i], text[i]);
}
