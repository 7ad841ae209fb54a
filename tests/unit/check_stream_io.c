/* check_stream_io.c - payload buffers, -Z temp file, -F source and sink. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "iperf.h"
#include "test_config.h"
#include "iperf_error.h"
#include "proto.h"
#include "stream.h"
#include "stream_io.h"
#include "util.h"

#define BLK 128

static struct iperf_test *test;
static int sv[2];
static char dir[] = "/tmp/check_stream_io_XXXXXX";
static char path[PATH_MAX];

static void
setup(void)
{
	test = iperf_new_test();
	ck_assert_ptr_nonnull(test);
	iperf_defaults(test);
	test->settings.blksize = BLK;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	(void)snprintf(path, sizeof(path), "%s/data", dir);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void
teardown(void)
{
	iperf_free_test(test); /* frees the streams, closes sv[0] */
	close(sv[1]);
	(void)unlink(path);
	(void)rmdir(dir);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static void
write_file(size_t len)
{
	char buf[1000];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	size_t i;

	ck_assert_uint_le(len, sizeof(buf));
	for (i = 0; i < len; i++)
		buf[i] = (char)(i * 7);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq((int)write(fd, buf, len), (int)len);
	close(fd);
}

static struct iperf_stream *
new_stream(int sender)
{
	struct iperf_stream *sp = stream_new(test, sv[0], sender);

	ck_assert_ptr_nonnull(sp);
	stream_add(test, sp);
	return sp;
}

/* The next send of an in-memory stream: its block, from byte off. */
static void
next_at(struct iperf_stream *sp, size_t off)
{
	ck_assert_int_eq(stream_io_next(sp), 1);
	ck_assert_ptr_eq(stream_io_data(sp), sp->buffer + off);
	ck_assert_uint_eq(stream_io_left(sp), BLK - off);
}

START_TEST(plain_sender_repeats_the_whole_buffer)
{
	struct iperf_stream *sp = new_stream(1);

	ck_assert_int_eq(stream_io_open(sp), 0);
	ck_assert_int_eq(sp->io.zerocopy, 0);
	next_at(sp, 0);
	stream_io_sent(sp, BLK);
	next_at(sp, 0);
}
END_TEST

START_TEST(repeating_payload_fills_digits)
{
	struct iperf_stream *sp;

	test->settings.repeating_payload = 1;
	sp = new_stream(1);
	ck_assert_mem_eq(sp->buffer, "0123456789012", 13);
}
END_TEST

/* A partial send keeps the rest of the block for the next call. */
START_TEST(partial_send_keeps_the_rest)
{
	struct iperf_stream *sp = new_stream(1);

	next_at(sp, 0);
	stream_io_sent(sp, 50);
	next_at(sp, 50);
	stream_io_sent(sp, BLK - 50);
	next_at(sp, 0);
}
END_TEST

/* A batch (the block several times in one send) that went whole starts
 * the next send at a fresh block; one that went in part goes on within
 * its last block. */
START_TEST(batch_send_goes_on_within_its_last_block)
{
	struct iperf_stream *sp = new_stream(1);

	next_at(sp, 0);
	stream_io_sent(sp, 4 * BLK);
	next_at(sp, 0);
	stream_io_sent(sp, 2 * BLK + 30);
	next_at(sp, 30);
	stream_io_sent(sp, BLK - 30);
	next_at(sp, 0);
}
END_TEST

START_TEST(file_source_reads_blocks_until_its_end)
{
	struct iperf_stream *sp;
	char want[300];
	size_t i;

	write_file(300);
	for (i = 0; i < sizeof(want); i++)
		want[i] = (char)(i * 7);
	test->cfg->opt.diskfile_name = str_dup(path);
	sp = new_stream(1);
	ck_assert_int_eq(stream_io_open(sp), 0);
	ck_assert_int_eq(test->diskfile_size, 300);
	ck_assert_int_eq(stream_io_next(sp), 1);
	ck_assert_uint_eq(stream_io_left(sp), BLK);
	ck_assert_mem_eq(stream_io_data(sp), want, BLK);
	stream_io_sent(sp, 100); /* partial: no new read */
	ck_assert_int_eq(stream_io_next(sp), 1);
	ck_assert_mem_eq(stream_io_data(sp), want + 100, BLK - 100);
	stream_io_sent(sp, BLK - 100);
	ck_assert_int_eq(stream_io_next(sp), 1);
	ck_assert_mem_eq(stream_io_data(sp), want + BLK, BLK);
	stream_io_sent(sp, BLK);
	ck_assert_int_eq(stream_io_next(sp), 1);
	ck_assert_uint_eq(stream_io_left(sp), 300 - 2 * BLK);
	ck_assert_mem_eq(stream_io_data(sp), want + 2 * BLK, 300 - 2 * BLK);
	stream_io_sent(sp, 300 - 2 * BLK);
	ck_assert_int_eq(stream_io_next(sp), 0);
	ck_assert_int_eq(stream_io_next(sp), 0);
}
END_TEST

START_TEST(missing_file_is_iefile)
{
	struct iperf_stream *sp;

	test->cfg->opt.diskfile_name = str_dup(path); /* not created */
	sp = new_stream(1);
	ck_assert_int_eq(stream_io_open(sp), -1);
	ck_assert_int_eq(test->run.err.code, IEFILE);
	ck_assert_int_eq(test->run.err.sys_errno, ENOENT);
}
END_TEST

/* -Z: the buffer lives in an unlinked temporary file in $TMPDIR. */
START_TEST(zerocopy_buffer_is_an_unlinked_temp_file)
{
	struct iperf_stream *sp;
	struct stat st;
	char link[64], target[PATH_MAX];
	ssize_t n;

	ck_assert_int_eq(setenv("TMPDIR", dir, 1), 0);
	test->settings.zerocopy = 1;
	sp = new_stream(1);
	ck_assert_int_eq(unsetenv("TMPDIR"), 0);
	ck_assert_int_eq(sp->io.zerocopy, 1);
	ck_assert_int_ge(sp->io.buf_fd, 0);
	ck_assert_int_eq(fstat(sp->io.buf_fd, &st), 0);
	ck_assert_int_eq((int)st.st_nlink, 0);
	ck_assert_int_eq((int)st.st_size, BLK);
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", sp->io.buf_fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		ck_assert_msg(strncmp(target, dir, strlen(dir)) == 0 &&
			strstr(target, "/iperf3.") != NULL,
		    "temp file %s not in %s", target, dir);
	}
	/* What sendfile() sends is what the buffer holds. */
	memcpy(sp->buffer, "zero-copy!", 10);
	ck_assert_int_eq((int)pread(sp->io.buf_fd, target, 10, 0), 10);
	ck_assert_mem_eq(target, "zero-copy!", 10);
}
END_TEST

START_TEST(zerocopy_is_for_senders_of_tcp_only)
{
	struct iperf_stream *sp;

	test->settings.zerocopy = 1;
	sp = new_stream(0);
	ck_assert_int_eq(sp->io.zerocopy, 0);
	ck_assert_int_lt(sp->io.buf_fd, 0);
	test->proto = &proto_udp;
	sp = stream_new(test, sv[1], 1);
	ck_assert_ptr_nonnull(sp);
	ck_assert_int_eq(sp->io.zerocopy, 0);
	sp->socket = -1; /* sv[1] is closed by teardown */
	stream_free(sp);
}
END_TEST

/* -Z -F: sendfile() from the file itself, block by block, 0 at the end. */
START_TEST(zerocopy_file_sends_from_the_file)
{
	struct iperf_stream *sp;
	char got[300], want[300];
	size_t total = 0, i;
	ssize_t n;

	write_file(300);
	for (i = 0; i < sizeof(want); i++)
		want[i] = (char)(i * 7);
	test->settings.zerocopy = 1;
	test->cfg->opt.diskfile_name = str_dup(path);
	sp = new_stream(1);
	ck_assert_int_eq(stream_io_open(sp), 0);
	ck_assert_int_eq(sp->io.src_fd, sp->io.file_fd);
	for (;;) {
		ck_assert_int_eq(stream_io_next(sp), 1);
		n = stream_io_sendfile(sp);
		ck_assert_int_ge((int)n, 0);
		if (n == 0)
			break;
		stream_io_sent(sp, (size_t)n);
		total += (size_t)n;
		ck_assert_uint_le(total, sizeof(got));
	}
	ck_assert_uint_eq(total, 300);
	ck_assert_int_eq((int)read(sv[1], got, sizeof(got)), 300);
	ck_assert_mem_eq(got, want, 300);
}
END_TEST

START_TEST(file_sink_truncates_then_appends)
{
	struct iperf_stream *sp;
	char got[16];
	int fd;

	write_file(200); /* stale content: must go */
	test->cfg->opt.diskfile_name = str_dup(path);
	test->settings.skip_rx_copy = 1;
	sp = new_stream(0);
	ck_assert_int_eq(stream_io_open(sp), 0);
	ck_assert(stream_io_has_sink(sp));
	ck_assert_int_eq(sp->io.rx_discard, 0); /* the file needs the data */
	memcpy(sp->buffer, "abcdef", 6);
	ck_assert_int_eq(stream_io_store(sp, 3), 0);
	memcpy(sp->buffer, "XYZ", 3);
	ck_assert_int_eq(stream_io_store(sp, 3), 0);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq((int)read(fd, got, sizeof(got)), 6);
	close(fd);
	ck_assert_mem_eq(got, "abcXYZ", 6);
}
END_TEST

START_TEST(skip_rx_copy_discards_without_a_file)
{
	struct iperf_stream *sp;

	test->settings.skip_rx_copy = 1;
	sp = new_stream(0);
	ck_assert_int_eq(stream_io_open(sp), 0);
	ck_assert_int_eq(sp->io.rx_discard, 1);
	ck_assert(!stream_io_has_sink(sp));
	ck_assert_int_eq(stream_io_store(sp, 10), 0); /* nothing to write */
}
END_TEST

/* A stopping sink reads what is queued, then stops once idle. */
START_TEST(sink_drains_then_stops_when_idle)
{
	struct iperf_stream *sp;

	test->cfg->opt.diskfile_name = str_dup(path);
	sp = new_stream(0);
	ck_assert_int_eq(stream_io_open(sp), 0);
	ck_assert_int_eq((int)write(sv[1], "tail", 4), 4);
	ck_assert_int_eq(stream_io_sink_wait(sp, 1), 1);
	ck_assert_int_eq((int)recv(sv[0], sp->buffer, BLK, 0), 4);
	ck_assert_int_eq(stream_io_sink_wait(sp, 1), 0);
	/* not stopping: nothing yet means "ask again" */
	ck_assert_int_eq(stream_io_sink_wait(sp, 0), -1);
}
END_TEST

Suite *
make_suite(void)
{
	Suite *s = suite_create("stream_io");
	TCase *tc = tcase_create("source");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, plain_sender_repeats_the_whole_buffer);
	tcase_add_test(tc, repeating_payload_fills_digits);
	tcase_add_test(tc, partial_send_keeps_the_rest);
	tcase_add_test(tc, batch_send_goes_on_within_its_last_block);
	tcase_add_test(tc, file_source_reads_blocks_until_its_end);
	tcase_add_test(tc, missing_file_is_iefile);
	suite_add_tcase(s, tc);
	tc = tcase_create("zerocopy");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, zerocopy_buffer_is_an_unlinked_temp_file);
	tcase_add_test(tc, zerocopy_is_for_senders_of_tcp_only);
	tcase_add_test(tc, zerocopy_file_sends_from_the_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("sink");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, file_sink_truncates_then_appends);
	tcase_add_test(tc, skip_rx_copy_discards_without_a_file);
	tcase_add_test(tc, sink_drains_then_stops_when_idle);
	suite_add_tcase(s, tc);
	return s;
}
