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

/* AB_PATTERN_CASEFOLD (FINDINGS F3): ASCII case folded in literals and classes. */
static const struct {
	const char *pat, *path;
	int is_dir, exact, folded;
} fold_cases[] = {
	{ ".env", ".ENV", 0, 0, 1 },
	{ ".env", "app/.Env", 0, 0, 1 },
	{ ".env.*", ".ENV.local", 0, 0, 1 },
	{ "*.env", "PROD.ENV", 0, 0, 1 },
	{ "id_rsa*", "Id_RSA", 0, 0, 1 },
	{ "id_rsa*", ".ssh/ID_RSA.pub", 0, 0, 1 },
	{ "secrets/", "SECRETS", 1, 0, 1 },
	{ "secrets/", "Secrets/x", 0, 0, 1 },	/* inside a masked dir */
	{ "secrets/", "SECRETS", 0, 0, 0 },	/* still directories only */
	{ "*.pem", "server.PEM", 0, 0, 1 },
	{ "*.pem", "key.pem", 0, 1, 1 },
	{ "**/.git/hooks/", ".GIT/Hooks", 1, 0, 1 },
	{ "/.bashrc", ".BashRC", 0, 0, 1 },
	{ "/.bashrc", "p/.BASHRC", 0, 0, 0 },	/* anchoring unchanged */
	{ "[a-c]x", "Bx", 0, 0, 1 },		/* ranges fold */
	{ "[A-C]x", "bx", 0, 0, 1 },
	{ "[!a]x", "Ax", 0, 1, 0 },		/* a negated class folds too */
	{ "[!a]x", "bx", 0, 1, 1 },
	{ "[^A-C]x", "bx", 0, 1, 0 },
	{ "[[:upper:]]x", "qx", 0, 0, 1 },
	{ "[[:lower:]]x", "Qx", 0, 0, 1 },
	{ "[[:digit:]]x", "ax", 0, 0, 0 },
	{ "k?y", "KEY", 0, 0, 1 },
	{ "*.pem", "notes.pem.md", 0, 0, 0 },	/* folding widens case only */
	{ ".env", "keyboard.txt", 0, 0, 0 },
	{ "a_b", "A_B", 0, 0, 1 },
	{ "a@b", "A`B", 0, 0, 0 },		/* '@' and '`' are no letters */
	{ "[@]", "`", 0, 0, 0 },
	{ "\xc3\xa9", "\xc3\x89", 0, 0, 0 },	/* only ASCII is folded */
};

static void
folding(void)
{
	size_t i;

	for (i = 0; i < sizeof(fold_cases) / sizeof(fold_cases[0]); i++) {
		ok(ab_pattern_match(fold_cases[i].pat, fold_cases[i].path,
		    fold_cases[i].is_dir) == fold_cases[i].exact &&
		    ab_pattern_match_flags(fold_cases[i].pat, fold_cases[i].path,
		    fold_cases[i].is_dir, 0) == fold_cases[i].exact,
		    "exact: '%s' %s '%s'", fold_cases[i].pat,
		    fold_cases[i].exact ? "matches" : "does not match", fold_cases[i].path);
		ok(ab_pattern_match_flags(fold_cases[i].pat, fold_cases[i].path,
		    fold_cases[i].is_dir, AB_PATTERN_CASEFOLD) == fold_cases[i].folded,
		    "casefold: '%s' %s '%s'%s", fold_cases[i].pat,
		    fold_cases[i].folded ? "matches" : "does not match", fold_cases[i].path,
		    fold_cases[i].is_dir ? " (dir)" : "");
	}
	ok(ab_pattern_match_flags(".env", ".env", 0, 0x80) == 0, "unknown flags match nothing");
}

/* ab_pattern_undecorate (FINDINGS F4): NAME -> the names it is a copy of, '|'-joined. */
static const struct {
	const char *name, *want;
} decor_cases[] = {
	{ "key.pem~", "key.pem" },
	{ ".key.pem.swp", "key.pem|.key.pem" },
	{ ".key.pem.swo", "key.pem|.key.pem" },
	{ ".key.pem.swx", "key.pem|.key.pem" },
	{ ".env.swp", "env|.env" },
	{ "..env.swp", ".env|..env" },
	{ "#key.pem#", "key.pem" },
	{ ".#key.pem", "key.pem" },
	{ "key.pem.bak", "key.pem" },
	{ "key.pem.BAK", "key.pem" },
	{ "key.pem.orig", "key.pem" },
	{ "key.pem.old", "key.pem" },
	{ "key.pem.save", "key.pem" },
	{ "key.pem.sav", "key.pem" },
	{ "key.pem.tmp", "key.pem" },
	{ "key.pem.backup", "key.pem" },
	{ "key.pem.rej", "key.pem" },
	{ "key.pem.1", "key.pem" },
	{ "key.pem.~3~", "key.pem" },
	{ "key.pem.save.1", "key.pem.save|key.pem" },
	{ "key.pem.tmp.12345", "key.pem.tmp|key.pem" },
	{ "key.pem.bak~", "key.pem.bak|key.pem" },
	{ "a.bak.bak.bak.bak", "a.bak.bak.bak|a.bak.bak|a.bak" },	/* depth 3 */
	{ "secrets.old", "secrets" },
	{ "keyboard.txt", "" },
	{ "notes.pem.md", "" },
	{ "key.pem", "" },
	{ "~", "" },
	{ ".bak", "" },
	{ "#", "" },
	{ "##", "" },
	{ ".#", "" },
	{ "..swp", "" },
	{ "x.sw1", "" },
	{ "x.swpp", "" },
	{ "x.bakx", "" },
	{ "x.", "" },
	{ "x.1a", "" },
};

static void
undecorating(void)
{
	struct ab_name_span sp[AB_UNDECORATE_MAX];
	char got[256];
	size_t i, j, n, at;

	for (i = 0; i < sizeof(decor_cases) / sizeof(decor_cases[0]); i++) {
		n = ab_pattern_undecorate(decor_cases[i].name, sp);
		got[0] = '\0';
		for (j = 0, at = 0; j < n && at + sp[j].len + 2 < sizeof(got); j++)
			at += (size_t)snprintf(got + at, sizeof(got) - at, "%s%.*s", j ? "|" : "",
			    (int)sp[j].len, decor_cases[i].name + sp[j].off);
		ok(strcmp(got, decor_cases[i].want) == 0, "undecorate '%s' -> '%s' (got '%s')",
		    decor_cases[i].name, decor_cases[i].want, got);
	}
	ok(ab_pattern_undecorate(NULL, sp) == 0, "undecorate NULL: nothing");
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
	folding();
	undecorating();
	return done_testing();
}
