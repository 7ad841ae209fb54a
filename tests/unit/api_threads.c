/*
 * api_threads.c - several tests at once in one process, through the
 * public API only (<iperf_api.h>), each in its own thread:
 *
 *   server A (port PA) <- client 1 (TCP, 1 s)
 *   server B (port PB) <- client 2 (UDP, reverse, 1 s)
 *   client 3 -> a port nobody listens on: IECONNECT, its own error only
 *   client 4 -> server A while client 1 runs: IEACCESSDENIED
 *
 * Every test's result and error are checked against its own object:
 * iperf_get_test_errno() is per test, whatever i_errno last held.
 * Loopback only; bounded by alarm().
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <iperf_api.h>

#define TIME_LIMIT_S 90

static int failures, passes;

static void
check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAILED", what);
	if (ok)
		passes++;
	else
		failures++;
}

/* A port bound on loopback (not listening): nobody else gets it while
 * *fd_out stays open; nothing listens there.  The kernel picks it. */
static int
held_port(int *fd_out)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
		perror("port");
		exit(99);
	}
	*fd_out = fd;
	return ntohs(sa.sin_port);
}

/* Can a server bind this TCP port now (any address)? */
static int
bindable(int port)
{
	struct sockaddr_in sa;
	int one = 1, ok, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)port);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	ok = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

/* A port for a server of ours, the way tests/scripts/testlib.py
 * free_port() picks one: below the kernel's ephemeral range (so no
 * connection made by a test running beside this one is given it before
 * our server binds it), free now, and claimed against the other test
 * processes by the abstract Unix socket name they also use, held until
 * this process exits. */
static int
server_port(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	int top = 32768, low, port, tries, fd;

	if (f != NULL) {
		if (fscanf(f, "%d", &top) != 1)
			top = 32768;
		fclose(f);
	}
	low = top - 12000 > 1024 ? top - 12000 : 1024;
	for (tries = 0; top - low >= 1000 && tries < 1000; tries++) {
		struct sockaddr_un su;

		port = low + rand() % (top - low);
		if (port == 5201 || !bindable(port))
			continue;
		memset(&su, 0, sizeof(su));
		su.sun_family = AF_UNIX;
		snprintf(su.sun_path + 1, sizeof(su.sun_path) - 1,
		    "iperf3-tests-port-%d", port);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd >= 0 && bind(fd, (struct sockaddr *)&su,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
		    strlen(su.sun_path + 1))) == 0)
			return port;	/* fd stays open: the claim */
		if (fd >= 0)
			close(fd);
	}
	/* No room below the ephemeral range: one the kernel picks. */
	port = held_port(&fd);
	close(fd);
	return port;
}

/* JSON is kept by the library (iperf_get_test_json_output_string); the
 * callback only stops it from going to stdout. */
static void
swallow_json(struct iperf_test *test, char *json)
{
	(void)test;
	(void)json;
}

struct job {
	struct iperf_test *test;
	pthread_t thread;
	int rc;
	int err;
	char errtext[256];
	int json_ok;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int client1_running;

static void
on_start_client1(struct iperf_test *test)
{
	iperf_on_test_start(test);
	pthread_mutex_lock(&lock);
	client1_running = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static struct iperf_test *
new_test(char role, int port)
{
	struct iperf_test *t = iperf_new_test();

	if (t == NULL || iperf_defaults(t) != 0) {
		fprintf(stderr, "new test: %s\n", iperf_strerror(i_errno));
		exit(99);
	}
	iperf_set_test_role(t, role);
	iperf_set_test_server_port(t, port);
	iperf_set_test_json_output(t, 1);
	iperf_set_test_json_callback(t, swallow_json);
	if (role == 'c') {
		iperf_set_test_server_hostname(t, "127.0.0.1");
		iperf_set_test_duration(t, 1);
	}
	return t;
}

static void
finish_job(struct job *j)
{
	const char *js = iperf_get_test_json_output_string(j->test);

	j->err = iperf_get_test_errno(j->test);
	snprintf(j->errtext, sizeof(j->errtext), "%s",
	    iperf_get_test_error_string(j->test));
	j->json_ok = js != NULL && strstr(js, "\"sum_received\"") != NULL &&
	    strstr(js, "\"error\"") == NULL;
}

static void *
run_client(void *arg)
{
	struct job *j = arg;

	j->rc = iperf_run_client(j->test);
	finish_job(j);
	return NULL;
}

static void *
run_server(void *arg)
{
	struct job *j = arg;

	j->rc = iperf_run_server(j->test);
	finish_job(j);
	return NULL;
}

static void
start(struct job *j, void *(*fn)(void *))
{
	if (pthread_create(&j->thread, NULL, fn, j) != 0) {
		perror("pthread_create");
		exit(99);
	}
}

static void
wait_client1(void)
{
	pthread_mutex_lock(&lock);
	while (!client1_running)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

/* iperf_parse_arguments() in two threads at once (getopt's state is
 * process-wide; the library serialises the parses). */
struct parse_job {
	pthread_t thread;
	const char *streams, *seconds;
	int ok;
};

static void *
parse_many(void *arg)
{
	struct parse_job *p = arg;
	int i;

	p->ok = 1;
	for (i = 0; i < 200 && p->ok; i++) {
		struct iperf_test *t = iperf_new_test();
		char a0[] = "iperf3", a1[] = "-c", a2[] = "127.0.0.1",
		    a3[] = "-P", a5[] = "-t";
		char a4[8], a6[8];
		char *argv[8];

		snprintf(a4, sizeof(a4), "%s", p->streams);
		snprintf(a6, sizeof(a6), "%s", p->seconds);
		argv[0] = a0; argv[1] = a1; argv[2] = a2; argv[3] = a3;
		argv[4] = a4; argv[5] = a5; argv[6] = a6; argv[7] = NULL;
		if (t == NULL || iperf_defaults(t) != 0 ||
		    iperf_parse_arguments(t, 7, argv) != 0 ||
		    iperf_get_test_num_streams(t) != (int)strtol(p->streams, NULL, 10) ||
		    iperf_get_test_duration(t) != (int)strtol(p->seconds, NULL, 10) ||
		    iperf_get_test_role(t) != 'c')
			p->ok = 0;
		iperf_free_test(t);
	}
	return NULL;
}

static void
parse_in_threads(void)
{
	struct parse_job p1, p2;

	memset(&p1, 0, sizeof(p1));
	memset(&p2, 0, sizeof(p2));
	p1.streams = "3";
	p1.seconds = "7";
	p2.streams = "5";
	p2.seconds = "2";

	pthread_create(&p1.thread, NULL, parse_many, &p1);
	pthread_create(&p2.thread, NULL, parse_many, &p2);
	pthread_join(p1.thread, NULL);
	pthread_join(p2.thread, NULL);
	check(p1.ok && p2.ok, "command lines parsed in two threads at once");
}

int
main(void)
{
	struct job sa, sb, c1, c2, c3, c4;
	int hold_fd = -1, pa, pb, pc;

	srand((unsigned)getpid() ^ (unsigned)time(NULL));
	pa = server_port();
	pb = server_port();
	pc = held_port(&hold_fd);

	alarm(TIME_LIMIT_S);
	parse_in_threads();
	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	memset(&c1, 0, sizeof(c1));
	memset(&c2, 0, sizeof(c2));
	memset(&c3, 0, sizeof(c3));
	memset(&c4, 0, sizeof(c4));

	sa.test = new_test('s', pa);
	sb.test = new_test('s', pb);
	/* Listen before the clients start, then serve in the threads. */
	check(iperf_server_listen(sa.test) == 0, "server A listens");
	check(iperf_server_listen(sb.test) == 0, "server B listens");
	start(&sa, run_server);
	start(&sb, run_server);

	c1.test = new_test('c', pa);
	iperf_set_on_test_start_callback(c1.test, on_start_client1);
	c2.test = new_test('c', pb);
	set_protocol(c2.test, Pudp);
	iperf_set_test_rate(c2.test, 10000000);
	iperf_set_test_reverse(c2.test, 1);
	c3.test = new_test('c', pc);
	c4.test = new_test('c', pa);

	start(&c1, run_client);
	start(&c2, run_client);
	start(&c3, run_client);
	wait_client1();
	start(&c4, run_client); /* server A is busy with client 1 */

	pthread_join(c3.thread, NULL);
	pthread_join(c4.thread, NULL);
	pthread_join(c1.thread, NULL);
	pthread_join(c2.thread, NULL);
	pthread_join(sa.thread, NULL);
	pthread_join(sb.thread, NULL);

	check(c1.rc == 0 && c1.err == IENONE && c1.json_ok,
	    "client 1 (TCP) ran, no error, JSON with sum_received");
	check(c2.rc == 0 && c2.err == IENONE && c2.json_ok,
	    "client 2 (UDP -R) ran, no error, JSON with sum_received");
	check(sa.rc == 0 && sa.err == IENONE, "server A served client 1");
	check(sb.rc == 0 && sb.err == IENONE, "server B served client 2");
	check(c3.rc == -1 && c3.err == IECONNECT,
	    "client 3: IECONNECT on its own test");
	check(strstr(c3.errtext, "Connection refused") != NULL, c3.errtext);
	check(c4.rc == -1 && c4.err == IEACCESSDENIED,
	    "client 4: IEACCESSDENIED while server A was busy");
	check(strcmp(c4.errtext, iperf_strerror(IEACCESSDENIED)) == 0,
	    c4.errtext);
	/* i_errno is one process-wide copy: it holds one of the failures. */
	check(i_errno == IECONNECT || i_errno == IEACCESSDENIED,
	    "i_errno holds a failure of this run");

	iperf_free_test(c1.test);
	iperf_free_test(c2.test);
	iperf_free_test(c3.test);
	iperf_free_test(c4.test);
	iperf_free_test(sa.test);
	iperf_free_test(sb.test);
	close(hold_fd);
	printf("%d passed, %d failed\n", passes, failures);
	return failures == 0 ? 0 : 1;
}
