/*
 * options_int.h - internals shared by options.c (table and parser),
 * options_apply.c (one apply function per option), options_check.c
 * (post-parse rules) and options_help.c (texts).  Not installed.
 */
#ifndef IPERF_OPTIONS_INT_H
#define IPERF_OPTIONS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "units.h"

struct iperf_test;

/*
 * Compile-time features as 0/1 constants (config.h must be included
 * first by the .c file).  HAVE_DECL_* macros are tested with `defined`
 * first so that -Wundef stays quiet when a probe is missing.
 */
#if defined(HAVE_SCHED_SETAFFINITY)
#define OPT_HAVE_AFFINITY 1
#else
#define OPT_HAVE_AFFINITY 0
#endif
#if defined(HAVE_DECL_IPV6_FLOWLABEL_MGR) && HAVE_DECL_IPV6_FLOWLABEL_MGR
#define OPT_HAVE_FLOWLABEL 1
#else
#define OPT_HAVE_FLOWLABEL 0
#endif
#if defined(HAVE_PLOT)
#define OPT_HAVE_PLOT 1
#else
#define OPT_HAVE_PLOT 0
#endif
#if defined(HAVE_CSV)
#define OPT_HAVE_CSV 1
#else
#define OPT_HAVE_CSV 0
#endif
#if defined(HAVE_METRICS)
#define OPT_HAVE_METRICS 1
#else
#define OPT_HAVE_METRICS 0
#endif
#if defined(HAVE_RR)
#define OPT_HAVE_RR 1
#else
#define OPT_HAVE_RR 0
#endif
#if defined(HAVE_SCTP)
#define OPT_HAVE_SCTP 1
#else
#define OPT_HAVE_SCTP 0
#endif
#if defined(HAVE_DECL_TCP_CONGESTION) && HAVE_DECL_TCP_CONGESTION
#define OPT_HAVE_CONGESTION 1
#else
#define OPT_HAVE_CONGESTION 0
#endif
#if defined(HAVE_SENDFILE)
#define OPT_HAVE_SENDFILE 1
#else
#define OPT_HAVE_SENDFILE 0
#endif
#if defined(HAVE_DECL_SO_MAX_PACING_RATE) && HAVE_DECL_SO_MAX_PACING_RATE
#define OPT_HAVE_PACING 1
#else
#define OPT_HAVE_PACING 0
#endif
#if defined(HAVE_SSL)
#define OPT_HAVE_SSL 1
#else
#define OPT_HAVE_SSL 0
#endif
#if defined(HAVE_DECL_SO_BINDTODEVICE) && HAVE_DECL_SO_BINDTODEVICE
#define OPT_HAVE_BINDDEV 1
#else
#define OPT_HAVE_BINDDEV 0
#endif
#if defined(HAVE_DECL_IP_MTU_DISCOVER) && HAVE_DECL_IP_MTU_DISCOVER
#define OPT_HAVE_DONTFRAG 1
#else
#define OPT_HAVE_DONTFRAG 0
#endif
#if defined(HAVE_PTHREAD)
#define OPT_HAVE_PTHREAD 1
#else
#define OPT_HAVE_PTHREAD 0
#endif
#if defined(HAVE_DECL_UDP_SEGMENT) && HAVE_DECL_UDP_SEGMENT
#define OPT_HAVE_GSO 1
#else
#define OPT_HAVE_GSO 0
#endif
#if defined(HAVE_DECL_UDP_GRO) && HAVE_DECL_UDP_GRO
#define OPT_HAVE_GRO 1
#else
#define OPT_HAVE_GRO 0
#endif
#if defined(HAVE_DECL_TCP_USER_TIMEOUT) && HAVE_DECL_TCP_USER_TIMEOUT
#define OPT_HAVE_USER_TIMEOUT 1
#else
#define OPT_HAVE_USER_TIMEOUT 0
#endif
#if defined(HAVE_DECL_TCP_KEEPIDLE) && HAVE_DECL_TCP_KEEPIDLE
#define OPT_HAVE_KEEPALIVE 1
#else
#define OPT_HAVE_KEEPALIVE 0
#endif
#if defined(HAVE_DECL_IPPROTO_MPTCP) && HAVE_DECL_IPPROTO_MPTCP
#define OPT_HAVE_MPTCP 1
#else
#define OPT_HAVE_MPTCP 0
#endif
#if defined(HAVE_DECL_MSG_TRUNC) && HAVE_DECL_MSG_TRUNC
#define OPT_HAVE_MSG_TRUNC 1
#else
#define OPT_HAVE_MSG_TRUNC 0
#endif

/* Identity of an option, the bit recorded in opt.opt_seen.  Aliases
 * (--bandwidth, --linux-congestion) share the id of their option. */
enum opt_id {
	OPT_ID_PORT = 0,
	OPT_ID_FORMAT,
	OPT_ID_INTERVAL,
	OPT_ID_DAEMON,
	OPT_ID_ONE_OFF,
	OPT_ID_VERBOSE,
	OPT_ID_JSON,
	OPT_ID_JSON_STREAM,
	OPT_ID_JSON_STREAM_FULL,
	OPT_ID_VERSION,
	OPT_ID_SERVER,
	OPT_ID_CLIENT,
	OPT_ID_UDP,
	OPT_ID_BITRATE,
	OPT_ID_SERVER_BITRATE_LIMIT,
	OPT_ID_TIME,
	OPT_ID_BYTES,
	OPT_ID_BLOCKCOUNT,
	OPT_ID_LENGTH,
	OPT_ID_PARALLEL,
	OPT_ID_REVERSE,
	OPT_ID_BIDIR,
	OPT_ID_WINDOW,
	OPT_ID_BIND,
	OPT_ID_BIND_DEV,
	OPT_ID_CPORT,
	OPT_ID_SET_MSS,
	OPT_ID_NO_DELAY,
	OPT_ID_VERSION4,
	OPT_ID_VERSION6,
	OPT_ID_TOS,
	OPT_ID_DSCP,
	OPT_ID_EXTRA_DATA,
	OPT_ID_FLOWLABEL,
	OPT_ID_TITLE,
	OPT_ID_ZEROCOPY,
	OPT_ID_OMIT,
	OPT_ID_FILE,
	OPT_ID_TIMESTAMPS,
	OPT_ID_AFFINITY,
	OPT_ID_SERVER_AFFINITY, /* mark only: -A n,m (the ",m" part) */
	OPT_ID_CONGESTION,
	OPT_ID_SCTP,
	OPT_ID_NSTREAMS,
	OPT_ID_XBIND,
	OPT_ID_PIDFILE,
	OPT_ID_LOGFILE,
	OPT_ID_FORCEFLUSH,
	OPT_ID_GET_SERVER_OUTPUT,
	OPT_ID_UDP_COUNTERS_64BIT,
	OPT_ID_GSRO,
	OPT_ID_REPEATING_PAYLOAD,
	OPT_ID_DONT_FRAGMENT,
	OPT_ID_USERNAME,
	OPT_ID_RSA_PUBLIC_KEY,
	OPT_ID_RSA_PRIVATE_KEY,
	OPT_ID_AUTHORIZED_USERS,
	OPT_ID_SKEW_THRESHOLD,
	OPT_ID_USE_PKCS1_PADDING,
	OPT_ID_FQ_RATE,
	OPT_ID_PACING_TIMER,
	OPT_ID_CONNECT_TIMEOUT,
	OPT_ID_IDLE_TIMEOUT,
	OPT_ID_RCV_TIMEOUT,
	OPT_ID_SND_TIMEOUT,
	OPT_ID_CNTL_KA,
	OPT_ID_NO_CNTL_KA,
	OPT_ID_NO_UDP_OFFLOAD,
	OPT_ID_RR,
	OPT_ID_RR_RESPONSE,
	OPT_ID_LATENCY,
#ifdef HAVE_OWD
	OPT_ID_OWD,
#endif
	OPT_ID_CSV,
	OPT_ID_PLOT,
	OPT_ID_METRICS,
	OPT_ID_MAX_TESTS,
	OPT_ID_MAX_TESTS_PER_IP,
	OPT_ID_NO_FQ_SOCKET_PACING,
	OPT_ID_SKIP_RX_COPY,
	OPT_ID_MPTCP,
	OPT_ID_SERVER_MAX_DURATION,
	OPT_ID_ALLOW,
	OPT_ID_DENY,
	OPT_ID_ALLOW_FILE,
	OPT_ID_MAX_TESTS_PER_PREFIX,
	OPT_ID_ACCEPT_RATE,
	OPT_ID_AUDIT_LOG,
	OPT_ID_METRICS_LISTEN,
	OPT_ID_SERVER_MAX_BYTES,
	OPT_ID_SERVER_MAX_STREAMS,
	OPT_ID_NO_CLAMP,
	OPT_ID_EXPORTER,
	OPT_ID_EXPORTER_ALLOW,
	OPT_ID_EXPORTER_MAX_PERIOD,
	OPT_ID_EXPORTER_MAX_BITRATE,
	OPT_ID_EXPORTER_MAX_PROBES,
#ifdef HAVE_RPM
	OPT_ID_RPM,
#endif
#ifdef HAVE_MULTICAST
	OPT_ID_MULTICAST,
	OPT_ID_TTL,
	OPT_ID_SSM_SOURCE,
	OPT_ID_MULTICAST_ALLOW,
	OPT_ID_MULTICAST_LISTEN,
#endif
#ifdef HAVE_ISOCHRONOUS
	OPT_ID_ISOCHRONOUS,
#endif
	OPT_ID_DEBUG,
	OPT_ID_HELP,
	OPT_ID_COUNT
};

/* Roles allowed by the post-parse role rule (options_check.c). */
#define OPT_ROLE_CLIENT 0x1u
#define OPT_ROLE_SERVER 0x2u
#define OPT_ROLE_BOTH (OPT_ROLE_CLIENT | OPT_ROLE_SERVER)
/* --exporter's own, and the few others it takes (--logfile...). */
#define OPT_ROLE_EXPORTER 0x4u

/* What an apply function returns besides 0 (done) and -1 (error
 * recorded on the test). */
#define OPT_APPLY_HELP 1    /* -h: stop parsing, print the help */
#define OPT_APPLY_VERSION 2 /* -v: stop parsing, print the version */
#define OPT_APPLY_USAGE 3   /* compiled-out option with no message */

typedef int opt_apply_fn(struct iperf_test *test, const char *arg);

struct opt_row {
	const char *name;   /* long name, or NULL (mark-only rows) */
	int key;            /* short option character, or OPT_KEY_LONG + id */
	int has_arg;        /* no_argument, required_argument, optional_argument */
	int has_long;       /* 0: the long name is compiled out (feature) */
	enum opt_id id;
	unsigned int roles; /* OPT_ROLE_* */
	int supported;      /* 0: refused with IEUNIMP after the 3.21 rules */
	opt_apply_fn *apply;
};

#define OPT_KEY_LONG 256

/* The option table (options.c). */
extern const struct opt_row options_table[];
extern const size_t options_table_len;
/* At least the rows of options_table (options_table.c checks). */
#define OPTIONS_TABLE_MAX 192

/* Bitmap of given options. */
void options_mark(struct iperf_test *test, enum opt_id id);
int options_seen(const struct iperf_test *test, enum opt_id id);

/* Helpers shared by the apply functions (options.c). */
/* A size or rate with a K/M/G/T suffix; IEUNITVAL quotes `arg`. */
int options_units(struct iperf_test *test, const char *arg,
    enum units_kind kind, double *out);
/* Replace a heap string field with a copy of arg (NULL allowed). */
int options_string(struct iperf_test *test, char **field, const char *arg);
/* A copy of arg appended to the list *list of *count strings (-X,
 * --allow, --deny); 0, or -1 with IENEWTEST (no memory). */
int options_list_add(struct iperf_test *test, char ***list, int *count,
    const char *arg);
/* Copy of arg cut at the first `sep`: returns the part before (to free),
 * *rest = the part after, or NULL without a separator. */
char *options_split(const char *arg, int sep, char **rest);
/* Our own options' integers (not stock's atoi leniency, which takes
 * "2x" as 2): decimal digits, an optional sign, nothing else; out of int
 * range is a bad value too.  -1 with IEOPTVALUE ("invalid value for
 * --max-tests: '2x'"). */
int options_int_strict(struct iperf_test *test, const char *option,
    const char *arg, int *out);
/* double -> int / uint64_t, saturating, NaN gives 0. */
int options_clamp_int(double v);
uint64_t options_clamp_u64(double v);

/* Post-parse rules of 3.21 (options_check.c): 0, or -1 with the error. */
int options_check(struct iperf_test *test);

/* Apply functions (options_apply.c), one per option. */
opt_apply_fn opt_apply_port, opt_apply_format, opt_apply_interval,
    opt_apply_daemon, opt_apply_one_off, opt_apply_verbose, opt_apply_json,
    opt_apply_json_stream, opt_apply_json_stream_full, opt_apply_version,
    opt_apply_server, opt_apply_client, opt_apply_udp, opt_apply_bitrate,
    opt_apply_server_bitrate_limit, opt_apply_time, opt_apply_bytes,
    opt_apply_blockcount, opt_apply_length, opt_apply_parallel,
    opt_apply_reverse, opt_apply_bidir, opt_apply_window, opt_apply_bind,
    opt_apply_bind_dev, opt_apply_cport, opt_apply_set_mss,
    opt_apply_no_delay, opt_apply_version4, opt_apply_version6,
    opt_apply_tos, opt_apply_dscp, opt_apply_extra_data, opt_apply_flowlabel,
    opt_apply_title, opt_apply_zerocopy, opt_apply_omit, opt_apply_file,
    opt_apply_timestamps, opt_apply_affinity, opt_apply_congestion,
    opt_apply_sctp, opt_apply_nstreams, opt_apply_xbind, opt_apply_pidfile,
    opt_apply_logfile, opt_apply_forceflush, opt_apply_get_server_output,
    opt_apply_udp_counters_64bit, opt_apply_gsro,
    opt_apply_repeating_payload, opt_apply_dont_fragment,
    opt_apply_username, opt_apply_rsa_public_key, opt_apply_rsa_private_key,
    opt_apply_authorized_users, opt_apply_skew_threshold,
    opt_apply_use_pkcs1_padding, opt_apply_fq_rate, opt_apply_pacing_timer,
    opt_apply_connect_timeout, opt_apply_idle_timeout,
    opt_apply_max_tests, opt_apply_max_tests_per_ip, opt_apply_rcv_timeout,
    opt_apply_snd_timeout, opt_apply_cntl_ka, opt_apply_no_cntl_ka,
    opt_apply_no_udp_offload, opt_apply_rr, opt_apply_rr_response,
    opt_apply_latency, opt_apply_owd, opt_apply_csv, opt_apply_plot, opt_apply_metrics,
    opt_apply_no_fq_socket_pacing,
    opt_apply_skip_rx_copy, opt_apply_mptcp, opt_apply_server_max_duration,
    opt_apply_server_max_bytes, opt_apply_server_max_streams,
    opt_apply_no_clamp, opt_apply_exporter,
    opt_apply_debug, opt_apply_help;
#ifdef HAVE_RPM
opt_apply_fn opt_apply_rpm;
#endif
/* options_apply_mcast.c: --multicast and its receivers */
#ifdef HAVE_MULTICAST
opt_apply_fn opt_apply_multicast, opt_apply_ttl, opt_apply_ssm_source,
    opt_apply_multicast_allow, opt_apply_multicast_listen;
#endif
#ifdef HAVE_ISOCHRONOUS
opt_apply_fn opt_apply_isochronous;
#endif
/* options_apply_exporter.c: the exporter (--disable-exporter) */
opt_apply_fn opt_apply_exporter_allow, opt_apply_exporter_max_period,
    opt_apply_exporter_max_bitrate, opt_apply_exporter_max_probes;
/* options_apply_server.c: a server for operators */
opt_apply_fn opt_apply_allow, opt_apply_deny, opt_apply_allow_file,
    opt_apply_max_tests_per_prefix, opt_apply_accept_rate,
    opt_apply_audit_log, opt_apply_metrics_listen;
/* -p A-B on a server: 0 stored, -1 bad range (error recorded), 1 when
 * arg is no range (a single port, -p's own parsing). */
int options_port_range(struct iperf_test *test, const char *arg);

#endif /* IPERF_OPTIONS_INT_H */
