/*
 * iperf_api.h - public C interface of libiperf (iperf3-compat).
 *
 * Source compatible with the libiperf API of iperf3 3.21: the same
 * function names and signatures, constants, OPT_* codes, state values and
 * error codes.  The test and stream structures are opaque.
 *
 * Differences from the upstream header, on purpose:
 *  - plain C99: no configure macros are tested, nothing is declared
 *    conditionally (the authentication setters and
 *    iperf_set_control_keepalive are always declared and always defined);
 *  - every name declared here is defined by the library, and the library
 *    exports nothing else (plus the variables i_errno and errarg);
 *  - iperf_get_test_extra_data and the other accessors that upstream
 *    exports without declaring them are declared here;
 *  - a few extensions, marked below, give each test its own error state
 *    and a way to stop a running test from another thread.
 *
 * Threads: one process may run several tests at the same time, one per
 * thread.  Each test keeps its own error (iperf_get_test_errno); i_errno
 * is a process-wide copy updated when a call fails.  See libiperf(3).
 */
#ifndef IPERF_API_H
#define IPERF_API_H

#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct iperf_test;
struct iperf_stream;
struct iperf_stream_result;
struct iperf_interval_results;
struct iperf_time;
struct protocol;

typedef uint_fast64_t iperf_size_t;

#if defined(__GNUC__)
#define IPERF_API_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define IPERF_API_NORETURN __attribute__((noreturn))
#else
#define IPERF_API_PRINTF(f, a)
#define IPERF_API_NORETURN
#endif

/* Protocol ids, as returned by iperf_get_test_protocol_id(). */
#define Ptcp SOCK_STREAM
#define Pudp SOCK_DGRAM
#define Psctp 12

#define DEFAULT_UDP_BLKSIZE 1460
#define DEFAULT_TCP_BLKSIZE (128 * 1024)
#define DEFAULT_SCTP_BLKSIZE (64 * 1024)
#define DEFAULT_PACING_TIMER 1000
#define DEFAULT_NO_MSG_RCVD_TIMEOUT 120000
#define MIN_NO_MSG_RCVD_TIMEOUT 100
#define WARN_STR_LEN 128

/* Codes of long-only command line options. */
#define OPT_SCTP 1
#define OPT_LOGFILE 2
#define OPT_GET_SERVER_OUTPUT 3
#define OPT_UDP_COUNTERS_64BIT 4
#define OPT_CLIENT_PORT 5
#define OPT_NUMSTREAMS 6
#define OPT_FORCEFLUSH 7
#define OPT_NO_FQ_SOCKET_PACING 9
#define OPT_FQ_RATE 10
#define OPT_DSCP 11
#define OPT_CLIENT_USERNAME 12
#define OPT_CLIENT_RSA_PUBLIC_KEY 13
#define OPT_SERVER_RSA_PRIVATE_KEY 14
#define OPT_SERVER_AUTHORIZED_USERS 15
#define OPT_PACING_TIMER 16
#define OPT_CONNECT_TIMEOUT 17
#define OPT_REPEATING_PAYLOAD 18
#define OPT_EXTRA_DATA 19
#define OPT_BIDIRECTIONAL 20
#define OPT_SERVER_BITRATE_LIMIT 21
#define OPT_TIMESTAMPS 22
#define OPT_SERVER_SKEW_THRESHOLD 23
#define OPT_BIND_DEV 24
#define OPT_IDLE_TIMEOUT 25
#define OPT_DONT_FRAGMENT 26
#define OPT_RCV_TIMEOUT 27
#define OPT_JSON_STREAM 28
#define OPT_SND_TIMEOUT 29
#define OPT_USE_PKCS1_PADDING 30
#define OPT_CNTL_KA 31
#define OPT_SKIP_RX_COPY 32
#define OPT_JSON_STREAM_FULL_OUTPUT 33
#define OPT_SERVER_MAX_DURATION 34
#define OPT_GSRO 35

/* Test states; also the control-channel byte values. */
#define TEST_START 1
#define TEST_RUNNING 2
#define RESULT_REQUEST 3
#define TEST_END 4
#define STREAM_BEGIN 5
#define STREAM_RUNNING 6
#define STREAM_END 7
#define ALL_STREAMS_END 8
#define PARAM_EXCHANGE 9
#define CREATE_STREAMS 10
#define SERVER_TERMINATE 11
#define CLIENT_TERMINATE 12
#define EXCHANGE_RESULTS 13
#define DISPLAY_RESULTS 14
#define IPERF_START 15
#define IPERF_DONE 16
#define ACCESS_DENIED (-1)
#define SERVER_ERROR (-2)

/* ---- construct, configure, destroy ------------------------------------ */

struct iperf_test *iperf_new_test(void);
int iperf_defaults(struct iperf_test *test);
void iperf_free_test(struct iperf_test *test);
void iperf_reset_test(struct iperf_test *test);
void iperf_reset_stats(struct iperf_test *test);
/*
 * The iperf3 command line.  Like upstream it prints and calls exit() for
 * -h, -v and getopt errors; it uses getopt_long(), whose state is
 * process-wide, so concurrent calls are serialised by the library.
 */
int iperf_parse_arguments(struct iperf_test *test, int argc, char **argv);
int iperf_init_test(struct iperf_test *test);
int iperf_open_logfile(struct iperf_test *test);
void iperf_close_logfile(struct iperf_test *test);
void usage(void);
void usage_long(FILE *f);
void warning(const char *msg);

/* ---- run ---------------------------------------------------------------- */

int iperf_run_client(struct iperf_test *test);
int iperf_run_server(struct iperf_test *test);
int iperf_server_listen(struct iperf_test *test);
int iperf_set_send_state(struct iperf_test *test, signed char state);
int iperf_init_stream(struct iperf_stream *sp, struct iperf_test *test);
int iperf_send_mt(struct iperf_stream *sp);
int iperf_recv_mt(struct iperf_stream *sp);
int iperf_create_send_timers(struct iperf_test *test);
void iperf_check_throttle(struct iperf_stream *sp, struct iperf_time *now);
void iperf_check_total_rate(struct iperf_test *test, iperf_size_t bytes);
/*
 * Upstream's client and server stages (libiperf(3), STAGE FUNCTIONS).
 * Each runs the test's own event loop until its step is done, handling
 * the peer's control messages through the same state machine as
 * iperf_run_client()/iperf_run_server().  A call that waits for the peer
 * handles exactly one control message (with the JSON or error integers
 * that belong to it) and returns once the test waits for the peer's next
 * message and nothing else.  0, or -1 with i_errno set: IEBADSTAGE when
 * the call does not fit the test's role or state (nothing is changed),
 * else the reason the test ended.
 *   client: iperf_connect(); then iperf_handle_message_client() until
 *           iperf_get_test_state() is IPERF_DONE; iperf_client_end().
 *   server: iperf_server_listen() (optional); iperf_accept(); then
 *           iperf_handle_message_server() until IPERF_DONE; then
 *           iperf_reset_test() before the next iperf_accept().
 */
int iperf_connect(struct iperf_test *test);
int iperf_create_streams(struct iperf_test *test, int sender);
int iperf_handle_message_client(struct iperf_test *test);
int iperf_client_end(struct iperf_test *test);
int iperf_accept(struct iperf_test *test);
int iperf_handle_message_server(struct iperf_test *test);
int iperf_exchange_parameters(struct iperf_test *test);
int iperf_exchange_results(struct iperf_test *test);
/*
 * -I/--pidfile: write this process's pid (decimal, no newline) to the file,
 * and remove it again (only if this process wrote it).  Both return 0, or
 * -1 with i_errno = IEPIDFILE; when the file already names another live
 * process, errno is EEXIST ("Another instance of iperf3 appears to be
 * running") and the file is left alone.
 */
int iperf_create_pidfile(struct iperf_test *test);
int iperf_delete_pidfile(struct iperf_test *test);
/* Install handler for SIGINT, SIGTERM and SIGHUP (process-wide). */
void iperf_catch_sigend(void (*handler)(int));
/*
 * Upstream prints the results and exits.  Here: stop the test as the
 * signal would (iperf_test_interrupt); the running iperf_run_client() or
 * iperf_run_server() reports and returns.  It returns to the caller.
 */
void iperf_got_sigend(struct iperf_test *test, int sig);
int iperf_setaffinity(struct iperf_test *test, int affinity);
int iperf_clearaffinity(struct iperf_test *test);

/* ---- getters ------------------------------------------------------------ */

int iperf_get_verbose(struct iperf_test *test);
int iperf_get_control_socket(struct iperf_test *test);
int iperf_get_control_socket_mss(struct iperf_test *test);
int iperf_get_test_omit(struct iperf_test *test);
int iperf_get_test_duration(struct iperf_test *test);
char iperf_get_test_role(struct iperf_test *test);
int iperf_get_test_reverse(struct iperf_test *test);
int iperf_get_test_bidirectional(struct iperf_test *test);
int iperf_get_test_blksize(struct iperf_test *test);
FILE *iperf_get_test_outfile(struct iperf_test *test);
uint64_t iperf_get_test_rate(struct iperf_test *test);
uint64_t iperf_get_test_fqrate(struct iperf_test *test);
int iperf_get_test_pacing_timer(struct iperf_test *test);
uint64_t iperf_get_test_bytes(struct iperf_test *test);
uint64_t iperf_get_test_blocks(struct iperf_test *test);
int iperf_get_test_burst(struct iperf_test *test);
int iperf_get_test_socket_bufsize(struct iperf_test *test);
double iperf_get_test_reporter_interval(struct iperf_test *test);
double iperf_get_test_stats_interval(struct iperf_test *test);
int iperf_get_test_num_streams(struct iperf_test *test);
int iperf_get_test_repeating_payload(struct iperf_test *test);
int iperf_get_test_timestamps(struct iperf_test *test);
const char *iperf_get_test_timestamp_format(struct iperf_test *test);
int iperf_get_test_bind_port(struct iperf_test *test);
int iperf_get_test_server_port(struct iperf_test *test);
char *iperf_get_test_server_hostname(struct iperf_test *test);
char *iperf_get_test_template(struct iperf_test *test);
int iperf_get_test_protocol_id(struct iperf_test *test);
int iperf_get_test_json_output(struct iperf_test *test);
char *iperf_get_test_json_output_string(struct iperf_test *test);
int iperf_get_test_json_stream(struct iperf_test *test);
int iperf_get_test_json_stream_full_output(struct iperf_test *test);
int iperf_get_test_zerocopy(struct iperf_test *test);
int iperf_get_test_get_server_output(struct iperf_test *test);
char iperf_get_test_unit_format(struct iperf_test *test);
char *iperf_get_test_bind_address(struct iperf_test *test);
char *iperf_get_test_bind_dev(struct iperf_test *test);
int iperf_get_test_udp_counters_64bit(struct iperf_test *test);
int iperf_get_test_one_off(struct iperf_test *test);
int iperf_get_test_tos(struct iperf_test *test);
char *iperf_get_test_extra_data(struct iperf_test *test);
char *iperf_get_iperf_version(void);
int iperf_get_test_no_delay(struct iperf_test *test);
int iperf_get_test_connect_timeout(struct iperf_test *test);
int iperf_get_dont_fragment(struct iperf_test *test);
char *iperf_get_test_congestion_control(struct iperf_test *test);
int iperf_get_test_mss(struct iperf_test *test);
int iperf_get_mapped_v4(struct iperf_test *test);
int iperf_get_test_idle_timeout(struct iperf_test *test);
int iperf_get_test_max_tests(struct iperf_test *test);        /* extension */
int iperf_get_test_max_tests_per_ip(struct iperf_test *test); /* extension */
/* --rcv-timeout in milliseconds. */
int iperf_get_test_rcv_timeout(struct iperf_test *test);
/* --server-bitrate-limit: bits/s, averaging interval in seconds, and the
 * number of samples taken per averaging interval. */
uint64_t iperf_get_test_bitrate_limit(struct iperf_test *test);
double iperf_get_test_bitrate_limit_interval(struct iperf_test *test);
int iperf_get_test_bitrate_limit_stats_per_interval(struct iperf_test *test);

/* ---- setters (strings are copied; the caller keeps its own) ------------- */

void iperf_set_verbose(struct iperf_test *test, int verbose);
void iperf_set_control_socket(struct iperf_test *test, int sock);
void iperf_set_test_omit(struct iperf_test *test, int omit);
void iperf_set_test_duration(struct iperf_test *test, int duration);
void iperf_set_test_reporter_interval(struct iperf_test *test, double interval);
void iperf_set_test_stats_interval(struct iperf_test *test, double interval);
void iperf_set_test_state(struct iperf_test *test, signed char state);
void iperf_set_test_blksize(struct iperf_test *test, int blksize);
void iperf_set_test_logfile(struct iperf_test *test, const char *logfile);
void iperf_set_test_rate(struct iperf_test *test, uint64_t rate);
void iperf_set_test_fqrate(struct iperf_test *test, uint64_t fqrate);
void iperf_set_test_pacing_timer(struct iperf_test *test, int pacing_timer);
void iperf_set_test_bytes(struct iperf_test *test, uint64_t bytes);
void iperf_set_test_blocks(struct iperf_test *test, uint64_t blocks);
void iperf_set_test_burst(struct iperf_test *test, int burst);
void iperf_set_test_bind_port(struct iperf_test *test, int port);
void iperf_set_test_server_port(struct iperf_test *test, int port);
void iperf_set_test_socket_bufsize(struct iperf_test *test, int bufsize);
void iperf_set_test_num_streams(struct iperf_test *test, int num_streams);
void iperf_set_test_repeating_payload(struct iperf_test *test, int repeating);
void iperf_set_test_timestamps(struct iperf_test *test, int timestamps);
void iperf_set_test_timestamp_format(struct iperf_test *test, const char *format);
void iperf_set_test_role(struct iperf_test *test, char role);
void iperf_set_test_server_hostname(struct iperf_test *test, const char *host);
void iperf_set_test_template(struct iperf_test *test, const char *tmpl);
void iperf_set_test_reverse(struct iperf_test *test, int reverse);
void iperf_set_test_json_output(struct iperf_test *test, int json_output);
void iperf_set_test_json_stream(struct iperf_test *test, int json_stream);
void iperf_set_test_json_stream_full_output(struct iperf_test *test, int full);
void iperf_set_test_zerocopy(struct iperf_test *test, int zerocopy);
void iperf_set_test_get_server_output(struct iperf_test *test, int get);
void iperf_set_test_unit_format(struct iperf_test *test, char unit_format);
void iperf_set_test_bind_address(struct iperf_test *test, const char *addr);
void iperf_set_test_bind_dev(struct iperf_test *test, const char *dev);
void iperf_set_test_udp_counters_64bit(struct iperf_test *test, int on);
void iperf_set_test_one_off(struct iperf_test *test, int one_off);
void iperf_set_test_tos(struct iperf_test *test, int tos);
void iperf_set_test_extra_data(struct iperf_test *test, const char *data);
void iperf_set_test_bidirectional(struct iperf_test *test, int bidir);
void iperf_set_test_no_delay(struct iperf_test *test, int no_delay);
void iperf_set_dont_fragment(struct iperf_test *test, int dont_fragment);
void iperf_set_test_congestion_control(struct iperf_test *test, char *cc);
void iperf_set_test_mss(struct iperf_test *test, int mss);
void iperf_set_mapped_v4(struct iperf_test *test, const int val);
void iperf_set_test_connect_timeout(struct iperf_test *test, int ct);
void iperf_set_test_idle_timeout(struct iperf_test *test, int seconds);
/* Extension: tests iperf_run_server() runs at once (--max-tests; 1, the
 * default, is stock behaviour) and of those at most per_ip from one client
 * address (--max-tests-per-ip; 0 = no limit).  -1 with IEMAXTESTS when n
 * is out of 1..64, with IEMAXTESTSPERIP when per_ip is out of 0..64. */
int iperf_set_test_max_tests(struct iperf_test *test, int n);
int iperf_set_test_max_tests_per_ip(struct iperf_test *test, int per_ip);
void iperf_set_test_rcv_timeout(struct iperf_test *test, int ms);
void iperf_set_test_bitrate_limit_maximum(struct iperf_test *test, uint64_t bps);
void iperf_set_test_bitrate_limit_interval(struct iperf_test *test, double seconds);
void iperf_set_test_bitrate_limit_stats_per_interval(struct iperf_test *test, int n);
int iperf_has_zerocopy(void);
int set_protocol(struct iperf_test *test, int prot_id);
struct protocol *get_protocol(struct iperf_test *test, int prot_id);

/* Authentication (without OpenSSL they record nothing and a test that
 * asks for authentication fails with IESETCLIENTAUTH/IESETSERVERAUTH). */
void iperf_set_test_client_username(struct iperf_test *test, const char *user);
void iperf_set_test_client_password(struct iperf_test *test, const char *pwd);
/* The PEM text of the key, base64-encoded. */
void iperf_set_test_client_rsa_pubkey(struct iperf_test *test, const char *b64);
void iperf_set_test_client_rsa_pubkey_from_file(struct iperf_test *test, const char *path);
void iperf_set_test_server_authorized_users(struct iperf_test *test, const char *path);
void iperf_set_test_server_skew_threshold(struct iperf_test *test, int seconds);
void iperf_set_test_server_rsa_privkey(struct iperf_test *test, const char *b64);
void iperf_set_test_server_rsa_privkey_from_file(struct iperf_test *test, const char *path);

/* ---- callbacks ---------------------------------------------------------- */

void iperf_set_on_new_stream_callback(struct iperf_test *test,
    void (*cb)(struct iperf_stream *));
void iperf_set_on_test_start_callback(struct iperf_test *test,
    void (*cb)(struct iperf_test *));
void iperf_set_on_test_connect_callback(struct iperf_test *test,
    void (*cb)(struct iperf_test *));
void iperf_set_on_test_finish_callback(struct iperf_test *test,
    void (*cb)(struct iperf_test *));
void iperf_set_test_json_callback(struct iperf_test *test,
    void (*cb)(struct iperf_test *, char *));
/* The defaults iperf_defaults() installs; a callback may chain to them. */
void iperf_on_new_stream(struct iperf_stream *sp);
void iperf_on_test_start(struct iperf_test *test);
void iperf_on_connect(struct iperf_test *test);
void iperf_on_test_finish(struct iperf_test *test);
void iperf_stats_callback(struct iperf_test *test);
void iperf_reporter_callback(struct iperf_test *test);

/* ---- output ------------------------------------------------------------- */

int iperf_json_start(struct iperf_test *test);
int iperf_json_finish(struct iperf_test *test);
int iperf_printf(struct iperf_test *test, const char *format, ...)
    IPERF_API_PRINTF(2, 3);
int iflush(struct iperf_test *test);

/* ---- errors ------------------------------------------------------------- */

char *iperf_strerror(int code);
void iperf_err(struct iperf_test *test, const char *format, ...)
    IPERF_API_PRINTF(2, 3);
/* These three end the process (exit status 1, 0, code), as upstream;
 * nothing in the library calls them. */
void iperf_errexit(struct iperf_test *test, const char *format, ...)
    IPERF_API_PRINTF(2, 3) IPERF_API_NORETURN;
void iperf_signormalexit(struct iperf_test *test, const char *format, ...)
    IPERF_API_PRINTF(2, 3) IPERF_API_NORETURN;
void iperf_exit(struct iperf_test *test, int exit_code, const char *format,
    va_list argp) IPERF_API_PRINTF(3, 0) IPERF_API_NORETURN;

/* ---- streams and low level ---------------------------------------------- */

struct iperf_stream *iperf_new_stream(struct iperf_test *test, int sock,
    int sender);
void iperf_add_stream(struct iperf_test *test, struct iperf_stream *sp);
void iperf_free_stream(struct iperf_stream *sp);
int iperf_common_sockopts(struct iperf_test *test, int s);
int iperf_set_control_keepalive(struct iperf_test *test);
void connect_msg(struct iperf_stream *sp);
int has_tcpinfo(void);
int has_tcpinfo_retransmits(void);
/*
 * Interval records: no function of this library hands one out, so these
 * exist for programs linked against upstream.  save_tcpinfo and
 * add_to_interval_list do nothing; the get_* return -1.
 */
void add_to_interval_list(struct iperf_stream_result *rp,
    struct iperf_interval_results *irp);
void save_tcpinfo(struct iperf_stream *sp, struct iperf_interval_results *irp);
long get_total_retransmits(struct iperf_interval_results *irp);
long get_snd_cwnd(struct iperf_interval_results *irp);
long get_snd_wnd(struct iperf_interval_results *irp);
long get_rtt(struct iperf_interval_results *irp);
long get_rttvar(struct iperf_interval_results *irp);
long get_pmtu(struct iperf_interval_results *irp);
long get_reorder(struct iperf_interval_results *irp);

/* 3.12 exports that 3.21 dropped, kept so old binaries still resolve.
 * iperf_send/iperf_recv move one unpaced block on each sending/receiving
 * stream whose socket is in the set (cleared from it), counted as the
 * streams' threads count; -1 with IEBADSTAGE while those threads run.
 * build_tcpinfo_message writes an empty string. */
int iperf_send(struct iperf_test *test, fd_set *write_setP);
int iperf_recv(struct iperf_test *test, fd_set *read_setP);
void build_tcpinfo_message(struct iperf_interval_results *r, char *message);

/* ---- extensions (not in upstream 3.21) ---------------------------------- */

/*
 * Ask a running test to stop as SIGINT would (sig is the signal number
 * reported, or 0).  Async-signal-safe, and callable from any thread.
 */
void iperf_test_interrupt(struct iperf_test *test, int sig);
/* The signal given to iperf_test_interrupt()/iperf_got_sigend(), or 0. */
int iperf_get_test_interrupt_signal(struct iperf_test *test);
/* This test's last error code (0 if none): per test, unlike i_errno. */
int iperf_get_test_errno(struct iperf_test *test);
/* The text of this test's last error, with its errno suffix; owned by
 * the test, valid until the next call on it. */
const char *iperf_get_test_error_string(struct iperf_test *test);
/* -D/--daemon was given (the iperf3 program calls daemon() itself). */
int iperf_get_test_daemon(struct iperf_test *test);
/* The test's control state (TEST_START ... IPERF_DONE, 0 before any):
 * what a program driving the stage functions loops on. */
signed char iperf_get_test_state(struct iperf_test *test);

/*
 * The process-wide compatibility error: set to the test's error code when
 * a call fails (and cleared by iperf_new_test/iperf_reset_test).  With
 * several threads it holds whichever failure came last; use
 * iperf_get_test_errno() there.  errarg is the offending text of the
 * latest IEUNITVAL, owned by the thread that set it.
 */
extern int i_errno;
extern const char *errarg;

enum {
	IENONE = 0,
	IESERVCLIENT = 1,
	IENOROLE = 2,
	IESERVERONLY = 3,
	IECLIENTONLY = 4,
	IEDURATION = 5,
	IENUMSTREAMS = 6,
	IEBLOCKSIZE = 7,
	IEBUFSIZE = 8,
	IEINTERVAL = 9,
	IEMSS = 10,
	IENOSENDFILE = 11,
	IEOMIT = 12,
	IEUNIMP = 13,
	IEFILE = 14,
	IEBURST = 15,
	IEENDCONDITIONS = 16,
	IELOGFILE = 17,
	IENOSCTP = 18,
	IEBIND = 19,
	IEUDPBLOCKSIZE = 20,
	IEBADTOS = 21,
	IESETCLIENTAUTH = 22,
	IESETSERVERAUTH = 23,
	IEBADFORMAT = 24,
	IEREVERSEBIDIR = 25,
	IEBADPORT = 26,
	IETOTALRATE = 27,
	IETOTALINTERVAL = 28,
	IESKEWTHRESHOLD = 29,
	IEIDLETIMEOUT = 30,
	IERCVTIMEOUT = 31,
	IERVRSONLYRCVTIMEOUT = 32,
	IESNDTIMEOUT = 33,
	IEUDPFILETRANSFER = 34,
	IESERVERAUTHUSERS = 35,
	IECNTLKA = 36,
	IEMAXSERVERTESTDURATIONEXCEEDED = 37,
	IEUNITVAL = 38,
	IENEWTEST = 100,
	IEINITTEST = 101,
	IELISTEN = 102,
	IECONNECT = 103,
	IEACCEPT = 104,
	IESENDCOOKIE = 105,
	IERECVCOOKIE = 106,
	IECTRLWRITE = 107,
	IECTRLREAD = 108,
	IECTRLCLOSE = 109,
	IEMESSAGE = 110,
	IESENDMESSAGE = 111,
	IERECVMESSAGE = 112,
	IESENDPARAMS = 113,
	IERECVPARAMS = 114,
	IEPACKAGERESULTS = 115,
	IESENDRESULTS = 116,
	IERECVRESULTS = 117,
	IESELECT = 118,
	IECLIENTTERM = 119,
	IESERVERTERM = 120,
	IEACCESSDENIED = 121,
	IESETNODELAY = 122,
	IESETMSS = 123,
	IESETBUF = 124,
	IESETTOS = 125,
	IESETCOS = 126,
	IESETFLOW = 127,
	IEREUSEADDR = 128,
	IENONBLOCKING = 129,
	IESETWINDOWSIZE = 130,
	IEPROTOCOL = 131,
	IEAFFINITY = 132,
	IEDAEMON = 133,
	IESETCONGESTION = 134,
	IEPIDFILE = 135,
	IEV6ONLY = 136,
	IESETSCTPDISABLEFRAG = 137,
	IESETSCTPNSTREAM = 138,
	IESETSCTPBINDX = 139,
	IESETPACING = 140,
	IESETBUF2 = 141,
	IEAUTHTEST = 142,
	IEBINDDEV = 143,
	IENOMSG = 144,
	IESETDONTFRAGMENT = 145,
	IEBINDDEVNOSUPPORT = 146,
	IEHOSTDEV = 147,
	IESETUSERTIMEOUT = 148,
	IEPTHREADCREATE = 150,
	IEPTHREADCANCEL = 151,
	IEPTHREADJOIN = 152,
	IEPTHREADATTRINIT = 153,
	IEPTHREADATTRDESTROY = 154,
	IESETCNTLKA = 155,
	IESETCNTLKAKEEPIDLE = 156,
	IESETCNTLKAINTERVAL = 157,
	IESETCNTLKACOUNT = 158,
	IEPTHREADSIGMASK = 159,
	IESERVERTESTDURATIONEXPIRED = 160,
	IECREATESTREAM = 200,
	IEINITSTREAM = 201,
	IESTREAMLISTEN = 202,
	IESTREAMCONNECT = 203,
	IESTREAMACCEPT = 204,
	IESTREAMWRITE = 205,
	IESTREAMREAD = 206,
	IESTREAMCLOSE = 207,
	IESTREAMID = 208,
	IENEWTIMER = 300,
	IEUPDATETIMER = 301,
	/* extension: a stage function called in the wrong role or state */
	IEBADSTAGE = 400,
	/* extension: --max-tests / --max-tests-per-ip out of range */
	IEMAXTESTS = 401,
	/* extension: --rr or --latency, and the server is a stock iperf3 */
	IENOTCOMPAT = 402,
	/* extension: --rr combined with an option it cannot honour */
	IERRCONFLICT = 403,
	/* extension: --rr-response out of range */
	IERRRESPONSE = 404,
	/* extension: --csv with -J or --json-stream */
	IEOUTCONFLICT = 405,
	/* extension: a --plot or --metrics file could not be written */
	IEOUTFILE = 406,
	/* extension: --max-tests-per-ip out of range */
	IEMAXTESTSPERIP = 407,
	/* extension: --max-tests-per-ip without --max-tests */
	IEPERIPNOMAX = 408,
	/* extension: a value of an option of ours that is not a number */
	IEOPTVALUE = 409,
	/* extension: an operator's server option that cannot be used (a
	 * malformed CIDR, an unreadable --allow-file, a port range on a
	 * client, --metrics-listen without HTTP support...) */
	IESERVEROPT = 410,
	/* extension: --exporter with -s or -c, or with an option it does
	 * not take */
	IEEXPORTER = 411,
	/* extension: --multicast, --ttl, --ssm-source, --multicast-listen or
	 * --multicast-allow given a value or a combination they cannot take */
	IEMCAST = 412,
	/* extension: the server does not allow the group (its
	 * --multicast-allow) */
	IEMCASTDENIED = 413,
	/* extension: the group could not be joined (no route, no
	 * interface...) */
	IEMCASTJOIN = 414,
	/* extension: --isochronous given a value or a combination it cannot
	 * take */
	IEISO = 415,
	/* extension: --multicast or --isochronous, and the server is a
	 * stock iperf3 (or ours without them) */
	IENOTCOMPATMC = 416
};

#ifdef __cplusplus
}
#endif

#endif /* IPERF_API_H */
