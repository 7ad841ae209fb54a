/*
 * options_table.c - the option table.
 *
 * Each option is one row: long name, short key, argument kind, whether
 * the long name exists in this build, the roles that may use it, whether
 * this implementation supports it yet, and the function that checks and
 * stores its argument (options_apply*.c).
 *
 * Row order is the long-option order getopt_long() uses when it lists the
 * candidates of an ambiguous prefix ("--b" names bitrate, bytes,
 * blockcount, bidir, bind, bind-dev in that order).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iperf.h"
#include "iperf_error.h"
#include "options_int.h"
#include "units.h"
#include "util.h"
#include "banned.h"

#define NO no_argument
#define REQ required_argument
#define OPT optional_argument
#define C OPT_ROLE_CLIENT
#define S OPT_ROLE_SERVER
#define B OPT_ROLE_BOTH
#ifdef HAVE_EXPORTER
#define E OPT_ROLE_EXPORTER
#else
#define E 0
#endif
#define L(id) (OPT_KEY_LONG + (id))

/* name, key, has_arg, has_long, id, roles, supported, apply */
const struct opt_row options_table[] = {
	{ "port", 'p', REQ, 1, OPT_ID_PORT, B, 1, opt_apply_port },
	{ "format", 'f', REQ, 1, OPT_ID_FORMAT, B, 1, opt_apply_format },
	{ "interval", 'i', REQ, 1, OPT_ID_INTERVAL, B, 1, opt_apply_interval },
	{ "daemon", 'D', NO, 1, OPT_ID_DAEMON, S | E, 1, opt_apply_daemon },
	{ "one-off", '1', NO, 1, OPT_ID_ONE_OFF, S, 1, opt_apply_one_off },
	{ "verbose", 'V', NO, 1, OPT_ID_VERBOSE, B | E, 1, opt_apply_verbose },
	{ "json", 'J', NO, 1, OPT_ID_JSON, B, 1, opt_apply_json },
	{ "json-stream", L(OPT_ID_JSON_STREAM), NO, 1, OPT_ID_JSON_STREAM, B, 1,
	    opt_apply_json_stream },
	{ "json-stream-full-output", L(OPT_ID_JSON_STREAM_FULL), NO, 1,
	    OPT_ID_JSON_STREAM_FULL, B, 1, opt_apply_json_stream_full },
	{ "version", 'v', NO, 1, OPT_ID_VERSION, B | E, 1, opt_apply_version },
	{ "server", 's', NO, 1, OPT_ID_SERVER, B, 1, opt_apply_server },
	{ "client", 'c', REQ, 1, OPT_ID_CLIENT, B, 1, opt_apply_client },
	{ "udp", 'u', NO, 1, OPT_ID_UDP, C, 1, opt_apply_udp },
	{ "bitrate", 'b', REQ, 1, OPT_ID_BITRATE, C, 1, opt_apply_bitrate },
	{ "bandwidth", 'b', REQ, 1, OPT_ID_BITRATE, C, 1, opt_apply_bitrate },
	{ "server-bitrate-limit", L(OPT_ID_SERVER_BITRATE_LIMIT), REQ, 1,
	    OPT_ID_SERVER_BITRATE_LIMIT, S, 1, opt_apply_server_bitrate_limit },
	{ "time", 't', REQ, 1, OPT_ID_TIME, C, 1, opt_apply_time },
	{ "bytes", 'n', REQ, 1, OPT_ID_BYTES, C, 1, opt_apply_bytes },
	{ "blockcount", 'k', REQ, 1, OPT_ID_BLOCKCOUNT, C, 1,
	    opt_apply_blockcount },
	{ "length", 'l', REQ, 1, OPT_ID_LENGTH, C, 1, opt_apply_length },
	{ "parallel", 'P', REQ, 1, OPT_ID_PARALLEL, C, 1, opt_apply_parallel },
	{ "reverse", 'R', NO, 1, OPT_ID_REVERSE, C, 1, opt_apply_reverse },
	{ "bidir", L(OPT_ID_BIDIR), NO, 1, OPT_ID_BIDIR, C, 1, opt_apply_bidir },
	{ "window", 'w', REQ, 1, OPT_ID_WINDOW, C, 1, opt_apply_window },
	{ "bind", 'B', REQ, 1, OPT_ID_BIND, B, 1, opt_apply_bind },
	{ "bind-dev", L(OPT_ID_BIND_DEV), REQ, OPT_HAVE_BINDDEV,
	    OPT_ID_BIND_DEV, B, 1, opt_apply_bind_dev },
	{ "cport", L(OPT_ID_CPORT), REQ, 1, OPT_ID_CPORT, B, 1, opt_apply_cport },
	{ "set-mss", 'M', REQ, 1, OPT_ID_SET_MSS, C, 1, opt_apply_set_mss },
	{ "no-delay", 'N', NO, 1, OPT_ID_NO_DELAY, C, 1, opt_apply_no_delay },
	{ "version4", '4', NO, 1, OPT_ID_VERSION4, B, 1, opt_apply_version4 },
	{ "version6", '6', NO, 1, OPT_ID_VERSION6, B, 1, opt_apply_version6 },
	{ "tos", 'S', REQ, 1, OPT_ID_TOS, C, 1, opt_apply_tos },
	{ "dscp", L(OPT_ID_DSCP), REQ, 1, OPT_ID_DSCP, C, 1, opt_apply_dscp },
	{ "extra-data", L(OPT_ID_EXTRA_DATA), REQ, 1, OPT_ID_EXTRA_DATA, C, 1,
	    opt_apply_extra_data },
	{ "flowlabel", 'L', REQ, OPT_HAVE_FLOWLABEL, OPT_ID_FLOWLABEL, C, 1,
	    opt_apply_flowlabel },
	{ "title", 'T', REQ, 1, OPT_ID_TITLE, C, 1, opt_apply_title },
	{ "zerocopy", 'Z', NO, 1, OPT_ID_ZEROCOPY, C, 1, opt_apply_zerocopy },
	{ "omit", 'O', REQ, 1, OPT_ID_OMIT, C, 1, opt_apply_omit },
	{ "file", 'F', REQ, 1, OPT_ID_FILE, B, 1, opt_apply_file },
	{ "timestamps", L(OPT_ID_TIMESTAMPS), OPT, 1, OPT_ID_TIMESTAMPS, B | E, 1,
	    opt_apply_timestamps },
	{ "affinity", 'A', REQ, OPT_HAVE_AFFINITY, OPT_ID_AFFINITY, B, 1,
	    opt_apply_affinity },
	{ NULL, 0, NO, 0, OPT_ID_SERVER_AFFINITY, C, 1, NULL },
	{ "congestion", 'C', REQ, OPT_HAVE_CONGESTION, OPT_ID_CONGESTION, C, 1,
	    opt_apply_congestion },
	{ "linux-congestion", 'C', REQ, OPT_HAVE_CONGESTION, OPT_ID_CONGESTION,
	    C, 1, opt_apply_congestion },
	{ "sctp", L(OPT_ID_SCTP), NO, OPT_HAVE_SCTP, OPT_ID_SCTP, C, 1,
	    opt_apply_sctp },
	{ "nstreams", L(OPT_ID_NSTREAMS), REQ, OPT_HAVE_SCTP, OPT_ID_NSTREAMS, C,
	    1, opt_apply_nstreams },
	/* The short -X is always parsed; without SCTP it cannot take effect. */
	{ "xbind", 'X', REQ, OPT_HAVE_SCTP, OPT_ID_XBIND, B, OPT_HAVE_SCTP,
	    opt_apply_xbind },
	{ "pidfile", 'I', REQ, 1, OPT_ID_PIDFILE, B | E, 1, opt_apply_pidfile },
	{ "logfile", L(OPT_ID_LOGFILE), REQ, 1, OPT_ID_LOGFILE, B | E, 1,
	    opt_apply_logfile },
	{ "forceflush", L(OPT_ID_FORCEFLUSH), NO, 1, OPT_ID_FORCEFLUSH, B | E, 1,
	    opt_apply_forceflush },
	{ "get-server-output", L(OPT_ID_GET_SERVER_OUTPUT), NO, 1,
	    OPT_ID_GET_SERVER_OUTPUT, C, 1, opt_apply_get_server_output },
	{ "udp-counters-64bit", L(OPT_ID_UDP_COUNTERS_64BIT), NO, 1,
	    OPT_ID_UDP_COUNTERS_64BIT, C, 1, opt_apply_udp_counters_64bit },
	{ "gsro", L(OPT_ID_GSRO), NO, 1, OPT_ID_GSRO, C, 1, opt_apply_gsro },
	{ "repeating-payload", L(OPT_ID_REPEATING_PAYLOAD), NO, 1,
	    OPT_ID_REPEATING_PAYLOAD, C, 1, opt_apply_repeating_payload },
	{ "dont-fragment", L(OPT_ID_DONT_FRAGMENT), NO, OPT_HAVE_DONTFRAG,
	    OPT_ID_DONT_FRAGMENT, C, 1, opt_apply_dont_fragment },
	{ "username", L(OPT_ID_USERNAME), REQ, OPT_HAVE_SSL, OPT_ID_USERNAME, C,
	    1, opt_apply_username },
	{ "rsa-public-key-path", L(OPT_ID_RSA_PUBLIC_KEY), REQ, OPT_HAVE_SSL,
	    OPT_ID_RSA_PUBLIC_KEY, C, 1, opt_apply_rsa_public_key },
	{ "rsa-private-key-path", L(OPT_ID_RSA_PRIVATE_KEY), REQ, OPT_HAVE_SSL,
	    OPT_ID_RSA_PRIVATE_KEY, S, 1, opt_apply_rsa_private_key },
	/* Client use is refused by the auth rule, not by the role rule. */
	{ "authorized-users-path", L(OPT_ID_AUTHORIZED_USERS), REQ,
	    OPT_HAVE_SSL, OPT_ID_AUTHORIZED_USERS, B, 1,
	    opt_apply_authorized_users },
	{ "time-skew-threshold", L(OPT_ID_SKEW_THRESHOLD), REQ, OPT_HAVE_SSL,
	    OPT_ID_SKEW_THRESHOLD, S, 1, opt_apply_skew_threshold },
	{ "use-pkcs1-padding", L(OPT_ID_USE_PKCS1_PADDING), NO, OPT_HAVE_SSL,
	    OPT_ID_USE_PKCS1_PADDING, S, 1, opt_apply_use_pkcs1_padding },
	{ "fq-rate", L(OPT_ID_FQ_RATE), REQ, 1, OPT_ID_FQ_RATE, C, 1,
	    opt_apply_fq_rate },
	{ "pacing-timer", L(OPT_ID_PACING_TIMER), REQ, 1, OPT_ID_PACING_TIMER,
	    C, 1, opt_apply_pacing_timer },
	{ "connect-timeout", L(OPT_ID_CONNECT_TIMEOUT), REQ, 1,
	    OPT_ID_CONNECT_TIMEOUT, C, 1, opt_apply_connect_timeout },
	{ "idle-timeout", L(OPT_ID_IDLE_TIMEOUT), REQ, 1, OPT_ID_IDLE_TIMEOUT, S,
	    1, opt_apply_idle_timeout },
	{ "rcv-timeout", L(OPT_ID_RCV_TIMEOUT), REQ, 1, OPT_ID_RCV_TIMEOUT, B, 1,
	    opt_apply_rcv_timeout },
	{ "snd-timeout", L(OPT_ID_SND_TIMEOUT), REQ, 1, OPT_ID_SND_TIMEOUT, B, 1,
	    opt_apply_snd_timeout },
	{ "cntl-ka", L(OPT_ID_CNTL_KA), OPT, OPT_HAVE_KEEPALIVE, OPT_ID_CNTL_KA,
	    B, 1, opt_apply_cntl_ka },
	{ "no-cntl-ka", L(OPT_ID_NO_CNTL_KA), NO, OPT_HAVE_KEEPALIVE,
	    OPT_ID_NO_CNTL_KA, B, 1, opt_apply_no_cntl_ka },
	{ "no-udp-offload", L(OPT_ID_NO_UDP_OFFLOAD), NO, 1,
	    OPT_ID_NO_UDP_OFFLOAD, B, 1, opt_apply_no_udp_offload },
	{ "rr", L(OPT_ID_RR), NO, OPT_HAVE_RR, OPT_ID_RR, C, 1, opt_apply_rr },
	{ "rr-response", L(OPT_ID_RR_RESPONSE), REQ, OPT_HAVE_RR,
	    OPT_ID_RR_RESPONSE, C,
	    1, opt_apply_rr_response },
	{ "latency", L(OPT_ID_LATENCY), NO, 1, OPT_ID_LATENCY, C, 1,
	    opt_apply_latency },
#ifdef HAVE_OWD
	{ "owd", L(OPT_ID_OWD), NO, 1, OPT_ID_OWD, C, 1, opt_apply_owd },
#endif
#ifdef HAVE_RPM
	{ "rpm", L(OPT_ID_RPM), NO, 1, OPT_ID_RPM, C, 1, opt_apply_rpm },
#endif
#ifdef HAVE_MULTICAST
	{ "multicast", L(OPT_ID_MULTICAST), REQ, 1, OPT_ID_MULTICAST, C, 1,
	    opt_apply_multicast },
	{ "ttl", L(OPT_ID_TTL), REQ, 1, OPT_ID_TTL, C, 1, opt_apply_ttl },
	{ "ssm-source", L(OPT_ID_SSM_SOURCE), REQ, 1, OPT_ID_SSM_SOURCE, C, 1,
	    opt_apply_ssm_source },
	{ "multicast-allow", L(OPT_ID_MULTICAST_ALLOW), REQ, 1,
	    OPT_ID_MULTICAST_ALLOW, S, 1, opt_apply_multicast_allow },
	{ "multicast-listen", L(OPT_ID_MULTICAST_LISTEN), REQ, 1,
	    OPT_ID_MULTICAST_LISTEN, S, 1, opt_apply_multicast_listen },
#endif
#ifdef HAVE_ISOCHRONOUS
	{ "isochronous", L(OPT_ID_ISOCHRONOUS), OPT, 1, OPT_ID_ISOCHRONOUS, C, 1,
	    opt_apply_isochronous },
#endif
	{ "csv", L(OPT_ID_CSV), NO, OPT_HAVE_CSV, OPT_ID_CSV, B, 1, opt_apply_csv },
	{ "plot", L(OPT_ID_PLOT), REQ, OPT_HAVE_PLOT, OPT_ID_PLOT, B, 1,
	    opt_apply_plot },
	{ "metrics", L(OPT_ID_METRICS), REQ, OPT_HAVE_METRICS, OPT_ID_METRICS, B, 1,
	    opt_apply_metrics },
	{ "max-tests", L(OPT_ID_MAX_TESTS), REQ, 1, OPT_ID_MAX_TESTS, S, 1,
	    opt_apply_max_tests },
	{ "max-tests-per-ip", L(OPT_ID_MAX_TESTS_PER_IP), REQ, 1,
	    OPT_ID_MAX_TESTS_PER_IP, S, 1, opt_apply_max_tests_per_ip },
	/* Deprecated no-op (fq-rate stays 0): nothing left to implement. */
	{ "no-fq-socket-pacing", L(OPT_ID_NO_FQ_SOCKET_PACING), NO, 1,
	    OPT_ID_NO_FQ_SOCKET_PACING, C, 1, opt_apply_no_fq_socket_pacing },
	{ "skip-rx-copy", L(OPT_ID_SKIP_RX_COPY), NO, OPT_HAVE_MSG_TRUNC,
	    OPT_ID_SKIP_RX_COPY, C, 1, opt_apply_skip_rx_copy },
	{ "mptcp", 'm', NO, OPT_HAVE_MPTCP, OPT_ID_MPTCP, B, 1, opt_apply_mptcp },
	{ "server-max-duration", L(OPT_ID_SERVER_MAX_DURATION), REQ, 1,
	    OPT_ID_SERVER_MAX_DURATION, S, 1, opt_apply_server_max_duration },
#ifdef HAVE_OPERATOR /* the operator's server (--disable-operator) */
	{ "allow", L(OPT_ID_ALLOW), REQ, 1, OPT_ID_ALLOW, S, 1, opt_apply_allow },
	{ "deny", L(OPT_ID_DENY), REQ, 1, OPT_ID_DENY, S, 1, opt_apply_deny },
	{ "allow-file", L(OPT_ID_ALLOW_FILE), REQ, 1, OPT_ID_ALLOW_FILE, S, 1,
	    opt_apply_allow_file },
	{ "max-tests-per-prefix", L(OPT_ID_MAX_TESTS_PER_PREFIX), REQ, 1,
	    OPT_ID_MAX_TESTS_PER_PREFIX, S, 1, opt_apply_max_tests_per_prefix },
	{ "accept-rate", L(OPT_ID_ACCEPT_RATE), REQ, 1, OPT_ID_ACCEPT_RATE, S, 1,
	    opt_apply_accept_rate },
	{ "audit-log", L(OPT_ID_AUDIT_LOG), REQ, 1, OPT_ID_AUDIT_LOG, S, 1,
	    opt_apply_audit_log },
	{ "metrics-listen", L(OPT_ID_METRICS_LISTEN), REQ, 1,
	    OPT_ID_METRICS_LISTEN, S, 1, opt_apply_metrics_listen },
	{ "server-max-bytes", L(OPT_ID_SERVER_MAX_BYTES), REQ, 1,
	    OPT_ID_SERVER_MAX_BYTES, S, 1, opt_apply_server_max_bytes },
	{ "server-max-streams", L(OPT_ID_SERVER_MAX_STREAMS), REQ, 1,
	    OPT_ID_SERVER_MAX_STREAMS, S, 1, opt_apply_server_max_streams },
	{ "no-clamp", L(OPT_ID_NO_CLAMP), NO, 1, OPT_ID_NO_CLAMP, C, 1,
	    opt_apply_no_clamp },
#endif
#if defined(HAVE_EXPORTER) || defined(HAVE_EXPORTER_STUB)
	/* The exporter (without libmicrohttpd the row stays, and its apply
	 * function says the build has no exporter; --disable-exporter leaves
	 * it out). */
	{ "exporter", L(OPT_ID_EXPORTER), REQ, 1, OPT_ID_EXPORTER, E, 1,
	    opt_apply_exporter },
#endif
#ifdef HAVE_EXPORTER
	{ "exporter-allow", L(OPT_ID_EXPORTER_ALLOW), REQ, 1,
	    OPT_ID_EXPORTER_ALLOW, E, 1, opt_apply_exporter_allow },
	{ "exporter-max-period", L(OPT_ID_EXPORTER_MAX_PERIOD), REQ, 1,
	    OPT_ID_EXPORTER_MAX_PERIOD, E, 1, opt_apply_exporter_max_period },
	{ "exporter-max-bitrate", L(OPT_ID_EXPORTER_MAX_BITRATE), REQ, 1,
	    OPT_ID_EXPORTER_MAX_BITRATE, E, 1, opt_apply_exporter_max_bitrate },
	{ "exporter-max-probes", L(OPT_ID_EXPORTER_MAX_PROBES), REQ, 1,
	    OPT_ID_EXPORTER_MAX_PROBES, E, 1, opt_apply_exporter_max_probes },
#endif
	{ "debug", 'd', OPT, 1, OPT_ID_DEBUG, B | E, 1, opt_apply_debug },
	{ "help", 'h', NO, 1, OPT_ID_HELP, B | E, 1, opt_apply_help },
};
const size_t options_table_len = sizeof(options_table) /
    sizeof(options_table[0]);
_Static_assert(sizeof(options_table) / sizeof(options_table[0]) <=
    OPTIONS_TABLE_MAX, "OPTIONS_TABLE_MAX is below the table's rows");

#undef NO
#undef REQ
#undef OPT
#undef C
#undef S
#undef B
#undef E
#undef L
