/* check_placement.c - addr_within_host() and the plan of placement.h. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "check_main.h"
#include "iperf.h"
#include "test_config.h"
#include "placement.h"
#include "proto.h"
#include "stream.h"
#include "stream_set.h"
#include "test.h"

static int
addr(const char *text, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(text, ':') != NULL) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		*len = sizeof(*s6);
		return inet_pton(AF_INET6, text, &s6->sin6_addr);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		*len = sizeof(*s4);
		return inet_pton(AF_INET, text, &s4->sin_addr);
	}
}

static int
same(const char *a, const char *b)
{
	struct sockaddr_storage sa, sb;
	socklen_t la, lb;

	ck_assert_int_eq(addr(a, &sa, &la), 1);
	ck_assert_int_eq(addr(b, &sb, &lb), 1);
	return addr_within_host(&sa, la, &sb, lb);
}

START_TEST(loopback_and_own_addresses_are_the_same_host)
{
	ck_assert_int_eq(same("127.0.0.1", "127.0.0.1"), 1);
	ck_assert_int_eq(same("127.0.0.1", "127.0.0.2"), 1);
	ck_assert_int_eq(same("10.1.2.3", "10.1.2.3"), 1);
	ck_assert_int_eq(same("::1", "::1"), 1);
	ck_assert_int_eq(same("::ffff:127.0.0.1", "127.0.0.1"), 1);
	ck_assert_int_eq(same("::ffff:10.1.2.3", "::ffff:10.1.2.3"), 1);
	ck_assert_int_eq(same("fe80::1", "fe80::1"), 1);
}
END_TEST

START_TEST(other_addresses_are_not)
{
	struct sockaddr_storage sa, sb;
	socklen_t la, lb;

	ck_assert_int_eq(same("10.1.2.3", "10.1.2.4"), 0);
	ck_assert_int_eq(same("127.0.0.1", "10.1.2.3"), 0);
	ck_assert_int_eq(same("::ffff:10.1.2.3", "10.1.2.4"), 0);
	ck_assert_int_eq(same("2001:db8::1", "2001:db8::2"), 0);
	ck_assert_int_eq(same("::1", "127.0.0.1"), 0);
	ck_assert_int_eq(same("::", "::1"), 0);
	/* another family, or an address cut short */
	(void)addr("127.0.0.1", &sa, &la);
	(void)addr("127.0.0.1", &sb, &lb);
	ck_assert_int_eq(addr_within_host(&sa, 4, &sb, lb), 0);
	sa.ss_family = AF_UNIX;
	ck_assert_int_eq(addr_within_host(&sa, la, &sb, lb), 0);
}
END_TEST

/* addr_same_host(), which addr_within_host() builds on: ports and the
 * IPv4-mapped form do not matter, other families are no host. */
START_TEST(same_host_ignores_ports_and_the_mapped_form)
{
	struct sockaddr_storage sa, sb;
	socklen_t la, lb;

	(void)addr("::ffff:10.1.2.3", &sa, &la);
	(void)addr("10.1.2.3", &sb, &lb);
	((struct sockaddr_in *)&sb)->sin_port = htons(5201);
	ck_assert_int_eq(addr_same_host(&sa, &sb), 1);
	(void)addr("10.1.2.4", &sb, &lb);
	ck_assert_int_eq(addr_same_host(&sa, &sb), 0);
	(void)addr("2001:db8::1", &sa, &la);
	(void)addr("2001:db8::1", &sb, &lb);
	ck_assert_int_eq(addr_same_host(&sa, &sb), 1);
	sa.ss_family = AF_UNIX;
	sb.ss_family = AF_UNIX;
	ck_assert_int_eq(addr_same_host(&sa, &sb), 0);
}
END_TEST

/* ---- the plan ---- */

static struct iperf_test *test;
static int ncpu, cpus[CPU_SETSIZE];

static void
setup(void)
{
	cpu_set_t set;
	int i;

	test = iperf_new_test();
	ck_assert_ptr_nonnull(test);
	iperf_defaults(test);
	test->proto = &proto_tcp;
	unsetenv("IPERF3_PLACEMENT");
	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	ncpu = 0;
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (CPU_ISSET((size_t)i, &set))
			cpus[ncpu++] = i;
	}
}

static void
teardown(void)
{
	iperf_free_test(test);
	unsetenv("IPERF3_PLACEMENT");
}

/* n streams, the first `senders` of them sending, between the addresses;
 * each on a socket of its own (closed with the test). */
static void
add_streams(int n, int senders, const char *local, const char *remote)
{
	int i;

	for (i = 0; i < n; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct iperf_stream *sp;

		ck_assert_int_ge(fd, 0);
		sp = stream_new(test, fd, i < senders);
		ck_assert_ptr_nonnull(sp);
		ck_assert_int_eq(addr(local, &sp->local_addr, &sp->local_len), 1);
		ck_assert_int_eq(addr(remote, &sp->remote_addr,
		    &sp->remote_len), 1);
		stream_add(test, sp);
	}
}

static int
placed(void)
{
	struct iperf_stream *sp;
	int n = 0;

	for (sp = test->run.streams; sp != NULL; sp = sp->next)
		n += sp->w.place_cpu >= 0 || sp->w.place_follow;
	return n;
}

START_TEST(two_streams_per_cpu_are_placed)
{
	struct iperf_stream *sp;
	int i = 0;

	add_streams(2 * ncpu, 2 * ncpu, "127.0.0.1", "127.0.0.1");
	placement_plan(test);
	if (ncpu < 2) {
		ck_assert_int_eq(placed(), 0); /* nothing to spread over */
		return;
	}
	ck_assert_ptr_nonnull(test->run.place);
	for (sp = test->run.streams; sp != NULL; sp = sp->next, i++) {
		ck_assert_int_eq(sp->w.place_cpu, cpus[i % ncpu]);
		ck_assert_int_eq(sp->w.place_follow, 0);
	}
}
END_TEST

START_TEST(receivers_follow_and_bidir_senders_interleave)
{
	struct iperf_stream *sp;
	int i = 0;

	/* --bidir as a server lists it: ncpu receiving, then ncpu sending */
	add_streams(2 * ncpu, 0, "::1", "::1");
	for (sp = test->run.streams, i = 0; sp != NULL; sp = sp->next, i++)
		sp->sender = i >= ncpu;
	placement_plan(test);
	if (ncpu < 2)
		return;
	for (sp = test->run.streams, i = 0; sp != NULL; sp = sp->next, i++) {
		if (i < ncpu) {
			ck_assert_int_eq(sp->w.place_follow, 1);
			ck_assert_int_eq(sp->w.place_cpu, -1);
		} else {
			ck_assert_int_eq(sp->w.place_cpu, cpus[i % ncpu]);
		}
	}
}
END_TEST

START_TEST(nothing_placed_when_not_wanted)
{
	add_streams(2 * ncpu - 1, 1, "127.0.0.1", "127.0.0.1");
	placement_plan(test);
	ck_assert_int_eq(placed(), 0); /* too few streams */
	add_streams(1, 1, "127.0.0.1", "127.0.0.1");
	setenv("IPERF3_PLACEMENT", "0", 1);
	placement_plan(test);
	ck_assert_int_eq(placed(), 0);
	unsetenv("IPERF3_PLACEMENT");
	test->cfg->opt.affinity = 0;
	placement_plan(test);
	ck_assert_int_eq(placed(), 0);
	test->cfg->opt.affinity = -1;
	test->settings.server_affinity = 0;
	placement_plan(test);
	ck_assert_int_eq(placed(), 0);
	test->settings.server_affinity = -1;
	test->proto = &proto_udp;
	placement_plan(test);
	ck_assert_int_eq(placed(), 0);
	test->proto = &proto_tcp;
	test->settings.rr = 1;
	placement_plan(test);
	ck_assert_int_eq(placed(), 0);
	test->settings.rr = 0;
	placement_plan(test);
	ck_assert_int_eq(placed(), ncpu >= 2 ? 2 * ncpu : 0);
}
END_TEST

/* Streams whose sends carry a batch (xmit_len above the block). */
static int
batched(void)
{
	struct iperf_stream *sp;
	int n = 0;

	for (sp = test->run.streams; sp != NULL; sp = sp->next)
		n += sp->xmit_len > sp->blksize;
	return n;
}

/* A fresh set of n streams (the first `senders` sending), planned. */
static int
plan_fresh(int n, int senders, const char *local, const char *remote)
{
	test_free_streams(test);
	add_streams(n, senders, local, remote);
	placement_plan(test);
	return batched();
}

START_TEST(fewer_streams_than_cpus_send_batches)
{
	struct iperf_stream *sp;

	test->settings.blksize = DEFAULT_TCP_BLKSIZE;
	if (ncpu < 2) {
		ck_assert_int_eq(plan_fresh(1, 1, "127.0.0.1", "127.0.0.1"), 0);
		return;
	}
	ck_assert_int_eq(plan_fresh(ncpu - 1, ncpu - 1, "127.0.0.1",
	    "127.0.0.1"), ncpu - 1);
	for (sp = test->run.streams; sp != NULL; sp = sp->next) {
		ck_assert_uint_eq(sp->xmit_len, PLACEMENT_BATCH_BYTES);
		ck_assert_int_eq(sp->w.place_cpu, -1); /* nothing pinned */
	}
	ck_assert_ptr_null(test->run.place);
	/* receivers never; one stream per CPU (all CPUs busy): none */
	ck_assert_int_eq(plan_fresh(1, 0, "::1", "::1"), 0);
	ck_assert_int_eq(plan_fresh(ncpu, ncpu, "::1", "::1"), 0);
}
END_TEST

START_TEST(batches_only_unpaced_from_memory_default_blocks)
{
	test->settings.blksize = DEFAULT_TCP_BLKSIZE;
	if (ncpu < 2)
		return;
	ck_assert_int_eq(plan_fresh(1, 1, "127.0.0.1", "127.0.0.1"), 1);
	test->settings.rate = 1000000; /* -b */
	ck_assert_int_eq(plan_fresh(1, 1, "127.0.0.1", "127.0.0.1"), 0);
	test->settings.rate = 0;
	test->settings.blksize_set = 1; /* -l 128K: as given */
	ck_assert_int_eq(plan_fresh(1, 1, "127.0.0.1", "127.0.0.1"), 0);
	test->settings.blksize_set = 0;
	test->settings.blksize = 65536; /* a server's client asked -l 64K */
	ck_assert_int_eq(plan_fresh(1, 1, "127.0.0.1", "127.0.0.1"), 0);
	test->settings.blksize = DEFAULT_TCP_BLKSIZE;
	test_free_streams(test);
	add_streams(1, 1, "127.0.0.1", "127.0.0.1");
	test->run.streams->io.zerocopy = 1; /* -Z */
	placement_plan(test);
	ck_assert_int_eq(batched(), 0);
	test->run.streams->io.zerocopy = 0;
	setenv("IPERF3_PLACEMENT", "0", 1);
	ck_assert_int_eq(plan_fresh(1, 1, "127.0.0.1", "127.0.0.1"), 0);
	unsetenv("IPERF3_PLACEMENT");
	test->cfg->opt.affinity = 0; /* -A */
	ck_assert_int_eq(plan_fresh(1, 1, "127.0.0.1", "127.0.0.1"), 0);
	test->cfg->opt.affinity = -1;
	/* a peer on another host: every unpaced sender batches */
	ck_assert_int_eq(plan_fresh(1, 1, "203.0.113.1", "203.0.113.2"), 1);
	test->proto = &proto_udp;
	ck_assert_int_eq(plan_fresh(1, 1, "127.0.0.1", "127.0.0.1"), 0);
	test->proto = &proto_tcp;
	ck_assert_int_eq(plan_fresh(1, 1, "127.0.0.1", "127.0.0.1"), 1);
}
END_TEST

START_TEST(a_remote_peer_is_left_alone)
{
	add_streams(2 * ncpu, 2 * ncpu, "203.0.113.1", "203.0.113.2");
	placement_plan(test);
	ck_assert_int_eq(placed(), 0);
	ck_assert_ptr_null(test->run.place);
	/* ... but its senders batch, however many streams (-P 8 too) */
	test->settings.blksize = DEFAULT_TCP_BLKSIZE;
	ck_assert_int_eq(plan_fresh(2 * ncpu, 2 * ncpu, "203.0.113.1",
	    "203.0.113.2"), 2 * ncpu);
	ck_assert_int_eq(plan_fresh(2, 0, "203.0.113.1", "203.0.113.2"), 0);
}
END_TEST

/* addr_is_local(): loopback and this namespace's own addresses only. */
START_TEST(local_addresses_are_this_namespaces_own)
{
	struct sockaddr_storage ss;
	socklen_t len;

	ck_assert_int_eq(addr("127.0.0.1", &ss, &len), 1);
	ck_assert_int_eq(addr_is_local(&ss, len), 1);
	ck_assert_int_eq(addr("::1", &ss, &len), 1);
	ck_assert_int_eq(addr_is_local(&ss, len), 1);
	ck_assert_int_eq(addr("::ffff:127.0.0.5", &ss, &len), 1);
	ck_assert_int_eq(addr_is_local(&ss, len), 1);
	/* TEST-NET-3 and a documentation IPv6 address: on no interface */
	ck_assert_int_eq(addr("203.0.113.201", &ss, &len), 1);
	ck_assert_int_ne(addr_is_local(&ss, len), 1);
	ck_assert_int_eq(addr("2001:db8::7:7", &ss, &len), 1);
	ck_assert_int_ne(addr_is_local(&ss, len), 1);
	ck_assert_int_eq(addr_is_local(&ss, 4), 0); /* cut short */
}
END_TEST

/* -b on TCP: 2 ms of the rate per call where that is over a block. */
START_TEST(paced_senders_hand_the_kernel_spans)
{
	struct iperf_stream *sp;

	test->settings.blksize = DEFAULT_TCP_BLKSIZE;
	test->settings.rate = 4000000000ULL; /* -b 4G: 1 MB per 2 ms */
	ck_assert_int_eq(plan_fresh(2, 1, "203.0.113.1", "203.0.113.2"), 1);
	sp = test->run.streams;
	ck_assert_uint_eq(sp->xmit_len, 7 * DEFAULT_TCP_BLKSIZE);
	ck_assert_uint_eq(sp->next->xmit_len, sp->next->blksize); /* rx */
	/* same host alike; 20G: capped at PLACEMENT_BATCH_BYTES */
	ck_assert_int_eq(plan_fresh(1, 1, "127.0.0.1", "127.0.0.1"), 1);
	test->settings.rate = 20000000000ULL;
	ck_assert_int_eq(plan_fresh(1, 1, "203.0.113.1", "203.0.113.2"), 1);
	ck_assert_uint_eq(test->run.streams->xmit_len, PLACEMENT_BATCH_BYTES);
	/* at most a block per 2 ms (1G), a /burst: one block per call */
	test->settings.rate = 1000000000ULL;
	ck_assert_int_eq(plan_fresh(1, 1, "203.0.113.1", "203.0.113.2"), 0);
	test->settings.rate = 4000000000ULL;
	test->settings.burst = 10;
	ck_assert_int_eq(plan_fresh(1, 1, "203.0.113.1", "203.0.113.2"), 0);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("placement");
	TCase *tc = tcase_create("same_host");

	tcase_add_test(tc, loopback_and_own_addresses_are_the_same_host);
	tcase_add_test(tc, other_addresses_are_not);
	tcase_add_test(tc, same_host_ignores_ports_and_the_mapped_form);
	tcase_add_test(tc, local_addresses_are_this_namespaces_own);
	suite_add_tcase(s, tc);
	tc = tcase_create("plan");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, two_streams_per_cpu_are_placed);
	tcase_add_test(tc, receivers_follow_and_bidir_senders_interleave);
	tcase_add_test(tc, nothing_placed_when_not_wanted);
	tcase_add_test(tc, a_remote_peer_is_left_alone);
	tcase_add_test(tc, paced_senders_hand_the_kernel_spans);
	tcase_add_test(tc, fewer_streams_than_cpus_send_batches);
	tcase_add_test(tc, batches_only_unpaced_from_memory_default_blocks);
	suite_add_tcase(s, tc);
	return s;
}
