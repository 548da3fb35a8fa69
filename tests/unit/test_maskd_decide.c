/* maskd/decide.c: the enforcer's decision table, no root, no fanotify. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "maskd.h"
#include "tap.h"

static char *pat_v[] = { ".env", ".env.*", "*.pem", "secrets/", "/config/*.key" };
static const struct ab_strv patterns = { pat_v, 5 };
static char *proj_v[] = { "/home/agent/proj", "/srv/p2" };
static const struct ab_strv projects = { proj_v, 2 };

static const struct {
	const char	*path;
	int		 is_dir, unlinked, in_history;
	unsigned int	 want;
	const char	*why;
} cases[] = {
	{ "/srv/p2/.env", 0, 0, 0, 1, "a new .env (research row 1)" },
	{ "/srv/p2/config/.env.local", 0, 0, 0, 2, ".env.* in a subdirectory (row 2)" },
	{ "/srv/p2/sub/server.PEM", 0, 0, 0, 3, "*.pem, other case (rows 2, 3)" },
	{ "/srv/p2/a/b/secrets/k", 0, 0, 0, 4, "a file in a new secrets/ (row 2)" },
	{ "/srv/p2/a/b/secrets", 1, 0, 0, 4, "the directory secrets/ itself" },
	{ "/srv/p2/a/b/secrets", 0, 0, 0, 0, "a file called secrets: secrets/ is for dirs" },
	{ "/srv/p2/.ENV", 0, 0, 0, 1, ".ENV: case folded (row 3)" },
	{ "/srv/p2/.Env.prod", 0, 0, 0, 2, ".Env.prod (row 3)" },
	{ "/srv/p2/SECRETS/x", 0, 0, 0, 4, "SECRETS/x (row 3)" },
	{ "/srv/p2/x.Pem", 0, 0, 0, 3, "x.Pem (row 3)" },
	{ "/srv/p2/.env~", 0, 0, 0, 1, "an editor's copy: undecorated as the mask walk does" },
	{ "/srv/p2/#.env#", 0, 0, 0, 1, "Emacs autosave of .env" },
	{ "/srv/p2/config/x.key", 0, 0, 0, 5, "anchored /config/*.key in its tree" },
	{ "/srv/p2/sub/config/x.key", 0, 0, 0, 0, "anchored pattern: not below the root" },
	{ "/home/agent/proj/config/x.key", 0, 0, 0, 5, "a project inside the home" },
	{ "/home/agent/config/x.key", 0, 0, 0, 5, "the home itself is a tree" },
	{ "/srv/p2/notes.txt", 0, 0, 0, 0, "an ordinary file is allowed" },
	{ "/srv/p2", 1, 0, 0, 0, "a tree's root is allowed" },
	{ "/elsewhere/.env", 0, 0, 0, 0, "outside every tree: masks do not reach" },
	{ "/srv/p2x/.env", 0, 0, 0, 0, "/srv/p2x is not inside /srv/p2" },
	{ "/srv/p2/.env (deleted)", 0, 1, 0, 1, "unlinked .env reopened by fd (row 9)" },
	{ "/srv/p2/.env (deleted)", 0, 0, 0, 0, "a live file called '.env (deleted)'" },
	{ "/srv/p2/notes (deleted)", 0, 1, 0, 0, "an unlinked ordinary file" },
	{ "/srv/p2/x", 0, 0, 1, AB_MASKD_RULE_HISTORY, "an inode once called .env (rows 4-6)" },
	{ "/elsewhere/y", 0, 0, 1, AB_MASKD_RULE_HISTORY, "history holds outside the trees" },
	{ "/srv/p2/.env", 0, 0, 1, 1, "name first: the record names the pattern" },
	{ "srv/p2/.env", 0, 0, 0, AB_MASKD_RULE_UNKNOWN, "a relative path: fail closed" },
	{ NULL, 0, 0, 0, AB_MASKD_RULE_UNKNOWN, "no path: fail closed" },
};

int
main(void)
{
	struct ab_maskd_decider *d, *bad;
	static char *rel_v[] = { "proj" }, *root_v[] = { "/" };
	static const struct ab_strv rel = { rel_v, 1 }, root = { root_v, 1 };
	char longp[PATH_MAX + 16];
	size_t i;

	ok(ab_maskd_decider_new(&patterns, "/home/agent", &projects, &d) == 0, "decider");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ab_maskd_query q = { cases[i].path, cases[i].is_dir, cases[i].unlinked,
		    cases[i].in_history, 0 };
		unsigned int got = ab_maskd_decide(d, &q);

		ok(got == cases[i].want, "%s: %s -> %#x", cases[i].why,
		    cases[i].path ? cases[i].path : "(null)", got);
	}
	/* The creating open (issue 12: denied "at its next open"): allowed by name and by
	 * history, never without a path. */
	{
		struct ab_maskd_query q = { .path = "/srv/p2/certifi/cacert.pem",
		    .creating = 1 };

		ok(ab_maskd_decide(d, &q) == 0, "the creating open of a new *.pem: allowed");
		q.creating = 0;
		ok(ab_maskd_decide(d, &q) == 3, "its next open: denied by name");
		q.path = "/srv/p2/x";
		q.in_history = q.creating = 1;
		ok(ab_maskd_decide(d, &q) == 0, "creating open of an inode in S: allowed");
		q.path = NULL;
		ok(ab_maskd_decide(d, &q) == AB_MASKD_RULE_UNKNOWN,
		    "a creating open without a path: fail closed");
	}
	memset(longp, 'a', sizeof(longp) - 1);
	memcpy(longp, "/srv/p2/", 8);
	longp[sizeof(longp) - 1] = '\0';
	ok(ab_maskd_rule(d, longp, 0) == AB_MASKD_RULE_UNKNOWN, "too long: fail closed");
	ab_maskd_decider_free(d);

	ok(ab_maskd_decider_new(&patterns, NULL, &rel, &bad) == -EINVAL && bad == NULL,
	    "a relative tree is refused");
	ok(ab_maskd_decider_new(&patterns, NULL, &root, &d) == 0 &&
	    ab_maskd_rule(d, "/x/.env", 0) == 1 && ab_maskd_rule(d, "/x/y", 0) == 0,
	    "the tree / holds every absolute path");
	ab_maskd_decider_free(d);

	/* A learning session: "/" among the trees stands for the rest, judged by the masks
	 * only where the policy grants no read (Landlock no longer guards it). */
	{
		static char *lt_v[] = { "/home/agent/proj", "/srv/p2", "/" }, *rd_v[] = { "/opt" };
		static const struct ab_strv lt = { lt_v, 3 }, rd = { rd_v, 1 }, none = { 0 };
		const struct ab_fs_sets grants = { &rd, &none, &projects, "/home/agent", 1000 };

		ok(ab_maskd_decider_new(&patterns, "/home/agent", &projects, &d) == 0 &&
		    ab_maskd_decider_outside(d, &grants) == -EINVAL,
		    "outside needs a / tree");
		ab_maskd_decider_free(d);
		ok(ab_maskd_decider_new(&patterns, "/home/agent", &lt, &d) == 0 &&
		    ab_maskd_decider_outside(d, &grants) == 0, "a learning decider");
		ok(ab_maskd_rule(d, "/srv/other/.env", 0) == 1,
		    "another project's .env, outside the grants: masked");
		ok(ab_maskd_rule(d, "/home/dev/secrets", 1) == 4,
		    "another home's secrets/: masked");
		ok(ab_maskd_rule(d, "/opt/tool/ca.pem", 0) == 0,
		    "a masked name where reading is granted: as when enforcing");
		ok(ab_maskd_rule(d, "/srv/other/notes", 0) == 0, "an unmasked name outside: allowed");
		ok(ab_maskd_rule(d, "/srv/p2/.env", 0) == 1 && ab_maskd_rule(d, "/srv/p2/x", 0) == 0,
		    "inside a project: as before");
		ab_maskd_decider_free(d);
	}
	return done_testing();
}
