/* client.c - client state machine (stub until implemented). */
#include "config.h"
#include "client.h"
#include "iperf.h"
#include "iperf_error.h"
#include "banned.h"
int client_run(struct iperf_test *test) { return iperf_fail(test, IEUNIMP, 0); }
