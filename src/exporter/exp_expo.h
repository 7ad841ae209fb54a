/*
 * exp_expo.h - Prometheus' text exposition format (0.0.4) for the
 * exporter: a growing text buffer, families (# HELP, # TYPE) and samples
 * with escaped label values, and what /probe answers, read from the
 * client's JSON result document.  No socket, no clock.
 */
#ifndef IPERF_EXP_EXPO_H
#define IPERF_EXP_EXPO_H

#include <stddef.h>

#define EXP_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Text that grows; after an allocation failure it stays failed. */
struct exp_buf {
	char *p;
	size_t len, cap;
	int failed;
};

void exp_buf_init(struct exp_buf *b);
void exp_buf_printf(struct exp_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The text (malloc'd, NUL-terminated, *len without the NUL) and the
 * buffer emptied; NULL if an allocation failed (the buffer freed). */
char *exp_buf_take(struct exp_buf *b, size_t *len);

/* "# HELP name help" and "# TYPE name type". */
void exp_family(struct exp_buf *b, const char *name, const char *type,
    const char *help);
/* name{labels} value, labels already formatted ("" for none); the
 * value as the shortest text that reads back the same (NaN, +Inf,
 * -Inf).  Label values are escaped (\\, \" and \n) by
 * exp_write_probe(). */
void exp_sample(struct exp_buf *b, const char *name, const char *labels,
    double v);

/* What a probe gives /probe. */
struct exp_probe_view {
	const char *target; /* the target label (the parameter as given) */
	int port;
	int udp;
	int ran_ok;	    /* the client run returned success */
	int capped;	    /* the bitrate was lowered to the maximum */
	double duration_s;  /* the whole probe */
	const char *json;   /* the client's result document, or NULL */
};

/* /probe's text for v into b: iperf3_up, the figures of the document
 * (iperf3_exporter's names, then ours), probe_success and
 * probe_duration_seconds.  The probe is up when it ran, the document
 * parses, has no "error" and has end.sum_sent and end.sum_received.
 * Returns up (1 or 0). */
int exp_write_probe(struct exp_buf *b, const struct exp_probe_view *v);

#endif /* IPERF_EXP_EXPO_H */
