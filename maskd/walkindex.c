/*
 * The walk index (walkindex.h says what it keeps and why it is enough).  Library code:
 * 0 / -errno, never prints, never exits, all state in struct ab_windex.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "handoff.h"
#include "maskd.h"
#include "policy.h"
#include "walkindex.h"

#define WX_KEYS_MAX	32	/* users x policies kept; the least recently asked goes */
#define WX_SET_SLOTS	(2 * AB_WALKPLAN_DIRS_MAX)	/* open addressing, half full */
#define WX_CACHE	512	/* directory handle -> path, direct-mapped */
#define WX_BUF		(64 * 1024)
/* A drain between two polls takes at most WX_LOOP_DRAIN_MS, so a flood of creates
 * cannot hold the daemon's loop (hand-offs wait on it); before a plan or a check it
 * reads on for up to WX_PLAN_DRAIN_MS, and a plan it could not bring up to date is
 * "walk" (a check "changed"). */
#define WX_LOOP_DRAIN_MS 5
#define WX_PLAN_DRAIN_MS 20
#define WX_EVENTS	(FAN_CREATE | FAN_RENAME | FAN_ONDIR)

/* D: a set of directory paths, each maybe "full". */
struct dirset {
	char		**path;		/* WX_SET_SLOTS slots */
	unsigned char	 *full;
	size_t		  n;
};

struct root {
	int		exists;
	dev_t		dev;
	ino_t		ino;
	uint64_t	mnt;	/* its mount's unique id */
};

struct wkey {
	int			 used;
	char			*text;		/* the request: the key */
	size_t			 len;
	struct ab_walkplan_req	 req;
	struct ab_maskset	*mask, *protect;
	size_t			 ntrees;	/* ab_trees_n */
	struct root		*root;
	uint32_t		 id, gen;	/* id: slot + WX_KEYS_MAX * generation of the key */
	int			 valid;		/* D holds a walk's findings: plans can be given */
	struct dirset		 set;
	unsigned long long	 asked;		/* tick of the last plan: the LRU's */
};

/*
 * A mount a tree root is on, its filesystem marked.  No fd is held (it would keep the
 * filesystem from being unmounted): events are resolved through ROOT, opened again, and
 * a mount that is no longer the one marked (unique ids are never reused: an unmount and
 * a new mount give another) makes the index forget, as its marks may be gone with it.
 */
struct fsmark {
	int		 used;
	int32_t		 fsid[2];
	uint64_t	 mnt;
	char		*root;	/* its mount point */
};

struct cached {
	struct ab_maskd_key	 dir;
	size_t			 fs;	/* the mount it was resolved through */
	char			*path;
};

struct ab_windex {
	int			 fan;
	struct fsmark		 fs[AB_MASKD_FS_MAX];
	struct wkey		 key[WX_KEYS_MAX];
	uint32_t		 keygen;
	unsigned long long	 tick;
	struct cached		 cache[WX_CACHE];
	unsigned char		*buf;
};

/* ---- D ---- */

static int
set_init(struct dirset *s)
{
	s->path = calloc(WX_SET_SLOTS, sizeof(*s->path));
	s->full = calloc(WX_SET_SLOTS, 1);
	s->n = 0;
	return s->path != NULL && s->full != NULL ? 0 : -ENOMEM;
}

static void
set_clear(struct dirset *s)
{
	size_t i;

	for (i = 0; s->path != NULL && i < WX_SET_SLOTS; i++) {
		free(s->path[i]);
		s->path[i] = NULL;
		s->full[i] = 0;
	}
	s->n = 0;
}

static void
set_free(struct dirset *s)
{
	set_clear(s);
	free(s->path);
	free(s->full);
	memset(s, 0, sizeof(*s));
}

/* Add PATH[0..N) (FULL: walked whole).  0, -ENOSPC past AB_WALKPLAN_DIRS_MAX, -ENOMEM. */
static int
set_add_n(struct dirset *s, const char *path, size_t n, int full)
{
	size_t i = ab_fnv1a(path, n) & (WX_SET_SLOTS - 1);

	for (; s->path[i] != NULL; i = (i + 1) & (WX_SET_SLOTS - 1)) {
		if (strncmp(s->path[i], path, n) == 0 && s->path[i][n] == '\0') {
			s->full[i] |= (unsigned char)full;
			return 0;
		}
	}
	if (s->n >= AB_WALKPLAN_DIRS_MAX)
		return -ENOSPC;
	if ((s->path[i] = strndup(path, n)) == NULL)
		return -ENOMEM;
	s->full[i] = (unsigned char)full;
	s->n++;
	return 0;
}

/* PATH (FULL or not) and every directory above it but "/". */
static int
set_add_up(struct dirset *s, const char *path, int full)
{
	size_t n = strlen(path);
	int r;

	while (n > 1) {
		if ((r = set_add_n(s, path, n, full)) != 0)
			return r;
		full = 0;
		while (n > 0 && path[n - 1] != '/')
			n--;
		if (n > 1)
			n--;	/* drop the '/' too: "/a/b" -> "/a" */
	}
	return 0;
}

/* ---- keys ---- */

static void
key_forget(struct ab_windex *w, struct wkey *k)
{
	set_clear(&k->set);
	k->valid = 0;
	k->gen = 0;
	k->id = (uint32_t)(k - w->key) + WX_KEYS_MAX * ++w->keygen;
}

static void
key_free(struct wkey *k)
{
	free(k->text);
	ab_walkplan_req_free(&k->req);
	ab_maskset_free(k->mask);
	ab_maskset_free(k->protect);
	free(k->root);
	set_free(&k->set);
	memset(k, 0, sizeof(*k));
}

static void
forget_all(struct ab_windex *w)
{
	size_t i;

	for (i = 0; i < WX_KEYS_MAX; i++)
		if (w->key[i].used)
			key_forget(w, &w->key[i]);
	for (i = 0; i < WX_CACHE; i++) {
		free(w->cache[i].path);
		w->cache[i].path = NULL;
	}
}

static const char *
tree_path(const struct wkey *k, size_t i)
{
	return ab_trees_path(k->req.home, &k->req.projects, i);
}

/* Is PATH strictly inside TREE?  Then *REL is its path relative to TREE. */
static int
inside(const char *tree, const char *path, const char **rel)
{
	size_t n = strlen(tree);

	if (n == 1)	/* "/" */
		n = 0;
	if (strncmp(path, tree, n) != 0 || path[n] != '/' || path[n + 1] == '\0')
		return 0;
	*rel = path + n + 1;
	return 1;
}

/*
 * Is PATH one of K's tree roots, or (ABOVE) a directory above one, or (!ABOVE) inside
 * one?
 */
static int
near_a_root(const struct wkey *k, const char *path, int above)
{
	const char *t, *rel;
	size_t i;

	for (i = 0; i < k->ntrees; i++)
		if ((t = tree_path(k, i)) != NULL && (strcmp(t, path) == 0 ||
		    (above ? inside(path, t, &rel) : inside(t, path, &rel))))
			return 1;
	return 0;
}

/* ---- the filesystems marked ---- */

/* FD's mount's unique id.  0 or -errno (-EOPNOTSUPP before Linux 6.8: no index). */
static int
mount_id(int fd, uint64_t *mnt)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID_UNIQUE, &stx) == -1)
		return -errno;
	if (!(stx.stx_mask & STATX_MNT_ID_UNIQUE))
		return -EOPNOTSUPP;
	*mnt = ab_statx_mnt_id(&stx);
	return 0;
}

/*
 * Filesystems whose every change is made through this kernel, so that the mark sees it:
 * not a network or shared one (NFS, CIFS, FUSE, virtiofs, Ceph: another client's
 * create makes no event here) nor one stacked on others (overlayfs).  Not btrfs: a
 * snapshot puts a whole filled tree in place with one directory's create event.
 * Elsewhere there is no plan, and logins walk everything.
 */
static int
local_fs(unsigned long type)
{
	switch (type) {
	case 0xEF53:		/* ext2/3/4 */
	case 0x58465342:	/* xfs */
	case 0x01021994:	/* tmpfs */
	case 0xF2F52010:	/* f2fs */
		return 1;
	}
	return 0;
}

/*
 * Where FD's mount is mounted, into OUT: its line in mountinfo, by the (reusable) mount
 * id statx gives, which the unique one then confirms when it is opened.  A mount point
 * is root's: resolving through it, not through a tree root the agent may rename, keeps
 * the agent from making the index forget, or from parking the daemon on a FUSE mount.
 */
static int
mount_point(int fd, char *out, size_t outlen)
{
	char *line = NULL, *f[5];
	unsigned long long want, id;
	struct statx stx;
	size_t cap = 0;
	FILE *mi;
	int r = -ENOENT;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) == -1)
		return -errno;
	if (!(stx.stx_mask & STATX_MNT_ID))
		return -EOPNOTSUPP;
	want = ab_statx_mnt_id(&stx);
	if ((mi = fopen("/proc/self/mountinfo", "re")) == NULL)
		return -errno;
	while (r == -ENOENT && getline(&line, &cap, mi) != -1) {
		if (ab_mountinfo_fields(line, f) != 0 || sscanf(f[0], "%llu", &id) != 1 ||
		    id != want)
			continue;
		r = strlen(f[4]) < outlen ? (strcpy(out, f[4]), 0) : -ENAMETOOLONG;
	}
	free(line);
	(void)fclose(mi);
	return r;
}

/* Entry I is not the mount it was: it goes, and every key with a tree on it forgets. */
static void
fs_drop(struct ab_windex *w, size_t i)
{
	size_t j, t;

	for (j = 0; j < WX_KEYS_MAX; j++)
		for (t = 0; w->key[j].used && t < w->key[j].ntrees; t++)
			if (w->key[j].root[t].exists && w->key[j].root[t].mnt == w->fs[i].mnt) {
				key_forget(w, &w->key[j]);
				break;
			}
	free(w->fs[i].root);
	memset(&w->fs[i], 0, sizeof(w->fs[i]));
}

static int fs_open(struct ab_windex *w, size_t i);

/* A free entry, or one whose mount is gone (dropped now); -E2BIG if none. */
static int
fs_free_slot(struct ab_windex *w, size_t *slot)
{
	size_t i;
	int fd;

	for (i = 0; i < AB_MASKD_FS_MAX; i++)
		if (!w->fs[i].used) {
			*slot = i;
			return 0;
		}
	for (i = 0; i < AB_MASKD_FS_MAX; i++) {
		if ((fd = fs_open(w, i)) >= 0) {
			(void)close(fd);
			continue;
		}
		*slot = i;	/* fs_open dropped it */
		return 0;
	}
	return -E2BIG;
}

/* The entry of FD's mount (a tree root), its filesystem marked.  *IDX. */
static int
fs_mark(struct ab_windex *w, int fd, size_t *idx)
{
	char where[PATH_MAX];
	struct statfs sf;
	uint64_t mnt;
	size_t i, slot;
	int r;

	if (fstatfs(fd, &sf) == -1)
		return -errno;
	if (!local_fs((unsigned long)sf.f_type))
		return -EREMOTE;
	if ((r = mount_id(fd, &mnt)) != 0)
		return r;
	for (i = 0; i < AB_MASKD_FS_MAX; i++) {
		if (w->fs[i].used && w->fs[i].mnt == mnt && memcmp(w->fs[i].fsid, &sf.f_fsid,
		    sizeof(w->fs[i].fsid)) == 0) {
			*idx = i;
			return 0;
		}
	}
	if ((r = mount_point(fd, where, sizeof(where))) != 0 || (r = fs_free_slot(w, &slot)) != 0)
		return r;
	/* Idempotent for a filesystem marked through another of its mounts.  The kernel
	 * refuses a second filesystem with the same fsid in one group (no plan then). */
	if (fanotify_mark(w->fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, WX_EVENTS, fd, NULL) == -1)
		return -errno;
	if ((w->fs[slot].root = strdup(where)) == NULL)
		return -ENOMEM;
	memcpy(w->fs[slot].fsid, &sf.f_fsid, sizeof(w->fs[slot].fsid));
	w->fs[slot].mnt = mnt;
	w->fs[slot].used = 1;
	*idx = slot;
	return 0;
}

/*
 * Entry I's mount point, opened again (no symlink followed), for open_by_handle_at,
 * which takes no O_PATH fd (EBADF); -ESTALE if what is there is not the mount marked
 * any more (the entry goes, and the keys with a tree on it forget).
 */
static int
fs_open(struct ab_windex *w, size_t i)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC,
	    .resolve = RESOLVE_NO_SYMLINKS };
	uint64_t mnt = 0;
	int fd, e;

	if ((fd = ab_openat2(AT_FDCWD, w->fs[i].root, &how)) >= 0 &&
	    mount_id(fd, &mnt) == 0 && mnt == w->fs[i].mnt)
		return fd;
	e = fd < 0 ? errno : ESTALE;
	if (fd >= 0)
		(void)close(fd);
	fs_drop(w, i);
	return -(e == ENOENT ? ESTALE : e);
}

/* KEY, a file of filesystem entry I, as a path through its mount.  0 or -errno. */
static int
fs_resolve(struct ab_windex *w, size_t i, const struct ab_maskd_key *key, char *out,
    size_t outlen)
{
	int mfd, r;

	if ((mfd = fs_open(w, i)) < 0)
		return mfd;
	r = ab_maskd_key_path(mfd, key, out, outlen);
	(void)close(mfd);
	return r;
}

/*
 * Does the tree root open as FD, at PATH, come back as PATH through its mount's entry
 * I (as its events will)?  0, or -EXDEV (no index for that key), or -errno.
 */
static int
resolves_back(struct ab_windex *w, size_t i, int fd, const char *path)
{
	struct ab_maskd_key key;
	char got[PATH_MAX];
	int r;

	if ((r = ab_maskd_key_of_fd(fd, &key)) != 0 ||
	    (r = fs_resolve(w, i, &key, got, sizeof(got))) != 0)
		return r;
	return strcmp(got, path) == 0 ? 0 : -EXDEV;
}

/*
 * Each tree's root as it is now (an admin-written path: no symlink followed, as the
 * module opens it), its filesystem marked.  1 if a root is not the directory it was (the
 * key must forget D), 0 if all are, or -errno (no plan for this key).
 */
static int
roots_check(struct ab_windex *w, struct wkey *k)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	    .resolve = RESOLVE_NO_SYMLINKS };
	struct root now;
	struct stat st;
	const char *t;
	size_t i, fs = 0;
	int changed = 0, fd, r;

	for (i = 0; i < k->ntrees; i++) {
		memset(&now, 0, sizeof(now));
		if ((t = tree_path(k, i)) != NULL) {
			if ((fd = ab_openat2(AT_FDCWD, t, &how)) == -1 && errno != ENOENT)
				return -errno;
			if (fd >= 0) {
				r = fstat(fd, &st) == -1 ? -errno : fs_mark(w, fd, &fs);
				if (r == 0)
					r = resolves_back(w, fs, fd, t);
				(void)close(fd);
				if (r != 0)
					return r;
				now = (struct root){ 1, st.st_dev, st.st_ino, w->fs[fs].mnt };
			}
		}
		if (now.exists != k->root[i].exists || now.dev != k->root[i].dev ||
		    now.ino != k->root[i].ino || now.mnt != k->root[i].mnt)
			changed = 1;
		k->root[i] = now;
	}
	return changed;
}

static struct wkey *
key_find(struct ab_windex *w, const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < WX_KEYS_MAX; i++)
		if (w->key[i].used && w->key[i].len == len && memcmp(w->key[i].text, buf, len) == 0)
			return &w->key[i];
	return NULL;
}

/* A new key for request BUF[0..LEN), in a free slot or the least recently asked one's. */
static int
key_new(struct ab_windex *w, const char *buf, size_t len, struct wkey **out)
{
	struct wkey *k = &w->key[0];
	size_t i;
	int r;

	for (i = 0; i < WX_KEYS_MAX; i++) {
		if (!w->key[i].used) {
			k = &w->key[i];
			break;
		}
		if (w->key[i].asked < k->asked)
			k = &w->key[i];
	}
	key_free(k);
	if ((r = ab_walkplan_req_parse(buf, len, &k->req)) != 0)
		goto fail;
	k->ntrees = ab_trees_n(&k->req.projects);
	if ((k->text = malloc(len)) == NULL || (k->root = calloc(k->ntrees,
	    sizeof(*k->root))) == NULL || (r = set_init(&k->set)) != 0) {
		r = -ENOMEM;
		goto fail;
	}
	memcpy(k->text, buf, len);
	k->len = len;
	if ((r = ab_maskset_new(&k->req.masks, k->req.home, &k->req.projects,
	    AB_MASKSET_MASKS, &k->mask)) != 0 || (r = ab_maskset_new(&k->req.protects,
	    k->req.home, &k->req.projects, AB_MASKSET_PROTECTS, &k->protect)) != 0)
		goto fail;
	k->used = 1;
	key_forget(w, k);	/* a fresh id */
	*out = k;
	return 0;
fail:
	key_free(k);
	return r;
}

/* ---- events ---- */

static size_t
cache_slot(const struct ab_maskd_key *dir, size_t fs)
{
	return (ab_fnv1a(dir, offsetof(struct ab_maskd_key, h) + dir->len) + fs) &
	    (WX_CACHE - 1);
}

/* The path of directory DIR now, through the mount of entry FS (cached: a directory
 * renamed empties the cache). */
static int
dir_path(struct ab_windex *w, size_t fs, const struct ab_maskd_key *dir, char *out,
    size_t outlen)
{
	struct cached *c = &w->cache[cache_slot(dir, fs)];
	int r;

	if (c->path != NULL && c->fs == fs && memcmp(&c->dir, dir,
	    offsetof(struct ab_maskd_key, h) + dir->len) == 0) {
		if (strlen(c->path) >= outlen)
			return -ENAMETOOLONG;
		strcpy(out, c->path);
		return 0;
	}
	if ((r = fs_resolve(w, fs, dir, out, outlen)) != 0)
		return r;
	free(c->path);
	c->dir = *dir;
	c->fs = fs;
	c->path = strdup(out);	/* NULL: not cached, no harm */
	return 0;
}

/* Does the walk act on PATH (inside tree I of K, at REL)?  An error counts as yes. */
static int
acted(const struct wkey *k, size_t i, const char *rel, int is_dir)
{
	return ab_maskset_match_path(k->mask, i, rel, is_dir) != 0 ||
	    ab_maskset_match_path(k->protect, i, rel, is_dir) != 0;
}

/* One name of an event (PATH, absolute; OLD: a rename's old name) into key K. */
static void
key_apply(struct ab_windex *w, struct wkey *k, const char *path, int is_dir, int renamed,
    int old)
{
	const char *t, *rel;
	char *dir;
	size_t i;
	int r = 0;

	if (is_dir && renamed && near_a_root(k, path, 1)) {
		key_forget(w, k);
		return;
	}
	if (old) {
		/* A name gone: D may hold too much, never too little.  But a directory
		 * moved out of a tree takes with it names its events will resolve outside:
		 * a walk that skipped it must hear that something moved (walkcheck). */
		if (is_dir && near_a_root(k, path, 0))
			k->gen++;
		return;
	}
	for (i = 0; i < k->ntrees; i++) {
		if ((t = tree_path(k, i)) == NULL || !inside(t, path, &rel))
			continue;
		if (is_dir && renamed) {
			r = set_add_up(&k->set, path, 1);
		} else if (acted(k, i, rel, is_dir)) {
			if ((dir = strndup(path, (size_t)(strrchr(path, '/') - path))) == NULL)
				r = -ENOMEM;
			else
				r = set_add_up(&k->set, dir[0] == '\0' ? "/" : dir, 0);
			free(dir);
		} else {
			continue;
		}
		k->gen++;
		break;
	}
	if (r != 0)	/* D too big to be of use, or no memory: walk it all */
		key_forget(w, k);
}

/* Name I of event EV, resolved through the mount of entry FS, into every key. */
static int
name_event(struct ab_windex *w, size_t fs, const struct ab_maskd_dirent_ev *ev, size_t i,
    int is_dir, int renamed)
{
	char path[PATH_MAX];
	size_t j, n;
	int r;

	r = dir_path(w, fs, &ev->dir[i], path, sizeof(path));
	if (r == -ESTALE || r == -ENOENT)
		return 0;	/* its directory is gone, and the name with it */
	if (r != 0)
		return r;
	n = strlen(path);
	if (snprintf(path + n, sizeof(path) - n, "%s%s", n == 1 ? "" : "/", ev->name[i]) >=
	    (int)(sizeof(path) - n)) {
		/* A name too long for a path (the walk fails on it, and refuses its login):
		 * only the keys that may hold its directory forget. */
		path[n] = '\0';
		for (j = 0; j < WX_KEYS_MAX; j++)
			if (w->key[j].used && near_a_root(&w->key[j], path, 0))
				key_forget(w, &w->key[j]);
		return 0;
	}
	for (j = 0; j < WX_KEYS_MAX; j++)
		if (w->key[j].used)
			key_apply(w, &w->key[j], path, is_dir, renamed, ev->is_old[i]);
	return 0;
}

/* ab_maskd_event_fn: one event into every key. */
static int
on_event(void *arg, const struct ab_maskd_dirent_ev *ev)
{
	struct ab_windex *w = arg;
	int is_dir = (ev->mask & FAN_ONDIR) != 0, renamed = (ev->mask & FAN_RENAME) != 0;
	size_t i, fs;
	int r;

	for (i = 0; i < ev->nnames; i++) {
		if (ev->is_old[i] && !is_dir)
			continue;	/* a file's old name: nothing to add */
		/* Through every marked mount of its filesystem: a tree reached through a
		 * bind mount sees its events under its own path. */
		for (fs = 0; fs < AB_MASKD_FS_MAX; fs++) {
			if (!w->fs[fs].used || memcmp(w->fs[fs].fsid, ev->dir[i].fsid,
			    sizeof(w->fs[fs].fsid)) != 0)
				continue;
			if ((r = name_event(w, fs, ev, i, is_dir, renamed)) != 0)
				return r;	/* forget everything: a change we cannot place */
		}
	}
	if (is_dir && renamed)	/* every cached path below it is stale */
		for (i = 0; i < WX_CACHE; i++) {
			free(w->cache[i].path);
			w->cache[i].path = NULL;
		}
	return 0;
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read and apply events until the queue is empty or DEADLINE (ms of now_ms) passed.
 * 0: the queue is empty; 1: events are left; -errno: every key forgotten. */
static int
drain(struct ab_windex *w, long long deadline)
{
	ssize_t n;
	int r;

	for (;;) {
		if (now_ms() > deadline)
			return 1;
		if ((n = read(w->fan, w->buf, WX_BUF)) == -1) {
			if (errno == EAGAIN)
				return 0;
			r = -errno;
			goto fail;
		}
		if ((r = ab_maskd_events_each(w->buf, (size_t)n, on_event, w)) != 0)
			goto fail;
	}
fail:
	forget_all(w);	/* an overflow, a malformed event, a name we could not place */
	return r;
}

int
ab_windex_drain(struct ab_windex *w)
{
	int r = drain(w, now_ms() + WX_LOOP_DRAIN_MS);

	return r < 0 ? r : 0;
}

/* ---- plans and reports ---- */

/* "dir P" / "full P" for every directory of D, after HEAD; -E2BIG if OUT is too short. */
static int
put_plan(const struct wkey *k, char *out, size_t outlen, size_t *n)
{
	size_t i, off = 0;
	int m;

	m = snprintf(out, outlen, "plan %u %u\n", k->id, k->gen);
	if (m < 0 || (size_t)m >= outlen)
		return -E2BIG;
	off = (size_t)m;
	for (i = 0; i < WX_SET_SLOTS; i++) {
		if (k->set.path[i] == NULL)
			continue;
		if (strchr(k->set.path[i], '\n') != NULL)
			return -EINVAL;		/* a line of its own would not say it */
		m = snprintf(out + off, outlen - off, "%s %s\n", k->set.full[i] ? "full" : "dir",
		    k->set.path[i]);
		if (m < 0 || (size_t)m >= outlen - off)
			return -E2BIG;
		off += (size_t)m;
	}
	*n = off;
	return 0;
}

void
ab_windex_plan(struct ab_windex *w, const char *buf, size_t len, char *out, size_t outlen,
    size_t *n)
{
	struct wkey *k;
	int r, behind;

	/* Up to date, or "walk": a failure has forgotten every key (they walk), and events
	 * still queued after WX_PLAN_DRAIN_MS may name what this login must mask. */
	behind = drain(w, now_ms() + WX_PLAN_DRAIN_MS) == 1;
	if ((k = key_find(w, buf, len)) == NULL && (r = key_new(w, buf, len, &k)) != 0)
		goto refused;
	k->asked = ++w->tick;
	if ((r = roots_check(w, k)) < 0) {
		key_free(k);
		goto refused;
	}
	if (r == 1)
		key_forget(w, k);
	/* A key just made, or one whose root changed, has no D yet: its login walks all,
	 * and what it finds (with what the events add meanwhile) is the next plan. */
	if (k->valid && !behind && put_plan(k, out, outlen, n) == 0)
		return;
	*n = (size_t)snprintf(out, outlen, "walk %u %u\n", k->id, k->gen);
	return;
refused:
	*n = (size_t)snprintf(out, outlen, "refused no walk index: %s", strerror(-r));
}

void
ab_windex_report(struct ab_windex *w, uint32_t uid, uint32_t id, uint32_t gen,
    const struct ab_strv *found, const struct ab_strv *mounts)
{
	struct wkey *k = &w->key[id % WX_KEYS_MAX];
	size_t i;
	int r = 0;

	if (!k->used || k->id != id || k->req.uid != uid)
		return;		/* forgotten (or taken by another key) since that plan */
	if (k->gen == gen)	/* nothing added since the plan: the walk's view is D */
		set_clear(&k->set);
	for (i = 0; r == 0 && i < found->n; i++)
		r = found->v[i][0] == '/' ? set_add_up(&k->set, found->v[i], 0) : -EINVAL;
	for (i = 0; r == 0 && i < mounts->n; i++)
		r = mounts->v[i][0] == '/' ? set_add_up(&k->set, mounts->v[i], 1) : -EINVAL;
	if (r != 0) {
		key_forget(w, k);
		return;
	}
	k->valid = 1;
}

int
ab_windex_check(struct ab_windex *w, uint32_t id, uint32_t gen)
{
	const struct wkey *k = &w->key[id % WX_KEYS_MAX];

	if (drain(w, now_ms() + WX_PLAN_DRAIN_MS) != 0)
		return 1;
	return !k->used || k->id != id || k->gen != gen;
}

/* ---- life ---- */

int
ab_windex_new(struct ab_windex **out)
{
	struct ab_windex *w;
	int e;

	if ((w = calloc(1, sizeof(*w))) == NULL || (w->buf = malloc(WX_BUF)) == NULL) {
		free(w);
		return -ENOMEM;
	}
	/* Notifications only: nothing ever waits on this group.  The kernel's bounded
	 * queue: an overflow forgets every key (their logins walk everything), so an
	 * unbounded one would only grow a root daemon's kernel memory. */
	w->fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK |
	    FAN_REPORT_DFID_NAME, O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (w->fan == -1) {
		e = errno;
		free(w->buf);
		free(w);
		return -e;
	}
	/* Ids differ from a daemon before: a hand-off sent across a restart cannot land
	 * on another key that took its id. */
	if (getrandom(&w->keygen, sizeof(w->keygen), GRND_NONBLOCK) != sizeof(w->keygen))
		w->keygen = (uint32_t)now_ms();
	*out = w;
	return 0;
}

int
ab_windex_fd(const struct ab_windex *w)
{
	return w->fan;
}

void
ab_windex_forsake(struct ab_windex *w)
{
	if (w == NULL || w->fan < 0)
		return;
	(void)close(w->fan);
	w->fan = -1;
}

void
ab_windex_free(struct ab_windex *w)
{
	size_t i;

	if (w == NULL)
		return;
	forget_all(w);
	for (i = 0; i < WX_KEYS_MAX; i++)
		key_free(&w->key[i]);
	for (i = 0; i < AB_MASKD_FS_MAX; i++)
		free(w->fs[i].root);
	ab_windex_forsake(w);
	free(w->buf);
	free(w);
}
