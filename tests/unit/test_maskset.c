/*
 * The mask set (policy/maskset.c): the one decision the PAM mask walk, enroll's ACL walk
 * and the live enforcer share.  For a project inside the home under an
 * anchored pattern written relative to the home ("/proj/secret.txt"), the session masked
 * the file and enroll's ACL walk, which matched relative to the project only, granted it.
 * Here the same entry is asked about from each tree that holds it, and the answers must
 * be the same; then checked against an oracle with no prefilter and no frames (each
 * pattern, on each prefix, relative to each tree holding the path), on random paths.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "../tap.h"

#define H	"/home/agent"
#define P	H "/proj"
#define Q	P "/inner"
#define O	"/srv/out"

enum { T_HOME, T_P, T_Q, T_O, NTREES };
static const char *const tree_path[NTREES] = { H, P, Q, O };

static char *pats[] = { "/top", "cfg/key.txt", "proj/only-home.txt", "/proj/secret.txt",
	".env", "secrets/", "*.pem" };
static char *projs[] = { P, Q, O };
static const struct ab_strv patterns = { pats, sizeof(pats) / sizeof(pats[0]) };
static const struct ab_strv projects = { projs, 3 };

/* pam_mask_nested.t's tree, and the case, asked from every tree that holds it. */
static const struct {
	const char *abs;
	int is_dir, want;
} nested_cases[] = {
	{ P "/secret.txt", 0, 1 },		/* the issue: "/proj/secret.txt" from the home */
	{ P "/only-home.txt", 0, 1 },
	{ Q "/only-home.txt", 0, 0 },
	{ Q "/secret.txt", 0, 0 },
	{ H "/top", 0, 1 },
	{ P "/top", 0, 1 },
	{ Q "/top", 0, 1 },
	{ O "/top", 0, 1 },
	{ P "/sub/top", 0, 0 },
	{ P "/cfg/key.txt", 0, 1 },
	{ Q "/cfg/key.txt", 0, 1 },
	{ P "/sub/cfg/key.txt", 0, 0 },
	{ Q "/.ENV~", 0, 1 },			/* case folded, decoration removed */
	{ Q "/a/secrets/x/y", 0, 1 },		/* inside a masked directory */
	{ Q "/a/secrets", 1, 1 },
	{ Q "/a/secrets", 0, 0 },		/* "secrets/": directories only */
	{ H "/notes.txt", 0, 0 },
};

static int
holds(size_t t, const char *abs)
{
	size_t n = strlen(tree_path[t]);

	return strncmp(abs, tree_path[t], n) == 0 && abs[n] == '/';
}

static void
nested(const struct ab_maskset *m)
{
	size_t i, t;

	for (i = 0; i < sizeof(nested_cases) / sizeof(nested_cases[0]); i++)
		for (t = 0; t < NTREES; t++) {
			if (!holds(t, nested_cases[i].abs))
				continue;
			ok(ab_maskset_match_path(m, t, nested_cases[i].abs +
			    strlen(tree_path[t]) + 1, nested_cases[i].is_dir) == nested_cases[i].want,
			    "%s%s %s, asked from %s", nested_cases[i].abs,
			    nested_cases[i].is_dir ? "/" : "",
			    nested_cases[i].want ? "masked" : "not masked", tree_path[t]);
		}
	/* What each walker asks: the walk's contract holds (no parent masked). */
	ok(ab_maskset_match(m, T_HOME, "proj/secret.txt", 0) == 1,
	    "the PAM walk of the home masks proj/secret.txt");
	ok(ab_maskset_match(m, T_P, "secret.txt", 0) == 1,
	    "enroll's ACL walk of the project masks secret.txt (it granted it before)");
	ok(ab_maskset_match(m, T_P, "", 1) == 0 && ab_maskset_match(m, T_HOME, "", 1) == 0,
	    "a tree's root is not masked relative to itself");
}

/* Oracle: NAME's decorations, each prefix, each pattern, no prefilter. */
static int
oracle_frame(const char *rel, int is_dir)
{
	struct ab_name_span sp[AB_UNDECORATE_MAX];
	char buf[512], alt[512];
	size_t len = strlen(rel), k, i, j, n, dir;

	snprintf(buf, sizeof(buf), "%s", rel);
	for (k = 1; k <= len; k++) {
		if (k < len && buf[k] != '/')
			continue;
		buf[k] = '\0';
		for (dir = k; dir > 0 && buf[dir - 1] != '/'; dir--)
			;
		for (i = 0; i < patterns.n; i++)
			if (ab_pattern_match_flags(patterns.v[i], buf, k < len || is_dir,
			    AB_PATTERN_CASEFOLD))
				return 1;
		n = ab_pattern_undecorate(buf + dir, sp);
		for (j = 0; j < n; j++) {
			snprintf(alt, sizeof(alt), "%.*s%.*s", (int)dir, buf, (int)sp[j].len,
			    buf + dir + sp[j].off);
			for (i = 0; i < patterns.n; i++)
				if (ab_pattern_match_flags(patterns.v[i], alt, k < len || is_dir,
				    AB_PATTERN_CASEFOLD))
					return 1;
		}
		buf[k] = k < len ? '/' : '\0';
	}
	return 0;
}

static int
oracle(const char *abs, int is_dir)
{
	size_t t;

	for (t = 0; t < NTREES; t++)
		if (holds(t, abs) && oracle_frame(abs + strlen(tree_path[t]) + 1, is_dir))
			return 1;
	return 0;
}

static void
diag_fail(const char *abs, const char *tree, int want, int got)
{
	printf("# %s asked from %s: oracle %d, set %d\n", abs, tree, want, got);
}

static void
random_paths(const struct ab_maskset *m)
{
	static const char *const comp[] = { "proj", "inner", "a", ".env", "top", "cfg",
		"key.txt", "secret.txt", "only-home.txt", "x.PEM~", ".Env.bak", "secrets",
		"SECRETS" };
	static const char *const base[] = { H, P, Q, O };
	char abs[512];
	size_t i, d, depth, at, t, bad = 0, asked = 0;
	int is_dir, want, got;

	srand(17);
	for (i = 0; i < 20000; i++) {
		at = (size_t)snprintf(abs, sizeof(abs), "%s", base[rand() % 4]);
		depth = 1 + (size_t)rand() % 4;
		for (d = 0; d < depth; d++)
			at += (size_t)snprintf(abs + at, sizeof(abs) - at, "/%s",
			    comp[rand() % (int)(sizeof(comp) / sizeof(comp[0]))]);
		is_dir = rand() % 2;
		want = oracle(abs, is_dir);
		for (t = 0; t < NTREES; t++) {
			if (!holds(t, abs))
				continue;
			asked++;
			got = ab_maskset_match_path(m, t, abs + strlen(tree_path[t]) + 1, is_dir);
			if (got != want && bad++ < 5)
				diag_fail(abs, tree_path[t], want, got);
		}
	}
	ok(bad == 0, "20000 random paths, %zu questions from every tree holding them: "
	    "the set agrees with the oracle (%zu disagreements)", asked, bad);
}

/* A project whose root an enclosing tree masks: everything in it is masked.  Protects. */
static void
covered(void)
{
	char *p1[] = { "/proj/" }, *p2[] = { ".env" };
	struct ab_strv pa = { p1, 1 }, pb = { p2, 1 };
	struct ab_maskset *m;

	ok(ab_maskset_new(&pa, H, &projects, AB_MASKSET_MASKS, &m) == 0, "set with /proj/");
	ok(ab_maskset_match(m, T_P, "", 1) == 1 && ab_maskset_match(m, T_P, "x", 0) == 1 &&
	    ab_maskset_match_path(m, T_Q, "a/b", 0) == 1,
	    "the home's /proj/ masks the project's root and all in it, asked from the project");
	ok(ab_maskset_match(m, T_O, "proj", 1) == 1 && ab_maskset_match(m, T_O, "x", 0) == 0,
	    "... and means the outside project's own proj/ there");
	ab_maskset_free(m);
	ok(ab_maskset_new(&pb, H, &projects, AB_MASKSET_PROTECTS, &m) == 0 &&
	    ab_maskset_match(m, T_P, ".ENV", 0) == 1 && ab_maskset_match(m, T_P, ".env~", 0) == 0,
	    "protects: case folded, not undecorated");
	ab_maskset_free(m);
}

static void
errors(const struct ab_maskset *m)
{
	struct ab_maskset *x = (struct ab_maskset *)1;
	char long_rel[5000];

	ok(ab_maskset_new(&patterns, H, &projects, 0x8000, &x) == -EINVAL && x == NULL,
	    "unknown flag: -EINVAL");
	ok(ab_maskset_match(m, NTREES, "a", 0) == -EINVAL &&
	    ab_maskset_match_path(m, NTREES, "a", 0) == -EINVAL, "no such tree: -EINVAL");
	memset(long_rel, 'a', sizeof(long_rel) - 1);
	long_rel[sizeof(long_rel) - 1] = '\0';
	ok(ab_maskset_match(m, T_P, long_rel, 0) == -ENAMETOOLONG &&
	    ab_maskset_match_path(m, T_P, long_rel, 0) == -ENAMETOOLONG,
	    "a path longer than PATH_MAX fails (the caller fails closed)");
	ab_maskset_free(NULL);
}

int
main(void)
{
	struct ab_maskset *m;

	if (ab_maskset_new(&patterns, H, &projects, AB_MASKSET_MASKS, &m) != 0) {
		ok(0, "ab_maskset_new");
		return done_testing();
	}
	nested(m);
	random_paths(m);
	covered();
	errors(m);
	ab_maskset_free(m);
	return done_testing();
}
