/*
 * The mask set's prefilter (policy/prefilter.c) is only a shortcut: it must never
 * reject a name that policy/pattern.c's ab_pattern_match accepts, in the situation the
 * walk asks about (an entry whose parent directories did not match).  Checked on a
 * table of the default policy's kinds of pattern, then by brute force over random
 * patterns and names from a small, special-character-heavy alphabet; both exact and
 * with AB_PATTERN_CASEFOLD (the walk's mode), with letters of both cases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "prefilter.h"
#include "tap.h"

/* Would the walk ask, and would the real matcher say yes?  REL's parents must not match. */
static int
walk_match(const char *pat, const char *rel, int is_dir, unsigned int flags)
{
	char parent[256];
	size_t i;

	for (i = 0; rel[i] != '\0'; i++) {
		if (rel[i] != '/')
			continue;
		memcpy(parent, rel, i);
		parent[i] = '\0';
		if (ab_pattern_match_flags(pat, parent, 1, flags))
			return -1;	/* the walk never gets here: the parent was masked */
	}
	return ab_pattern_match_flags(pat, rel, is_dir, flags);
}

static const char *
base(const char *rel)
{
	const char *s = strrchr(rel, '/');

	return s != NULL ? s + 1 : rel;
}

/* 1 if the prefilter is consistent with the matcher for PAT on REL (both kinds). */
static int
consistent(const char *pat, const char *rel, unsigned int flags)
{
	struct prefilter f;
	unsigned char first[256] = { 0 }, last[256] = { 0 };
	const char *name = base(rel);
	size_t n = strlen(name);
	struct ab_strv pats = { 0 }, projects = { 0 };
	struct ab_maskset *m = NULL;
	int d, r = 1;

	ab_prefilter_make(&f, pat, flags);
	ab_prefilter_ends(&f, first, last);
	/* The mask set as walks use it (its index by a name's ends, then this prefilter),
	 * one tree at /p holding REL. */
	if (ab_strv_push(&pats, pat) != 0 || ab_strv_push(&projects, "/p") != 0 ||
	    ab_maskset_new(&pats, NULL, &projects, flags & AB_PATTERN_CASEFOLD, &m) != 0)
		r = 0;
	for (d = 0; r && d <= 1; d++) {
		if (walk_match(pat, rel, d, flags) != 1)
			continue;
		if (!ab_prefilter_pass(&f, name, n) ||
		    (n > 0 && (!first[(unsigned char)name[0]] ||
		    !last[(unsigned char)name[n - 1]])) ||
		    ab_maskset_match(m, 1, rel, d) != 1)
			r = 0;
	}
	ab_maskset_free(m);
	ab_strv_free(&pats);
	ab_strv_free(&projects);
	return r;
}

static int
rejects(const char *pat, const char *name, unsigned int flags)
{
	struct prefilter f;

	ab_prefilter_make(&f, pat, flags);
	return !ab_prefilter_pass(&f, name, strlen(name));
}

/* Random patterns and paths over ALPHA (names: NALPHA, no '/'): count inconsistencies. */
static long
brute(const char *alpha, const char *nalpha, unsigned int flags, long rounds, long *asked)
{
	size_t na = strlen(alpha), nn = strlen(nalpha);
	char pat[16], name[8], rel[32];
	const char *why;
	long n, bad = 0;
	int j, k;

	for (n = 0; n < rounds; n++) {
		k = 1 + rand() % 8;
		for (j = 0; j < k; j++)
			pat[j] = alpha[rand() % na];
		pat[k] = '\0';
		if (ab_pattern_valid(pat, &why) != 0)
			continue;
		k = 1 + rand() % 5;
		for (j = 0; j < k; j++)
			name[j] = nalpha[rand() % nn];
		name[k] = '\0';
		snprintf(rel, sizeof(rel), "%s%s", rand() % 2 ? "" : (rand() % 2 ? "a/" : "B/a/"),
		    name);
		(*asked)++;
		if (!consistent(pat, rel, flags) && bad++ < 5)
			diag("prefilter (flags %u) rejects '%s' for pattern '%s'", flags, rel, pat);
	}
	return bad;
}

int
main(void)
{
	static const struct { const char *pat, *rel; } must[] = {
		{ ".env", ".env" }, { ".env", "a/b/.env" }, { "*.pem", "k/key.pem" },
		{ "id_*", "id_rsa" }, { "secrets/", "secrets" }, { "/build", "build" },
		{ "**/.git/config", "x/.git/config" }, { ".git/hooks", ".git/hooks" },
		{ "*.key~", "a.key~" }, { "[Ii]d_rsa", "Id_rsa" }, { "a?c", "abc" },
		{ "x/**", "x/y" }, { "**/y", "a/b/y" }, { "\\*lit", "*lit" },
		{ ".aws/**", ".aws/credentials" }, { "*", "anything" }, { "**", "q/r" },
		{ "a*b*c", "aXbYc" }, { "[!a]x", "bx" }, { "e]nd", "e]nd" },
		{ "*.tfstate.*", "prod.tfstate.backup" }, { "*.tfstate.*", ".tfstate." },
		{ "a*bc*d", "abcd" }, { "*x?yz*", "QxAyzR" }, { "*a[b]c*d*", "aXbcYdZ" },
	};
	/* Case variants the walk must see through (FINDINGS F3). */
	static const struct { const char *pat, *rel; } folded[] = {
		{ ".env", ".ENV" }, { ".env", "a/.Env" }, { "*.pem", "server.PEM" },
		{ "id_rsa*", "Id_RSA" }, { "secrets/", "SECRETS" }, { "/build", "BUILD" },
		{ "**/.git/config", "x/.GIT/Config" }, { "*.key~", "A.KEY~" },
		{ "[a-c]d_rsa", "Bd_RSA" }, { ".env.*", ".ENV.Local" }, { "*.env", "PROD.ENV" },
		{ "*.tfstate.*", "Prod.TFState.1" },
	};
	long asked = 0, bad;
	size_t i;

	for (i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
		ok(consistent(must[i].pat, must[i].rel, 0), "'%s' still matches '%s'",
		    must[i].pat, must[i].rel);
		ok(consistent(must[i].pat, must[i].rel, AB_PATTERN_CASEFOLD),
		    "casefold: '%s' still matches '%s'", must[i].pat, must[i].rel);
	}
	for (i = 0; i < sizeof(folded) / sizeof(folded[0]); i++) {
		ok(walk_match(folded[i].pat, folded[i].rel, 1, AB_PATTERN_CASEFOLD) == 1 &&
		    consistent(folded[i].pat, folded[i].rel, AB_PATTERN_CASEFOLD),
		    "casefold: '%s' matches '%s' and the prefilter lets it through",
		    folded[i].pat, folded[i].rel);
		ok(rejects(folded[i].pat, base(folded[i].rel), 0),
		    "exact: '%s' rejects '%s'", folded[i].pat, base(folded[i].rel));
	}
	/* And it does filter: the point of it. */
	ok(rejects(".env", "main.c", 0), "'.env' rejects main.c without the matcher");
	ok(rejects("*.pem", "main.c", 0), "'*.pem' rejects main.c");
	ok(rejects("id_*", "index.js", 0), "'id_*' rejects index.js");
	ok(rejects("**/.git/config", "package.json", 0), "'**/.git/config' rejects package.json");
	ok(rejects("*.tfstate.*", "file12.js", 0) && rejects("*.tfstate.*", "a.tfstate", 0) &&
	    rejects("a*bc*d", "abd", 0) && rejects("*x?yz*", "xyqz", 0),
	    "a literal run between wildcards must be in the name ('*.tfstate.*' rejects "
	    "file12.js and a.tfstate)");
	ok(rejects("*.tfstate.*", "file12.js", AB_PATTERN_CASEFOLD) &&
	    !rejects("*.tfstate.*", "X.TFSTATE.y", AB_PATTERN_CASEFOLD),
	    "casefold: the run is compared in either case");
	ok(!rejects("**", "whatever", 0) && !rejects("a\\*b", "zzz", 0),
	    "'**' and escaped patterns are not filtered");
	ok(rejects(".env", "main.c", AB_PATTERN_CASEFOLD) &&
	    rejects("*.pem", "key.pen", AB_PATTERN_CASEFOLD) &&
	    rejects("id_*", "ID-rsa", AB_PATTERN_CASEFOLD) &&
	    rejects(".env", ".enw", AB_PATTERN_CASEFOLD),
	    "casefold still filters (case is the only slack)");

	srand(12345);
	bad = brute("ab.*?[]!/\\", "ab.*?[]!\\", 0, 300000, &asked);
	ok(bad == 0, "random patterns: the prefilter never rejects a match (%ld cases, %ld bad)",
	    asked, bad);
	asked = 0;
	bad = brute("aAbB.*?[]!^-/\\", "aAbB.*?[]!-\\", AB_PATTERN_CASEFOLD, 300000, &asked);
	ok(bad == 0, "random patterns, casefold: the prefilter never rejects a match "
	    "(%ld cases, %ld bad)", asked, bad);
	asked = 0;
	bad = brute("aAzZ.*?[]!-:/", "aAzZ.-:[]", AB_PATTERN_CASEFOLD, 200000, &asked);
	ok(bad == 0, "random patterns with ranges, casefold: never rejects a match "
	    "(%ld cases, %ld bad)", asked, bad);
	return done_testing();
}
