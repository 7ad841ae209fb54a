/* stream_io.c - payload buffers, -Z and -F (see stream_io.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_SYS_SENDFILE_H
#include <sys/sendfile.h>
#endif

#include "iperf.h"
#include "iperf_error.h"
#include "iperf_time.h"
#include "proto_ops.h"
#include "stream.h"
#include "stream_io.h"
#include "util.h"
#include "banned.h"

/* A stopped receiver with a -F file keeps taking what is still on its way
 * (a stock sender ends its test while its last blocks are in the sockets'
 * buffers) until nothing arrived for STREAM_IO_POLL_MS, at most
 * STREAM_IO_DRAIN_US after the stop: long enough for a file that is
 * slower to write than the network (or a loaded host) to get everything,
 * short of the workers' join grace (IPERF_JOIN_GRACE_US, iperf.h). */
#define STREAM_IO_DRAIN_US 4000000ULL
#define STREAM_IO_POLL_MS 250

static void
fill_payload(const struct iperf_test *test, char *buf, size_t len)
{
	size_t i;

	if (test->settings.repeating_payload) {
		for (i = 0; i < len; i++)
			buf[i] = (char)('0' + (i % 10));
	} else {
		fill_random(buf, len);
	}
}

static const char *
temp_dir(void)
{
	static const char *const vars[] = { "TMPDIR", "TEMP", "TMP" };
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *d = getenv(vars[i]);

		if (d != NULL && *d != '\0')
			return d;
	}
	return "/tmp";
}

#define BUFFER_ALIGN 4096

/* An unlinked temporary file of len bytes, mapped shared at sp->buffer. */
static int
map_temp_file(struct iperf_stream *sp, size_t len)
{
	const char *tmpl = sp->test->opt->tmp_template;
	char path[PATH_MAX];
	void *p;
	int fd, err, n;

	/* iperf_set_test_template() names the file; else $TMPDIR... */
	n = tmpl != NULL ? snprintf(path, sizeof(path), "%s", tmpl) :
	    snprintf(path, sizeof(path), "%s/iperf3.XXXXXX", temp_dir());
	if (n < 0 || n >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(path);
	if (fd == -1)
		return -1;
	(void)unlink(path);
	if (ftruncate(fd, (off_t)len) == -1)
		goto out_close_fd;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto out_close_fd;
	sp->buffer = p;
	sp->io.buf_fd = fd;
	sp->io.buf_map = len;
	return 0;
out_close_fd:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

static int
wants_zerocopy(const struct iperf_stream *sp)
{
#if defined(HAVE_SENDFILE) && defined(HAVE_SYS_SENDFILE_H)
	const struct iperf_test *test = sp->test;

	return sp->sender && test->settings.zerocopy &&
	    (test->proto->flags & PROTO_F_ZEROCOPY) != 0;
#else
	(void)sp;
	return 0;
#endif
}

int
stream_io_buffer_new(struct iperf_stream *sp)
{
	size_t len = sp->blksize > 0 ? sp->blksize : 1;

	sp->io.buf_fd = -1;
	sp->io.file_fd = -1;
	sp->io.src_fd = -1;
	if (wants_zerocopy(sp)) {
		if (map_temp_file(sp, len) == -1)
			return -1;
		sp->io.zerocopy = 1;
		sp->io.src_fd = sp->io.buf_fd;
	} else {
		/* Page-aligned, as a mapping would be: the kernel's copies to
		 * and from a misaligned buffer are markedly slower. */
		void *p = NULL;

		if (posix_memalign(&p, BUFFER_ALIGN, len) != 0) {
			errno = ENOMEM;
			return -1;
		}
		sp->buffer = p;
	}
	fill_payload(sp->test, sp->buffer, sp->blksize);
	/* No block yet: the first stream_io_next() prepares one. */
	sp->io.len = sp->io.off = 0;
	return 0;
}

int
stream_io_open(struct iperf_stream *sp)
{
	struct iperf_test *test = sp->test;
	const char *path = test->opt->diskfile_name;
	struct stat st;
	int fd;

	sp->io.rx_discard = !sp->sender && test->settings.skip_rx_copy;
	/* A datagram transport never carries a file (refused at parameter
	 * exchange); its blocks are whole datagrams. */
	if (path == NULL || (test->proto->flags & PROTO_F_DATAGRAM))
		return 0;
	if (sp->sender)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	else
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
			(test->run.streams == sp ? O_TRUNC : 0), 0644);
	if (fd == -1)
		return iperf_fail(test, IEFILE, errno);
	sp->io.file_fd = fd;
	/* The file needs the data: nothing is discarded on receipt. */
	sp->io.rx_discard = 0;
	if (sp->sender) {
		test->diskfile_size = fstat(fd, &st) == 0 ? (int64_t)st.st_size :
							    0;
		if (sp->io.zerocopy)
			sp->io.src_fd = fd;
	} else {
		test->diskfile_size = 0; /* the report measures what arrived */
	}
	return 0;
}

void
stream_io_release(struct iperf_stream *sp)
{
	if (sp->io.file_fd >= 0)
		close(sp->io.file_fd);
	sp->io.file_fd = -1;
	if (sp->io.buf_map > 0) {
		(void)munmap(sp->buffer, sp->io.buf_map);
		sp->io.buf_map = 0;
	} else {
		free(sp->buffer);
	}
	sp->buffer = NULL;
	if (sp->io.buf_fd >= 0)
		close(sp->io.buf_fd);
	sp->io.buf_fd = -1;
}

int
stream_io_next(struct iperf_stream *sp)
{
	struct stream_io *io = &sp->io;
	ssize_t r;

	if (io->off < io->len)
		return 1; /* the rest of a partly sent block */
	io->off = 0;
	if (io->file_fd < 0) {
		io->len = sp->blksize; /* the buffer, again */
		return 1;
	}
	if (io->zerocopy) {
		/* sendfile() reads the file itself; it returns 0 at the end. */
		io->src_off += (off_t)io->len;
		io->len = sp->blksize;
		return 1;
	}
	do {
		r = read(io->file_fd, sp->buffer, sp->blksize);
	} while (r == -1 && errno == EINTR);
	if (r <= 0) {
		io->len = 0;
		return r == 0 ? 0 : -1;
	}
	io->len = (size_t)r;
	return 1;
}

void
stream_io_sent(struct iperf_stream *sp, size_t n)
{
	struct stream_io *io = &sp->io;
	size_t left = io->len - io->off;

	if (n < left) {
		io->off += n;
	} else if (n > left && io->len > 0 && (n - left) % io->len != 0) {
		/* A batch of blocks that went in part: within the last. */
		io->off = (n - left) % io->len;
	} else {
		io->off = io->len;
	}
}

const char *
stream_io_data(const struct iperf_stream *sp)
{
	return sp->buffer + sp->io.off;
}

size_t
stream_io_left(const struct iperf_stream *sp)
{
	return sp->io.len - sp->io.off;
}

ssize_t
stream_io_sendfile(struct iperf_stream *sp)
{
#if defined(HAVE_SENDFILE) && defined(HAVE_SYS_SENDFILE_H)
	off_t off = sp->io.src_off + (off_t)sp->io.off;

	return sendfile(sp->socket, sp->io.src_fd, &off, stream_io_left(sp));
#else
	(void)sp;
	errno = ENOSYS;
	return -1;
#endif
}

int
stream_io_store(struct iperf_stream *sp, size_t n)
{
	size_t done = 0;

	if (sp->io.file_fd < 0)
		return 0;
	while (done < n) {
		ssize_t w = write(sp->io.file_fd, sp->buffer + done, n - done);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

int
stream_io_has_sink(const struct iperf_stream *sp)
{
	return !sp->sender && sp->io.file_fd >= 0;
}

int
stream_io_sink_wait(struct iperf_stream *sp, int stopping)
{
	struct stream_io *io = &sp->io;
	struct pollfd pfd = { .fd = sp->socket, .events = POLLIN };
	uint64_t now = iperf_time_now_us();
	int rc;

	if (stopping) {
		if (io->drain_until == 0)
			io->drain_until = now + STREAM_IO_DRAIN_US;
		else if (now >= io->drain_until)
			return 0;
	}
	rc = poll(&pfd, 1, STREAM_IO_POLL_MS);
	if (rc > 0)
		return 1;
	if (rc == -1 && errno != EINTR)
		return 1; /* let the receive report it */
	return stopping && rc == 0 ? 0 : -1;
}

void
stream_worker_fail(struct iperf_stream *sp, int code, int err)
{
	pthread_mutex_lock(&sp->w.lock);
	if (sp->w.live.error == 0) {
		sp->w.live.error = code;
		sp->w.live.sys_errno = err;
	}
	pthread_mutex_unlock(&sp->w.lock);
}
