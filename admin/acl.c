/*
 * Project access for the agent: a POSIX ACL entry user:AGENT:rwx on every directory
 * (access and default, so new files inherit it) and user:AGENT:rw- (rwx when already
 * executable) on every regular file, over the existing tree.  Revoking removes exactly
 * that entry again and drops the mask / default ACL when nothing else needs them.
 *
 * Except for what the user's policy masks (FINDINGS F7): an entry the session masks,
 * decided by the same mask set as the PAM module's mask walk (ab_maskset_match: relative
 * to every tree that holds it, so a home pattern reaches into a project inside the home;
 * ASCII case folded; a name with an editor/backup decoration removed), gets an explicit
 * user:AGENT:--- instead (and default user:AGENT:--- on a directory), and the walk does
 * not enter a masked directory; the project's root too, when an enclosing tree masks
 * it.  Inside a session the mask mount hides the file; this denial holds on the host's
 * inode too, so an fd of the host's tree passed into a session (SCM_RIGHTS from an
 * agent-uid process outside any session) still cannot read it.  A named-user entry wins
 * over group and other bits, so --- denies even a world-readable secret.  Masked regular
 * files are denied even with several links (a denial can only narrow what the other
 * names give).
 *
 * The walk runs as root over trees other users can write, so (DESIGN.md pitfalls):
 * fd-relative, never following a symlink (O_NOFOLLOW, then fstat of the opened fd must
 * match what fstatat saw), directories opened O_NONBLOCK and everything else O_PATH so a
 * FIFO or a device cannot hang or be triggered, no crossing into other mounts, and every
 * error ends the walk.  Regular files with more than one link are left alone: their
 * other names may lie outside the project, and a grant there would hand the agent a
 * file nobody meant to share.  ACLs are read and written through /proc/self/fd/N, the
 * only way libacl reaches an O_PATH fd and a default ACL by fd.
 */
#define _GNU_SOURCE
#include <acl/libacl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"

#define PROGRESS_EVERY_NS (3 * 1000000000LL)	/* default */

enum how {
	GRANT,		/* user:UID:rw(x) */
	DENY,		/* user:UID:--- (masked) */
	REVOKE,		/* remove user:UID */
	REVOKE_DENY,	/* remove user:UID only if it is --- (multi-link files: ours) */
};

struct walk {
	uid_t	 uid;
	int	 grant;
	dev_t	 dev;
	const struct adm_acl_opts *opts;
	struct adm_acl_stats *st;
	long long next_progress;	/* CLOCK_MONOTONIC ns; 0: no progress reports */
	char	 path[PATH_MAX];	/* relative to the project: messages, mask matching */
	char	*why;
	size_t	 whylen;
};

static int
fail(struct walk *w, int r, const char *what)
{
	snprintf(w->why, w->whylen, "%s %s", what, w->path[0] ? w->path : ".");
	return r;
}

static int
find_user_entry(acl_t acl, uid_t uid, acl_entry_t *out)
{
	acl_entry_t e;
	acl_tag_t tag;
	int id;

	for (id = ACL_FIRST_ENTRY; acl_get_entry(acl, id, &e) == 1; id = ACL_NEXT_ENTRY) {
		if (acl_get_tag_type(e, &tag) == -1)
			return -errno;
		if (tag != ACL_USER)
			continue;
		uid_t *q = acl_get_qualifier(e);
		if (q == NULL)
			return -errno;
		int match = *q == uid;
		acl_free(q);
		if (match) {
			*out = e;
			return 1;
		}
	}
	return 0;
}

/* Does ACL hold entries beyond user::, group::, other:: and mask::? */
static int
has_extended(acl_t acl)
{
	acl_entry_t e;
	acl_tag_t tag;
	int id;

	for (id = ACL_FIRST_ENTRY; acl_get_entry(acl, id, &e) == 1; id = ACL_NEXT_ENTRY)
		if (acl_get_tag_type(e, &tag) == 0 && (tag == ACL_USER || tag == ACL_GROUP))
			return 1;
	return 0;
}

static int
drop_mask(acl_t acl)
{
	acl_entry_t e;
	acl_tag_t tag;
	int id;

	for (id = ACL_FIRST_ENTRY; acl_get_entry(acl, id, &e) == 1; id = ACL_NEXT_ENTRY)
		if (acl_get_tag_type(e, &tag) == 0 && tag == ACL_MASK)
			return acl_delete_entry(acl, e) == -1 ? -errno : 0;
	return 0;
}

/* HOW GRANT: rw, plus x when X; DENY: nothing. */
static int
set_perms(acl_entry_t e, enum how how, int x)
{
	acl_permset_t ps;

	if (acl_get_permset(e, &ps) == -1 || acl_clear_perms(ps) == -1)
		return -errno;
	if (how == GRANT && (acl_add_perm(ps, ACL_READ) == -1 ||
	    acl_add_perm(ps, ACL_WRITE) == -1 || (x && acl_add_perm(ps, ACL_EXECUTE) == -1)))
		return -errno;
	return acl_set_permset(e, ps) == -1 ? -errno : 0;
}

/* Is entry E user:UID:---? */
static int
is_deny(acl_entry_t e)
{
	acl_permset_t ps;

	return acl_get_permset(e, &ps) == 0 && acl_get_perm(ps, ACL_READ) == 0 &&
	    acl_get_perm(ps, ACL_WRITE) == 0 && acl_get_perm(ps, ACL_EXECUTE) == 0;
}

/* Set (GRANT, DENY) or remove (REVOKE*) user:UID on one ACL of the file behind PROCPATH. */
static int
edit_acl(const char *procpath, acl_type_t type, mode_t mode, uid_t uid, enum how how, int x)
{
	int grant = how == GRANT || how == DENY;
	acl_entry_t e;
	acl_t acl;
	int r, found;

	if ((acl = acl_get_file(procpath, type)) == NULL)
		return -errno;
	if ((found = find_user_entry(acl, uid, &e)) < 0) {
		r = found;
		goto out;
	}
	if (!grant && (!found || (how == REVOKE_DENY && !is_deny(e)))) {
		r = 0;
		goto out;
	}
	if (grant) {
		if (type == ACL_TYPE_DEFAULT && acl_entries(acl) == 0) {
			/* No default ACL yet: start from the mode, as setfacl -d does. */
			acl_free(acl);
			if ((acl = acl_from_mode(mode)) == NULL)
				return -errno;
		}
		if (!found && (acl_create_entry(&acl, &e) == -1 ||
		    acl_set_tag_type(e, ACL_USER) == -1 || acl_set_qualifier(e, &uid) == -1)) {
			r = -errno;
			goto out;
		}
		if ((r = set_perms(e, how, x)) != 0)
			goto out;
	} else if (acl_delete_entry(acl, e) == -1) {
		r = -errno;
		goto out;
	}
	if (has_extended(acl)) {
		if (acl_calc_mask(&acl) == -1) {
			r = -errno;
			goto out;
		}
	} else if (type == ACL_TYPE_DEFAULT) {
		/* Only the base entries we made are left: remove the default ACL. */
		r = acl_delete_def_file(procpath) == -1 ? -errno : 0;
		goto out;
	} else if ((r = drop_mask(acl)) != 0) {
		goto out;
	}
	if (acl_valid(acl) == -1) {
		r = -EINVAL;
		goto out;
	}
	r = acl_set_file(procpath, type, acl) == -1 ? -errno : 0;
out:
	acl_free(acl);
	return r;
}

/* Does the session mask w->path (the walk's contract: its parents were not)?  1/0/-errno. */
static int
masked(struct walk *w, int is_dir)
{
	int r;

	if (w->opts == NULL || w->opts->masks == NULL)
		return 0;
	if ((r = ab_maskset_match(w->opts->masks, w->opts->tree, w->path, is_dir)) < 0)
		return fail(w, r, "match the masks on");
	return r;
}

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long
progress_every(const struct adm_acl_opts *opts)
{
	return opts->progress_ns > 0 ? opts->progress_ns : PROGRESS_EVERY_NS;
}

/* Tell the caller how far the walk is, at most every progress_every(). */
static void
progress(struct walk *w)
{
	long long t;

	if (w->next_progress == 0 || (w->st->dirs + w->st->files) % 256 != 0)
		return;
	if ((t = now_ns()) < w->next_progress)
		return;
	w->next_progress = t + progress_every(w->opts);
	w->opts->progress(w->st, w->path, w->opts->arg);
}

static int
apply(struct walk *w, int fd, const struct stat *st, enum how how)
{
	char procpath[64];
	int dir = S_ISDIR(st->st_mode), r;

	snprintf(procpath, sizeof(procpath), "/proc/self/fd/%d", fd);
	if ((r = edit_acl(procpath, ACL_TYPE_ACCESS, st->st_mode, w->uid, how,
	    dir || (st->st_mode & 0111))) != 0)
		return fail(w, r, "access ACL of");
	if (dir && (r = edit_acl(procpath, ACL_TYPE_DEFAULT, st->st_mode, w->uid,
	    how, 1)) != 0)
		return fail(w, r, "default ACL of");
	if (how == DENY)
		w->st->masked++;
	else if (dir)
		w->st->dirs++;
	else
		w->st->files++;
	progress(w);
	return 0;
}

static int walk_dir(struct walk *w, int dfd, int depth);

/* Open NAME below DFD without following it and check it is still what fstatat saw. */
static int
visit(struct walk *w, int dfd, const char *name, int depth)
{
	struct stat before, after;
	enum how how = w->grant ? GRANT : REVOKE;
	int fd, r, flags;

	if (fstatat(dfd, name, &before, AT_SYMLINK_NOFOLLOW) == -1)
		return fail(w, -errno, "stat");
	if (S_ISDIR(before.st_mode) && before.st_dev != w->dev) {
		w->st->skipped++;	/* another file system mounted inside the project */
		return 0;
	}
	if (!S_ISDIR(before.st_mode) && !S_ISREG(before.st_mode))
		return 0;	/* symlinks, FIFOs, sockets, devices: no grant needed or wanted */
	if (w->grant && (r = masked(w, S_ISDIR(before.st_mode))) != 0) {
		if (r < 0)
			return r;
		how = DENY;
	}
	if (S_ISREG(before.st_mode) && before.st_nlink > 1) {
		/* Other names may lie outside the project: never grant there.  A denial
		 * only narrows; revoking takes back only a --- we may have set. */
		if (how == GRANT) {
			w->st->skipped++;
			return 0;
		}
		if (how == REVOKE)
			how = REVOKE_DENY;
	}
	flags = S_ISDIR(before.st_mode) ?
	    O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_NOCTTY : O_PATH;
	if ((fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return fail(w, -errno, "open");
	if (fstat(fd, &after) == -1) {
		r = fail(w, -errno, "fstat");
		close(fd);
		return r;
	}
	if (after.st_dev != before.st_dev || after.st_ino != before.st_ino ||
	    (after.st_mode & S_IFMT) != (before.st_mode & S_IFMT)) {
		close(fd);
		return fail(w, -EAGAIN, "replaced during the walk:");
	}
	/* A masked directory is not entered: its --- already bars the agent from it. */
	if ((r = apply(w, fd, &after, how)) != 0 || !S_ISDIR(after.st_mode) || how == DENY) {
		close(fd);
		return r;
	}
	return walk_dir(w, fd, depth + 1);	/* takes fd */
}

/* Walk the directory open at DFD (consumed). */
static int
walk_dir(struct walk *w, int dfd, int depth)
{
	size_t base = strlen(w->path);
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (depth > AB_WALK_MAX_DEPTH) {
		close(dfd);
		return fail(w, -ELOOP, "too deep at");
	}
	if ((d = fdopendir(dfd)) == NULL) {
		r = -errno;
		close(dfd);
		return fail(w, r, "read directory");
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0)
				r = fail(w, -errno, "read directory");
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(w->path + base, sizeof(w->path) - base, "%s%s",
		    base ? "/" : "", de->d_name) >= (int)(sizeof(w->path) - base)) {
			r = fail(w, -ENAMETOOLONG, "path too long:");
			break;
		}
		if ((r = visit(w, dirfd(d), de->d_name, depth)) != 0)
			break;
		w->path[base] = '\0';
	}
	closedir(d);
	return r;
}

static int
walk_tree(const char *dir, uid_t uid, int grant, const struct adm_acl_opts *opts,
    struct adm_acl_stats *st, char *why, size_t whylen)
{
	struct walk w = { .uid = uid, .grant = grant, .opts = opts, .st = st, .why = why,
	    .whylen = whylen };
	enum how how = grant ? GRANT : REVOKE;
	struct stat sb;
	int fd, r;

	memset(st, 0, sizeof(*st));
	why[0] = '\0';
	if (opts != NULL && opts->progress != NULL)
		w.next_progress = now_ns() + progress_every(opts);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) == -1)
		return fail(&w, -errno, "open");
	if (fstat(fd, &sb) == -1) {
		r = -errno;
		close(fd);
		return fail(&w, r, "fstat");
	}
	w.dev = sb.st_dev;
	/* The project's root is masked only from an enclosing tree (its path relative to
	 * itself is empty): the home's "/proj/" hides the whole project in a session. */
	if (grant && (r = masked(&w, 1)) != 0) {
		if (r < 0) {
			close(fd);
			return r;
		}
		how = DENY;
	}
	if ((r = apply(&w, fd, &sb, how)) != 0 || how == DENY) {
		close(fd);
		return r;
	}
	return walk_dir(&w, fd, 0);
}

int
adm_acl_grant(const char *dir, uid_t uid, const struct adm_acl_opts *opts,
    struct adm_acl_stats *st, char *why, size_t whylen)
{
	return walk_tree(dir, uid, 1, opts, st, why, whylen);
}

/* Removes every user:UID entry, --- ones included, masked directories entered. */
int
adm_acl_revoke(const char *dir, uid_t uid, const struct adm_acl_opts *opts,
    struct adm_acl_stats *st, char *why, size_t whylen)
{
	return walk_tree(dir, uid, 0, opts, st, why, whylen);
}

static int
entry_is_rwx(const char *path, acl_type_t type, uid_t uid)
{
	acl_permset_t ps;
	acl_entry_t e;
	acl_t acl;
	int r;

	if ((acl = acl_get_file(path, type)) == NULL)
		return -errno;
	if ((r = find_user_entry(acl, uid, &e)) == 1) {
		r = acl_get_permset(e, &ps) == 0 && acl_get_perm(ps, ACL_READ) == 1 &&
		    acl_get_perm(ps, ACL_WRITE) == 1 && acl_get_perm(ps, ACL_EXECUTE) == 1;
	}
	acl_free(acl);
	return r;
}

int
adm_acl_check(const char *dir, uid_t uid)
{
	char procpath[64];
	int fd, r;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -errno;
	snprintf(procpath, sizeof(procpath), "/proc/self/fd/%d", fd);
	if ((r = entry_is_rwx(procpath, ACL_TYPE_ACCESS, uid)) == 1)
		r = entry_is_rwx(procpath, ACL_TYPE_DEFAULT, uid);
	close(fd);
	return r;
}
