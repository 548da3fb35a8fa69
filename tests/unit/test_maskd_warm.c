/*
 * maskd/warm.c: the warm set's list (bounded both ways, hostile lines skipped) and, as
 * root, what ab_maskd_warm_open agrees to resolve: only a regular file with one link,
 * reached without a symlink, beneath the root it is given, as an O_PATH fd of exactly
 * that inode.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "maskd.h"
#include "tap.h"

static size_t
count_paths(const char *list, size_t len)
{
	char out[PATH_MAX];
	size_t off = 0, n = 0;

	while (ab_maskd_warm_next(list, len, &off, out, sizeof(out)))
		n++;
	return n;
}

static void
test_note(void)
{
	static struct ab_maskd_warm w;
	char path[64], out[PATH_MAX], big[AB_MASKD_WARM_BYTES];
	size_t i, off = 0;

	ab_maskd_warm_note(&w, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	ab_maskd_warm_note(&w, "relative/path");
	ab_maskd_warm_note(&w, "/a\nb");
	ab_maskd_warm_note(&w, "/etc/bash.bashrc");
	ok(w.n == 2, "relative paths and paths holding a newline are not noted (%zu)", w.n);
	ok(ab_maskd_warm_next(w.buf, w.len, &off, out, sizeof(out)) == 1 &&
	    strcmp(out, "/usr/lib/x86_64-linux-gnu/libc.so.6") == 0, "first path back: %s", out);
	ok(ab_maskd_warm_next(w.buf, w.len, &off, out, sizeof(out)) == 1 &&
	    strcmp(out, "/etc/bash.bashrc") == 0, "second path back, in order: %s", out);
	ok(ab_maskd_warm_next(w.buf, w.len, &off, out, sizeof(out)) == 0, "then the end");

	for (i = 0; i < 2 * AB_MASKD_WARM_MAX; i++) {
		snprintf(path, sizeof(path), "/f/%zu", i);
		ab_maskd_warm_note(&w, path);
	}
	ok(w.n == AB_MASKD_WARM_MAX && count_paths(w.buf, w.len) == AB_MASKD_WARM_MAX,
	    "at most %d paths (%zu)", AB_MASKD_WARM_MAX, w.n);

	memset(&w, 0, sizeof(w));
	memset(big, 'x', sizeof(big));
	big[0] = '/';
	big[AB_MASKD_WARM_BYTES / 3] = '\0';
	for (i = 0; i < 3; i++) {
		big[1] = (char)('a' + i);	/* three different long paths */
		ab_maskd_warm_note(&w, big);
	}
	ok(w.n == 2 && w.len <= sizeof(w.buf), "at most %d bytes: a third long path does not "
	    "fit (%zu paths, %zu bytes)", AB_MASKD_WARM_BYTES, w.n, w.len);

	/* Once each: an open asked after its path was seeded (it raced the reader's
	 * start) is noted again when answered; its second copy must not take a place. */
	memset(&w, 0, sizeof(w));
	ab_maskd_warm_note(&w, "/etc/login.defs");
	ab_maskd_warm_note(&w, "/etc/login.defs");
	ab_maskd_warm_note(&w, "/etc/login");
	ab_maskd_warm_note(&w, "/etc/login.defs.d");
	ab_maskd_warm_note(&w, "/etc/login.defs");
	off = 0;
	ok(w.n == 3 && count_paths(w.buf, w.len) == 3 &&
	    ab_maskd_warm_next(w.buf, w.len, &off, out, sizeof(out)) == 1 &&
	    strcmp(out, "/etc/login.defs") == 0, "a path noted twice is kept once; a prefix or "
	    "a longer name is another path (%zu paths)", w.n);
	for (i = 0; i < 3 * AB_MASKD_WARM_MAX; i++)
		ab_maskd_warm_note(&w, "/etc/login.defs");
	ok(w.n == 3, "the same path noted again and again does not fill the set (%zu)", w.n);
}

static void
test_next_hostile(void)
{
	static const char list[] = "\n/ok/1\nrelative\n/nul\0inside\n//ok/2\n/cut-off";
	char out[PATH_MAX], small[8];
	size_t off = 0;

	ok(ab_maskd_warm_next(list, sizeof(list) - 1, &off, out, sizeof(out)) == 1 &&
	    strcmp(out, "/ok/1") == 0, "an empty line skipped: %s", out);
	ok(ab_maskd_warm_next(list, sizeof(list) - 1, &off, out, sizeof(out)) == 1 &&
	    strcmp(out, "//ok/2") == 0, "relative and NUL-holding lines skipped: %s", out);
	ok(ab_maskd_warm_next(list, sizeof(list) - 1, &off, out, sizeof(out)) == 0 &&
	    off == sizeof(list) - 1, "a last line without its newline is not a path");
	off = 0;
	ok(ab_maskd_warm_next("/too/long/for/it\n/short\n", 24, &off, small, sizeof(small)) == 1 &&
	    strcmp(small, "/short") == 0, "a path longer than the buffer skipped: %s", small);
	off = 0;
	ok(ab_maskd_warm_next("", 0, &off, out, sizeof(out)) == 0, "an empty list");
}

/* As root: a scratch directory on the root filesystem, or NULL to skip. */
static char *
scratch(void)
{
	static char dir[] = "/var/tmp/ab-warm-XXXXXX";
	struct stat a, b;

	if (mkdtemp(dir) == NULL)
		return NULL;
	if (stat("/", &a) == -1 || stat(dir, &b) == -1 || a.st_dev != b.st_dev) {
		(void)rmdir(dir);
		return NULL;
	}
	return dir;
}

static void
test_open(void)
{
	char *dir, f[128], l[128], h[128], d[128], s[128], through[160];
	struct stat st, want;
	int root, fd;

	if (geteuid() != 0 || (dir = scratch()) == NULL) {
		ok(1, "opening # SKIP not root, or /var/tmp not on the root filesystem");
		return;
	}
	snprintf(f, sizeof(f), "%s/file", dir);
	snprintf(l, sizeof(l), "%s/link", dir);
	snprintf(h, sizeof(h), "%s/hard", dir);
	snprintf(d, sizeof(d), "%s/sub", dir);
	snprintf(s, sizeof(s), "%s/symdir", dir);
	snprintf(through, sizeof(through), "%s/symdir/file", dir);
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ok(root >= 0 && close(open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)) == 0 &&
	    symlink(f, l) == 0 && mkdir(d, 0700) == 0 && symlink(dir, s) == 0 &&
	    stat(f, &want) == 0, "scratch files in %s", dir);

	fd = ab_maskd_warm_open(root, f, &st);
	ok(fd >= 0 && st.st_ino == want.st_ino, "a regular file with one link: opened (%d)", fd);
	if (fd >= 0) {
		struct stat got;

		ok(fstat(fd, &got) == 0 && got.st_ino == want.st_ino && got.st_dev == want.st_dev &&
		    (fcntl(fd, F_GETFL) & O_PATH) && (fcntl(fd, F_GETFD) & FD_CLOEXEC),
		    "the same inode, O_PATH (never opened), close-on-exec");
		(void)close(fd);
	}
	ok(ab_maskd_warm_open(root, l, &st) == -EPERM,
	    "a symlink: not followed (the link itself is no regular file)");
	ok(ab_maskd_warm_open(root, through, &st) == -ELOOP,
	    "a path through a symlinked directory: refused");
	ok(ab_maskd_warm_open(root, d, &st) == -EPERM, "a directory: refused");
	ok(link(f, h) == 0 && ab_maskd_warm_open(root, f, &st) == -EPERM,
	    "a file with a second link: refused (its other name may be masked)");
	{
		int sub = open(d, O_PATH | O_DIRECTORY | O_CLOEXEC);
		char up[160];

		snprintf(up, sizeof(up), "/../file");
		ok(sub >= 0 && ab_maskd_warm_open(sub, up, &st) == -EXDEV,
		    "a path that climbs out of the root it is given: refused");
		if (sub >= 0)
			(void)close(sub);
	}
	ok(ab_maskd_warm_open(root, "relative", &st) == -EINVAL &&
	    ab_maskd_warm_open(root, "/", &st) == -EINVAL, "relative or the root: refused");
	ok(ab_maskd_warm_open(root, "/no/such/file", &st) == -ENOENT, "gone: -ENOENT");
	(void)unlink(h);
	(void)unlink(f);
	(void)unlink(l);
	(void)unlink(s);
	(void)rmdir(d);
	(void)rmdir(dir);
	(void)close(root);
}

int
main(void)
{
	test_note();
	test_next_hostile();
	test_open();
	return done_testing();
}
