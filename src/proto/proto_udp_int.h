/*
 * proto_udp_int.h - the UDP transport's own parts, shared by its files:
 * proto_udp.c (hello, send, receive) and proto_udp_setup.c (what a
 * stream's socket is given: GSO/GRO, drop counts, kernel arrival times,
 * batched receives, the receive buffer).
 */
#ifndef IPERF_PROTO_UDP_INT_H
#define IPERF_PROTO_UDP_INT_H

#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>

#ifdef HAVE_UDPFEEDBACK
#include "backoff.h"
#endif
#include "delayvar.h"
#ifdef HAVE_OWD
#include "clockoff.h"
#endif
#include "udp_acct.h"
#include "udp_wire.h"

struct iperf_stream;

#define UDP_HELLO_TIMEOUT_S 30
/* udp_offload's drop reports (udp_wire.h): a receiver sends one at most
 * every UDP_FB_GAP_US while its socket drops; a sender looks for them
 * every UDP_FB_POLL_SENDS sends (about 400 us at 40 Gbit/s). */
#define UDP_FB_GAP_US 500
#define UDP_FB_POLL_SENDS 32
/* ... at most this many reports at a time; two reports this far apart
 * give the receiver's intake (backoff.h) */
#define UDP_FB_POLL_MAX 16
#define UDP_FB_SPAN_MIN_US 400
#define UDP_FB_SPAN_MAX_US 200000
/* Receive timeout of data sockets: a bound on how long a stopped worker
 * can stay blocked if its wake-up is lost. */
#define UDP_WORKER_TIMEOUT_S 1
/* GRO: room for the largest coalesced buffer the kernel hands over. */
#define UDP_GRO_BUF_BYTES 65536
/* Datagrams one receive call may take (recvmmsg) without GRO: about what
 * arrives at the -b rate in two of the longest lingers (below), at least
 * UDP_RECV_BATCH_MIN, at most UDP_RECV_BATCH_MAX and as many blocks as
 * UDP_RECV_BATCH_BYTES hold (proto_udp_setup.c batch_count()). */
#define UDP_RECV_BATCH_MIN 16
#define UDP_RECV_BATCH_MAX 256
#define UDP_RECV_BATCH_BYTES (1024 * 1024)
/* A receiver at a known -b rate with kernel arrival times, after a call
 * that found fewer datagrams than its batch holds, lets the next ones
 * queue for up to this long instead of being woken for each.  At -u -b
 * 1G -l 1400 between two namespaces on the VM of 2026-11-29 (3 runs
 * each, alternating), the receiving process took 9.3-10.8 % of a CPU
 * with 1000 us, 22.0-23.1 % without a linger (21-23 % with 100 us, the
 * value before) and 3.21's 19.6-21.8 %; on an earlier VM 100 us took
 * client + server CPU per Gbit/s from 133 % to 80 %.  The datagrams
 * keep their own arrival times (jitter, delay variation); counts wait at
 * most this long, and a receiver asked to stop reads what is queued
 * (stream.c).  Less where the socket buffer would not hold
 * UDP_LINGER_HOLD times as long at the rate (counting twice the bytes,
 * for the kernel's overhead), and none below UDP_LINGER_MIN_US. */
#define UDP_LINGER_US 1000
#define UDP_LINGER_MIN_US 20
#define UDP_LINGER_HOLD 16
/* Receive buffer asked for when -w is not given, for this long at the
 * -b rate, at most UDP_RCVBUF_MAX (also when unlimited); bounded by the
 * kernel's limit unless this process may pass it (proto_udp_setup.c). */
#define UDP_RCVBUF_SPAN_US 100000
#define UDP_RCVBUF_MAX (32 * 1024 * 1024)

#if defined(HAVE_DECL_UDP_SEGMENT) && HAVE_DECL_UDP_SEGMENT
#define HAVE_UDP_GSO 1
#endif
#if defined(HAVE_DECL_UDP_GRO) && HAVE_DECL_UDP_GRO
#define HAVE_UDP_GRO 1
#endif
#if defined(HAVE_RECVMMSG) && defined(MSG_WAITFORONE)
#define HAVE_UDP_BATCH 1
#endif

struct udp_ctx {
	struct udp_acct acct;
	uint64_t next_seq;
	int counters64;
	/* --gsro, sender: gso_segs datagrams per send, headers in gso_buf */
	unsigned char *gso_buf;
	size_t gso_segs;
	/* --gsro, receiver: coalesced datagrams arrive in gro_buf */
	unsigned char *gro_buf;
	/* receiver: SO_RXQ_OVFL is on (drop counts come with the data) */
	int rxq_ovfl;
	/* receiver: SO_TIMESTAMPNS is on (each buffer's kernel arrival) */
	int kts;
	struct dv_arrival at; /* the last arrival time, split */
#ifdef HAVE_OWD
	/* --owd: the sender's header times are CLOCK_REALTIME (not the
	 * stock monotonic ones); the receiver's arrivals too, as this
	 * process reads it, kernel times moved by the running minimum
	 * (clockoff.h) */
	int owd;
	struct clockoff_dmin dmin;
#endif
#ifdef HAVE_MULTICAST
	/* --multicast: every datagram carries the extension from its first
	 * send time on (dgram_ext.h); the receiver skips end markers */
	int mcast;
	uint64_t mcast_start_us;
#endif
	/* udp_offload: drop reports (udp_wire.h).  The receiver: the last
	 * one's time, the drops so far.  The sender: sends since it looked,
	 * the last report taken (fb_rx) and when (fb_last_us), its hold. */
#ifdef HAVE_UDPFEEDBACK
	int fb;
	uint64_t fb_last_us;
	uint64_t fb_drops;
	unsigned int fb_sends;
	struct udp_fb fb_rx;
	struct backoff bo;
#endif
	/* receiver without GRO: up to batch->n datagrams per call */
	struct udp_batch *batch;
	uint64_t linger_us; /* ... and the wait after a short one, or 0 */
};

union udp_rx_ctl {
	char buf[UDP_RX_CMSG_SPACE];
	struct cmsghdr align;
};

struct udp_batch {
	size_t n;                 /* datagrams per call */
	struct mmsghdr *mm;       /* n of each */
	struct iovec *iov;
	union udp_rx_ctl *ctl;
	unsigned char *data;      /* n blocks of blksize */
};

/* getsockopt(SOL_SOCKET, opt) as an int, or -1. */
int udp_get_buf(int fd, int opt);
/* A stream's socket set up for sending (GSO where granted), or for
 * receiving (buffer for the rate, GRO, SO_RXQ_OVFL, SO_TIMESTAMPNS,
 * recvmmsg batches: each where the kernel has it). */
void udp_tx_setup(struct iperf_stream *sp, struct udp_ctx *c);
void udp_rx_setup(struct iperf_stream *sp, struct udp_ctx *c);
/* GSO refused at send time: one datagram per send from now on. */
void udp_gso_off(struct iperf_stream *sp, struct udp_ctx *c);
/* udp_offload's drop reports (proto_udp_fb.c), where c->fb: a sender
 * counts the n bytes that went out, takes the reports waiting every
 * UDP_FB_POLL_SENDS sends and sets sp->tx_cap_bps; a receiver whose
 * socket just dropped `drops` datagrams tells the sender, with the bytes
 * it has received, at most every UDP_FB_GAP_US. */
#ifdef HAVE_UDPFEEDBACK
void udp_fb_sent(struct iperf_stream *sp, struct udp_ctx *c, uint64_t n);
void udp_fb_dropped(struct iperf_stream *sp, struct udp_ctx *c,
    uint32_t drops);
#endif
/* Free what the set-up allocated (not c itself). */
void udp_ctx_release(struct udp_ctx *c);
#ifdef HAVE_ISOCHRONOUS
/* --isochronous (proto_udp_iso.c): send the datagram sp->iso->dg
 * describes; hand a received datagram (sp->w.lock held) to the frame
 * statistics. */
ssize_t udp_iso_send(struct iperf_stream *sp, struct udp_ctx *c);
void udp_iso_account(struct iperf_stream *sp, const struct udp_ctx *c,
    const unsigned char *d, size_t len);
#endif

#ifdef HAVE_MULTICAST
struct iperf_test;
/* proto_udp_mcast.c.  Client: the group's TTL / hop limit and outgoing
 * interface on a stream socket (0, or -1 with errno). */
int udp_mcast_client_opts(struct iperf_test *test, int fd, int family);
/* Sender: the extension of one datagram of len bytes in buf. */
void udp_mcast_stamp(struct iperf_stream *sp, struct udp_ctx *c,
    unsigned char *buf, size_t len);
/* Receiver: 1 if the datagram is an end marker. */
int udp_mcast_is_end(const struct udp_ctx *c, const unsigned char *d,
    size_t len);
/* Sender, after its last datagram: the end markers. */
void udp_mcast_send_end(struct iperf_stream *sp);
#endif

#endif /* IPERF_PROTO_UDP_INT_H */
