/*
 * exporter.h - iperf3 --exporter: a Prometheus exporter with the
 * endpoints of edgard/iperf3_exporter (/probe, /metrics) and /health,
 * /ready, over the http layer.  Each /probe runs an iperf3 client in
 * this process through libiperf's public API, as a program embedding the
 * library would.  docs/architecture.md ("The exporter") has the design,
 * docs/iperf3.1 (EXPORTER) the behaviour.
 */
#ifndef IPERF_EXPORTER_H
#define IPERF_EXPORTER_H

struct iperf_test;

/* Serves until SIGINT, SIGTERM or SIGHUP, with the options of test
 * (--exporter, --exporter-allow, --exporter-max-*; its log is the test's
 * error output).  The exit status: 0, or 1 when it cannot start (a
 * build without the exporter says so). */
int exporter_main(struct iperf_test *test);

#endif /* IPERF_EXPORTER_H */
