/*
 * api_cli.h - what the iperf3 program (cli/) asks of the library beyond
 * the public API (iperf_api.h).  Not exported from libiperf.so.0.
 */
#ifndef IPERF_API_CLI_H
#define IPERF_API_CLI_H

struct iperf_test;

/* Write the -J document as the run goes when nothing needs it whole
 * (report_json_doc.c); the library default keeps it whole. */
void iperf_cli_json_incremental(struct iperf_test *test, int on);

#endif /* IPERF_API_CLI_H */
