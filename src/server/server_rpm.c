/* server_rpm.c - answering --rpm foreign probes (server_rpm.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evloop.h"
#include "iperf.h"
#include "net.h"
#include "rpm_stream.h"
#include "server_rpm.h"
#include "banned.h"

struct rpm_foreign {
	int fd;
	unsigned char buf[IPERF_COOKIE_SIZE + RPM_PING_REC];
	size_t len;
	uint64_t start_us;
	struct rpm_foreign *next;
};

/* As a busy server answers (ACCESS_DENIED), for anything but a probe. */
static void
deny(int fd)
{
	unsigned char b = (unsigned char)(signed char)ACCESS_DENIED;

	(void)send(fd, &b, 1, MSG_NOSIGNAL);
	close(fd);
}

static void
unlink_probe(struct iperf_test *test, struct rpm_foreign *f)
{
	struct rpm_foreign **pp = &test->run.srv.rpm_foreign;

	while (*pp != NULL && *pp != f)
		pp = &(*pp)->next;
	if (*pp == f)
		*pp = f->next;
	evloop_del_fd(test->loop, f->fd);
}

/* The whole message: the PONG if it is this test's probe, else a deny. */
static void
answer(struct iperf_test *test, struct rpm_foreign *f)
{
	unsigned char *rec = f->buf + IPERF_COOKIE_SIZE;

	if (test->run.state == TEST_RUNNING &&
	    strncmp((const char *)f->buf, test->run.cookie,
		IPERF_COOKIE_SIZE) == 0 && rec[0] == RPM_REC_PING &&
	    rec[1] == 0 && rec[2] == 0 && rec[3] == RPM_PING_LEN) {
		rec[0] = RPM_REC_PONG;
		(void)send(f->fd, rec, RPM_PING_REC, MSG_NOSIGNAL);
		close(f->fd);
		return;
	}
	deny(f->fd);
}

static void
probe_cb(struct evloop *loop, int fd, unsigned int events, void *arg)
{
	struct iperf_test *test = arg;
	struct rpm_foreign *f;
	ssize_t n;

	(void)loop;
	(void)events;
	for (f = test->run.srv.rpm_foreign; f != NULL && f->fd != fd;
	     f = f->next)
		;
	if (f == NULL)
		return;
	n = recv(fd, f->buf + f->len, sizeof(f->buf) - f->len, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0) {
		f->len += (size_t)n;
		/* another client's cookie is denied at once, as when busy */
		if (f->len < sizeof(f->buf) && (f->len < IPERF_COOKIE_SIZE ||
			strncmp((const char *)f->buf, test->run.cookie,
			    IPERF_COOKIE_SIZE) == 0))
			return;
	}
	unlink_probe(test, f);
	if (n > 0)
		answer(test, f);
	else
		close(fd);
	free(f);
}

int
server_rpm_accept(struct iperf_test *test, int fd, int cookie_read)
{
	struct rpm_foreign *f;
	int n = 0;

	if (!test->settings.rpm || test->run.state != TEST_RUNNING)
		return 0;
	for (f = test->run.srv.rpm_foreign; f != NULL; f = f->next)
		n++;
	if (n >= RPM_FOREIGN_PENDING_MAX) {
		deny(fd); /* a flood, not our client's one probe at a time */
		return 1;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL || net_set_nonblocking(fd, 1) == -1 ||
	    evloop_add_fd(test->loop, fd, EV_READ, probe_cb, test) == -1) {
		free(f);
		close(fd);
		return 1;
	}
	f->fd = fd;
	if (cookie_read) {
		memcpy(f->buf, test->run.cookie, IPERF_COOKIE_SIZE);
		f->len = IPERF_COOKIE_SIZE;
	}
	f->start_us = evloop_now(test->loop);
	f->next = test->run.srv.rpm_foreign;
	test->run.srv.rpm_foreign = f;
	return 1;
}

void
server_rpm_expire(struct iperf_test *test, uint64_t now_us)
{
	struct rpm_foreign *f = test->run.srv.rpm_foreign, *next;

	for (; f != NULL; f = next) {
		next = f->next;
		if (now_us - f->start_us < RPM_FOREIGN_WAIT_US)
			continue;
		unlink_probe(test, f);
		deny(f->fd);
		free(f);
	}
}

void
server_rpm_drop(struct iperf_test *test)
{
	while (test->run.srv.rpm_foreign != NULL) {
		struct rpm_foreign *f = test->run.srv.rpm_foreign;

		unlink_probe(test, f);
		close(f->fd);
		free(f);
	}
}
