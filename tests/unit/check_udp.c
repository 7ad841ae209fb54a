/* check_udp.c - UDP header/hello encoding and receiver accounting. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "udp_acct.h"
#include "udp_wire.h"

/* Copy into a heap block of exactly len bytes so over-reads are caught. */
static unsigned char *
exact(const void *src, size_t len)
{
	unsigned char *p = malloc(len > 0 ? len : 1);

	ck_assert_ptr_nonnull(p);
	memcpy(p, src, len);
	return p;
}

START_TEST(encodes_32bit_header_big_endian)
{
	unsigned char buf[UDP_HDR_LEN_32];
	struct udp_header h = { 0x000001c2, 0x000d7b3b, 1 };
	static const unsigned char want[] = { 0x00, 0x00, 0x01, 0xc2, 0x00, 0x0d,
		0x7b, 0x3b, 0x00, 0x00, 0x00, 0x01 };

	ck_assert_int_eq(udp_header_encode(buf, sizeof(buf), &h, 0), 0);
	ck_assert_mem_eq(buf, want, sizeof(want));
}
END_TEST

START_TEST(encodes_64bit_header_big_endian)
{
	unsigned char buf[UDP_HDR_LEN_64];
	struct udp_header h = { 0x1cc, 0x391cf, 0x0102030405060708ULL };
	static const unsigned char want[] = { 0x00, 0x00, 0x01, 0xcc, 0x00, 0x03,
		0x91, 0xcf, 1, 2, 3, 4, 5, 6, 7, 8 };

	ck_assert_int_eq(udp_header_encode(buf, sizeof(buf), &h, 1), 0);
	ck_assert_mem_eq(buf, want, sizeof(want));
}
END_TEST

START_TEST(refuses_to_encode_into_a_short_buffer)
{
	unsigned char buf[UDP_HDR_LEN_64];
	struct udp_header h = { 1, 2, 3 };

	ck_assert_int_eq(udp_header_encode(buf, UDP_HDR_LEN_32 - 1, &h, 0), -1);
	ck_assert_int_eq(udp_header_encode(buf, UDP_HDR_LEN_64 - 1, &h, 1), -1);
}
END_TEST

START_TEST(decodes_headers_of_exact_length)
{
	static const unsigned char w32[] = { 0, 0, 1, 0xc3, 0, 2, 0x3c, 0xb0, 0,
		0, 0, 2 };
	static const unsigned char w64[] = { 0, 0, 1, 0xcc, 0, 3, 0x91, 0xcf, 0,
		0, 0, 1, 0, 0, 0, 1 };
	unsigned char *p = exact(w32, sizeof(w32));
	struct udp_header h;

	ck_assert_int_eq(udp_header_decode(p, sizeof(w32), &h, 0), 0);
	ck_assert_uint_eq(h.sec, 451);
	ck_assert_uint_eq(h.usec, 146608);
	ck_assert_uint_eq(h.seq, 2);
	free(p);
	p = exact(w64, sizeof(w64));
	ck_assert_int_eq(udp_header_decode(p, sizeof(w64), &h, 1), 0);
	ck_assert_uint_eq(h.sec, 460);
	ck_assert_uint_eq(h.usec, 233935);
	ck_assert_uint_eq(h.seq, 0x100000001ULL);
	free(p);
}
END_TEST

START_TEST(rejects_short_datagrams)
{
	static const unsigned char w[16] = { 0 };
	struct udp_header h;
	size_t len;

	for (len = 0; len < UDP_HDR_LEN_32; len++) {
		unsigned char *p = exact(w, len);
		ck_assert_int_eq(udp_header_decode(p, len, &h, 0), -1);
		free(p);
	}
	for (len = 0; len < UDP_HDR_LEN_64; len++) {
		unsigned char *p = exact(w, len);
		ck_assert_int_eq(udp_header_decode(p, len, &h, 1), -1);
		free(p);
	}
}
END_TEST

START_TEST(hello_bytes_are_the_ascii_digits)
{
	ck_assert_mem_eq(udp_hello_client, "9876", 4);
	ck_assert_mem_eq(udp_hello_reply, "6789", 4);
}
END_TEST

START_TEST(accepts_current_and_legacy_replies_only)
{
	static const unsigned char legacy[] = { 0xb1, 0x68, 0xde, 0x3a };
	static const unsigned char junk[] = { 1, 2, 3, 4 };
	unsigned char *p = exact("6789", 4);

	ck_assert(udp_hello_is_reply(p, 4));
	ck_assert(!udp_hello_is_reply(p, 3));
	free(p);
	ck_assert(udp_hello_is_reply(legacy, 4));
	ck_assert(!udp_hello_is_reply(junk, 4));
}
END_TEST

/* Our server's udp_offload grant starts with the stock reply, so any
 * client reading 4 bytes sees "6789"; only the exact 8 bytes grant. */
START_TEST(offload_grant_is_a_stock_reply_plus_four_bytes)
{
	unsigned char b[UDP_HELLO_OFFLOAD_LEN + 1];

	memcpy(b, udp_hello_reply_offload, UDP_HELLO_OFFLOAD_LEN);
	ck_assert(udp_hello_is_reply(b, UDP_HELLO_LEN));
	ck_assert(udp_hello_is_reply(b, UDP_HELLO_OFFLOAD_LEN));
	ck_assert(udp_hello_grants_offload(b, UDP_HELLO_OFFLOAD_LEN));
	ck_assert(!udp_hello_grants_offload(b, UDP_HELLO_LEN));
	ck_assert(!udp_hello_grants_offload(udp_hello_reply, UDP_HELLO_LEN));
	b[UDP_HELLO_OFFLOAD_LEN] = 0;
	ck_assert(!udp_hello_grants_offload(b, UDP_HELLO_OFFLOAD_LEN + 1));
	b[7] ^= 1;
	ck_assert(!udp_hello_grants_offload(b, UDP_HELLO_OFFLOAD_LEN));
}
END_TEST

/* udp_offload's drop report: exactly 24 bytes, "ipfb", kind 1. */
START_TEST(drop_reports_round_trip_and_nothing_else_is_one)
{
	unsigned char b[UDP_FB_LEN + 1];
	struct udp_fb in = { 0x0102030405060708ULL, 0x1112131415161718ULL };
	struct udp_fb d = { 0, 0 };

	udp_fb_encode(b, &in);
	ck_assert_int_eq(b[0], 0x69);
	ck_assert_int_eq(b[3], 0x62);
	ck_assert_int_eq(b[7], 1);
	ck_assert_int_eq(b[8], 1);
	ck_assert_int_eq(b[15], 8);
	ck_assert_int_eq(b[16], 0x11);
	ck_assert_int_eq(b[23], 0x18);
	ck_assert_int_eq(udp_fb_decode(b, UDP_FB_LEN, &d), 1);
	ck_assert_uint_eq(d.drops, in.drops);
	ck_assert_uint_eq(d.bytes, in.bytes);
	ck_assert_int_eq(udp_fb_decode(b, UDP_FB_LEN - 1, &d), 0);
	ck_assert_int_eq(udp_fb_decode(b, UDP_FB_LEN + 1, &d), 0);
	b[7] = 2;
	ck_assert_int_eq(udp_fb_decode(b, UDP_FB_LEN, &d), 0);
	b[7] = 1;
	b[0] ^= 1;
	ck_assert_int_eq(udp_fb_decode(b, UDP_FB_LEN, &d), 0);
	/* the hello and its replies are never reports */
	ck_assert_int_eq(udp_fb_decode(udp_hello_client, UDP_HELLO_LEN, &d), 0);
	ck_assert_int_eq(udp_fb_decode(udp_hello_reply_offload,
	    UDP_HELLO_OFFLOAD_LEN, &d), 0);
}
END_TEST

/* ---- accounting --------------------------------------------------------- */

static void
feed(struct udp_acct *a, const uint64_t *seqs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		(void)udp_acct_update(a, seqs[i], 1, 0, 0, 0);
}

START_TEST(counts_in_order_datagrams_without_loss)
{
	struct udp_acct a;
	static const uint64_t s[] = { 1, 2, 3, 4, 5 };

	udp_acct_init(&a);
	feed(&a, s, 5);
	ck_assert_uint_eq(a.hi, 5);
	ck_assert_int_eq(a.lost, 0);
	ck_assert_uint_eq(a.ooo, 0);
	ck_assert_uint_eq(a.packets, 5);
}
END_TEST

START_TEST(counts_gaps_as_lost)
{
	struct udp_acct a;
	static const uint64_t s[] = { 1, 2, 5, 6, 10 };

	udp_acct_init(&a);
	feed(&a, s, 5);
	ck_assert_uint_eq(a.hi, 10);
	ck_assert_int_eq(a.lost, 5); /* 3,4,7,8,9 */
}
END_TEST

START_TEST(late_datagrams_are_out_of_order_and_not_lost)
{
	struct udp_acct a;
	static const uint64_t s[] = { 1, 3, 2, 4, 6, 5 };

	udp_acct_init(&a);
	feed(&a, s, 6);
	ck_assert_uint_eq(a.hi, 6);
	ck_assert_int_eq(a.lost, 0);
	ck_assert_uint_eq(a.ooo, 2);
}
END_TEST

START_TEST(duplicates_count_as_out_of_order)
{
	struct udp_acct a;
	static const uint64_t s[] = { 1, 2, 2, 3, 3, 3 };

	udp_acct_init(&a);
	feed(&a, s, 6);
	ck_assert_uint_eq(a.hi, 3);
	ck_assert_int_eq(a.lost, 0);
	ck_assert_uint_eq(a.ooo, 3);
}
END_TEST

START_TEST(loss_never_goes_negative)
{
	struct udp_acct a;
	static const uint64_t s[] = { 5, 1, 1, 1, 1, 1, 1 };

	udp_acct_init(&a);
	feed(&a, s, 7);
	ck_assert_int_eq(a.lost, 0); /* 4 lost, then 6 late: floor at 0 */
	ck_assert_uint_eq(a.ooo, 6);
}
END_TEST

START_TEST(a_jump_backwards_is_late_not_a_reset)
{
	struct udp_acct a;
	static const uint64_t s[] = { 100, 101, 7, 102 };

	udp_acct_init(&a);
	feed(&a, s, 4);
	ck_assert_uint_eq(a.hi, 102);
	ck_assert_int_eq(a.lost, 98); /* 99 missing, 1 came late */
	ck_assert_uint_eq(a.ooo, 1);
}
END_TEST

START_TEST(unwraps_the_32bit_counter)
{
	struct udp_acct a;
	uint64_t seq;

	udp_acct_init(&a);
	for (seq = 0xfffffffdULL; seq <= 0x100000002ULL; seq++)
		(void)udp_acct_update(&a, (uint32_t)seq, 0, 0, 0, 0);
	ck_assert_uint_eq(a.hi, 0x100000002ULL);
	ck_assert_int_eq(a.lost, 0xfffffffcLL); /* the start, 1..fffffffc */
	ck_assert_uint_eq(a.ooo, 0);
	/* A late datagram from before the wrap is late, not a big loss. */
	(void)udp_acct_update(&a, 0xffffffffu, 0, 0, 0, 0);
	ck_assert_uint_eq(a.ooo, 1);
	ck_assert_uint_eq(a.hi, 0x100000002ULL);
}
END_TEST

START_TEST(unwrap_picks_the_nearest_value)
{
	ck_assert_uint_eq(udp_seq_unwrap32(5, 0), 5);
	ck_assert_uint_eq(udp_seq_unwrap32(1, 0xffffffffULL), 0x100000001ULL);
	ck_assert_uint_eq(udp_seq_unwrap32(0xfffffff0u, 0x100000005ULL),
	    0xfffffff0ULL);
	ck_assert_uint_eq(udp_seq_unwrap32(7, 0x200000000ULL), 0x200000007ULL);
}
END_TEST

START_TEST(uses_64bit_sequences_as_given)
{
	struct udp_acct a;

	udp_acct_init(&a);
	(void)udp_acct_update(&a, 0x1ffffffffULL, 1, 0, 0, 0);
	ck_assert_uint_eq(a.hi, 0x1ffffffffULL);
	ck_assert_int_eq(a.lost, 0x1fffffffeLL);
}
END_TEST

START_TEST(huge_jumps_saturate_the_loss_count)
{
	struct udp_acct a;

	udp_acct_init(&a);
	(void)udp_acct_update(&a, 0x4000000100000000ULL, 1, 0, 0, 0);
	(void)udp_acct_update(&a, 0xffffffffffffffffULL, 1, 0, 0, 0);
	ck_assert_int_eq(a.lost, INT64_MAX);
	(void)udp_acct_update(&a, 5, 1, 0, 0, 0); /* late: one less lost */
	ck_assert_int_eq(a.lost, INT64_MAX - 1);
}
END_TEST

START_TEST(jitter_matches_hand_computation)
{
	struct udp_acct a;
	/* transit (arrival - sent) in us: 1000, 1300, 1100, 1100 */
	static const int64_t sent[] = { 0, 10000, 20000, 30000 };
	static const int64_t arr[] = { 1000, 11300, 21100, 31100 };
	double j = 0.0;
	int i;

	udp_acct_init(&a);
	for (i = 0; i < 4; i++)
		(void)udp_acct_update(&a, (uint64_t)i + 1, 1, sent[i], arr[i], 0);
	/* D = 0, 300, 200, 0 us; J += (D - J) / 16 in seconds */
	j += (0.0 - j) / 16;
	j += (300e-6 - j) / 16;
	j += (200e-6 - j) / 16;
	j += (0.0 - j) / 16;
	ck_assert_double_eq_tol(a.jitter, j, 1e-15);
	ck_assert_double_eq_tol(a.jitter, 2.81982421875e-05, 1e-15);
}
END_TEST

START_TEST(jitter_uses_the_signed_transit_difference)
{
	struct udp_acct a;

	/* The clocks differ by a negative offset: transit is negative. */
	udp_acct_init(&a);
	(void)udp_acct_update(&a, 1, 1, 5000000, 1000, 0);
	(void)udp_acct_update(&a, 2, 1, 5010000, 10800, 0); /* D=200 */
	ck_assert_double_eq_tol(a.jitter, 200e-6 / 16, 1e-15);
}
END_TEST

START_TEST(omit_reset_restarts_jitter_but_not_sequences)
{
	struct udp_acct a;

	udp_acct_init(&a);
	(void)udp_acct_update(&a, 1, 1, 0, 1000, 0);
	(void)udp_acct_update(&a, 3, 1, 10, 2600, 0);
	ck_assert(a.jitter > 0);
	udp_acct_omit_reset(&a);
	ck_assert_double_eq(a.jitter, 0.0);
	/* The next datagram re-initialises the previous transit: D = 0. */
	(void)udp_acct_update(&a, 4, 1, 20, 9999, 0);
	ck_assert_double_eq(a.jitter, 0.0);
	ck_assert_uint_eq(a.hi, 4);
	ck_assert_int_eq(a.lost, 1);
}
END_TEST

/*
 * Timing samples with offload (udp_acct.h): a synthetic path whose
 * transit is 100 us plus a noise of 0-40 us per send.  The same sends,
 * as single datagrams (no offload) and as batches of 8 with one send time
 * (GSO), received whole (GRO: one arrival time) or spread by the path,
 * must give the same jitter: the batch is one send.
 */
#define PATH_SENDS 2000
#define PATH_BATCH 8
#define PATH_GAP_US 1000

static int64_t
path_noise(unsigned int j)
{
	return (int64_t)((j * 2654435761u) >> 16) % 40;
}

/* Jitter of the path's sends, each sent as `batch` datagrams; `spread`:
 * the path delivers them one by one, `spread_us` apart (else as one
 * buffer with one arrival time). */
static double
path_jitter(int batch, int spread, int64_t spread_us, int64_t *samples)
{
	struct udp_acct a;
	uint64_t seq = 1;
	unsigned int j;
	int k;

	udp_acct_init(&a);
	*samples = 0;
	for (j = 0; j < PATH_SENDS; j++) {
		int64_t sent = (int64_t)j * PATH_GAP_US;
		int64_t arr = sent + 100 + path_noise(j);

		for (k = 0; k < batch; k++) {
			unsigned int fl = !spread && k > 0 ?
			    UDP_ACCT_SHARED_ARRIVAL : 0;

			*samples += udp_acct_update(&a, seq++, 1, sent,
			    spread ? arr + k * spread_us : arr, fl);
		}
	}
	ck_assert_uint_eq(a.packets, (uint64_t)PATH_SENDS * (uint64_t)batch);
	ck_assert_int_eq(a.lost, 0);
	return a.jitter;
}

START_TEST(gso_batches_received_whole_keep_the_jitter)
{
	int64_t n1, n8;
	double single = path_jitter(1, 0, 0, &n1);
	double batched = path_jitter(PATH_BATCH, 0, 0, &n8);

	/* Counting the 7 datagrams that share the send and arrival times
	 * gave about an eighth of it. */
	ck_assert(single > 5e-6);
	ck_assert_double_eq_tol(batched, single, 1e-12);
	ck_assert_int_eq(n1, PATH_SENDS);
	ck_assert_int_eq(n8, PATH_SENDS);
}
END_TEST

START_TEST(gso_batches_spread_by_the_path_keep_the_jitter)
{
	int64_t n1, n8;
	double single = path_jitter(1, 0, 0, &n1);
	/* A 200 Mbit/s bottleneck spaces 1448-byte datagrams 58 us apart:
	 * counting each gave the batch's spread (about 100 us), not the
	 * path's noise. */
	double spread = path_jitter(PATH_BATCH, 1, 58, &n8);

	ck_assert_double_eq_tol(spread, single, 1e-12);
	ck_assert_int_eq(n8, PATH_SENDS);
}
END_TEST

START_TEST(distinct_sends_in_one_buffer_give_one_sample)
{
	struct udp_acct a;

	udp_acct_init(&a);
	/* Two datagrams, each its own send, read in one buffer without
	 * timestamps of their own: only the first has its arrival. */
	ck_assert_int_eq(udp_acct_update(&a, 1, 1, 0, 500, 0), 1);
	ck_assert_int_eq(udp_acct_update(&a, 2, 1, 100, 500,
			     UDP_ACCT_SHARED_ARRIVAL), 0);
	ck_assert_int_eq(udp_acct_update(&a, 3, 1, 200, 760, 0), 1);
	/* transits 500 and 560: D = 60 us */
	ck_assert_double_eq_tol(a.jitter, 60e-6 / 16, 1e-15);
	/* A late datagram of an old send is a sample of its own. */
	ck_assert_int_eq(udp_acct_update(&a, 2, 1, 100, 900, 0), 1);
	ck_assert_uint_eq(a.ooo, 1);
}
END_TEST

/* ---- --gsro: GSO buffer building, GRO splitting ------------------------ */

START_TEST(gso_buffer_size_is_whole_datagrams)
{
	ck_assert_int_eq(udp_gso_buffer_size(1400), 64400);
	ck_assert_int_eq(udp_gso_buffer_size(32768), 32768);
	ck_assert_int_eq(udp_gso_buffer_size(16), 65504);
	ck_assert_int_eq(udp_gso_buffer_size(65507), 65507);
	ck_assert_int_eq(udp_gso_buffer_size(1), 65507);
	ck_assert_int_eq(udp_gso_buffer_size(0), 65507);
}
END_TEST

START_TEST(gso_segments_are_bounded)
{
	ck_assert_uint_eq(udp_gso_segments(65507, 1400, 64), 46);
	ck_assert_uint_eq(udp_gso_segments(64400, 1400, 64), 46);
	ck_assert_uint_eq(udp_gso_segments(65504, 16, 64), 64);
	ck_assert_uint_eq(udp_gso_segments(65507, 32768, 64), 1);
	ck_assert_uint_eq(udp_gso_segments(100, 1400, 64), 1);
	ck_assert_uint_eq(udp_gso_segments(65507, 0, 64), 1);
}
END_TEST

/* Each datagram of the batch carries its own header; payloads stay. */
START_TEST(gso_headers_number_each_datagram)
{
	unsigned char buf[3 * 20];
	struct udp_header first = { 0x11, 0x22, 7 }, h;
	size_t i;

	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(udp_gso_headers(buf, 3, 20, &first, 0), 0);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(udp_header_decode(buf + i * 20, 20, &h, 0), 0);
		ck_assert_uint_eq(h.sec, 0x11);
		ck_assert_uint_eq(h.usec, 0x22);
		ck_assert_uint_eq(h.seq, 7 + i);
		ck_assert_int_eq(buf[i * 20 + UDP_HDR_LEN_32], 'x');
		ck_assert_int_eq(buf[i * 20 + 19], 'x');
	}
	ck_assert_int_eq(udp_gso_headers(buf, 3, 20, &first, 1), 0);
	ck_assert_int_eq(udp_header_decode(buf + 40, 20, &h, 1), 0);
	ck_assert_uint_eq(h.seq, 9);
	ck_assert_int_eq(buf[40 + UDP_HDR_LEN_64], 'x');
	ck_assert_int_eq(udp_gso_headers(buf, 3, 10, &first, 0), -1);
}
END_TEST

START_TEST(gro_splits_by_the_segment_size)
{
	struct udp_gro_iter it;
	size_t off = 99, len = 99;

	udp_gro_iter_init(&it, 250, 100);
	ck_assert_int_eq(udp_gro_next(&it, &off, &len), 1);
	ck_assert_uint_eq(off, 0);
	ck_assert_uint_eq(len, 100);
	ck_assert_int_eq(udp_gro_next(&it, &off, &len), 1);
	ck_assert_uint_eq(off, 100);
	ck_assert_uint_eq(len, 100);
	ck_assert_int_eq(udp_gro_next(&it, &off, &len), 1);
	ck_assert_uint_eq(off, 200);
	ck_assert_uint_eq(len, 50); /* the last one may be shorter */
	ck_assert_int_eq(udp_gro_next(&it, &off, &len), 0);
	ck_assert_int_eq(udp_gro_next(&it, &off, &len), 0);
}
END_TEST

START_TEST(gro_without_a_segment_size_is_one_datagram)
{
	struct udp_gro_iter it;
	size_t off, len;

	udp_gro_iter_init(&it, 300, 0);
	ck_assert_int_eq(udp_gro_next(&it, &off, &len), 1);
	ck_assert_uint_eq(off, 0);
	ck_assert_uint_eq(len, 300);
	ck_assert_int_eq(udp_gro_next(&it, &off, &len), 0);
	udp_gro_iter_init(&it, 0, 100);
	ck_assert_int_eq(udp_gro_next(&it, &off, &len), 0);
	udp_gro_iter_init(&it, 0, 0);
	ck_assert_int_eq(udp_gro_next(&it, &off, &len), 0);
}
END_TEST

/* A GSO batch, coalesced again by GRO, accounts as separate datagrams. */
START_TEST(gso_batch_split_by_gro_accounts_every_datagram)
{
	unsigned char batch[5 * 100], *copy;
	struct udp_header first = { 1, 0, 1 }, h;
	struct udp_gro_iter it;
	struct udp_acct a;
	size_t off, len, n = 0;

	memset(batch, 0, sizeof(batch));
	ck_assert_int_eq(udp_gso_headers(batch, 5, 100, &first, 0), 0);
	copy = exact(batch, sizeof(batch));
	udp_acct_init(&a);
	udp_gro_iter_init(&it, sizeof(batch), 100);
	while (udp_gro_next(&it, &off, &len)) {
		ck_assert_int_eq(udp_header_decode(copy + off, len, &h, 0), 0);
		(void)udp_acct_update(&a, h.seq, 0, 1000000, 1000100, 0);
		n++;
	}
	free(copy);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(a.hi, 5);
	ck_assert_int_eq(a.lost, 0);
	ck_assert_uint_eq(a.ooo, 0);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("udp");
	TCase *tc = tcase_create("wire");

	tcase_add_test(tc, encodes_32bit_header_big_endian);
	tcase_add_test(tc, offload_grant_is_a_stock_reply_plus_four_bytes);
	tcase_add_test(tc, drop_reports_round_trip_and_nothing_else_is_one);
	tcase_add_test(tc, encodes_64bit_header_big_endian);
	tcase_add_test(tc, refuses_to_encode_into_a_short_buffer);
	tcase_add_test(tc, decodes_headers_of_exact_length);
	tcase_add_test(tc, rejects_short_datagrams);
	tcase_add_test(tc, hello_bytes_are_the_ascii_digits);
	tcase_add_test(tc, accepts_current_and_legacy_replies_only);
	suite_add_tcase(s, tc);
	tc = tcase_create("accounting");
	tcase_add_test(tc, counts_in_order_datagrams_without_loss);
	tcase_add_test(tc, counts_gaps_as_lost);
	tcase_add_test(tc, late_datagrams_are_out_of_order_and_not_lost);
	tcase_add_test(tc, duplicates_count_as_out_of_order);
	tcase_add_test(tc, loss_never_goes_negative);
	tcase_add_test(tc, a_jump_backwards_is_late_not_a_reset);
	tcase_add_test(tc, unwraps_the_32bit_counter);
	tcase_add_test(tc, unwrap_picks_the_nearest_value);
	tcase_add_test(tc, uses_64bit_sequences_as_given);
	tcase_add_test(tc, huge_jumps_saturate_the_loss_count);
	tcase_add_test(tc, jitter_matches_hand_computation);
	tcase_add_test(tc, jitter_uses_the_signed_transit_difference);
	tcase_add_test(tc, omit_reset_restarts_jitter_but_not_sequences);
	tcase_add_test(tc, gso_batches_received_whole_keep_the_jitter);
	tcase_add_test(tc, gso_batches_spread_by_the_path_keep_the_jitter);
	tcase_add_test(tc, distinct_sends_in_one_buffer_give_one_sample);
	suite_add_tcase(s, tc);
	tc = tcase_create("gsro");
	tcase_add_test(tc, gso_buffer_size_is_whole_datagrams);
	tcase_add_test(tc, gso_segments_are_bounded);
	tcase_add_test(tc, gso_headers_number_each_datagram);
	tcase_add_test(tc, gro_splits_by_the_segment_size);
	tcase_add_test(tc, gro_without_a_segment_size_is_one_datagram);
	tcase_add_test(tc, gso_batch_split_by_gro_accounts_every_datagram);
	suite_add_tcase(s, tc);
	return s;
}
