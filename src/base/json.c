/* json.c - typed getters over cJSON (see json.h). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json.h"
#include "banned.h"

int64_t
json_number_to_i64(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 18446744073709551616.0)
		return -1; /* beyond 2^64: treat as the unsigned -1 of old peers */
	if (v >= 9223372036854775808.0) {
		/* Old peers print negative numbers as unsigned 64-bit. */
		uint64_t u = (uint64_t)v;
		return (int64_t)(u - UINT64_MAX) - 1;
	}
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;
}

static const cJSON *
lookup(const cJSON *obj, const char *key)
{
	if (obj == NULL || !cJSON_IsObject(obj))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

enum json_get
json_get_i64(const cJSON *obj, const char *key, int64_t min, int64_t max,
    int64_t *out)
{
	const cJSON *it = lookup(obj, key);
	int64_t v;

	if (it == NULL)
		return JSON_ABSENT;
	if (!cJSON_IsNumber(it))
		return JSON_WRONG_TYPE;
	v = json_number_to_i64(it->valuedouble);
	if (v < min || v > max)
		return JSON_OUT_OF_RANGE;
	*out = v;
	return JSON_OK;
}

enum json_get
json_get_int(const cJSON *obj, const char *key, int min, int max, int *out)
{
	int64_t v = 0;
	enum json_get rc = json_get_i64(obj, key, min, max, &v);

	if (rc == JSON_OK)
		*out = (int)v;
	return rc;
}

enum json_get
json_get_double(const cJSON *obj, const char *key, double *out)
{
	const cJSON *it = lookup(obj, key);

	if (it == NULL)
		return JSON_ABSENT;
	if (!cJSON_IsNumber(it))
		return JSON_WRONG_TYPE;
	*out = it->valuedouble;
	return JSON_OK;
}

enum json_get
json_get_bool(const cJSON *obj, const char *key, int *out)
{
	const cJSON *it = lookup(obj, key);

	if (it == NULL)
		return JSON_ABSENT;
	if (!cJSON_IsBool(it))
		return JSON_WRONG_TYPE;
	*out = cJSON_IsTrue(it) ? 1 : 0;
	return JSON_OK;
}

enum json_get
json_get_string(const cJSON *obj, const char *key, const char **out)
{
	const cJSON *it = lookup(obj, key);

	if (it == NULL)
		return JSON_ABSENT;
	if (!cJSON_IsString(it) || it->valuestring == NULL)
		return JSON_WRONG_TYPE;
	*out = it->valuestring;
	return JSON_OK;
}

char *
json_print_compact(const cJSON *obj)
{
	return cJSON_PrintUnformatted(obj);
}

char *
json_print_pretty(const cJSON *obj)
{
	return cJSON_Print(obj);
}

void
json_strip_keys(cJSON *obj, const char *const *keys, size_t n)
{
	cJSON *item, *next;
	size_t i;

	if (obj == NULL)
		return;
	for (item = obj->child; item != NULL; item = next) {
		int drop = 0;

		next = item->next;
		for (i = 0; i < n && cJSON_IsObject(obj) &&
		    item->string != NULL; i++)
			drop |= strcmp(item->string, keys[i]) == 0;
		if (drop)
			cJSON_Delete(cJSON_DetachItemViaPointer(obj, item));
		else
			json_strip_keys(item, keys, n);
	}
}
