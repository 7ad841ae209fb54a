/*
 * iperf_api.h - public C interface of libiperf (iperf3-compat).
 *
 * Source compatible with the iperf3 3.21 libiperf API: the same function
 * names, signatures, constants, state values and error codes.  Plain C99,
 * no configure macros.  The test and stream structures are opaque.
 */
#ifndef IPERF_API_H
#define IPERF_API_H

#include <sys/types.h>
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

/* Construct, configure, destroy. */
struct iperf_test *iperf_new_test(void);
int iperf_defaults(struct iperf_test *t);
void iperf_free_test(struct iperf_test *t);
void iperf_reset_test(struct iperf_test *t);
void iperf_reset_stats(struct iperf_test *t);
int iperf_parse_arguments(struct iperf_test *t, int argc, char **argv);
int iperf_open_logfile(struct iperf_test *t);
void iperf_close_logfile(struct iperf_test *t);
void usage(void);
void usage_long(FILE *f);
void warning(const char *msg);

/* Run. */
int iperf_run_client(struct iperf_test *t);
int iperf_run_server(struct iperf_test *t);
void iperf_catch_sigend(void (*handler)(int));
/*
 * -I/--pidfile: write this process's pid (decimal, no newline) to the file,
 * and remove it again (only if this process wrote it).  Both return 0, or
 * -1 with i_errno = IEPIDFILE; when the file already names another live
 * process, errno is EEXIST ("Another instance of iperf3 appears to be
 * running") and the file is left alone.
 */
int iperf_create_pidfile(struct iperf_test *t);
int iperf_delete_pidfile(struct iperf_test *t);

/* Getters. */
int iperf_get_verbose(struct iperf_test *t);
int iperf_get_control_socket(struct iperf_test *t);
int iperf_get_test_omit(struct iperf_test *t);
int iperf_get_test_duration(struct iperf_test *t);
char iperf_get_test_role(struct iperf_test *t);
int iperf_get_test_reverse(struct iperf_test *t);
int iperf_get_test_bidirectional(struct iperf_test *t);
int iperf_get_test_blksize(struct iperf_test *t);
FILE *iperf_get_test_outfile(struct iperf_test *t);
uint64_t iperf_get_test_rate(struct iperf_test *t);
uint64_t iperf_get_test_bytes(struct iperf_test *t);
uint64_t iperf_get_test_blocks(struct iperf_test *t);
int iperf_get_test_num_streams(struct iperf_test *t);
int iperf_get_test_server_port(struct iperf_test *t);
char *iperf_get_test_server_hostname(struct iperf_test *t);
int iperf_get_test_protocol_id(struct iperf_test *t);
int iperf_get_test_json_output(struct iperf_test *t);
char *iperf_get_test_json_output_string(struct iperf_test *t);
int iperf_get_test_one_off(struct iperf_test *t);
char *iperf_get_iperf_version(void);

/* Setters. */
void iperf_set_verbose(struct iperf_test *t, int verbose);
void iperf_set_test_role(struct iperf_test *t, char role);
void iperf_set_test_server_hostname(struct iperf_test *t, const char *host);
void iperf_set_test_server_port(struct iperf_test *t, int port);
void iperf_set_test_duration(struct iperf_test *t, int seconds);
void iperf_set_test_reverse(struct iperf_test *t, int reverse);
void iperf_set_test_bidirectional(struct iperf_test *t, int bidir);
void iperf_set_test_json_output(struct iperf_test *t, int json);
void iperf_set_test_one_off(struct iperf_test *t, int one_off);
void iperf_set_test_num_streams(struct iperf_test *t, int n);
void iperf_set_test_blksize(struct iperf_test *t, int blksize);
void iperf_set_test_omit(struct iperf_test *t, int omit);

/* Errors. */
char *iperf_strerror(int code);
void iperf_err(struct iperf_test *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * Extensions (not in upstream 3.21).
 *
 * iperf_test_interrupt: async-signal-safe and thread-safe; asks a running
 * test to stop as on SIGINT (sig is the signal number reported, or 0).
 * iperf_get_test_errno: the last error code of this test (per-test, unlike
 * the process-wide i_errno).
 * iperf_get_test_interrupt_signal: the signal passed to iperf_test_interrupt.
 */
void iperf_test_interrupt(struct iperf_test *t, int sig);
/* The text of this test's last error (owned by the test). */
const char *iperf_get_test_error_string(struct iperf_test *t);
int iperf_get_test_errno(struct iperf_test *t);
int iperf_get_test_interrupt_signal(struct iperf_test *t);
/* -D/--daemon was given (the CLI calls daemon() itself). */
int iperf_get_test_daemon(struct iperf_test *t);

extern int i_errno;

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
	IEUPDATETIMER = 301
};

#ifdef __cplusplus
}
#endif

#endif /* IPERF_API_H */
