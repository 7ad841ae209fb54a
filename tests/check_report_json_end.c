#include "config.h"
#include "check_report.h"
TCase *
report_json_end_tcase(void)
{
	return tcase_create("json_end");
}
