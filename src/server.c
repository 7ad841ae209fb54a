/* server.c - server state machine (stub until implemented). */
#include "config.h"
#include "iperf.h"
#include "iperf_error.h"
#include "server.h"
#include "banned.h"
int server_run(struct iperf_test *test) { return iperf_fail(test, IEUNIMP, 0) * 2; }
void server_close_listener(struct iperf_test *test) { (void)test; }
