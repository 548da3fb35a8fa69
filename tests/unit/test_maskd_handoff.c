/* maskd/handoff.c: the hand-off message from pam_agentbox to agentbox-maskd, both ways;
 * every malformed message is refused whole (a session half understood is a session
 * half enforced). */
#include <errno.h>
#include <string.h>

#include "handoff.h"
#include "tap.h"

#define GOOD "maskd 1\nses 7\nuid 1001\nhome /home/a\nproject /home/a/p\npattern .env\n"

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
	return done_testing();
}
