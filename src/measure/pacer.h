/*
 * pacer.h - sender pacing as a token bucket with a bounded depth, and a
 * bounded catch-up.  Pure: the caller passes the clock, so the behaviour
 * after a stall (no flood, the average kept) is unit tested without
 * sleeping.
 *
 * A sender that wakes up late finds at most PACER_DEPTH_US of the rate
 * ready to leave back to back.  What it missed beyond that is owed (up to
 * PACER_OWED_US of the rate) and paid back on top of the rate, so for a
 * while the sender runs at up to PACER_CATCHUP times the rate, with
 * datagrams spaced, never in one burst; the test's average holds however
 * the host schedules the sender, unless it stalls for longer than
 * PACER_OWED_US.
 */
#ifndef IPERF_PACER_H
#define IPERF_PACER_H

#include <stddef.h>
#include <stdint.h>

/* The bucket holds at most this long at the target rate (or the -b
 * rate/N burst, if larger): the most that leaves back to back.  (10 ms
 * once: 1.25 MB at 1 Gbit/s, more than a stock receiver's socket buffer,
 * so its loss went up.) */
#define PACER_DEPTH_US 1000ULL
/* ... and at least this many blocks: at a low rate (-b 10M -l 1200: a
 * datagram every 960 us) a sender on a busy host wakes a few ms late each
 * time, and a bucket of one datagram let it send one per wake-up, never
 * catching up (6 Mbit/s of 10; 3.21 keeps 10). */
#define PACER_DEPTH_BLOCKS 8
/* At most this long at the rate is owed after a stall; a longer stall is
 * not made up. */
#define PACER_OWED_US 500000ULL
/* What is owed is paid back at up to this many times the rate (spaced
 * datagrams, not a burst): a sender that gets half a CPU on a busy host
 * still holds its rate.  (4 held it too, but a stock receiver on the same
 * busy host then lost 19 % at -b 1G, against 4 % at 2.) */
#define PACER_CATCHUP 2
/* A wait shorter than this becomes this long: at high packet rates
 * (1400-byte datagrams at 1 Gbit/s leave 11 us apart) the sender wakes
 * once per PACER_MIN_WAIT_US and sends what is due then, one datagram per
 * call, instead of sleeping and waking for each (which took a whole CPU). */
#define PACER_MIN_WAIT_US 50ULL

struct pacer {
	double rate_bps; /* bits per second; 0 = unlimited */
	double tokens;   /* bits available now */
	double depth;    /* most bits that can accumulate */
	double owed;     /* bits missed beyond the depth, paid back later */
	double owed_cap; /* most bits owed */
	uint64_t last_us;
};

/* `burst` blocks may leave back to back (0 or 1 = one at a time). */
void pacer_init(struct pacer *p, uint64_t rate_bps, size_t block_bytes,
    int burst, uint64_t now_us);
/* 0 when a block of this size may go now (its tokens are taken), else
 * the microseconds to wait before asking again (at least
 * PACER_MIN_WAIT_US). */
uint64_t pacer_delay(struct pacer *p, size_t block_bytes, uint64_t now_us);
/* Whether the sender is catching up (something is owed): then a short
 * wait is better spent awake (stream.c spins through it) than asleep, for
 * on a busy host every sleep ends a few ms late and a sender that sleeps
 * between its spaced datagrams never catches up. */
int pacer_behind(const struct pacer *p);

#endif /* IPERF_PACER_H */
