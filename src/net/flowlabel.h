/* flowlabel.h - IPv6 flow label on a socket about to connect (Linux). */
#ifndef IPERF_FLOWLABEL_H
#define IPERF_FLOWLABEL_H

#include <sys/types.h>
#include <sys/socket.h>

/*
 * Reserve `label` for the destination in *sa (an IPv6 address) on fd, turn
 * on sending flow information, and put the label into sa's flowinfo so the
 * connect() carries it.  0 or -1 with errno (ENOPROTOOPT if unsupported).
 */
int flowlabel_apply(int fd, struct sockaddr *sa, int label);

#endif /* IPERF_FLOWLABEL_H */
