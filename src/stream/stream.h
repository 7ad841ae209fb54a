/*
 * stream.h - data streams: lifecycle, worker threads, counters, intervals.
 *
 * Ownership (written down before the code):
 *
 *  - One worker thread per stream does blocking send() or recv() on
 *    sp->socket.  What it writes is sp->w (struct stream_worker): the
 *    live counters sp->w.live and the RTT and delay samples, under
 *    sp->w.lock; it reads only immutable fields (socket, buffer, blksize,
 *    sender, settings).
 *  - The event-loop thread reads sp->w.live under sp->w.lock (one short
 *    critical section per interval) and owns everything else in the
 *    stream: interval lists, baselines, summaries, peer results.
 *    Snapshots are copied out whole, so 64-bit counters never tear on
 *    32-bit ARM and no atomics wider than int are needed (no libatomic).
 *  - sp->w.stop is an atomic int set by the loop thread (under sp->w.lock,
 *    with a broadcast on sp->w.wake); the worker checks it before each
 *    block.  A worker sleeping for pacing waits on sp->w.wake, so the
 *    stop request wakes it at once; one blocked in send/recv is woken by
 *    shutdown() of the socket.  The loop then joins them.
 *  - sp->io (block in flight, -F file) and sp->xmit_len are prepared by the
 *    loop thread before the worker starts and then belong to the worker.
 */
#ifndef IPERF_STREAM_H
#define IPERF_STREAM_H

#include <sys/types.h>
#include <sys/socket.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "delayvar.h"
#include "latstat.h"
#include "stream_io.h"
#include "tcp_info.h"

struct iperf_test;
struct rr_stream;
struct rpm_stream;
struct iso_stream;

/* Counters written by the worker (under lock). */
struct stream_live {
	uint64_t bytes;  /* since TEST_RUNNING */
	uint64_t blocks; /* send calls / full blocks received */
	/* datagram accounting (UDP): */
	uint64_t packets; /* sender: datagrams sent; receiver: highest seq */
	int64_t lost;     /* receiver: lost datagrams (cumulative) */
	uint64_t ooo;     /* receiver: late or duplicate datagrams */
	double jitter;    /* receiver: seconds (RFC 1889 estimator) */
	uint64_t rxq_drops; /* receiver: datagrams the kernel dropped on the
			     * socket (SO_RXQ_OVFL, cumulative) */
	uint64_t last_rx_us; /* monotonic time of the last data received */
	/* --rr (rr.h): transactions completed, lost (UDP), stale answers */
	uint64_t rr_trans, rr_lost, rr_stale;
	int error;       /* iperf error code if the worker failed, else 0 */
	int sys_errno;
	int finished;    /* worker left its loop */
};

/* One reporting interval of one stream (loop thread). */
struct interval_result {
	double start, end; /* seconds since the stream's (post-omit) start */
	float seconds;     /* end - start, single precision like upstream */
	uint64_t bytes;
	int omitted;
	/* TCP (local sender with tcp_info) */
	int has_tcpinfo;
	int64_t retransmits; /* during this interval */
	uint64_t snd_cwnd, snd_wnd, rtt, rttvar, pmtu, reorder;
	/* UDP */
	uint64_t packets; /* datagrams in this interval */
	int64_t lost;
	uint64_t ooo;
	double jitter;
	uint64_t rxq_drops; /* dropped by the receiving socket (rxq_known) */
	/* distributions of the interval (stats_dist.h), in microseconds */
	int has_rtt;        /* TCP sender sampling TCP_INFO */
	struct latsum rtt_dist;
	int has_delay;      /* UDP receiver: one-way delay variation */
	struct latsum delay_dist;
	/* --rr: this interval's transactions, losses and round trips (ns) */
	uint64_t rr_trans, rr_lost, rr_stale;
	struct latsum rr_lat;
	struct interval_result *next;
};

/* Peer's figures from the result exchange. */
struct stream_peer {
	int present;
	uint64_t bytes;
	int64_t retransmits;
	double jitter;
	int64_t errors, omitted_errors;
	int64_t packets, omitted_packets;
	int has_omitted_pair;
	double start_time, end_time;
	/* our server's extra figures (ext.h "stats"), when it sent them */
	int has_rtt, has_delay, has_rxq;
	struct latsum rtt, delay;
	int64_t rxq_drops;
#ifdef HAVE_OWD
	/* --owd: its datagrams' transits (stats_dist_owd_raw) */
	int has_owd;
	int64_t owd_ref_us;
	struct latsum owd;
#endif
};

/*
 * A stream's worker thread and what it writes: the loop thread reads these
 * under `lock` (or atomically) and writes only `stop` (under the lock,
 * with a broadcast on `wake`) and, before the thread starts, the rest.
 */
struct stream_worker {
	pthread_t thread;
	int thread_started;
	atomic_int stop;
	atomic_int in_send; /* 1 while the worker is inside a send call */
	/* placement.h: the CPU the worker is pinned to (-1: none); a
	 * receiver following its data counts its reads */
	int place_cpu;
	int place_follow;
	unsigned int place_reads;
	pthread_mutex_t lock;
	pthread_cond_t wake;     /* with lock: ends a pacing sleep at stop */
	struct stream_live live; /* guarded by lock */
	/* UDP receiver: delay variation since the last interval, written by
	 * the worker under lock (delayvar.h) */
	struct delayvar delay;
	/* TCP sender: RTT samples since the last interval, written by the
	 * worker under lock, at most every STATS_RTT_PERIOD_US (rtt_due_us,
	 * the worker's own) */
	struct latstat rtt_live;
	uint64_t rtt_due_us;
};

struct iperf_stream {
	struct iperf_test *test;
	int id;      /* 1, 3, 4, 5, ... (wire ids) */
	int socket;  /* also the id shown in reports ("[  5]") */
	int closed;  /* socket closed; the number is kept for the reports */
	int sender;  /* this end sends on the stream */
	int datagram; /* message-oriented transport: blocks are packets */
	void *proto_ctx;
	char *buffer;
	size_t blksize;
	size_t xmit_len; /* bytes one send moves: blksize, or several
			  * datagrams with UDP GSO, or several blocks of a
			  * same-host TCP batch (placement.h); pacing unit */
	size_t xmit_blocks; /* blocks the next send may carry, at most
			     * xmit_len / blksize (less near a -n/-k count) */
#ifdef HAVE_UDPFEEDBACK
	uint64_t tx_cap_bps; /* an unpaced sender's hold, set by its transport
			    * (UDP: its receiver reported drops; backoff.h);
			    * 0: none */
#endif
	struct stream_io io;
	struct rr_stream *rr; /* --rr (rr.h), else NULL */
	struct sockaddr_storage local_addr, remote_addr;
	socklen_t local_len, remote_len;

	/* the worker thread and what it writes (above) */
	struct stream_worker w;
	/* set by the transport at stream_init (before the worker starts):
	 * live.rxq_drops is counted / delay is recorded */
	int rxq_drops_known;
	int delay_known;

	/* loop thread: accounting baselines */
	uint64_t start_us;          /* stream (post-omit) start */
	uint64_t interval_start_us; /* start of the current interval */
	uint64_t last_sample_us;    /* end of the last interval taken */
	struct stream_live base_omit;     /* live at the end of the omit period */
	struct stream_live base_interval; /* live at the last interval */
	int64_t tcp_retrans_base_interval;
	int64_t tcp_retrans_base_omit;
	uint64_t omitted_ooo;
	/* loop thread: send-stall watchdog (stream_send_stalled_us) */
	uint64_t stall_bytes, stall_since_us;
	int stall_outq;

	/* loop thread: results */
	/* the newest interval only (stats.c keeps no history) */
	struct interval_result *intervals, *last_interval;
	struct stream_live final; /* live at the end of the test */
	struct tcpinfo_snapshot tcpi_last;
	int64_t retransmits;   /* post-omit total */
	uint64_t max_snd_cwnd, max_snd_wnd, max_rtt, min_rtt, rtt_sum;
	uint64_t rtt_samples;
	uint64_t reorder;
	struct stream_peer peer;
	/* distributions (stats_dist.h) */
	int rtt_on;   /* set before the worker starts: it samples the RTT */
	/* loop thread: */
	struct latstat rtt_ival;     /* scratch: the interval taken out */
	struct latstat rtt_total;    /* after the omit period */
	struct dv_hist delay_taken;  /* scratch: the interval taken out */
	struct dv_hist delay_total;  /* after the omit period */
	int64_t delay_min_off;       /* the minimum at the last take */
#ifdef HAVE_PEERIVAL
	/* our server's figures of interval run.ses.pival_i (peer_ival.h) */
	struct peer_fig pival;
#endif

	struct iperf_stream *next;
#ifdef HAVE_RPM
	struct rpm_stream *rpm; /* --rpm (rpm_stream.h), else NULL */
#endif
#ifdef HAVE_ISOCHRONOUS
	struct iso_stream *iso; /* --isochronous (iso_stream.h), else NULL */
#endif
};

/* Create a stream on a connected socket; NULL with errno set. */
struct iperf_stream *stream_new(struct iperf_test *test, int sock, int sender);
/* After stream_add(): the -F file and the transport's per-stream set-up.
 * -1 with the error recorded on the test. */
int stream_setup(struct iperf_stream *sp);
void stream_free(struct iperf_stream *sp);
/* Free the stream's interval records (stream_free(), and the stats
 * before keeping a new one). */
void stream_drop_intervals(struct iperf_stream *sp);
/* Append to the test's list and assign the next wire id. */
void stream_add(struct iperf_test *test, struct iperf_stream *sp);
struct iperf_stream *stream_find(struct iperf_test *test, int id);

/* Start the worker threads of all streams (signals blocked in them). */
int stream_start_workers(struct iperf_test *test);
/* Ask workers to stop after their current block (no waiting). */
void stream_signal_stop(struct iperf_test *test);
/*
 * Ask workers to stop, wake them (shutdown), join them.  Bounded: a worker
 * not done within IPERF_JOIN_GRACE_US has its socket shut down both ways,
 * and one still not done after as long again is cancelled.
 */
void stream_stop_workers(struct iperf_test *test, int shut);
/*
 * Loop thread, called periodically: how long this sender's worker has sat
 * in one send call without moving a byte (a peer that stopped reading),
 * 0 if it is not stuck.  Pacing pauses do not count.
 */
uint64_t stream_send_stalled_us(struct iperf_stream *sp, uint64_t now_us);
/* 1 if some sender of the test is stalled longer than limit_us. */
int stream_any_send_stalled(struct iperf_test *test, uint64_t now_us,
    uint64_t limit_us);

/* One unpaced block in the stream's direction, in the calling thread
 * (the public iperf_send_mt/iperf_recv_mt): bytes moved, 0 at the end,
 * -1 with the error recorded on the test.  Not while workers run. */
ssize_t stream_step(struct iperf_stream *sp);

/* Copy the live counters out under the lock. */
void stream_snapshot(struct iperf_stream *sp, struct stream_live *out);


/* Worker-side counter updates (take the lock). */
void stream_count(struct iperf_stream *sp, uint64_t bytes, uint64_t blocks);
/* Received bytes: counts them and notes the time of arrival. */
void stream_count_rx(struct iperf_stream *sp, uint64_t bytes);
/* A worker sleeps until deadline_us (CLOCK_MONOTONIC, iperf_time_now_us)
 * unless the stream is asked to stop first (the stop request wakes the
 * sleeper: a paced sender never outlives the end of the test by more
 * than a wake-up).  0, or -1 when asked to stop. */
int stream_sleep_until(struct iperf_stream *sp, uint64_t deadline_us);

#endif /* IPERF_STREAM_H */
