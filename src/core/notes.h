/*
 * notes.h - what a transport has to say, kept for the session to report.
 *
 * Transports (proto_*.c) move bytes and return results; they never print.
 * What a user should hear about (a buffer enlarged, GSO unavailable, the
 * UDP block size chosen) they record here, from any thread; the session
 * reports the notes through the test's reporter right after the call
 * that made them (note_flush) and at every periodic check.
 */
#ifndef IPERF_NOTES_H
#define IPERF_NOTES_H

struct iperf_test;

enum note_kind {
	NOTE_WARNING, /* "warning: ..." on stderr (report_warning) */
	NOTE_VERBOSE, /* a line of -V output (not in JSON mode) */
	NOTE_DEBUG    /* a -d line, debug level 2 and up */
};

/* Record a note (printf format; at most 255 bytes kept per note and 16
 * notes between two flushes: a stalled flush drops the newest). */
void note_add(struct iperf_test *test, enum note_kind kind, const char *fmt,
    ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Report and forget the notes recorded so far (the loop thread only). */
void note_flush(struct iperf_test *test);

#endif /* IPERF_NOTES_H */
