/*
 * The mask walk's prefilter (pam_module/prefilter.c) is only a shortcut: it must never
 * reject a name that policy/pattern.c's ab_pattern_match accepts, in the situation the
 * walk asks about (an entry whose parent directories did not match).  Checked on a
 * table of the default policy's kinds of pattern, then by brute force over random
 * patterns and names from a small, special-character-heavy alphabet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "prefilter.h"
#include "tap.h"

/* Would the walk ask, and would the real matcher say yes?  REL's parents must not match. */
static int
walk_match(const char *pat, const char *rel, int is_dir)
{
	char parent[256];
	size_t i;

	for (i = 0; rel[i] != '\0'; i++) {
		if (rel[i] != '/')
			continue;
		memcpy(parent, rel, i);
		parent[i] = '\0';
		if (ab_pattern_match(pat, parent, 1))
			return -1;	/* the walk never gets here: the parent was masked */
	}
	return ab_pattern_match(pat, rel, is_dir);
}

static const char *
base(const char *rel)
{
	const char *s = strrchr(rel, '/');

	return s != NULL ? s + 1 : rel;
}

/* 1 if the prefilter is consistent with the matcher for PAT on REL (both kinds). */
static int
consistent(const char *pat, const char *rel)
{
	struct prefilter f;
	int d;

	ab_prefilter_make(&f, pat);
	for (d = 0; d <= 1; d++)
		if (walk_match(pat, rel, d) == 1 && !ab_prefilter_pass(&f, base(rel), strlen(base(rel))))
			return 0;
	return 1;
}

static int
rejects(const char *pat, const char *name)
{
	struct prefilter f;

	ab_prefilter_make(&f, pat);
	return !ab_prefilter_pass(&f, name, strlen(name));
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
	};
	static const char alpha[] = "ab.*?[]!/\\";
	char pat[16], name[8], rel[32];
	size_t i;
	long n, asked = 0, bad = 0;
	const char *why;
	int j, k;

	for (i = 0; i < sizeof(must) / sizeof(must[0]); i++)
		ok(consistent(must[i].pat, must[i].rel), "'%s' still matches '%s'",
		    must[i].pat, must[i].rel);
	/* And it does filter: the point of it. */
	ok(rejects(".env", "main.c"), "'.env' rejects main.c without the matcher");
	ok(rejects("*.pem", "main.c"), "'*.pem' rejects main.c");
	ok(rejects("id_*", "index.js"), "'id_*' rejects index.js");
	ok(rejects("**/.git/config", "package.json"), "'**/.git/config' rejects package.json");
	ok(!rejects("**", "whatever") && !rejects("a\\*b", "zzz"),
	    "'**' and escaped patterns are not filtered");

	srand(12345);
	for (n = 0; n < 300000; n++) {
		k = 1 + rand() % 8;
		for (j = 0; j < k; j++)
			pat[j] = alpha[rand() % (sizeof(alpha) - 1)];
		pat[k] = '\0';
		if (ab_pattern_valid(pat, &why) != 0)
			continue;
		k = 1 + rand() % 5;
		for (j = 0; j < k; j++)
			name[j] = "ab.*?[]!\\"[rand() % 9];	/* names hold no '/' */
		name[k] = '\0';
		snprintf(rel, sizeof(rel), "%s%s", rand() % 2 ? "" : (rand() % 2 ? "a/" : "b/a/"),
		    name);
		asked++;
		if (!consistent(pat, rel)) {
			if (bad++ < 5)
				diag("prefilter rejects '%s' for pattern '%s'", rel, pat);
		}
	}
	ok(bad == 0, "random patterns: the prefilter never rejects a match (%ld cases, %ld bad)",
	    asked, bad);
	return done_testing();
}
