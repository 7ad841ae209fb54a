/*
 * rpm_stream.h - --rpm: load streams framed as records, and the self
 * probes that ride inside them (ext.h EXT_RPM, between our client and
 * our server only).
 *
 * Records.  Every byte of an rpm data connection, both ways, belongs to
 * a record: a 4-byte header (type u8, length u24 big-endian) and length
 * bytes of body.
 *   LOAD (1)  body: filler (at most RPM_LOAD_MAX bytes), discarded;
 *   PING (2)  body: id u32, send time u64 (the client's CLOCK_MONOTONIC,
 *             ns), both big-endian (RPM_PING_LEN bytes);
 *   PONG (3)  the PING's body, unchanged.
 * Any other type, or a PING/PONG of another length, ends the stream as
 * an error.
 *
 * The test is an upload.  The client's worker writes LOAD records while
 * its stream is active (index < rpm_run.active; the ramp in client_rpm.c
 * activates them one at a time), and a PING between two records when
 * one is due: at most one outstanding per stream, the next one
 * RPM_SELF_PERIOD_US x active streams after the last was sent, so all
 * streams together send about 100 self probes a second.  The socket has
 * TCP_NODELAY and TCP_NOTSENT_LOWAT of one LOAD body, so a PING waits
 * behind the load already in flight and the bottleneck queue, and behind
 * at most about two records of its own stream, not behind a deep send
 * buffer.  The body follows the stream's rate: every RPM_ADAPT_US it is
 * what the stream wrote in a millisecond over that time, within
 * RPM_LOAD_MIN and RPM_LOAD_MAX (and -l less the header), so the PING's
 * own wait stays near 2 ms of the stream's rate on a slow path, and a
 * fast one is not held to a write per few kilobytes.  The server's worker reads records and
 * answers each PING with its PONG on the same connection (the quiet
 * direction).  The client's self-probe delay is the PONG's arrival
 * minus the PING's send time.
 *
 * Foreign probes (a fresh connection per probe) are the client's
 * (client_rpm.c) and the server's (server_rpm.c) business: the new
 * connection sends the test's cookie and one PING record, the server
 * answers with the PONG and closes.
 */
#ifndef IPERF_RPM_STREAM_H
#define IPERF_RPM_STREAM_H

#include <sys/socket.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "iperf.h"
#include "rpm_calc.h"

struct iperf_stream;

#define RPM_REC_LOAD 1
#define RPM_REC_PING 2
#define RPM_REC_PONG 3
#define RPM_HDR_LEN 4
#define RPM_PING_LEN 12
#define RPM_PING_REC (RPM_HDR_LEN + RPM_PING_LEN)
#define RPM_LOAD_MAX 65536   /* the longest LOAD body */
#define RPM_LOAD_MIN 4096    /* the shortest one our client writes */
#define RPM_ADAPT_US 100000ULL /* a client stream resizes its records */
#define RPM_SELF_PERIOD_US 10000ULL /* x active streams */
#define RPM_MAX_STREAMS 16 /* load connections unless -P says */
#define RPM_MAX_SAMPLES 1000000 /* per kind of probe */
#define RPM_GROWTH 0.05 /* goodput growth that asks for one more stream */

/* Parser of incoming records (one per direction of a connection). */
struct rpm_parser {
	unsigned char hdr[RPM_HDR_LEN];
	size_t hdr_have;
	int type;
	size_t body_left;
	unsigned char body[RPM_PING_LEN];
	size_t body_have;
};

/* Probe delays with the time they were taken (since the load began). */
struct rpm_series {
	uint64_t *at_us, *ns;
	size_t n, cap;
};

enum rpm_kind { RPM_SELF, RPM_FCONN, RPM_FRR, RPM_KINDS };

/* The client's --rpm run (created in client_rpm.c, read by the
 * workers). */
struct rpm_run {
	pthread_mutex_t lock;        /* guards series and foreign_failed */
	struct rpm_series series[RPM_KINDS];
	uint64_t foreign_failed;
	atomic_int active;           /* load streams allowed to send */
	uint64_t start_us;           /* the load began (monotonic) */
	/* controller thread (client_rpm.c) */
	pthread_t thread;
	int thread_started;
	atomic_int stop;
	struct sockaddr_storage srv, local; /* the control connection's
					     * ends (local: any port) */
	socklen_t srv_len, local_len;
	char cookie[IPERF_COOKIE_SIZE];
	int max_streams;
	double best_gp;          /* the best interval's goodput so far */
	struct rpm_stab gp_stab; /* goodput over the working conditions */
	int gp_stable;
	uint64_t last_bytes, last_tick_us;
	uint64_t work_us; /* saturated from here (0: not yet) */
	uint64_t work_bytes;
};

/* Per stream (sp->rpm). */
struct rpm_stream {
	int index; /* 0 for the first stream */
	struct rpm_parser in;
	/* client: the record being written */
	unsigned char *load; /* a LOAD record */
	size_t body, body_max; /* its body now, and at most */
	uint64_t win_start_us, win_bytes; /* since the last resize */
	unsigned char ping[RPM_PING_REC];
	const unsigned char *cur;
	size_t cur_len, cur_off;
	uint32_t ping_id;
	int ping_out;
	uint64_t next_ping_us;
};

/* ---- pure framing ---------------------------------------------------------- */

void rpm_rec_header(unsigned char *h, int type, size_t len);
void rpm_ping_body(unsigned char *b, uint32_t id, uint64_t t_ns);
void rpm_ping_read(const unsigned char *b, uint32_t *id, uint64_t *t_ns);
void rpm_parser_init(struct rpm_parser *p);
/* Feed n bytes; on_small(arg, type, body) is called for each complete
 * PING or PONG.  0, or -1 on a malformed record. */
int rpm_parse(struct rpm_parser *p, const unsigned char *buf, size_t n,
    void (*on_small)(void *arg, int type, const unsigned char *body),
    void *arg);

/* CLOCK_MONOTONIC in nanoseconds (the probes' clock). */
uint64_t rpm_now_ns(void);

/* ---- samples ----------------------------------------------------------------- */

/* Record a probe delay (ns) taken at at_us (monotonic). */
void rpm_run_record(struct rpm_run *r, enum rpm_kind k, uint64_t at_us,
    uint64_t ns);

/* ---- data path (rpm_stream.c) --------------------------------------------- */

int rpm_stream_init(struct iperf_stream *sp);
void rpm_stream_release(struct iperf_stream *sp);
void rpm_worker(struct iperf_stream *sp);

#endif /* IPERF_RPM_STREAM_H */
