/* report_plot.h - the --plot FILE sink (report_plot.c, report_out.h). */
#ifndef IPERF_REPORT_PLOT_H
#define IPERF_REPORT_PLOT_H

struct out_sink;

extern const struct out_sink report_plot_sink;

#endif /* IPERF_REPORT_PLOT_H */
