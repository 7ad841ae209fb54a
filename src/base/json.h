/*
 * json.h - typed, range-checked access to cJSON documents from the peer.
 * Never read ->valueint directly: these getters bound every number and
 * map integers printed as unsigned 64-bit by old peers (>= 2^63) to their
 * negative value.
 */
#ifndef IPERF_JSON_H
#define IPERF_JSON_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;

enum json_get {
	JSON_ABSENT = 0,
	JSON_OK = 1,
	JSON_WRONG_TYPE = -1,
	JSON_OUT_OF_RANGE = -2,
};

/* Integer (fractions truncated toward zero) in [min, max]. */
enum json_get json_get_i64(const struct cJSON *obj, const char *key,
    int64_t min, int64_t max, int64_t *out);
enum json_get json_get_int(const struct cJSON *obj, const char *key, int min,
    int max, int *out);
enum json_get json_get_double(const struct cJSON *obj, const char *key,
    double *out);
/* Present and a JSON boolean (true or false). */
enum json_get json_get_bool(const struct cJSON *obj, const char *key,
    int *out);
/* String; *out points into the document. */
enum json_get json_get_string(const struct cJSON *obj, const char *key,
    const char **out);

/* Convert a JSON number to int64 the way a 64-bit integer view would:
 * truncation toward zero, saturation, >= 2^63 wraps to negative. */
int64_t json_number_to_i64(double v);

/* Delete every member named one of keys[0..n-1] from the objects of the
 * tree (at any depth). */
void json_strip_keys(struct cJSON *obj, const char *const *keys, size_t n);

/* Print compact (for the wire) or pretty; the caller frees.  NULL on ENOMEM. */
char *json_print_compact(const struct cJSON *obj);
char *json_print_pretty(const struct cJSON *obj);

#endif /* IPERF_JSON_H */
