/* check_main.h - each tests/unit/check_<module>.c defines make_suite(). */
#ifndef IPERF_CHECK_MAIN_H
#define IPERF_CHECK_MAIN_H

#include <check.h>

Suite *make_suite(void);

#endif
