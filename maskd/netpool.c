/*
 * Network namespaces made ahead of logins (netpool.h says why).
 *
 * One is made by unshare(CLONE_NEWNET) in this thread, opened by /proc/thread-self/ns/net,
 * lo brought up in it, and the thread returns to the namespace the pool was made in by
 * setns on the fd it kept.  While it is away nothing else runs in this thread, and the
 * daemon's sockets were all made before (a socket keeps the namespace it was made in),
 * so nothing of the daemon's lands in the new namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "abutil.h"
#include "netpool.h"

struct ab_netpool {
	int	home;			/* the namespace every fill returns to */
	int	fd[AB_NETPOOL_MAX];
	size_t	n, max;
};

int
ab_netpool_new(size_t max, struct ab_netpool **out)
{
	struct ab_netpool *p;

	*out = NULL;
	if (max == 0 || max > AB_NETPOOL_MAX)
		return -EINVAL;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return -ENOMEM;
	if ((p->home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) == -1) {
		int e = errno;

		free(p);
		return -e;
	}
	p->max = max;
	*out = p;
	return 0;
}

/* One new namespace with lo up: its fd, or -errno.  Back home either way, or
 * -ENOTRECOVERABLE. */
static int
make_one(const struct ab_netpool *p)
{
	int fd = -1, r = 0;

	if (unshare(CLONE_NEWNET) == -1)
		return -errno;		/* still home: unshare changes nothing when it fails */
	if ((fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) == -1)
		r = -errno;
	else if ((r = ab_lo_up()) != 0) {
		(void)close(fd);
		fd = -1;
	}
	if (setns(p->home, CLONE_NEWNET) == -1) {
		if (fd >= 0)
			(void)close(fd);
		return -ENOTRECOVERABLE;
	}
	return fd >= 0 ? fd : r;
}

int
ab_netpool_make(struct ab_netpool *p)
{
	int fd;

	if (p->n == p->max)
		return 0;
	if ((fd = make_one(p)) < 0)
		return fd;
	p->fd[p->n++] = fd;
	return 0;
}

int
ab_netpool_take(struct ab_netpool *p)
{
	if (p->n == 0)
		return -ENOENT;
	return p->fd[--p->n];
}

int
ab_netpool_full(const struct ab_netpool *p)
{
	return p->n == p->max;
}

void
ab_netpool_free(struct ab_netpool *p)
{
	if (p == NULL)
		return;
	while (p->n > 0)
		(void)close(p->fd[--p->n]);
	(void)close(p->home);
	free(p);
}
