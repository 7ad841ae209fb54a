/*
 * affinity.h - -A: pin this process to one CPU for a test, and put the
 * previous mask back afterwards.
 *
 * The loop thread pins itself before the data workers exist; they inherit
 * its mask when they are created.  The mask in force before the first pin
 * is kept on the test (test->affinity_saved) and restored by
 * affinity_restore(), so a process started under taskset(1) gets its own
 * set back rather than every CPU.
 */
#ifndef IPERF_AFFINITY_H
#define IPERF_AFFINITY_H

struct iperf_test;

/* Pin to `cpu`; -1 with IEAFFINITY recorded (errno of the system call). */
int affinity_pin(struct iperf_test *test, int cpu);
/* Undo affinity_pin() (no-op when nothing is pinned). */
void affinity_restore(struct iperf_test *test);

#endif /* IPERF_AFFINITY_H */
