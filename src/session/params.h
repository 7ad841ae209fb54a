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

#ifdef HAVE_PEERIVAL
struct latsum;
/* Our summaries ({"samples", "min", "p50", "p90", "p99", "max"}, us):
 * add one to o (0, or -1 on no memory); read one, 1 if every field is
 * a finite number >= 0, else 0 (*out zeroed). */
int params_add_latsum(struct cJSON *o, const char *key,
    const struct latsum *s);
int params_decode_latsum(const struct cJSON *o, const char *key,
    struct latsum *out);
#endif

#endif /* IPERF_PARAMS_H */
