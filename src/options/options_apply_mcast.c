/*
 * options_apply_mcast.c - --multicast GROUP, --ttl N, --ssm-source ADDR
 * (client), --multicast-allow GROUP|CIDR and --multicast-listen GROUP
 * (server), and --isochronous FPS:MEAN,STDDEV (client).  Each value is
 * checked as given; the combinations are options_check.c's.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cidr.h"
#include "iperf.h"
#include "iperf_error.h"
#include "options_int.h"
#include "test_config.h"
#include "units.h"
#include "util.h"
#include "banned.h"

#ifdef HAVE_MULTICAST
static int
mcast_fail(struct iperf_test *test, const char *option, const char *arg,
    const char *why)
{
	char msg[300];

	(void)snprintf(msg, sizeof(msg), "invalid value for %s: '%.120s' - %s",
	    option, arg, why);
	return iperf_fail_arg(test, IEMCAST, msg);
}

/* 1 if text is a numeric IPv4 or IPv6 multicast address. */
static int
is_group(const char *text)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (inet_pton(AF_INET, text, &a4) == 1)
		return IN_MULTICAST(ntohl(a4.s_addr));
	if (inet_pton(AF_INET6, text, &a6) == 1)
		return IN6_IS_ADDR_MULTICAST(&a6);
	return 0;
}

/* 1 if text is a numeric IPv4 or IPv6 unicast address. */
static int
is_unicast(const char *text)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (inet_pton(AF_INET, text, &a4) == 1)
		return !IN_MULTICAST(ntohl(a4.s_addr)) && a4.s_addr != 0;
	if (inet_pton(AF_INET6, text, &a6) == 1)
		return !IN6_IS_ADDR_MULTICAST(&a6) &&
		    !IN6_IS_ADDR_UNSPECIFIED(&a6);
	return 0;
}

int
opt_apply_multicast(struct iperf_test *test, const char *arg)
{
	if (!is_group(arg))
		return mcast_fail(test, "--multicast", arg,
		    "a multicast group address (224.0.0.0/4 or ff00::/8)");
	return options_string(test, &test->settings.mcast_group, arg);
}

int
opt_apply_ttl(struct iperf_test *test, const char *arg)
{
	int v;

	if (options_int_strict(test, "--ttl", arg, &v) == -1)
		return -1;
	if (v < 1 || v > 255)
		return mcast_fail(test, "--ttl", arg, "1 to 255");
	test->settings.mcast_ttl = v;
	return 0;
}

int
opt_apply_ssm_source(struct iperf_test *test, const char *arg)
{
	if (!is_unicast(arg))
		return mcast_fail(test, "--ssm-source", arg,
		    "the sender's unicast address");
	return options_string(test, &test->settings.mcast_source, arg);
}

int
opt_apply_multicast_allow(struct iperf_test *test, const char *arg)
{
	struct cidr c;
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (cidr_parse(arg, &c) == -1)
		return mcast_fail(test, "--multicast-allow", arg,
		    "a group or GROUP/PREFIX");
	/* the prefix's first address must be a group */
	if (c.family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, c.addr, 4);
		if (!IN_MULTICAST(ntohl(s4->sin_addr.s_addr)) || c.bits < 4)
			return mcast_fail(test, "--multicast-allow", arg,
			    "groups only (within 224.0.0.0/4)");
	} else {
		if (c.addr[0] != 0xff || c.bits < 8)
			return mcast_fail(test, "--multicast-allow", arg,
			    "groups only (within ff00::/8)");
	}
	return options_list_add(test, &test->cfg->opt.mcast_allow,
	    &test->cfg->opt.mcast_allow_count, arg);
}

int
opt_apply_multicast_listen(struct iperf_test *test, const char *arg)
{
	if (!is_group(arg))
		return mcast_fail(test, "--multicast-listen", arg,
		    "a multicast group address (224.0.0.0/4 or ff00::/8)");
	return options_string(test, &test->cfg->opt.mcast_listen, arg);
}
#endif /* HAVE_MULTICAST */

#ifdef HAVE_ISOCHRONOUS
static int
iso_fail(struct iperf_test *test, const char *arg, const char *why)
{
	char msg[300];

	(void)snprintf(msg, sizeof(msg),
	    "invalid value for --isochronous: '%.120s' - %s", arg, why);
	return iperf_fail_arg(test, IEISO, msg);
}

/* A rate with -b's suffixes (k, m, g, t: 1000s), into *out. */
static int
iso_rate(const char *text, uint64_t *out)
{
	double v;

	if (units_parse(text, UNITS_RATE, &v) == -1 || !(v >= 0) || v > 1e13)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/*
 * --isochronous[=FPS:MEAN,STDDEV]: frames per second (1 to 1000), then
 * the mean and standard deviation of the frames' sizes as rates (bits/s,
 * -b's suffixes).  Without a value (or a part of it): 60:20m,0.
 */
int
opt_apply_isochronous(struct iperf_test *test, const char *arg)
{
	struct iperf_settings *s = &test->settings;
	char buf[128], *colon, *comma, *end = NULL;
	double fps;

	s->iso = 1;
	s->iso_fps = ISO_DEFAULT_FPS;
	s->iso_mean = ISO_DEFAULT_MEAN;
	s->iso_stddev = 0;
	if (arg == NULL || *arg == '\0')
		return 0;
	if (strlen(arg) >= sizeof(buf))
		return iso_fail(test, arg, "too long");
	str_copy(buf, arg, sizeof(buf));
	colon = strchr(buf, ':');
	if (colon != NULL)
		*colon = '\0';
	errno = 0;
	fps = strtod(buf, &end);
	if (end == buf || *end != '\0' || errno != 0 || !(fps >= 1) ||
	    fps > 1000)
		return iso_fail(test, arg,
		    "FPS:MEAN,STDDEV with 1 to 1000 frames a second");
	s->iso_fps = fps;
	if (colon == NULL)
		return 0;
	comma = strchr(colon + 1, ',');
	if (comma != NULL)
		*comma = '\0';
	if (iso_rate(colon + 1, &s->iso_mean) == -1 || s->iso_mean == 0)
		return iso_fail(test, arg, "the mean is a rate (bits/s), "
		    "as -b takes it, above 0");
	if (comma != NULL && iso_rate(comma + 1, &s->iso_stddev) == -1)
		return iso_fail(test, arg, "the deviation is a rate "
		    "(bits/s), as -b takes it");
	return 0;
}
#endif /* HAVE_ISOCHRONOUS */
