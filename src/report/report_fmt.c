/*
 * report_fmt.c - the pieces every reporter builds with (report_int.h): a
 * line of text, JSON members that record an allocation failure.  The
 * lowest file of report/ but report.c: the reporters call it, it calls
 * none of them.
 */
#include "config.h"

#include <cjson/cJSON.h>

#include "iperf.h"
#include "report.h"
#include "report_int.h"
#include "banned.h"

void
report_text_line(struct iperf_test *test, const char *line)
{
	(void)iperf_printf(test, "%s", line);
}

/* JSON builders record an allocation failure in *err and carry on. */
void
report_json_num(cJSON *o, const char *key, double v, int *err)
{
	if (o == NULL || cJSON_AddNumberToObject(o, key, v) == NULL)
		*err = 1;
}

void
report_json_flag(cJSON *o, const char *key, int v, int *err)
{
	if (o == NULL || cJSON_AddBoolToObject(o, key, v != 0) == NULL)
		*err = 1;
}

void
report_json_str(cJSON *o, const char *key, const char *v, int *err)
{
	if (o == NULL || cJSON_AddStringToObject(o, key, v) == NULL)
		*err = 1;
}

void
report_json_attach(cJSON *parent, const char *key, cJSON *child, int *err)
{
	if (child == NULL || parent == NULL ||
	    !cJSON_AddItemToObject(parent, key, child)) {
		cJSON_Delete(child);
		*err = 1;
	}
}
