/* mcast_acct.c - a multicast listener's accounting (see mcast_acct.h). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "mcast_acct.h"
#include "wire_time.h"
#include "udp_acct.h"
#include "banned.h"

void
mcast_acct_init(struct mcast_acct *a, int counters64)
{
	memset(a, 0, sizeof(*a));
	udp_acct_init(&a->ua);
	a->counters64 = counters64;
}

static void
owd_add(struct mcast_stats *s, double ms)
{
	if (s->owd_n == 0 || ms < s->owd_min_ms)
		s->owd_min_ms = ms;
	if (s->owd_n == 0 || ms > s->owd_max_ms)
		s->owd_max_ms = ms;
	s->owd_sum_ms += ms;
	s->owd_n++;
}

/* The first datagram: the count starts just below it (a late joiner
 * does not count what was sent before it joined as lost). */
static void
start_at(struct mcast_acct *a, uint64_t seq)
{
	if (!a->counters64)
		seq &= 0xffffffffu;
	a->first_seq = seq;
	a->ua.hi = seq > 0 ? seq - 1 : 0;
	a->hi_mark = a->ua.hi;
	a->started = 1;
}

void
mcast_acct_datagram(struct mcast_acct *a, uint64_t seq, size_t len,
    int64_t sent_us, int64_t arrival_us)
{
	double owd_ms;

	sent_us = wire_time_us(sent_us);
	arrival_us = wire_time_us(arrival_us);
	owd_ms = (double)(arrival_us - sent_us) / 1000.0;

	if (!a->started)
		start_at(a, seq);
	(void)udp_acct_update(&a->ua, seq, a->counters64, sent_us, arrival_us,
	    0);
	a->total.bytes += len;
	a->total.received++;
	a->ival.bytes += len;
	a->ival.received++;
	owd_add(&a->total, owd_ms);
	owd_add(&a->ival, owd_ms);
}

void
mcast_acct_interval(struct mcast_acct *a, struct mcast_stats *out)
{
	*out = a->ival;
	out->packets = (int64_t)(a->ua.hi - a->hi_mark);
	out->lost = a->ua.lost - a->lost_mark;
	out->ooo = a->ua.ooo - a->ooo_mark;
	out->jitter_ms = a->ua.jitter * 1000.0;
	memset(&a->ival, 0, sizeof(a->ival));
	a->hi_mark = a->ua.hi;
	a->lost_mark = a->ua.lost;
	a->ooo_mark = a->ua.ooo;
}

/* x + y, at most INT64_MAX (64-bit sequence numbers from a sender can
 * be anything). */
static int64_t
sat_add(int64_t x, uint64_t y)
{
	if (x < 0) {
		uint64_t m = (uint64_t)(-(x + 1)) + 1; /* |x|, up to 2^63 */

		if (y < m)
			return x + (int64_t)y;
		y -= m;
		x = 0;
	}
	return y > (uint64_t)INT64_MAX - (uint64_t)x ? INT64_MAX :
	    x + (int64_t)y;
}

void
mcast_acct_total(const struct mcast_acct *a, int have_total,
    uint64_t sender_packets, struct mcast_stats *out)
{
	*out = a->total;
	out->jitter_ms = a->ua.jitter * 1000.0;
	out->ooo = a->ua.ooo;
	if (!a->started) {
		out->packets = have_total ? (int64_t)(sender_packets & INT64_MAX)
					  : 0;
		out->lost = out->packets;
		return;
	}
	out->packets = sat_add(0, a->ua.hi - a->first_seq + 1);
	out->lost = a->ua.lost;
	/* the tail: sent after the last datagram that arrived */
	if (have_total && sender_packets > a->ua.hi) {
		out->packets = sat_add(out->packets, sender_packets - a->ua.hi);
		out->lost = sat_add(out->lost, sender_packets - a->ua.hi);
	}
}

double
mcast_stats_lost_percent(const struct mcast_stats *s)
{
	if (s->packets <= 0)
		return 0.0;
	return 100.0 * (double)s->lost / (double)s->packets;
}

double
mcast_stats_owd_mean_ms(const struct mcast_stats *s)
{
	return s->owd_n > 0 ? s->owd_sum_ms / (double)s->owd_n : 0.0;
}
