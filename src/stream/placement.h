/*
 * placement.h - the plan of a TCP test's data path: where its data
 * threads run and how much a sender hands the kernel per call.  What
 * applies depends on where the peer is
 * (placement_peer_here(): its address is one of this network namespace's
 * own, or not); -V prints one line saying which paths a test took.
 *
 * Same host (the peer's address is local here):
 *
 * When both ends of a TCP test are on this host, the kernel does the
 * receiving side's protocol work on the CPU of the sending thread, and
 * the receiver copies the data out of buffers the sender has just
 * written.  With at least two streams for each usable CPU, a stream whose
 * sending and receiving threads share a CPU moves its bytes through that
 * CPU's cache, while one whose two threads sit on different CPUs moves
 * them between caches (on a 2-CPU machine, -P 8 with every pair split
 * runs at half the rate of every pair together).  The scheduler finds
 * neither arrangement reliably, so such a test places its threads:
 *
 *  - a sending thread is pinned to one usable CPU, streams taken in turn
 *    (the i-th stream of the test on the (i mod n)-th usable CPU);
 *  - a receiving thread moves to the CPU where its data arrives
 *    (SO_INCOMING_CPU), checked every PLACEMENT_FOLLOW_READS reads, if
 *    this process may use that CPU.
 *
 * With fewer streams nothing is placed: one stream's sender and receiver
 * run best side by side on two CPUs, and with one stream per CPU the
 * scheduler's choice measured as well as the pinned one (-P 2 on two
 * CPUs).  Nothing is placed either
 * with -A (this end's or the server's), for UDP, SCTP or --rr, for a peer
 * on another host, or when the environment variable IPERF3_PLACEMENT is
 * "0".  Placement is best effort: a refused pin leaves the thread where
 * the scheduler puts it.
 *
 * With fewer streams than usable CPUs (and at least two CPUs), the
 * receiving side has a CPU to spare: a sender then hands the kernel
 * PLACEMENT_BATCH_BYTES per call (its block that many times; one
 * sendmsg), so that acknowledgements, processed on the receiver's CPU,
 * find data queued and transmit it there.  On 2 CPUs this carried -P 1
 * from 25 to 45 Gbit/s; with every CPU busy (-P 2 on 2 CPUs, or one
 * CPU) or between namespaces over veth it measured equal or worse, so
 * only then.  Only an unpaced sender (no -b) from memory (no -F, -Z)
 * with the default 128 KB block batches: a length the user chose with
 * -l (or a server's client asking for another) is written as given.
 * The block stays the unit of -k counts and of the receiver's reads.
 *
 * Another host (or another network namespace of this one: its address is
 * not local here): nothing is placed, and the receiving side's protocol
 * work is not this process's to move.  There the costs are wake-ups and
 * calls: every unpaced sender with the default block hands the kernel
 * PLACEMENT_REMOTE_BATCH_BYTES per call, and every receiver sets
 * SO_RCVLOWAT (proto_tcp.c; blocks of PLACEMENT_LOWAT_MIN_BLOCK or more),
 * not only a test of one stream (between two
 * namespaces on two CPUs, -P 2 went from 15.1 to 19.4 Gbit/s, -P 8 from
 * 16.8 to 17.8, with 1 MB per call).  Half that per call measured better
 * on another VM (2026-11-29, three alternating runs each: -P 1 20.4-32.6
 * Gbit/s against 15.5-19.9 with 1 MB, -P 4 30.3-31.0 against 25.3-26.4;
 * 256 KB 21-24 at -P 1; one block per call, as stock, 21-26); why 1 MB
 * fares worse there was not found out.
 *
 * Either: a TCP sender paced by -b (no /burst) hands the kernel
 * PLACEMENT_PACE_SPAN_US of the rate per call (whole blocks, at most
 * PLACEMENT_BATCH_BYTES) where that is more than one block (the default
 * block: from about 525 Mbit/s per stream), instead of waking for every
 * block; its pacer (pacer.h) still holds the -b average.  Each call's
 * bytes leave together: bursts of 2 ms of the rate, where 3.21's 1 ms
 * pacing timer makes them half as long.  At -b 4G between two namespaces,
 * medians of 4 in one alternating run, client + server CPU per Gbit/s:
 * 1 ms spans 7.6 %, 2 ms 4.2 %, 3.21 11.2 %; the whole machine's
 * (/proc/stat): 7.4 %, 4.8 %, 10.0 % (one block per call before: 12.4 %
 * and 12.7 % in another run, 3.21 11.8 and 12.5 there).  A receiver's
 * low-water mark over 500 us in place of 250 us measured no better.
 * Kernel pacing (SO_MAX_PACING_RATE at 110 % of the rate, 2 ms per call)
 * was measured too: the processes' CPU fell as far, but the machine's did
 * not (11.0 %: the pacing timer's work moves into softirq), so it is not
 * used.
 */
#ifndef IPERF_PLACEMENT_H
#define IPERF_PLACEMENT_H

struct iperf_test;
struct iperf_stream;

#define PLACEMENT_FOLLOW_READS 64
#define PLACEMENT_BATCH_BYTES (1024 * 1024)
#define PLACEMENT_REMOTE_BATCH_BYTES (512 * 1024)
#define PLACEMENT_PACE_SPAN_US 2000
/* A receiver of blocks smaller than this never sets SO_RCVLOWAT (see
 * proto_tcp.c). */
#define PLACEMENT_LOWAT_MIN_BLOCK (16 * 1024)

/* Is the peer of the test's data connections on this host (sp's
 * addresses decide, once per run)?  1 or 0. */
int placement_peer_here(struct iperf_stream *sp);

/* Main thread, once the streams are connected and before their workers
 * start: decide the placement of each stream (sp->w.place_cpu,
 * sp->w.place_follow) and a sender's batch or -b span (sp->xmit_len).
 * Never fails. */
void placement_plan(struct iperf_test *test);
/* The stream's worker, first thing: pin a sending thread. */
void placement_enter(struct iperf_stream *sp);
/* A receiving worker after each read that returned data. */
void placement_follow(struct iperf_stream *sp);
/* The run's placement state, with the run. */
void placement_release(struct iperf_test *test);

#endif /* IPERF_PLACEMENT_H */
