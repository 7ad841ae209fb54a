/* run.c - a run's settings, its abandonment and its release: each
 * owner's part, then the model's (run.h). */
#include "config.h"

#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ctrl.h"
#include "evloop.h"
#include "iperf.h"
#include "placement.h"
#include "probe.h"
#include "proto.h"
#include "report.h"
#include "run.h"
#include "session.h"
#include "stream.h"
#include "stream_set.h"
#include "test.h"
#include "banned.h"

/* The session's part of the run (struct run_session). */
static void
session_run_release(struct iperf_test *test)
{
	struct run_session *s = &test->run.ses;

	probe_release(test);
	ctrl_free(s->ctrl);
	s->ctrl = NULL;
	if (s->ctrl_sck >= 0)
		close(s->ctrl_sck);
	s->ctrl_sck = -1;
	cJSON_Delete(s->json_server_output);
	s->json_server_output = NULL;
	free(s->server_output_text);
	s->server_output_text = NULL;
}

void
test_run_release(struct iperf_test *test)
{
	const struct session_ops *role = test->run.ses.sops;

	test_cancel_timers(test);
	test_free_streams(test);
	if (role != NULL && role->release != NULL)
		role->release(test);
	placement_release(test);
	session_run_release(test);
	report_run_release(test);
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
#ifdef HAVE_MULTICAST
	free(s->mcast_group);
	free(s->mcast_source);
#endif
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
	if (test->run.ses.ctrl_sck >= 0)
		evloop_del_fd(test->loop, test->run.ses.ctrl_sck);
}
