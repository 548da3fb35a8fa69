/* ab_pattern_match / ab_pattern_valid: gitignore semantics, and bounded cost. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "policy.h"
#include "../tap.h"

static const struct {
	const char *pat, *path;
	int is_dir, want;
} cases[] = {
	/* no '/': a name at any depth */
	{ "*.pem", "key.pem", 0, 1 },
	{ "*.pem", "a/b/key.pem", 0, 1 },
	{ "*.pem", "key.pem.bak", 0, 0 },
	{ "*.pem", "certs.pem/inside", 0, 1 },	/* parent directory matches */
	{ ".env", ".env", 0, 1 },
	{ ".env", "src/.env", 0, 1 },
	{ ".env", ".envrc", 0, 0 },
	{ ".env", "a.env", 0, 0 },
	{ ".env.*", ".env.local", 0, 1 },
	{ ".env.*", ".env", 0, 0 },
	{ "*.env", "prod.env", 0, 1 },
	{ "id_rsa*", "home/.ssh/id_rsa.pub", 0, 1 },
	{ "*", "anything/at/all", 0, 1 },
	/* trailing '/': directories only (and what is inside them) */
	{ ".ssh/", ".ssh", 1, 1 },
	{ ".ssh/", ".ssh", 0, 0 },
	{ ".ssh/", "x/.ssh/id_rsa", 0, 1 },
	{ ".ssh/", ".sshx", 1, 0 },
	{ "secrets/", "app/secrets", 1, 1 },
	{ "secrets/", "app/secrets", 0, 0 },
	/* leading or inner '/': anchored at the tree root */
	{ "/build", "build", 1, 1 },
	{ "/build", "a/build", 1, 0 },
	{ "doc/frotz", "doc/frotz", 0, 1 },
	{ "doc/frotz", "a/doc/frotz", 0, 0 },
	{ "/.bashrc", ".bashrc", 0, 1 },
	{ "/.bashrc", "p/.bashrc", 0, 0 },
	{ "a/*.c", "a/x.c", 0, 1 },
	{ "a/*.c", "a/b/x.c", 0, 0 },	/* '*' does not cross '/' */
	/* "**" */
	{ "**/foo", "foo", 0, 1 },
	{ "**/foo", "a/b/foo", 0, 1 },
	{ "**/foo", "a/b/foox", 0, 0 },
	{ "**/foo/bar", "x/foo/bar", 0, 1 },
	{ "**/foo/bar", "foo/bar", 0, 1 },
	{ "abc/**", "abc/x", 0, 1 },
	{ "abc/**", "abc/x/y", 0, 1 },
	{ "abc/**", "abc", 1, 0 },
	{ "a/**/b", "a/b", 0, 1 },
	{ "a/**/b", "a/x/b", 0, 1 },
	{ "a/**/b", "a/x/y/b", 0, 1 },
	{ "a/**/b", "a/xb", 0, 0 },
	{ "a/**/b", "ab", 0, 0 },
	{ "a**b", "axxb", 0, 1 },	/* not a whole component: a plain '*' */
	{ "a**b", "ax/xb", 0, 0 },
	{ "**", "x/y", 0, 1 },
	{ "**/.git/hooks/", ".git/hooks", 1, 1 },
	{ "**/.git/hooks/", ".git/hooks/pre-commit", 0, 1 },
	{ "**/.git/hooks/", "sub/.git/hooks/x", 0, 1 },
	{ "**/.git/hooks/", ".git/hooksx", 1, 0 },
	{ "**/.git/config", ".git/config", 0, 1 },
	{ "**/.git/config", ".git/config.bak", 0, 0 },
	{ "**/.git/modules/**/hooks/", ".git/modules/sub/hooks/post", 0, 1 },
	{ "**/.git/modules/**/hooks/", ".git/modules/a/b/hooks", 1, 1 },
	{ "**/.git/modules/**/hooks/", ".git/modules/hooks", 1, 1 },
	{ "**/.config/gcloud/", "home/.config/gcloud/creds", 0, 1 },
	/* ? and classes */
	{ "foo?", "food", 0, 1 },
	{ "foo?", "foo", 0, 0 },
	{ "a?b", "a/b", 0, 0 },
	{ "[abc].txt", "b.txt", 0, 1 },
	{ "[abc].txt", "d.txt", 0, 0 },
	{ "[!abc].txt", "d.txt", 0, 1 },
	{ "[!abc].txt", "a.txt", 0, 0 },
	{ "[^a]x", "bx", 0, 1 },
	{ "[a-c]x", "bx", 0, 1 },
	{ "[a-c]x", "dx", 0, 0 },
	{ "[]]", "]", 0, 1 },
	{ "[[:digit:]]x", "5x", 0, 1 },
	{ "[[:digit:]]x", "ax", 0, 0 },
	{ "[[:upper:][:digit:]]", "Q", 0, 1 },
	{ "[\\]]", "]", 0, 1 },
	/* escapes */
	{ "\\*", "*", 0, 1 },
	{ "\\*", "a", 0, 0 },
	{ "\\!x", "!x", 0, 1 },
	{ "\\#x", "#x", 0, 1 },
	{ "a\\ b", "a b", 0, 1 },
	{ "\\[x", "[x", 0, 1 },
	/* the default policy's trickier ones */
	{ "*.tfstate.*", "infra/terraform.tfstate.backup", 0, 1 },
	{ "client_secret*.json", "client_secret_123.apps.json", 0, 1 },
	{ "**/.docker/config.json", ".docker/config.json", 0, 1 },
	{ "**/.docker/config.json", "config.json", 0, 0 },
	/* bytes, not characters: non-UTF-8 names still match */
	{ "*.key", "\xff\xfe.key", 0, 1 },
	{ "?.key", "\xff.key", 0, 1 },
};

static const char *const invalid[] = {
	"", "!x", "#x", "/", "//", "a//b", "[abc", "a\\", "a\\/b", "./a", "a/./b", "a/../b",
	"..", ".", "[z-a]", "[[:foo:]]", "[/]", "[a/b]", "/a//", "[[:alpha:",
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);	/* CPU: immune to a busy machine */
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Pattern REP times SEG, then TAIL; path REP times PSEG, then PTAIL. */
static char *
repeat(const char *seg, int rep, const char *tail)
{
	size_t n = strlen(seg) * (size_t)rep + strlen(tail) + 1;
	char *s = malloc(n), *p = s;
	int i;

	if (s == NULL)
		abort();
	for (i = 0; i < rep; i++)
		p = stpcpy(p, seg);
	strcpy(p, tail);
	return s;
}

static void
hostile(void)
{
	char *pat, *path, *longpat;
	double t0, t;
	int m1, m2;
	const char *why;

	/* 200 "**" segments against a path 2000 directories deep. */
	pat = repeat("**/", 200, "x");
	path = repeat("a/", 2000, "b");
	t0 = now();
	m1 = ab_pattern_match(pat, path, 0);
	free(path);
	path = repeat("a/", 2000, "x");
	m2 = ab_pattern_match(pat, path, 0);
	t = now() - t0;
	ok(m1 == 0 && m2 == 1, "200 '**/' segments: no false match, a true one found");
	ok(t < 2.0, "200 '**/' segments on a 2000-deep path take %.3f s (< 2 s)", t);
	free(pat);
	free(path);

	/* The classic exponential case for backtracking matchers. */
	pat = repeat("*a", 60, "b");
	path = repeat("a", 3000, "");
	t0 = now();
	m1 = ab_pattern_match(pat, path, 0);
	t = now() - t0;
	ok(m1 == 0 && t < 2.0, "'*a' x 60 + 'b' against 3000 'a's: no match in %.3f s", t);
	free(pat);
	free(path);

	pat = repeat("a/**/", 300, "z");
	path = repeat("a/q/", 1000, "z");
	t0 = now();
	m1 = ab_pattern_match(pat, path, 0);
	t = now() - t0;
	ok(m1 == 1 && t < 2.0, "300 'a/**/' segments on a 2000-deep path: match in %.3f s", t);
	free(pat);
	free(path);

	longpat = repeat("a", 4097, "");
	why = NULL;
	m1 = ab_pattern_valid(longpat, &why);
	ok(m1 != 0 && why != NULL, "a 4097-byte pattern is refused (%s)", why ? why : "?");
	ok(ab_pattern_match(longpat, longpat, 0) == 0, "and never matches");
	free(longpat);
	longpat = repeat("[a-z]", 819, "");
	ok(ab_pattern_valid(longpat, &why) == 0, "4095 bytes of classes are valid");
	path = repeat("q", 819, "");
	t0 = now();
	m1 = ab_pattern_match(longpat, path, 0);
	t = now() - t0;
	ok(m1 == 1 && t < 2.0, "819 classes against 819 bytes: match in %.3f s", t);
	free(longpat);
	free(path);
}

int
main(void)
{
	size_t i;
	const char *why;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ok(ab_pattern_valid(cases[i].pat, &why) == 0, "valid: '%s'", cases[i].pat);
		ok(ab_pattern_match(cases[i].pat, cases[i].path, cases[i].is_dir) == cases[i].want,
		    "'%s' %s '%s'%s", cases[i].pat, cases[i].want ? "matches" : "does not match",
		    cases[i].path, cases[i].is_dir ? " (dir)" : "");
	}
	for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		why = NULL;
		ok(ab_pattern_valid(invalid[i], &why) == -22 && why != NULL,
		    "invalid: '%s' (%s)", invalid[i], why ? why : "no reason");
		ok(ab_pattern_match(invalid[i], "a", 0) == 0 &&
		    ab_pattern_match(invalid[i], "a/b", 1) == 0, "invalid '%s' matches nothing",
		    invalid[i]);
	}
	ok(ab_pattern_match("x", NULL, 0) == 0, "NULL path matches nothing");
	ok(ab_pattern_valid(NULL, &why) != 0, "NULL pattern is invalid");
	hostile();
	return done_testing();
}
