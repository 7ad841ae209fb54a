/* server_accept.c - listeners, cookie checks and busy answers. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "ctrl.h"
#include "ctrl_tune.h"
#include "evloop.h"
#include "iperf.h"
#include "notes.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "net.h"
#include "proto.h"
#include "report.h"
#include "server_accept.h"
#include "server_limits.h"
#ifdef HAVE_RPM
#include "server_rpm.h"
#endif
#include "session.h"
#include "stream.h"
#include "test.h"
#include "banned.h"

/* A data connection whose cookie has not fully arrived yet. */
struct pending_conn {
	int fd;
	unsigned char buf[IPERF_COOKIE_SIZE];
	size_t len;
	uint64_t start_us;
	struct pending_conn *next;
};

void
server_deny(int fd)
{
	unsigned char b = (unsigned char)(signed char)ACCESS_DENIED;

	(void)net_set_nonblocking(fd, 1);
	(void)send(fd, &b, 1, MSG_NOSIGNAL);
	close(fd);
}

void
server_accept_control(struct iperf_test *test, int fd,
    const struct sockaddr_storage *ss, const char *cookie)
{
	test->run.ses.ctrl_sck = fd;
	test->run.srv.peer_addr = *ss;
	addr_format(ss, test->run.srv.peer_host, sizeof(test->run.srv.peer_host),
	    &test->run.srv.peer_port);
	test->mapped_v4 = addr_is_mapped_v4(ss);
	(void)net_set_nodelay(fd);
	test->run.srv.capture_output = 1;
	test->run.srv.progress_us = evloop_now(test->loop);
	server_limits_idle_stop(test);
	test->reporter->begin(test);
	if (session_attach_ctrl(test, test->role_ops) == -1 ||
	    test_tune_ctrl(test) == -1) {
		test->run.ses.sops->on_fail(test);
		return;
	}
	if (cookie == NULL) {
		session_expect_cookie(test);
		return;
	}
	/* The dispatcher of a --max-tests server read it already. */
	if (test->run.ses.sops->on_cookie(test, cookie) == -1)
		test->run.ses.sops->on_fail(test);
}

static void
pending_cb(struct evloop *loop, int fd, unsigned int events, void *arg);

static void
accept_data_candidate(struct iperf_test *test, int listen_fd)
{
	struct pending_conn *pc;
	int ready = 0, next = listen_fd;
	int fd = test->proto->accept(test, listen_fd, &ready, &next);

	note_flush(test);
	/* A datagram transport turns its listener into the stream and
	 * hands over a fresh one (or none, if that failed). */
	if (next != listen_fd) {
		evloop_del_fd(test->loop, listen_fd);
		test->run.srv.prot_listener = next;
		if (next >= 0 && evloop_add_fd(test->loop, next, EV_READ,
			server_data_listener_cb, test) == -1) {
			if (fd >= 0)
				close(fd);
			(void)iperf_fail(test, IESTREAMLISTEN, errno);
			test->run.ses.sops->on_fail(test);
			return;
		}
	}
	if (fd == PROTO_ACCEPT_FATAL) {
		test->run.ses.sops->on_fail(test); /* this host refused an option */
		return;
	}
	if (fd == -1) {
		iperf_err_clear(test); /* a failed candidate does not end the test */
		return;
	}
	if (ready) {
		if (server_add_stream(test, fd) == -1)
			test->run.ses.sops->on_fail(test);
		return;
	}
	pc = calloc(1, sizeof(*pc));
	if (pc == NULL || net_set_nonblocking(fd, 1) == -1 ||
	    evloop_add_fd(test->loop, fd, EV_READ, pending_cb, test) == -1) {
		free(pc);
		close(fd);
		return;
	}
	pc->fd = fd;
	pc->start_us = evloop_now(test->loop);
	pc->next = test->run.srv.pending;
	test->run.srv.pending = pc;
}

static void
listener_cb(struct evloop *loop, int fd, unsigned int events, void *arg)
{
	struct iperf_test *test = arg;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int nfd;

	(void)loop;
	(void)events;
	if (test->run.state == CREATE_STREAMS && test->run.srv.prot_listener < 0 &&
	    (test->proto->flags & PROTO_F_COOKIE)) {
		accept_data_candidate(test, fd);
		return;
	}
	nfd = accept(fd, (struct sockaddr *)&ss, &len);
	if (nfd == -1)
		return; /* transient (ECONNABORTED, EMFILE...): keep serving */
#ifdef HAVE_RPM
	if (server_rpm_accept(test, nfd, 0))
		return; /* a foreign probe of a running --rpm test */
#endif
	if (test->run.ses.ctrl_sck >= 0 || test->run.done) {
		server_deny(nfd);
		return;
	}
	server_accept_control(test, nfd, &ss, NULL);
}

void
server_watch_listener(struct iperf_test *test)
{
	if (test->listener >= 0)
		(void)evloop_add_fd(test->loop, test->listener, EV_READ,
		    listener_cb, test);
}

void
server_unwatch_listener(struct iperf_test *test)
{
	if (test->listener >= 0 && test->loop != NULL)
		evloop_del_fd(test->loop, test->listener);
}

static void
unlink_pending(struct iperf_test *test, struct pending_conn *pc)
{
	struct pending_conn **pp = &test->run.srv.pending;

	while (*pp != NULL && *pp != pc)
		pp = &(*pp)->next;
	if (*pp == pc)
		*pp = pc->next;
	evloop_del_fd(test->loop, pc->fd);
}

int
server_read_cookie(int fd, unsigned char *buf, size_t *len)
{
	ssize_t n = recv(fd, buf + *len, IPERF_COOKIE_SIZE - *len, 0);

	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -1;
	*len += (size_t)n;
	return *len < IPERF_COOKIE_SIZE ? 0 : 1;
}

static void
pending_cb(struct evloop *loop, int fd, unsigned int events, void *arg)
{
	struct iperf_test *test = arg;
	struct pending_conn *pc;
	int n;

	(void)loop;
	(void)events;
	for (pc = test->run.srv.pending; pc != NULL && pc->fd != fd; pc = pc->next)
		;
	if (pc == NULL)
		return;
	n = server_read_cookie(fd, pc->buf, &pc->len);
	if (n == 0)
		return;
	unlink_pending(test, pc);
	/* Compared as C strings, bounded to the cookie size (as peers do). */
	if (n > 0 && test->run.state == CREATE_STREAMS &&
	    strncmp((const char *)pc->buf, test->run.cookie, IPERF_COOKIE_SIZE) == 0 &&
	    net_set_nonblocking(fd, 0) == 0) {
		free(pc);
		if (test->proto->adopt != NULL && test->proto->adopt(test, fd) == -1) {
			note_flush(test);
			close(fd);
			test->run.ses.sops->on_fail(test);
			return;
		}
		note_flush(test);
		if (server_add_stream(test, fd) == -1)
			test->run.ses.sops->on_fail(test);
		return;
	}
	server_deny(fd);
	free(pc);
}

void
server_expire_pending(struct iperf_test *test, uint64_t now_us)
{
	struct pending_conn *pc = test->run.srv.pending, *next;

#ifdef HAVE_RPM
	server_rpm_expire(test, now_us);
#endif
	for (; pc != NULL; pc = next) {
		next = pc->next;
		if (now_us - pc->start_us < IPERF_CTRL_FIRST_BYTE_US)
			continue;
		unlink_pending(test, pc);
		server_deny(pc->fd);
		free(pc);
	}
}

void
server_drop_pending(struct iperf_test *test)
{
#ifdef HAVE_RPM
	server_rpm_drop(test);
#endif
	while (test->run.srv.pending != NULL) {
		struct pending_conn *pc = test->run.srv.pending;

		unlink_pending(test, pc);
		close(pc->fd);
		free(pc);
	}
}

void
server_data_listener_cb(struct evloop *loop, int fd, unsigned int events,
    void *arg)
{
	struct iperf_test *test = arg;

	(void)loop;
	(void)events;
	if (test->run.state != CREATE_STREAMS)
		return;
	accept_data_candidate(test, fd);
}

int
server_add_stream(struct iperf_test *test, int fd)
{
	int index = test->run.srv.streams_accepted;
	struct iperf_stream *sp;

	if (index >= test->run.srv.streams_expected) {
		server_deny(fd);
		return 0;
	}
	sp = stream_new(test, fd, test_stream_is_sender(test, index));
	if (sp == NULL) {
		int err = errno;
		close(fd);
		return iperf_fail(test, IECREATESTREAM, err);
	}
	stream_add(test, sp);
	if (stream_setup(sp) == -1)
		return -1;
	/* UDP: the first stream once -w is applied (it was the listener). */
	if (index == 0 && (test->proto->flags & PROTO_F_DATAGRAM))
		net_get_bufsizes(fd, &test->run.sndbuf_actual, &test->run.rcvbuf_actual);
	if (test->on_new_stream != NULL)
		test->on_new_stream(sp);
	else
		test->reporter->on_new_stream(sp);
	test->run.srv.streams_accepted++;
	test->run.srv.progress_us = evloop_now(test->loop);
	if (test->run.srv.streams_accepted == test->run.srv.streams_expected &&
	    test->run.ses.sops->on_streams_ready != NULL)
		return test->run.ses.sops->on_streams_ready(test);
	return 0;
}
