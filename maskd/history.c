/*
 * S: every inode that carried a masked name while the enforcer watched (research 2.4).
 * A name-only decision is bypassed by the agent itself: `mv .env x`, `ln .env y`, an
 * O_PATH fd plus linkat(AT_EMPTY_PATH), a stale O_PATH fd reopened after the developer
 * saved over the file.  Each is a new name for an inode that once had a masked one, so
 * the enforcer denies an open when the inode is in S, whatever it is called now.
 *
 * S is fed from the tracking group, drained before each answer: fsnotify queues a
 * dirent event inside the creating or renaming syscall, so every change that finished
 * before an open began is in the queue when its permission event is read.
 *
 * Inodes are named as fanotify names them: fsid + file handle (the handle holds the
 * inode number and generation, so a reused inode number is a different key).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "maskd.h"

struct slot {
	struct ab_maskd_key	key;
	unsigned char		used, is_dir;
	pid_t			fresh;	/* creator of a not yet opened new inode, or 0 */
};

struct ab_maskd_history {
	struct slot	*s;
	size_t		 cap;		/* power of two */
	size_t		 n, ndirs, max;
};

int
ab_maskd_key_of_fd(int fd, struct ab_maskd_key *key)
{
	struct {
		struct file_handle	fh;
		unsigned char		h[AB_MASKD_HANDLE_MAX];
	} b;
	struct statfs sf;
	int mnt;

	memset(key, 0, sizeof(*key));
	if (fstatfs(fd, &sf) == -1)
		return -errno;
	b.fh.handle_bytes = AB_MASKD_HANDLE_MAX;
	if (name_to_handle_at(fd, "", &b.fh, &mnt, AT_EMPTY_PATH) == -1)
		return -errno;
	memcpy(key->fsid, &sf.f_fsid, sizeof(key->fsid));
	key->type = b.fh.handle_type;
	key->len = b.fh.handle_bytes;
	memcpy(key->h, b.fh.f_handle, key->len);
	return 0;
}

int
ab_maskd_key_open(int mount_fd, const struct ab_maskd_key *key)
{
	struct {
		struct file_handle	fh;
		unsigned char		h[AB_MASKD_HANDLE_MAX];
	} b;
	int fd;

	if (key->len > AB_MASKD_HANDLE_MAX)
		return -EINVAL;
	b.fh.handle_bytes = key->len;
	b.fh.handle_type = key->type;
	memcpy(b.fh.f_handle, key->h, key->len);
	if ((fd = open_by_handle_at(mount_fd, &b.fh, O_PATH | O_CLOEXEC)) == -1)
		return -errno;
	return fd;
}

int
ab_maskd_key_path(int mount_fd, const struct ab_maskd_key *key, char *out, size_t outlen)
{
	int fd, r;

	if ((fd = ab_maskd_key_open(mount_fd, key)) < 0)
		return fd;
	r = ab_fd_path(fd, out, outlen);
	(void)close(fd);
	return r;
}

/* FNV-1a over the bytes that name the inode (not the unused tail of h). */
static size_t
hash(const struct ab_maskd_key *k)
{
	return (size_t)ab_fnv1a(k, offsetof(struct ab_maskd_key, h) + k->len);
}

static int
same(const struct ab_maskd_key *a, const struct ab_maskd_key *b)
{
	return memcmp(a, b, offsetof(struct ab_maskd_key, h)) == 0 &&
	    memcmp(a->h, b->h, a->len) == 0;
}

static struct slot *
find(const struct slot *s, size_t cap, const struct ab_maskd_key *k)
{
	size_t i = hash(k) & (cap - 1);

	while (s[i].used && !same(&s[i].key, k))
		i = (i + 1) & (cap - 1);
	return (struct slot *)&s[i];
}

int
ab_maskd_history_new(size_t max, struct ab_maskd_history **out)
{
	struct ab_maskd_history *h;

	*out = NULL;
	if (max == 0 || max > SIZE_MAX / 4 / sizeof(struct slot))
		return -EINVAL;
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return -ENOMEM;
	h->cap = 64;
	h->max = max;
	if ((h->s = calloc(h->cap, sizeof(*h->s))) == NULL) {
		free(h);
		return -ENOMEM;
	}
	*out = h;
	return 0;
}

void
ab_maskd_history_free(struct ab_maskd_history *h)
{
	if (h != NULL)
		free(h->s);
	free(h);
}

/* Double the table (kept at most half full, so probes stay short). */
static int
grow(struct ab_maskd_history *h)
{
	size_t cap = h->cap * 2, i;
	struct slot *s = calloc(cap, sizeof(*s));

	if (s == NULL)
		return -ENOMEM;
	for (i = 0; i < h->cap; i++)
		if (h->s[i].used)
			*find(s, cap, &h->s[i].key) = h->s[i];
	free(h->s);
	h->s = s;
	h->cap = cap;
	return 0;
}

int
ab_maskd_history_add(struct ab_maskd_history *h, const struct ab_maskd_key *key, int is_dir)
{
	struct slot *sl;
	int r;

	if (key->len > AB_MASKD_HANDLE_MAX)
		return -EINVAL;
	sl = find(h->s, h->cap, key);
	if (sl->used)
		return 0;
	if (h->n >= h->max)
		return -ENOSPC;
	if ((h->n + 1) * 2 > h->cap) {
		if ((r = grow(h)) != 0)
			return r;
		sl = find(h->s, h->cap, key);
	}
	memset(sl, 0, sizeof(*sl));
	sl->key.fsid[0] = key->fsid[0];
	sl->key.fsid[1] = key->fsid[1];
	sl->key.type = key->type;
	sl->key.len = key->len;
	memcpy(sl->key.h, key->h, key->len);
	sl->used = 1;
	sl->is_dir = is_dir != 0;
	h->n++;
	h->ndirs += sl->is_dir;
	return 0;
}

int
ab_maskd_history_has(const struct ab_maskd_history *h, const struct ab_maskd_key *key)
{
	return key->len <= AB_MASKD_HANDLE_MAX && find(h->s, h->cap, key)->used;
}

int
ab_maskd_history_take_fresh(struct ab_maskd_history *h, const struct ab_maskd_key *key,
    pid_t pid)
{
	struct slot *sl;
	pid_t f;

	if (key->len > AB_MASKD_HANDLE_MAX)
		return 0;
	sl = find(h->s, h->cap, key);
	if (!sl->used)
		return 0;
	f = sl->fresh;
	sl->fresh = 0;
	return pid > 0 && f == pid;
}

size_t
ab_maskd_history_ndirs(const struct ab_maskd_history *h)
{
	return h->ndirs;
}

size_t
ab_maskd_history_size(const struct ab_maskd_history *h)
{
	return h->n;
}

/* ---- feeding S from the tracking group ---- */

/* Did NAME in DIR carry a masked name?  Unresolvable counts as yes (deny is safe). */
static int
was_masked(const struct ab_maskd_decider *d, const struct ab_maskd_key *dir,
    const char *name, int is_dir, ab_maskd_resolve_fn resolve, void *arg)
{
	char path[PATH_MAX];

	if (resolve(arg, dir->fsid, dir, name, path, sizeof(path)) != 0)
		return 1;
	return ab_maskd_rule(d, path, is_dir) != 0;
}

/* What ab_maskd_history_feed passes to each event. */
struct feed {
	struct ab_maskd_history		*h;
	const struct ab_maskd_decider	*d;
	ab_maskd_resolve_fn		 resolve;
	ab_maskd_added_fn		 added;
	void				*arg;
};

/* ab_maskd_event_fn: one event into S. */
static int
feed_one(void *arg, const struct ab_maskd_dirent_ev *ev)
{
	const struct feed *f = arg;
	int is_dir = (ev->mask & FAN_ONDIR) != 0, r;
	size_t i;

	if (!ev->has_target)
		return ev->nnames == 0 ? 0 : -EPROTO;
	if (ab_maskd_history_has(f->h, &ev->target))
		return 0;	/* already known: skip the path lookups */
	for (i = 0; i < ev->nnames; i++)
		if (was_masked(f->d, &ev->dir[i], ev->name[i], is_dir, f->resolve, f->arg))
			break;
	if (i == ev->nnames)
		return 0;
	if ((r = ab_maskd_history_add(f->h, &ev->target, is_dir)) != 0)
		return r;
	/* A new inode under a masked name: its creator's creating open may pass (the
	 * file is empty then).  Only an event that is a create and nothing else (not
	 * merged with a rename), of a file, with a pid we can see. */
	if (ev->mask == FAN_CREATE && ev->pid > 0)
		find(f->h->s, f->h->cap, &ev->target)->fresh = ev->pid;
	if (f->added != NULL)
		f->added(f->arg, &ev->target);
	return 0;
}

int
ab_maskd_history_feed(struct ab_maskd_history *h, const struct ab_maskd_decider *d,
    const void *buf, size_t len, ab_maskd_resolve_fn resolve, ab_maskd_added_fn added,
    void *arg)
{
	struct feed f = { h, d, resolve, added, arg };

	return ab_maskd_events_each(buf, len, feed_one, &f);
}
