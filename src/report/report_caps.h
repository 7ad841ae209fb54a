/*
 * report_caps.h - the server's caps on a test (core/caps.h) in the
 * output: -J's start.server_caps (both roles), and on a client's text
 * output one line per cap that changed its request.
 */
#ifndef IPERF_REPORT_CAPS_H
#define IPERF_REPORT_CAPS_H

#include "caps.h"

struct iperf_test;
struct cJSON;

/* doc: the caps document (session/caps_doc.h), copied into -J's start;
 * start.target_bitrate and fq_rate follow the clamped settings. */
void report_server_caps(struct iperf_test *test, const struct server_caps *c,
    const struct cJSON *doc);

#endif /* IPERF_REPORT_CAPS_H */
