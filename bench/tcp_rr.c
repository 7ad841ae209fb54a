/*
 * tcp_rr.c - a minimal stand-in for netperf's TCP_RR, as a yardstick for
 * `iperf3 --rr` (bench/rr_bench.py).
 *
 * Two processes, as netperf and netserver (and as iperf3's client and
 * server): one TCP connection over loopback with TCP_NODELAY on both
 * ends; the client sends a request of REQ bytes and reads the whole
 * response of RESP bytes, one transaction in flight, for SECS seconds;
 * the forked server answers each request.
 * Blocking I/O, no clock read per transaction (only the count), so this
 * is the cheapest loop the kernel allows.  Prints one line:
 *
 *   transactions N seconds S transactions_per_second X
 *
 * Usage: tcp_rr [SECS [REQ [RESP]]]   (defaults 5, 1, 1)
 * Build: cc -O2 -o tcp_rr tcp_rr.c
 */
#define _GNU_SOURCE
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static size_t req_len = 1, resp_len = 1;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1)
		perror("TCP_NODELAY");
}

/* Whole buffer out (sending) or in; 0 at the peer's end, -1 on an error. */
static int
move_all(int fd, char *b, size_t n, int sending)
{
	while (n > 0) {
		ssize_t k = sending ? send(fd, b, n, MSG_NOSIGNAL) :
		    recv(fd, b, n, MSG_WAITALL);

		if (k <= 0)
			return k == 0 ? 0 : -1;
		b += k;
		n -= (size_t)k;
	}
	return 1;
}

static int
server_main(int fd)
{
	char *req = calloc(1, req_len), *resp = calloc(1, resp_len);

	while (req != NULL && resp != NULL && move_all(fd, req, req_len, 0) == 1 &&
	    move_all(fd, resp, resp_len, 1) == 1)
		;
	free(req);
	free(resp);
	return 0;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5.0, t0, t1;
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	int ls, cfd, sfd;
	unsigned long long n = 0;
	pid_t pid;
	char *req, *resp;

	if (argc > 2)
		req_len = (size_t)atol(argv[2]);
	if (argc > 3)
		resp_len = (size_t)atol(argv[3]);
	if (secs <= 0 || req_len < 1 || resp_len < 1) {
		fprintf(stderr, "usage: tcp_rr [SECS [REQ [RESP]]]\n");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls == -1 || bind(ls, (struct sockaddr *)&a, sizeof(a)) == -1 ||
	    listen(ls, 1) == -1 ||
	    getsockname(ls, (struct sockaddr *)&a, &alen) == -1) {
		perror("listen");
		return 1;
	}
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (cfd == -1 || connect(cfd, (struct sockaddr *)&a, sizeof(a)) == -1 ||
	    (sfd = accept(ls, NULL, NULL)) == -1) {
		perror("connect");
		return 1;
	}
	nodelay(cfd);
	nodelay(sfd);
	pid = fork();
	if (pid == -1) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(cfd);
		close(ls);
		_exit(server_main(sfd));
	}
	close(sfd);
	req = calloc(1, req_len);
	resp = calloc(1, resp_len);
	if (req == NULL || resp == NULL)
		return 1;
	t0 = now_s();
	/* The clock is read every 1024 transactions only. */
	for (;;) {
		if (move_all(cfd, req, req_len, 1) != 1 ||
		    move_all(cfd, resp, resp_len, 0) != 1)
			break;
		n++;
		if ((n & 1023) == 0 && now_s() - t0 >= secs)
			break;
	}
	t1 = now_s();
	shutdown(cfd, SHUT_RDWR);
	waitpid(pid, NULL, 0);
	printf("transactions %llu seconds %.3f transactions_per_second %.1f\n",
	    n, t1 - t0, (double)n / (t1 - t0));
	close(cfd);
	close(ls);
	free(req);
	free(resp);
	return 0;
}
