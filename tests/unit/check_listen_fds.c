/* check_listen_fds.c - systemd socket activation (net/listen_fds.c): the
 * environment protocol with real sockets put on fds 3.., and what a
 * passed socket is. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "listen_fds.h"

#define SLOTS 3		/* fds 3, 4, 5 at most */
#define HIGH 200	/* where the test keeps its own descriptors */

/* What listen_fds_take() did with sockets on fds 3.. (captured while they
 * were there: Check's own files may be on those numbers, so no ck_assert
 * runs until they are back). */
struct took {
	int rc;
	int fds[SLOTS];
	char err[256];
	int cloexec[SLOTS];
	int drc[SLOTS], type[SLOTS], family[SLOTS], port[SLOTS], listening[SLOTS];
};

static void
clear_env(void)
{
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
}

/* The activation variables, with LISTEN_PID this process's (pid 0) or
 * the one given; a NULL value leaves that variable out. */
static void
set_env(pid_t pid, const char *nfds, const char *names)
{
	char buf[32];

	clear_env();
	snprintf(buf, sizeof(buf), "%ld", (long)(pid ? pid : getpid()));
	ck_assert_int_eq(setenv("LISTEN_PID", buf, 1), 0);
	if (nfds)
		ck_assert_int_eq(setenv("LISTEN_FDS", nfds, 1), 0);
	if (names)
		ck_assert_int_eq(setenv("LISTEN_FDNAMES", names, 1), 0);
}

/* fd moved to a high number (so that it is not one of the slots). */
static int
high(int fd)
{
	int h;

	ck_assert_int_ge(fd, 0);
	h = fcntl(fd, F_DUPFD_CLOEXEC, HIGH);
	ck_assert_int_ge(h, HIGH);
	close(fd);
	return h;
}

/* A socket of `type` bound to 127.0.0.1, port chosen by the system (in
 * *port), listening if asked. */
static int
local_socket(int type, int listening, int *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd = high(socket(AF_INET, type, 0));

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	if (listening)
		ck_assert_int_eq(listen(fd, 4), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

static void
capture(struct took *t, int n, int max)
{
	int i, fl;

	t->rc = listen_fds_take(t->fds, max, t->err, sizeof(t->err));
	for (i = 0; i < n; i++) {
		fl = fcntl(LISTEN_FDS_START + i, F_GETFD);
		t->cloexec[i] = fl >= 0 && (fl & FD_CLOEXEC);
		t->drc[i] = listen_fd_describe(LISTEN_FDS_START + i, &t->type[i],
		    &t->family[i], &t->port[i], &t->listening[i]);
	}
}

/* socks[i] put on fd 3 + i (a negative one: that fd closed), what was
 * there saved and put back after listen_fds_take(fds, max). */
static void
take_on_slots(const int *socks, int n, int max, struct took *t)
{
	int saved[SLOTS], flags[SLOTS], i, slot;

	memset(t, 0, sizeof(*t));
	ck_assert_int_le(n, SLOTS);
	for (i = 0; i < n; i++) {
		slot = LISTEN_FDS_START + i;
		flags[i] = fcntl(slot, F_GETFD);
		saved[i] = flags[i] < 0 ? -1 : fcntl(slot, F_DUPFD_CLOEXEC, HIGH);
		if (socks[i] >= 0)
			(void)dup2(socks[i], slot);	/* no FD_CLOEXEC */
		else
			(void)close(slot);
	}
	capture(t, n, max);
	for (i = 0; i < n; i++) {
		slot = LISTEN_FDS_START + i;
		if (saved[i] >= 0) {
			(void)dup2(saved[i], slot);
			(void)fcntl(slot, F_SETFD, flags[i]);
			(void)close(saved[i]);
		} else
			(void)close(slot);
	}
}

static void
assert_env_gone(void)
{
	ck_assert_ptr_null(getenv("LISTEN_PID"));
	ck_assert_ptr_null(getenv("LISTEN_FDS"));
	ck_assert_ptr_null(getenv("LISTEN_FDNAMES"));
}

START_TEST(tcp_and_udp_sockets_are_taken)
{
	int tport, uport, socks[2];
	struct took t;

	socks[0] = local_socket(SOCK_STREAM, 1, &tport);
	socks[1] = local_socket(SOCK_DGRAM, 0, &uport);
	set_env(0, "2", "control:data");
	ck_assert_int_eq(setenv("IPERF3_UNRELATED", "kept", 1), 0);
	take_on_slots(socks, 2, 8, &t);
	ck_assert_msg(t.rc == 2, "rc %d: %s", t.rc, t.err);
	ck_assert_int_eq(t.fds[0], 3);
	ck_assert_int_eq(t.fds[1], 4);
	ck_assert_int_eq(t.cloexec[0], 1);
	ck_assert_int_eq(t.cloexec[1], 1);
	assert_env_gone();
	ck_assert_str_eq(getenv("IPERF3_UNRELATED"), "kept");

	ck_assert_int_eq(t.drc[0], 0);
	ck_assert_int_eq(t.type[0], SOCK_STREAM);
	ck_assert_int_eq(t.family[0], AF_INET);
	ck_assert_int_eq(t.port[0], tport);
	ck_assert_int_eq(t.listening[0], 1);
	ck_assert_int_eq(t.drc[1], 0);
	ck_assert_int_eq(t.type[1], SOCK_DGRAM);
	ck_assert_int_eq(t.family[1], AF_INET);
	ck_assert_int_eq(t.port[1], uport);
	ck_assert_int_eq(t.listening[1], 0);
	close(socks[0]);
	close(socks[1]);
}
END_TEST

START_TEST(exactly_max_sockets_are_fine)
{
	int port, socks[SLOTS], i;
	struct took t;

	for (i = 0; i < SLOTS; i++)
		socks[i] = local_socket(SOCK_STREAM, 1, &port);
	set_env(0, "3", NULL);
	take_on_slots(socks, SLOTS, SLOTS, &t);
	ck_assert_msg(t.rc == SLOTS, "rc %d: %s", t.rc, t.err);
	for (i = 0; i < SLOTS; i++) {
		ck_assert_int_eq(t.fds[i], LISTEN_FDS_START + i);
		ck_assert_int_eq(t.cloexec[i], 1);
		close(socks[i]);
	}
	assert_env_gone();
}
END_TEST

START_TEST(a_pipe_is_refused)
{
	int port, p[2], socks[2];
	struct took t;

	ck_assert_int_eq(pipe(p), 0);
	socks[0] = local_socket(SOCK_STREAM, 1, &port);
	socks[1] = high(p[0]);
	set_env(0, "2", NULL);
	take_on_slots(socks, 2, 8, &t);
	ck_assert_int_eq(t.rc, -1);
	ck_assert_msg(strstr(t.err, "fd 4") && strstr(t.err, "not a socket"),
	    "err: %s", t.err);
	/* Nothing changed on the descriptors; the variables were ours. */
	ck_assert_int_eq(t.cloexec[0], 0);
	ck_assert_int_eq(t.cloexec[1], 0);
	assert_env_gone();
	close(socks[0]);
	close(socks[1]);
	close(p[1]);
}
END_TEST

START_TEST(a_closed_fd_is_refused)
{
	int port, socks[2];
	struct took t;

	socks[0] = local_socket(SOCK_STREAM, 1, &port);
	socks[1] = -1;
	set_env(0, "2", NULL);
	take_on_slots(socks, 2, 8, &t);
	ck_assert_int_eq(t.rc, -1);
	ck_assert_msg(strstr(t.err, "fd 4") && strstr(t.err, "not open"),
	    "err: %s", t.err);
	ck_assert_int_eq(t.cloexec[0], 0);
	assert_env_gone();
	close(socks[0]);
}
END_TEST

START_TEST(more_sockets_than_max_are_refused)
{
	int port, socks[2];
	struct took t;

	socks[0] = local_socket(SOCK_STREAM, 1, &port);
	socks[1] = local_socket(SOCK_DGRAM, 0, &port);
	set_env(0, "2", NULL);
	take_on_slots(socks, 2, 1, &t);
	ck_assert_int_eq(t.rc, -1);
	ck_assert_msg(t.err[0] != '\0', "no message");
	ck_assert_int_eq(t.cloexec[0], 0);
	ck_assert_int_eq(t.cloexec[1], 0);
	assert_env_gone();
	close(socks[0]);
	close(socks[1]);
}
END_TEST

START_TEST(another_process_s_sockets_are_left_alone)
{
	int port, socks[1];
	struct took t;

	socks[0] = local_socket(SOCK_STREAM, 1, &port);
	set_env(getppid(), "1", "x");
	take_on_slots(socks, 1, 8, &t);
	ck_assert_int_eq(t.rc, 0);
	ck_assert_int_eq(t.cloexec[0], 0);
	ck_assert_ptr_nonnull(getenv("LISTEN_PID"));
	ck_assert_str_eq(getenv("LISTEN_FDS"), "1");
	ck_assert_str_eq(getenv("LISTEN_FDNAMES"), "x");
	close(socks[0]);
}
END_TEST

START_TEST(no_variables_no_activation)
{
	int fds[2] = { -7, -7 };
	char err[64] = "";

	clear_env();
	ck_assert_int_eq(listen_fds_take(fds, 2, err, sizeof(err)), 0);
	ck_assert_int_eq(fds[0], -7);
	/* LISTEN_FDS alone (no LISTEN_PID) is not addressed to us either. */
	ck_assert_int_eq(setenv("LISTEN_FDS", "1", 1), 0);
	ck_assert_int_eq(listen_fds_take(fds, 2, err, sizeof(err)), 0);
	ck_assert_str_eq(getenv("LISTEN_FDS"), "1");
}
END_TEST

/* Malformed environments: { LISTEN_PID (NULL: ours), LISTEN_FDS (NULL:
 * absent), max }. */
static const struct {
	const char *pid, *nfds;
	int max;
} bad[] = {
	{ "abc", "1", 4 }, { "", "1", 4 }, { "12x", "1", 4 }, { "-1", "1", 4 },
	{ " 1", "1", 4 }, { "99999999999999999999999", "1", 4 },
	{ NULL, NULL, 4 }, { NULL, "", 4 }, { NULL, "x", 4 }, { NULL, "0", 4 },
	{ NULL, "-1", 4 }, { NULL, "1x", 4 }, { NULL, "+1", 4 },
	{ NULL, " 1", 4 }, { NULL, "99999999999999999999999", 4 },
	{ NULL, "5", 4 }, { NULL, "1", 0 },
};

START_TEST(malformed_environments_are_errors)
{
	int fds[4];
	char err[128] = "";

	if (bad[_i].pid) {
		clear_env();
		ck_assert_int_eq(setenv("LISTEN_PID", bad[_i].pid, 1), 0);
		if (bad[_i].nfds)
			ck_assert_int_eq(setenv("LISTEN_FDS", bad[_i].nfds, 1), 0);
	} else
		set_env(0, bad[_i].nfds, NULL);
	ck_assert_int_eq(listen_fds_take(fds, bad[_i].max, err, sizeof(err)), -1);
	ck_assert_msg(err[0] != '\0', "case %d: no message", _i);
	if (!bad[_i].pid)
		assert_env_gone();
}
END_TEST

START_TEST(describe_says_what_a_socket_is)
{
	int port, fd, sp[2], type = -1, family = -1, p = -1, listening = -1;

	fd = local_socket(SOCK_STREAM, 0, &port);
	ck_assert_int_eq(listen_fd_describe(fd, &type, &family, &p, &listening), 0);
	ck_assert_int_eq(type, SOCK_STREAM);
	ck_assert_int_eq(family, AF_INET);
	ck_assert_int_eq(p, port);
	ck_assert_int_eq(listening, 0);
	ck_assert_int_eq(listen(fd, 1), 0);
	ck_assert_int_eq(listen_fd_describe(fd, NULL, NULL, NULL, &listening), 0);
	ck_assert_int_eq(listening, 1);
	close(fd);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	ck_assert_int_eq(listen_fd_describe(sp[0], &type, &family, &p, &listening), 0);
	ck_assert_int_eq(type, SOCK_STREAM);
	ck_assert_int_eq(family, AF_UNIX);
	ck_assert_int_eq(p, 0);
	ck_assert_int_eq(listening, 0);
	close(sp[0]);
	close(sp[1]);
}
END_TEST

START_TEST(describe_an_ipv6_socket)
{
	struct sockaddr_in6 s6;
	socklen_t len = sizeof(s6);
	int fd = socket(AF_INET6, SOCK_DGRAM, 0), type, family, port, listening;

	if (fd < 0)
		return;	/* no IPv6 here */
	memset(&s6, 0, sizeof(s6));
	s6.sin6_family = AF_INET6;
	s6.sin6_addr = in6addr_loopback;
	if (bind(fd, (struct sockaddr *)&s6, sizeof(s6)) != 0) {
		close(fd);
		return;
	}
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&s6, &len), 0);
	ck_assert_int_eq(listen_fd_describe(fd, &type, &family, &port, &listening), 0);
	ck_assert_int_eq(type, SOCK_DGRAM);
	ck_assert_int_eq(family, AF_INET6);
	ck_assert_int_eq(port, ntohs(s6.sin6_port));
	ck_assert_int_eq(listening, 0);
	close(fd);
}
END_TEST

START_TEST(describe_refuses_what_is_not_a_socket)
{
	int p[2], type;

	ck_assert_int_eq(pipe(p), 0);
	errno = 0;
	ck_assert_int_eq(listen_fd_describe(p[0], &type, NULL, NULL, NULL), -1);
	ck_assert_int_eq(errno, ENOTSOCK);
	close(p[0]);
	close(p[1]);
	errno = 0;
	ck_assert_int_eq(listen_fd_describe(p[0], &type, NULL, NULL, NULL), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("listen_fds");
	TCase *take = tcase_create("take");
	TCase *desc = tcase_create("describe");

	/* Each test sets the variables it needs; none leaks into the next
	 * (CK_FORK=no runs them in one process). */
	tcase_add_checked_fixture(take, clear_env, clear_env);
	tcase_add_test(take, tcp_and_udp_sockets_are_taken);
	tcase_add_test(take, exactly_max_sockets_are_fine);
	tcase_add_test(take, a_pipe_is_refused);
	tcase_add_test(take, a_closed_fd_is_refused);
	tcase_add_test(take, more_sockets_than_max_are_refused);
	tcase_add_test(take, another_process_s_sockets_are_left_alone);
	tcase_add_test(take, no_variables_no_activation);
	tcase_add_loop_test(take, malformed_environments_are_errors, 0,
	    (int)(sizeof(bad) / sizeof(bad[0])));
	suite_add_tcase(s, take);
	tcase_add_test(desc, describe_says_what_a_socket_is);
	tcase_add_test(desc, describe_an_ipv6_socket);
	tcase_add_test(desc, describe_refuses_what_is_not_a_socket);
	suite_add_tcase(s, desc);
	return s;
}
