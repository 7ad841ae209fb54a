/*
 * iperf.h - internal types shared by the library modules.
 *
 * Everything a test needs hangs off struct iperf_test: its settings (what
 * the two ends agreed on), local options, runtime (loop, sockets, timers),
 * streams and results.  There are no process globals except i_errno.
 *
 * Threads: the event loop thread owns everything here except the fields of
 * struct iperf_stream documented as "worker" in stream.h.
 */
#ifndef IPERF_INTERNAL_H
#define IPERF_INTERNAL_H

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "caps.h"
#include "iperf_api.h"
#include "latstat.h"
#include "ratewin.h"
#ifdef HAVE_RPM
#include "rpm_calc.h"
#endif
#include "timer.h"
#include "util.h"

struct cJSON;
struct evloop;
struct ctrl;
struct clockoff;
struct iperf_proto_ops;
struct report_ops;
struct session_ops;
struct pending_conn;
struct affinity_saved;
struct placement;
struct auth_key;
struct iperf_config;
struct server_multi;
struct multi_run;
struct server_child_ops;
struct session_ops;
struct rpm_run;
struct rpm_foreign;

#define IPERF_VERSION_COMPAT "3.21"
#define IPERF_COOKIE_SIZE 37 /* 36 characters + NUL, on the wire */
#define IPERF_MAX_STREAMS 128
#define IPERF_MAX_TESTS 64 /* --max-tests */
#define IPERF_NOTES_MAX 16  /* transport notes between two flushes */
#define IPERF_MAX_BLOCKSIZE (1024 * 1024)
#define IPERF_MAX_UDP_BLOCKSIZE 65507
#define IPERF_MIN_UDP_BLOCKSIZE 16
#define IPERF_MAX_WINDOW_BYTES (512 * 1024 * 1024)
#define IPERF_MAX_TIME_S 86400
#define IPERF_MAX_OMIT_S 600
#define IPERF_MAX_MSS 32767
#define IPERF_MAX_BURST 1000
#define IPERF_DEFAULT_PORT 5201
#define IPERF_DEFAULT_DURATION_S 10
#define IPERF_DEFAULT_UDP_RATE 1048576 /* "1 Mbit/sec" */
#define IPERF_SERVER_GRACE_S 40     /* safety timer: time + omit + this */
#define IPERF_CTRL_FIRST_BYTE_US (10 * 1000000ULL)
#define IPERF_CTRL_TOTAL_US (30 * 1000000ULL)
#define IPERF_DRAIN_TIMEOUT_US (10 * 1000000ULL)
/* The client drains a half-closed control connection for at most this
 * long in all, however slowly the server trickles bytes. */
#define IPERF_DRAIN_MAX_US (15 * 1000000ULL)
/*
 * Control-connection defaults that notice a vanished peer (a host that
 * went away, a path that drops everything).  Applied when the user gave
 * neither --cntl-ka (keepalive) nor --snd-timeout (TCP_USER_TIMEOUT):
 * keepalive probes after 10 s of silence, every 5 s, 4 of them, and at
 * most 30 s without an acknowledgement of what we sent (which also caps
 * the keepalive wait: the connection fails 30 s after the last segment
 * from the peer).  A healthy peer's kernel answers probes, so nothing
 * changes for it; a stopped peer process is caught by the test timers.
 */
#define IPERF_CTRL_KA_IDLE_S 10
#define IPERF_CTRL_KA_INTVL_S 5
#define IPERF_CTRL_KA_CNT 4
#define IPERF_CTRL_USER_TIMEOUT_MS 30000
/* The client gives up on a timed test this long after its nominal end
 * (time + omit): the server's safety timer (IPERF_SERVER_GRACE_S) fires
 * first and its SERVER_ERROR 160 is what the user should see. */
#define IPERF_CLIENT_GRACE_S (IPERF_SERVER_GRACE_S + 10)
/* Workers are joined within this long of being asked to stop; a worker
 * still blocked then has its socket shut down both ways, and after as
 * long again it is cancelled. */
#define IPERF_JOIN_GRACE_US (5 * 1000000ULL)
#define IPERF_TIMESTAMP_DEFAULT "%c "
#define IPERF_SERVER_OUTPUT_LINE_MAX 1024

enum iperf_mode {
	MODE_RECEIVER = 0,
	MODE_SENDER = 1,
	MODE_BIDIR = -1,
};

/* Why a test ended early; drives exit codes and messages. */
enum iperf_abort {
	ABORT_NONE = 0,
	ABORT_ERROR,      /* test->err holds the reason */
	ABORT_INTERRUPT,  /* local signal / iperf_test_interrupt() */
	ABORT_PEER_TERM,  /* peer sent CLIENT_/SERVER_TERMINATE */
	ABORT_PEER_CLOSED /* server: client closed the control connection */
};

/* Settings that cross the wire in the parameter document. */
struct iperf_settings {
	int protocol_id; /* Ptcp, Pudp, Psctp */
	int omit;        /* seconds */
	int duration;    /* seconds, 0 = bytes/blocks-limited */
	uint64_t bytes;  /* -n */
	uint64_t blocks; /* -k */
	int num_streams;
	int reverse;
	int bidirectional;
	int mptcp;
	int socket_bufsize; /* -w, 0 = OS default */
	int blksize;        /* -l */
	int blksize_set;    /* user gave -l */
	uint64_t rate;      /* bits/s per stream, 0 = unlimited */
	uint64_t fqrate;    /* bits/s, SO_MAX_PACING_RATE */
	int pacing_timer;   /* us, legacy */
	int burst;          /* blocks per pacing decision */
	int mss;            /* -M */
	int no_delay;       /* -N */
	int tos;            /* -S / --dscp */
	int flowlabel;      /* -L */
	int server_affinity;
	char *title;
	char *extra_data;
	char *congestion;      /* -C as requested */
	int get_server_output; /* presence flag */
	int udp_counters_64bit;
	int repeating_payload;
	int zerocopy;
	int dont_fragment;
	int skip_rx_copy;
	int gso, gso_dg_size, gso_bf_size;
	int gro, gro_bf_size;
	char *authtoken;
	char *client_version; /* what the peer said */
	unsigned int ext_want; /* server: EXT_* the client asked for (ext.h) */
	/* --rr (ext.h EXT_RR): transactions in place of a bulk flow; the
	 * request is blksize bytes, the response rr_response bytes. */
	int rr;
	int rr_response;
#ifdef HAVE_RPM
	/* --rpm (ext.h EXT_RPM): responsiveness over framed load streams
	 * (stream/rpm_stream.h) */
	int rpm;
#endif
#ifdef HAVE_MULTICAST
	/* --multicast (ext.h EXT_MCAST): a UDP upload to a group, which
	 * the server joins; the group and --ssm-source as numeric
	 * addresses, the TTL / hop limit, the client's id of the test
	 * (in every datagram, dgram_ext.h) */
	char *mcast_group;
	char *mcast_source;
	int mcast_ttl;
	uint64_t mcast_test_id;
#endif
#ifdef HAVE_ISOCHRONOUS
	/* --isochronous FPS:MEAN,STDDEV (ext.h EXT_ISO): frames at FPS a
	 * second, sizes log-normal with this mean and deviation (bits/s) */
	int iso;
#define ISO_DEFAULT_FPS 60.0
#define ISO_DEFAULT_MEAN 20000000ULL /* 20m */
	double iso_fps;
	uint64_t iso_mean, iso_stddev;
#endif
#ifdef HAVE_PEERIVAL
	/* server: the client's -i, for peer_intervals (ext.h): the
	 * intervals are taken at it instead of at this server's -i */
	double peer_interval;
#endif
};

/* Options that stay local to this end: held in struct iperf_config
 * (test_config.h), read through test->opt. */
struct iperf_local {
	char role; /* 'c', 's', 'e' (--exporter) or 0 */
	char *server_hostname;
	int server_port;
	char *bind_address;
	char *bind_dev;
	int bind_port; /* --cport */
	int domain;    /* AF_UNSPEC, AF_INET, AF_INET6 */
	double reporter_interval;
	double stats_interval;
	char unit_format; /* 'a' default */
	int verbose;
	int debug_level; /* 0 = off, 1..4 */
	int json_output;
	int json_stream;
	int json_stream_full_output;
	int json_incremental; /* -J written as the run goes (the CLI's) */
	int one_off;
	int daemon;
	char *pidfile;
	char *logfile;
	int forceflush;
	int timestamps;
	char *timestamp_format;
	int affinity; /* -1 = none */
	int connect_timeout_ms; /* -1 = OS default */
	int rcv_timeout_ms;
	int snd_timeout_ms;  /* 0 = unset */
	int snd_timeout_set; /* --snd-timeout given (even 0) */
	int idle_timeout_s;  /* 0 = none */
	int max_server_duration_s;
	uint64_t max_server_bytes; /* --server-max-bytes, 0 = none (caps.h) */
	int max_server_streams;    /* --server-max-streams, 0 = none */
	uint64_t bitrate_limit;
	double bitrate_limit_interval;
	int cntl_ka, cntl_ka_idle, cntl_ka_intvl, cntl_ka_cnt;
	int no_cntl_ka; /* --no-cntl-ka: no keepalive at all (stock default) */
	int max_tests;  /* server: tests at once (--max-tests), 0/1 = stock */
	int max_tests_per_ip; /* server: of those, per client address, 0 = any */
	char *diskfile_name;
	char *tmp_template;   /* -Z buffer file (mkstemp template), or NULL */
	int bitrate_limit_samples; /* samples per averaging interval, 0 auto */

	/* ---- added by the command line (options*.c) */
	uint64_t opt_seen[2]; /* bitmap of options given, by enum opt_id */
	int debug;            /* -d/--debug given (even --debug=0) */
	int gsro;             /* --gsro requested */
	int no_udp_offload;   /* --no-udp-offload: never negotiate GSO/GRO */
	int no_clamp;         /* --no-clamp: ask no server to clamp (ext.h) */
	int latency;          /* --latency: a probe connection (ext.h) */
#ifdef HAVE_OWD
	int owd;              /* --owd: one-way delay (ext.h, latency set) */
#endif
	int csv;              /* --csv: CSV rows in place of the text report */
	char *plot_file;      /* --plot FILE: an SVG of the run */
	char *metrics_file;   /* --metrics FILE: OpenMetrics text at the end */
	int mptcp;            /* -m given to this process (server listener) */
	int sctp_nstreams;    /* --nstreams */
	char **xbind;         /* -X/--xbind names, in order */
	int xbind_count;
	char *auth_username;         /* --username */
	char *auth_public_key_path;  /* --rsa-public-key-path */
	char *auth_private_key_path; /* --rsa-private-key-path */
	char *auth_users_path;       /* --authorized-users-path */
	int auth_skew_threshold_s;   /* --time-skew-threshold (10 with auth) */
	int use_pkcs1_padding;       /* --use-pkcs1-padding; client: env
					IPERF3_USE_PKCS1_PADDING */

	/* ---- a server for operators (server/: admission, ports, audit) */
	int server_port_last;   /* -p A-B on a server: B (0: one port) */
	char **allow, **deny;   /* --allow / --deny CIDRs, in order */
	int allow_count, deny_count;
	char *allow_file;       /* --allow-file, re-read on SIGHUP */
	int max_tests_per_prefix; /* per /24 (IPv4) or /64 (IPv6), 0 = any */
	double accept_rate;     /* --accept-rate: connections per second per
				 * source, 0 = no limit */
	double accept_burst;    /* its bucket */
	char *audit_log;        /* --audit-log FILE, "-" = stdout */
	char *metrics_listen;   /* --metrics-listen [ADDR:]PORT */
#ifdef HAVE_MULTICAST
	/* ---- multicast receivers (server/mcast_*.c) */
	char **mcast_allow;     /* --multicast-allow GROUP|CIDR, in order */
	int mcast_allow_count;
	char *mcast_listen;     /* --multicast-listen GROUP (no control) */
#endif
#ifdef HAVE_EXPORTER
	/* ---- the exporter (exporter/: --exporter, the role 'e') */
	char *exporter_listen;        /* --exporter [ADDR:]PORT */
	char **exporter_allow;        /* --exporter-allow HOST|CIDR, in order */
	int exporter_allow_count;
	double exporter_max_period;   /* seconds; 0: the default (30) */
	uint64_t exporter_max_bitrate; /* bits/s; 0: none */
	int exporter_max_probes;      /* 0: the default (4) */
#endif
};

/* --latency (session/probe.h): the round trips of the idle and the loaded
 * phase, nanoseconds, published when the probe stops. */
struct latency_fig {
	int used; /* the probe ran in this test */
	struct latsum idle, loaded;
};

/* --rr: the client's figures as its results document carries them
 * (stream/rr.h). */
struct rr_peer {
	int present;
	uint64_t trans, lost;
	struct latsum lat; /* ns */
};

/* Figures the peer sent in its result document, per stream. */
struct peer_stream_result {
	int present;
	uint64_t bytes;
	int64_t retransmits; /* -1 when the peer has none */
	double jitter;       /* seconds */
	int64_t errors;
	int64_t omitted_errors;
	int64_t packets;
	int64_t omitted_packets;
	double start_time, end_time;
};

/* Error state of one test (the reason recorded where it happened). */
struct iperf_err_state {
	int code;      /* i_errno value */
	int sys_errno; /* errno at the time, or 0 */
	int gai_error; /* getaddrinfo error, or 0 */
	char arg[1100]; /* offending text (IEUNITVAL), what (IEOUTFILE) */
};

struct iperf_stream;

typedef void iperf_stream_cb(struct iperf_stream *sp);
typedef void iperf_test_cb(struct iperf_test *test);
typedef void iperf_json_cb(struct iperf_test *test, char *json);

/*
 * A run's state, by owner.  Each part is written by the layer that owns
 * it and released by it (its release is named below); every layer may
 * read it.  The model's own part is the rest of struct iperf_run.
 */

/* session/: the control connection and what the peer sent on it. */
struct run_session {
	struct ctrl *ctrl;
	int ctrl_sck;
	const struct session_ops *sops; /* role handlers (client or server) */
	int interrupt_handled;
	int ctrl_fail_code;          /* i_errno for a late/oversized unit */
	uint64_t ctrl_unit_start_us;
	int ctrl_eof;                /* peer closed the control connection */
	int ctrl_eof_seen;
	signed char last_bad_state;
	unsigned long ctrl_units;    /* control units dispatched (stage calls) */
	int final_collected;
	uint64_t ctrl_activity_us;   /* last control message we sent */
	timer_id ctrl_timer;
	timer_id check_timer;
	struct probe *probe; /* client: --latency (session/probe.c) */
	struct latency_fig latency; /* client: what the probe measured */
#ifdef HAVE_OWD
	/* client, --owd: the probe's timestamped exchanges, kept by
	 * session/probe.c, read by the reporters (measure/clockoff.h) */
	struct clockoff *owd;
#endif
	int peer_has_rtt_sum;       /* client: our server's sum_rtt_us */
	struct latsum peer_rtt_sum;
#ifdef HAVE_PEERIVAL
	int peer_has_delay_sum;     /* client: its sum_delay_var_us */
	struct latsum peer_delay_sum;
	/* peer_ival.h: intervals taken here; the one our server's figures
	 * (pival_sum and each stream's pival) belong to; one held back */
	int ival_n, pival_i, ival_held, pival_expect;
	struct peer_fig pival_sum;
	timer_id pival_timer;
#endif
	struct cJSON *json_server_output; /* client: server's JSON */
	char *server_output_text;         /* client: server's text */
};

/* client/: the client's run. */
struct run_client {
	int ctrl_mss;      /* MSS of the control connection */
	int ext_confirmed; /* our server sent EXT_STATE_CONFIRM (ext.h) */
	timer_id probe_idle_timer; /* end of the idle probe phase */
#ifdef HAVE_OWD
	int tsprobe_part; /* --owd: int64s of an answer still to read (2, 1) */
	int64_t tsprobe_t[2];
#endif
	int caps_received; /* our server clamped the test to its caps */
	struct server_caps caps; /* ... to these (caps.h) */
#ifdef HAVE_RPM
	struct rpm_run *rpm;       /* --rpm while it runs (rpm_stream.h) */
	struct rpm_result rpm_res; /* ... and its figures (rpm_calc.h) */
#endif
};

/* server/: the listeners it made for the run, the connections it is
 * accepting, its limits. */
struct run_server {
	int prot_listener; /* the data listener, if not `listener` */
	/* the control listener was closed for the data listener
	 * (proto_ops.h port_needed): PROTO_PORT_SETUP or _TEST, else 0 */
	int listener_lent;
	int streams_expected;  /* total streams to accept */
	int streams_accepted;
	struct pending_conn *pending; /* data connections awaiting cookies */
	uint64_t progress_us;         /* last progress of the client */
	struct sockaddr_storage peer_addr; /* control peer */
	char peer_host[64];
	int peer_port;
	timer_id rate_timer;   /* --server-bitrate-limit */
	timer_id bytes_timer;  /* --server-max-bytes */
	timer_id idle_timer;   /* --idle-timeout */
	struct ratewin rate_window; /* measured bit rate */
	int capture_output; /* keep report lines for the client */
	int refused; /* --max-tests: answered busy, nothing to report */
	int caps_clamped; /* the test runs clamped to the caps (ext.h) */
	struct server_caps caps; /* ... these (caps.h) */
#ifdef HAVE_RPM
	struct rpm_foreign *rpm_foreign; /* --rpm foreign probes being read
					  * (server_rpm.c) */
#endif
#ifdef HAVE_MULTICAST
	uint64_t mcast_join_us; /* --multicast: when it joined the group
				 * (CLOCK_REALTIME) */
#endif
};

/* report/: the documents and sinks being written. */
struct run_report {
	struct report_out *out; /* --plot, --metrics sinks (report_out.h) */
	struct cJSON *json_top;
	struct cJSON *json_start;
	struct cJSON *json_connected;
	struct cJSON *json_intervals;
	struct cJSON *json_end;
	char *json_output_string;
	/* report_json_doc.c: 0 not streamed (yet), 1 "intervals" open,
	 * 2 written to the end; intervals written so far */
	int json_doc_state;
	unsigned long json_doc_count;
	char *server_outbuf;     /* server: captured lines */
	size_t server_outlen, server_outcap;
	int header_printed;
	int intervals_printed;
};

/*
 * Everything one run of a test creates and changes: the model's part
 * here (state, streams, timers, counters, the error, notes) and the
 * owners' parts above.  test_run_init() (core/test.c) zeroes it;
 * test_run_release() (session/run.c) has each owner release its part:
 * the role's through its session ops (`release`), the reporters'
 * (report_run_release), the session's, then the model's
 * (test_run_free).  Settings, options, output target and callbacks stay
 * in struct iperf_test.  A --max-tests server's tests each have their
 * own.
 */
struct iperf_run {
	signed char state;
	char cookie[IPERF_COOKIE_SIZE];
	enum iperf_abort abort;
	int done;           /* loop exit flag */
	int sndbuf_actual, rcvbuf_actual; /* kernel buffer sizes, data socket */
	int udp_offload;    /* UDP GSO/GRO granted between our two ends (ext.h) */
	struct placement *place; /* same-host thread placement, or NULL
				  * (placement.h) */
	int peer_here; /* placement_peer_here(): 0 not decided yet, 1 the
			* peer is on this host, 2 it is not */
	/* distributions (stats_dist.h) */
	struct latstat rtt_sum_scratch; /* the interval, over the senders */
	int rtt_ival_sum_valid;     /* rtt_ival_sum is the newest interval's */
	struct latsum rtt_ival_sum;
#ifdef HAVE_PEERIVAL
	/* the receivers' delay variation of the interval, each stream's
	 * above its own fastest datagram (dv_hist_merge_shifted) */
	struct latstat delay_sum_scratch;
	int delay_ival_sum_valid;
	struct latsum delay_ival_sum;
#endif
	struct rr_peer rr_peer; /* server: --rr figures of all the client's
				 * streams, from its results (rr.h) */
	/* Timer handles: TIMER_NONE or possibly stale (harmless, see
	 * timer.h); nothing needs to clear them when a timer fires. */
	timer_id stats_timer;
	timer_id omit_timer;
	timer_id end_timer;
	timer_id safety_timer; /* server: duration / safety timer;
				* client: deadline of a timed test */
	int omitting;
	uint64_t start_us;      /* TEST_START (monotonic) */
	uint64_t omit_end_us;
	struct cpu_sample cpu_start;
	double cpu_util[3]; /* total, user, system (percent) */
	double remote_cpu_util[3];
	char *congestion_used;
	char *remote_congestion_used;
	time_t start_wall;
	uint64_t start_wall_ms;
	struct iperf_stream *streams; /* singly linked, in creation order */
	int num_streams_total;
	uint64_t limit_bytes, limit_blocks;
	uint64_t limit_base_bytes, limit_base_blocks;
	uint64_t limit_reserved;  /* datagrams promised to batches in flight */
	struct iperf_err_state err;
	/* transport notes waiting to be reported (notes.h; test->note_lock) */
	char notes[IPERF_NOTES_MAX][256];
	int note_kind[IPERF_NOTES_MAX];
	int nnotes;

	struct run_session ses;
	struct run_client cli;
	struct run_server srv;
	struct run_report rep;
};

struct iperf_test {
	struct iperf_settings settings;
	/* The options (test_config.h): `cfg` is this test's reference to
	 * its configuration (a --max-tests server's tests share the
	 * server's), `opt` the read-only view of cfg->opt every layer reads;
	 * only options/, api/ and session/auth* write through `cfg`. */
	struct iperf_config *cfg;
	const struct iperf_local *opt;
	enum iperf_mode mode;
	int sender_has_retransmits; /* local: 1, 0, or -1 for receive-only */
	int peer_has_retransmits;   /* from the peer's results */
	const struct iperf_proto_ops *proto;
	const struct report_ops *reporter;
	/* The role's control-channel handlers (session.h): what an accepted
	 * control connection is attached with (set by server.c). */
	const struct session_ops *role_ops;
	/* Prints one flushed note (notes.h); set with the reporter
	 * (report_select): the model records notes, report/ prints them. */
	void (*note_out)(struct iperf_test *test, int kind, const char *text);
	/* the text, JSON or CSV reporter; `reporter` is report_tee in front
	 * of it when side outputs are asked for (report_out.h) */
	const struct report_ops *report_main;

	struct iperf_run run; /* this run's state (above) */

	/* kept from run to run */
	struct evloop *loop;
	int listener;      /* server: TCP listen socket */
	int wake_rd, wake_wr;        /* self-pipe: workers and signals */
	/* Set by a signal handler or another thread (iperf_test_interrupt):
	 * lock-free atomics, safe in both. */
	atomic_int interrupt_sig;
	atomic_int interrupted;
	int server_test_number;
	int mapped_v4;
	int idle_restarted; /* server: the last run ended idle (returned 2) */
	int pidfile_written; /* -I: we wrote the file (remove it at exit) */
	int out_failed; /* a --plot or --metrics file could not be written */
	int csv_header_done; /* --csv: the header row is out (once a process) */
	pthread_mutex_t limit_lock; /* run.limit_*: shared by sender workers */
	pthread_mutex_t note_lock;  /* run.notes: transports, any thread */
	char errbuf[512]; /* iperf_get_test_error_string() */

	/* output */
	FILE *outfile;
	int own_outfile;

	/* callbacks (libiperf API) */
	iperf_stream_cb *on_new_stream;
	iperf_test_cb *on_test_start;
	iperf_test_cb *on_connect;
	iperf_test_cb *on_test_finish;
	iperf_json_cb *json_callback;

	pthread_mutex_t print_lock; /* serialises reporter output */
	pthread_mutex_t *out_lock;  /* the lock output takes: print_lock, or
				     * a --max-tests server's, shared by its
				     * tests */

	/* --max-tests server (server_multi.c).  The server object: `multi`;
	 * each of its tests: `mrun` (its slot, inbox of data connections),
	 * `tag` (its number, the [T<n>] of its output lines); `cfg` is a
	 * reference to the server's. */
	struct server_multi *multi;
	struct multi_run *mrun;
	/* what the dispatcher does for this test (server/server_child.h) */
	const struct server_child_ops *child_ops;
	int tag;
	/* the port this server test was reached on (a -p range serves
	 * several); 0: opt->server_port (core/test.h test_server_port) */
	int listen_port;

	/*
	 * Reporter additions (report_*.c).  The core may fill these; the
	 * reporters fall back to their own figures when they are zero.
	 */
	int64_t diskfile_size; /* -F: file size in bytes (0: stat the file) */

	/* -A / server_affinity: the mask to restore (affinity.c), or NULL */
	struct affinity_saved *affinity_saved;
};

#endif /* IPERF_INTERNAL_H */
