/* run.c - a run's settings, its abandonment and its release: each
 * owner's part, then the model's (run.h). */
#include "config.h"

#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctrl.h"
#include "evloop.h"
#include "iperf.h"
#include "placement.h"
#include "probe.h"
#include "proto.h"
#include "report_out.h"
#include "run.h"
#include "stream.h"
#include "stream_set.h"
#include "test.h"
#include "banned.h"

void
test_run_release(struct iperf_test *test)
{
	struct iperf_run *r = &test->run;

	test_cancel_timers(test);
	test_free_streams(test);
	probe_release(test);
	placement_release(test);
	ctrl_free(r->ctrl);
	r->ctrl = NULL;
	if (r->ctrl_sck >= 0)
		close(r->ctrl_sck);
	if (r->prot_listener >= 0 && r->prot_listener != test->listener)
		close(r->prot_listener);
	report_out_release(test);
	test_run_free(test);
}

/* The settings a test starts with, and a server goes back to before each
 * client's parameters (the parameter document sets the rest). */
void
test_settings_defaults(struct iperf_test *test)
{
	struct iperf_settings *s = &test->settings;

	free(s->title);
	free(s->extra_data);
	free(s->congestion);
	free(s->authtoken);
	free(s->client_version);
	memset(s, 0, sizeof(*s));
	s->protocol_id = SOCK_STREAM;
	test->proto = &proto_tcp;
	s->duration = IPERF_DEFAULT_DURATION_S;
	s->num_streams = 1;
	s->blksize = DEFAULT_TCP_BLKSIZE;
	s->pacing_timer = DEFAULT_PACING_TIMER;
	s->server_affinity = -1;
	s->gso_bf_size = IPERF_MAX_UDP_BLOCKSIZE;
	s->gro_bf_size = IPERF_MAX_UDP_BLOCKSIZE;
}

void
test_run_abandon(struct iperf_test *test)
{
	stream_stop_workers(test, 1);
	if (test->loop == NULL)
		return;
	if (test->run.ctrl_sck >= 0)
		evloop_del_fd(test->loop, test->run.ctrl_sck);
	if (test->run.prot_listener >= 0 &&
	    test->run.prot_listener != test->listener)
		evloop_del_fd(test->loop, test->run.prot_listener);
}
