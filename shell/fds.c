/*
 * Nothing inherited survives: Landlock checks access when a file is opened, so an fd
 * opened before the domain (a caller's secret file, a host socket, a directory fd to
 * walk out of the box with openat) keeps every right it had.  Only 0, 1 and 2 pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shell.h"

/* Fallback for kernels without close_range (before 5.9): close up to the fd limit. */
static int
close_from(unsigned int first)
{
	struct rlimit rl;
	unsigned int fd;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return -errno;
	for (fd = first; fd < rl.rlim_max && fd < (1U << 20); fd++)
		(void)close((int)fd);	/* EBADF is the common case, not an error */
	return 0;
}

int
ab_fds_reset(void)
{
	int fd, nfd;

	/* The raw call: musl, which the shell is built with, has no close_range(). */
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == -1) {
		if (errno != ENOSYS)
			return -errno;
		if ((fd = close_from(3)) != 0)
			return fd;
	}
	/*
	 * A closed 0, 1 or 2 would be reused by the next open: the shell would then write
	 * its prompt into whatever file it opened first.
	 */
	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1)
			continue;
		if (errno != EBADF)
			return -errno;
		if ((nfd = openat(AT_FDCWD, "/dev/null", O_RDWR)) == -1)
			return -errno;
		if (nfd != fd) {
			(void)close(nfd);
			return -EBADF;
		}
	}
	return 0;
}
