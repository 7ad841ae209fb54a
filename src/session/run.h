/* run.h - releasing a run (test->run). */
#ifndef IPERF_RUN_H
#define IPERF_RUN_H

struct iperf_test;

/* Release every socket, timer, stream and buffer the run owns: the
 * streams (stream/), the probe, placement, control channel and output
 * sinks (each by its owner), then the model's part (test_run_free()).
 * The run's workers must be stopped first (stream_stop_workers). */
void test_run_release(struct iperf_test *test);

/* The settings a test starts with, and a server goes back to before each
 * client's parameters: TCP, 10 s, one stream, the stock block sizes. */
void test_settings_defaults(struct iperf_test *test);
/* A run left midway (the stage functions allow it): stop its workers and
 * take its control socket and data listener out of the loop, so that
 * test_run_release() may close them. */
void test_run_abandon(struct iperf_test *test);

#endif /* IPERF_RUN_H */
