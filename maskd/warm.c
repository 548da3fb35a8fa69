/*
 * The warm set (issue 14: the login's fixed cost).  Every login's permission group is
 * new, so its verdict cache (an evictable ignore mark per allowed inode) starts empty,
 * and each first open through a marked mount waits for a round trip to the reader:
 * about 17 for `su AGENT -c true` when the trees share the root filesystem
 * (agentbox-shell, bash, the loader, the libraries, /etc).  The reader notes the first
 * files it allowed and cached outside every tree; the daemon gives them to the next
 * reader of the same user, which answers them before the session asks.
 *
 * Seeding a path is judging it as its open would be judged, only earlier: on the inode
 * the session itself sees at that path (resolved from its pid 1's root, beneath it, no
 * symlink followed, so the session's own mounts decide which file it is), with the same
 * decision (ab_maskd_decide: outside every tree a path is denied by the history alone)
 * and the same cache mark (evictable, cleared by any write).  The list is a hint, never
 * a grant: a path that is now a symlink, a directory, a file with more than one link,
 * inside a tree, in S or gone is not seeded, and its open is asked as before.
 *
 * The reader must never open anything through a marked mount (it would wait on
 * itself): the path is resolved O_PATH (no permission event, and no open that a host's
 * integrity or audit watch would see), and the mark is placed through that fd's
 * /proc/self/fd link, which names the one inode resolved (ab_maskd_group_cache_fd).
 * Once marked, an inode that joins S loses its mark (enforce.c, uncache), as any cached
 * inode does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "maskd.h"

/* Is PATH (N bytes) a line of W already? */
static int
noted(const struct ab_maskd_warm *w, const char *path, size_t n)
{
	const char *p = w->buf, *end = w->buf + w->len, *nl;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return 0;
		if ((size_t)(nl - p) == n && memcmp(p, path, n) == 0)
			return 1;
	}
	return 0;
}

void
ab_maskd_warm_note(struct ab_maskd_warm *w, const char *path)
{
	size_t n = strlen(path);

	/* Absolute, one line, and room for it and its newline: a full list stays full.
	 * Once each: a file asked before its seed came (an open that raced the reader's
	 * start) is noted again when answered, and a list that kept both copies filled up,
	 * login after login, with the same few names. */
	if (w->n == AB_MASKD_WARM_MAX || path[0] != '/' || strchr(path, '\n') != NULL ||
	    n + 1 > sizeof(w->buf) - w->len || noted(w, path, n))
		return;
	memcpy(w->buf + w->len, path, n);
	w->len += n;
	w->buf[w->len++] = '\n';
	w->n++;
}

int
ab_maskd_warm_next(const char *list, size_t len, size_t *off, char *out, size_t outlen)
{
	const char *p, *nl;
	size_t n;

	while (*off < len) {
		p = list + *off;
		if ((nl = memchr(p, '\n', len - *off)) == NULL) {
			*off = len;	/* a cut-off last line is not a path */
			return 0;
		}
		n = (size_t)(nl - p);
		*off += n + 1;
		/* A path, absolute, that fits, with no NUL: anything else is skipped. */
		if (n == 0 || n >= outlen || p[0] != '/' || memchr(p, '\0', n) != NULL)
			continue;
		memcpy(out, p, n);
		out[n] = '\0';
		return 1;
	}
	return 0;
}

int
ab_maskd_warm_open(int root, const char *path, struct stat *st)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd, e;

	if (path[0] != '/' || path[1] == '\0')
		return -EINVAL;
	if ((fd = ab_openat2(root, path + 1, &how)) == -1)
		return -errno;
	if (fstat(fd, st) == -1)
		e = errno;
	else if (!S_ISREG(st->st_mode) || st->st_nlink != 1)
		e = EPERM;	/* only what judge would cache, and one name only */
	else
		return fd;
	(void)close(fd);
	return -e;
}
