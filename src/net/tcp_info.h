/* tcp_info.h - TCP_INFO and congestion-control queries behind one struct. */
#ifndef IPERF_TCP_INFO_H
#define IPERF_TCP_INFO_H

#include <stddef.h>
#include <stdint.h>

struct tcpinfo_snapshot {
	int valid;
	int64_t total_retrans;
	uint64_t snd_cwnd; /* bytes (segments x MSS) */
	uint64_t snd_wnd;  /* bytes */
	uint64_t rtt;      /* us */
	uint64_t rttvar;   /* us */
	uint64_t pmtu;
	uint64_t reorder;  /* reordering events seen (tcpi_reord_seen) */
	uint64_t snd_mss;
};

/* 1 if this platform reports retransmits through TCP_INFO. */
int tcp_info_has_retransmits(void);
/* Read TCP_INFO of fd; 0 or -1 (snapshot marked invalid). */
int tcp_info_read(int fd, struct tcpinfo_snapshot *out);
/* The congestion algorithm in use on fd; 0 or -1. */
int tcp_congestion_get(int fd, char *buf, size_t len);
/* Set the algorithm; 0 or -1 with errno. */
int tcp_congestion_set(int fd, const char *name);

#endif /* IPERF_TCP_INFO_H */
