/* stream_wait.c - a worker's wait that the end of its test cuts short
 * (stream.h stream_sleep_until): the pacer of stream.c and the frame
 * ticks of iso_stream.c sleep here. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "iperf_time.h"
#include "stream.h"
#include "banned.h"

int
stream_sleep_until(struct iperf_stream *sp, uint64_t deadline_us)
{
	struct timespec ts;
	int stopped;

	ts.tv_sec = (time_t)(deadline_us / USEC_PER_SEC);
	ts.tv_nsec = (long)((deadline_us % USEC_PER_SEC) * 1000);
	pthread_mutex_lock(&sp->w.lock);
	while (!(stopped = atomic_load(&sp->w.stop)) &&
	    iperf_time_now_us() < deadline_us &&
	    pthread_cond_timedwait(&sp->w.wake, &sp->w.lock, &ts) == 0)
		;
	pthread_mutex_unlock(&sp->w.lock);
	return stopped ? -1 : 0;
}
