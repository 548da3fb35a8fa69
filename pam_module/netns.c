/*
 * Network per policy.  Runs before the mount namespace is unshared, because the shared
 * namespace for `network = none` is pinned by a bind mount in the host's mount table.
 *
 *   none      an empty namespace with lo down: nothing to reach, not even 127.0.0.1.
 *             One namespace is shared by every `none` session (pinned at
 *             AB_NETNS_NONE): joining it costs a setns, a fresh one costs a netns
 *             setup at login and an asynchronous teardown after it (bench/README.md).
 *             Sharing is safe because lo stays down (no TCP/UDP between sessions) and
 *             the agent has no CAP_NET_ADMIN to bring it up; the only thing shared is
 *             the abstract unix socket namespace, which the shell's Landlock scoping
 *             (ABI 6) closes per session.
 *   loopback  a fresh namespace per session with lo up: the session's own servers.
 *             Taken from agentbox-maskd's pool (maskd/netpool.h: made ahead, lo up,
 *             handed out once) when it has one ready, else made here: a namespace
 *             costs ~0.4 ms to make, a take ~0.1 (bench/README.md).
 *   proxy     the same; its only way out is agentbox-netd, through listeners netd.c
 *             makes on this lo and hands over (netd-spec.md sections 2 and 3).
 *   host/tcp  the host's namespace; tcp:PORTS is enforced by the shell (Landlock).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/nsfs.h>

#include "handoff.h"
#include "module.h"

#include <security/pam_ext.h>
#include <syslog.h>

#define AB_NETNS_DIR	"/run/agentbox-netns"
#define AB_NETNS_NONE	AB_NETNS_DIR "/none"

/* Bring lo up in the namespace we are in (a pooled one has it up already). */
static int
lo_up(struct ab_sess *s)
{
	int r = ab_lo_up();

	return r == 0 ? 0 : ab_sess_fail(s, r, "lo up: %s", strerror(-r));
}

/* Is FD a network namespace file (an nsfs bind mount, or one passed to us), not a stale
 * placeholder or something else? */
static int
is_netns(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) == -1 || sfs.f_type != NSFS_MAGIC)
		return 0;
	return ioctl(fd, NS_GET_NSTYPE) == CLONE_NEWNET;
}

/* The one fd of agentbox-maskd's "ok" on FD, or -1 (nothing else kept). */
static int
recv_one_fd(int fd)
{
	char reply[AB_MASKD_REPLY_MAX];
	size_t n;
	ssize_t len;
	int got;

	len = ab_recv_fds(fd, reply, sizeof(reply), &got, 1, &n);
	if (len == 2 && n == 1 && memcmp(reply, "ok", 2) == 0)
		return got;
	if (n == 1)
		(void)close(got);
	return -1;
}

/* Is the namespace with stat GOT the one at PATH?  A PATH that does not exist holds
 * none (the shared `none` one may not be pinned yet); one we cannot stat otherwise may
 * be it, for all we know, and says yes. */
static int
same_ns(const struct stat *got, const char *path)
{
	struct stat st;

	if (stat(path, &st) == -1)
		return errno != ENOENT;
	return got->st_dev == st.st_dev && got->st_ino == st.st_ino;
}

/*
 * A namespace of agentbox-maskd's pool, or -1 when there is none to take (no daemon, an
 * empty pool, an answer that is not one network namespace of its own): the box then
 * makes its own, as without a pool, so the pool never decides whether a login opens.
 * Not ours (the host's, or the login's), nor the shared `none` one, whose lo must stay
 * down (step 3 brings a pooled one's up if it is not).
 */
static int
pooled_netns(struct ab_sess *s)
{
	struct stat got;
	int conn, fd;

	if (s->maskd_path == NULL || (conn = ab_maskd_dial(s)) < 0)
		return -1;
	fd = send(conn, "netns", 5, MSG_NOSIGNAL) == 5 ? recv_one_fd(conn) : -1;
	(void)close(conn);
	if (fd >= 0 && (!is_netns(fd) || fstat(fd, &got) == -1 ||
	    same_ns(&got, "/proc/thread-self/ns/net") || same_ns(&got, AB_NETNS_NONE))) {
		pam_syslog(s->pamh, LOG_WARNING, "agentbox-maskd sent something that is not a "
		    "new network namespace: making one here");
		(void)close(fd);
		return -1;
	}
	return fd;
}

void
ab_netns_take_pooled(struct ab_sess *s)
{
	if (s->pol->network == AB_NET_LOOPBACK || s->pol->network == AB_NET_PROXY)
		s->pooled_netns = pooled_netns(s);
}

/* A fresh namespace with lo up, this box's alone: from the pool, or made here. */
static int
own_netns(struct ab_sess *s)
{
	int fd = s->pooled_netns;

	s->pooled_netns = -1;
	if (fd >= 0 && setns(fd, CLONE_NEWNET) == -1) {
		/* Still in our own: make one, as without the pool. */
		pam_syslog(s->pamh, LOG_WARNING, "setns to agentbox-maskd's network namespace: "
		    "%s: making one here", strerror(errno));
		(void)close(fd);
		fd = -1;
	}
	if (fd >= 0) {
		(void)close(fd);
		s->netns_how = "pooled";
	} else {
		if (unshare(CLONE_NEWNET) == -1)
			return ab_sess_fail(s, -errno, "unshare(CLONE_NEWNET): %s", strerror(errno));
		s->netns_how = "made";
	}
	return lo_up(s);
}

#ifndef AB_NETNS_FRESH_NONE

/*
 * With the directory lock held: join the pinned namespace, or make it.  A placeholder
 * file without a namespace bound on it (a crash between create and bind) is replaced.
 */
static int
join_or_make_locked(struct ab_sess *s, int dirfd)
{
	int fd, r;

	fd = openat(dirfd, "none", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && is_netns(fd)) {
		r = setns(fd, CLONE_NEWNET) == -1 ?
		    ab_sess_fail(s, -errno, "setns %s: %s", AB_NETNS_NONE, strerror(errno)) : 0;
		close(fd);
		return r;
	}
	if (fd >= 0)
		close(fd);
	else if (errno != ENOENT)
		return ab_sess_fail(s, -errno, "open %s: %s", AB_NETNS_NONE, strerror(errno));
	if (unlinkat(dirfd, "none", 0) == -1 && errno != ENOENT)
		return ab_sess_fail(s, -errno, "unlink stale %s: %s", AB_NETNS_NONE, strerror(errno));
	if ((fd = openat(dirfd, "none", O_CREAT | O_EXCL | O_RDONLY | O_NOFOLLOW | O_CLOEXEC,
	    0444)) == -1)
		return ab_sess_fail(s, -errno, "create %s: %s", AB_NETNS_NONE, strerror(errno));
	close(fd);
	if (unshare(CLONE_NEWNET) == -1)
		return ab_sess_fail(s, -errno, "unshare(CLONE_NEWNET): %s", strerror(errno));
	/* Still in the host's mount namespace: the pin outlives this session. */
	if (mount("/proc/self/ns/net", AB_NETNS_NONE, NULL, MS_BIND, NULL) == -1)
		return ab_sess_fail(s, -errno, "pin netns on %s: %s", AB_NETNS_NONE,
		    strerror(errno));
	return 0;
}

static int
join_shared_none(struct ab_sess *s)
{
	struct stat st;
	int dirfd, r;

	if (mkdir(AB_NETNS_DIR, 0700) == -1 && errno != EEXIST)
		return ab_sess_fail(s, -errno, "mkdir %s: %s", AB_NETNS_DIR, strerror(errno));
	if ((dirfd = open(AB_NETNS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return ab_sess_fail(s, -errno, "open %s: %s", AB_NETNS_DIR, strerror(errno));
	/* Only a root-owned, root-only directory may hold the pin. */
	if (fstat(dirfd, &st) == -1 || st.st_uid != 0 || (st.st_mode & 077) != 0) {
		close(dirfd);
		return ab_sess_fail(s, -EPERM, "%s is not root-owned mode 0700", AB_NETNS_DIR);
	}
	/* Serialises concurrent first logins: one makes the namespace, the others join. */
	if (flock(dirfd, LOCK_EX) == -1) {
		r = ab_sess_fail(s, -errno, "flock %s: %s", AB_NETNS_DIR, strerror(errno));
		close(dirfd);
		return r;
	}
	r = join_or_make_locked(s, dirfd);
	close(dirfd);	/* drops the lock */
	return r;
}
#endif

int
ab_netns_enter(struct ab_sess *s)
{
	s->netns_how = s->pol->network == AB_NET_NONE ? "shared" : "host";
	switch (s->pol->network) {
	case AB_NET_NONE:
#ifdef AB_NETNS_FRESH_NONE	/* for bench/session-start: a fresh namespace per login */
		if (unshare(CLONE_NEWNET) == -1)
			return ab_sess_fail(s, -errno, "unshare(CLONE_NEWNET): %s", strerror(errno));
		return 0;
#else
		return join_shared_none(s);
#endif
	case AB_NET_LOOPBACK:
	case AB_NET_PROXY:
		return own_netns(s);
	case AB_NET_HOST:
	case AB_NET_TCP:
		return 0;
	}
	return ab_sess_fail(s, -EINVAL, "unknown network mode %d", (int)s->pol->network);
}
