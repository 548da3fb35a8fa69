/*
 * The mask set: the one "is this entry masked?" decision (see policy.h).  The PAM mask
 * walk (pam_module/mask.c), enroll's ACL walk (admin/acl.c) and the live-mask enforcer
 * to come all ask it, so a session's mask mount, the host inode's user:AGENT:--- and a
 * per-open denial can never disagree about a name.
 *
 * A pattern is written relative to a tree root, and every tree that holds an entry
 * judges it: a project inside the home is matched relative to the project and to the
 * home (an anchored "/proj/secret.txt" in the mask list reaches into the project from
 * the home).  The question comes as (tree, path relative to it); the set finds every
 * other tree, enclosing or nested, by comparing paths: the trees are admin-written
 * absolute paths, compared as strings exactly as the PAM walk always compared them.
 *
 * Cost: the prefilter (prefilter.h) turns most (pattern, name) pairs away before the
 * matcher runs, and an index by a name's first and last byte (a bit per pattern that
 * a name with those ends may pass) turns most patterns away before the prefilter does:
 * with the default masks, a name like "index.js" is asked of a handful, not ~90.  It is only sound for an entry whose parents did not match in that
 * tree's frame; ab_maskset_match's contract gives that for the part of the path inside
 * the walked tree, and ab_maskset_new decides once, for each tree, the part above it
 * (its root as seen from each enclosing tree: `covered`).
 */
#define _GNU_SOURCE	/* memrchr */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "prefilter.h"

struct tree {
	const char	*path;		/* NULL: no such tree (no home) */
	size_t		 len;
	int		 covered;	/* its root is masked, seen from an enclosing tree */
};

struct ab_maskset {
	struct prefilter *f;		/* one per pattern */
	size_t		  npat;
	size_t		  words;	/* per byte in each index: (npat + 63) / 64 */
	uint64_t	 *by_first;	/* [byte * words + i / 64]: pattern i may pass a name */
	uint64_t	 *by_last;	/*   starting (ending) with that byte */
	unsigned int	  flags;	/* AB_PATTERN_CASEFOLD | AB_MASKSET_UNDECORATE */
	struct tree	 *t;		/* home, then projects (ab_trees_path) */
	size_t		  ntrees;
};

/* Is PATH, as a string, strictly inside tree T (T's path, then '/')? */
static int
inside(const struct ab_maskset *m, size_t t, const char *path, size_t len)
{
	size_t n = m->t[t].len;

	return m->t[t].path != NULL && len > n + 1 && path[n] == '/' &&
	    memcmp(path, m->t[t].path, n) == 0;
}

/* Does REL (relative to some tree), whose last component is NAME[0..LEN), match? */
static int
match_name(const struct ab_maskset *m, const char *rel, const char *name, size_t len,
    int is_dir)
{
	unsigned int pflags = m->flags & AB_PATTERN_CASEFOLD;
	const uint64_t *a, *z;
	uint64_t cand;
	size_t w, i;

	if (len == 0) {		/* no ends to index by (a walk never asks): every pattern */
		for (i = 0; i < m->npat; i++)
			if (ab_prefilter_pass(&m->f[i], name, len) &&
			    ab_pattern_match_flags(m->f[i].pat, rel, is_dir, pflags))
				return 1;
		return 0;
	}
	a = m->by_first + (size_t)(unsigned char)name[0] * m->words;
	z = m->by_last + (size_t)(unsigned char)name[len - 1] * m->words;
	for (w = 0; w < m->words; w++) {
		for (cand = a[w] & z[w]; cand != 0; cand &= cand - 1) {
			i = w * 64 + (size_t)__builtin_ctzll(cand);
			if (ab_prefilter_pass(&m->f[i], name, len) &&
			    ab_pattern_match_flags(m->f[i].pat, rel, is_dir, pflags))
				return 1;
		}
	}
	return 0;
}

/* The index of match_name: each pattern's bit under every first and last byte its
 * prefilter lets through. */
static int
index_ends(struct ab_maskset *m)
{
	unsigned char first[256], last[256];
	size_t i, b;

	m->words = (m->npat + 63) / 64;
	m->by_first = calloc(256 * m->words + 1, sizeof(*m->by_first));
	m->by_last = calloc(256 * m->words + 1, sizeof(*m->by_last));
	if (m->by_first == NULL || m->by_last == NULL)
		return -ENOMEM;
	for (i = 0; i < m->npat; i++) {
		memset(first, 0, sizeof(first));
		memset(last, 0, sizeof(last));
		ab_prefilter_ends(&m->f[i], first, last);
		for (b = 0; b < 256; b++) {
			if (first[b])
				m->by_first[b * m->words + i / 64] |= UINT64_C(1) << (i % 64);
			if (last[b])
				m->by_last[b * m->words + i / 64] |= UINT64_C(1) << (i % 64);
		}
	}
	return 0;
}

/*
 * REL[0..RLEN) relative to one tree, its parents in that tree known not to match: as it
 * is, or (AB_MASKSET_UNDECORATE) with one decoration of its last name removed.  Only the
 * last component is undecorated: its parents did not match.  1, 0, or -ENAMETOOLONG.
 */
static int
match_frame(const struct ab_maskset *m, const char *rel, size_t rlen, int is_dir)
{
	struct ab_name_span sp[AB_UNDECORATE_MAX];
	const char *slash = memrchr(rel, '/', rlen);
	size_t dir = slash == NULL ? 0 : (size_t)(slash - rel) + 1, i, n;
	const char *name = rel + dir;
	char alt[PATH_MAX];

	if (rlen >= sizeof(alt))
		return -ENAMETOOLONG;
	if (match_name(m, rel, name, rlen - dir, is_dir))
		return 1;
	if (!(m->flags & AB_MASKSET_UNDECORATE) || (n = ab_pattern_undecorate(name, sp)) == 0)
		return 0;
	memcpy(alt, rel, dir);	/* a span is shorter than NAME: it fits */
	for (i = 0; i < n; i++) {
		memcpy(alt + dir, name + sp[i].off, sp[i].len);
		alt[dir + sp[i].len] = '\0';
		if (match_name(m, alt, alt + dir, sp[i].len, is_dir))
			return 1;
	}
	return 0;
}

/* One question of a walk: REL[0..LEN) seen from TREE (or from one frame only). */
typedef int (*ask_fn)(const struct ab_maskset *m, size_t tree, const char *rel, size_t len,
    int is_dir);

/*
 * REL with nothing known about its parents: each prefix in turn, then REL, as a walk
 * from the root would have asked (it stops at the first masked parent).  1, 0, -errno.
 */
static int
ask_each_prefix(const struct ab_maskset *m, size_t tree, const char *rel, int is_dir,
    ask_fn ask)
{
	char buf[PATH_MAX];
	size_t len = strlen(rel), k;
	int r;

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, rel, len + 1);
	for (k = 1; k <= len; k++) {
		if (k < len && buf[k] != '/')
			continue;
		buf[k] = '\0';
		r = ask(m, tree, buf, k, k < len || is_dir);
		buf[k] = k < len ? '/' : '\0';
		if (r != 0)
			return r;
	}
	return 0;
}

static int
ask_frame(const struct ab_maskset *m, size_t tree, const char *rel, size_t len, int is_dir)
{
	(void)tree;
	return match_frame(m, rel, len, is_dir);
}

static int
ask_walk(const struct ab_maskset *m, size_t tree, const char *rel, size_t len, int is_dir)
{
	(void)len;
	return ab_maskset_match(m, tree, rel, is_dir);
}

/* Tree T's root, as seen from every tree that encloses it: masked there? */
static int
root_covered(const struct ab_maskset *m, size_t t)
{
	size_t j;
	int r;

	for (j = 0; j < m->ntrees; j++) {
		if (j == t || !inside(m, j, m->t[t].path, m->t[t].len))
			continue;
		if ((r = ask_each_prefix(m, j, m->t[t].path + m->t[j].len + 1, 1, ask_frame)) != 0)
			return r;
	}
	return 0;
}

int
ab_maskset_new(const struct ab_strv *patterns, const char *home,
    const struct ab_strv *projects, unsigned int flags, struct ab_maskset **out)
{
	struct ab_maskset *m;
	size_t i;
	int r;

	*out = NULL;
	if ((flags & ~(AB_PATTERN_CASEFOLD | AB_MASKSET_UNDECORATE)) != 0)
		return -EINVAL;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return -ENOMEM;
	m->flags = flags;
	m->npat = patterns->n;
	m->ntrees = ab_trees_n(projects);
	m->f = calloc(m->npat + 1, sizeof(*m->f));
	m->t = calloc(m->ntrees, sizeof(*m->t));
	if (m->f == NULL || m->t == NULL) {
		ab_maskset_free(m);
		return -ENOMEM;
	}
	for (i = 0; i < m->npat; i++)
		ab_prefilter_make(&m->f[i], patterns->v[i], flags & AB_PATTERN_CASEFOLD);
	if ((r = index_ends(m)) != 0) {
		ab_maskset_free(m);
		return r;
	}
	for (i = 0; i < m->ntrees; i++) {
		m->t[i].path = ab_trees_path(home, projects, i);
		m->t[i].len = m->t[i].path != NULL ? strlen(m->t[i].path) : 0;
	}
	for (i = 0; i < m->ntrees; i++) {
		if ((r = root_covered(m, i)) < 0) {
			ab_maskset_free(m);
			return r;
		}
		m->t[i].covered = r;
	}
	*out = m;
	return 0;
}

void
ab_maskset_free(struct ab_maskset *m)
{
	if (m != NULL) {
		free(m->f);
		free(m->by_first);
		free(m->by_last);
		free(m->t);
	}
	free(m);
}

/* REL relative to tree T, seen from tree J that encloses T.  1, 0 or -errno. */
static int
match_enclosing(const struct ab_maskset *m, size_t t, size_t j, const char *rel,
    size_t rlen, int is_dir)
{
	const char *up = m->t[t].path + m->t[j].len + 1;	/* T's root seen from J */
	size_t ulen = m->t[t].len - m->t[j].len - 1;
	char buf[PATH_MAX];

	if (ulen + 1 + rlen >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, up, ulen);
	buf[ulen] = '/';
	memcpy(buf + ulen + 1, rel, rlen + 1);
	return match_frame(m, buf, ulen + 1 + rlen, is_dir);
}

/* REL relative to tree T, seen from tree J if J is nested in T along REL. 1, 0, -errno. */
static int
match_nested(const struct ab_maskset *m, size_t t, size_t j, const char *rel,
    size_t rlen, int is_dir)
{
	size_t at = m->t[t].len + 1, n;	/* J's path relative to T starts there */

	if (m->t[t].path == NULL || !inside(m, t, m->t[j].path, m->t[j].len))
		return 0;
	n = m->t[j].len - at;
	/* J's root must be a proper parent of REL: REL is then REL + n + 1 in J. */
	if (n >= rlen || rel[n] != '/' || memcmp(rel, m->t[j].path + at, n) != 0)
		return 0;
	return match_frame(m, rel + n + 1, rlen - n - 1, is_dir);
}

int
ab_maskset_match(const struct ab_maskset *m, size_t tree, const char *rel, int is_dir)
{
	size_t rlen, j;
	int r;

	if (tree >= m->ntrees || rel == NULL)
		return -EINVAL;
	if (m->t[tree].covered)
		return 1;
	if (m->npat == 0)
		return 0;	/* the common "no protect patterns": every entry asks */
	if ((rlen = strlen(rel)) == 0)
		return 0;	/* a tree's root is never masked relative to itself */
	if ((r = match_frame(m, rel, rlen, is_dir)) != 0)
		return r;
	for (j = 0; j < m->ntrees; j++) {
		if (j == tree || m->t[j].path == NULL || m->t[tree].path == NULL)
			continue;
		if (inside(m, j, m->t[tree].path, m->t[tree].len))
			r = match_enclosing(m, tree, j, rel, rlen, is_dir);
		else
			r = match_nested(m, tree, j, rel, rlen, is_dir);
		if (r != 0)
			return r;
	}
	return 0;
}

int
ab_maskset_match_path(const struct ab_maskset *m, size_t tree, const char *rel, int is_dir)
{
	if (tree >= m->ntrees || rel == NULL)
		return -EINVAL;
	if (*rel == '\0')
		return m->t[tree].covered;
	return ask_each_prefix(m, tree, rel, is_dir, ask_walk);
}
