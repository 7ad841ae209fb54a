/* rpm_stream.c - the --rpm records and the workers of its load streams
 * (rpm_stream.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "rpm_stream.h"
#include "stream.h"
#include "stream_io.h"
#include "banned.h"

#define RPM_POLL_MS 50 /* a worker looks at its stop flag this often */

uint64_t
rpm_now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- framing ------------------------------------------------------------- */

void
rpm_rec_header(unsigned char *h, int type, size_t len)
{
	h[0] = (unsigned char)type;
	h[1] = (unsigned char)(len >> 16);
	h[2] = (unsigned char)(len >> 8);
	h[3] = (unsigned char)len;
}

void
rpm_ping_body(unsigned char *b, uint32_t id, uint64_t t_ns)
{
	int i;

	for (i = 0; i < 4; i++)
		b[i] = (unsigned char)(id >> (24 - 8 * i));
	for (i = 0; i < 8; i++)
		b[4 + i] = (unsigned char)(t_ns >> (56 - 8 * i));
}

void
rpm_ping_read(const unsigned char *b, uint32_t *id, uint64_t *t_ns)
{
	int i;

	*id = 0;
	*t_ns = 0;
	for (i = 0; i < 4; i++)
		*id = (*id << 8) | b[i];
	for (i = 0; i < 8; i++)
		*t_ns = (*t_ns << 8) | b[4 + i];
}

void
rpm_parser_init(struct rpm_parser *p)
{
	memset(p, 0, sizeof(*p));
}

/* A complete header: check it and set up the body. */
static int
parse_header(struct rpm_parser *p)
{
	p->type = p->hdr[0];
	p->body_left = ((size_t)p->hdr[1] << 16) | ((size_t)p->hdr[2] << 8) |
	    p->hdr[3];
	p->body_have = 0;
	p->hdr_have = 0;
	if (p->type == RPM_REC_LOAD)
		return p->body_left <= RPM_LOAD_MAX ? 0 : -1;
	if (p->type == RPM_REC_PING || p->type == RPM_REC_PONG)
		return p->body_left == RPM_PING_LEN ? 0 : -1;
	return -1;
}

int
rpm_parse(struct rpm_parser *p, const unsigned char *buf, size_t n,
    void (*on_small)(void *arg, int type, const unsigned char *body),
    void *arg)
{
	while (n > 0) {
		size_t k;

		if (p->type == 0) {
			p->hdr[p->hdr_have++] = *buf++;
			n--;
			if (p->hdr_have == RPM_HDR_LEN && parse_header(p) == -1)
				return -1;
			continue;
		}
		k = n < p->body_left ? n : p->body_left;
		if (p->type != RPM_REC_LOAD)
			memcpy(p->body + p->body_have, buf, k);
		p->body_have += k;
		p->body_left -= k;
		buf += k;
		n -= k;
		if (p->body_left > 0)
			continue;
		if (p->type != RPM_REC_LOAD)
			on_small(arg, p->type, p->body);
		p->type = 0;
	}
	return 0;
}

/* ---- samples --------------------------------------------------------------- */

void
rpm_run_record(struct rpm_run *r, enum rpm_kind k, uint64_t at_us,
    uint64_t ns)
{
	struct rpm_series *s = &r->series[k];

	pthread_mutex_lock(&r->lock);
	if (s->n == s->cap && s->cap < RPM_MAX_SAMPLES) {
		size_t cap = s->cap == 0 ? 1024 : s->cap * 2;
		uint64_t *a = realloc(s->at_us, cap * sizeof(*a));

		if (a != NULL)
			s->at_us = a;
		a = a == NULL ? NULL : realloc(s->ns, cap * sizeof(*a));
		if (a != NULL) {
			s->ns = a;
			s->cap = cap;
		}
	}
	if (s->n < s->cap) {
		s->at_us[s->n] = at_us;
		s->ns[s->n++] = ns;
	}
	pthread_mutex_unlock(&r->lock);
}

/* ---- set-up ---------------------------------------------------------------- */

/* LOAD bodies of about `body` bytes, and the low-water mark with them. */
static void
resize(struct iperf_stream *sp, struct rpm_stream *rs, size_t body)
{
	int lowat;

	if (body < RPM_LOAD_MIN)
		body = RPM_LOAD_MIN;
	if (body > rs->body_max)
		body = rs->body_max;
	if (body == rs->body)
		return;
	rs->body = body;
	lowat = (int)body;
#ifdef TCP_NOTSENT_LOWAT
	(void)setsockopt(sp->socket, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat,
	    sizeof(lowat));
#endif
	(void)lowat;
}

int
rpm_stream_init(struct iperf_stream *sp)
{
	struct rpm_stream *rs = calloc(1, sizeof(*rs));
	int one = 1;
	size_t body;

	if (rs == NULL)
		return iperf_fail(sp->test, IEINITSTREAM, ENOMEM);
	rs->index = sp->id == 1 ? 0 : sp->id - 2;
	rpm_parser_init(&rs->in);
	(void)setsockopt(sp->socket, IPPROTO_TCP, TCP_NODELAY, &one,
	    sizeof(one));
	if (sp->sender) {
		body = sp->blksize > RPM_HDR_LEN ? sp->blksize - RPM_HDR_LEN : 1;
		if (body > RPM_LOAD_MAX)
			body = RPM_LOAD_MAX;
		rs->body_max = body;
		rs->load = malloc(RPM_HDR_LEN + body);
		if (rs->load == NULL) {
			free(rs);
			return iperf_fail(sp->test, IEINITSTREAM, ENOMEM);
		}
		memset(rs->load + RPM_HDR_LEN, 0x55, body);
		resize(sp, rs, RPM_LOAD_MIN);
	}
	sp->rpm = rs;
	return 0;
}

void
rpm_stream_release(struct iperf_stream *sp)
{
	if (sp->rpm == NULL)
		return;
	free(sp->rpm->load);
	free(sp->rpm);
	sp->rpm = NULL;
}

/* Bytes moved (the worker's counters, under the lock as stream.h says). */
static void
count(struct iperf_stream *sp, uint64_t n, int rx)
{
	pthread_mutex_lock(&sp->w.lock);
	sp->w.live.bytes += n;
	sp->w.live.blocks++;
	if (rx)
		sp->w.live.last_rx_us = iperf_time_now_us();
	pthread_mutex_unlock(&sp->w.lock);
}

/* ---- server: answer PINGs -------------------------------------------------- */

struct answer_ctx {
	struct iperf_stream *sp;
	int failed;
};

static void
answer_ping(void *arg, int type, const unsigned char *body)
{
	struct answer_ctx *a = arg;
	unsigned char rec[RPM_PING_REC];
	size_t off = 0;

	if (type != RPM_REC_PING || a->failed)
		return;
	rpm_rec_header(rec, RPM_REC_PONG, RPM_PING_LEN);
	memcpy(rec + RPM_HDR_LEN, body, RPM_PING_LEN);
	while (off < sizeof(rec)) {
		ssize_t n = send(a->sp->socket, rec + off, sizeof(rec) - off,
		    MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			a->failed = 1;
			return;
		}
		off += (size_t)n;
	}
}

static void
server_loop(struct iperf_stream *sp)
{
	struct answer_ctx a = { sp, 0 };

	while (!atomic_load(&sp->w.stop)) {
		ssize_t n = recv(sp->socket, sp->buffer, sp->blksize, 0);

		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			if (n < 0 && !atomic_load(&sp->w.stop))
				stream_worker_fail(sp, IESTREAMREAD, errno);
			return;
		}
		count(sp, (uint64_t)n, 1);
		if (rpm_parse(&sp->rpm->in, (unsigned char *)sp->buffer,
			(size_t)n, answer_ping, &a) == -1 || a.failed) {
			if (!atomic_load(&sp->w.stop))
				stream_worker_fail(sp, IESTREAMREAD, EPROTO);
			return;
		}
	}
}

/* ---- client: load and self probes ------------------------------------------ */

struct pong_ctx {
	struct iperf_stream *sp;
	struct rpm_run *run;
};

static void
take_pong(void *arg, int type, const unsigned char *body)
{
	struct pong_ctx *c = arg;
	struct rpm_stream *rs = c->sp->rpm;
	uint32_t id;
	uint64_t t, now = rpm_now_ns();

	if (type != RPM_REC_PONG)
		return;
	rpm_ping_read(body, &id, &t);
	if (!rs->ping_out || id != rs->ping_id || t > now)
		return;
	rs->ping_out = 0;
	rpm_run_record(c->run, RPM_SELF, now / 1000, now - t);
}

/* The next record to write: a PING when one is due, else LOAD. */
static void
next_record(struct rpm_stream *rs, int active, uint64_t now_us)
{
	if (!rs->ping_out && now_us >= rs->next_ping_us) {
		uint64_t t = rpm_now_ns();

		rs->ping_id++;
		rpm_rec_header(rs->ping, RPM_REC_PING, RPM_PING_LEN);
		rpm_ping_body(rs->ping + RPM_HDR_LEN, rs->ping_id, t);
		rs->ping_out = 1;
		rs->next_ping_us = now_us + RPM_SELF_PERIOD_US *
		    (uint64_t)(active > 0 ? active : 1);
		rs->cur = rs->ping;
		rs->cur_len = sizeof(rs->ping);
	} else {
		rpm_rec_header(rs->load, RPM_REC_LOAD, rs->body);
		rs->cur = rs->load;
		rs->cur_len = RPM_HDR_LEN + rs->body;
	}
	rs->cur_off = 0;
}

/* Read what came back; 0, or -1 to stop. */
static int
client_read(struct iperf_stream *sp, struct pong_ctx *c)
{
	ssize_t n = recv(sp->socket, sp->buffer, sp->blksize, MSG_DONTWAIT);

	if (n < 0 && (errno == EINTR || errno == EAGAIN ||
	    errno == EWOULDBLOCK))
		return 0;
	if (n <= 0 || rpm_parse(&sp->rpm->in, (unsigned char *)sp->buffer,
		(size_t)n, take_pong, c) == -1) {
		if (!atomic_load(&sp->w.stop))
			stream_worker_fail(sp, IESTREAMREAD,
			    n < 0 ? errno : EPROTO);
		return -1;
	}
	return 0;
}

/* Write on: 0, or -1 to stop. */
static int
client_write(struct iperf_stream *sp)
{
	struct rpm_stream *rs = sp->rpm;
	ssize_t n = send(sp->socket, rs->cur + rs->cur_off,
	    rs->cur_len - rs->cur_off, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n < 0 && (errno == EINTR || errno == EAGAIN ||
	    errno == EWOULDBLOCK || errno == ENOBUFS))
		return 0;
	if (n <= 0) {
		if (!atomic_load(&sp->w.stop))
			stream_worker_fail(sp, IESTREAMWRITE, errno);
		return -1;
	}
	count(sp, (uint64_t)n, 0);
	rs->win_bytes += (uint64_t)n;
	rs->cur_off += (size_t)n;
	if (rs->cur_off == rs->cur_len)
		rs->cur_len = 0;
	return 0;
}

static void
client_loop(struct iperf_stream *sp, struct rpm_run *run)
{
	struct rpm_stream *rs = sp->rpm;
	struct pong_ctx c = { sp, run };

	while (!atomic_load(&sp->w.stop)) {
		int active = atomic_load(&run->active);
		struct pollfd pfd = { sp->socket, POLLIN, 0 };
		uint64_t now = iperf_time_now_us();

		if (now - rs->win_start_us >= RPM_ADAPT_US) {
			/* a millisecond's worth at the recent rate */
			resize(sp, rs, (size_t)(rs->win_bytes * 1000 /
			    (now - rs->win_start_us)));
			rs->win_start_us = now;
			rs->win_bytes = 0;
		}
		if (rs->cur_len == 0 && rs->index < active)
			next_record(rs, active, now);
		if (rs->cur_len > 0)
			pfd.events |= POLLOUT;
		if (poll(&pfd, 1, RPM_POLL_MS) < 0 && errno != EINTR)
			return;
		if ((pfd.revents & (POLLIN | POLLERR | POLLHUP)) &&
		    client_read(sp, &c) == -1)
			return;
		if ((pfd.revents & POLLOUT) && rs->cur_len > 0 &&
		    client_write(sp) == -1)
			return;
	}
}

void
rpm_worker(struct iperf_stream *sp)
{
	struct rpm_run *run = sp->test->run.cli.rpm;

	if (sp->sender && run != NULL)
		client_loop(sp, run);
	else if (!sp->sender)
		server_loop(sp);
}
