/*
 * stream_io.h - where the bytes of a stream come from and go to.
 *
 *  - The payload buffer (sp->buffer, blksize bytes): on the heap, or, for
 *    a -Z sender on a transport with PROTO_F_ZEROCOPY, the shared mapping
 *    of a temporary file "iperf3.XXXXXX" (in $TMPDIR, $TEMP, $TMP or /tmp,
 *    unlinked at once) that sendfile() sends without copying.
 *  - -F on a sender: each block is read from the file (with -Z, sendfile()
 *    sends it straight from the file) and the stream stops at its end.
 *  - -F on a receiver: what arrives is appended to the file.
 *
 * Ownership: set up by the loop thread (stream_io_buffer_new,
 * stream_io_open) before the worker starts; from then until the worker
 * is joined, struct stream_io belongs to the worker.
 */
#ifndef IPERF_STREAM_IO_H
#define IPERF_STREAM_IO_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

struct iperf_stream;

struct stream_io {
	int buf_fd;      /* temporary file behind the buffer (-Z), or -1 */
	size_t buf_map;  /* length mapped, 0 when the buffer is on the heap */
	int file_fd;     /* -F file, or -1 */
	int zerocopy;    /* send with sendfile() from src_fd */
	int rx_discard;  /* receive with MSG_TRUNC (--skip-rx-copy) */
	int src_fd;      /* zerocopy: buf_fd, or file_fd with -F */
	off_t src_off;   /* zerocopy: file offset of the current block */
	size_t len, off; /* current block: its length, the part already sent */
	uint64_t drain_until; /* receiver with a file: end of the drain */
};

/* Allocate sp->buffer (sp->blksize bytes) filled with the test's payload.
 * -1 with errno set. */
int stream_io_buffer_new(struct iperf_stream *sp);
/* -F: open the file for this stream (IEFILE recorded on failure). */
int stream_io_open(struct iperf_stream *sp);
void stream_io_release(struct iperf_stream *sp);

/* Worker (sender): make a block ready.  1: ready, 0: end of the -F file,
 * -1: the file could not be read (errno). */
int stream_io_next(struct iperf_stream *sp);
/* Worker (sender): n bytes went, of the current block or, for a batch
 * sent from the start of a block, of that many copies of it (the next
 * send goes on within the last copy when n is not a whole number). */
void stream_io_sent(struct iperf_stream *sp, size_t n);
/* The unsent part of the current block (not for zerocopy streams). */
const char *stream_io_data(const struct iperf_stream *sp);
size_t stream_io_left(const struct iperf_stream *sp);
/* Send the unsent part of the block with sendfile(); -1 with errno. */
ssize_t stream_io_sendfile(struct iperf_stream *sp);

/* Worker (receiver): the first n bytes of sp->buffer arrived; append them
 * to the -F file if there is one.  -1 with errno. */
int stream_io_store(struct iperf_stream *sp, size_t n);
/*
 * A receiver with a -F file is not woken by shutdown() when the test
 * stops: it polls, and once asked to stop it goes on reading what is still
 * on its way until the connection is idle for 100 ms (2 s at most), so
 * that the file is complete.  stream_io_sink_wait(): 1 when data can be
 * read, -1 when nothing came yet (ask again), 0 when the worker should
 * stop.
 */
int stream_io_has_sink(const struct iperf_stream *sp);
int stream_io_sink_wait(struct iperf_stream *sp, int stopping);

/* Worker: record its failure (the first one) in sp->live. */
void stream_worker_fail(struct iperf_stream *sp, int code, int err);

#endif /* IPERF_STREAM_IO_H */
