/*
 * `agentbox run --ephemeral` (issue 16): the home and every project become overlays
 * whose upper layer is one tmpfs of the session's, so whatever the session writes,
 * renames or deletes there lands in memory that dies with the session's mount
 * namespace; the real trees are only ever the read-only lower layers.
 *
 * Asked for only through the agentbox-run PAM service (module argument `run`: see
 * pam_agentbox.c), so an agent cannot request it, nor have it turned off.
 *
 *  - The upper tmpfs is a detached mount (fsopen/fsmount): no path in the session or
 *    on the host names it, so nothing can reach the layer except through the overlays.
 *    Bounded like the session's /tmp (a tmpfs is charged to no rlimit of the writer).
 *  - Every lower is opened (no symlinks on the way, ab_tree_open) before any overlay
 *    exists, and named to overlayfs as /proc/self/fd/N: the real tree, never an overlay
 *    of an enclosing tree.  Targets are opened by name afterwards, outer trees first,
 *    so a project inside the home is mounted over the home's overlay, where the session
 *    will look for it.
 *  - Runs after the world is built (a project under /tmp is attached again by then)
 *    and before the mask walk, so masks and protects sit on the overlays.
 *  - ab_ephemeral_count, at close_session once every process of the session is dead,
 *    walks the upper layer (fd-relative, no symlinks followed, bounded) against the
 *    lowers: what the session would have changed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "compat.h"
#include "module.h"

#define UPPER_SIZE	"1g"		/* as the session's /tmp */
#define UPPER_INODES	"1048576"
#define COUNT_MAX_DEPTH	256
#define COUNT_MAX	1000000		/* entries visited; past it the count is a floor */

/* Fresh directory NAME in the upper tmpfs, root-owned 0755 (overlay needs upper + work). */
static int
upper_dir(struct ab_sess *s, const char *name)
{
	if (mkdirat(s->eph_upper, name, 0755) == -1)
		return ab_sess_fail(s, -errno, "ephemeral: mkdir %s: %s", name, strerror(errno));
	return 0;
}

/* The detached tmpfs every tree's upper and work directories live in. */
static int
upper_mount(struct ab_sess *s)
{
	int fs, mnt;

	if ((fs = fsopen("tmpfs", FSOPEN_CLOEXEC)) == -1)
		return ab_sess_fail(s, -errno, "ephemeral: fsopen tmpfs: %s", strerror(errno));
	if (fsconfig(fs, FSCONFIG_SET_STRING, "size", UPPER_SIZE, 0) == -1 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "nr_inodes", UPPER_INODES, 0) == -1 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0700", 0) == -1 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == -1) {
		close(fs);
		return ab_sess_fail(s, -errno, "ephemeral: configure tmpfs: %s", strerror(errno));
	}
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	close(fs);
	if (mnt == -1)
		return ab_sess_fail(s, -errno, "ephemeral: fsmount tmpfs: %s", strerror(errno));
	s->eph_upper = mnt;
	return 0;
}

/*
 * The upper root directory stands for the tree's root in the overlay (overlayfs takes
 * the root's attributes from the upper layer): it gets the lower root's owner, mode and
 * POSIX ACLs (enroll grants the agent a project through its ACL), so the agent may
 * create in its tree exactly as without --ephemeral.
 */
static int
upper_root_like_lower(struct ab_sess *s, const char *name, int lower)
{
	static const char *const acls[] = { "system.posix_acl_access",
	    "system.posix_acl_default" };
	char path[64], buf[4096];
	struct stat st;
	ssize_t n;
	size_t i;
	int fd, r = 0;

	if (fstat(lower, &st) == -1)
		return ab_sess_fail(s, -errno, "ephemeral: fstat lower: %s", strerror(errno));
	fd = openat(s->eph_upper, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return ab_sess_fail(s, -errno, "ephemeral: open %s: %s", name, strerror(errno));
	if (fchown(fd, st.st_uid, st.st_gid) == -1 || fchmod(fd, st.st_mode & 07777) == -1)
		r = ab_sess_fail(s, -errno, "ephemeral: owner and mode of %s: %s", name,
		    strerror(errno));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", lower);
	for (i = 0; r == 0 && i < sizeof(acls) / sizeof(acls[0]); i++) {
		if ((n = getxattr(path, acls[i], buf, sizeof(buf))) == -1) {
			if (errno == ENODATA || errno == EOPNOTSUPP)
				continue;
			r = ab_sess_fail(s, -errno, "ephemeral: read %s: %s", acls[i],
			    strerror(errno));
		} else if (fsetxattr(fd, acls[i], buf, (size_t)n, 0) == -1)
			r = ab_sess_fail(s, -errno, "ephemeral: set %s: %s", acls[i],
			    strerror(errno));
	}
	close(fd);
	return r;
}

/* Overlay tree I (lower already open) on its path as the session resolves it now. */
static int
overlay_one(struct ab_sess *s, size_t i)
{
	char opts[256], name[32], target[64];
	int fd, r;

	snprintf(name, sizeof(name), "u%zu", i);
	if ((r = upper_dir(s, name)) != 0 ||
	    (r = upper_root_like_lower(s, name, s->eph_lower[i])) != 0)
		return r;
	snprintf(name, sizeof(name), "w%zu", i);
	if ((r = upper_dir(s, name)) != 0)
		return r;
	if ((fd = ab_tree_open(s, i, O_PATH)) < 0)
		return fd;
	/* No xino/index/metacopy: the defaults, nothing exported or shared across mounts. */
	snprintf(opts, sizeof(opts), "lowerdir=/proc/self/fd/%d,upperdir=/proc/self/fd/%d/u%zu,"
	    "workdir=/proc/self/fd/%d/w%zu", s->eph_lower[i], s->eph_upper, i, s->eph_upper, i);
	snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
	if (mount("agentbox-ephemeral", target, "overlay", MS_NOSUID | MS_NODEV, opts) == -1)
		r = ab_sess_fail(s, -errno, "ephemeral: overlay on %s: %s",
		    ab_trees_path(s->home, &s->pol->project, i), strerror(errno));
	close(fd);
	return r;
}

/* Tree J is tree I again (a project listed twice, or the home as a project). */
static int
same_tree(struct ab_sess *s, size_t i, size_t j)
{
	const char *a = ab_trees_path(s->home, &s->pol->project, i);
	const char *b = ab_trees_path(s->home, &s->pol->project, j);

	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

int
ab_ephemeral_apply(struct ab_sess *s)
{
	size_t n = ab_trees_n(&s->pol->project), i, j, len, *order;
	const char *p;
	int r = 0;

	if ((s->eph_lower = calloc(n, sizeof(*s->eph_lower))) == NULL ||
	    (order = calloc(n, sizeof(*order))) == NULL)
		return ab_sess_fail(s, -ENOMEM, "out of memory");
	s->eph_n = n;
	for (i = 0; i < n; i++)
		s->eph_lower[i] = -1;
	/* 1. Every real tree, before any overlay hides one inside another. */
	for (i = 0; i < n && r == 0; i++) {
		for (j = 0; j < i && !same_tree(s, i, j); j++)
			;
		if (j < i)
			continue;
		if ((r = ab_tree_open(s, i, O_PATH)) == -ENOENT && i == 0)
			r = 0;		/* no home: nothing to keep (mask.c skips it too) */
		else if (r >= 0) {
			s->eph_lower[i] = r;
			r = 0;
		}
	}
	if (r == 0)
		r = upper_mount(s);
	/* 2. Outer trees first (shorter paths): a nested tree is mounted on the overlay. */
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = 1; i < n; i++)
		for (j = i; j > 0; j--) {
			p = ab_trees_path(s->home, &s->pol->project, order[j - 1]);
			len = p != NULL ? strlen(p) : 0;
			p = ab_trees_path(s->home, &s->pol->project, order[j]);
			if (p == NULL || strlen(p) >= len)
				break;
			order[j] ^= order[j - 1], order[j - 1] ^= order[j], order[j] ^= order[j - 1];
		}
	for (i = 0; i < n && r == 0; i++)
		if (s->eph_lower[order[i]] != -1)
			r = overlay_one(s, order[i]);
	free(order);
	return r;
}

/* ---- the count, at close_session ------------------------------------------------------ */

static int
is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 0 && minor(st->st_rdev) == 0;
}

/* Upper directory UFD against lower directory LFD (-1: nothing below, all created). */
static void
count_dir(int ufd, int lfd, int depth, struct ab_eph_count *c)
{
	struct dirent *de;
	struct stat st, lst;
	DIR *d;
	int sub, lsub, in_lower;

	if (depth > COUNT_MAX_DEPTH || (d = fdopendir(ufd)) == NULL) {
		c->partial = 1;
		close(ufd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++c->visited > COUNT_MAX) {
			c->partial = 1;
			break;
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
			c->partial = 1;
			continue;
		}
		in_lower = lfd != -1 &&
		    fstatat(lfd, de->d_name, &lst, AT_SYMLINK_NOFOLLOW) == 0;
		if (is_whiteout(&st)) {
			c->deleted++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (in_lower)
				c->modified++;
			else
				c->created++;
			continue;
		}
		/* A directory only copied up to hold a changed entry is no change itself. */
		if (!in_lower || !S_ISDIR(lst.st_mode))
			c->created++;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC);
		if (sub == -1) {
			c->partial = 1;
			continue;
		}
		lsub = in_lower && S_ISDIR(lst.st_mode) ? openat(lfd, de->d_name, O_PATH |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		count_dir(sub, lsub, depth + 1, c);
		if (lsub != -1)
			close(lsub);
	}
	closedir(d);
}

void
ab_ephemeral_count(int upper, const int *lower, size_t n, struct ab_eph_count *c)
{
	char name[32];
	size_t i;
	int fd;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < n; i++) {
		if (lower[i] == -1)
			continue;
		snprintf(name, sizeof(name), "u%zu", i);
		fd = openat(upper, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1) {
			c->partial = 1;
			continue;
		}
		count_dir(fd, lower[i], 0, c);
	}
}
