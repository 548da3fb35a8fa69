/*
 * netd/host.c and netd/hostcheck.c: host names, IP literals, rules, the decision and the
 * public-suffix check, as truth tables of hostile spellings (invariant 7).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "host.h"
#include "tap.h"

/* Host parse: input -> normal form, or NULL for refused. */
static const struct {
	const char *in, *norm;
	enum ab_netd_host_kind kind;
} hosts[] = {
	{ "example.com", "example.com", AB_NETD_HOST_NAME },
	{ "ExAmPlE.CoM", "example.com", AB_NETD_HOST_NAME },
	{ "example.com.", "example.com", AB_NETD_HOST_NAME },
	{ "example.com..", NULL, 0 },
	{ ".example.com", NULL, 0 },
	{ "a..b", NULL, 0 },
	{ ".", NULL, 0 },
	{ "", NULL, 0 },
	{ "localhost", "localhost", AB_NETD_HOST_NAME },
	{ "-a.com", NULL, 0 },
	{ "a-.com", NULL, 0 },
	{ "a-b.com", "a-b.com", AB_NETD_HOST_NAME },
	{ "a_b.com", NULL, 0 },
	{ "xn--bcher-kva.example", "xn--bcher-kva.example", AB_NETD_HOST_NAME },
	{ "b\xc3\xbc" "cher.example", NULL, 0 },	/* UTF-8 IDN: write the A-label */
	{ "*.example.com", NULL, 0 },
	{ "ex ample.com", NULL, 0 },
	{ "allowed.com@evil.com", NULL, 0 },
	{ "evil.com#.allowed.com", NULL, 0 },
	{ "evil.com/.allowed.com", NULL, 0 },
	{ "1.2.3.4", "1.2.3.4", AB_NETD_HOST_IPV4 },
	{ "0.0.0.0", "0.0.0.0", AB_NETD_HOST_IPV4 },
	{ "255.255.255.255", "255.255.255.255", AB_NETD_HOST_IPV4 },
	{ "256.1.1.1", NULL, 0 },
	{ "1.2.3.4.", NULL, 0 },
	{ "1.2.3", NULL, 0 },
	{ "1.2.3.4.5", NULL, 0 },
	/* inet_aton shorthands: every one of them is 127.0.0.1 or near it to libc. */
	{ "127.1", NULL, 0 },
	{ "127.0.1", NULL, 0 },
	{ "0x7f.1", NULL, 0 },
	{ "0x7f.0.0.1", NULL, 0 },
	{ "0x7f000001", NULL, 0 },
	{ "0X7F000001", NULL, 0 },
	{ "0177.0.0.1", NULL, 0 },
	{ "0177.1", NULL, 0 },
	{ "2130706433", NULL, 0 },
	{ "017700000001", NULL, 0 },
	{ "2852039166", NULL, 0 },
	{ "0251.0376.0251.0376", NULL, 0 },
	{ "0xA9FEA9FE", NULL, 0 },
	{ "01.2.3.4", NULL, 0 },
	{ "1.2.3.04", NULL, 0 },
	{ "1.2.3.0x4", NULL, 0 },
	{ "123.example", "123.example", AB_NETD_HOST_NAME },
	{ "example.123", NULL, 0 },
	{ "0xdead.example", "0xdead.example", AB_NETD_HOST_NAME },
	{ "[::1]", "::1", AB_NETD_HOST_IPV6 },
	{ "[2001:DB8::1]", "2001:db8::1", AB_NETD_HOST_IPV6 },
	{ "[2001:db8:0:0:0:0:0:1]", "2001:db8::1", AB_NETD_HOST_IPV6 },
	{ "[fe80::1%eth0]", NULL, 0 },
	{ "[fe80::1%25eth0]", NULL, 0 },
	{ "::1", NULL, 0 },
	{ "[::1", NULL, 0 },
	{ "[]", NULL, 0 },
	{ "[1.2.3.4]", NULL, 0 },
	{ "[::ffff:169.254.169.254]", "169.254.169.254", AB_NETD_HOST_IPV4 },
	{ "[::ffff:a9fe:a9fe]", "169.254.169.254", AB_NETD_HOST_IPV4 },
	{ "[64:ff9b::a9fe:a9fe]", "64:ff9b::a9fe:a9fe", AB_NETD_HOST_IPV6 },
};

static void
test_hosts(void)
{
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		struct ab_netd_host h;
		int r = ab_netd_host_parse(hosts[i].in, strlen(hosts[i].in), &h);

		if (hosts[i].norm == NULL)
			ok(r == -EINVAL, "host refused: \"%s\"", hosts[i].in);
		else
			ok(r == 0 && strcmp(h.text, hosts[i].norm) == 0 &&
			   h.kind == hosts[i].kind, "host \"%s\" -> %s (got %d %s)",
			   hosts[i].in, hosts[i].norm, r, r == 0 ? h.text : "-");
	}
}

/* A name of LEN octets made of labels of at most LABEL octets. */
static void
make_name(char *buf, size_t len, size_t label)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (i + 1) % (label + 1) == 0 ? '.' : 'a';
	if (buf[len - 1] == '.')
		buf[len - 1] = 'b';
	buf[len] = '\0';
}

static void
test_lengths(void)
{
	char buf[300];
	struct ab_netd_host h;

	make_name(buf, 63, 63);
	ok(ab_netd_host_parse(buf, 63, &h) == 0, "a 63-octet label is a name");
	make_name(buf, 64, 64);
	ok(ab_netd_host_parse(buf, 64, &h) == -EINVAL, "a 64-octet label is refused");
	make_name(buf, 253, 63);
	ok(ab_netd_host_parse(buf, 253, &h) == 0 && strlen(h.text) == 253,
	   "a 253-octet name is a name");
	memcpy(buf + 253, ".", 2);
	ok(ab_netd_host_parse(buf, 254, &h) == 0 && strlen(h.text) == 253,
	   "a 253-octet name with its final dot is the same name");
	make_name(buf, 254, 63);
	ok(ab_netd_host_parse(buf, 254, &h) == -EINVAL, "a 254-octet name is refused");
	ok(ab_netd_host_parse("a\0b.com", 7, &h) == -EINVAL, "a NUL inside a name is refused");
}

static const struct {
	const char *in;
	uint16_t def;
	const char *host;
	uint16_t port;	/* 0: refused */
} auths[] = {
	{ "example.com:443", 0, "example.com", 443 },
	{ "example.com", 0, NULL, 0 },
	{ "example.com", 80, "example.com", 80 },
	{ "example.com:0", 80, NULL, 0 },
	{ "example.com:1", 80, "example.com", 1 },
	{ "example.com:65535", 80, "example.com", 65535 },
	{ "example.com:65536", 80, NULL, 0 },
	{ "example.com:99999", 80, NULL, 0 },
	{ "example.com:0443", 80, NULL, 0 },
	{ "example.com:+443", 80, NULL, 0 },
	{ "example.com:", 80, NULL, 0 },
	{ "example.com:443:443", 80, NULL, 0 },
	{ "evil.com:443.allowed.com", 80, NULL, 0 },
	{ "[::1]:443", 0, "::1", 443 },
	{ "[::1]", 80, "::1", 80 },
	{ "[::1]x", 80, NULL, 0 },
	{ "::1:443", 80, NULL, 0 },
	{ "user@example.com:443", 0, NULL, 0 },
	{ "127.1:443", 0, NULL, 0 },
};

static void
test_authorities(void)
{
	for (size_t i = 0; i < sizeof(auths) / sizeof(auths[0]); i++) {
		struct ab_netd_host h;
		uint16_t port = 0;
		int r = ab_netd_authority_parse(auths[i].in, strlen(auths[i].in), auths[i].def,
						&h, &port);

		if (auths[i].host == NULL)
			ok(r == -EINVAL, "authority refused: \"%s\"", auths[i].in);
		else
			ok(r == 0 && strcmp(h.text, auths[i].host) == 0 && port == auths[i].port,
			   "authority \"%s\" -> %s port %u", auths[i].in, auths[i].host,
			   auths[i].port);
	}
}

/* Rule syntax: text -> kind, port; or refused. */
static const struct {
	const char *in;
	int kind;	/* -1: refused */
	uint16_t port;
} rules[] = {
	{ "example.com", AB_NETD_RULE_NAME, 443 },
	{ "Example.COM.:8443", AB_NETD_RULE_NAME, 8443 },
	{ "*.example.com", AB_NETD_RULE_WILDCARD, 443 },
	{ "*.example.com:22", AB_NETD_RULE_WILDCARD, 22 },
	{ "*", -1, 0 },
	{ "*:443", -1, 0 },
	{ "*.", -1, 0 },
	{ "*.*.example.com", -1, 0 },
	{ "a*.example.com", -1, 0 },
	{ "*a.example.com", -1, 0 },
	{ "**.example.com", -1, 0 },
	{ "*.1.2.3.4", -1, 0 },
	{ "*.[::1]", -1, 0 },
	{ "example.com:0", -1, 0 },
	{ "example.com:65535", AB_NETD_RULE_NAME, 65535 },
	{ "example.com:65536", -1, 0 },
	{ "example.com/path", -1, 0 },
	{ "https://example.com", -1, 0 },
	{ "1.2.3.4", AB_NETD_RULE_IPV4, 443 },
	{ "10.0.0.0/8:80", AB_NETD_RULE_IPV4, 80 },
	{ "10.0.0.1/8", -1, 0 },
	{ "10.0.0.0/33", -1, 0 },
	{ "10.0.0.0/08", -1, 0 },
	{ "0.0.0.0/0", AB_NETD_RULE_IPV4, 443 },
	{ "127.1", -1, 0 },
	{ "[2001:db8::]/32", -1, 0 },
	{ "[2001:db8::/32]", AB_NETD_RULE_IPV6, 443 },
	{ "[2001:db8::1/32]", -1, 0 },
	{ "[2001:db8::/129]", -1, 0 },
	{ "[::1]:8080", AB_NETD_RULE_IPV6, 8080 },
	{ "[::ffff:10.0.0.0/104]", AB_NETD_RULE_IPV4, 443 },
	{ "[::ffff:10.0.0.0/64]", -1, 0 },
	{ "[fe80::1%eth0]", -1, 0 },
	{ "", -1, 0 },
};

static void
test_rules(void)
{
	char longtext[AB_NETD_RULE_TEXT_MAX + 2];

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		struct ab_netd_rule r;
		int rc = ab_netd_rule_parse(rules[i].in, false, &r, NULL);

		if (rules[i].kind < 0)
			ok(rc == -EINVAL, "rule refused: \"%s\"", rules[i].in);
		else
			ok(rc == 0 && (int)r.kind == rules[i].kind && r.port == rules[i].port &&
			   strcmp(r.text, rules[i].in) == 0, "rule \"%s\" parses (kind %d port %u)",
			   rules[i].in, rules[i].kind, rules[i].port);
	}
	memset(longtext, 'a', sizeof(longtext) - 1);
	longtext[sizeof(longtext) - 1] = '\0';
	{
		struct ab_netd_rule r;

		ok(ab_netd_rule_parse(longtext, false, &r, NULL) == -EINVAL,
		   "an over-long rule is refused");
	}
}

/* What `agentbox check` will print for a refused rule. */
static const struct {
	const char *in, *why;	/* a word the reason must hold; NULL: accepted */
} whys[] = {
	{ "*", "bare *" },
	{ "*:443", "bare *" },
	{ "*.*.example.com", "first label" },
	{ "a*.example.com", "first label" },
	{ "example.com:65536", "port" },
	{ "example.com:0", "port" },
	{ "example.com:", "port" },
	{ "10.0.0.1/8", "prefix" },
	{ "a_b.com", "host name" },
	{ "127.1", "host name" },
	{ "", "empty" },
	{ "example.com:8443", NULL },
};

static void
test_whys(void)
{
	for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++) {
		struct ab_netd_rule r;
		const char *why = "unset";
		int rc = ab_netd_rule_parse(whys[i].in, false, &r, &why);

		if (whys[i].why == NULL)
			ok(rc == 0 && why == NULL, "\"%s\": no reason", whys[i].in);
		else
			ok(rc == -EINVAL && why != NULL && strstr(why, whys[i].why) != NULL,
			   "\"%s\" refused: %s", whys[i].in, why != NULL ? why : "(none)");
	}
}

/* The decision: "+" allow rules, "-" deny rules, then host:port -> verdict. */
static const char *const policy[] = {
	"+example.com", "+*.github.com", "+api.example.org:8443", "-evil.github.com",
	"+10.0.0.0/8", "-10.9.0.0/16", "+[2001:db8::/32]:443", "+169.254.169.254:80",
	"-*.internal.github.com",
};

static const struct {
	const char *auth;
	bool allow;
	long rule;	/* index, -1 for the default */
} decisions[] = {
	{ "example.com:443", true, 0 },
	{ "EXAMPLE.com.:443", true, 0 },
	{ "example.com:80", false, -1 },
	{ "www.example.com:443", false, -1 },
	{ "github.com:443", false, -1 },	/* *.x is subdomains only */
	{ "api.github.com:443", true, 1 },
	{ "a.b.github.com:443", true, 1 },
	{ "evil.github.com:443", false, 3 },	/* deny wins, whatever the order */
	{ "x.internal.github.com:443", false, 8 },
	{ "internal.github.com:443", true, 1 },
	{ "github.com.evil.com:443", false, -1 },
	{ "xgithub.com:443", false, -1 },
	{ "api.example.org:8443", true, 2 },
	{ "api.example.org:443", false, -1 },
	{ "10.1.2.3:443", true, 4 },
	{ "10.9.2.3:443", false, 5 },
	{ "11.0.0.1:443", false, -1 },
	{ "[2001:db8::5]:443", true, 6 },
	{ "[2001:db9::5]:443", false, -1 },
	{ "169.254.169.254:80", true, 7 },
	{ "[::ffff:169.254.169.254]:80", true, 7 },
	{ "[::ffff:10.9.0.1]:443", false, 5 },
	{ "[::ffff:11.0.0.1]:443", false, -1 },
};

static void
test_decide(void)
{
	struct ab_netd_rule set[sizeof(policy) / sizeof(policy[0])];
	size_t n = sizeof(set) / sizeof(set[0]);
	bool parsed = true;

	for (size_t i = 0; i < n; i++)
		parsed = parsed && ab_netd_rule_parse(policy[i] + 1, policy[i][0] == '-', &set[i],
						      NULL) == 0;
	ok(parsed, "the decision table's rules parse");
	for (size_t i = 0; i < sizeof(decisions) / sizeof(decisions[0]); i++) {
		struct ab_netd_host h;
		struct ab_netd_verdict v;
		uint16_t port;
		int r = ab_netd_authority_parse(decisions[i].auth, strlen(decisions[i].auth), 0,
						&h, &port);

		if (r == 0)
			r = ab_netd_decide(set, n, &h, port, &v);
		ok(r == 0 && v.allow == decisions[i].allow &&
		   (decisions[i].rule < 0 ? v.index == SIZE_MAX && v.rule == NULL :
		    v.index == (size_t)decisions[i].rule &&
		    strcmp(v.rule, policy[decisions[i].rule] + 1) == 0),
		   "%s is %s by %s", decisions[i].auth, decisions[i].allow ? "allowed" : "denied",
		   decisions[i].rule < 0 ? "default" : policy[decisions[i].rule]);
	}
	{
		struct ab_netd_host h;
		struct ab_netd_verdict v;

		ab_netd_host_parse("example.com", 11, &h);
		ok(ab_netd_decide(NULL, 0, &h, 443, &v) == 0 && !v.allow && v.rule == NULL,
		   "no rules: denied by default");
	}
}

/* hostcheck.c: wildcards on public suffixes, both sections of the list. */
static const struct {
	const char *rule;
	bool ok;
} checks[] = {
	{ "*.com", false },
	{ "*.co.uk", false },
	{ "*.uk", false },
	{ "*.github.io", false },	/* private section: every user's pages */
	{ "*.s3.amazonaws.com", false },
	{ "*.example.com", true },
	{ "*.example.co.uk", true },
	{ "*.someone.github.io", true },
	{ "*.com:8443", false },
	{ "*.corp", false },		/* unlisted TLD: the implicit "*" rule */
	{ "*.zone.corp", true },
	{ "com", true },		/* not a wildcard: names one host */
	{ "1.2.3.4", true },
	{ "[::1]", true },
};

static void
test_check(void)
{
	struct ab_netd_suffixes *s = NULL;
	int r = ab_netd_suffixes_open(&s);

	ok(r == 0, "the public suffix list loads (%d)", r);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		struct ab_netd_rule rule;

		r = ab_netd_rule_parse(checks[i].rule, false, &rule, NULL);
		if (r == 0)
			r = ab_netd_rule_check(s, &rule);
		ok(checks[i].ok ? r == 0 : r == -EINVAL, "check %s \"%s\" (%d)",
		   checks[i].ok ? "accepts" : "refuses", checks[i].rule, r);
	}
	{
		struct ab_netd_rule rule;

		ab_netd_rule_parse("*.example.com", false, &rule, NULL);
		ok(ab_netd_rule_check(NULL, &rule) == -ENOENT,
		   "no suffix list: a wildcard is refused (fail closed)");
	}
	ab_netd_suffixes_free(s);
}

int
main(void)
{
	test_hosts();
	test_lengths();
	test_authorities();
	test_rules();
	test_whys();
	test_decide();
	test_check();
	return done_testing();
}
