/* stream_set.c - the test's streams as a whole (stream_set.h). */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "iperf.h"
#include "iperf_time.h"
#include "stream.h"
#include "stream_set.h"
#include "test.h"
#include "banned.h"

/* What the receiving streams show of the peer's sending. */
struct rx_evidence {
	uint64_t bytes, blocks;
	uint64_t newest_datagram_us; /* 0: no datagram stream got any */
};

static void
rx_evidence_take(struct iperf_test *test, struct rx_evidence *ev)
{
	struct iperf_stream *sp;

	memset(ev, 0, sizeof(*ev));
	/* Received totals are not reset at the end of the omit period. */
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		struct stream_live l;
		uint64_t bytes, blocks;

		if (sp->sender)
			continue;
		stream_snapshot(sp, &l);
		bytes = l.bytes;
		blocks = sp->blksize > 0 ? l.bytes / sp->blksize : 0;
		if (sp->datagram) {
			/* The highest sequence number: the lost ones were
			 * sent as well. */
			if (l.packets > blocks)
				blocks = l.packets;
			if (l.packets * sp->blksize > bytes)
				bytes = l.packets * sp->blksize;
			if (l.last_rx_us > ev->newest_datagram_us)
				ev->newest_datagram_us = l.last_rx_us;
		}
		ev->bytes += bytes;
		ev->blocks += blocks;
	}
}

/* How long a datagram flow under a count may be silent before its sender
 * is taken to be done (its last datagrams were lost): 8 datagram times
 * at the rate, and no less than TEST_DATAGRAM_SILENCE_MIN_US. */
static uint64_t
datagram_silence_us(const struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	uint64_t us = TEST_DATAGRAM_SILENCE_MIN_US;

	if (s->rate > 0 && s->blksize > 0) {
		uint64_t gap = (uint64_t)s->blksize * 8ULL * USEC_PER_SEC / s->rate;

		if (gap > us / 8)
			us = gap * 8;
	}
	return us;
}

int
test_end_condition_met(struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	struct rx_evidence ev;
	uint64_t now;

	if (s->bytes == 0 && s->blocks == 0)
		return 0;
	if (test_send_limit_reached(test))
		return 1;
	rx_evidence_take(test, &ev);
	if ((s->bytes != 0 && ev.bytes >= s->bytes) ||
	    (s->blocks != 0 && ev.blocks >= s->blocks))
		return 1;
	if (ev.newest_datagram_us == 0)
		return 0;
	now = iperf_time_now_us();
	return now > ev.newest_datagram_us &&
	    now - ev.newest_datagram_us > datagram_silence_us(test);
}

void
test_close_stream_sockets(struct iperf_test *test)
{
	struct iperf_stream *sp;

	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		if (!sp->closed && !sp->w.thread_started) {
			close(sp->socket);
			sp->closed = 1; /* the number stays: reports show it */
		}
	}
}

void
test_free_streams(struct iperf_test *test)
{
	struct iperf_stream *sp = test->run.streams;

	while (sp != NULL) {
		struct iperf_stream *next = sp->next;
		stream_free(sp);
		sp = next;
	}
	test->run.streams = NULL;
	test->run.num_streams_total = 0;
}
