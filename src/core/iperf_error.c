/* iperf_error.c - i_errno, error texts (table driven), iperf_fail(). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "iperf.h"
#include "iperf_error.h"
#include "net.h"
#include "util.h"
#include "banned.h"

/* The process-wide compatibility error code (updated at API boundaries). */
int i_errno;

/* The text of the latest iperf_fail_arg() in this thread, so that
 * iperf_strerror(IEUNITVAL) can quote it as upstream does. */
static _Thread_local char last_arg[128];

void
error_publish(int code)
{
	__atomic_store_n(&i_errno, code, __ATOMIC_RELAXED);
}

/* Upstream's pointer to the text of the latest IEUNITVAL (it points into
 * the buffer of the thread that failed). */
const char *errarg;

/* Suffixes: ": " and then strerror(errno) if errno != 0 (SFX_ALWAYS); the
 * same, or gai_strerror() of a pending resolver error (SFX_GAI). */
#define SFX_NONE 0
#define SFX_ALWAYS 1
#define SFX_GAI 2

struct error_text {
	int code;
	int suffix;
	const char *text;
};

static const struct error_text error_texts[] = {
	{ IENONE, SFX_NONE, "no error" },
	{ IESERVCLIENT, SFX_NONE, "cannot be both server and client" },
	{ IENOROLE, SFX_NONE, "must either be a client (-c) or server (-s)" },
	{ IESERVERONLY, SFX_NONE, "some option you are trying to set is server only" },
	{ IECLIENTONLY, SFX_NONE, "some option you are trying to set is client only" },
	{ IEDURATION, SFX_NONE, "test duration valid values are 0 to 86400 seconds" },
	{ IENUMSTREAMS, SFX_NONE, "number of parallel streams too large (maximum = 128)" },
	{ IEBLOCKSIZE, SFX_NONE, "block size too large (maximum = 1048576 bytes)" },
	{ IEBUFSIZE, SFX_NONE, "socket buffer size too large (maximum = 536870912 bytes)" },
	{ IEINTERVAL, SFX_NONE, "invalid report interval (min = 0.1, max = 60 seconds)" },
	{ IEMSS, SFX_NONE, "TCP MSS too large (maximum = 32767 bytes)" },
	{ IENOSENDFILE, SFX_NONE, "this OS does not support sendfile" },
	{ IEOMIT, SFX_NONE, "bogus value for --omit (maximum = 600 seconds)" },
	{ IEUNIMP, SFX_NONE, "an option you are trying to set is not implemented yet" },
	{ IEFILE, SFX_ALWAYS, "unable to open -F file" },
	{ IEBURST, SFX_NONE, "invalid burst count (maximum = 1000)" },
	{ IEENDCONDITIONS, SFX_NONE, "only one test end condition (-t, -n, -k) may be specified" },
	{ IELOGFILE, SFX_ALWAYS, "unable to open log file" },
	{ IENOSCTP, SFX_NONE, "no SCTP support available" },
	{ IEBIND, SFX_NONE, "--bind must be specified to use --cport" },
	{ IEUDPBLOCKSIZE, SFX_NONE, "block size invalid (minimum = 16 bytes, maximum = 65507 bytes)" },
	{ IEBADTOS, SFX_NONE, "bad TOS value (must be between 0 and 255 inclusive)" },
	{ IESETCLIENTAUTH, SFX_NONE, "you must specify a username, password, and path to a valid RSA public key" },
	{ IESETSERVERAUTH, SFX_NONE, "you must specify a path to a valid RSA private key and a user credential file" },
	{ IEBADFORMAT, SFX_NONE, "bad format specifier (valid formats are in the set [kmgtKMGT])" },
	{ IEREVERSEBIDIR, SFX_NONE, "cannot be both reverse and bidirectional" },
	{ IEBADPORT, SFX_NONE, "port number must be between 1 and 65535 inclusive" },
	{ IETOTALRATE, SFX_NONE, "total required bandwidth is larger than server limit" },
	{ IETOTALINTERVAL, SFX_NONE, "invalid time interval for calculating average data rate" },
	{ IESKEWTHRESHOLD, SFX_NONE, "skew threshold must be a positive number" },
	{ IEIDLETIMEOUT, SFX_NONE, "idle timeout parameter is not positive or larger than allowed limit" },
	{ IERCVTIMEOUT, SFX_ALWAYS, "receive timeout value is incorrect or not in range" },
	{ IERVRSONLYRCVTIMEOUT, SFX_ALWAYS, "client receive timeout is valid only in receiving mode" },
	{ IESNDTIMEOUT, SFX_ALWAYS, "send timeout value is incorrect or not in range" },
	{ IEUDPFILETRANSFER, SFX_NONE, "cannot transfer file using UDP" },
	{ IESERVERAUTHUSERS, SFX_NONE, "cannot access authorized users file" },
	{ IECNTLKA, SFX_ALWAYS, "control connection Keepalive period should be larger than the full retry period (interval * count)" },
	{ IEMAXSERVERTESTDURATIONEXCEEDED, SFX_NONE, "client's requested duration exceeds the server's maximum permitted limit" },
	{ IENEWTEST, SFX_ALWAYS, "unable to create a new test" },
	{ IEINITTEST, SFX_ALWAYS, "test initialization failed" },
	{ IELISTEN, SFX_GAI, "unable to start listener for connections" },
	{ IECONNECT, SFX_GAI, "unable to connect to server - server may have stopped running or use a different port, firewall issue, etc." },
	{ IEACCEPT, SFX_GAI, "unable to accept connection from client" },
	{ IESENDCOOKIE, SFX_ALWAYS, "unable to send cookie to server" },
	{ IERECVCOOKIE, SFX_ALWAYS, "unable to receive cookie at server" },
	{ IECTRLWRITE, SFX_ALWAYS, "unable to write to the control socket" },
	{ IECTRLREAD, SFX_ALWAYS, "unable to read from the control socket" },
	{ IECTRLCLOSE, SFX_NONE, "control socket has closed unexpectedly" },
	{ IEMESSAGE, SFX_NONE, "received an unknown control message (ensure other side is iperf3 and not iperf)" },
	{ IESENDMESSAGE, SFX_ALWAYS, "unable to send control message - port may not be available, the other side may have stopped running, etc." },
	{ IERECVMESSAGE, SFX_ALWAYS, "unable to receive control message - port may not be available, the other side may have stopped running, etc." },
	{ IESENDPARAMS, SFX_ALWAYS, "unable to send parameters to server" },
	{ IERECVPARAMS, SFX_ALWAYS, "unable to receive parameters from client" },
	{ IEPACKAGERESULTS, SFX_ALWAYS, "unable to package results" },
	{ IESENDRESULTS, SFX_ALWAYS, "unable to send results" },
	{ IERECVRESULTS, SFX_ALWAYS, "unable to receive results" },
	{ IESELECT, SFX_ALWAYS, "select failed" },
	{ IECLIENTTERM, SFX_NONE, "the client has terminated" },
	{ IESERVERTERM, SFX_NONE, "the server has terminated" },
	{ IEACCESSDENIED, SFX_NONE, "the server is busy running a test. try again later" },
	{ IESETNODELAY, SFX_ALWAYS, "unable to set TCP/SCTP NODELAY" },
	{ IESETMSS, SFX_ALWAYS, "unable to set TCP/SCTP MSS" },
	{ IESETBUF, SFX_ALWAYS, "unable to set socket buffer size" },
	{ IESETTOS, SFX_ALWAYS, "unable to set IP TOS" },
	{ IESETCOS, SFX_ALWAYS, "unable to set IPv6 traffic class" },
	{ IESETFLOW, SFX_NONE, "unable to set IPv6 flow label" },
	{ IEREUSEADDR, SFX_ALWAYS, "unable to reuse address on socket" },
	{ IENONBLOCKING, SFX_ALWAYS, "unable to set socket to non-blocking" },
	{ IESETWINDOWSIZE, SFX_ALWAYS, "unable to set socket window size" },
	{ IEPROTOCOL, SFX_NONE, "protocol does not exist" },
	{ IEAFFINITY, SFX_ALWAYS, "unable to set CPU affinity" },
	{ IEDAEMON, SFX_ALWAYS, "unable to become a daemon" },
	{ IESETCONGESTION, SFX_NONE, "unable to set TCP_CONGESTION: Supplied congestion control algorithm not supported on this host" },
	{ IEPIDFILE, SFX_ALWAYS, "unable to write PID file" },
	{ IEV6ONLY, SFX_ALWAYS, "Unable to set/reset IPV6_V6ONLY" },
	{ IESETSCTPDISABLEFRAG, SFX_ALWAYS, "unable to set SCTP_DISABLE_FRAGMENTS" },
	{ IESETSCTPNSTREAM, SFX_ALWAYS, "unable to set SCTP_INIT num of SCTP streams\n" },
	{ IESETPACING, SFX_ALWAYS, "unable to set socket pacing" },
	{ IESETBUF2, SFX_NONE, "socket buffer size not set correctly" },
	{ IEAUTHTEST, SFX_NONE, "test authorization failed" },
	{ IEBINDDEV, SFX_NONE, "Unable to bind-to-device (check perror, maybe permissions?)" },
	{ IENOMSG, SFX_NONE, "idle timeout for receiving data" },
	{ IESETDONTFRAGMENT, SFX_NONE, "unable to set IP Do-Not-Fragment flag" },
	{ IEHOSTDEV, SFX_NONE, "host device name (ip%<dev>) is supported (and required) only for IPv6 link-local address" },
	{ IESETUSERTIMEOUT, SFX_ALWAYS, "unable to set TCP USER_TIMEOUT" },
	{ IEPTHREADCREATE, SFX_ALWAYS, "unable to create thread" },
	{ IEPTHREADCANCEL, SFX_ALWAYS, "unable to cancel thread" },
	{ IEPTHREADJOIN, SFX_ALWAYS, "unable to join thread" },
	{ IEPTHREADATTRINIT, SFX_ALWAYS, "unable to create thread attributes" },
	{ IEPTHREADATTRDESTROY, SFX_NONE, "unable to destroy thread attributes" },
	{ IESETCNTLKA, SFX_ALWAYS, "unable to set socket keepalive (SO_KEEPALIVE) option" },
	{ IESETCNTLKAKEEPIDLE, SFX_ALWAYS, "unable to set socket keepalive TCP period (TCP_KEEPIDLE) option" },
	{ IESETCNTLKAINTERVAL, SFX_ALWAYS, "unable to set/get socket keepalive TCP retry interval (TCP_KEEPINTVL) option" },
	{ IESETCNTLKACOUNT, SFX_ALWAYS, "unable to set/get socket keepalive TCP number of retries (TCP_KEEPCNT) option" },
	{ IEPTHREADSIGMASK, SFX_NONE, "unable to change mask of blocked signals" },
	{ IESERVERTESTDURATIONEXPIRED, SFX_ALWAYS, "server test duration expired" },
	{ IECREATESTREAM, SFX_GAI, "unable to create a new stream" },
	{ IEINITSTREAM, SFX_GAI, "unable to initialize stream" },
	{ IESTREAMLISTEN, SFX_GAI, "unable to start stream listener" },
	{ IESTREAMCONNECT, SFX_GAI, "unable to connect stream" },
	{ IESTREAMACCEPT, SFX_ALWAYS, "unable to accept stream connection" },
	{ IESTREAMWRITE, SFX_ALWAYS, "unable to write to stream socket" },
	{ IESTREAMREAD, SFX_ALWAYS, "unable to read from stream socket" },
	{ IESTREAMCLOSE, SFX_NONE, "stream socket has closed unexpectedly" },
	{ IESTREAMID, SFX_NONE, "stream has an invalid id" },
	{ IENEWTIMER, SFX_ALWAYS, "unable to create new timer" },
	{ IEUPDATETIMER, SFX_ALWAYS, "unable to update timer" },
	{ IEBADSTAGE, SFX_NONE, "stage function called in the wrong role or state of the test" },
	{ IEMAXTESTS, SFX_NONE, "the number of concurrent tests must be between 1 and 64" },
	{ IERRCONFLICT, SFX_NONE, "--rr cannot be used with this option" },
	{ IERRRESPONSE, SFX_NONE, "the --rr-response size must be between 1 byte and 1 MByte (UDP: 65507 bytes)" },
	{ IEOUTCONFLICT, SFX_NONE, "--csv cannot be used with -J or --json-stream" },
	{ IEOUTFILE, SFX_ALWAYS, "unable to write a --plot or --metrics file" },
	{ IEMAXTESTSPERIP, SFX_NONE, "the number of tests from one client address (--max-tests-per-ip) must be between 1 and 64" },
	{ IEPERIPNOMAX, SFX_NONE, "--max-tests-per-ip needs --max-tests (more than one test at once)" },
	{ IEOPTVALUE, SFX_NONE, "invalid value of an option" },
#ifdef HAVE_OPERATOR
	{ IESERVEROPT, SFX_NONE, "a server option cannot be used" },
#endif
#ifdef HAVE_EXPORTER
	{ IEEXPORTER, SFX_NONE, "an option cannot be used with --exporter" },
#endif
#if defined(HAVE_MULTICAST) || defined(HAVE_ISOCHRONOUS)
	{ IEMCAST, SFX_NONE, "invalid multicast option" },
	{ IEMCASTDENIED, SFX_NONE, "the server does not allow this multicast group (see its --multicast-allow); nothing was sent" },
	{ IEMCASTJOIN, SFX_ALWAYS, "unable to join the multicast group" },
	{ IEISO, SFX_NONE, "invalid --isochronous option" },
	{ IENOTCOMPATMC, SFX_NONE, "the server does not do --multicast or --isochronous (it is not iperf3-compat, or an older one); nothing was sent" },
#endif
#if defined(HAVE_OWD) && defined(HAVE_RPM)
	{ IENOTCOMPAT, SFX_NONE, "the server does not do --rr, --latency, --owd or --rpm (it is not iperf3-compat, or an older one); nothing was sent" },
#elif defined(HAVE_OWD)
	{ IENOTCOMPAT, SFX_NONE, "the server does not do --rr, --latency or --owd (it is not iperf3-compat, or an older one); nothing was sent" },
#elif defined(HAVE_RPM)
	{ IENOTCOMPAT, SFX_NONE, "the server does not do --rr, --latency or --rpm (it is not iperf3-compat, or an older one); nothing was sent" },
#else
	{ IENOTCOMPAT, SFX_NONE, "the server does not do --rr or --latency (it is not iperf3-compat, or an older one); nothing was sent" },
#endif
};

static const struct error_text *
find_text(int code)
{
	size_t i;

	for (i = 0; i < sizeof(error_texts) / sizeof(error_texts[0]); i++) {
		if (error_texts[i].code == code)
			return &error_texts[i];
	}
	return NULL;
}

void
iperf_error_format(const struct iperf_err_state *e, char *buf, size_t len)
{
	const struct error_text *et = find_text(e->code);
	size_t n;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (e->code == IEUNITVAL) {
		(void)snprintf(buf, len, "invalid unit value or suffix: '%s'",
		    e->arg);
		return;
	}
	if (e->code == IEOPTVALUE && e->arg[0] != '\0') {
		(void)snprintf(buf, len, "invalid value for %s", e->arg);
		return;
	}
	if ((e->code == IERRCONFLICT || e->code == IESERVEROPT
#ifdef HAVE_EXPORTER
	    || e->code == IEEXPORTER
#endif
#if defined(HAVE_MULTICAST) || defined(HAVE_ISOCHRONOUS)
	    || e->code == IEMCAST || e->code == IEISO ||
	    (e->code == IEMCASTJOIN && e->sys_errno == 0)
#endif
	    ) && e->arg[0] != '\0') {
		(void)snprintf(buf, len, "%s", e->arg);
		return;
	}
	if (e->code == IEOUTFILE && e->arg[0] != '\0') {
		(void)snprintf(buf, len, "unable to write the %s%s%s", e->arg,
		    e->sys_errno != 0 ? ": " : "",
		    e->sys_errno != 0 ? strerror(e->sys_errno) : "");
		return;
	}
	if (e->code == IEBINDDEVNOSUPPORT) {
		(void)snprintf(buf, len, "`%s` is not supported as system does not support bind to device",
		    e->arg);
		return;
	}
	if (et == NULL) {
		(void)snprintf(buf, len, "int_errno=%d: %s", e->code,
		    e->sys_errno != 0 ? strerror(e->sys_errno) : "");
		return;
	}
	str_copy(buf, et->text, len);
	if (et->suffix == SFX_NONE)
		return;
	n = strlen(buf);
	if (e->sys_errno != 0)
		(void)snprintf(buf + n, len - n, ": %s", strerror(e->sys_errno));
	else if (et->suffix == SFX_GAI && e->gai_error != 0)
		(void)snprintf(buf + n, len - n, ": %s",
		    gai_strerror(e->gai_error));
	else
		(void)snprintf(buf + n, len - n, ": ");
}

char *
iperf_strerror(int code)
{
	/* Upstream returns a static buffer; keep one per thread instead. */
	static _Thread_local char buf[256];
	struct iperf_err_state e;

	memset(&e, 0, sizeof(e));
	e.code = code;
	e.sys_errno = errno;
	str_copy(e.arg, last_arg, sizeof(e.arg));
	iperf_error_format(&e, buf, sizeof(buf));
	return buf;
}

int
iperf_fail(struct iperf_test *test, int code, int sys_errno)
{
	test->run.err.code = code;
	test->run.err.sys_errno = sys_errno;
	test->run.err.gai_error = 0;
	return -1;
}

void
iperf_err_clear(struct iperf_test *test)
{
	test->run.err.code = IENONE;
}

int
iperf_fail_gai(struct iperf_test *test, int code, int gai_error)
{
	test->run.err.code = code;
	test->run.err.sys_errno = 0;
	test->run.err.gai_error = gai_error;
	return -1;
}

int
iperf_fail_net(struct iperf_test *test, int code, int gai_error)
{
	/* As 3.21: the step that failed (connect, listen) with the reason
	 * ("No such device"), not IEBINDDEV. */
	if (gai_error == NET_ERR_BINDDEV)
		return iperf_fail(test, code, errno);
	if (gai_error == NET_ERR_FLOWLABEL)
		return iperf_fail(test, IESETFLOW, errno);
	if (gai_error != 0)
		return iperf_fail_gai(test, code, gai_error);
	return iperf_fail(test, code, errno);
}

int
iperf_fail_arg_errno(struct iperf_test *test, int code, const char *arg,
    int sys_errno)
{
	test->run.err.code = code;
	test->run.err.sys_errno = sys_errno;
	test->run.err.gai_error = 0;
	str_copy(test->run.err.arg, arg != NULL ? arg : "",
	    sizeof(test->run.err.arg));
	return -1;
}

int
iperf_fail_arg(struct iperf_test *test, int code, const char *arg)
{
	test->run.err.code = code;
	test->run.err.sys_errno = 0;
	test->run.err.gai_error = 0;
	str_copy(test->run.err.arg, arg != NULL ? arg : "", sizeof(test->run.err.arg));
	str_copy(last_arg, test->run.err.arg, sizeof(last_arg));
	__atomic_store_n(&errarg, (const char *)last_arg, __ATOMIC_RELAXED);
	return -1;
}
