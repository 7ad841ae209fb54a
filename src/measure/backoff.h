/*
 * backoff.h - how an unpaced UDP sender holds back when its receiver says
 * it is dropping datagrams (udp_offload's drop reports, both ends ours;
 * see proto_udp_fb.c).  Pure: the caller passes the clock and what it sent.
 *
 * Between two network namespaces of one host the sender's CPU also
 * delivers what it sends into the receiver's socket.  Once that socket's
 * buffer is full, a dropped datagram costs the sender less than a
 * delivered one, so it speeds up (35-40 Gbit/s became 53-63) and the
 * buffer stays full: 2.3-11 % lost in 4 runs of 15 at -b 0.  A sender
 * that slows down for its receiver's reports keeps the receiver ahead.
 *
 * A report carries the bytes the receiver has received; the caller turns
 * two reports into the receiver's intake, and only a report with an
 * intake counts (a single report, drops that stopped at once, changes
 * nothing).  The sender measures its own rate over windows of
 * BACKOFF_WIN_US.  Where the receiver takes in less than BACKOFF_MISS of
 * that rate, the cap goes to BACKOFF_INTAKE of the intake, but down by at
 * most 1 - BACKOFF_CUT of the rate (or of the cap, if lower) at a time (a
 * receiver that stalled for a moment does not bring the sender to a
 * crawl), and never below BACKOFF_FLOOR of the most the receiver took in
 * within BACKOFF_TOP_US: where drops go on at any rate (a receive buffer
 * too small for one batch of datagrams) the sender does not throttle
 * itself to nothing.  Reports within BACKOFF_HOLD_US of a cut change
 * nothing.  Without reports the cap rises by BACKOFF_RAISE every
 * BACKOFF_RAISE_US, looking for more, and is dropped once it is
 * BACKOFF_DROP_FACTOR times what the sender manages anyway.
 */
#ifndef IPERF_BACKOFF_H
#define IPERF_BACKOFF_H

#include <stdint.h>

#define BACKOFF_WIN_US 10000ULL
#define BACKOFF_CUT 0.85
#define BACKOFF_HOLD_US 2000ULL
#define BACKOFF_RAISE 1.01
#define BACKOFF_RAISE_US 5000ULL
#define BACKOFF_DROP_FACTOR 1.25
#define BACKOFF_INTAKE 0.95
#define BACKOFF_MISS 0.99
#define BACKOFF_FLOOR 0.9
#define BACKOFF_TOP_US 1000000ULL

struct backoff {
	double cap_bps;       /* 0: none */
	double rate_bps;      /* the last whole window's send rate, 0 before */
	uint64_t win_start_us;
	uint64_t win_bytes;
	double top_bps;       /* the most the receiver took in ... */
	uint64_t top_us;      /* ... measured then */
	uint64_t cut_us;      /* the last cut */
	uint64_t raise_us;    /* the last raise or cut */
	uint64_t cuts;        /* how many cuts */
};

void backoff_init(struct backoff *b, uint64_t now_us);
/* bytes went out at now_us. */
void backoff_sent(struct backoff *b, uint64_t bytes, uint64_t now_us);
/* The receiver reported drops at now_us, having taken in intake_bps
 * since its previous report (0: not known): 1 if that cut the cap. */
int backoff_dropped(struct backoff *b, uint64_t now_us, double intake_bps);
/* The cap in bits/s at now_us (raised for the time without reports), 0
 * for none. */
double backoff_cap(struct backoff *b, uint64_t now_us);

#endif /* IPERF_BACKOFF_H */
