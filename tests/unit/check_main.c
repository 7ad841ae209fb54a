/* check_main.c - the one main() of every Check runner. */
#include "config.h"

#include <stdlib.h>

#include "check_main.h"

int
main(void)
{
	SRunner *sr = srunner_create(make_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
