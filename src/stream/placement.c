/* placement.c - the plan of a TCP test's data path (see placement.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdio.h>
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

int
placement_peer_here(struct iperf_stream *sp)
{
	struct iperf_test *test = sp->test;

	if (test->run.peer_here == 0)
		test->run.peer_here = addr_peer_here(&sp->local_addr,
		    sp->local_len, &sp->remote_addr, sp->remote_len) ? 1 : 2;
	return test->run.peer_here == 1;
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

/* Unpaced senders with the default block: `bytes` per call.  How
 * many. */
static int
batch_senders(struct iperf_test *test, size_t bytes)
{
	struct iperf_stream *sp;
	int batched = 0;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (batchable(sp)) {
			sp->xmit_len = sp->blksize * (bytes / sp->blksize);
			batched++;
		}
	}
	return batched;
}

/* -b TCP senders (no /burst) fast enough for a block per
 * PLACEMENT_PACE_SPAN_US: that span of the rate per call.  How many. */
static int
pace_spans(struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	struct iperf_stream *sp;
	size_t chunk;
	int paced = 0;

	if (s->rate == 0 || s->burst > 1)
		return 0;
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (!sp->sender || sp->blksize == 0 || sp->io.file_fd >= 0)
			continue;
		chunk = (size_t)(s->rate / 8 * PLACEMENT_PACE_SPAN_US /
		    1000000);
		if (chunk > PLACEMENT_BATCH_BYTES)
			chunk = PLACEMENT_BATCH_BYTES;
		chunk -= chunk % sp->blksize;
		if (chunk <= sp->blksize)
			continue;
		sp->xmit_len = chunk;
		paced++;
	}
	if (paced > 0)
		note_add(test, NOTE_VERBOSE,
		    "TCP -b: %d sending stream(s) hand over %zu bytes (%d us)",
		    paced, test->run.streams->xmit_len,
		    PLACEMENT_PACE_SPAN_US);
	return paced;
}

/* "; N sending stream(s) write B bytes per call" when N > 0, else "". */
static void
batch_text(char *buf, size_t len, int batched, size_t bytes)
{
	buf[0] = '\0';
	if (batched > 0)
		(void)snprintf(buf, len, "; %d sending stream(s) write %zu bytes "
		    "per call", batched, bytes);
}

/* The -V line on another host's peer. */
static void
plan_elsewhere(struct iperf_test *test)
{
	char batch[96];

	batch_text(batch, sizeof(batch),
	    batch_senders(test, PLACEMENT_REMOTE_BATCH_BYTES),
	    PLACEMENT_REMOTE_BATCH_BYTES);
	note_add(test, NOTE_VERBOSE, "data path: the peer's address is not "
	    "local here: SO_RCVLOWAT on every receiver%s%s",
	    test->settings.blksize < PLACEMENT_LOWAT_MIN_BLOCK ?
	    " (none: blocks under 16 KBytes)" : "", batch);
}

/* What every plan does: nothing placed yet; for a TCP test (not --rr),
 * -b spans, and the other host's plan when the peer is not here.
 * The number of streams when the peer is here (the same-host plan goes
 * on), else 0. */
static int
plan_common(struct iperf_test *test)
{
	struct iperf_stream *sp;
	int streams = 0;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		sp->w.place_cpu = -1;
		sp->w.place_follow = 0;
		streams++;
	}
	if (test->proto == NULL || test->proto->id != SOCK_STREAM ||
	    test->settings.rr || streams == 0)
		return 0;
	test->run.peer_here = 0; /* decided again, on connected streams */
	(void)pace_spans(test);
	if (!placement_peer_here(test->run.streams)) {
		plan_elsewhere(test);
		return 0;
	}
	return streams;
}

#if defined(HAVE_SCHED_SETAFFINITY) && defined(SO_INCOMING_CPU)

/* The -V line on a peer on this host. */
static void
same_host_note(struct iperf_test *test, const char *batch,
    const char *threads)
{
	note_add(test, NOTE_VERBOSE, "data path: same host: not-sent "
	    "limit%s; threads %s", batch, threads);
}

struct placement {
	cpu_set_t usable; /* the CPUs this process may use */
};

static int
wanted(const struct iperf_test *test)
{
	const char *env = getenv("IPERF3_PLACEMENT");

	if (env != NULL && strcmp(env, "0") == 0)
		return 0;
	if (test->opt->affinity >= 0 || test->settings.server_affinity >= 0)
		return 0;
	return 1;
}

void
placement_plan(struct iperf_test *test)
{
	struct placement *pl;
	struct iperf_stream *sp;
	int cpus[CPU_SETSIZE];
	int n = 0, streams, i;
	char batch[96];

	placement_release(test);
	streams = plan_common(test);
	if (streams == 0)
		return;
	if (!wanted(test)) {
		same_host_note(test, "", "not placed");
		return;
	}
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
	/* Spare CPUs: each sender hands the kernel a batch. */
	batch_text(batch, sizeof(batch), n >= 2 && streams < n ?
	    batch_senders(test, PLACEMENT_BATCH_BYTES) : 0,
	    PLACEMENT_BATCH_BYTES);
	same_host_note(test, batch, n >= 2 && streams >= 2 * n ? "placed" :
	    "unplaced");
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

	(void)plan_common(test);
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
