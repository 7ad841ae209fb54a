/* ctrl_tune.c - options of the control socket (ctrl_tune.h). */
#include "config.h"

#include <errno.h>

#include "ctrl_tune.h"
#include "iperf.h"
#include "iperf_error.h"
#include "net.h"
#include "report.h"
#include "banned.h"

/* -V: the keepalive in effect, in 3.21's words, then where it came from
 * when it is our default rather than the user's --cntl-ka. */
static void
report_keepalive(struct iperf_test *test, const struct net_keepalive *ka,
    const char *origin)
{
	if (!test->opt->verbose || test->opt->json_output)
		return;
	report_raw(test, "Control connection TCP Keepalive "
	    "TCP_KEEPIDLE/TCP_KEEPINTVL/TCP_KEEPCNT are set to %d/%d/%d%s\n",
	    ka->idle, ka->intvl, ka->cnt, origin);
}

/* The defaults for what the user left out (best effort: a kernel without
 * these options keeps its own). */
static void
tune_ctrl_defaults(struct iperf_test *test)
{
	const struct iperf_local *o = test->opt;
	struct net_keepalive ka;

	if (!o->no_cntl_ka) {
		ka.idle = IPERF_CTRL_KA_IDLE_S;
		ka.intvl = IPERF_CTRL_KA_INTVL_S;
		ka.cnt = IPERF_CTRL_KA_CNT;
		if (net_set_keepalive(test->run.ses.ctrl_sck, &ka) == 0)
			report_keepalive(test, &ka, " (default; --no-cntl-ka: none)");
	}
	if (o->snd_timeout_set || net_set_user_timeout(test->run.ses.ctrl_sck,
				      IPERF_CTRL_USER_TIMEOUT_MS) == -1)
		return;
	if (o->verbose && !o->json_output)
		report_raw(test, "Control connection TCP_USER_TIMEOUT is set to "
		    "%d ms (default; --snd-timeout 0: the system setting)\n",
		    IPERF_CTRL_USER_TIMEOUT_MS);
}

/*
 * Control-socket options.  --snd-timeout and --cntl-ka are applied as
 * given; what the user left out gets the defaults of iperf.h that notice
 * a vanished peer: keepalive unless --cntl-ka or --no-cntl-ka was given,
 * TCP_USER_TIMEOUT unless --snd-timeout was given or --cntl-ka (which
 * then keeps its stock meaning).  -V says which are in effect.
 */
int
test_tune_ctrl(struct iperf_test *test)
{
	static const int codes[] = { 0, IESETCNTLKA, IESETCNTLKAKEEPIDLE,
		IESETCNTLKAINTERVAL, IESETCNTLKACOUNT };
	const struct iperf_local *o = test->opt;
	struct net_keepalive ka;
	int step;

	if (o->snd_timeout_ms > 0 &&
	    net_set_user_timeout(test->run.ses.ctrl_sck, o->snd_timeout_ms) == -1)
		return iperf_fail(test, IESETUSERTIMEOUT, errno);
	if (!o->cntl_ka) {
		tune_ctrl_defaults(test);
		return 0;
	}
	ka.idle = o->cntl_ka_idle;
	ka.intvl = o->cntl_ka_intvl;
	ka.cnt = o->cntl_ka_cnt;
	step = net_set_keepalive(test->run.ses.ctrl_sck, &ka);
	if (step == 0)
		step = net_get_keepalive(test->run.ses.ctrl_sck, &ka);
	if (step != 0)
		return iperf_fail(test, codes[step], errno);
	report_keepalive(test, &ka, "");
	return 0;
}
