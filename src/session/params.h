/*
 * params.h - the parameter document (client -> server) and the result
 * documents (both ways), as cJSON trees.  Pure: no sockets, no clocks.
 */
#ifndef IPERF_PARAMS_H
#define IPERF_PARAMS_H

struct cJSON;
struct iperf_test;

/* Client: the parameter document for test->settings (key order as 3.21). */
struct cJSON *params_encode(const struct iperf_test *test);
/*
 * Server: apply a received parameter document to test->settings.  Wrong
 * types are ignored (as 3.18+ servers do); out-of-range values fail with the
 * matching i_errno code recorded on the test.  0 or -1.
 */
int params_decode(struct iperf_test *test, const struct cJSON *doc);

/* This end's result document (after the test, from the streams' figures). */
struct cJSON *results_encode(struct iperf_test *test);
/* Apply the peer's result document; 0 or -1 (IERECVRESULTS / IESTREAMID). */
int results_decode(struct iperf_test *test, const struct cJSON *doc);

#endif /* IPERF_PARAMS_H */
