/*
 * audit.h - the server's audit trail (--audit-log FILE, "-" for standard
 * output): one JSON object per line for every test and every refusal.
 * Writers may be on any thread; the file can be reopened for logrotate.
 */
#ifndef IPERF_AUDIT_H
#define IPERF_AUDIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

struct cJSON;

/* A line's facts; what is unknown is written as null. */
struct audit_event {
	const char *event;      /* "test" or "refused" */
	const struct sockaddr_storage *source; /* or NULL */
	int server_port;        /* 0 = unknown */
	const char *protocol;   /* "TCP", "UDP", "SCTP" or NULL */
	const char *direction;  /* "forward", "reverse", "bidir" or NULL */
	int streams;            /* < 0 = unknown */
	const struct cJSON *requested; /* borrowed (copied into the line) or NULL */
	const struct cJSON *applied;   /* the same */
	double seconds;         /* < 0 = unknown */
	uint64_t bytes_sent, bytes_received; /* the server's view */
	const char *result;     /* "ok", "error", "refused" */
	const char *error;      /* error text or NULL */
	const char *reason;     /* refusal reason or NULL */
};

struct audit;

/* Open the trail: "-" is standard output (never closed); else path is
 * opened O_WRONLY|O_APPEND|O_CREAT|O_CLOEXEC, mode 0640.  NULL with
 * "<path>: <reason>" in err (errlen bytes, may be 0) on failure. */
struct audit *audit_open(const char *path, char *err, size_t errlen);
/* SIGHUP (logrotate): open the path anew and write there from now on; on
 * failure -1 with "<path>: <reason>" in err, the old file kept.  0 (and
 * nothing done) for standard output. */
int audit_reopen(struct audit *a, char *err, size_t errlen);
/*
 * Write one line (a single write(2), resumed after EINTR or a short
 * write) with exactly these keys in this order: time (RFC 3339 UTC with
 * milliseconds, "2026-11-27T16:05:00.123Z"), event, source (numeric, an
 * IPv4-mapped address as IPv4), source_port, server_port, protocol,
 * direction, streams, requested, applied, seconds, bytes_sent,
 * bytes_received, result, error, reason.  Strings that are not UTF-8 have
 * the offending bytes replaced by '?'.  Thread-safe.  0 written; 1 when it
 * failed and is the first failure since the last success (the caller
 * warns once); -1 for the failures after it (stay quiet).
 */
int audit_write(struct audit *a, const struct audit_event *e);
/* Close the file (not standard output) and free a; NULL is ignored. */
void audit_close(struct audit *a);

#endif /* IPERF_AUDIT_H */
