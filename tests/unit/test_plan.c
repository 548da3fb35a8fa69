/*
 * The session plan: round trip with hostile strings, and a strict parser (every
 * malformed variant, every truncation is refused).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "../tap.h"

static char *strv_a[] = { "/srv/pro ject", "/srv/p\nq", NULL };
static char *strv_r[] = { "/usr", "/weird\\path\twith\ttabs", "/\xff\xfe/non-utf8", NULL };
static char *strv_w[] = { NULL };
static char *strv_m[] = { ".env", "a\\ b", "\\#x", "**/.git/config", "[[:digit:]]*", NULL };
static char *strv_p[] = { ".git/hooks/", NULL };
static char *strv_e[] = { "TERM", "LANG", NULL };
static uint16_t ports[] = { 22, 443, 65535 };

static struct ab_policy pol = {
	.user = "agent-1",
	.project = { strv_a, 2 },
	.read = { strv_r, 3 },
	.write = { strv_w, 0 },
	.mask = { strv_m, 5 },
	.protect = { strv_p, 1 },
	.network = AB_NET_TCP,
	.ports = ports,
	.nports = 3,
	.shell = "/bin/ba sh",
	.env_keep = { strv_e, 2 },
	.landlock_min_abi = 7,
	.audit = AB_AUDIT_BEST_EFFORT,
	.digest = { 0xde, 0xad, 0xbe, 0xef, [31] = 0x01 },
};

static struct ab_plan plan = {
	.policy = &pol,
	.uid = 4294967294u,
	.gid = 0,
	.home = "/home/agent\nuser evil",
	.service = "su\r\n\x1b[31m",
	.tty = "",
	.rhost = "\x7f\x80\xc3\xa9 \\x00",
	.audit_session = 4294967295u,
	.ns_mnt = 18446744073709551615ull,
	.ns_pid = 1, .ns_net = 2, .ns_ipc = 3, .ns_uts = 4,
	.started = 1764500000,
	.masks = 10, .protects = 3,
};

static int
strv_eq(const struct ab_strv *a, const struct ab_strv *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return 0;
	return 1;
}

static int
plan_eq(const struct ab_plan *a, const struct ab_plan *b)
{
	const struct ab_policy *p = a->policy, *q = b->policy;

	return strcmp(p->user, q->user) == 0 && strv_eq(&p->project, &q->project) &&
	    strv_eq(&p->read, &q->read) && strv_eq(&p->write, &q->write) &&
	    strv_eq(&p->mask, &q->mask) && strv_eq(&p->protect, &q->protect) &&
	    p->network == q->network && p->nports == q->nports &&
	    (p->nports == 0 || memcmp(p->ports, q->ports, p->nports * sizeof(*p->ports)) == 0) &&
	    strcmp(p->shell, q->shell) == 0 && strv_eq(&p->env_keep, &q->env_keep) &&
	    p->landlock_min_abi == q->landlock_min_abi && p->audit == q->audit &&
	    memcmp(p->digest, q->digest, AB_DIGEST_LEN) == 0 &&
	    a->uid == b->uid && a->gid == b->gid && strcmp(a->home, b->home) == 0 &&
	    strcmp(a->service, b->service) == 0 && strcmp(a->tty, b->tty) == 0 &&
	    strcmp(a->rhost, b->rhost) == 0 && a->audit_session == b->audit_session &&
	    a->ns_mnt == b->ns_mnt && a->ns_pid == b->ns_pid && a->ns_net == b->ns_net &&
	    a->ns_ipc == b->ns_ipc && a->ns_uts == b->ns_uts && a->started == b->started &&
	    a->masks == b->masks && a->protects == b->protects;
}

/* Parse BUF with line OLD replaced by NEW (NEW NULL: line removed); expect -EINVAL. */
static void
refuse_edit(const char *buf, const char *old, const char *new, const char *what)
{
	char *copy, *at;
	struct ab_plan *out = (struct ab_plan *)1;
	int r;

	at = strstr(buf, old);
	if (at == NULL) {
		ok(0, "%s: '%s' not found in the plan", what, old);
		return;
	}
	if (asprintf(&copy, "%.*s%s%s", (int)(at - buf), buf, new ? new : "",
	    at + strlen(old)) < 0)
		abort();
	r = ab_plan_parse(copy, strlen(copy), &out);
	ok(r == -EINVAL && out == NULL, "refused: %s (r=%d)", what, r);
	if (r == 0)
		ab_plan_free(out);
	free(copy);
}

/* Every proper prefix of BUF is refused: nothing cut short is ever read as a plan. */
static void
truncations_refused(const char *buf, size_t len, const char *what)
{
	struct ab_plan *again = NULL;
	int all_refused = 1, first_bad = -1;
	size_t i;
	int r;

	for (i = 0; i < len; i++) {
		r = ab_plan_parse(buf, i, &again);
		if (r != -EINVAL || again != NULL) {
			all_refused = 0;
			if (first_bad < 0)
				first_bad = (int)i;
			ab_plan_free(again);
			again = NULL;
		}
	}
	ok(all_refused, "%s: all %zu truncations refused (first accepted: %d)", what, len,
	    first_bad);
}

/* network = proxy: host rules with their sources, CIDRs, credentials. */
static char *allow[] = { "api.example.com", "*.example.org:8443", "10.0.0.0/8",
	"[2001:db8::/32]", NULL };
static char *allow_src[] = { "/etc/agentbox/agentbox.conf:12", "/etc/a b.conf:3",
	"x:1", "x:2", NULL };
static char *deny[] = { "bad.example.com", NULL };
static char *deny_src[] = { "/etc/agentbox/policy.d/u.conf:4", NULL };
static char *priv[] = { "10.0.0.0/8", "fd00::/8", "127.0.0.1/32", NULL };
static char *cred_names[] = { "anthropic", "openai", NULL };
static struct ab_cred creds[] = {
	{ "anthropic", "api.anthropic.com", "x-api-key", NULL, "/etc/agentbox/s/a",
	  "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", NULL },
	{ "openai", "api.openai.com", "Authorization", "Bearer ", "/etc/agentbox/s/o",
	  "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1" },
};

static int
str_eq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static int
proxy_eq(const struct ab_policy *p, const struct ab_policy *q)
{
	size_t i;

	if (!(p->network == q->network && strv_eq(&p->allow_host, &q->allow_host) &&
	    strv_eq(&p->allow_host_src, &q->allow_host_src) &&
	    strv_eq(&p->deny_host, &q->deny_host) &&
	    strv_eq(&p->deny_host_src, &q->deny_host_src) &&
	    strv_eq(&p->allow_private, &q->allow_private) &&
	    strv_eq(&p->credential, &q->credential) && p->ncreds == q->ncreds))
		return 0;
	for (i = 0; i < p->ncreds; i++) {
		const struct ab_cred *a = &p->creds[i], *b = &q->creds[i];

		if (!str_eq(a->name, b->name) || !str_eq(a->host, b->host) ||
		    !str_eq(a->header, b->header) || !str_eq(a->prefix, b->prefix) ||
		    !str_eq(a->file, b->file) || !str_eq(a->env, b->env) ||
		    !str_eq(a->base_url_env, b->base_url_env) ||
		    !str_eq(a->base_path, b->base_path))
			return 0;
	}
	return 1;
}

static void
test_proxy(void)
{
	struct ab_policy pp = pol;
	struct ab_plan pl = plan;
	struct ab_plan *back = NULL;
	char *buf = NULL, *buf2 = NULL;
	size_t len = 0, len2 = 0;
	int r;

	pp.network = AB_NET_PROXY;
	pp.ports = NULL;
	pp.nports = 0;
	pp.allow_host = (struct ab_strv){ allow, 4 };
	pp.allow_host_src = (struct ab_strv){ allow_src, 4 };
	pp.deny_host = (struct ab_strv){ deny, 1 };
	pp.deny_host_src = (struct ab_strv){ deny_src, 1 };
	pp.allow_private = (struct ab_strv){ priv, 3 };
	pp.credential = (struct ab_strv){ cred_names, 2 };
	pp.creds = creds;
	pp.ncreds = 2;
	pl.policy = &pp;
	r = ab_plan_serialize(&pl, &buf, &len);
	ok(r == 0, "proxy: serialize (r=%d)", r);
	if (r != 0)
		return;
	r = ab_plan_parse(buf, len, &back);
	ok(r == 0 && back != NULL, "proxy: parse back (r=%d)", r);
	ok(back != NULL && plan_eq(&pl, back) && proxy_eq(&pp, back->policy),
	    "proxy: round trip keeps rules, sources, CIDRs and credentials");
	if (back != NULL) {
		r = ab_plan_serialize(back, &buf2, &len2);
		ok(r == 0 && len2 == len && memcmp(buf, buf2, len) == 0,
		    "proxy: serialising again gives the same bytes");
		free(buf2);
	}
	ab_plan_free(back);
	ok(strstr(buf, "\nallow_host api.example.com\nallow_host_src "
	    "/etc/agentbox/agentbox.conf:12\n") != NULL, "proxy: each rule, then its source");
	ok(strstr(buf, "\ncred openai\nhost api.openai.com\nheader Authorization\n"
	    "prefix Bearer\\x20\n") != NULL, "proxy: a credential block, its prefix's blank kept");
	truncations_refused(buf, len, "proxy");

	refuse_edit(buf, "network proxy\n", "network none\n", "proxy keys without proxy");
	refuse_edit(buf, "allow_host_src x:1\n", "", "rule without its source");
	refuse_edit(buf, "allow_host_src x:1\n", "allow_host_src x:1\nallow_host_src x:9\n",
	    "source without a rule");
	refuse_edit(buf, "allow_host 10.0.0.0/8\n", "allow_host @set\n", "unexpanded @NAME");
	refuse_edit(buf, "allow_private fd00::/8\n", "allow_private fd00::\n",
	    "CIDR without a length");
	refuse_edit(buf, "allow_private fd00::/8\n", "allow_private example.com/8\n",
	    "CIDR of a name");
	refuse_edit(buf, "credential openai\n", "credential b@d\n", "bad credential name");
	refuse_edit(buf, "cred openai\n", "cred other\n", "credential block of another name");
	refuse_edit(buf, "header x-api-key\n", "", "credential without its header");
	refuse_edit(buf, "header x-api-key\n", "header x:y\n", "bad header name");
	refuse_edit(buf, "env OPENAI_API_KEY\n", "env 1X\n", "bad variable name");
	refuse_edit(buf, "base_path /v1\n", "base_path v1\n", "relative base path");
	refuse_edit(buf, "file /etc/agentbox/s/o\n", "file s/o\n", "relative secret file");
	refuse_edit(buf, "host api.openai.com\n", "host api.openai.com/x\n", "bad cred host");
	refuse_edit(buf, "credential openai\n", "", "credential block without its name");
	refuse_edit(buf, "end\n", "cred x\nend\n", "credential block beyond the list");
	free(buf);
}

int
main(void)
{
	char *buf = NULL, *buf2 = NULL;
	size_t len = 0, len2 = 0;
	struct ab_plan *back = NULL, *again = NULL;
	int r;

	r = ab_plan_serialize(&plan, &buf, &len);
	ok(r == 0 && buf != NULL && strlen(buf) == len, "serialize (%zu bytes)", len);
	if (r != 0)
		return done_testing();
	ok(memchr(buf, '\t', len) == NULL && memchr(buf, '\r', len) == NULL &&
	    memchr(buf, 0x1b, len) == NULL, "no raw tab, CR or ESC in the text");
	ok(strstr(buf, "\nhome /home/agent\\x0auser\\x20evil\n") != NULL,
	    "a newline in a value cannot start a line");
	ok(strstr(buf, "\nuser evil") == NULL, "no forged 'user' line");
	r = ab_plan_parse(buf, len, &back);
	ok(r == 0 && back != NULL, "parse back (r=%d)", r);
	ok(back != NULL && plan_eq(&plan, back), "round trip keeps every field");
	if (back != NULL) {
		r = ab_plan_serialize(back, &buf2, &len2);
		ok(r == 0 && len2 == len && memcmp(buf, buf2, len) == 0,
		    "serialising again gives the same bytes");
		free(buf2);
	}

	truncations_refused(buf, len, "tcp");

	refuse_edit(buf, "agentbox-plan 1\n", "agentbox-plan 2\n", "version 2");
	refuse_edit(buf, "agentbox-plan 1\n", "", "no header");
	refuse_edit(buf, "shell /bin/ba\\x20sh\n", NULL, "missing shell");
	refuse_edit(buf, "shell ", "shell2 ", "unknown key");
	refuse_edit(buf, "started ", "started 1\nstarted ", "repeated scalar");
	refuse_edit(buf, "end\n", "end\nx\n", "garbage after end");
	refuse_edit(buf, "end\n", "end", "no final newline");
	refuse_edit(buf, "end\n", "", "no end");
	refuse_edit(buf, "tty \n", "tty \\x00\n", "escaped NUL");
	refuse_edit(buf, "tty \n", "tty \\x0A\n", "uppercase hex escape");
	refuse_edit(buf, "tty \n", "tty \\x41\n", "escaped printable byte");
	refuse_edit(buf, "tty \n", "tty \\q\n", "unknown escape");
	refuse_edit(buf, "tty \n", "tty \\x4\n", "short hex escape");
	refuse_edit(buf, "tty \n", "tty \\\n", "lone backslash");
	refuse_edit(buf, "tty \n", "tty a b\n", "raw space in a value");
	refuse_edit(buf, "tty \n", "tty\n", "no space after key");
	refuse_edit(buf, "tty \n", "tty \xc3\xa9\n", "raw non-ASCII byte");
	refuse_edit(buf, "gid 0\n", "gid 00\n", "leading zero");
	refuse_edit(buf, "gid 0\n", "gid -0\n", "sign");
	refuse_edit(buf, "gid 0\n", "gid \n", "empty number");
	refuse_edit(buf, "gid 0\n", "gid 4294967295\n", "gid (gid_t)-1");
	refuse_edit(buf, "gid 0\n", "gid 4294967296\n", "gid overflow");
	refuse_edit(buf, "ns_pid 1\n", "ns_pid 18446744073709551616\n", "u64 overflow");
	refuse_edit(buf, "port 22\nport 443\n", "port 443\nport 22\n", "ports unsorted");
	refuse_edit(buf, "port 22\n", "port 443\n", "duplicate port");
	refuse_edit(buf, "port 22\n", "port 0\n", "port 0");
	refuse_edit(buf, "port 22\n", "port 65536\n", "port 65536");
	refuse_edit(buf, "network tcp\n", "network none\n", "ports without tcp");
	refuse_edit(buf, "port 22\nport 443\nport 65535\n", "", "tcp without ports");
	refuse_edit(buf, "network tcp\n", "network wifi\n", "unknown network");
	refuse_edit(buf, "landlock_min_abi 7\n", "landlock_min_abi 0\n", "abi 0");
	refuse_edit(buf, "landlock_min_abi 7\n", "landlock_min_abi 8\n", "abi 8");
	refuse_edit(buf, "audit best-effort\n", "audit maybe\n", "unknown audit");
	refuse_edit(buf, "read /usr\n", "read usr\n", "relative read path");
	refuse_edit(buf, "shell /bin", "shell bin", "relative shell");
	refuse_edit(buf, "home /home", "home home", "relative home");
	refuse_edit(buf, "mask .env\n", "mask !x\n", "invalid mask pattern");
	refuse_edit(buf, "env_keep TERM\n", "env_keep 1TERM\n", "invalid env name");
	refuse_edit(buf, "user agent-1\n", "user a/b\n", "invalid user name");
	refuse_edit(buf, "digest de", "digest DE", "uppercase digest");
	refuse_edit(buf, "digest de", "digest d", "short digest");
	refuse_edit(buf, "project /srv/pro\\x20ject\nproject /srv/p\\x0aq\n", "", "no project");
	refuse_edit(buf, "mask .env\n", "mask .env\nread /x\n", "list key out of order");

	/* A NUL inside the buffer, before the end. */
	{
		char *copy = malloc(len);
		struct ab_plan *o = NULL;

		memcpy(copy, buf, len);
		copy[20] = '\0';
		ok(ab_plan_parse(copy, len, &o) == -EINVAL && o == NULL, "refused: NUL byte inside");
		free(copy);
	}
	ok(ab_plan_parse("", 0, &again) == -EINVAL, "refused: empty buffer");
	ok(ab_plan_parse(NULL, 0, &again) == -EINVAL, "refused: NULL buffer");

	{
		struct ab_policy nopol = pol;
		struct ab_plan bad = plan;
		char *b = NULL;
		size_t l;

		nopol.shell = NULL;
		bad.policy = &nopol;
		ok(ab_plan_serialize(&bad, &b, &l) == -EINVAL && b == NULL,
		    "serialize refuses a NULL string");
	}
	ab_plan_free(back);
	ab_plan_free(NULL);
	free(buf);
	test_proxy();
	return done_testing();
}
