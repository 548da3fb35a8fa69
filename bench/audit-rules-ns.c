/*
 * bench/audit-rules-ns: the CPU cost of one cheap syscall (getppid), best of B batches
 * of N calls, in ns, measured on the thread's own CPU clock so other tenants' load does
 * not count.  bench/audit-rules runs it with the agent rules off and on, alternating.
 *   audit-rules-ns [N=50000] [B=5]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double
cpu_ns(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == -1) {
		perror("clock_gettime");
		exit(1);
	}
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 50000, i;
	int batches = argc > 2 ? atoi(argv[2]) : 5, b;
	double best = 1e30, t0, d;

	if (n <= 0 || batches <= 0)
		return 2;
	for (b = 0; b < batches; b++) {
		t0 = cpu_ns();
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		d = (cpu_ns() - t0) / (double)n;
		if (d < best)
			best = d;
	}
	printf("%.1f\n", best);
	return 0;
}
