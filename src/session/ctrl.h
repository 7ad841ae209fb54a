/*
 * ctrl.h - control-channel framing.
 *
 * The control connection carries single state bytes, 4-byte big-endian
 * length-prefixed JSON documents, the 37-byte cookie, and after
 * SERVER_ERROR two big-endian int32s.  Which of these comes next depends on
 * the protocol state, so the reader is told what to expect.  Bytes are
 * buffered until a whole unit has arrived (never blocking the loop), and a
 * JSON length above the cap is refused before anything is allocated.
 *
 * The framing core (ctrl_push/ctrl_next) does no I/O and is unit tested and
 * fuzzed on byte chunks; ctrl_fill() reads a socket into it.
 */
#ifndef IPERF_CTRL_H
#define IPERF_CTRL_H

#include <stddef.h>
#include <stdint.h>

#define CTRL_PARAMS_MAX_BYTES 8192
#define CTRL_RESULTS_MAX_BYTES (16u * 1024 * 1024)
#define CTRL_COOKIE_BYTES 37

enum ctrl_expect {
	CTRL_EXPECT_NONE = 0, /* anything arriving is left buffered */
	CTRL_EXPECT_STATE,
	CTRL_EXPECT_JSON,
	CTRL_EXPECT_ERRINTS, /* two int32 after SERVER_ERROR */
	CTRL_EXPECT_COOKIE,
};

enum ctrl_msg_kind {
	CTRL_MSG_STATE = 1,
	CTRL_MSG_JSON,
	CTRL_MSG_ERRINTS,
	CTRL_MSG_COOKIE,
};

enum ctrl_fault {
	CTRL_FAULT_NONE = 0,
	CTRL_FAULT_EMPTY_JSON, /* length 0 */
	CTRL_FAULT_TOO_BIG,    /* length above the cap */
	CTRL_FAULT_EOF,        /* peer closed before a unit was complete */
};

struct ctrl_msg {
	enum ctrl_msg_kind kind;
	signed char state;
	char *json; /* NUL-terminated; the caller frees it */
	size_t json_len;
	int32_t err_code, err_errno;
	int err_count; /* 1 when the peer closed after the first int */
	char cookie[CTRL_COOKIE_BYTES];
};

struct ctrl;

struct ctrl *ctrl_new(void);
void ctrl_free(struct ctrl *c);
/* Set what the next unit is; JSON documents are limited to json_cap. */
void ctrl_expect(struct ctrl *c, enum ctrl_expect what, size_t json_cap);
enum ctrl_expect ctrl_expecting(const struct ctrl *c);

/*
 * Exact reads (the stage functions of libiperf): ctrl_fill() takes from
 * the socket no byte beyond the unit expected, so the next unit stays in
 * the kernel and the socket reads as readable for a caller's select().
 */
void ctrl_set_exact(struct ctrl *c, int on);

/* Append bytes (tests, fuzzing); -1 if the buffer limit would be passed. */
int ctrl_push(struct ctrl *c, const void *data, size_t len);
/* Mark end of input: pending partial units become faults or short forms. */
void ctrl_push_eof(struct ctrl *c);
/*
 * Extract the next complete unit: 1 = *msg filled, 0 = need more bytes,
 * -1 = framing fault (see ctrl_fault()).  After a message the expectation
 * becomes CTRL_EXPECT_NONE unless it was STATE (states repeat).
 */
int ctrl_next(struct ctrl *c, struct ctrl_msg *msg);
enum ctrl_fault ctrl_fault(const struct ctrl *c);
/* Bytes buffered but not yet consumed. */
size_t ctrl_buffered(const struct ctrl *c);

/*
 * Read what the (non-blocking) socket has.  Returns bytes read, 0 at EOF
 * (also recorded with ctrl_push_eof), -1 on error with errno set (EAGAIN
 * means nothing to read).
 */
long ctrl_fill(struct ctrl *c, int fd, uint64_t now_us);
/* Times of the last byte received and of the start of the current unit. */
uint64_t ctrl_last_progress(const struct ctrl *c);
int ctrl_unit_in_progress(const struct ctrl *c);

/* Blocking writes with an overall deadline (us from now); 0 or -1. */
int ctrl_write_all(int fd, const void *buf, size_t len, uint64_t timeout_us);
int ctrl_send_state(int fd, signed char state);
int ctrl_send_json(int fd, const char *json, size_t len);
int ctrl_send_server_error(int fd, int32_t code, int32_t err);


#endif /* IPERF_CTRL_H */
