/* listen_fds.h - sockets handed over by a service manager (systemd socket
 * activation, the plain environment protocol; no libsystemd). */
#ifndef IPERF_LISTEN_FDS_H
#define IPERF_LISTEN_FDS_H

#include <stddef.h>

/* The first passed descriptor (systemd's SD_LISTEN_FDS_START). */
#define LISTEN_FDS_START 3

/*
 * The sockets the service manager passed: LISTEN_PID equal to getpid(),
 * LISTEN_FDS = n sockets from fd 3 (SD_LISTEN_FDS_START), stored in
 * fds[0..n-1].  Each is marked close-on-exec and checked to be a socket;
 * the variables LISTEN_PID, LISTEN_FDS, LISTEN_FDNAMES are unset (so
 * children don't see them) whenever LISTEN_PID names this process, on
 * success and on error alike.  Returns the count (0 when no activation:
 * LISTEN_PID absent or not ours, in which case nothing is touched), or -1
 * with a message in err for a malformed environment (non-numeric,
 * LISTEN_PID ours with LISTEN_FDS absent or n <= 0, n > max, an fd that
 * is not open or not a socket); on -1 no descriptor is changed.  Call it
 * once, early, before any thread starts (it edits the environment).
 */
int listen_fds_take(int *fds, int max, char *err, size_t errlen);

/*
 * What a passed socket is: type SOCK_STREAM or SOCK_DGRAM (or another
 * SOCK_ value), family AF_INET/AF_INET6/..., its local port (0 for a
 * family without ports), whether it is listening (SO_ACCEPTCONN).  Any
 * out pointer may be NULL.  0 or -1 with errno (ENOTSOCK for a
 * descriptor that is not a socket).
 */
int listen_fd_describe(int fd, int *type, int *family, int *port,
    int *listening);

#endif /* IPERF_LISTEN_FDS_H */
