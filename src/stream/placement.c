/* placement.c - thread placement of same-host TCP tests (see placement.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_SCHED_SETAFFINITY
#include <sched.h>
#endif

#include "addr.h"
#include "iperf.h"
#include "notes.h"
#include "placement.h"
#include "proto_ops.h"
#include "stream.h"
#include "banned.h"

#if defined(HAVE_SCHED_SETAFFINITY) && defined(SO_INCOMING_CPU)

struct placement {
	cpu_set_t usable; /* the CPUs this process may use */
};

static int
wanted(const struct iperf_test *test)
{
	const char *env = getenv("IPERF3_PLACEMENT");
	const struct iperf_stream *first = test->run.streams;

	if (env != NULL && strcmp(env, "0") == 0)
		return 0;
	if (test->proto == NULL || test->proto->id != SOCK_STREAM ||
	    test->settings.rr || first == NULL)
		return 0;
	if (test->opt->affinity >= 0 || test->settings.server_affinity >= 0)
		return 0;
	return addr_within_host(&first->local_addr, first->local_len,
	    &first->remote_addr, first->remote_len);
}

/* A sender that may hand the kernel several blocks per call: unpaced,
 * from memory, with the default block length (not one the user chose:
 * -l, or a server's client asking for another length). */
static int
batchable(const struct iperf_stream *sp)
{
	const struct iperf_settings *s = &sp->test->settings;

	return sp->sender && s->rate == 0 && !s->blksize_set &&
	    sp->blksize == DEFAULT_TCP_BLKSIZE && sp->io.file_fd < 0 &&
	    !sp->io.zerocopy;
}

void
placement_plan(struct iperf_test *test)
{
	struct placement *pl;
	struct iperf_stream *sp;
	int cpus[CPU_SETSIZE];
	int n = 0, streams = 0, i;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		sp->w.place_cpu = -1;
		sp->w.place_follow = 0;
		streams++;
	}
	placement_release(test);
	if (!wanted(test))
		return;
	pl = calloc(1, sizeof(*pl));
	if (pl == NULL)
		return;
	if (sched_getaffinity(0, sizeof(pl->usable), &pl->usable) == -1) {
		free(pl);
		return;
	}
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (CPU_ISSET((size_t)i, &pl->usable))
			cpus[n++] = i;
	}
	if (n >= 2 && streams < n) {
		/* Spare CPUs: each sender hands the kernel a batch. */
		int batched = 0;

		for (sp = test->run.streams; sp != NULL; sp = sp->next) {
			if (batchable(sp)) {
				sp->xmit_len = sp->blksize *
				    (PLACEMENT_BATCH_BYTES / sp->blksize);
				batched++;
			}
		}
		if (batched > 0)
			note_add(test, NOTE_DEBUG,
			    "same-host TCP: %d sending stream(s) write %zu "
			    "bytes per call (%zu-byte blocks)", batched,
			    (size_t)PLACEMENT_BATCH_BYTES,
			    (size_t)DEFAULT_TCP_BLKSIZE);
	}
	if (n < 2 || streams < 2 * n) {
		free(pl);
		return;
	}
	test->run.place = pl;
	/* The i-th stream in the order both ends list them (wire ids), so
	 * that with --bidir the two ends' senders take different CPUs. */
	i = 0;
	for (sp = test->run.streams; sp != NULL; sp = sp->next, i++) {
		if (sp->sender)
			sp->w.place_cpu = cpus[i % n];
		else
			sp->w.place_follow = 1;
	}
}

static void
pin_self(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET((size_t)cpu, &one);
	(void)sched_setaffinity(0, sizeof(one), &one);
}

void
placement_enter(struct iperf_stream *sp)
{
	if (sp->w.place_cpu >= 0)
		pin_self(sp->w.place_cpu);
}

void
placement_follow(struct iperf_stream *sp)
{
	const struct placement *pl = sp->test->run.place;
	int cpu = -1;
	socklen_t len = sizeof(cpu);

	if (!sp->w.place_follow || pl == NULL ||
	    ++sp->w.place_reads % PLACEMENT_FOLLOW_READS != 1)
		return;
	if (getsockopt(sp->socket, SOL_SOCKET, SO_INCOMING_CPU, &cpu,
		&len) == -1 || cpu < 0 || cpu >= CPU_SETSIZE ||
	    cpu == sp->w.place_cpu || !CPU_ISSET((size_t)cpu, &pl->usable))
		return;
	pin_self(cpu);
	sp->w.place_cpu = cpu;
}

void
placement_release(struct iperf_test *test)
{
	free(test->run.place);
	test->run.place = NULL;
}

#else /* no sched_setaffinity() or SO_INCOMING_CPU: nothing is placed */

void
placement_plan(struct iperf_test *test)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		sp->place_cpu = -1;
		sp->place_follow = 0;
	}
}

void
placement_enter(struct iperf_stream *sp)
{
	(void)sp;
}

void
placement_follow(struct iperf_stream *sp)
{
	(void)sp;
}

void
placement_release(struct iperf_test *test)
{
	(void)test;
}

#endif
