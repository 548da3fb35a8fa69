/*
 * Masks and protects: walk every project and the agent's home, as root, through trees
 * the agent owns and may be changing while we walk.  Hence (pam_namespace's
 * secure_opendir, bubblewrap): fd-relative, one component at a time, O_NOFOLLOW always,
 * directories opened O_DIRECTORY|O_NONBLOCK (a FIFO can neither be opened nor hang us),
 * non-directories only ever opened O_PATH, never for reading; depth, entries and
 * hardlink records bounded; every error fails the login.
 *
 * match   one decision, the mask set's (policy.h, ab_maskset_match), which enroll's
 *         ACL walk (admin/acl.c) shares.  Patterns are matched ignoring ASCII case,
 *         masks and protects alike: a secret checked out on macOS or Windows as ".ENV" or
 *         "server.PEM" is the same secret, and on a case-folding directory (ext4 +F,
 *         vfat) ".GIT/hooks" is the ".git/hooks" git opens (FINDINGS F3).  Over-matching
 *         is a denial, under-matching a leak.  A mask also applies to an entry whose name,
 *         with an editor or backup decoration removed (ab_pattern_undecorate: "X~",
 *         "#X#", ".#X", ".X.swp", "X.bak", "X.orig", "X.1", ...), matches: the copy holds
 *         the same secret (FINDINGS F4).  Protects are not widened so: a writable
 *         ".bashrc~" runs nowhere.
 * mask    a matching name gets a root-owned mode-0000 empty file (or directory)
 *         mounted over it, so every access is an EACCES the per-uid exit rules audit.
 *         Mounted onto the O_PATH fd we walked to (open_tree + move_mount), never onto a
 *         path re-resolved later; the name is then re-checked to detect a rename race.
 *         Masked directories are not entered for masking, but are walked for hardlinks.
 * links   a masked regular file with st_nlink > 1 is masked through every other name
 *         in the walked trees (second pass, by inode); if some link lies outside them,
 *         the login is refused naming the file: we cannot mask a name we cannot see.
 * protect the matching path is bound onto itself read-only (recursively, after its
 *         children were masked, so the masks come along).  Rename and unlink of a
 *         mountpoint fail with EBUSY inside the session, so protected files cannot be
 *         replaced either.
 * symlink a link whose own path matches is masked/protected itself: the mount sits on
 *         the link's dentry, so resolving the name lands on the mask, whatever the link
 *         points to.  Its target is judged by its own path, if it is in a walked tree.
 * nested  a project inside the home (or another project) is walked once, inside the
 *         enclosing tree (enter_nested_root), its entries matched relative to both (the
 *         mask set finds every tree that holds an entry): the same result as walking it
 *         again on its own, at half the cost.
 * plan    with a walk plan of agentbox-maskd's (walkplan.c, maskd/walkindex.h), the
 *         mask and protect passes enter only the directories it names (and those below
 *         a "full" one, and every mount inside a tree): the others hold nothing to mask
 *         or protect.  Each directory entered is still read whole and every entry in it
 *         matched, masked and protected directories are entered as before, and the
 *         hardlink pass walks everything.  The directories where the walk masked or
 *         protected something go back in the hand-off: the next plan.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "handoff.h"
#include "module.h"

#define WALK_MAX_ENTRIES	1000000	/* per login, all trees and both passes */
#define WALK_MAX_LINKS		4096	/* masked multi-link files */

enum walk_mode {
	W_APPLY,	/* mask and protect */
	W_PROTECTED,	/* below a protected dir: mask only (the protect covers the rest) */
	W_IN_MASKED,	/* below a masked dir: only note multi-link files */
	W_LINKS,	/* second pass: mask the other names of noted files */
};

struct link_rec {
	dev_t	 dev;
	ino_t	 ino;
	nlink_t	 nlink;
	nlink_t	 seen;		/* names found masked (directly or inside a masked dir) */
	char	*name;		/* the first one, for the refusal line */
};

/* A tree to walk: the home, then each project, as find_roots first found it. */
struct root {
	const char	*path;
	dev_t		 dev;
	ino_t		 ino;
	int		 exists;	/* a home may not */
	int		 walked;	/* on its own, or inside an enclosing tree */
};

struct walk {
	struct ab_sess	*s;
	struct ab_maskset *mask, *protect;
	const char	*root;
	size_t		 tree;		/* index of root in roots: the mask set's tree */
	size_t		 entries;
	struct link_rec	*links;
	size_t		 nlinks;
	struct stat	*prot;		/* (dev, ino) protected already: overlapping trees */
	size_t		 nprot;
	char		 rel[PATH_MAX];	/* path of the current entry relative to root */
	struct root	*roots;		/* home, then projects (ab_trees_path) */
	size_t		 nroots;
	int		 pruning;	/* entering only the plan's directories */
};

static int walk_dir(struct walk *w, int fd, int depth, size_t len, enum walk_mode mode);

/* The absolute path of w->rel[0..LEN) (LEN 0: the tree's root) into BUF[0..N). */
static int
rel_abs(const struct walk *w, size_t len, char *buf, size_t n)
{
	int top = strcmp(w->root, "/") == 0;
	int m = snprintf(buf, n, "%s%s%.*s", top && len != 0 ? "" : w->root,
	    len != 0 ? "/" : "", (int)len, w->rel);

	return m < 0 || (size_t)m >= n ? -ENAMETOOLONG : 0;
}

/*
 * The walk masked or protected an entry of directory w->rel[0..LEN): it goes in the
 * hand-off's report.  Never a failure: a report that cannot be whole is not sent.
 */
static void
note_found(struct walk *w, size_t len)
{
	struct ab_strv *f = &w->s->walk_found;
	char path[PATH_MAX];

	if (!w->s->walk_report)
		return;
	if (rel_abs(w, len, path, sizeof(path)) != 0 || strchr(path, '\n') != NULL ||
	    f->n >= AB_WALKPLAN_DIRS_MAX ||
	    (!(f->n != 0 && strcmp(f->v[f->n - 1], path) == 0) && ab_strv_push(f, path) != 0)) {
		w->s->walk_report = 0;
		ab_strv_free(f);
	}
}

/* Length of the directory part of w->rel[0..LEN) (0: the tree's root). */
static size_t
parent_len(const struct walk *w, size_t len)
{
	while (len > 0 && w->rel[len - 1] != '/')
		len--;
	return len > 0 ? len - 1 : 0;
}

/* Does the entry w->rel match a pattern of SET?  1, 0, or a -errno recorded. */
static int
matches(struct walk *w, const struct ab_maskset *set, int is_dir)
{
	int r = ab_maskset_match(set, w->tree, w->rel, is_dir);

	if (r < 0)
		return ab_sess_fail(w->s, r, "match %s/%s: %s", w->root, w->rel, strerror(-r));
	return r;
}

static struct link_rec *
link_find(struct walk *w, dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < w->nlinks; i++)
		if (w->links[i].ino == ino && w->links[i].dev == dev)
			return &w->links[i];
	return NULL;
}

/* One more name of a multi-link file is masked. */
static int
link_note(struct walk *w, const struct stat *st)
{
	struct link_rec *lr = link_find(w, st->st_dev, st->st_ino);
	char buf[PATH_MAX + 2];

	if (lr != NULL) {
		lr->seen++;
		return 0;
	}
	if (w->nlinks == WALK_MAX_LINKS)
		return ab_sess_fail(w->s, -E2BIG, "more than %d masked files with hardlinks "
		    "under %s", WALK_MAX_LINKS, w->root);
	if (w->nlinks % 64 == 0) {
		lr = reallocarray(w->links, w->nlinks + 64, sizeof(*lr));
		if (lr == NULL)
			return ab_sess_fail(w->s, -ENOMEM, "out of memory");
		w->links = lr;
	}
	lr = &w->links[w->nlinks];
	snprintf(buf, sizeof(buf), "%s/%s", w->root, w->rel);
	if ((lr->name = strdup(buf)) == NULL)
		return ab_sess_fail(w->s, -ENOMEM, "out of memory");
	lr->dev = st->st_dev;
	lr->ino = st->st_ino;
	lr->nlink = st->st_nlink;
	lr->seen = 1;
	w->nlinks++;
	return 0;
}

/*
 * Mount a clone of SRC (a mask source, or the entry itself for a protect or a pin) over
 * TARGET, the O_PATH fd we walked to, with ATTRS set on the clone (none: a pin).
 */
static int
mount_over(struct walk *w, int src, int target, unsigned int tree_flags, uint64_t attrs)
{
	struct mount_attr attr = { .attr_set = attrs };
	int clone, r = 0;

	clone = open_tree(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
	    tree_flags);
	if (clone == -1)
		return ab_sess_fail(w->s, -errno, "open_tree for %s/%s: %s", w->root, w->rel,
		    strerror(errno));
	/* Attributes set on the detached clone: the mount is never writable once visible. */
	if (attrs != 0 && mount_setattr(clone, "", AT_EMPTY_PATH | (tree_flags & AT_RECURSIVE),
	    &attr, sizeof(attr)) == -1)
		r = ab_sess_fail(w->s, -errno, "mount_setattr for %s/%s: %s", w->root, w->rel,
		    strerror(errno));
	else if (move_mount(clone, "", target, "", MOVE_MOUNT_F_EMPTY_PATH |
	    MOVE_MOUNT_T_EMPTY_PATH) == -1)
		r = ab_sess_fail(w->s, -errno, "mount over %s/%s: %s", w->root, w->rel,
		    strerror(errno));
	close(clone);
	return r;
}

/* Mask the entry NAME of DIRFD, already opened O_PATH as FD with stat ST. */
static int
mask_fd(struct walk *w, int dirfd, const char *name, int fd, const struct stat *st)
{
	struct stat now;
	int r;

	r = mount_over(w, S_ISDIR(st->st_mode) ? w->s->mask_dir : w->s->mask_file, fd, 0,
	    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (r != 0)
		return r;
	/* The name must now lead to the mask: if it was renamed meanwhile, refuse. */
	if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == -1 || now.st_dev != w->s->run_dev)
		return ab_sess_fail(w->s, -EAGAIN, "%s/%s changed while it was being masked",
		    w->root, w->rel);
	w->s->masks++;
	return 0;
}

/* Open NAME of DIRFD O_PATH; *already is set when it is one of our masks. */
static int
open_entry(struct walk *w, int dirfd, const char *name, struct stat *st, int *already)
{
	int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd == -1)
		return ab_sess_fail(w->s, -errno, "open %s/%s: %s", w->root, w->rel,
		    strerror(errno));
	if (fstat(fd, st) == -1) {
		ab_sess_fail(w->s, -errno, "fstat %s/%s: %s", w->root, w->rel, strerror(errno));
		close(fd);
		return -EIO;
	}
	*already = st->st_dev == w->s->run_dev;	/* trees overlap: masked on the first walk */
	return fd;
}

static int
mask_entry(struct walk *w, int dirfd, const char *name, int depth, size_t len)
{
	struct stat st;
	int fd, dfd, already, r = 0;

	if ((fd = open_entry(w, dirfd, name, &st, &already)) < 0)
		return fd;
	if (already)
		goto out;
	if (S_ISREG(st.st_mode) && st.st_nlink > 1)
		r = link_note(w, &st);
	if (r == 0 && S_ISDIR(st.st_mode)) {
		/* Below a masked dir: only multi-link files matter (their other names). */
		dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
		if (dfd == -1)
			r = ab_sess_fail(w->s, -errno, "open %s/%s: %s", w->root, w->rel,
			    strerror(errno));
		else
			r = walk_dir(w, dfd, depth + 1, len, W_IN_MASKED);
	}
	if (r == 0)
		r = mask_fd(w, dirfd, name, fd, &st);
out:
	close(fd);
	return r;
}

/* Bind FD onto itself read-only, once: trees may overlap (a project bound in twice). */
static int
protect_entry(struct walk *w, int fd)
{
	struct stat st, *p;
	size_t i;
	int r;

	if (fstat(fd, &st) == -1)
		return ab_sess_fail(w->s, -errno, "fstat %s/%s: %s", w->root, w->rel,
		    strerror(errno));
	for (i = 0; i < w->nprot; i++)
		if (w->prot[i].st_ino == st.st_ino && w->prot[i].st_dev == st.st_dev)
			return 0;
	if (w->nprot % 32 == 0) {
		if (w->nprot >= WALK_MAX_LINKS)
			return ab_sess_fail(w->s, -E2BIG, "more than %d protected paths",
			    WALK_MAX_LINKS);
		if ((p = reallocarray(w->prot, w->nprot + 32, sizeof(*p))) == NULL)
			return ab_sess_fail(w->s, -ENOMEM, "out of memory");
		w->prot = p;
	}
	r = mount_over(w, fd, fd, AT_RECURSIVE, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV);
	if (r == 0) {
		w->prot[w->nprot++] = st;
		w->s->protects++;
	}
	return r;
}

static int
protect_nondir(struct walk *w, int dirfd, const char *name)
{
	struct stat st;
	int fd, already, r = 0;

	if ((fd = open_entry(w, dirfd, name, &st, &already)) < 0)
		return fd;
	if (!already)
		r = protect_entry(w, fd);
	close(fd);
	return r;
}

/*
 * Pin a directory that holds a protected entry: bind it onto itself (recursively, so
 * the masks and protects below come along), so that it cannot be renamed aside and
 * replaced in the session (rename of a mount point is EBUSY).  Without it, `.git` with
 * a read-only `.git/hooks` inside could be moved away and rebuilt with the agent's hook.
 */
static int
pin_entry(struct walk *w, int fd)
{
	return mount_over(w, fd, fd, AT_RECURSIVE, 0);
}

/*
 * Is the directory w->rel[0..LEN), with stat ST, the root of a tree not walked yet (a
 * project inside the home, or inside another project)?  Then it is walked here, once,
 * not again on its own: each entry below it is matched relative to both trees, as two
 * walks did (anchored patterns are relative to the tree they are walked from), and the
 * masks, protects and pins are made once.  Only the exact path of that tree, with the
 * inode its root had when ab_mask_apply opened it, counts: the same directory under
 * another path (a bind mount) needs masks mounted at that path, so it is walked there.
 * Marks the tree walked.  Which trees an entry is matched against is the mask set's
 * business (by path): this only decides what is walked, so it counts nothing.
 */
static void
enter_nested_root(struct walk *w, size_t len, const struct stat *st)
{
	size_t i, n = strlen(w->root);
	struct root *t;

	for (i = 0; i < w->nroots; i++) {
		t = &w->roots[i];
		if (t->walked || !t->exists || t->ino != st->st_ino || t->dev != st->st_dev ||
		    strncmp(t->path, w->root, n) != 0 || t->path[n] != '/' ||
		    strlen(t->path + n + 1) != len || memcmp(t->path + n + 1, w->rel, len) != 0)
			continue;
		t->walked = 1;
	}
}

/*
 * Is the directory open as FD case-folding (ext4, f2fs, tmpfs +F)?  Its entries' names
 * as the index saw them (the kernel's cached spelling) may differ from readdir's in
 * case, so the walk enters all of it: a plan is compared byte for byte.
 */
static int
casefolded(int fd)
{
	int flags = 0;

	return ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_CASEFOLD_FL) != 0;
}

/* descend, the plan asked: PROTECTS is the count before the directory's walk. */
static int
descend_into(struct walk *w, int dirfd, const char *name, int depth, size_t len,
    enum walk_mode mode, int protect, uint32_t protects)
{
	struct stat st;
	int fd, keep = -1, r;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1)
		return ab_sess_fail(w->s, -errno, "open directory %s/%s: %s", w->root, w->rel,
		    strerror(errno));
	if (fstat(fd, &st) == -1) {
		r = ab_sess_fail(w->s, -errno, "fstat %s/%s: %s", w->root, w->rel,
		    strerror(errno));
		close(fd);
		return r;
	}
	if (st.st_dev == w->s->run_dev) {	/* already masked by an overlapping tree */
		close(fd);
		return 0;
	}
	if (w->pruning && casefolded(fd))
		w->pruning = 0;		/* descend puts it back */
	/* walk_dir consumes fd; a protect or a pin needs the directory afterwards. */
	if ((protect || mode == W_APPLY) &&
	    (keep = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1) {
		r = ab_sess_fail(w->s, -errno, "dup: %s", strerror(errno));
		close(fd);
		return r;
	}
	/* Only a plain walk takes a nested tree over: below a mask or a protect, the
	 * tree's own walk still runs (its masks are what a protect does not give). */
	if (mode == W_APPLY)
		enter_nested_root(w, len, &st);
	r = walk_dir(w, fd, depth + 1, len, mode);
	if (r == 0 && protect)
		r = protect_entry(w, keep);
	else if (r == 0 && mode == W_APPLY && w->s->protects != protects)
		r = pin_entry(w, keep);
	if (keep != -1)
		close(keep);
	return r;
}

static int
descend(struct walk *w, int dirfd, const char *name, int depth, size_t len,
    enum walk_mode mode, int protect)
{
	uint32_t protects = w->s->protects;
	char path[PATH_MAX];
	int r, pruning = w->pruning, full;

	/* With a plan, a directory it does not name holds nothing to mask or protect. */
	if (pruning && !protect && (mode == W_APPLY || mode == W_PROTECTED)) {
		if ((r = rel_abs(w, len, path, sizeof(path))) != 0)
			return ab_sess_fail(w->s, r, "%s/%s: path too long", w->root, w->rel);
		if (!ab_walkplan_enter(w->s, path, &full))
			return 0;
		w->pruning = !full;
	}
	r = descend_into(w, dirfd, name, depth, len, mode, protect, protects);
	w->pruning = pruning;
	return r;
}

/* Second pass: NAME has the inode number of a noted file; mask it if it is that file. */
static int
mask_other_link(struct walk *w, int dirfd, const char *name)
{
	struct link_rec *lr;
	struct stat st;
	int fd, already, r = 0;

	if ((fd = open_entry(w, dirfd, name, &st, &already)) < 0)
		return fd;
	if (!already && S_ISREG(st.st_mode) &&
	    (lr = link_find(w, st.st_dev, st.st_ino)) != NULL) {
		if ((r = mask_fd(w, dirfd, name, fd, &st)) == 0)
			lr->seen++;
	}
	close(fd);
	return r;
}

static int
ino_noted(struct walk *w, ino_t ino)
{
	size_t i;

	for (i = 0; i < w->nlinks; i++)
		if (w->links[i].ino == ino)
			return 1;
	return 0;
}

static int
visit(struct walk *w, int dirfd, const struct dirent *de, int depth, size_t len,
    enum walk_mode mode)
{
	unsigned char type = de->d_type;
	struct stat st;
	int is_dir, m, prot;

	if (type == DT_UNKNOWN) {	/* file systems without d_type */
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			return ab_sess_fail(w->s, -errno, "fstatat %s/%s: %s", w->root, w->rel,
			    strerror(errno));
		type = IFTODT(st.st_mode);
	}
	is_dir = type == DT_DIR;
	switch (mode) {
	case W_APPLY:
	case W_PROTECTED:
		if ((m = matches(w, w->mask, is_dir)) != 0) {
			if (m < 0 || (m = mask_entry(w, dirfd, de->d_name, depth, len)) != 0)
				return m;
			note_found(w, parent_len(w, len));
			return 0;
		}
		if ((prot = mode == W_APPLY ? matches(w, w->protect, is_dir) : 0) < 0)
			return prot;
		if (!is_dir && !prot)
			return 0;
		m = is_dir ? descend(w, dirfd, de->d_name, depth, len,
		    prot ? W_PROTECTED : mode, prot) : protect_nondir(w, dirfd, de->d_name);
		if (m == 0 && prot)
			note_found(w, parent_len(w, len));
		return m;
	case W_IN_MASKED:
		if (is_dir)
			return descend(w, dirfd, de->d_name, depth, len, W_IN_MASKED, 0);
		if (type != DT_REG)
			return 0;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			return ab_sess_fail(w->s, -errno, "fstatat %s/%s: %s", w->root, w->rel,
			    strerror(errno));
		return S_ISREG(st.st_mode) && st.st_nlink > 1 ? link_note(w, &st) : 0;
	case W_LINKS:
		if (is_dir)
			return descend(w, dirfd, de->d_name, depth, len, W_LINKS, 0);
		if (type == DT_REG && ino_noted(w, de->d_ino))
			return mask_other_link(w, dirfd, de->d_name);
		return 0;
	}
	return -EINVAL;
}

/* Walk the directory open as FD (consumed); w->rel[0..len) names it. */
static int
walk_dir(struct walk *w, int fd, int depth, size_t len, enum walk_mode mode)
{
	struct dirent *de;
	size_t nlen;
	DIR *d;
	int r = 0;

	if (depth > AB_WALK_MAX_DEPTH) {
		close(fd);
		return ab_sess_fail(w->s, -ELOOP, "%s/%s: deeper than %d levels",
		    w->root, w->rel, AB_WALK_MAX_DEPTH);
	}
	if ((d = fdopendir(fd)) == NULL) {
		r = ab_sess_fail(w->s, -errno, "fdopendir %s/%s: %s", w->root, w->rel,
		    strerror(errno));
		close(fd);
		return r;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0)
				r = ab_sess_fail(w->s, -errno, "readdir %s/%s: %s", w->root,
				    w->rel, strerror(errno));
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++w->entries > WALK_MAX_ENTRIES) {
			r = ab_sess_fail(w->s, -E2BIG, "more than %d entries under the projects "
			    "and home", WALK_MAX_ENTRIES);
			break;
		}
		nlen = len + (len != 0) + strlen(de->d_name);
		if (nlen >= sizeof(w->rel)) {
			r = ab_sess_fail(w->s, -ENAMETOOLONG, "%s/%s/%s: path too long",
			    w->root, w->rel, de->d_name);
			break;
		}
		if (len != 0)
			w->rel[len] = '/';
		strcpy(w->rel + len + (len != 0), de->d_name);
		r = visit(w, dirfd(d), de, depth, nlen, mode);
		w->rel[len] = '\0';
		if (r != 0)
			break;
	}
	closedir(d);
	return r;
}

/*
 * Open tree TREE (ab_trees_path: the home, then each project) with OFLAGS, for the mask
 * walk and for the world (which keeps trees /tmp would hide).  An admin-written absolute
 * path, but symlinks in it are refused, as the agent may own a directory on the way (a
 * project under its home).  A home that does not exist has nothing to mask or keep (su
 * logs in with HOME=/): -ENOENT, not a failure; only root can create it under /home.
 */
int
ab_tree_open(struct ab_sess *s, size_t tree, int oflags)
{
	const char *path = ab_trees_path(s->home, &s->pol->project, tree);
	struct open_how how = {
		.flags = (uint64_t)(oflags | O_DIRECTORY | O_CLOEXEC),
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	int fd;

	if (path == NULL && tree == 0)
		return -ENOENT;
	fd = ab_openat2(AT_FDCWD, path, &how);
	if (fd == -1 && errno == ENOENT && tree == 0)
		return -ENOENT;
	if (fd == -1)	/* < 0 either way: callers test fd < 0 and return it */
		return ab_sess_fail(s, -errno, "%s %s: %s", tree == 0 ? "home" : "project",
		    path, strerror(errno));
	return fd;
}

/*
 * Walk every tree in MODE.  The mask pass skips a tree walked inside an enclosing one
 * already (enter_nested_root); the hardlink pass walks them all, as it always did.
 */
static int
walk_roots(struct walk *w, enum walk_mode mode)
{
	struct root *t;
	size_t i;
	int fd, r, pruning;

	for (i = 0; i < w->nroots; i++) {
		t = &w->roots[i];
		if (!t->exists || (mode == W_APPLY && t->walked))
			continue;
		t->walked = 1;
		w->root = t->path;
		w->tree = i;
		w->rel[0] = '\0';
		if ((fd = ab_tree_open(w->s, i, O_RDONLY | O_NONBLOCK)) == -ENOENT && i == 0)
			continue;	/* no home (any more) */
		if (fd < 0)
			return fd;
		pruning = w->pruning;
		if (pruning && casefolded(fd))
			w->pruning = 0;
		r = walk_dir(w, fd, 0, 0, mode);
		w->pruning = pruning;
		if (r != 0)
			return r;
	}
	return 0;
}

/* Open each tree once up front: a missing project refuses the login, masks or not. */
static int
find_roots(struct ab_sess *s, struct root *roots)
{
	const struct ab_strv *proj = &s->pol->project;
	struct stat st;
	size_t i;
	int fd, r = 0;

	for (i = 0; i < ab_trees_n(proj); i++) {
		roots[i].path = ab_trees_path(s->home, proj, i);
		if ((fd = ab_tree_open(s, i, O_RDONLY | O_NONBLOCK)) == -ENOENT && i == 0)
			continue;	/* no home: nothing to mask there */
		if (fd < 0)
			return fd;
		if (fstat(fd, &st) == -1)
			r = ab_sess_fail(s, -errno, "fstat %s: %s", roots[i].path, strerror(errno));
		close(fd);
		if (r != 0)
			return r;
		roots[i].dev = st.st_dev;
		roots[i].ino = st.st_ino;
		roots[i].exists = 1;
	}
	return 0;
}

int
ab_mask_apply(struct ab_sess *s)
{
	size_t i, nroots = ab_trees_n(&s->pol->project);
	struct root *roots;
	struct walk *w;
	int r = 0;

	if ((roots = calloc(nroots, sizeof(*roots))) == NULL)
		return ab_sess_fail(s, -ENOMEM, "out of memory");
	if ((r = find_roots(s, roots)) != 0 ||
	    (s->pol->mask.n == 0 && s->pol->protect.n == 0)) {
		free(roots);
		return r;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		free(roots);
		return ab_sess_fail(s, -ENOMEM, "out of memory");
	}
	w->s = s;
	w->roots = roots;
	w->nroots = nroots;
	/* With a plan (or a "walk everything" one): what this walk finds is the next. */
	ab_walkplan_take(s);
	s->walk_report = s->plan != NULL;
	s->walk_how = "whole";
	if ((r = ab_walkplan_mounts(s)) != 0)
		goto out;
	if (s->plan != NULL && s->plan->prune) {
		s->walk_how = "planned";
		w->pruning = 1;
	}
	if ((r = ab_maskset_new(&s->pol->mask, s->home, &s->pol->project, AB_MASKSET_MASKS,
	    &w->mask)) != 0 || (r = ab_maskset_new(&s->pol->protect, s->home,
	    &s->pol->project, AB_MASKSET_PROTECTS, &w->protect)) != 0)
		r = ab_sess_fail(s, r, "mask patterns: %s", strerror(-r));
	else
		r = walk_roots(w, W_APPLY);
	/* A name the plan did not have may have come while we walked (a directory moved
	 * from one we skipped into another): then walk everything, once.  What is masked
	 * and protected already is skipped (a mount of ours, or protected before). */
	if (r == 0 && w->pruning && !ab_walkplan_check(s)) {
		s->walk_how = "rewalked";
		w->pruning = 0;
		ab_strv_free(&s->walk_found);
		for (i = 0; i < nroots; i++)
			roots[i].walked = 0;
		r = walk_roots(w, W_APPLY);
	}
	if (r == 0 && w->nlinks != 0)
		r = walk_roots(w, W_LINKS);
	for (i = 0; r == 0 && i < w->nlinks; i++)
		if (w->links[i].seen < w->links[i].nlink)
			r = ab_sess_fail(s, -EMLINK, "masked file %s has %lu hardlink(s) outside "
			    "the projects and home: they cannot be masked",
			    w->links[i].name, (unsigned long)(w->links[i].nlink - w->links[i].seen));
out:
	s->walked = (uint32_t)w->entries;	/* <= WALK_MAX_ENTRIES */
	for (i = 0; i < w->nlinks; i++)
		free(w->links[i].name);
	free(w->links);
	free(w->prot);
	ab_maskset_free(w->mask);
	ab_maskset_free(w->protect);
	free(w->roots);
	free(w);
	return r;
}
