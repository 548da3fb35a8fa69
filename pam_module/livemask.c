/*
 * Live masks: hand the session to agentbox-maskd (DESIGN step 7; maskd/README.md; research
 * dynamic_masks.md 2.1).  Still root, in the session's mount namespace, after pid 1
 * exists and before any agent code runs.
 *
 * The groups are made and marked here, not by the daemon: a mount mark must name a mount
 * of this namespace, and we stand in it.  Every mount of the namespace on a filesystem
 * that holds a tree (home, projects) is marked: a mount mark sees only opens through
 * its own mount (research a3), so one unmarked mount would be a way around.  Every fd is
 * opened before the first mark: once a mount is marked, an open through it waits for the
 * daemon's reader, which does not exist yet.
 *
 * The login is refused when the daemon is not there, refuses, or does not answer within
 * AB_MASKD_TIMEOUT_MS (invariant 1).  Our copies of the groups close either way: on
 * success the daemon holds them; on failure the session is killed (open_steps).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "handoff.h"
#include "maskd.h"
#include "module.h"

#include <security/pam_ext.h>
#include <syslog.h>

#define WHO		"agentbox-maskd"
#define MOUNTS_MAX	512		/* marked mounts per session */
#define MOUNTINFO_MAX	(4u << 20)

/* What the hand-off collects: the fds to mark, the filesystems they are on. */
struct marks {
	int	fd[MOUNTS_MAX];
	dev_t	dev[MOUNTS_MAX];
	const char *path[MOUNTS_MAX];	/* into the mountinfo text: only while collecting */
	size_t	n;
	dev_t	tree_dev[AB_MASKD_FS_MAX];
	size_t	ndev;
	int	perm, track;
	int	learn, learned;	/* a learning session's group (-1: none), mounts it marks */
};

int
ab_maskd_dial(const struct ab_sess *s)
{
	struct timeval tv = { AB_MASKD_TIMEOUT_MS / 1000, (AB_MASKD_TIMEOUT_MS % 1000) * 1000 };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, e;

	if (strlen(s->maskd_path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, s->maskd_path);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int
ab_livemask_connect(struct ab_sess *s)
{
	int fd;

	if ((fd = ab_maskd_dial(s)) < 0)
		return ab_sess_fail(s, fd, WHO " is not taking sessions (live masks cannot be "
		    "enforced): connect %s: %s", s->maskd_path, strerror(-fd));
	s->maskd_fd = fd;
	return 0;
}

static int
has_dev(const dev_t *v, size_t n, dev_t d)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == d)
			return 1;
	return 0;
}

#define OVERLAYFS_MAGIC	0x794c7630	/* linux/magic.h OVERLAYFS_SUPER_MAGIC */

/*
 * Is a tree (home or project) on overlayfs, as this namespace resolves it?  fanotify
 * cannot place the filesystem mark the name tracking needs on an overlay (EOPNOTSUPP):
 * a host whose root is an overlay (a container) or agentbox run --ephemeral.  Such a
 * session keeps the login-time masks only, and the auth log says so (README,
 * Limitations); refusing it would refuse every login on such a host.
 */
static int
unmarkable(struct ab_sess *s)
{
	struct statfs sf;
	size_t i;
	int fd, r;

	for (i = 0; i < ab_trees_n(&s->pol->project); i++) {
		if ((fd = ab_tree_open(s, i, O_PATH)) == -ENOENT && i == 0)
			continue;	/* no home */
		if (fd < 0)
			return 0;	/* the hand-off reports it */
		r = fstatfs(fd, &sf);
		close(fd);
		if (r == 0 && (unsigned long)sf.f_type == OVERLAYFS_MAGIC) {
			pam_syslog(s->pamh, LOG_WARNING, "%s: live masks off: %s is on overlayfs, "
			    "which fanotify cannot mark; the login-time masks hold", s->user,
			    ab_trees_path(s->home, &s->pol->project, i));
			return 1;
		}
	}
	return 0;
}

/* The filesystems the trees are on, as this namespace resolves them. */
static int
tree_devs(struct ab_sess *s, struct marks *mk)
{
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < ab_trees_n(&s->pol->project); i++) {
		if ((fd = ab_tree_open(s, i, O_PATH)) == -ENOENT && i == 0)
			continue;	/* no home */
		if (fd < 0)
			return fd;
		if (fstat(fd, &st) == -1) {
			int e = errno;

			close(fd);
			return ab_sess_fail(s, -e, WHO ": fstat a tree: %s", strerror(e));
		}
		close(fd);
		if (has_dev(mk->tree_dev, mk->ndev, st.st_dev))
			continue;
		if (mk->ndev == AB_MASKD_FS_MAX)
			return ab_sess_fail(s, -E2BIG, WHO ": trees on more than %d filesystems",
			    AB_MASKD_FS_MAX);
		mk->tree_dev[mk->ndev++] = st.st_dev;
	}
	return 0;
}

/* This namespace's mountinfo, NUL-terminated, from the host's /proc (ours is pid 1's). */
static int
read_mountinfo(struct ab_sess *s, char **out)
{
	size_t cap = 64 * 1024, len = 0;
	char *buf = NULL, *nb;
	ssize_t n;
	int fd, e;

	if ((fd = openat(s->procfd, "self/mountinfo", O_RDONLY | O_CLOEXEC)) == -1)
		return ab_sess_fail(s, -errno, WHO ": open mountinfo: %s", strerror(errno));
	for (;;) {
		if (len + 1 >= cap || buf == NULL) {
			if (buf != NULL)
				cap *= 2;
			if (cap > MOUNTINFO_MAX || (nb = realloc(buf, cap)) == NULL) {
				e = cap > MOUNTINFO_MAX ? E2BIG : ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		if ((n = read(fd, buf + len, cap - len - 1)) == -1) {
			if (errno == EINTR)
				continue;
			e = errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return 0;
fail:
	close(fd);
	free(buf);
	return ab_sess_fail(s, -e, WHO ": read mountinfo: %s", strerror(e));
}

/* A readable fd on the mount at PATH (directory or regular file), or -1 to skip it. */
static int
open_mount(struct ab_sess *s, const char *path, dev_t *dev)
{
	char link[32];
	struct stat st;
	int p, fd = -1;

	if ((p = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;	/* covered or gone: no path reaches it by name either */
	if (fstat(p, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
		/* fanotify_mark needs a real fd (EBADF on O_PATH); reopened by fd, not by
		 * name, so it is the same object.  NONBLOCK/NOCTTY: nothing to wait on. */
		snprintf(link, sizeof(link), "self/fd/%d", p);
		fd = openat(s->procfd, link, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		*dev = st.st_dev;
	}
	close(p);
	return fd;
}

/*
 * Mounts a learning session leaves unwatched: procfs and /dev are the session's own
 * (granted whole but for device nodes the world does not show), and re-opening a
 * device for an event (fanotify opens each event's file for us) can do things: a
 * fresh pty per /dev/ptmx.
 */
static int
learn_skips(const char *path)
{
	static const char *const own[] = { "/proc", "/dev" };
	size_t i, n;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		n = strlen(own[i]);
		if (strncmp(path, own[i], n) == 0 && (path[n] == '\0' || path[n] == '/'))
			return 1;
	}
	return 0;
}

/* ab_each_mount (module.h): fields 3 and 5 of each line of this namespace's mountinfo. */
int
ab_each_mount(struct ab_sess *s, ab_mount_fn fn, void *ctx)
{
	char *info = NULL, *line, *save = NULL, *f[5];
	unsigned maj, min;
	int r;

	if ((r = read_mountinfo(s, &info)) != 0)
		return r;
	for (line = strtok_r(info, "\n", &save); r == 0 && line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (ab_mountinfo_fields(line, f) != 0 || sscanf(f[2], "%u:%u", &maj, &min) != 2)
			continue;
		r = fn(s, ctx, makedev(maj, min), f[4]);
	}
	free(info);
	return r;
}

/*
 * Is a mount at PATH collected already?  A path is opened once: every mount stacked on
 * it (a pin's recursive bind copies the protects below it, and the copies cover the
 * originals) is reached by that one name as the topmost, the only one a process of the
 * session can reach.  Opening each line again would mark that same mount again.
 */
static int
collected(const struct marks *mk, const char *path)
{
	const struct ab_strv seen = { (char **)mk->path, mk->n };	/* a view, not owned */

	return ab_strv_has(&seen, path);
}

/*
 * mount_fn: keep an fd of every mount on a tree's filesystem, or, learning, of every
 * mount but learn_skips' own: Landlock's read set no longer keeps a learning session
 * from other trees' secrets, and masks outside the trees are maskd's alone
 * (ab_maskd_decider_outside).  Learning, the same fd takes the learning group's mark
 * now (the recorder sees each open Landlock would have been asked about, maskd/learn.c):
 * before any permission mark, so these opens wait for no reader.  A mount fanotify
 * refuses the mark (a pseudo filesystem) is left out of the learning.
 */
static int
collect_one(struct ab_sess *s, void *ctx, dev_t dev, const char *path)
{
	struct marks *mk = ctx;
	int fd, r;

	if (!has_dev(mk->tree_dev, mk->ndev, dev) &&
	    (mk->learn == -1 || learn_skips(path)))
		return 0;
	if (collected(mk, path))
		return 0;
	if ((fd = open_mount(s, path, &dev)) < 0)
		return 0;
	if (mk->learn != -1 && !learn_skips(path)) {
		r = ab_maskd_group_mark_learn(mk->learn, fd);
		if (r == 0)
			mk->learned++;
		else if (r != -EINVAL && r != -EOPNOTSUPP && r != -ENODEV && r != -EXDEV) {
			close(fd);
			return ab_sess_fail(s, r, WHO ": mark a mount to learn from: %s",
			    strerror(-r));
		}
	}
	if (mk->n == MOUNTS_MAX) {
		close(fd);
		return ab_sess_fail(s, -E2BIG, WHO ": more than %d mounts to mark", MOUNTS_MAX);
	}
	mk->fd[mk->n] = fd;
	mk->path[mk->n] = path;
	mk->dev[mk->n++] = dev;
	return 0;
}

static int
collect_mounts(struct ab_sess *s, struct marks *mk)
{
	int r;

	if ((r = ab_each_mount(s, collect_one, mk)) != 0)
		return r;
	if (mk->n == 0)
		return ab_sess_fail(s, -ENOENT, WHO ": no mount of the trees' filesystems");
	if (mk->learn != -1 && mk->learned == 0)
		return ab_sess_fail(s, -ENOENT, WHO ": no mount to learn from");
	return 0;
}

/* Mark them all: each mount on PERM, each filesystem once on TRACK. */
static int
mark_all(struct ab_sess *s, struct marks *mk, int *fsfd, size_t *nfs)
{
	dev_t seen[AB_MASKD_FS_MAX];
	size_t i;
	int r;

	*nfs = 0;
	for (i = 0; i < mk->n; i++) {
		r = ab_maskd_group_mark_mount(mk->perm, mk->fd[i]);
		/* Outside the trees' filesystems (learning only): a pseudo filesystem that
		 * takes no permission mark is left out, as Landlock's grants would not name
		 * its files either; the trees' mounts must all be marked. */
		if (r != 0 && !has_dev(mk->tree_dev, mk->ndev, mk->dev[i]) &&
		    (r == -EINVAL || r == -EOPNOTSUPP || r == -ENODEV || r == -EXDEV))
			continue;
		if (r != 0)
			return ab_sess_fail(s, r, WHO ": mark a session mount: %s", strerror(-r));
		if (has_dev(seen, *nfs, mk->dev[i]) || !has_dev(mk->tree_dev, mk->ndev, mk->dev[i]))
			continue;
		if ((r = ab_maskd_group_mark_fs(mk->track, mk->fd[i])) != 0)
			return ab_sess_fail(s, r, WHO ": mark a filesystem: %s", strerror(-r));
		seen[*nfs] = mk->dev[i];
		fsfd[(*nfs)++] = mk->fd[i];
	}
	return 0;
}

static int
send_open(struct ab_sess *s, const int *fds, size_t nfds)
{
	struct ab_maskd_open m = { .ses = s->ses, .uid = (uint32_t)s->uid,
	    .home = (char *)s->home, .projects = s->pol->project, .patterns = s->pol->mask,
	    .learn = s->pol->learn == AB_YES, .reads = s->pol->read, .writes = s->pol->write,
	    .walked = s->walk_report, .walk_id = s->plan != NULL ? s->plan->id : 0,
	    .walk_gen = s->plan != NULL ? s->plan->gen : 0, .found = s->walk_found,
	    .mounts = s->plan_mounts };
	static char msg[AB_MASKD_MSG_MAX];
	size_t len;
	int r;

	if ((r = ab_box_digest(s)) != 0)
		return r;
	_Static_assert(sizeof(m.policy) == sizeof(s->box_digest), "a digest in hex");
	memcpy(m.policy, s->box_digest, sizeof(m.policy));
	r = ab_maskd_open_encode(&m, msg, sizeof(msg), &len);
	if (r != 0 && m.walked) {	/* the report is the index's, not the session's: too
					 * big, or a path it cannot carry (a newline) */
		m.walked = 0;
		r = ab_maskd_open_encode(&m, msg, sizeof(msg), &len);
	}
	if (r != 0)
		return ab_sess_fail(s, r, WHO ": cannot build the hand-off: %s", strerror(-r));
	if ((r = ab_send_fds(s->maskd_fd, msg, len, fds, nfds)) != 0)
		return ab_sess_fail(s, r, WHO ": send the hand-off: %s", strerror(-r));
	return 0;
}

static int
await_ok(struct ab_sess *s)
{
	char reply[AB_MASKD_REPLY_MAX + 1];
	ssize_t n;

	n = recv(s->maskd_fd, reply, sizeof(reply) - 1, 0);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return ab_sess_fail(s, -ETIMEDOUT, WHO " did not answer within %d ms",
		    AB_MASKD_TIMEOUT_MS);
	if (n == -1)
		return ab_sess_fail(s, -errno, WHO ": read the reply: %s", strerror(errno));
	if (n == 0)
		return ab_sess_fail(s, -ECONNRESET, WHO " closed the connection without a reply");
	reply[n] = '\0';
	if (strcmp(reply, "ok") == 0)
		return 0;
	if (strncmp(reply, "refused ", 8) == 0)
		return ab_sess_fail(s, -EACCES, WHO " refused the session: %.200s", reply + 8);
	return ab_sess_fail(s, -EPROTO, WHO " sent a malformed reply");
}

static int
handoff(struct ab_sess *s)
{
	struct marks mk = { .n = 0, .ndev = 0, .perm = -1, .track = -1, .learn = -1 };
	int fds[AB_MASKD_NFDS_MAX], fsfd[AB_MASKD_FS_MAX];
	size_t i, nfs = 0, nfds;
	int r;

	if (s->maskd_fd == -1)
		return ab_sess_fail(s, -ENOTCONN, WHO ": not connected");
	if ((r = ab_maskd_group_perm(&mk.perm)) != 0 || (r = ab_maskd_group_track(&mk.track)) != 0 ||
	    (s->pol->learn == AB_YES && (r = ab_maskd_group_learn(&mk.learn)) != 0))
		r = ab_sess_fail(s, r, WHO ": fanotify_init: %s", strerror(-r));
	else if ((r = tree_devs(s, &mk)) == 0 && (r = collect_mounts(s, &mk)) == 0 &&
	    (r = mark_all(s, &mk, fsfd, &nfs)) == 0) {
		fds[AB_MASKD_FD_PID1] = s->init_pidfd;
		fds[AB_MASKD_FD_PERM] = mk.perm;
		fds[AB_MASKD_FD_TRACK] = mk.track;
		memcpy(fds + AB_MASKD_FD_MOUNT, fsfd, nfs * sizeof(int));
		nfds = AB_MASKD_FD_MOUNT + nfs;
		if (mk.learn != -1)
			fds[nfds++] = mk.learn;	/* last, as handoff.h says */
		if ((r = send_open(s, fds, nfds)) == 0)
			r = await_ok(s);
	}
	if (mk.learn != -1)
		close(mk.learn);
	/* The daemon holds its own copies now, or the session is refused (and killed). */
	for (i = 0; i < mk.n; i++)
		close(mk.fd[i]);
	if (mk.perm >= 0)
		close(mk.perm);
	if (mk.track >= 0)
		close(mk.track);
	close(s->maskd_fd);
	s->maskd_fd = -1;
	return r;
}

int
ab_livemask_handoff(struct ab_sess *s)
{
	int learn = s->pol->learn == AB_YES;

	if (s->pol->mask.n == 0 && !learn)
		return 0;	/* nothing to decide, nothing to record */
	if (s->ephemeral || unmarkable(s)) {
		/* Masks fall back on the login-time ones; a learning session has no such
		 * fallback: unrecorded, it would be a session without Landlock's files. */
		if (learn)
			return ab_sess_fail(s, -EOPNOTSUPP, WHO ": a learning session needs its "
			    "trees marked, and fanotify cannot mark overlayfs (agentbox run "
			    "--ephemeral, a container's root)");
		return 0;
	}
	return handoff(s);
}
