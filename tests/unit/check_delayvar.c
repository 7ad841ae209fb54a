/*
 * check_delayvar.c - one-way delay variation from synthetic datagram
 * timestamps (clock offsets cancel, the minimum falls, 32-bit seconds
 * wrap, microsecond carries, malformed headers), the interval take, and
 * the receive control messages behind lost_in_receiver (SO_RXQ_OVFL
 * parsing, 32-bit counter wrap, the GRO estimate).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "delayvar.h"
#include "udp_acct.h"
#include "udp_wire.h"

#define US 1000000ull

/* A datagram sent at send_us of the sender's clock (sec/usec fields, the
 * seconds truncated to 32 bits as on the wire), received delay_us later;
 * the receiver's clock reads clock_off_us more than the sender's. */
/* delayvar_add with the arrival in microseconds. */
static int
add_at(struct delayvar *dv, uint32_t sec, uint32_t usec, uint64_t arrival_us,
    int64_t *off)
{
	struct dv_arrival at = { 0, 0, 0 };

	dv_arrival_set(&at, arrival_us);
	return delayvar_add(dv, sec, usec, &at, off);
}

static void
add_one(struct delayvar *dv, uint64_t send_us, uint64_t delay_us,
    uint64_t clock_off_us)
{
	uint64_t arrival = send_us + delay_us + clock_off_us;

	ck_assert_int_eq(add_at(dv, (uint32_t)(send_us / US),
	    (uint32_t)(send_us % US), arrival, NULL), 0);
}

/* Summary of every sample recorded so far. */
static void
summary_all(struct delayvar *dv, struct latsum *s)
{
	struct dv_hist h;

	dv_hist_init(&h);
	delayvar_take(dv, &h);
	dv_summary(&h, dv->min_off, s);
	dv_hist_free(&h);
}

static const uint64_t delays[] = { 120, 80, 95, 200, 80, 150, 90, 85, 100,
	240 };

/* Sorted: 80 80 85 90 95 100 120 150 200 240; minus 80: 0 0 5 10 15 20
 * 40 70 120 160. */
static void
assert_known_delays(const struct latsum *s)
{
	ck_assert_uint_eq(s->samples, 10);
	ck_assert_uint_eq(s->min, 0);
	ck_assert_uint_eq(s->p50, 15);
	ck_assert_uint_eq(s->p90, 120);
	ck_assert_uint_eq(s->p99, 160);
	ck_assert_uint_eq(s->max, 160);
}

static void
run_delays(uint64_t start_us, uint64_t clock_off_us, struct latsum *s)
{
	struct delayvar dv;
	size_t i;

	delayvar_init(&dv);
	for (i = 0; i < sizeof(delays) / sizeof(delays[0]); i++)
		add_one(&dv, start_us + i * 1000, delays[i], clock_off_us);
	summary_all(&dv, s);
	delayvar_free(&dv);
}

START_TEST(delay_above_the_fastest_datagram)
{
	struct latsum s;

	run_delays(5 * US, 0, &s);
	assert_known_delays(&s);
}
END_TEST

START_TEST(clock_offset_cancels)
{
	static const uint64_t offs[] = { 0, 1, 999999, 3600 * US + 12345,
		(uint64_t)1700000000 * US, (uint64_t)3000000000u * US };
	size_t i;

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		struct latsum s;

		run_delays(12 * US + 999000, offs[i], &s);
		assert_known_delays(&s);
	}
}
END_TEST

START_TEST(receiver_clock_behind_the_sender)
{
	struct delayvar dv;
	struct latsum s;
	size_t i;

	/* The sender's clock is 1000 s ahead: every transit is negative. */
	delayvar_init(&dv);
	for (i = 0; i < sizeof(delays) / sizeof(delays[0]); i++) {
		uint64_t send = 2000 * US + i * 1000;

		ck_assert_int_eq(add_at(&dv, (uint32_t)(send / US),
		    (uint32_t)(send % US), send - 1000 * US + delays[i],
		    NULL), 0);
	}
	summary_all(&dv, &s);
	assert_known_delays(&s);
	delayvar_free(&dv);
}
END_TEST

START_TEST(a_later_smaller_minimum_rebases_earlier_samples)
{
	struct delayvar dv;
	struct latsum s;
	int64_t off;

	delayvar_init(&dv);
	/* first transit 500 (the reference), then 300, 900, then 100 */
	ck_assert_int_eq(add_at(&dv, 10, 0, 10 * US + 500, &off), 0);
	ck_assert_int_eq(off, 0);
	ck_assert_int_eq(add_at(&dv, 10, 1000, 10 * US + 1300, &off),
	    0);
	ck_assert_int_eq(off, -200);
	add_one(&dv, 10 * US + 2000, 900, 0);
	add_one(&dv, 10 * US + 3000, 100, 0);
	ck_assert_int_eq(dv.min_off, -400);
	summary_all(&dv, &s);
	/* all four from the final minimum 100: 0, 200, 400, 800 */
	ck_assert_uint_eq(s.samples, 4);
	ck_assert_uint_eq(s.min, 0);
	ck_assert_uint_eq(s.p50, 200);
	ck_assert_uint_eq(s.p90, 800);
	ck_assert_uint_eq(s.max, 800);
	ck_assert(s.mean > 349.99 && s.mean < 350.01);
	delayvar_free(&dv);
}
END_TEST

START_TEST(percentiles_across_negative_and_positive_offsets)
{
	struct delayvar dv;
	struct latsum s;
	uint64_t d;

	/* delays 1..200, the first one sent is 100: offsets -99..100 */
	delayvar_init(&dv);
	add_one(&dv, 50 * US, 100, 0);
	for (d = 1; d <= 200; d++) {
		if (d != 100)
			add_one(&dv, 50 * US + d * 10, d, 0);
	}
	summary_all(&dv, &s);
	ck_assert_uint_eq(s.samples, 200);
	ck_assert_uint_eq(s.min, 0);
	ck_assert_uint_eq(s.p50, 99);  /* rank 100: delay 100 */
	ck_assert_uint_eq(s.p90, 179); /* rank 180 */
	ck_assert_uint_eq(s.p99, 197); /* rank 198 */
	ck_assert_uint_eq(s.p999, 199);
	ck_assert_uint_eq(s.max, 199);
	delayvar_free(&dv);
}
END_TEST

START_TEST(seconds_field_wraps_and_usec_carries)
{
	struct delayvar dv;
	struct latsum s;
	uint64_t i;
	int64_t off;

	/* The sender's 32-bit seconds wrap to 0 during the test; our clock
	 * goes on.  A constant delay stays a constant transit. */
	delayvar_init(&dv);
	for (i = 0; i < 40; i++) {
		uint64_t send = ((uint64_t)0xffffffffu * US) + 999000 + i * 100;
		uint64_t arrival = 777 * US + i * 100 + 250;

		ck_assert_int_eq(add_at(&dv, (uint32_t)(send / US),
		    (uint32_t)(send % US), arrival, &off), 0);
		ck_assert_int_eq(off, 0);
	}
	/* sent at x.999999, arrived 1 us later in the next second of the
	 * receiver's clock: the same transit as the first one + 1 - 250 */
	ck_assert_int_eq(add_at(&dv, 9, 999999, 10 * US, &off), 0);
	ck_assert_int_eq(off, -777001249); /* 1 us - 777.001250 s */
	summary_all(&dv, &s);
	ck_assert_uint_eq(s.samples, 41);
	ck_assert_uint_eq(s.max, (uint64_t)(0 - dv.min_off));
	delayvar_free(&dv);
}
END_TEST

START_TEST(usec_field_out_of_range_is_not_a_timestamp)
{
	struct delayvar dv;
	struct latsum s;

	delayvar_init(&dv);
	ck_assert_int_eq(add_at(&dv, 1, 1000000, 5 * US, NULL), -1);
	ck_assert_int_eq(add_at(&dv, 1, 0xffffffffu, 5 * US, NULL), -1);
	ck_assert_int_eq(dv.have, 0);
	add_one(&dv, 3 * US, 10, 0);
	summary_all(&dv, &s);
	ck_assert_uint_eq(s.samples, 1);
	ck_assert_uint_eq(s.max, 0);
	delayvar_free(&dv);
}
END_TEST

START_TEST(take_moves_the_interval_and_keeps_the_minimum)
{
	struct delayvar dv;
	struct dv_hist ival, total;
	struct latsum s;

	delayvar_init(&dv);
	dv_hist_init(&ival);
	dv_hist_init(&total);
	add_one(&dv, 1 * US, 300, 0);
	add_one(&dv, 1 * US + 10, 400, 0);
	delayvar_take(&dv, &ival);
	ck_assert_uint_eq(dv_hist_count(&dv.cur), 0);
	dv_summary(&ival, dv.min_off, &s);
	ck_assert_uint_eq(s.samples, 2);
	ck_assert_uint_eq(s.max, 100);
	ck_assert_int_eq(dv_hist_merge(&total, &ival), 0);
	/* the next interval: a faster datagram lowers the minimum */
	dv_hist_reset(&ival);
	add_one(&dv, 2 * US, 100, 0);
	delayvar_take(&dv, &ival);
	dv_summary(&ival, dv.min_off, &s);
	ck_assert_uint_eq(s.samples, 1);
	ck_assert_uint_eq(s.max, 0);
	ck_assert_int_eq(dv_hist_merge(&total, &ival), 0);
	dv_summary(&total, dv.min_off, &s);
	ck_assert_uint_eq(s.samples, 3);
	ck_assert_uint_eq(s.p50, 200);
	ck_assert_uint_eq(s.max, 300);
	dv_hist_free(&ival);
	dv_hist_free(&total);
	delayvar_free(&dv);
}
END_TEST

START_TEST(arrival_split_is_kept_across_calls)
{
	struct dv_arrival at = { 0, 0, 0 };
	static const uint64_t t[] = { 5 * US + 10, 5 * US + 999999, 6 * US,
		6 * US + 1, 5 * US + 3, 4294967296ull * US + 7, 12 };
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		dv_arrival_set(&at, t[i]);
		ck_assert_uint_eq(at.sec, (uint32_t)(t[i] / US));
		ck_assert_int_eq(at.usec, (int32_t)(t[i] % US));
	}
}
END_TEST

START_TEST(empty_summary_is_zero)
{
	struct dv_hist h;
	struct latsum s;

	dv_hist_init(&h);
	dv_summary(&h, -5, &s);
	ck_assert_uint_eq(s.samples, 0);
	ck_assert_uint_eq(s.max, 0);
	ck_assert_uint_eq(s.p99, 0);
	dv_hist_free(&h);
}
END_TEST

START_TEST(large_delays_within_1_in_128)
{
	struct delayvar dv;
	struct latsum s;
	uint64_t i;

	/* 0..99 ms of queueing, one datagram per ms */
	delayvar_init(&dv);
	for (i = 0; i < 100; i++)
		add_one(&dv, 100 * US + i * 1000, 1000 + i * 1000, 0);
	summary_all(&dv, &s);
	ck_assert_uint_eq(s.max, 99000);
	ck_assert_uint_le(s.p90 > 89000 ? s.p90 - 89000 : 89000 - s.p90,
	    89000 / 128);
	ck_assert_uint_le(s.p50 > 49000 ? s.p50 - 49000 : 49000 - s.p50,
	    49000 / 128);
	delayvar_free(&dv);
}
END_TEST

/* ---- SO_RXQ_OVFL --------------------------------------------------------- */

struct ctl_buf {
	union {
		char buf[256];
		struct cmsghdr align;
	} u;
	struct msghdr m;
	struct cmsghdr *next;
};

static void
ctl_init(struct ctl_buf *c)
{
	memset(c, 0, sizeof(*c));
	c->m.msg_control = c->u.buf;
	c->m.msg_controllen = sizeof(c->u.buf);
	c->next = CMSG_FIRSTHDR(&c->m);
}

static void
ctl_add(struct ctl_buf *c, int level, int type, const void *data,
    size_t len)
{
	struct cmsghdr *cm = c->next;

	cm->cmsg_level = level;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(cm), data, len);
	c->next = (struct cmsghdr *)((char *)cm + CMSG_SPACE(len));
	c->m.msg_controllen = (size_t)((char *)c->next - c->u.buf);
}

START_TEST(rxq_ovfl_message_is_read)
{
#ifdef SO_RXQ_OVFL
	struct ctl_buf c;
	struct udp_rx_meta meta;
	uint32_t drops = 97;
	int seg = 1400, other = 5;

	ctl_init(&c);
	ctl_add(&c, SOL_SOCKET, SO_TIMESTAMP, &other, sizeof(other));
	ctl_add(&c, SOL_SOCKET, SO_RXQ_OVFL, &drops, sizeof(drops));
#if defined(HAVE_DECL_UDP_GRO) && HAVE_DECL_UDP_GRO
	ctl_add(&c, SOL_UDP, UDP_GRO, &seg, sizeof(seg));
#endif
	udp_rx_meta_parse(&c.m, &meta);
	ck_assert_int_eq(meta.has_drops, 1);
	ck_assert_uint_eq(meta.drops, 97);
#if defined(HAVE_DECL_UDP_GRO) && HAVE_DECL_UDP_GRO
	ck_assert_uint_eq(meta.gro_seg, 1400);
#endif
	(void)seg;
#endif
}
END_TEST

START_TEST(no_or_short_messages_say_nothing)
{
	struct ctl_buf c;
	struct udp_rx_meta meta;
	uint16_t half = 3;

	ctl_init(&c);
	c.m.msg_controllen = 0;
	udp_rx_meta_parse(&c.m, &meta);
	ck_assert_int_eq(meta.has_drops, 0);
	ck_assert_uint_eq(meta.gro_seg, 0);
#ifdef SO_RXQ_OVFL
	ctl_init(&c);
	ctl_add(&c, SOL_SOCKET, SO_RXQ_OVFL, &half, sizeof(half));
	udp_rx_meta_parse(&c.m, &meta);
	ck_assert_int_eq(meta.has_drops, 0);
#endif
	(void)half;
}
END_TEST

START_TEST(drop_counter_wraps)
{
	struct udp_acct a;

	udp_acct_init(&a);
	ck_assert_uint_eq(udp_acct_drops(&a, 10), 10);
	ck_assert_uint_eq(udp_acct_drops(&a, 10), 0);
	ck_assert_uint_eq(udp_acct_drops(&a, 0xfffffff0u), 0xfffffff0u - 10);
	ck_assert_uint_eq(udp_acct_drops(&a, 0x10), 0x20);
}
END_TEST

START_TEST(gro_drops_are_estimated_within_the_gap)
{
	/* 3 dropped buffers, this one held 46 datagrams, 138 missing */
	ck_assert_uint_eq(udp_gro_drops(3, 46, 138), 138);
	/* fewer missing (the last batch was short): the gap */
	ck_assert_uint_eq(udp_gro_drops(3, 46, 100), 100);
	/* network loss besides: no more than the buffers could hold */
	ck_assert_uint_eq(udp_gro_drops(3, 46, 500), 138);
	/* without GRO each drop is a datagram */
	ck_assert_uint_eq(udp_gro_drops(7, 1, 7), 7);
	/* never fewer than the kernel counted */
	ck_assert_uint_eq(udp_gro_drops(4, 46, 0), 4);
	ck_assert_uint_eq(udp_gro_drops(4, 46, -3), 4);
}
END_TEST

#ifdef HAVE_PEERIVAL
/* Delays of one stream (us) into a fresh histogram: its offsets from its
 * own first transit, and that stream's minimum offset. */
static int64_t
stream_hist(const uint64_t *d, size_t n, uint64_t start_us,
    uint64_t clock_off_us, struct dv_hist *h)
{
	struct delayvar dv;
	int64_t min_off;
	size_t i;

	delayvar_init(&dv);
	for (i = 0; i < n; i++)
		add_one(&dv, start_us + i * 1000, d[i], clock_off_us);
	dv_hist_init(h);
	delayvar_take(&dv, h);
	min_off = dv.min_off;
	delayvar_free(&dv);
	return min_off;
}

/* Two streams, clocks an hour apart, the first datagram of one slower
 * than the rest (negative offsets), of the other the fastest: each is
 * measured above its own fastest datagram, so the sum holds the known
 * delays twice. */
START_TEST(sum_merges_each_stream_above_its_own_fastest)
{
	static const uint64_t sorted[] = { 80, 80, 85, 90, 95, 100, 120, 150,
		200, 240 };
	struct dv_hist a, b;
	struct latstat sum;
	struct latsum s;
	int64_t ma, mb;

	ma = stream_hist(delays, 10, 5 * US, 0, &a);
	mb = stream_hist(sorted, 10, 7 * US, 3600 * US, &b);
	ck_assert_int_eq(ma, -40);
	ck_assert_int_eq(mb, 0);
	latstat_init(&sum);
	ck_assert_int_eq(dv_hist_merge_shifted(&sum, &a, ma), 0);
	ck_assert_int_eq(dv_hist_merge_shifted(&sum, &b, mb), 0);
	latstat_summary(&sum, &s);
	/* 0 0 0 0 5 5 10 10 15 15 20 20 40 40 70 70 120 120 160 160 */
	ck_assert_uint_eq(s.samples, 20);
	ck_assert_uint_eq(s.min, 0);
	ck_assert_uint_eq(s.p50, 15);
	ck_assert_uint_eq(s.p90, 120);
	ck_assert_uint_eq(s.max, 160);
	ck_assert(s.mean > 43.9 && s.mean < 44.1); /* 880 / 20 */
	latstat_free(&sum);
	dv_hist_free(&a);
	dv_hist_free(&b);
}
END_TEST

/* Above the exact range: the extremes stay exact, the rest within 1/128. */
START_TEST(sum_of_large_delays_keeps_the_extremes)
{
	static const uint64_t c[] = { 5000, 7000, 6000 };
	static const uint64_t d[] = { 10500, 10000 };
	struct dv_hist a, b;
	struct latstat sum;
	struct latsum s;

	latstat_init(&sum);
	ck_assert_int_eq(dv_hist_merge_shifted(&sum, &a,
	    stream_hist(c, 3, 5 * US, 0, &a)), 0);
	ck_assert_int_eq(dv_hist_merge_shifted(&sum, &b,
	    stream_hist(d, 2, 9 * US, 77 * US, &b)), 0);
	latstat_summary(&sum, &s);
	/* 0 0 500 1000 2000 */
	ck_assert_uint_eq(s.samples, 5);
	ck_assert_uint_eq(s.min, 0);
	ck_assert_uint_eq(s.max, 2000);
	ck_assert(s.p50 >= 500 - 500 / 128 && s.p50 <= 500 + 500 / 128);
	latstat_free(&sum);
	dv_hist_free(&a);
	dv_hist_free(&b);
}
END_TEST
#endif

Suite *
make_suite(void)
{
	Suite *s = suite_create("delayvar");
	TCase *td = tcase_create("delay");
	TCase *tr = tcase_create("rxq_ovfl");

	tcase_add_test(td, delay_above_the_fastest_datagram);
	tcase_add_test(td, clock_offset_cancels);
	tcase_add_test(td, receiver_clock_behind_the_sender);
	tcase_add_test(td, a_later_smaller_minimum_rebases_earlier_samples);
	tcase_add_test(td, percentiles_across_negative_and_positive_offsets);
	tcase_add_test(td, seconds_field_wraps_and_usec_carries);
	tcase_add_test(td, usec_field_out_of_range_is_not_a_timestamp);
	tcase_add_test(td, take_moves_the_interval_and_keeps_the_minimum);
	tcase_add_test(td, arrival_split_is_kept_across_calls);
	tcase_add_test(td, empty_summary_is_zero);
	tcase_add_test(td, large_delays_within_1_in_128);
#ifdef HAVE_PEERIVAL
	tcase_add_test(td, sum_merges_each_stream_above_its_own_fastest);
	tcase_add_test(td, sum_of_large_delays_keeps_the_extremes);
#endif
	suite_add_tcase(s, td);
	tcase_add_test(tr, rxq_ovfl_message_is_read);
	tcase_add_test(tr, no_or_short_messages_say_nothing);
	tcase_add_test(tr, drop_counter_wraps);
	tcase_add_test(tr, gro_drops_are_estimated_within_the_gap);
	suite_add_tcase(s, tr);
	return s;
}
