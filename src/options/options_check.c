/*
 * options_check.c - the post-parse rules of iperf3 3.21 (observed by
 * running it; tests/data/cli_errors.data), in their order, then our own refusal of options this
 * implementation does not support yet, then the -J warnings.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "auth.h"
#include "iperf.h"
#include "iperf_error.h"
#include "options_int.h"
#include "report.h"
#ifdef HAVE_RPM
#include "rpm_stream.h"
#endif
#include "util.h"
#include "test_config.h"
#include "banned.h"

/* Rule 1: options that only one role may use. */
static int
check_roles(struct iperf_test *test)
{
	unsigned int deny;
	size_t i;

	if (test->cfg->opt.role == 'c')
		deny = OPT_ROLE_CLIENT;
	else if (test->cfg->opt.role == 's')
		deny = OPT_ROLE_SERVER;
	else
		return 0;
	for (i = 0; i < options_table_len; i++) {
		if ((options_table[i].roles & deny) != 0 ||
		    !options_seen(test, options_table[i].id))
			continue;
		return iperf_fail(test, test->cfg->opt.role == 'c' ? IESERVERONLY :
		    IECLIENTONLY, 0);
	}
	return 0;
}

#if OPT_HAVE_SSL
/* Environment switch for the client's padding (see check_auth_client). */
#define ENV_PKCS1_PADDING "IPERF3_USE_PKCS1_PADDING"
#define ENV_PASSWORD "IPERF3_PASSWORD"

static int
readable(const char *path)
{
	FILE *f = path != NULL ? fopen(path, "r") : NULL;

	if (f == NULL)
		return 0;
	(void)fclose(f);
	return 1;
}

/* Load a PEM key into *slot; on failure 3.21's OpenSSL line ("iperf3:
 * <error>" and an empty line) goes to stderr before the parameter error. */
static int
load_key(struct iperf_test *test, const char *path, enum auth_key_kind kind,
    struct auth_key **slot)
{
	char err[256];

	auth_key_free(*slot);
	*slot = auth_key_load_file(path, kind, err, sizeof(err));
	if (*slot != NULL)
		return 0;
	report_stderr(test, "iperf3: %s\n\n", err);
	return -1;
}

/* The password: IPERF3_PASSWORD, else a prompt without echo. */
static int
client_password(struct iperf_test *test)
{
	const char *env = getenv(ENV_PASSWORD);
	char buf[AUTH_FIELD_MAX + 2];
	int rc = 0;

	struct auth_ctx *a = auth_ctx_of(test);

	auth_secret_free(a->password);
	a->password = NULL;
	if (env == NULL) {
		rc = auth_password_prompt(test, buf, sizeof(buf));
		env = buf;
	}
	if (rc == 0 && auth_field_valid(env))
		a->password = str_dup(env);
	auth_wipe(buf, sizeof(buf));
	return a->password != NULL ? 0 : -1;
}

/*
 * 3.21 accepts --use-pkcs1-padding on servers only, yet servers up to
 * 3.16 (Debian's 3.12 among them) only understand PKCS#1 v1.5 tokens: a
 * client reaches them with IPERF3_USE_PKCS1_PADDING set (not "0").
 */
static int
env_pkcs1(void)
{
	const char *v = getenv(ENV_PKCS1_PADDING);

	return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static int
check_auth_client(struct iperf_test *test)
{
	struct iperf_local *o = &test->cfg->opt;
	int user = options_seen(test, OPT_ID_USERNAME);
	int key = options_seen(test, OPT_ID_RSA_PUBLIC_KEY);

	if (o->role == 's' && (user || key))
		return iperf_fail(test, IECLIENTONLY, 0);
	if (o->role != 'c' || (!user && !key))
		return 0;
	if (user != key || load_key(test, o->auth_public_key_path,
	    AUTH_KEY_PUBLIC, &auth_ctx_of(test)->public_key) == -1)
		return iperf_fail(test, IESETCLIENTAUTH, 0);
	if (client_password(test) == -1)
		return iperf_fail(test, IESETCLIENTAUTH, 0);
	o->use_pkcs1_padding = env_pkcs1();
	/* Ours: the server splits the plaintext at whitespace, and the
	 * token must fit in one RSA block. */
	if (!auth_field_valid(o->auth_username) ||
	    !auth_token_fits(test->cfg->auth.public_key, o->use_pkcs1_padding ?
	    AUTH_PAD_PKCS1 : AUTH_PAD_OAEP, o->auth_username,
	    test->cfg->auth.password))
		return iperf_fail(test, IESETCLIENTAUTH, 0);
	return 0;
}

static int
check_auth_server(struct iperf_test *test)
{
	struct iperf_local *o = &test->cfg->opt;
	int priv = options_seen(test, OPT_ID_RSA_PRIVATE_KEY);
	int users = options_seen(test, OPT_ID_AUTHORIZED_USERS);

	if (o->role == 'c' && (priv || users ||
	    options_seen(test, OPT_ID_SKEW_THRESHOLD)))
		return iperf_fail(test, IESERVERONLY, 0);
	if (o->role == 'c' && options_seen(test, OPT_ID_RCV_TIMEOUT) &&
	    !test->settings.reverse && !test->settings.bidirectional)
		return iperf_fail(test, IERVRSONLYRCVTIMEOUT, 0);
	if (o->role != 's' || (!priv && !users))
		return 0;
	if (priv != users)
		return iperf_fail(test, IESETSERVERAUTH, 0);
	if (!readable(o->auth_users_path))
		return iperf_fail(test, IESERVERAUTHUSERS, 0);
	if (load_key(test, o->auth_private_key_path, AUTH_KEY_PRIVATE,
	    &auth_ctx_of(test)->private_key) == -1)
		return iperf_fail(test, IESETSERVERAUTH, 0);
	if (!options_seen(test, OPT_ID_SKEW_THRESHOLD))
		o->auth_skew_threshold_s = AUTH_DEFAULT_SKEW_S;
	return 0;
}
#endif /* OPT_HAVE_SSL */

/* Rule 2 (OpenSSL builds only). */
static int
check_auth(struct iperf_test *test)
{
#if OPT_HAVE_SSL
	if (check_auth_client(test) == -1 || check_auth_server(test) == -1)
		return -1;
#else
	(void)test;
#endif
	return 0;
}

static int
default_blksize(int protocol_id)
{
	if (protocol_id == Pudp)
		return 0; /* decided at run time from the control MSS */
	if (protocol_id == Psctp)
		return DEFAULT_SCTP_BLKSIZE;
	return DEFAULT_TCP_BLKSIZE;
}

/* Rule 4: -l defaults and limits (a negative UDP length escapes here,
 * as in 3.21; the 1 MiB maximum applies to every protocol). */
static int
check_blksize(struct iperf_test *test)
{
	struct iperf_settings *s = &test->settings;
	int udp = s->protocol_id == Pudp;

	if (!options_seen(test, OPT_ID_LENGTH) || s->blksize == 0) {
		/* --rr: a 1-byte request, as netperf's TCP_RR */
		s->blksize = s->rr ? 1 : default_blksize(s->protocol_id);
		s->blksize_set = s->rr;
	} else {
		s->blksize_set = 1;
	}
	if ((!udp && s->blksize <= 0) || s->blksize > IPERF_MAX_BLOCKSIZE)
		return iperf_fail(test, IEBLOCKSIZE, 0);
	/* --rr requests over UDP are bare payload: any size from 1 byte */
	if (udp && s->rr)
		return s->blksize < 1 || s->blksize > IPERF_MAX_UDP_BLOCKSIZE ?
		    iperf_fail(test, IEUDPBLOCKSIZE, 0) : 0;
	if (udp && s->blksize > 0 && (s->blksize < IPERF_MIN_UDP_BLOCKSIZE ||
	    s->blksize > IPERF_MAX_UDP_BLOCKSIZE))
		return iperf_fail(test, IEUDPBLOCKSIZE, 0);
	return 0;
}

/* Rule 6: a client sending a file with no end condition sends it all. */
static void
file_size_as_bytes(struct iperf_test *test)
{
	struct iperf_settings *s = &test->settings;
	struct stat st;

	if (test->cfg->opt.role != 'c' || test->cfg->opt.diskfile_name == NULL ||
	    options_seen(test, OPT_ID_TIME) || s->bytes != 0 || s->blocks != 0)
		return;
	if (stat(test->cfg->opt.diskfile_name, &st) == 0 && st.st_size > 0)
		s->bytes = (uint64_t)st.st_size;
}

/* Rule 7: -t, -n, -k are exclusive; -n/-k alone make the duration 0. */
static int
check_end_conditions(struct iperf_test *test)
{
	struct iperf_settings *s = &test->settings;
	int t = options_seen(test, OPT_ID_TIME);
	int n = s->bytes != 0, k = s->blocks != 0;

	if ((n || k) && !t)
		s->duration = 0;
	if (t + n + k > 1)
		return iperf_fail(test, IEENDCONDITIONS, 0);
	return 0;
}

/* The first option given with --rr that it cannot honour, or NULL. */
static const char *
rr_conflict(const struct iperf_test *test)
{
	const struct iperf_settings *s = &test->settings;
	const struct {
		int given;
		const char *name;
	} rules[] = {
		{ options_seen(test, OPT_ID_BITRATE), "-b" },
		{ s->bytes != 0 && test->cfg->opt.diskfile_name == NULL, "-n" },
		{ s->blocks != 0, "-k" },
		{ test->cfg->opt.diskfile_name != NULL, "-F" },
		{ s->zerocopy, "-Z" },
		{ test->cfg->opt.gsro, "--gsro" },
		{ s->protocol_id == Psctp, "--sctp" },
#ifdef HAVE_OWD
		{ test->cfg->opt.owd, "--owd" }, /* (it sets latency) */
#endif
		{ test->cfg->opt.latency, "--latency" },
	};
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].given)
			return rules[i].name;
	return NULL;
}

/* Ours: --rr runs transactions (either direction, -R or --bidir: the
 * end whose stream sends asks), no rate, no count, no file; the response
 * defaults to the request's size.  A refusal names the option ("--rr
 * cannot be used with -b"). */
#ifdef HAVE_RPM
/* --rpm: a timed TCP upload over plain load streams (rpm_stream.h); -P
 * caps the load streams, RPM_MAX_STREAMS without it. */
static int
check_rpm(struct iperf_test *test)
{
	struct iperf_settings *s = &test->settings;
	const struct {
		int given;
		const char *name;
	} rules[] = {
		{ s->protocol_id == Pudp, "-u" },
		{ s->protocol_id == Psctp, "--sctp" },
		{ s->rr, "--rr" },
		{ s->reverse, "-R" },
		{ s->bidirectional, "--bidir" },
		{ options_seen(test, OPT_ID_BITRATE), "-b" },
		{ s->bytes != 0 || s->blocks != 0 ||
		    test->cfg->opt.diskfile_name != NULL, "-n, -k or -F" },
		{ s->zerocopy, "-Z" },
		{ test->cfg->opt.latency, "--latency or --owd" },
	};
	char msg[64];
	size_t i;

	if (!s->rpm)
		return 0;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (!rules[i].given)
			continue;
		(void)snprintf(msg, sizeof(msg), "--rpm cannot be used with %s",
		    rules[i].name);
		return iperf_fail_arg(test, IERRCONFLICT, msg);
	}
	if (!options_seen(test, OPT_ID_PARALLEL))
		s->num_streams = RPM_MAX_STREAMS;
	return 0;
}
#endif

#if defined(HAVE_MULTICAST) || defined(HAVE_ISOCHRONOUS)
/* A rule of --multicast or --isochronous: the first one broken. */
struct dgx_rule {
	int given;
	const char *name;
};

static int
dgx_rules(struct iperf_test *test, int code, const char *what,
    const struct dgx_rule *r, size_t n)
{
	char msg[96];
	size_t i;

	for (i = 0; i < n; i++) {
		if (!r[i].given)
			continue;
		(void)snprintf(msg, sizeof(msg), "%s %s", what, r[i].name);
		return iperf_fail_arg(test, code, msg);
	}
	return 0;
}

/* Room for the stock header and the extension (dgram_ext.h) in -l. */
#define DGX_MIN_BLKSIZE (16 + 64)

#ifdef HAVE_ISOCHRONOUS
/* --isochronous: what it cannot go with (small: UDP -l under 80). */
static int
check_iso(struct iperf_test *test, int small)
{
	struct iperf_settings *s = &test->settings;
	const struct dgx_rule r[] = {
		{ s->protocol_id == Psctp, "cannot be used with --sctp" },
		{ s->rr, "cannot be used with --rr" },
		{ s->bidirectional, "cannot be used with --bidir" },
		{ options_seen(test, OPT_ID_BITRATE),
		    "cannot be used with -b (the frames set the rate)" },
		{ test->cfg->opt.diskfile_name != NULL,
		    "cannot be used with -F" },
		{ s->zerocopy, "cannot be used with -Z" },
		{ test->cfg->opt.gsro, "cannot be used with --gsro" },
		{ small, "needs -l of at least 80 bytes" },
	};

	return dgx_rules(test, IEISO, "--isochronous", r,
	    sizeof(r) / sizeof(r[0]));
}
#endif

static int
check_dgx(struct iperf_test *test)
{
	struct iperf_settings *s = &test->settings;
	int udp = s->protocol_id == Pudp;
	int small = udp && s->blksize_set && s->blksize < DGX_MIN_BLKSIZE;

	(void)small;
#ifdef HAVE_MULTICAST
	if (s->mcast_group != NULL) {
		const struct dgx_rule r[] = {
			{ !udp, "needs -u (a group receives UDP)" },
			{ s->reverse, "cannot be used with -R (the client sends "
			    "to the group)" },
			{ s->bidirectional, "cannot be used with --bidir" },
			{ s->num_streams != 1, "takes one stream (-P 1)" },
			{ s->rr, "cannot be used with --rr" },
			{ test->cfg->opt.gsro, "cannot be used with --gsro" },
			{ small, "needs -l of at least 80 bytes" },
		};
		struct sockaddr_storage g, src;
		socklen_t len;

		if (dgx_rules(test, IEMCAST, "--multicast", r,
			sizeof(r) / sizeof(r[0])) == -1)
			return -1;
		if (s->mcast_source != NULL &&
		    (addr_parse_numeric(s->mcast_group, 0, &g, &len) == -1 ||
			addr_parse_numeric(s->mcast_source, 0, &src, &len) ==
			    -1 || g.ss_family != src.ss_family))
			return iperf_fail_arg(test, IEMCAST, "--ssm-source "
			    "must be of the group's family (IPv4 or IPv6)");
		if (s->mcast_ttl == 0)
			s->mcast_ttl = 1;
		while (s->mcast_test_id == 0)
			fill_random(&s->mcast_test_id,
			    sizeof(s->mcast_test_id));
	} else if (options_seen(test, OPT_ID_TTL) ||
	    options_seen(test, OPT_ID_SSM_SOURCE)) {
		return iperf_fail_arg(test, IEMCAST,
		    "--ttl and --ssm-source need --multicast GROUP");
	}
#endif
#ifdef HAVE_ISOCHRONOUS
	if (s->iso && check_iso(test, small) == -1)
		return -1;
#endif
	return 0;
}
#endif

static int
check_rr(struct iperf_test *test)
{
	struct iperf_settings *s = &test->settings;
	int max = s->protocol_id == Pudp ? IPERF_MAX_UDP_BLOCKSIZE :
	    IPERF_MAX_BLOCKSIZE;
	const char *other;
	char msg[64];

	if (!s->rr) {
		if (options_seen(test, OPT_ID_RR_RESPONSE))
			return iperf_fail_arg(test, IERRCONFLICT,
			    "--rr-response needs --rr");
		return 0;
	}
	other = rr_conflict(test);
	if (other != NULL) {
		(void)snprintf(msg, sizeof(msg), "--rr cannot be used with %s",
		    other);
		return iperf_fail_arg(test, IERRCONFLICT, msg);
	}
	if (s->rr_response == 0)
		s->rr_response = s->blksize;
	if (s->rr_response < 1 || s->rr_response > max)
		return iperf_fail(test, IERRRESPONSE, 0);
	return 0;
}

/* Ours: options recognised, checked and stored, but not implemented. */
static int
check_unimplemented(struct iperf_test *test)
{
	size_t i;

	for (i = 0; i < options_table_len; i++) {
		if (!options_table[i].supported &&
		    options_seen(test, options_table[i].id))
			return iperf_fail(test, IEUNIMP, 0);
	}
	return 0;
}

static void
json_warnings(struct iperf_test *test)
{
	if (!test->cfg->opt.json_output)
		return;
	if (options_seen(test, OPT_ID_FORMAT))
		report_warning(test,
		    "Report format (-f) flag ignored with JSON output (-J)");
	if (test->cfg->opt.verbose)
		report_warning(test,
		    "Verbose output (-v) may interfere with JSON output (-J)");
	if (test->cfg->opt.debug)
		report_warning(test,
		    "Debug output (-d) may interfere with JSON output (-J)");
}

#ifdef HAVE_EXPORTER
/* --exporter excludes -s and -c; its own options need it; it takes no
 * option but its own and those of the log (OPT_ROLE_EXPORTER). */
static int
check_exporter(struct iperf_test *test)
{
	char msg[96];
	size_t i;

	if (!options_seen(test, OPT_ID_EXPORTER)) {
		for (i = 0; i < options_table_len; i++)
			if (options_table[i].roles == OPT_ROLE_EXPORTER &&
			    options_seen(test, options_table[i].id)) {
				(void)snprintf(msg, sizeof(msg), "--%s needs "
				    "--exporter", options_table[i].name);
				return iperf_fail_arg(test, IEEXPORTER, msg);
			}
		return 0;
	}
	if (options_seen(test, OPT_ID_SERVER) ||
	    options_seen(test, OPT_ID_CLIENT))
		return iperf_fail_arg(test, IEEXPORTER, "--exporter cannot be "
		    "used with -s or -c (it runs the clients itself)");
	for (i = 0; i < options_table_len; i++)
		if ((options_table[i].roles & OPT_ROLE_EXPORTER) == 0 &&
		    options_table[i].name != NULL &&
		    options_seen(test, options_table[i].id)) {
			(void)snprintf(msg, sizeof(msg), "--%s cannot be used with "
			    "--exporter", options_table[i].name);
			return iperf_fail_arg(test, IEEXPORTER, msg);
		}
	test->cfg->opt.role = 'e';
	return 0;
}
#endif

int
options_check(struct iperf_test *test)
{
	struct iperf_settings *s = &test->settings;

#ifdef HAVE_EXPORTER
	if (check_exporter(test) == -1)
		return -1;
	if (test->cfg->opt.role == 'e')
		return 0;
#endif
	if (check_roles(test) == -1 || check_auth(test) == -1)
		return -1;
	if (test->cfg->opt.diskfile_name != NULL && s->protocol_id == Pudp)
		return iperf_fail(test, IEUDPFILETRANSFER, 0);
	if (check_blksize(test) == -1)
		return -1;
	if (!options_seen(test, OPT_ID_BITRATE))
		s->rate = s->protocol_id == Pudp ? IPERF_DEFAULT_UDP_RATE : 0;
	file_size_as_bytes(test);
	if (check_end_conditions(test) == -1)
		return -1;
	if (test->cfg->opt.role == 'c' && check_rr(test) == -1)
		return -1;
#ifdef HAVE_OWD
	/* --owd: each datagram's own send and arrival time (ext.h). */
	if (test->cfg->opt.owd && test->cfg->opt.gsro)
		return iperf_fail_arg(test, IERRCONFLICT,
		    "--owd cannot be used with --gsro");
#endif
#ifdef HAVE_RPM
	if (test->cfg->opt.role == 'c' && check_rpm(test) == -1)
		return -1;
#endif
#if defined(HAVE_MULTICAST) || defined(HAVE_ISOCHRONOUS)
	if (test->cfg->opt.role == 'c' && check_dgx(test) == -1)
		return -1;
#endif
	if (test->cfg->opt.role != 'c' && test->cfg->opt.role != 's')
		return iperf_fail(test, IENOROLE, 0);
	if (check_unimplemented(test) == -1)
		return -1;
	if (test->cfg->opt.csv && test->cfg->opt.json_output)
		return iperf_fail(test, IEOUTCONFLICT, 0);
	if (options_seen(test, OPT_ID_MAX_TESTS_PER_IP) &&
	    !options_seen(test, OPT_ID_MAX_TESTS))
		return iperf_fail(test, IEPERIPNOMAX, 0);
#ifdef HAVE_OPERATOR
	if (test->cfg->opt.role == 'c' && test->cfg->opt.server_port_last > 0)
		return iperf_fail_arg(test, IESERVEROPT, "a port range (-p "
		    "FIRST-LAST) is for a server; a client connects to one port");
#endif
	json_warnings(test);
	return 0;
}
