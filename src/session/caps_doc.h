/*
 * caps_doc.h - the caps document (core/caps.h) both roles share: what
 * our server sends after EXT_STATE_CAPS (ext.h), what -J records as
 * start.server_caps, and the settings both ends run with.
 *
 *   {"duration": {"requested": 30, "applied": 10, "limit": 10},
 *    "bytes": {...}, "streams": {...}, "bitrate": {...},
 *    "omit": {"requested": 2, "applied": 0}}
 *
 * One object per configured cap; "omit" only when it changed.
 */
#ifndef IPERF_CAPS_DOC_H
#define IPERF_CAPS_DOC_H

#include "caps.h"

struct cJSON;
struct iperf_settings;

/* The document; NULL without memory. */
struct cJSON *caps_doc_encode(const struct server_caps *c);
/* The peer's document into *out (unknown keys ignored): 0, or -1 when
 * it is not an object, a cap object lacks a value or has one out of
 * range. */
int caps_doc_decode(const struct cJSON *doc, struct server_caps *out);
/* {"duration": 30, "bytes": 0, ...}: each configured cap's requested
 * value, or its applied one; NULL without memory.  (One line of an audit
 * log: "requested" and "applied".) */
struct cJSON *caps_requested_json(const struct server_caps *c);
struct cJSON *caps_applied_json(const struct server_caps *c);
/*
 * The applied values into the settings s (the request they were made
 * for): time, omit, -P, -b (and --fq-rate within the rate cap), the
 * count.  0, or -1 when a value is not a clamp of s (more than it asked,
 * or not a whole number of streams a direction).  Both ends run it, so
 * both run with the same settings.
 */
int caps_apply(const struct server_caps *c, struct iperf_settings *s);

#endif /* IPERF_CAPS_DOC_H */
