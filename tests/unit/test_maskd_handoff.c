/* maskd/handoff.c: the hand-off message from pam_agentbox to agentbox-maskd, both ways;
 * every malformed message is refused whole (a session half understood is a session
 * half enforced). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "handoff.h"
#include "tap.h"

#define GOOD "maskd 1\nses 7\nuid 1001\nhome /home/a\nproject /home/a/p\npattern .env\n"
#define HEX63 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"
#define HEX64 HEX63 "f"
#define UPPER64 "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF"

static const struct {
	const char	*msg;
	int		 want;
	const char	*why;
} cases[] = {
	{ GOOD, 0, "a whole message" },
	{ "maskd 1\nses 7\nuid 1\npattern *.pem\n", 0, "no home, no project" },
	{ "maskd 2\nses 7\nuid 1\npattern .env\n", -EPROTO, "version 2" },
	{ "ses 7\nmaskd 1\nuid 1\npattern .env\n", -EPROTO, "version line not first" },
	{ "maskd 1\nses 7\nuid 1\n", -EPROTO, "no pattern" },
	{ "maskd 1\nses 7\npattern .env\n", -EPROTO, "no uid" },
	{ "maskd 1\nses 7\nses 8\nuid 1\npattern .env\n", -EPROTO, "ses twice" },
	{ "maskd 1\nses 07\nuid 1\npattern .env\n", -EPROTO, "leading zero" },
	{ "maskd 1\nses -1\nuid 1\npattern .env\n", -EPROTO, "negative" },
	{ "maskd 1\nses 4294967296\nuid 1\npattern .env\n", -EPROTO, "ses over 32 bits" },
	{ "maskd 1\nses 7\nuid 1\npattern .env", -EPROTO, "no final newline" },
	{ "maskd 1\nses 7\nuid 1\npattern .env\nextra x\n", -EPROTO, "unknown key" },
	{ "maskd 1\nses 7\nuid 1\npattern\n", -EPROTO, "key without value" },
	{ "maskd 1\nses 7\nuid 1\npattern .env\nhome rel\n", -EINVAL, "relative home" },
	{ "maskd 1\nses 7\nuid 1\npattern .env\nproject p\n", -EINVAL, "relative project" },
	{ "maskd 1\nses 7\nuid 1\npattern .env\nhome /a\nhome /b\n", -EPROTO, "home twice" },
	{ "maskd 1\nses 7\nuid 1\npattern a/../b\n", -EINVAL, "invalid pattern" },
	{ "", -EPROTO, "empty" },
	/* A learning session: "learn 1", then the policy's read and write sets. */
	{ "maskd 1\nses 7\nuid 1\nlearn 1\n", 0, "learning without a pattern" },
	{ "maskd 1\nses 7\nuid 1\npattern .env\nlearn 1\nread /usr\nwrite /var/x\n", 0,
	    "learning with patterns, reads and writes" },
	{ "maskd 1\nses 7\nuid 1\nlearn 0\n", -EPROTO, "learn 0" },
	{ "maskd 1\nses 7\nuid 1\nlearn 1\nlearn 1\n", -EPROTO, "learn twice" },
	{ "maskd 1\nses 7\nuid 1\npattern .env\nread /usr\n", -EPROTO,
	    "a read line without learn" },
	{ "maskd 1\nses 7\nuid 1\nlearn 1\nwrite rel\n", -EINVAL, "a relative write" },
	/* A walk plan's report: "walked ID GEN", then the directories it found. */
	{ GOOD "policy " HEX64 "\n", 0, "the policy's digest" },
	{ GOOD "policy " HEX64 "\npolicy " HEX64 "\n", -EPROTO, "the digest twice" },
	{ GOOD "policy " HEX63 "\n", -EPROTO, "a digest one digit short" },
	{ GOOD "policy " HEX64 "0\n", -EPROTO, "a digest one digit long" },
	{ GOOD "policy " UPPER64 "\n", -EPROTO, "a digest in capitals" },
	{ GOOD "walked 33 4\nfound /home/a/p\nfound /home/a/p/cfg\n", 0, "a walk's report" },
	{ GOOD "walked 33 4\n", 0, "a report that found nothing" },
	{ GOOD "found /home/a/p\n", -EPROTO, "found before walked" },
	{ GOOD "walked 33\n", -EPROTO, "walked without its generation" },
	{ GOOD "walked 33 4 5\n", -EPROTO, "walked with a third number" },
	{ GOOD "walked 33 4\nwalked 33 4\n", -EPROTO, "walked twice" },
	{ GOOD "walked 33 4\nfound rel\n", -EINVAL, "a relative found" },
};

/* The walk plan request (pam_module/walkplan.c -> maskd/walkindex.c). */
static const struct {
	const char	*msg;
	int		 want;
	const char	*why;
} reqs[] = {
	{ "walkplan 1\nuid 5\nhome /h\nproject /p\nmask .env\nprotect .envrc\n", 0,
	    "a whole request" },
	{ "walkplan 1\nuid 5\n", 0, "no tree, no pattern (a key like any)" },
	{ "walkplan 2\nuid 5\n", -EPROTO, "version 2" },
	{ "uid 5\nwalkplan 1\n", -EPROTO, "version not first" },
	{ "walkplan 1\nmask .env\n", -EPROTO, "no uid" },
	{ "walkplan 1\nuid 5\nuid 5\n", -EPROTO, "uid twice" },
	{ "walkplan 1\nuid 5\nhome rel\n", -EINVAL, "relative home" },
	{ "walkplan 1\nuid 5\nproject rel\n", -EINVAL, "relative project" },
	{ "walkplan 1\nuid 5\nmask a/../b\n", -EINVAL, "invalid mask" },
	{ "walkplan 1\nuid 5\nprotect a/../b\n", -EINVAL, "invalid protect" },
	{ "walkplan 1\nuid 5\npattern .env\n", -EPROTO, "a hand-off key" },
	{ "walkplan 1\nuid 5", -EPROTO, "no final newline" },
};

/* Its reply. */
static const struct {
	const char	*msg;
	int		 want;
	const char	*why;
} replies[] = {
	{ "plan 65 3\ndir /h\ndir /h/p\nfull /h/p/new\n", 0, "a plan" },
	{ "walk 65 0\n", 0, "walk everything" },
	{ "walk 65 0\ndir /h\n", -EPROTO, "a directory after walk" },
	{ "plan 65\n", -EPROTO, "no generation" },
	{ "plan 65 3\ndir h\n", -EPROTO, "a relative directory" },
	{ "plan 65 3\ndir /h/../etc\n", -EPROTO, "a .. component" },
	{ "plan 65 3\ndir /h/./p\n", -EPROTO, "a . component" },
	{ "plan 65 3\ndir /h//p\n", -EPROTO, "an empty component" },
	{ "plan 65 3\ndir /h/\n", -EPROTO, "a trailing slash" },
	{ "plan 65 3\nskip /h\n", -EPROTO, "an unknown line" },
	{ "refused no index\n", -EPROTO, "a refusal is not a plan" },
	{ "plan 65 3\ndir /h", -EPROTO, "no final newline" },
	{ "", -EPROTO, "empty" },
};

int
main(void)
{
	static char *proj_v[] = { "/srv/p", "/home/a/q" }, *pat_v[] = { ".env", "secrets/" };
	static char *nl_v[] = { "bad\nline" };
	struct ab_maskd_open m, back;
	char buf[512], nul[] = "maskd 1\nses 7\0\nuid 1\npattern .env\n";
	size_t i, len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = ab_maskd_open_parse(cases[i].msg, strlen(cases[i].msg), &m);

		ok(r == cases[i].want, "%s: %d", cases[i].why, r);
		ab_maskd_open_free(&m);
	}
	ok(ab_maskd_open_parse(nul, sizeof(nul) - 1, &m) == -EPROTO, "a NUL inside is refused");
	ab_maskd_open_free(&m);

	/* Round trip: what the module encodes, the daemon reads back the same. */
	memset(&m, 0, sizeof(m));
	m.ses = 4294967295u;
	m.uid = 0;
	m.home = "/home/a";
	m.projects = (struct ab_strv){ proj_v, 2 };
	m.patterns = (struct ab_strv){ pat_v, 2 };
	ok(ab_maskd_open_encode(&m, buf, sizeof(buf), &len) == 0, "encode");
	ok(ab_maskd_open_parse(buf, len, &back) == 0, "parse what was encoded");
	ok(back.ses == m.ses && back.uid == 0 && strcmp(back.home, "/home/a") == 0 &&
	    back.projects.n == 2 && strcmp(back.projects.v[1], "/home/a/q") == 0 &&
	    back.patterns.n == 2 && strcmp(back.patterns.v[1], "secrets/") == 0,
	    "the round trip keeps every field");
	ab_maskd_open_free(&back);
	ok(ab_maskd_open_encode(&m, buf, 40, &len) == -E2BIG, "too small a buffer: E2BIG");
	m.patterns = (struct ab_strv){ nl_v, 1 };
	ok(ab_maskd_open_encode(&m, buf, sizeof(buf), &len) == -EINVAL,
	    "a newline in a value: EINVAL");
	m.patterns = (struct ab_strv){ pat_v, 2 };
	m.home = "rel";
	ok(ab_maskd_open_encode(&m, buf, sizeof(buf), &len) == -EINVAL, "relative home: EINVAL");

	/* Learning, both ways. */
	m.home = "/home/a";
	m.learn = 1;
	m.patterns = (struct ab_strv){ NULL, 0 };
	m.reads = (struct ab_strv){ proj_v, 1 };
	m.writes = (struct ab_strv){ proj_v + 1, 1 };
	ok(ab_maskd_open_encode(&m, buf, sizeof(buf), &len) == 0, "encode a learning session");
	ok(ab_maskd_open_parse(buf, len, &back) == 0 && back.learn == 1 &&
	    back.reads.n == 1 && strcmp(back.reads.v[0], "/srv/p") == 0 &&
	    back.writes.n == 1 && strcmp(back.writes.v[0], "/home/a/q") == 0 &&
	    back.patterns.n == 0, "its round trip keeps learn, reads and writes");
	ab_maskd_open_free(&back);
	m.learn = 0;
	ok(ab_maskd_open_encode(&m, buf, sizeof(buf), &len) == 0 &&
	    ab_maskd_open_parse(buf, len, &back) == -EPROTO,
	    "without learn and without a pattern the daemon refuses it");
	ab_maskd_open_free(&back);

	/* A report both ways; too big a report is the caller's to drop (E2BIG). */
	m.learn = 0;
	m.patterns = (struct ab_strv){ pat_v, 2 };
	m.walked = 1;
	m.walk_id = 4294967295u;
	m.walk_gen = 0;
	m.found = (struct ab_strv){ proj_v, 2 };
	ok(ab_maskd_open_encode(&m, buf, sizeof(buf), &len) == 0 &&
	    ab_maskd_open_parse(buf, len, &back) == 0 && back.walked == 1 &&
	    back.walk_id == 4294967295u && back.walk_gen == 0 && back.found.n == 2 &&
	    strcmp(back.found.v[1], "/home/a/q") == 0, "a walk's report, both ways");
	ab_maskd_open_free(&back);
	m.walked = 0;

	/* The policy's digest both ways; a message without one parses with none. */
	memcpy(m.policy, HEX64, sizeof(m.policy));
	ok(ab_maskd_open_encode(&m, buf, sizeof(buf), &len) == 0 &&
	    ab_maskd_open_parse(buf, len, &back) == 0 && strcmp(back.policy, HEX64) == 0,
	    "the policy's digest, both ways");
	ab_maskd_open_free(&back);
	m.policy[0] = '\0';
	ok(ab_maskd_open_encode(&m, buf, sizeof(buf), &len) == 0 &&
	    ab_maskd_open_parse(buf, len, &back) == 0 && back.policy[0] == '\0',
	    "no digest sent: none parsed");
	ab_maskd_open_free(&back);

	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		struct ab_walkplan_req q;
		int r = ab_walkplan_req_parse(reqs[i].msg, strlen(reqs[i].msg), &q);

		ok(r == reqs[i].want, "walk plan request, %s: %d", reqs[i].why, r);
		ab_walkplan_req_free(&q);
	}
	{
		struct ab_walkplan_req q = { .uid = 5, .home = "/h",
		    .projects = { proj_v, 2 }, .masks = { pat_v, 2 }, .protects = { pat_v, 1 } };
		struct ab_walkplan_req qb;

		ok(ab_walkplan_req_encode(&q, buf, sizeof(buf), &len) == 0 &&
		    ab_walkplan_req_parse(buf, len, &qb) == 0 && qb.uid == 5 &&
		    strcmp(qb.home, "/h") == 0 && qb.projects.n == 2 && qb.masks.n == 2 &&
		    qb.protects.n == 1 && strcmp(qb.masks.v[1], "secrets/") == 0,
		    "a walk plan request, both ways");
		ab_walkplan_req_free(&qb);
		q.home = "rel";
		ok(ab_walkplan_req_encode(&q, buf, sizeof(buf), &len) == -EINVAL,
		    "a relative home is not encoded");
	}
	for (i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
		struct ab_walkplan_reply p;
		int r = ab_walkplan_reply_parse(replies[i].msg, strlen(replies[i].msg), &p);

		ok(r == replies[i].want, "walk plan reply, %s: %d", replies[i].why, r);
		ab_walkplan_reply_free(&p);
	}
	{
		struct ab_walkplan_reply p;
		const char *msg = "plan 7 9\ndir /z\ndir /a/b\ndir /a\nfull /a/b/c\n";

		ok(ab_walkplan_reply_parse(msg, strlen(msg), &p) == 0 && p.prune == 1 &&
		    p.id == 7 && p.gen == 9 && p.dirs.n == 3 && p.fulls.n == 1 &&
		    strcmp(p.dirs.v[0], "/a") == 0 && strcmp(p.dirs.v[2], "/z") == 0,
		    "a plan's directories come back sorted (the walk looks them up)");
		ab_walkplan_reply_free(&p);
	}
	{
		/* More directories than AB_WALKPLAN_DIRS_MAX: refused whole. */
		static char big[AB_WALKPLAN_REPLY_MAX];
		struct ab_walkplan_reply p;
		size_t off = (size_t)snprintf(big, sizeof(big), "plan 1 1\n");

		for (i = 0; i <= AB_WALKPLAN_DIRS_MAX && off + 16 < sizeof(big); i++)
			off += (size_t)snprintf(big + off, sizeof(big) - off, "dir /d%zu\n", i);
		ok(ab_walkplan_reply_parse(big, off, &p) == -EPROTO,
		    "a plan of more than %d directories is refused", AB_WALKPLAN_DIRS_MAX);
		ab_walkplan_reply_free(&p);
	}
	return done_testing();
}
