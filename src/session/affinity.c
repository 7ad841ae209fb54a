/* affinity.c - CPU pinning for -A (see affinity.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#ifdef HAVE_SCHED_SETAFFINITY
#include <sched.h>
#endif

#include "affinity.h"
#include "iperf.h"
#include "iperf_error.h"
#include "banned.h"

#ifdef HAVE_SCHED_SETAFFINITY

struct affinity_saved {
	cpu_set_t mask;
};

int
affinity_pin(struct iperf_test *test, int cpu)
{
	cpu_set_t one;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return iperf_fail(test, IEAFFINITY, EINVAL);
	if (test->affinity_saved == NULL) {
		struct affinity_saved *s = calloc(1, sizeof(*s));

		if (s == NULL)
			return iperf_fail(test, IEAFFINITY, ENOMEM);
		if (sched_getaffinity(0, sizeof(s->mask), &s->mask) == -1) {
			int err = errno;
			free(s);
			return iperf_fail(test, IEAFFINITY, err);
		}
		test->affinity_saved = s;
	}
	CPU_ZERO(&one);
	CPU_SET((size_t)cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) == -1)
		return iperf_fail(test, IEAFFINITY, errno);
	return 0;
}

void
affinity_restore(struct iperf_test *test)
{
	struct affinity_saved *s = test->affinity_saved;

	if (s == NULL)
		return;
	(void)sched_setaffinity(0, sizeof(s->mask), &s->mask);
	free(s);
	test->affinity_saved = NULL;
}

#else /* !HAVE_SCHED_SETAFFINITY */

int
affinity_pin(struct iperf_test *test, int cpu)
{
	(void)cpu;
	return iperf_fail(test, IEAFFINITY, ENOSYS);
}

void
affinity_restore(struct iperf_test *test)
{
	(void)test;
}

#endif
