/*
 * The decision, pure: no fd, no syscall, so it is unit-tested without root.
 *
 * By name: the path the kernel gives for the event fd, relative to the deepest tree
 * (home or project) holding it, asked of the one mask matcher (policy/maskset.c,
 * ab_maskset_match_path, with the mask walk's case folding and undecoration): a live
 * denial and a login-time mask can never disagree about a name.  The matcher answers
 * yes/no; the rule number for FAN_INFO comes from one single-pattern set per pattern,
 * asked only after a "yes" (a denial is rare; the common allow costs one question).  The
 * same matcher with one pattern at a time, not a second matcher: a path matches the set
 * exactly when it matches one of its patterns' sets (each pattern's prefilter and
 * covered roots are per pattern).
 *
 * By history: the caller says whether the inode (or a directory above it) is in S.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "maskd.h"

struct ab_maskd_decider {
	struct ab_maskset	 *all;
	/* One per pattern, to say which pattern matched: built when first needed (a
	 * denial), not with the decider: 70-odd compiled sets took ~200 us of every
	 * reader's start, before it could answer the session's first open. */
	struct ab_maskset	**one;
	/* Set when one of them could not be built: the reader then fails closed
	 * (ab_maskd_decider_failed), as it did when they were built at its start.  The
	 * lazy state lives behind pointers, so the const decider of ab_maskd_rule can
	 * fill it: one reader, one thread. */
	int			 *failed;
	struct ab_strv		 *onev;	/* their one-entry views of the patterns */
	size_t			  npat;
	const char		 *home;
	const struct ab_strv	 *projects;
	/* A learning session: the tree "/" stands for everything outside the others, and
	 * masks hold there only where the policy grants no read (ab_maskd_decider_outside). */
	const struct ab_fs_sets	 *outside;
	long			  root_tree;
};

void
ab_maskd_decider_free(struct ab_maskd_decider *d)
{
	size_t i;

	if (d == NULL)
		return;
	ab_maskset_free(d->all);
	for (i = 0; d->one != NULL && i < d->npat; i++)
		ab_maskset_free(d->one[i]);
	free(d->one);
	free(d->onev);
	free(d->failed);
	free(d);
}

static int
trees_absolute(const char *home, const struct ab_strv *projects)
{
	size_t i;

	for (i = 0; i < ab_trees_n(projects); i++) {
		const char *t = ab_trees_path(home, projects, i);

		if (t != NULL && t[0] != '/')
			return 0;
	}
	return 1;
}

int
ab_maskd_decider_new(const struct ab_strv *patterns, const char *home,
    const struct ab_strv *projects, struct ab_maskd_decider **out)
{
	struct ab_maskd_decider *d;
	size_t i;
	int r;

	*out = NULL;
	if (!trees_absolute(home, projects) || patterns->n >= 0xffff)
		return -EINVAL;
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return -ENOMEM;
	d->npat = patterns->n;
	d->home = home;
	d->projects = projects;
	d->root_tree = -1;
	d->one = calloc(d->npat + 1, sizeof(*d->one));
	d->onev = calloc(d->npat + 1, sizeof(*d->onev));
	d->failed = calloc(1, sizeof(*d->failed));
	if (d->one == NULL || d->onev == NULL || d->failed == NULL) {
		ab_maskd_decider_free(d);
		return -ENOMEM;
	}
	for (i = 0; i < d->npat; i++) {
		d->onev[i].v = &patterns->v[i];
		d->onev[i].n = 1;
	}
	if ((r = ab_maskset_new(patterns, home, projects, AB_MASKSET_MASKS, &d->all)) != 0) {
		ab_maskd_decider_free(d);
		return r;
	}
	*out = d;
	return 0;
}

int
ab_maskd_decider_outside(struct ab_maskd_decider *d, const struct ab_fs_sets *grants)
{
	size_t i;

	for (i = 0; i < ab_trees_n(d->projects); i++) {
		const char *t = ab_trees_path(d->home, d->projects, i);

		if (t != NULL && strcmp(t, "/") == 0) {
			d->root_tree = (long)i;
			d->outside = grants;
			return 0;
		}
	}
	return -EINVAL;
}

/* The deepest tree holding PATH (PATH itself or below), or -1. */
static long
tree_of(const struct ab_maskd_decider *d, const char *path, size_t *rel)
{
	size_t i, best_len = 0, n;
	long best = -1;

	for (i = 0; i < ab_trees_n(d->projects); i++) {
		const char *t = ab_trees_path(d->home, d->projects, i);

		if (t == NULL)
			continue;
		n = strlen(t);
		while (n > 1 && t[n - 1] == '/')
			n--;	/* "/" stays "/" */
		if (strncmp(path, t, n) != 0)
			continue;
		if (n == 1)
			n = 0;	/* the tree "/": every absolute path, rel after the '/' */
		if ((path[n] != '/' && path[n] != '\0') || (best >= 0 && n < best_len))
			continue;
		best = (long)i;
		best_len = n;
	}
	if (best >= 0)
		*rel = best_len + (path[best_len] == '/');
	return best;
}

int
ab_maskd_in_tree(const struct ab_maskd_decider *d, const char *path)
{
	size_t rel;

	return tree_of(d, path, &rel) >= 0;
}

/* 1-based index of the first pattern masking REL in TREE (the set said yes), or UNKNOWN
 * (also when a pattern's own set cannot be built: the open is denied, and the decider
 * says it failed). */
static unsigned int
which(const struct ab_maskd_decider *d, size_t tree, const char *rel, int is_dir)
{
	size_t i;

	for (i = 0; i < d->npat; i++) {
		if (d->one[i] == NULL && ab_maskset_new(&d->onev[i], d->home, d->projects,
		    AB_MASKSET_MASKS, &d->one[i]) != 0) {
			*d->failed = 1;
			return AB_MASKD_RULE_UNKNOWN;
		}
		if (ab_maskset_match_path(d->one[i], tree, rel, is_dir) == 1)
			return (unsigned int)i + 1;
	}
	return AB_MASKD_RULE_UNKNOWN;	/* a covered tree root: no single pattern */
}

unsigned int
ab_maskd_rule(const struct ab_maskd_decider *d, const char *path, int is_dir)
{
	size_t rel;
	long t;
	int r;

	if (path == NULL || path[0] != '/')
		return AB_MASKD_RULE_UNKNOWN;
	if ((t = tree_of(d, path, &rel)) < 0)
		return 0;
	/* Outside the trees, where the enforcing session's Landlock lets it read, masks
	 * do not apply: a learning session reads there what an enforcing one would. */
	if (t == d->root_tree && (ab_fs_rights_at(d->outside, path) & AB_FS_READ))
		return 0;
	if ((r = ab_maskset_match_path(d->all, (size_t)t, path + rel, is_dir)) < 0)
		return AB_MASKD_RULE_UNKNOWN;
	return r == 0 ? 0 : which(d, (size_t)t, path + rel, is_dir);
}

unsigned int
ab_maskd_decide(const struct ab_maskd_decider *d, const struct ab_maskd_query *q)
{
	static const char deleted[] = " (deleted)";
	const size_t dl = sizeof(deleted) - 1;
	char buf[PATH_MAX];
	const char *path = q->path;
	unsigned int rule;
	size_t n;

	if (path == NULL)
		return AB_MASKD_RULE_UNKNOWN;
	/* The open that made the inode, by its maker: the file is empty, nothing to
	 * leak; the next open is judged in full (issue 12: "at its next open"). */
	if (q->creating)
		return 0;
	/* An unlinked file: d_path appended " (deleted)" to its last name; judge that
	 * name.  Only when it is unlinked: a file may be called "x (deleted)". */
	n = strlen(path);
	if (q->unlinked && n > dl && strcmp(path + n - dl, deleted) == 0) {
		if (n - dl >= sizeof(buf))
			return AB_MASKD_RULE_UNKNOWN;
		memcpy(buf, path, n - dl);
		buf[n - dl] = '\0';
		path = buf;
	}
	if ((rule = ab_maskd_rule(d, path, q->is_dir)) != 0)
		return rule;
	return q->in_history ? AB_MASKD_RULE_HISTORY : 0;
}

const char *
ab_maskd_pattern(const struct ab_maskd_decider *d, unsigned int rule)
{
	if (rule == AB_MASKD_RULE_HISTORY)
		return "history";
	if (rule == 0 || rule > d->npat)
		return NULL;
	return d->onev[rule - 1].v[0];
}

int
ab_maskd_decider_failed(const struct ab_maskd_decider *d)
{
	return *d->failed ? -ENOMEM : 0;
}
