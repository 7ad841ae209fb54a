/*
 * options_apply_out.c - the options of our extra outputs: --csv (CSV rows
 * in place of the text report), --plot FILE (an SVG of the run) and
 * --metrics FILE (OpenMetrics text at the end of each test).  Conflicts
 * with -J are checked after parsing (options_check.c).
 */
#include "config.h"

#include "iperf.h"
#include "options_int.h"
#include "test_config.h"
#include "banned.h"

int
opt_apply_csv(struct iperf_test *test, const char *arg)
{
	(void)arg;
	test->cfg->opt.csv = 1;
	return 0;
}

int
opt_apply_plot(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->cfg->opt.plot_file, arg);
}

int
opt_apply_metrics(struct iperf_test *test, const char *arg)
{
	return options_string(test, &test->cfg->opt.metrics_file, arg);
}
