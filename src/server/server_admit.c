/* server_admit.c - whom the dispatcher serves: the reasons and the slot
 * (see server_admit.h; the checks at accept() are server_gate.c's). */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <stdio.h>

#include "iperf.h"
#include "server_admit.h"
#include "util.h"
#include "banned.h"


#ifdef HAVE_OPERATOR
#define GATE_REASON(label, text) { label, text }
static const struct {
	const char *label, *text;
} reasons[GATE_COUNT] = {
#else
/* without the operator's server the labels go nowhere (no audit log, no
 * metrics): the sentences alone */
#define GATE_REASON(label, text) { text }
static const struct {
	const char *text;
} reasons[GATE_COUNT] = {
#endif
	[GATE_OK] = GATE_REASON("ok", "admitted"),
#ifdef HAVE_OPERATOR /* reasons only the operator's options give */
	[GATE_DENIED] = GATE_REASON("denied", "its address is not allowed "
	    "(--allow, --deny, --allow-file)"),
	[GATE_ACCEPT_RATE] = GATE_REASON("accept_rate", "its address opens "
	    "connections faster than --accept-rate"),
	[GATE_PENDING] = GATE_REASON("pending", "its address has too many "
	    "connections not yet admitted"),
	[GATE_PER_PREFIX] = GATE_REASON("per_prefix", "this network has all "
	    "its slots (--max-tests-per-prefix)"),
	[GATE_CAPS] = GATE_REASON("caps", "the test asks for more than the "
	    "server's caps allow"),
	[GATE_PARAMS] = GATE_REASON("params", "its parameters were refused"),
#endif
	[GATE_PER_IP] = GATE_REASON("per_ip", "this address has all its slots "
	    "(--max-tests-per-ip)"),
	[GATE_BUSY] = GATE_REASON("busy", "every test slot (--max-tests) is in "
	    "use"),
	[GATE_ONE_OFF] = GATE_REASON("one_off", "the one test of --one-off is "
	    "served"),
	[GATE_THREADS] = GATE_REASON("threads", "the test would exceed the "
	    "server's thread budget"),
	[GATE_FDS] = GATE_REASON("fds", "the test would exceed the server's "
	    "file descriptors"),
	[GATE_TURN] = GATE_REASON("setup_turn", "no turn to set up its streams "
	    "in time"),
};
#undef GATE_REASON

#ifdef HAVE_OPERATOR
const char *
gate_label(enum gate_reason r)
{
	return r < GATE_COUNT && reasons[r].label != NULL ? reasons[r].label :
							     "other";
}
#endif

const char *
gate_text(enum gate_reason r)
{
	return r < GATE_COUNT && reasons[r].text != NULL ? reasons[r].text :
							   "refused";
}

enum gate_reason
gate_at_slot(const struct iperf_local *o, int active,
    const struct gate_counts *c, int threads_used, int threads)
{
	int cap = o->max_tests > 1 ? o->max_tests : 1;
	struct rlimit rl;
	int fds;

	if (active >= cap)
		return GATE_BUSY;
	if (o->max_tests_per_ip > 0 && c->host_active >= o->max_tests_per_ip)
		return GATE_PER_IP;
	if (o->max_tests_per_prefix > 0 &&
	    c->prefix_active >= o->max_tests_per_prefix)
		return GATE_PER_PREFIX;
	if (threads_used + threads > GATE_THREAD_BUDGET)
		return GATE_THREADS;
	fds = open_fd_count();
	if (fds >= 0 && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)fds + (rlim_t)threads + GATE_FD_RESERVE > rl.rlim_cur)
		return GATE_FDS;
	return GATE_OK;
}
