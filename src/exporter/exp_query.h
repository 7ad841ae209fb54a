/*
 * exp_query.h - the parameters of the exporter's /probe (the query of
 * edgard/iperf3_exporter: target, port, reverse_mode, udp_mode, bitrate,
 * period, bind) read into a request, and the parsers they need: Go's
 * strconv.ParseBool and time.ParseDuration, iperf3_exporter's bitrate
 * pattern.  Pure: no socket, no name resolution, no clock.
 */
#ifndef IPERF_EXP_QUERY_H
#define IPERF_EXP_QUERY_H

#include <stddef.h>
#include <stdint.h>

/* A host name (253) or an IPv6 address with room to spare. */
#define EXP_HOST_MAX 256
/* iperf3's default port, and the default period of a probe (seconds). */
#define EXP_DEFAULT_PORT 5201
#define EXP_DEFAULT_PERIOD_S 5.0
/* iperf3's -b burst limit ("/N"). */
#define EXP_MAX_BURST 1000

struct probe_req {
	char target[EXP_HOST_MAX]; /* the host: a name or an address, an
				    * IPv6 address without its brackets */
	char label[EXP_HOST_MAX];  /* the target parameter as given */
	int port;
	int reverse;
	int udp;
	int have_bitrate;	   /* bitrate given */
	uint64_t bitrate;	   /* bits per second (0: unlimited) */
	int burst;		   /* "/N" of bitrate, 0 if none */
	double period_s;
	char bind[64];		   /* a numeric address, "" if none */
};

/* The value of a query argument by name, NULL when absent. */
typedef const char *(*exp_query_get)(const void *ctx, const char *key);

/*
 * The probe's parameters through get(ctx, name).  An empty value counts
 * as absent, except for target (required).  period above max_period_s
 * is refused.  0, or -1 with a one-line reason in err ("missing
 * parameter 'target'").
 */
int exp_query_parse(exp_query_get get, const void *ctx, double max_period_s,
    struct probe_req *out, char *err, size_t errlen);

/* Go's strconv.ParseBool: 1, t, T, TRUE, true, True -> 1; 0, f, F,
 * FALSE, false, False -> 0; anything else -1. */
int exp_parse_bool(const char *s);
/* Go's time.ParseDuration ("5s", "1m30s", "1.5h", "300ms", "-2s", "0";
 * units ns, us, \u00b5s, \u03bcs, ms, s, m, h): 0 with *seconds, or -1.
 * Durations beyond Go's range (about 292 years) are refused, as Go
 * does. */
int exp_parse_duration(const char *s, double *seconds);
/* iperf3_exporter's bitrate: ^[0-9]+(\.[0-9]+)?([KMG])?(/[0-9]+)?$, K,
 * M and G powers of 1000 (iperf3 -b); *burst is the "/N" (0 without).
 * 0, or -1 (no match, a rate beyond 2^63, a burst above 1000). */
int exp_parse_bitrate(const char *s, uint64_t *bps, int *burst);
/* "host", "host:port", "[v6]", "[v6]:port" or a bare IPv6 address into
 * host (hostlen bytes) and *port (left alone when the text has none; 1
 * when it has one).  The host is a DNS name (letters, digits, '-', '.',
 * '_', at most 253 characters) or a numeric IPv4 or IPv6 address.
 * Returns 0 or 1 (port given), -1 when malformed. */
int exp_parse_target(const char *s, char *host, size_t hostlen, int *port);
/* A port: 1 to 65535 in decimal digits; -1 otherwise. */
int exp_parse_port(const char *s);
/* A numeric IPv4 or IPv6 address ("[v6]" too) into out without
 * brackets: 0, or -1. */
int exp_parse_addr(const char *s, char *out, size_t outlen);

#endif /* IPERF_EXP_QUERY_H */
