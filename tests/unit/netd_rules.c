/*
 * netd/rules.c: a session's rules from the policy's lists, and the daemon's decisions
 * on them as tables: the name (deny wins, default deny, ports), the DNS name (host.c's
 * spelling, any allowed port), each address (the reason each refusal is recorded with).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy.h"
#include "rules.h"
#include "tap.h"

static struct ab_strv
strv(const char *const *items)
{
	struct ab_strv sv = { 0 };

	while (*items != NULL)
		ab_strv_push(&sv, *items++);
	return sv;
}

static const char *const allow_list[] = { "api.example.com", "*.cdn.example.com",
	"plain.example.com:80", "10.1.2.0/24:443", "both.example.com:8080", "both.example.com",
	NULL };
static const char *const deny[] = { "evil.cdn.example.com", "both.example.com:443", NULL };
static const char *const priv[] = { "10.1.2.0/24", "127.0.0.1/32", NULL };

static const struct {
	const char *host;
	uint16_t port;
	bool allow;
	enum ab_netd_reason reason;
	const char *rule;
} names[] = {
	{ "api.example.com", 443, true, AB_NETD_R_NONE, "api.example.com" },
	{ "API.Example.COM.", 443, true, AB_NETD_R_NONE, "api.example.com" },
	{ "api.example.com", 80, false, AB_NETD_R_NO_RULE, NULL },
	{ "x.api.example.com", 443, false, AB_NETD_R_NO_RULE, NULL },
	{ "a.cdn.example.com", 443, true, AB_NETD_R_NONE, "*.cdn.example.com" },
	{ "cdn.example.com", 443, false, AB_NETD_R_NO_RULE, NULL },
	{ "evil.cdn.example.com", 443, false, AB_NETD_R_DENY_RULE, "evil.cdn.example.com" },
	{ "plain.example.com", 80, true, AB_NETD_R_NONE, "plain.example.com:80" },
	{ "plain.example.com", 443, false, AB_NETD_R_NO_RULE, NULL },
	{ "10.1.2.3", 443, true, AB_NETD_R_NONE, "10.1.2.0/24:443" },
	{ "10.1.3.3", 443, false, AB_NETD_R_NO_RULE, NULL },
	{ "both.example.com", 443, false, AB_NETD_R_DENY_RULE, "both.example.com:443" },
	{ "both.example.com", 8080, true, AB_NETD_R_NONE, "both.example.com:8080" },
	{ "other.test", 443, false, AB_NETD_R_NO_RULE, NULL },
};

static const struct {
	const char *name;
	bool allow;
} dns_names[] = {
	{ "api.example.com", true }, { "a.cdn.example.com", true },
	{ "evil.cdn.example.com", false },	/* denied on every port */
	{ "plain.example.com", true },		/* allowed on port 80 only: still resolvable */
	{ "both.example.com", true },		/* denied on 443, allowed on 8080 */
	{ "other.test", false }, { "_dmarc.example.com", false },	/* host.c refuses '_' */
	{ "", false }, { "10.1.2.3", false },
};

static const struct {
	const char *addr;
	bool ok;
	enum ab_netd_reason reason;
} addrs[] = {
	{ "93.184.216.34", true, AB_NETD_R_NONE },
	{ "10.1.2.7", true, AB_NETD_R_NONE },		/* allow_private 10.1.2.0/24 */
	{ "10.9.9.9", false, AB_NETD_R_PRIVATE },
	{ "192.168.1.1", false, AB_NETD_R_PRIVATE },
	{ "127.0.0.1", true, AB_NETD_R_NONE },		/* named exactly: /32 */
	{ "127.0.0.2", false, AB_NETD_R_LOOPBACK },
	{ "::1", false, AB_NETD_R_LOOPBACK },
	{ "169.254.169.254", false, AB_NETD_R_METADATA },
	{ "203.0.113.9", false, AB_NETD_R_PRIVATE },	/* documentation: not dialable */
	{ "198.51.100.77", false, AB_NETD_R_HOST_ADDRESS },	/* "our own" in the test */
	{ "::ffff:169.254.169.254", false, AB_NETD_R_METADATA },
};

static struct sockaddr_storage
sa(const char *s)
{
	struct sockaddr_storage ss = { 0 };

	if (strchr(s, ':') != NULL) {
		ss.ss_family = AF_INET6;
		inet_pton(AF_INET6, s, &((struct sockaddr_in6 *)&ss)->sin6_addr);
	} else {
		ss.ss_family = AF_INET;
		inet_pton(AF_INET, s, &((struct sockaddr_in *)&ss)->sin_addr);
	}
	return ss;
}

static void
test_decisions(const struct ab_netd_rules *r)
{
	struct ab_netd_cidr host;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct ab_netd_host h;
		enum ab_netd_reason why = AB_NETD_R_LIMIT;
		const char *rule = "unset";
		bool allow;

		if (ab_netd_host_parse(names[i].host, strlen(names[i].host), &h) != 0) {
			ok(0, "name %s parses", names[i].host);
			continue;
		}
		allow = ab_netd_decide_name(r, &h, names[i].port, &why, &rule);
		ok(allow == names[i].allow && why == names[i].reason &&
		   (names[i].rule == NULL ? rule == NULL : rule && !strcmp(rule, names[i].rule)),
		   "%s:%u -> %s %s (%s)", names[i].host, names[i].port,
		   allow ? "allowed" : "denied", ab_netd_reason_name(why), rule ? rule : "-");
	}
	for (i = 0; i < sizeof(dns_names) / sizeof(dns_names[0]); i++) {
		enum ab_netd_reason why;
		const char *rule;

		ok(ab_netd_decide_dns_name(r, dns_names[i].name, &why, &rule) ==
		   dns_names[i].allow, "dns %s -> %s", dns_names[i].name,
		   dns_names[i].allow ? "allowed" : "refused");
	}
	ab_netd_cidr_parse("198.51.100.77/32", &host);
	for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		struct sockaddr_storage ss = sa(addrs[i].addr);
		enum ab_netd_reason why = AB_NETD_R_LIMIT;

		ok(ab_netd_decide_addr(r, &host, 1, &ss, &why) == addrs[i].ok &&
		   why == addrs[i].reason, "address %s -> %s", addrs[i].addr,
		   ab_netd_reason_name(why));
	}
}

/*
 * The same rules in a learning session: only what no rule decided changes (allowed,
 * reason learn, no rule); deny rules still refuse, and refuse their host on every port.
 */
static const struct {
	const char *host;
	uint16_t port;
	bool allow;
	enum ab_netd_reason reason;
	const char *rule;
} learn_names[] = {
	{ "api.example.com", 443, true, AB_NETD_R_NONE, "api.example.com" },
	{ "api.example.com", 80, true, AB_NETD_R_LEARN, NULL },
	{ "other.test", 443, true, AB_NETD_R_LEARN, NULL },
	{ "x.api.example.com", 8443, true, AB_NETD_R_LEARN, NULL },
	{ "10.1.3.3", 443, true, AB_NETD_R_LEARN, NULL },	/* the address check follows */
	{ "evil.cdn.example.com", 443, false, AB_NETD_R_DENY_RULE, "evil.cdn.example.com" },
	{ "evil.cdn.example.com", 80, false, AB_NETD_R_DENY_RULE, "evil.cdn.example.com" },
	{ "both.example.com", 443, false, AB_NETD_R_DENY_RULE, "both.example.com:443" },
	{ "both.example.com", 8080, true, AB_NETD_R_NONE, "both.example.com:8080" },
	{ "both.example.com", 22, false, AB_NETD_R_DENY_RULE, "both.example.com:443" },
};

static const struct {
	const char *name;
	bool allow;
	enum ab_netd_reason reason;
} learn_dns[] = {
	{ "api.example.com", true, AB_NETD_R_NONE },
	{ "other.test", true, AB_NETD_R_LEARN },
	{ "evil.cdn.example.com", false, AB_NETD_R_DENY_RULE },
	{ "both.example.com", true, AB_NETD_R_NONE },	/* allowed on 8080 by its rule */
	{ "_dmarc.example.com", false, AB_NETD_R_NO_RULE },	/* host.c refuses '_' */
	{ "10.1.2.3", false, AB_NETD_R_NO_RULE },
};

static void
test_learn(struct ab_netd_rules *r)
{
	struct ab_netd_cidr host;
	size_t i;

	r->learn = true;
	for (i = 0; i < sizeof(learn_names) / sizeof(learn_names[0]); i++) {
		struct ab_netd_host h;
		enum ab_netd_reason why = AB_NETD_R_LIMIT;
		const char *rule = "unset";
		bool allow;

		if (ab_netd_host_parse(learn_names[i].host, strlen(learn_names[i].host), &h) != 0) {
			ok(0, "name %s parses", learn_names[i].host);
			continue;
		}
		allow = ab_netd_decide_name(r, &h, learn_names[i].port, &why, &rule);
		ok(allow == learn_names[i].allow && why == learn_names[i].reason &&
		   (learn_names[i].rule == NULL ? rule == NULL
						: rule && !strcmp(rule, learn_names[i].rule)),
		   "learning: %s:%u -> %s %s (%s)", learn_names[i].host, learn_names[i].port,
		   allow ? "allowed" : "denied", ab_netd_reason_name(why), rule ? rule : "-");
	}
	for (i = 0; i < sizeof(learn_dns) / sizeof(learn_dns[0]); i++) {
		enum ab_netd_reason why = AB_NETD_R_LIMIT;
		const char *rule;
		bool allow = ab_netd_decide_dns_name(r, learn_dns[i].name, &why, &rule);

		ok(allow == learn_dns[i].allow && why == learn_dns[i].reason,
		   "learning: dns %s -> %s %s", learn_dns[i].name, allow ? "allowed" : "refused",
		   ab_netd_reason_name(why));
	}
	/* Learning decides names only: every address refusal stays. */
	ab_netd_cidr_parse("198.51.100.77/32", &host);
	for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		struct sockaddr_storage ss = sa(addrs[i].addr);
		enum ab_netd_reason why = AB_NETD_R_LIMIT;

		ok(ab_netd_decide_addr(r, &host, 1, &ss, &why) == addrs[i].ok &&
		   why == addrs[i].reason, "learning: address %s -> %s", addrs[i].addr,
		   ab_netd_reason_name(why));
	}
	ok(strcmp(ab_netd_reason_name(AB_NETD_R_LEARN), "learn") == 0,
	   "the reason's record word is learn");
	r->learn = false;
}

static void
test_build(const struct ab_netd_suffixes *psl)
{
	static const char *const bad_allow[] = { "*.com", NULL };
	static const char *const bad_syntax[] = { "127.1", NULL };
	static const char *const bad_cidr[] = { "10.1/8", NULL };
	struct ab_strv a = strv(bad_allow), s = strv(bad_syntax), c = strv(bad_cidr);
	struct ab_netd_rules r;

	ok(ab_netd_rules_build(&a, NULL, NULL, psl, &r) == -EINVAL,
	   "an allow wildcard on a public suffix is refused");
	ok(ab_netd_rules_build(NULL, &a, NULL, psl, &r) == 0, "... but a deny one only refuses");
	ab_netd_rules_free(&r);
	ok(ab_netd_rules_build(&s, NULL, NULL, psl, &r) == -EINVAL, "inet_aton shorthand refused");
	ok(ab_netd_rules_build(NULL, NULL, &c, psl, &r) == -EINVAL, "CIDR shorthand refused");
	bool learn = true;

	ok(ab_netd_rules_lists(NULL, &a, &s, &c, &learn) == -EPERM && a.n == 1 && s.n == 1 &&
	   c.n == 1, "no policy: refused, nothing added");
	{
		static const char *const al[] = { "*.example.com", "api.example.net:8443", NULL };
		static const char *const de[] = { "bad.example.com", NULL };
		static const char *const pr[] = { "10.200.0.0/16", NULL };
		struct ab_policy pol = { .network = AB_NET_TCP };
		struct ab_strv a2 = { 0 }, d2 = { 0 }, p2 = { 0 };

		pol.allow_host = strv(al);
		pol.deny_host = strv(de);
		pol.allow_private = strv(pr);
		ok(ab_netd_rules_lists(&pol, &a2, &d2, &p2, &learn) == -EPERM && a2.n == 0,
		   "a policy whose network is not proxy is no session of ours");
		pol.network = AB_NET_PROXY;
		ok(ab_netd_rules_lists(&pol, &a2, &d2, &p2, &learn) == 0 && a2.n == 2 && d2.n == 1 &&
		   p2.n == 1 && strcmp(a2.v[1], "api.example.net:8443") == 0 &&
		   strcmp(d2.v[0], "bad.example.com") == 0 && strcmp(p2.v[0], "10.200.0.0/16") == 0,
		   "a proxy policy's allow_host, deny_host and allow_private, in order");
		ok(!learn, "... and its learn: no by default");
		ab_strv_free(&a2);
		ab_strv_free(&d2);
		ab_strv_free(&p2);
		a2 = d2 = p2 = (struct ab_strv){ 0 };
		pol.learn = AB_YES;
		ok(ab_netd_rules_lists(&pol, &a2, &d2, &p2, &learn) == 0 && learn,
		   "learn = yes reaches the daemon's rules");
		ab_strv_free(&pol.allow_host);
		ab_strv_free(&pol.deny_host);
		ab_strv_free(&pol.allow_private);
		ab_strv_free(&a2);
		ab_strv_free(&d2);
		ab_strv_free(&p2);
	}
	ab_strv_free(&a);
	ab_strv_free(&s);
	ab_strv_free(&c);
}

static void
test_file(const struct ab_netd_suffixes *psl)
{
	char path[] = "/tmp/netd_rules.XXXXXX";
	struct ab_netd_rules r;
	FILE *f;
	int fd = mkstemp(path);

	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		ok(0, "temp file");
		return;
	}
	fprintf(f, "# test rules\nallow_host = a.test b.test:80\n\ndeny_host = c.test\n"
		"allow_private = 10.0.0.0/8\n");
	fclose(f);
	ok(ab_netd_rules_load_file(path, psl, &r) == 0 && r.nrule == 3 && r.npriv == 1 &&
	   r.rule[0].deny && !r.learn,
	   "a rules file: deny first, then allows, and allow_private; no learn");
	ab_netd_rules_free(&r);
	f = fopen(path, "w");
	fprintf(f, "allow_host = a.test\nlearn = yes\n");
	fclose(f);
	ok(ab_netd_rules_load_file(path, psl, &r) == 0 && r.nrule == 1 && r.learn,
	   "a rules file's learn = yes");
	ab_netd_rules_free(&r);
	f = fopen(path, "w");
	fprintf(f, "learn = maybe\n");
	fclose(f);
	ok(ab_netd_rules_load_file(path, psl, &r) == -EINVAL, "learn = maybe is refused");
	f = fopen(path, "w");
	fprintf(f, "allow_hosts = a.test\n");
	fclose(f);
	ok(ab_netd_rules_load_file(path, psl, &r) == -EINVAL, "an unknown key is refused");
	unlink(path);
}

int
main(void)
{
	struct ab_strv a = strv(allow_list), d = strv(deny), p = strv(priv);
	struct ab_netd_suffixes *psl = NULL;
	struct ab_netd_rules r;

	ok(ab_netd_suffixes_open(&psl) == 0, "public suffix list");
	ok(ab_netd_rules_build(&a, &d, &p, psl, &r) == 0, "build the table's rules");
	test_decisions(&r);
	test_learn(&r);
	test_decisions(&r);	/* and back: nothing of it stays */
	test_build(psl);
	test_file(psl);
	ab_netd_rules_free(&r);
	ab_netd_suffixes_free(psl);
	ab_strv_free(&a);
	ab_strv_free(&d);
	ab_strv_free(&p);
	return done_testing();
}
