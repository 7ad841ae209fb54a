/*
 * options_help.c - the short usage, the --help text, the -v lines and the
 * features list.
 *
 * The help lists the same options, in the same sections, order and column
 * layout as iperf3 3.21 (option column from column 3, descriptions from
 * column 29), with descriptions in our own words.  Lines of options that
 * need a compile-time feature appear only when it is present.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "iperf.h"
#include "options.h"
#include "options_int.h"
#include "util.h"
#include "banned.h"

/* One help line, shown when `shown` is nonzero. */
struct help_line {
	int shown;
	const char *text;
};

#define STR_(x) #x
#define STR(x) STR_(x)

static const char usage_short[] =
    "Usage: iperf3 [-s|-c host] [options]\n"
    "Try `iperf3 --help' for more information.\n";

static const struct help_line help_lines[] = {
	{ 1, "Usage: iperf3 [-s|-c host] [options]" },
	{ 1, "       iperf3 [-h|--help] [-v|--version]" },
	{ 1, "" },
	{ 1, "Server or Client:" },
	{ 1, "  -p, --port      #         port the server listens on / the client connects to" },
#ifdef HAVE_OPERATOR
	{ 1, "                            (a server may listen on a range: -p 5201-5210)" },
#endif
	{ 1, "  -f, --format   [kmgtKMGT] unit for rates in reports: Kbits, Mbits, Gbits, Tbits" },
	{ 1, "  -i, --interval  #         seconds between interval reports" },
	{ 1, "  -I, --pidfile file        write the process ID to this file" },
	{ 1, "  -F, --file name           send or receive this file instead of memory data" },
	{ OPT_HAVE_AFFINITY, "  -A, --affinity n[,m]      pin this process to CPU core n" },
	{ OPT_HAVE_AFFINITY, "                             (optional, client only: m is the core the server uses for this test)" },
	{ 1, "  -B, --bind <host>[%<dev>] bind to the interface that has the address <host>" },
	{ OPT_HAVE_BINDDEV, "                            (a %<dev> suffix does the same as `--bind-dev <dev>`)" },
	{ OPT_HAVE_BINDDEV, "  --bind-dev <dev>          bind to this network interface (SO_BINDTODEVICE)" },
	{ 1, "  -V, --verbose             print more details" },
	{ 1, "  -J, --json                print the results as JSON" },
	{ 1, "  --json-stream             print the results as JSON, one event per line" },
	{ 1, "  --json-stream-full-output also print the complete JSON at the end of a stream" },
	{ 1, "  --logfile f               write the output to this file" },
	{ 1, "  --forceflush              flush the output after every interval" },
	{ 1, "  --timestamps<=format>     start every output line with the time" },
	{ 1, "                            (optional \"=\" and a strftime(3) format)" },
	{ 1, "  --rcv-timeout #           give up when no data arrives for # ms (default " STR(DEFAULT_NO_MSG_RCVD_TIMEOUT) " ms)" },
	{ OPT_HAVE_USER_TIMEOUT, "  --snd-timeout #           limit for TCP data left unacknowledged (in ms);" },
	{ OPT_HAVE_USER_TIMEOUT, "                            default: " STR(IPERF_CTRL_USER_TIMEOUT_MS) " ms on the control connection only," },
	{ OPT_HAVE_USER_TIMEOUT, "                            0: the system setting (as stock iperf3)" },
	{ OPT_HAVE_KEEPALIVE, "  --cntl-ka[=#/#/#]         TCP keepalive on the control connection - KEEPIDLE/KEEPINTV/KEEPCNT" },
	{ OPT_HAVE_KEEPALIVE, "                            (each part may be left out to keep the system setting);" },
	{ OPT_HAVE_KEEPALIVE, "                            default: on, " STR(IPERF_CTRL_KA_IDLE_S) "/" STR(IPERF_CTRL_KA_INTVL_S) "/" STR(IPERF_CTRL_KA_CNT) },
	{ OPT_HAVE_KEEPALIVE, "  --no-cntl-ka              no keepalive on the control connection (as stock iperf3)" },
	{ OPT_HAVE_MPTCP, "  -m, --mptcp               use MPTCP instead of plain TCP" },
	{ 1, "  -d, --debug[=#]           print debugging output" },
	{ 1, "                            (optional \"=\" and a level 1-4; without it 4, everything)" },
	{ 1, "  -v, --version             print version information and exit" },
	{ 1, "  -h, --help                print this help and exit" },
	{ 1, "Server specific:" },
	{ 1, "  -s, --server              run as a server" },
	{ 1, "  -D, --daemon              run the server in the background" },
	{ 1, "  -1, --one-off             serve a single client, then exit" },
	{ 1, "  --server-bitrate-limit #[KMG][/#]   total bit rate the server allows (default 0 = no limit)" },
	{ 1, "                            (optional slash and the number of seconds the rate is" },
	{ 1, "                            averaged over; 5 seconds by default)" },
	{ 1, "  --idle-timeout #          restart a server that has been idle for # seconds" },
	{ 1, "                            (default: never)" },
	{ 1, "  --max-tests #             run up to # tests at once (default 1, as stock;" },
	{ 1, "                            more: every output line starts [T<n>])" },
	{ 1, "  --max-tests-per-ip #      of those, at most # from one client address" },
	{ 1, "  --server-max-duration #   longest test, in seconds, that the server will run" },
#ifdef HAVE_OPERATOR
	{ 1, "  --server-max-bytes #[KMGT]  most bytes a test may move (both directions added)" },
	{ 1, "  --server-max-streams #    most streams a test may have (-P x 2 with --bidir)" },
	{ 1, "                            (an iperf3-compat client has its test clamped to" },
	{ 1, "                            these caps and -b to the bitrate limit; a stock" },
	{ 1, "                            client is refused, as 3.21 refuses it)" },
	{ 1, "  --allow <cidr>            serve only clients from this network (repeatable);" },
	{ 1, "  --deny <cidr>             never serve clients from it (repeatable, wins over --allow)" },
	{ 1, "  --allow-file <file>       more of both from a file (one CIDR or `deny CIDR` a line," },
	{ 1, "                            # comments), read again on SIGHUP" },
	{ 1, "  --max-tests-per-prefix #  at most # tests from one /24 (IPv4) or /64 (IPv6)" },
	{ 1, "  --accept-rate #[/#][:#]   new connections a source may open: # per [# seconds]," },
	{ 1, "                            [: in a burst]; beyond, the answer is \"busy\"" },
	{ 1, "  --audit-log <file>        one JSON line per test and per refusal (- = stdout);" },
	{ 1, "                            reopened on SIGHUP" },
	{ 1, "  --metrics-listen [<addr>:]<port>  serve Prometheus metrics of the server" },
	{ 1, "                            at /metrics (address 127.0.0.1 unless given)" },
#endif
#ifdef HAVE_MULTICAST
	{ 1, "  --multicast-allow <group|cidr>  groups a client may ask this server to" },
	{ 1, "                            join (--multicast; repeatable; default none)" },
	{ 1, "  --multicast-listen <group>  receive a --multicast test's datagrams on -p" },
	{ 1, "                            without a control connection, and report them" },
#endif
	{ OPT_HAVE_SSL, "  --rsa-private-key-path    file with the RSA private key that decrypts" },
	{ OPT_HAVE_SSL, "                            the client's credentials" },
	{ OPT_HAVE_SSL, "  --authorized-users-path   file with the credentials of the users" },
	{ OPT_HAVE_SSL, "                            allowed to run tests" },
	{ OPT_HAVE_SSL, "  --time-skew-threshold     largest clock difference (seconds) accepted between" },
	{ OPT_HAVE_SSL, "                            server and client when authenticating" },
	{ OPT_HAVE_SSL, "  --use-pkcs1-padding       use PKCS#1 padding (weaker, use with care)" },
	{ 1, "Client specific:" },
	{ 1, "  -c, --client <host>[%<dev>] run as a client and connect to <host>" },
	{ OPT_HAVE_BINDDEV, "                              (a %<dev> suffix does the same as `--bind-dev <dev>`)" },
	{ OPT_HAVE_SCTP, "  --sctp                    use SCTP instead of TCP" },
	{ OPT_HAVE_SCTP, "  -X, --xbind <name>        bind the SCTP association to this address" },
	{ OPT_HAVE_SCTP, "  --nstreams      #         number of SCTP streams" },
	{ 1, "  -u, --udp                 use UDP instead of TCP" },
	{ 1, "  --connect-timeout #       time limit for setting up the control connection (ms)" },
	{ 1, "  -b, --bitrate #[KMG][/#]  target bit rate per stream in bits/sec (0 = no limit)" },
	{ 1, "                            (default 1 Mbit/sec for UDP, no limit for TCP)" },
	{ 1, "                            (optional slash and the number of packets per burst)" },
	{ 1, "  --pacing-timer #[KMG]     server pacing timer in microseconds (default " STR(DEFAULT_PACING_TIMER) ")" },
	{ 1, "                            (deprecated, kept for servers of older versions)" },
	{ OPT_HAVE_PACING, "  --fq-rate #[KMG]          pace the sockets with fair queuing at this rate" },
	{ OPT_HAVE_PACING, "                            in bits/sec (Linux only)" },
	{ 1, "  -t, --time      #         length of the test in seconds (default " STR(IPERF_DEFAULT_DURATION_S) " secs)" },
	{ 1, "  -n, --bytes     #[KMG]    stop at the end of the interval in which at least this many" },
	{ 1, "                            bytes were sent or received per direction (instead of -t or -k)" },
	{ 1, "  -k, --blockcount #[KMG]   stop at the end of the interval in which at least this many" },
	{ 1, "                            blocks were sent or received per direction (instead of -t or -n)" },
	{ 1, "  -l, --length    #[KMG]    size of each read or write buffer" },
	{ 1, "                            (default 128 KB for TCP, dynamic or " STR(DEFAULT_UDP_BLKSIZE) " for UDP)" },
	{ 1, "  --cport         <port>    client port of the data streams (TCP and UDP, default: any free port)" },
	{ 1, "  -P, --parallel  #         number of streams to run in parallel" },
	{ 1, "  -R, --reverse             reverse the direction (the server sends)" },
	{ 1, "  --bidir                   test both directions at the same time." },
	{ 1, "                            Client and server both send and receive." },
	{ 1, "  -w, --window    #[KMG]    size of the socket send and receive buffers" },
	{ 1, "                            (which also bounds the TCP window)" },
	{ OPT_HAVE_CONGESTION, "  -C, --congestion <algo>   TCP congestion control algorithm (Linux and FreeBSD only)" },
	{ 1, "  -M, --set-mss   #         TCP/SCTP maximum segment size (MTU - 40 bytes)" },
	{ 1, "  -N, --no-delay            set TCP/SCTP no delay (turns Nagle's algorithm off)" },
	{ 1, "  -4, --version4            use IPv4 only" },
	{ 1, "  -6, --version6            use IPv6 only" },
	{ 1, "  -S, --tos N               IP type of service, 0-255." },
	{ 1, "                            Octal (leading 0) and hex (leading 0x) work too:" },
	{ 1, "                            52, 064 and 0x34 are the same value." },
	{ 1, "  --dscp N or --dscp val    IP DSCP value, 0-63 or a name such as af11 or ef." },
	{ 1, "                            Numbers may be decimal, octal or hex" },
	{ 1, "                            (as for --tos)." },
	{ OPT_HAVE_FLOWLABEL, "  -L, --flowlabel N         IPv6 flow label (Linux only)" },
	{ 1, "  -Z, --zerocopy            send with a 'zero copy' method" },
	{ OPT_HAVE_MSG_TRUNC, "  --skip-rx-copy            drop received data unread (MSG_TRUNC)" },
	{ 1, "  -O, --omit N              leave the first N seconds (warm-up) out of the results" },
	{ 1, "  -T, --title str           put this text in front of every output line" },
	{ 1, "  --extra-data str          text added to the client and server JSON" },
	{ 1, "  --get-server-output       show the server's results as well" },
	{ 1, "  --udp-counters-64bit      use 64-bit counters in UDP test packets" },
	{ 1, "  --gsro                    UDP GSO/GRO on both client and server (client option)" },
	{ OPT_HAVE_GSO && OPT_HAVE_GRO, "  --no-udp-offload          no UDP GSO/GRO between two iperf3-compat ends" },
	{ OPT_HAVE_GSO && OPT_HAVE_GRO, "                            (by default they use it without --gsro)" },
	{ OPT_HAVE_RR, "  --rr                      request/response transactions in place of a flow:" },
	{ OPT_HAVE_RR, "                            -l bytes out (default 1), --rr-response back," },
	{ OPT_HAVE_RR, "                            one in flight per stream (needs an iperf3-compat server)" },
	{ OPT_HAVE_RR, "  --rr-response #[KMG]      bytes of each --rr response (default: the request's)" },
#ifdef HAVE_RPM
	{ 1, "  --rpm                     responsiveness under load (RPM, after the IETF draft" },
	{ 1, "                            draft-ietf-ippm-responsiveness) of a TCP upload" },
	{ 1, "                            (needs an iperf3-compat server)" },
#endif
#ifdef HAVE_ISOCHRONOUS
	{ 1, "  --isochronous[=FPS:MEAN,STDDEV]  frames at FPS a second, sizes log-normal" },
	{ 1, "                            with this mean and deviation in bits/s (default" },
	{ 1, "                            60:20m,0); frame loss, latency, jitter (UDP or TCP;" },
	{ 1, "                            needs an iperf3-compat server)" },
#endif
	{ 1, "  --latency                 also time round trips on the control connection," },
	{ 1, "                            1 s idle before the load, then under load" },
	{ 1, "                            (needs an iperf3-compat server)" },
#ifdef HAVE_OWD
	{ 1, "  --owd                     one-way delay each way, with the clock offset" },
	{ 1, "                            measured (brings --latency; an iperf3-compat server)" },
#endif
#ifdef HAVE_MULTICAST
	{ 1, "  --multicast <group>       UDP to this group, which the server joins (-u;" },
	{ 1, "                            needs an iperf3-compat server that allows it)" },
	{ 1, "  --ttl #                   multicast TTL / hop limit (default 1)" },
	{ 1, "  --ssm-source <addr>       source-specific: receivers join (this source, group)" },
#endif
#ifdef HAVE_OPERATOR
	{ 1, "  --no-clamp                be refused, as by 3.21, where an iperf3-compat server" },
	{ 1, "                            would clamp the test to its caps (--server-max-*)" },
#endif
	{ OPT_HAVE_CSV, "  --csv                     CSV rows (one per stream and interval, then the" },
	{ OPT_HAVE_CSV, "                            summary) in place of the text report" },
	{ OPT_HAVE_PLOT, "  --plot file               write an SVG plot of the run to file" },
	{ OPT_HAVE_METRICS, "  --metrics file            write the results as OpenMetrics text to file" },
	{ OPT_HAVE_METRICS, "                            (atomically, for node_exporter's textfile collector)" },
	{ 1, "  --repeating-payload       fill the payload with a repeating pattern" },
	{ 1, "                            instead of random bytes (as iperf2 does)" },
	{ OPT_HAVE_DONTFRAG, "  --dont-fragment           set the IPv4 Don't Fragment flag" },
	{ OPT_HAVE_SSL, "  --username                user name for authentication" },
	{ OPT_HAVE_SSL, "  --rsa-public-key-path     file with the RSA public key that encrypts" },
	{ OPT_HAVE_SSL, "                            the credentials" },
#ifdef HAVE_EXPORTER
	{ 1, "Exporter (in place of -s or -c):" },
	{ 1, "  --exporter [<addr>:]<port>  serve Prometheus: /probe runs a test as" },
	{ 1, "                            iperf3_exporter's does, /metrics, /health, /ready" },
	{ 1, "                            (address 127.0.0.1 unless given; iperf3_exporter" },
	{ 1, "                            uses port 9579); runs until SIGINT or SIGTERM" },
	{ 1, "  --exporter-allow <host|cidr>  a target /probe may test (repeatable;" },
	{ 1, "                            default: loopback only; names resolved at start)" },
	{ 1, "  --exporter-max-period #   longest period a probe may ask, seconds (default 30)" },
	{ 1, "  --exporter-max-bitrate #[KMG]  a probe's bitrate is lowered to this" },
	{ 1, "                            (default: no limit)" },
	{ 1, "  --exporter-max-probes #   probes at once (default 4); more are answered 503" },
#endif
	{ 1, "" },
	{ 1, "[KMG] marks options whose number may end in K, M or G (kilo-, mega-, giga-)" },
	{ 1, "" },
	{ 1, "iperf3-compat:      an independent, wire-compatible iperf3 " IPERF_VERSION_COMPAT },
	{ 1, "Report bugs to:     the iperf3-compat project (not to upstream iperf3)" },
};

void
options_print_usage(FILE *f)
{
	(void)fputs(usage_short, f);
}

void
options_print_help(FILE *f)
{
	size_t i;

	for (i = 0; i < sizeof(help_lines) / sizeof(help_lines[0]); i++) {
		if (!help_lines[i].shown)
			continue;
		(void)fputs(help_lines[i].text, f);
		(void)fputc('\n', f);
	}
}

/* The features line (-v), in 3.21's order. */
static const struct help_line features[] = {
	{ OPT_HAVE_AFFINITY, "CPU affinity setting" },
	{ OPT_HAVE_FLOWLABEL, "IPv6 flow label" },
	{ OPT_HAVE_SCTP, "SCTP" },
	{ OPT_HAVE_CONGESTION, "TCP congestion algorithm setting" },
	{ OPT_HAVE_SENDFILE, "sendfile / zerocopy" },
	{ OPT_HAVE_PACING, "socket pacing" },
	{ OPT_HAVE_SSL, "authentication" },
	{ OPT_HAVE_BINDDEV, "bind to device" },
	{ OPT_HAVE_DONTFRAG, "support IPv4 don't fragment" },
	{ OPT_HAVE_PTHREAD, "POSIX threads" },
	{ OPT_HAVE_GSO || OPT_HAVE_GRO, "GSO/GRO support" },
};

void
options_features(char *buf, size_t len)
{
	size_t i, n = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		if (!features[i].shown)
			continue;
		(void)snprintf(buf + n, len - n, "%s%s", n > 0 ? ", " : "",
		    features[i].text);
		n = strlen(buf);
	}
	if (n == 0)
		str_copy(buf, "None", len);
}

void
options_print_version(FILE *f)
{
	char sys[256], feat[512];

	get_system_info(sys, sizeof(sys));
	options_features(feat, sizeof(feat));
	(void)fprintf(f, "iperf %s (%s %s; cJSON %s)\n", IPERF_VERSION_COMPAT,
	    PACKAGE_NAME, PACKAGE_VERSION, cJSON_Version());
	(void)fprintf(f, "%s\n", sys);
	(void)fprintf(f, "Optional features available: %s\n", feat);
}
