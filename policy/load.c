/*
 * Reading the policy files safely: the agent must never be able to write, swap or
 * redirect what confines it (DESIGN.md invariant 3).
 *
 * Every directory from the policy root down is opened with O_DIRECTORY|O_NOFOLLOW
 * relative to its parent's fd, and every file with O_NOFOLLOW|O_NONBLOCK relative to
 * its directory's fd; the checks are made with fstat on the open fd (never stat a path
 * and then open it): owned by root, not group- or world-writable, a directory or a
 * regular file, at most 4 MiB.  A file is read whole, hashed and parsed from memory.
 *
 * Group- and world-writable include POSIX ACLs: with an ACL the group bits of st_mode are
 * the ACL mask, which caps every named user and group entry, so a file whose mask lacks
 * write cannot be written through any ACL entry.
 *
 * Owner: root.  When the caller is not root (a person running "agentbox check" or the
 * unit tests), files owned by the caller are accepted too: such a process confines
 * nobody, and only fools itself.  pam_agentbox.so runs as root and accepts root only.
 *
 * ab_policy_mentions_user reads the same files under the same rules but does not parse
 * them: it only scans their lines for [user:NAME] headers, so it still answers when the
 * set is invalid.
 */
#define _GNU_SOURCE	/* qsort_r, vasprintf, asprintf, strchrnul */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define POLICY_ETC	"etc"
#define POLICY_SUBDIR	"agentbox"
#define POLICY_CONF	"agentbox.conf"
#define POLICY_DROPINS	"policy.d"

/* Is ST safe to take policy from?  0, or -errno with the reason in the diagnostics. */
static int
check_meta(struct ab_pset *ps, const struct stat *st, const char *display, int want_dir)
{
	uid_t me = geteuid();

	if (want_dir && !S_ISDIR(st->st_mode)) {
		ab_pset_fail(ps, -ENOTDIR, "%s: not a directory", display);
		return -ENOTDIR;
	}
	if (!want_dir && !S_ISREG(st->st_mode)) {
		ab_pset_fail(ps, -EPERM, "%s: not a regular file", display);
		return -EPERM;
	}
	if (st->st_uid != 0 && (me == 0 || st->st_uid != me)) {
		ab_pset_fail(ps, -EPERM, "%s: owned by uid %u, not root: refused (chown root)",
		    display, (unsigned)st->st_uid);
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		ab_pset_fail(ps, -EPERM, "%s: %s-writable (mode %04o): refused (chmod go-w)",
		    display, (st->st_mode & S_IWOTH) ? "world" : "group",
		    (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* Open directory NAME under DIRFD (AT_FDCWD for a path) and check it. */
static int
open_dir(struct ab_pset *ps, int dirfd, const char *name, const char *display, int *out)
{
	struct stat st;
	int fd, r;

	if ((fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = -errno;
		if (r != -ENOENT)
			ab_pset_fail(ps, r, "%s: %s%s", display, strerror(-r),
			    r == -ELOOP || r == -ENOTDIR ? " (a symlink is refused)" : "");
		return r;
	}
	if (fstat(fd, &st) != 0) {
		r = -errno;
		ab_pset_fail(ps, r, "%s: fstat: %s", display, strerror(-r));
		close(fd);
		return r;
	}
	if ((r = check_meta(ps, &st, display, 1)) != 0) {
		close(fd);
		return r;
	}
	*out = fd;
	return 0;
}

/* Read all of FD (already checked) into *buf, refusing more than the cap. */
static int
read_all(struct ab_pset *ps, int fd, const char *display, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = NULL, *nb;
	ssize_t got;

	for (;;) {
		if (n == cap || b == NULL) {
			if (b != NULL)
				cap *= 2;
			if (cap > AB_POLICY_FILE_MAX + 1)
				cap = AB_POLICY_FILE_MAX + 1;
			if ((nb = realloc(b, cap)) == NULL) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int r = -errno;

			ab_pset_fail(ps, r, "%s: read: %s", display, strerror(-r));
			free(b);
			return r;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > AB_POLICY_FILE_MAX) {
			ab_pset_fail(ps, -EFBIG, "%s: larger than %u bytes: refused", display,
			    AB_POLICY_FILE_MAX);
			free(b);
			return -EFBIG;
		}
	}
	*buf = b;
	*len = n;
	return 0;
}

/*
 * What becomes of a file's bytes once the file passed the checks: hashed and parsed
 * into PS (load, check), or only scanned for a [user:NAME] header (mentions).  Problems
 * with the files themselves are recorded in PS either way.
 */
struct sink {
	struct ab_pset		*ps;
	struct ab_digest_ctx	*dg;		/* NULL: scan only */
	const char		*scan_user;	/* the name scanned for */
	int			 found;		/* a header names it */
};

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * Is line S (N bytes) a section header naming USER?  Deliberately more lenient than the
 * parser, which refuses most of these: it is asked when the policy is broken, and then a
 * header meant for USER must count whatever is wrong with it ("  [ User : bob ]",
 * "[user:bob] junk", no ']'), because answering "not mentioned" lets USER in unconfined.
 * The name itself is compared exactly, all of it: "bob" never matches [user:bobby].
 */
static int
header_names(const char *s, size_t n, const char *user)
{
	const char *close;
	size_t i = 0, end, j, ulen = strlen(user);

	while (i < n && is_space(s[i]))
		i++;
	if (i == n || s[i] != '[')
		return 0;
	i++;
	close = memchr(s + i, ']', n - i);
	end = close != NULL ? (size_t)(close - s) : n;
	while (i < end && is_space(s[i]))
		i++;
	if (end - i < 4 || strncasecmp(s + i, "user", 4) != 0)
		return 0;
	for (i += 4; i < end && is_space(s[i]); i++)
		;
	if (i == end || s[i] != ':')
		return 0;
	for (i++; i < end && is_space(s[i]); i++)
		;
	for (j = end; j > i && is_space(s[j - 1]); j--)
		;
	return j - i == ulen && memcmp(s + i, user, ulen) == 0;
}

/* Does any line of BUF name USER in a section header?  Lines end at '\n'. */
static int
scan_mentions(const char *buf, size_t len, const char *user)
{
	const char *s = buf, *end = buf + len, *eol;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		s += 3;		/* a UTF-8 byte order mark, as inih allows */
	for (; s < end; s = eol + 1) {
		if ((eol = memchr(s, '\n', (size_t)(end - s))) == NULL)
			eol = end;
		if (header_names(s, (size_t)(eol - s), user))
			return 1;
	}
	return 0;
}

static int
consume(struct sink *sk, const char *logical, const char *display, const char *buf,
    size_t len)
{
	int r;

	if (sk->dg == NULL) {
		sk->found |= scan_mentions(buf, len, sk->scan_user);
		return 0;
	}
	if ((r = ab_digest_file(sk->dg, logical, buf, len)) != 0)
		return r;
	return ab_pset_parse(sk->ps, display, buf, len);
}

/*
 * Open, check and read one file, and hand it to SK.  LOGICAL is the name hashed (see
 * digest.c), DISPLAY the one in messages.  -ENOENT is returned quietly.
 */
static int
take_file(struct sink *sk, int dirfd, const char *name, const char *logical,
    const char *display)
{
	struct ab_pset *ps = sk->ps;
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd, r;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT)
			ab_pset_fail(ps, r, "%s: %s%s", display, strerror(-r),
			    r == -ELOOP ? " (a symlink is refused)" : "");
		return r;
	}
	if (fstat(fd, &st) != 0) {
		r = -errno;
		ab_pset_fail(ps, r, "%s: fstat: %s", display, strerror(-r));
	} else if ((r = check_meta(ps, &st, display, 0)) == 0 &&
	    (r = read_all(ps, fd, display, &buf, &len)) == 0) {
		if ((r = consume(sk, logical, display, buf, len)) != 0)
			ab_pset_fail(ps, r, "%s: %s", display, strerror(-r));
	}
	free(buf);
	close(fd);
	return r;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "*.conf", not hidden: editors' and package managers' leftovers are not policy. */
static int
is_dropin(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

/* policy.d/ *.conf in strcmp order. */
static int
take_dropins(struct sink *sk, int dfd, const char *disp_dir)
{
	struct ab_pset *ps = sk->ps;
	struct ab_strv names = { 0 };
	struct dirent *de;
	DIR *d;
	size_t i;
	int fd, r = 0;

	if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) < 0 || (d = fdopendir(fd)) == NULL) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		ab_pset_fail(ps, r, "%s: %s", disp_dir, strerror(-r));
		return r;
	}
	for (errno = 0; (de = readdir(d)) != NULL; errno = 0)
		if (is_dropin(de->d_name) && (r = ab_strv_push(&names, de->d_name)) != 0)
			break;
	if (r == 0 && errno != 0)
		r = -errno;
	closedir(d);
	if (r != 0) {
		ab_pset_fail(ps, r, "%s: %s", disp_dir, strerror(-r));
		ab_strv_free(&names);
		return r;
	}
	if (names.n > 0)
		qsort(names.v, names.n, sizeof(*names.v), name_cmp);
	for (i = 0; i < names.n; i++) {
		char *logical, *display;

		if (asprintf(&logical, "/%s/%s/%s/%s", POLICY_ETC, POLICY_SUBDIR,
		    POLICY_DROPINS, names.v[i]) < 0) {
			r = -ENOMEM;
			break;
		}
		if (asprintf(&display, "%s/%s", disp_dir, names.v[i]) < 0) {
			free(logical);
			r = -ENOMEM;
			break;
		}
		if ((r = take_file(sk, dfd, names.v[i], logical, display)) == -ENOENT) {
			/* Removed while we listed: a race with an admin; refuse, not guess. */
			ab_pset_fail(ps, r, "%s: vanished while reading", display);
		}
		free(logical);
		free(display);
	}
	ab_strv_free(&names);
	return r;
}

/*
 * Read ROOT/etc/agentbox/agentbox.conf and policy.d/ *.conf into SK.  A missing
 * agentbox.conf is an error only with REQUIRE_MAIN (agentbox check); a missing policy.d
 * is never one.  Errors are recorded in SK's pset; this returns only -ENOMEM.
 */
static int
read_set(struct sink *sk, const char *root, int require_main)
{
	struct ab_pset *ps = sk->ps;
	const char *base = root && strcmp(root, "/") != 0 ? root : "";
	char disp_etc[PATH_MAX], disp_ab[PATH_MAX], disp_conf[PATH_MAX], disp_d[PATH_MAX];
	int rfd = -1, efd = -1, afd = -1, dfd = -1, r;

	if (snprintf(disp_d, sizeof(disp_d), "%s/%s/%s/%s", base, POLICY_ETC, POLICY_SUBDIR,
	    POLICY_DROPINS) >= (int)sizeof(disp_d)) {
		ab_pset_fail(ps, -ENAMETOOLONG, "%s: policy root too long", root);
		return 0;
	}
	snprintf(disp_etc, sizeof(disp_etc), "%s/%s", base, POLICY_ETC);
	snprintf(disp_ab, sizeof(disp_ab), "%s/%s/%s", base, POLICY_ETC, POLICY_SUBDIR);
	snprintf(disp_conf, sizeof(disp_conf), "%s/%s/%s/%s", base, POLICY_ETC,
	    POLICY_SUBDIR, POLICY_CONF);
	r = open_dir(ps, AT_FDCWD, root ? root : "/", root ? root : "/", &rfd);
	if (r == 0)
		r = open_dir(ps, rfd, POLICY_ETC, disp_etc, &efd);
	if (r == 0)
		r = open_dir(ps, efd, POLICY_SUBDIR, disp_ab, &afd);
	if (r == 0) {
		r = take_file(sk, afd, POLICY_CONF, "/" POLICY_ETC "/" POLICY_SUBDIR "/"
		    POLICY_CONF, disp_conf);
		if (r == -ENOENT && require_main)
			ab_pset_fail(ps, r, "%s: %s", disp_conf, strerror(ENOENT));
		if (open_dir(ps, afd, POLICY_DROPINS, disp_d, &dfd) == 0)
			take_dropins(sk, dfd, disp_d);
	} else if (r == -ENOENT && require_main) {
		ab_pset_fail(ps, r, "%s: %s", disp_conf, strerror(ENOENT));
	}
	if (dfd >= 0)
		close(dfd);
	if (afd >= 0)
		close(afd);
	if (efd >= 0)
		close(efd);
	if (rfd >= 0)
		close(rfd);
	return 0;
}

/* One FILE given to agentbox check: the file itself must pass the same checks. */
static void
read_one(struct sink *sk, const char *file)
{
	int r = take_file(sk, AT_FDCWD, file, file, file);

	if (r == -ENOENT)
		ab_pset_fail(sk->ps, r, "%s: %s", file, strerror(ENOENT));
}

/* Read, hash, parse and compile; the shared body of load and check. */
static int
run(const char *root, const char *file, const char *user, struct ab_policy **out,
    struct ab_strv *users, struct ab_diag *diag)
{
	struct sink sk = { NULL, NULL, NULL, 0 };
	unsigned char digest[AB_DIGEST_LEN];
	int r;

	if ((r = ab_pset_new(diag, &sk.ps)) != 0 || (r = ab_digest_begin(&sk.dg)) != 0)
		goto out;
	if (out != NULL)
		ab_pset_set_user(sk.ps, user);	/* another user's missing project is no bar */
	if (file != NULL)
		read_one(&sk, file);
	else
		read_set(&sk, root, out == NULL);
	r = ab_digest_end(sk.dg, digest);
	sk.dg = NULL;
	if (r != 0)
		goto out;
	r = ab_pset_compile(sk.ps, digest, user, out, users);
out:
	ab_digest_abort(sk.dg);
	ab_pset_free(sk.ps);
	return r;
}

int
ab_policy_load(const char *root, const char *user, struct ab_policy **out,
    struct ab_diag *diag)
{
	int r;

	*out = NULL;
	if (user == NULL)
		return -EINVAL;
	if ((r = run(root, NULL, user, out, NULL, diag)) != 0)
		return r;
	/* Valid policy, no [user:NAME] for USER: not enrolled. */
	return *out != NULL ? 0 : -ENOENT;
}

int
ab_policy_load_file(const char *file, const char *user, struct ab_policy **out,
    struct ab_diag *diag)
{
	int r;

	*out = NULL;
	if (file == NULL || user == NULL)
		return -EINVAL;
	if ((r = run(NULL, file, user, out, NULL, diag)) != 0)
		return r;
	return *out != NULL ? 0 : -ENOENT;
}

int
ab_policy_check(const char *root, const char *file, struct ab_strv *users,
    struct ab_diag *diag)
{
	return run(root, file, NULL, NULL, users, diag);
}

int
ab_policy_mentions_user(const char *root, const char *user)
{
	struct ab_diag diag = { 0 };	/* why a file was refused: not asked for here */
	struct sink sk = { NULL, NULL, user, 0 };
	int r;

	if (user == NULL || user[0] == '\0')
		return -EINVAL;
	if ((r = ab_pset_new(&diag, &sk.ps)) != 0)
		return r;
	if ((r = read_set(&sk, root, 0)) == 0)
		r = ab_pset_status(sk.ps);
	ab_pset_free(sk.ps);
	ab_diag_free(&diag);
	if (r != 0)
		return r;
	return sk.found;
}
