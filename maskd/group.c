/*
 * The two fanotify groups of one session's enforcer (research/dynamic_masks.md 2.1-2.5):
 *   perm   FAN_CLASS_CONTENT, a mount mark on each session mount: every open through
 *          them waits for our answer; opens through any other mount (root's, the
 *          developer's) never do, so masked names keep working outside (a1-a5).
 *   track  FAN_CLASS_NOTIF with file handles, a filesystem mark: every create, rename
 *          and link on those filesystems, so the history knows what carried a masked
 *          name before an open asks (c2).  Mount marks reject dirent events, hence fs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/fanotify.h>

#include "maskd.h"

#define PERM_EVENTS	(FAN_OPEN_PERM | FAN_OPEN_EXEC_PERM)
#define TRACK_EVENTS	(FAN_CREATE | FAN_RENAME | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR)

int
ab_maskd_group_perm(int *out)
{
	/* UNLIMITED_QUEUE: an overflowing permission queue lets the extra opens through
	 * without us (research f: 116 of 16,500).  ENABLE_AUDIT: so FAN_AUDIT answers put
	 * the denial in the opener's own audit event, with its ses. */
	int fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_UNLIMITED_QUEUE |
	    FAN_ENABLE_AUDIT, O_RDONLY | O_LARGEFILE | O_CLOEXEC | O_NONBLOCK);

	if (fd == -1)
		return -errno;
	*out = fd;
	return 0;
}

int
ab_maskd_group_track(int *out)
{
	/* DFID_NAME_TARGET: the directory and name of each entry and the object it names,
	 * so a link (same object, new name) and a rename away are both seen. */
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK |
	    FAN_UNLIMITED_QUEUE | FAN_REPORT_DFID_NAME_TARGET, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return -errno;
	*out = fd;
	return 0;
}

int
ab_maskd_group_mark_mount(int perm, int fd)
{
	if (fanotify_mark(perm, FAN_MARK_ADD | FAN_MARK_MOUNT, PERM_EVENTS, fd, NULL) == -1)
		return -errno;
	return 0;
}

int
ab_maskd_group_mark_fs(int track, int fd)
{
	if (fanotify_mark(track, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, TRACK_EVENTS, fd,
	    NULL) == -1)
		return -errno;
	return 0;
}

int
ab_maskd_group_mark(int perm, int track, int dirfd)
{
	int r;

	if ((r = ab_maskd_group_mark_mount(perm, dirfd)) != 0)
		return r;
	return ab_maskd_group_mark_fs(track, dirfd);
}

/* EVICTABLE: the cache must not pin inodes.  No SURV_MODIFY: a write clears it. */
#define CACHE_ADD	(FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_EVICTABLE)

int
ab_maskd_group_cache(int perm, int fd)
{
	if (fanotify_mark(perm, CACHE_ADD, PERM_EVENTS, fd, NULL) == -1)
		return -errno;
	return 0;
}

/* The cache mark's path for FD: its /proc/self/fd link, which fanotify_mark resolves to
 * the one inode FD names (an O_PATH fd too; a lookup, not an open: no event). */
static int
cache_fd(int perm, unsigned int flags, int fd)
{
	char link[32];

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (fanotify_mark(perm, flags, PERM_EVENTS, AT_FDCWD, link) == -1)
		return -errno;
	return 0;
}

int
ab_maskd_group_cache_fd(int perm, int fd)
{
	return cache_fd(perm, CACHE_ADD, fd);
}

int
ab_maskd_group_uncache_fd(int perm, int fd)
{
	return cache_fd(perm, FAN_MARK_REMOVE | FAN_MARK_IGNORE, fd);
}

/*
 * The learning group of a learn = yes session (maskd/learn.c): notifications only, so
 * no open ever waits for it.  NONBLOCK: the reader drains it between answers.
 * UNLIMITED_QUEUE: an overflow would make the session's learning record incomplete
 * (it is then said so: agentbox-learn-lost); the evictable ignore marks below keep the
 * queue to one event per inode and access.
 */
#define LEARN_EVENTS	(FAN_OPEN | FAN_OPEN_EXEC | FAN_CLOSE_WRITE)

int
ab_maskd_group_learn(int *out)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK |
	    FAN_UNLIMITED_QUEUE, O_RDONLY | O_LARGEFILE | O_CLOEXEC | O_NONBLOCK);

	if (fd == -1)
		return -errno;
	*out = fd;
	return 0;
}

int
ab_maskd_group_mark_learn(int learn, int fd)
{
	if (fanotify_mark(learn, FAN_MARK_ADD | FAN_MARK_MOUNT, LEARN_EVENTS | FAN_ONDIR, fd,
	    NULL) == -1)
		return -errno;
	return 0;
}

int
ab_maskd_group_learn_seen(int learn, int fd, uint64_t mask)
{
	/* EVICTABLE: must not pin inodes.  SURV_MODIFY: a log written a thousand times is
	 * one write to learn.  ONDIR: a directory's ignore mark must say so to apply. */
	mask &= LEARN_EVENTS | FAN_ONDIR;
	if (fanotify_mark(learn, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV | FAN_MARK_EVICTABLE,
	    mask, fd, NULL) == -1)
		return -errno;
	return 0;
}
