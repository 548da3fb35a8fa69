/*
 * bench/full-speed-ops: the price of one operation, for bench/full-speed's rows.
 *
 *   full-speed-ops syscall N      getppid N times          (seccomp, audit entry/exit)
 *   full-speed-ops open PATH N    open + close PATH N times (path walk, Landlock,
 *                                 audit name and inode collection)
 *   full-speed-ops stat PATH N    fstatat PATH N times
 *   full-speed-ops exec N         fork + exec /bin/true + wait, N times
 *
 * Prints the best of 5 repetitions in nanoseconds per operation: the CPU cost, with as
 * little of the shared machine's noise as one number can carry.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
		perror("clock_gettime");
		exit(1);
	}
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int
one(const char *op, const char *path)
{
	struct stat st;
	pid_t pid;
	int fd, status;

	if (strcmp(op, "syscall") == 0)
		return syscall(SYS_getppid) > 0 ? 0 : -1;
	if (strcmp(op, "open") == 0) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			return -1;
		return close(fd);
	}
	if (strcmp(op, "stat") == 0)
		return fstatat(AT_FDCWD, path, &st, 0);
	if (strcmp(op, "exec") == 0) {
		if ((pid = fork()) == -1)
			return -1;
		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			return -1;
		return 0;
	}
	errno = EINVAL;
	return -1;
}

int
main(int argc, char **argv)
{
	const char *op, *path = NULL;
	double best = 0, t;
	long n, i;
	int rep;

	if (argc < 3) {
		fprintf(stderr, "usage: full-speed-ops syscall|exec N | open|stat PATH N\n");
		return 2;
	}
	op = argv[1];
	if (strcmp(op, "open") == 0 || strcmp(op, "stat") == 0) {
		if (argc != 4)
			return 2;
		path = argv[2];
	}
	n = atol(argv[argc - 1]);
	if (n <= 0)
		return 2;
	for (rep = 0; rep < 5; rep++) {
		t = now_ns();
		for (i = 0; i < n; i++)
			if (one(op, path) != 0) {
				fprintf(stderr, "full-speed-ops: %s: %s\n", op, strerror(errno));
				return 1;
			}
		t = (now_ns() - t) / n;
		if (rep == 0 || t < best)
			best = t;
	}
	printf("%.0f\n", best);
	return 0;
}
