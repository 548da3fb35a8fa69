/*
 * The session's world: what every enrolled session sees instead of the host's shared,
 * writable and listening places.  Runs as root inside the session's fresh mount
 * namespace (already a slave of the host's, so nothing mounted here leaks out).
 *
 *   /tmp /var/tmp /dev/shm   private tmpfs (mode 1777, bounded size): no host temp
 *                            files, no host sockets (X11, ssh-agent, tmux, screen, ...)
 *   /dev                     tmpfs with null zero full random urandom tty bound from the
 *                            host, /dev/log (the caller's own pam_syslog lines at
 *                            logout need it; any user can write syslog anyway), a new
 *                            devpts instance (other sessions' ptys unreachable, the
 *                            session's own tmux works), ptmx, fd, stdin/out/err, shm
 *   /run                     a fresh tmpfs: everything listening or kept by the host
 *                            under /run vanishes at once (docker.sock, dbus, systemd,
 *                            other users' /run/user/UID, sudo's timestamps, screen,
 *                            postgresql, nscd, ...) rather than a deny list that misses
 *                            the next daemon; only /run/utmp (who, utmp of the caller)
 *                            and, read-only, /run/systemd/resolve (resolv.conf on
 *                            systemd-resolved hosts) are kept, plus /run/lock, /run/shm
 *   /run/user/UID            the session's own runtime dir (tmpfs, 0700, the agent's)
 *   /run/agentbox            tmpfs for the plan and the mask sources; sealed read-only
 *                            after the plan is written (ab_world_seal)
 *   /etc/resolv.conf         network = proxy: "nameserver 127.0.0.1", read-only, so
 *                            lookups go to agentbox-netd's answerer on the box's lo
 *   projects, home           if one lives under a replaced tree (a project in /tmp),
 *                            it is cloned before and attached at its path after
 *
 * Host objects are cloned with open_tree(OPEN_TREE_CLONE) before the tmpfs mounts hide
 * them, then attached with move_mount: no path is re-resolved after /dev or /run moved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <security/pam_modutil.h>

#include "compat.h"
#include "module.h"

/*
 * Sizes of the session's writable tmpfs.  tmpfs pages are charged to no rlimit of the
 * writer and, without swap, cannot be reclaimed: unbounded (the kernel's default is half
 * of RAM, per mount, per session) an agent could push the host into OOM through its
 * private /tmp.  Fixed sizes, not shares of RAM: a share (the first version took 25 %
 * + 10 % + 10 % + 5 %) multiplies by the number of sessions and still let one session
 * write 2 GiB on a 24 GiB host (escape suite F6).  About 1.8 GiB per session at most;
 * a build needs /tmp most.  Big scratch data belongs in the project or the home.
 */
#define TMP_OPTS	"mode=1777,size=1g,nr_inodes=1m"
#define VARTMP_OPTS	"mode=1777,size=512m,nr_inodes=256k"
#define SHM_OPTS	"mode=1777,size=256m,nr_inodes=64k"
#define RUNUSER_SIZE	"size=64m,nr_inodes=64k"

/* Trees the session gets a fresh, empty copy of: a project below them would vanish. */
static const char *const private_trees[] = {
	"/tmp", "/var/tmp", "/dev", "/run", "/var/run",
};

/* Host objects kept in the world: cloned before the hiding mounts, attached after. */
enum { KEEP_NULL, KEEP_ZERO, KEEP_FULL, KEEP_RANDOM, KEEP_URANDOM, KEEP_TTY, KEEP_LOG,
	KEEP_UTMP, KEEP_RESOLVE, KEEP_N };
static const struct keep_row {
	const char	*src;
	const char	*dst;		/* relative to the new /dev or /run */
	int		 in_run;	/* 0: under /dev, 1: under /run */
	int		 optional;	/* a host without it is fine */
	int		 is_dir;
	uint64_t	 attr;		/* mount_setattr on the clone */
} keep[KEEP_N] = {
	[KEEP_NULL]	= { "/dev/null", "null", 0, 0, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC },
	[KEEP_ZERO]	= { "/dev/zero", "zero", 0, 0, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC },
	[KEEP_FULL]	= { "/dev/full", "full", 0, 0, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC },
	[KEEP_RANDOM]	= { "/dev/random", "random", 0, 0, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC },
	[KEEP_URANDOM]	= { "/dev/urandom", "urandom", 0, 0, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC },
	[KEEP_TTY]	= { "/dev/tty", "tty", 0, 0, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC },
	[KEEP_LOG]	= { "/dev/log", "log", 0, 1, 0,
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NODEV },
	[KEEP_UTMP]	= { "/run/utmp", "utmp", 1, 1, 0,
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NODEV },
	[KEEP_RESOLVE]	= { "/run/systemd/resolve", "systemd/resolve", 1, 1, 1,
	    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NODEV },
};

/* Is PATH one of the private trees or below one? */
static int
under_private_tree(const char *path)
{
	size_t i, n;

	for (i = 0; i < sizeof(private_trees) / sizeof(private_trees[0]); i++) {
		n = strlen(private_trees[i]);
		if (strncmp(path, private_trees[i], n) == 0 && (path[n] == '\0' || path[n] == '/'))
			return 1;
	}
	return 0;
}

/* Is PATH strictly below DIR? */
static int
below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/*
 * Projects (and a home) that live under a tree the session replaces, e.g. a project
 * in /tmp, would vanish.  They are cloned (recursively, so mounts below come along)
 * before the tmpfs mounts and attached at the same path in the fresh tree.  Opened
 * with RESOLVE_NO_SYMLINKS: anyone can plant a symlink in /tmp.
 */
struct hidden {
	const char	*path;
	int		 fd;	/* detached clone, or -1: not hidden, or below another */
};

static int
clone_hidden(struct ab_sess *s, struct hidden *h, size_t n)
{
	size_t i, j;
	int fd;

	for (i = 0; i < n; i++) {
		if (!under_private_tree(h[i].path) || strcmp(h[i].path, "/tmp") == 0 ||
		    strcmp(h[i].path, "/var/tmp") == 0 || strcmp(h[i].path, "/dev") == 0 ||
		    strcmp(h[i].path, "/run") == 0)
			continue;
		for (j = 0; j < n; j++)	/* visible through an enclosing one already */
			if (j != i && below(h[i].path, h[j].path))
				break;
		if (j < n)
			continue;
		if ((fd = ab_tree_open(s, i, O_PATH)) == -ENOENT && i == 0)
			continue;	/* no home: nothing to keep (mask.c skips it too) */
		if (fd < 0)
			return fd;
		h[i].fd = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
		    AT_RECURSIVE);
		close(fd);
		if (h[i].fd == -1)
			return ab_sess_fail(s, -errno, "clone %s: %s", h[i].path, strerror(errno));
	}
	return 0;
}

/* mkdir -p PATH in the fresh trees (root-owned 0755 components), then attach CLONE. */
static int
attach_hidden_one(struct ab_sess *s, const char *path, int clone)
{
	char buf[PATH_MAX], *comp, *next, *save = NULL;
	int dirfd, fd, r = 0;

	if (strlen(path) >= sizeof(buf))
		return ab_sess_fail(s, -ENAMETOOLONG, "%s: path too long", path);
	strcpy(buf, path);
	if ((dirfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return ab_sess_fail(s, -errno, "open /: %s", strerror(errno));
	for (comp = strtok_r(buf, "/", &save); comp != NULL; comp = next) {
		next = strtok_r(NULL, "/", &save);
		if (mkdirat(dirfd, comp, 0755) == -1 && errno != EEXIST) {
			r = ab_sess_fail(s, -errno, "mkdir for %s: %s", path, strerror(errno));
			break;
		}
		if (next == NULL) {
			if (move_mount(clone, "", dirfd, comp, MOVE_MOUNT_F_EMPTY_PATH) == -1)
				r = ab_sess_fail(s, -errno, "attach %s: %s", path, strerror(errno));
			break;
		}
		fd = openat(dirfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1) {
			r = ab_sess_fail(s, -errno, "open for %s: %s", path, strerror(errno));
			break;
		}
		close(dirfd);
		dirfd = fd;
	}
	close(dirfd);
	return r;
}

static int
attach_hidden(struct ab_sess *s, struct hidden *h, size_t n)
{
	size_t i;
	int r;

	for (i = 0; i < n; i++)
		if (h[i].fd != -1 && (r = attach_hidden_one(s, h[i].path, h[i].fd)) != 0)
			return r;
	return 0;
}

/* Clone every host object we keep; optional ones that do not exist stay -1. */
static int
clone_keeps(struct ab_sess *s, int fds[KEEP_N])
{
	struct mount_attr attr;
	int i;

	for (i = 0; i < KEEP_N; i++) {
		fds[i] = open_tree(AT_FDCWD, keep[i].src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (fds[i] == -1) {
			if (keep[i].optional && errno == ENOENT)
				continue;
			return ab_sess_fail(s, -errno, "clone %s: %s", keep[i].src, strerror(errno));
		}
		memset(&attr, 0, sizeof(attr));
		attr.attr_set = keep[i].attr;
		if (mount_setattr(fds[i], "", AT_EMPTY_PATH, &attr, sizeof(attr)) == -1)
			return ab_sess_fail(s, -errno, "mount_setattr %s: %s", keep[i].src,
			    strerror(errno));
	}
	return 0;
}

/* mkdir the (single) parent component of REL under DIRFD, 0755. */
static int
mkdir_parent(int dirfd, const char *rel)
{
	char parent[64];
	size_t n = (size_t)(strchr(rel, '/') - rel);

	if (n >= sizeof(parent)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(parent, rel, n);
	parent[n] = '\0';
	if (mkdirat(dirfd, parent, 0755) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

/* Attach the clones that go under DIRFD (the new /dev or /run) onto fresh stand-ins. */
static int
attach_keeps(struct ab_sess *s, int fds[KEEP_N], int dirfd, int in_run)
{
	int i, fd;

	for (i = 0; i < KEEP_N; i++) {
		if (fds[i] == -1 || keep[i].in_run != in_run)
			continue;
		/* "systemd/resolve": its parent first (fresh tmpfs, nobody else in it). */
		if (strchr(keep[i].dst, '/') != NULL && mkdir_parent(dirfd, keep[i].dst) == -1)
			return ab_sess_fail(s, -errno, "mkdir for %s: %s", keep[i].src,
			    strerror(errno));
		if (keep[i].is_dir) {
			if (mkdirat(dirfd, keep[i].dst, 0755) == -1)
				return ab_sess_fail(s, -errno, "mkdir for %s: %s", keep[i].src,
				    strerror(errno));
		} else {
			fd = openat(dirfd, keep[i].dst, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW |
			    O_CLOEXEC, 0644);
			if (fd == -1)
				return ab_sess_fail(s, -errno, "stand-in for %s: %s", keep[i].src,
				    strerror(errno));
			close(fd);
		}
		if (move_mount(fds[i], "", dirfd, keep[i].dst, MOVE_MOUNT_F_EMPTY_PATH) == -1)
			return ab_sess_fail(s, -errno, "attach %s: %s", keep[i].src, strerror(errno));
	}
	return 0;
}

static int
tmpfs_at(struct ab_sess *s, const char *path, unsigned long flags, const char *opts)
{
	if (mount("agentbox", path, "tmpfs", flags, opts) == -1)
		return ab_sess_fail(s, -errno, "tmpfs on %s: %s", path, strerror(errno));
	return 0;
}

/* mkdirat with an exact mode, whatever the caller's umask. */
static int
mkdir_mode(struct ab_sess *s, int dirfd, const char *name, mode_t mode, const char *what)
{
	if (mkdirat(dirfd, name, 0700) == -1 || fchmodat(dirfd, name, mode, 0) == -1)
		return ab_sess_fail(s, -errno, "mkdir %s: %s", what, strerror(errno));
	return 0;
}

static int
symlink_in(struct ab_sess *s, int dirfd, const char *target, const char *name)
{
	if (symlinkat(target, dirfd, name) == -1)
		return ab_sess_fail(s, -errno, "symlink %s: %s", name, strerror(errno));
	return 0;
}

static int
open_dir(struct ab_sess *s, const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd == -1)	/* < 0 either way: callers test fd < 0 and return it */
		return ab_sess_fail(s, -errno, "open %s: %s", path, strerror(errno));
	return fd;
}

static gid_t
tty_gid(struct ab_sess *s)
{
	struct group *gr = pam_modutil_getgrnam(s->pamh, "tty");

	return gr != NULL ? gr->gr_gid : 5;	/* 5 is tty on Debian and most others */
}

static int
build_dev(struct ab_sess *s, int keeps[KEEP_N])
{
	static const struct { const char *target, *name; } links[] = {
		{ "pts/ptmx", "ptmx" }, { "/proc/self/fd", "fd" }, { "/proc/self/fd/0", "stdin" },
		{ "/proc/self/fd/1", "stdout" }, { "/proc/self/fd/2", "stderr" },
	};
	char opts[96];
	size_t i;
	int fd, r;

	if ((r = tmpfs_at(s, "/dev", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k")) != 0)
		return r;
	if ((fd = open_dir(s, "/dev")) < 0)
		return fd;
	r = attach_keeps(s, keeps, fd, 0);
	for (i = 0; r == 0 && i < sizeof(links) / sizeof(links[0]); i++)
		r = symlink_in(s, fd, links[i].target, links[i].name);
	if (r == 0)
		r = mkdir_mode(s, fd, "pts", 0755, "/dev/pts");
	if (r == 0)
		r = mkdir_mode(s, fd, "shm", 01777, "/dev/shm");
	close(fd);
	if (r != 0)
		return r;
	/* A new instance: the host's and other sessions' ptys are not in it. */
	snprintf(opts, sizeof(opts), "newinstance,ptmxmode=0666,mode=0620,gid=%u",
	    (unsigned)tty_gid(s));
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, opts) == -1)
		return ab_sess_fail(s, -errno, "devpts on /dev/pts: %s", strerror(errno));
	return tmpfs_at(s, "/dev/shm", MS_NOSUID | MS_NODEV, SHM_OPTS);
}

static int
build_run(struct ab_sess *s, int keeps[KEEP_N])
{
	char path[64], opts[96];
	int fd, r;

	if ((r = tmpfs_at(s, "/run", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")) != 0)
		return r;
	if ((fd = open_dir(s, "/run")) < 0)
		return fd;
	r = attach_keeps(s, keeps, fd, 1);
	if (r == 0)
		r = mkdir_mode(s, fd, "lock", 01777, "/run/lock");
	if (r == 0)
		r = symlink_in(s, fd, "/dev/shm", "shm");
	if (r == 0)
		r = mkdir_mode(s, fd, "user", 0755, "/run/user");
	snprintf(path, sizeof(path), "user/%u", (unsigned)s->uid);
	if (r == 0)
		r = mkdir_mode(s, fd, path, 0700, "/run/user/UID");
	if (r == 0)
		r = mkdir_mode(s, fd, "agentbox", 0755, AB_RUN_DIR);
	close(fd);
	if (r != 0)
		return r;
	snprintf(path, sizeof(path), "/run/user/%u", (unsigned)s->uid);
	snprintf(opts, sizeof(opts), "mode=0700,uid=%u,gid=%u,%s", (unsigned)s->uid,
	    (unsigned)s->gid, RUNUSER_SIZE);
	if ((r = tmpfs_at(s, path, MS_NOSUID | MS_NODEV, opts)) != 0)
		return r;
	return tmpfs_at(s, AB_RUN_DIR, MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=1m");
}

/* The sources every mask mount is cloned from: root-owned, mode 0000, empty. */
static int
make_mask_sources(struct ab_sess *s)
{
	struct stat st;
	int fd, r;

	if ((fd = open_dir(s, AB_RUN_DIR)) < 0)
		return fd;
	s->runfd = fd;
	if (fstat(s->runfd, &st) == -1)
		return ab_sess_fail(s, -errno, "fstat %s: %s", AB_RUN_DIR, strerror(errno));
	s->run_dev = st.st_dev;
	fd = openat(s->runfd, "mask-file", O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
	    0);
	if (fd == -1 || fchmod(fd, 0) == -1)
		return ab_sess_fail(s, -errno, "mask source file: %s", strerror(errno));
	close(fd);
	if ((r = mkdir_mode(s, s->runfd, "mask-dir", 0, "mask source dir")) != 0)
		return r;
	s->mask_file = openat(s->runfd, "mask-file", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	s->mask_dir = openat(s->runfd, "mask-dir", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (s->mask_file == -1 || s->mask_dir == -1)
		return ab_sess_fail(s, -errno, "open mask sources: %s", strerror(errno));
	return 0;
}

/* The file, root-owned 0444 in /run/agentbox: the source of the mount below. */
static int
write_resolv_conf(struct ab_sess *s)
{
	static const char text[] = "nameserver 127.0.0.1\noptions edns0\n";
	ssize_t n;
	int fd, e;

	fd = openat(s->runfd, "resolv.conf", O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW |
	    O_CLOEXEC, 0444);
	if (fd == -1)
		return ab_sess_fail(s, -errno, "create %s/resolv.conf: %s", AB_RUN_DIR,
		    strerror(errno));
	/* 0444 whatever the caller's umask: the agent reads it. */
	if (fchmod(fd, 0444) == -1) {
		e = errno;
		close(fd);
		return ab_sess_fail(s, -e, "chmod %s/resolv.conf: %s", AB_RUN_DIR, strerror(e));
	}
	n = write(fd, text, sizeof(text) - 1);
	e = n == -1 ? errno : EIO;
	close(fd);
	if (n != (ssize_t)(sizeof(text) - 1))
		return ab_sess_fail(s, -e, "write %s/resolv.conf: %s", AB_RUN_DIR, strerror(e));
	return 0;
}

/*
 * network = proxy: the box's resolver is agentbox-netd's answerer on its own 127.0.0.1
 * (netd-spec.md section 2); the host's nameservers are unreachable from the box anyway.
 * The file is made in /run/agentbox (sealed read-only with it) and a read-only clone of
 * it is mounted on the dentry of /etc/resolv.conf itself, opened O_NOFOLLOW: on a host
 * where it is a symlink (systemd-resolved) the link is covered, not its target.  A host
 * without /etc/resolv.conf needs nothing: glibc and musl then ask 127.0.0.1 already.
 */
static int
bind_resolv_conf(struct ab_sess *s)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC };
	int target, clone, r;

	if ((target = open("/etc/resolv.conf", O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 :
		    ab_sess_fail(s, -errno, "open /etc/resolv.conf: %s", strerror(errno));
	if ((r = write_resolv_conf(s)) != 0) {
		close(target);
		return r;
	}
	clone = open_tree(s->runfd, "resolv.conf", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (clone == -1)
		r = ab_sess_fail(s, -errno, "clone resolv.conf: %s", strerror(errno));
	else if (mount_setattr(clone, "", AT_EMPTY_PATH, &attr, sizeof(attr)) == -1)
		r = ab_sess_fail(s, -errno, "mount_setattr resolv.conf: %s", strerror(errno));
	else if (move_mount(clone, "", target, "", MOVE_MOUNT_F_EMPTY_PATH |
	    MOVE_MOUNT_T_EMPTY_PATH) == -1)
		r = ab_sess_fail(s, -errno, "mount over /etc/resolv.conf: %s", strerror(errno));
	if (clone != -1)
		close(clone);
	close(target);
	return r;
}

int
ab_world_build(struct ab_sess *s)
{
	size_t nh = ab_trees_n(&s->pol->project), j;
	struct hidden *h;
	struct stat st;
	int keeps[KEEP_N], i, r;

	for (i = 0; i < KEEP_N; i++)
		keeps[i] = -1;
	if ((h = calloc(nh, sizeof(*h))) == NULL)
		return ab_sess_fail(s, -ENOMEM, "out of memory");
	for (j = 0; j < nh; j++) {
		h[j].path = ab_trees_path(s->home, &s->pol->project, j);
		h[j].fd = -1;
	}
	if ((r = clone_hidden(s, h, nh)) != 0)
		goto out;
	if ((r = clone_keeps(s, keeps)) != 0)
		goto out;
	if ((r = build_dev(s, keeps)) != 0)
		goto out;
	if ((r = tmpfs_at(s, "/tmp", MS_NOSUID | MS_NODEV, TMP_OPTS)) != 0 ||
	    (r = tmpfs_at(s, "/var/tmp", MS_NOSUID | MS_NODEV, VARTMP_OPTS)) != 0)
		goto out;
	if ((r = build_run(s, keeps)) != 0)
		goto out;
	/* Debian links /var/run to /run; a host where it is a directory gets it hidden too. */
	if (lstat("/var/run", &st) == 0 && S_ISDIR(st.st_mode) &&
	    (r = tmpfs_at(s, "/var/run", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")) != 0)
		goto out;
	if ((r = attach_hidden(s, h, nh)) != 0)
		goto out;
	if ((r = make_mask_sources(s)) != 0)
		goto out;
	if (s->pol->network == AB_NET_PROXY)
		r = bind_resolv_conf(s);
out:
	for (i = 0; i < KEEP_N; i++)
		if (keeps[i] != -1)
			close(keeps[i]);
	for (j = 0; j < nh; j++)
		if (h[j].fd != -1)
			close(h[j].fd);
	free(h);
	return r;
}

int
ab_world_seal(struct ab_sess *s)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
		    MOUNT_ATTR_NOEXEC,
	};

	if (mount_setattr(s->runfd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) == -1)
		return ab_sess_fail(s, -errno, "seal %s read-only: %s", AB_RUN_DIR, strerror(errno));
	return 0;
}
