/*
 * netd/rules.c: a session's rules from the policy's lists, and the two pure decisions
 * (name first, then each address) the daemon makes with them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy.h"
#include "rules.h"

static const char *const reason_names[] = {
	[AB_NETD_R_NONE] = "-", [AB_NETD_R_NO_RULE] = "no-rule",
	[AB_NETD_R_DENY_RULE] = "deny-rule", [AB_NETD_R_PRIVATE] = "private-address",
	[AB_NETD_R_METADATA] = "metadata", [AB_NETD_R_LOOPBACK] = "loopback",
	[AB_NETD_R_HOST_ADDRESS] = "host-address", [AB_NETD_R_SNI_MISMATCH] = "sni-mismatch",
	[AB_NETD_R_ECH] = "ech", [AB_NETD_R_BAD_REQUEST] = "bad-request",
	[AB_NETD_R_RESOLVE_FAILED] = "resolve-failed", [AB_NETD_R_DIAL_FAILED] = "dial-failed",
	[AB_NETD_R_LIMIT] = "limit", [AB_NETD_R_TIMEOUT] = "timeout",
	[AB_NETD_R_LEARN] = "learn",
};

const char *
ab_netd_reason_name(enum ab_netd_reason r)
{
	if ((size_t)r >= sizeof(reason_names) / sizeof(reason_names[0]))
		return "?";
	return reason_names[r];
}

static int
add_rules(const struct ab_strv *sv, bool deny, const struct ab_netd_suffixes *s,
	  struct ab_netd_rules *out)
{
	size_t i;

	for (i = 0; sv != NULL && i < sv->n; i++) {
		struct ab_netd_rule *rule = &out->rule[out->nrule];

		if (ab_netd_rule_parse(sv->v[i], deny, rule, NULL) != 0)
			return -EINVAL;
		/* A deny rule on a public suffix only refuses more: check allows only. */
		if (!deny && s != NULL && ab_netd_rule_check(s, rule) != 0)
			return -EINVAL;
		out->nrule++;
	}
	return 0;
}

int
ab_netd_rules_build(const struct ab_strv *allow, const struct ab_strv *deny,
		    const struct ab_strv *priv, const struct ab_netd_suffixes *s,
		    struct ab_netd_rules *out)
{
	size_t nrule = (allow ? allow->n : 0) + (deny ? deny->n : 0);
	size_t npriv = priv ? priv->n : 0, i;
	int r;

	memset(out, 0, sizeof(*out));
	out->rule = calloc(nrule + 1, sizeof(*out->rule));
	out->priv = calloc(npriv + 1, sizeof(*out->priv));
	if (out->rule == NULL || out->priv == NULL) {
		ab_netd_rules_free(out);
		return -ENOMEM;
	}
	if ((r = add_rules(deny, true, s, out)) != 0 ||
	    (r = add_rules(allow, false, s, out)) != 0) {
		ab_netd_rules_free(out);
		return r;
	}
	for (i = 0; i < npriv; i++) {
		if (ab_netd_cidr_parse(priv->v[i], &out->priv[i]) != 0) {
			ab_netd_rules_free(out);
			return -EINVAL;
		}
	}
	out->npriv = npriv;
	return 0;
}

/*
 * A proxy-mode policy's allow_host, deny_host (both with @NAME sets already expanded by
 * the policy compiler) and allow_private.  A policy of any other network mode is no
 * session of ours: -EPERM, so the open is refused rather than served with no rule.
 */
int
ab_netd_rules_lists(const struct ab_policy *p, struct ab_strv *allow, struct ab_strv *deny,
		    struct ab_strv *priv, bool *learn)
{
	int r;

	if (p == NULL || p->network != AB_NET_PROXY)
		return -EPERM;
	*learn = p->learn == AB_YES;
	if ((r = ab_strv_append(allow, &p->allow_host)) != 0 ||
	    (r = ab_strv_append(deny, &p->deny_host)) != 0)
		return r;
	return ab_strv_append(priv, &p->allow_private);
}

/* "learn = yes|no" of a test rules file: exactly one word, else -EINVAL. */
static int
learn_line(char **save, bool *learn)
{
	char *v = strtok_r(NULL, " \t", save);

	if (v == NULL || strtok_r(NULL, " \t", save) != NULL)
		return -EINVAL;
	if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
		return -EINVAL;
	*learn = strcmp(v, "yes") == 0;
	return 0;
}

/* One "key = items" line of a test rules file into the matching list (or learn). */
static int
rules_line(char *line, struct ab_strv *lists[3], bool *learn)
{
	static const char *const keys[3] = { "allow_host", "deny_host", "allow_private" };
	char *eq, *key, *tok, *save = NULL;
	size_t i;
	int r;

	line[strcspn(line, "#\n")] = '\0';
	key = strtok_r(line, " \t", &save);
	if (key == NULL)
		return 0;
	eq = strtok_r(NULL, " \t", &save);
	if (eq == NULL || strcmp(eq, "=") != 0)
		return -EINVAL;
	if (strcmp(key, "learn") == 0)
		return learn_line(&save, learn);
	for (i = 0; i < 3 && strcmp(key, keys[i]) != 0; i++)
		;
	if (i == 3)
		return -EINVAL;
	while ((tok = strtok_r(NULL, " \t", &save)) != NULL)
		if ((r = ab_strv_push(lists[i], tok)) != 0)
			return r;
	return 0;
}

int
ab_netd_rules_load_file(const char *path, const struct ab_netd_suffixes *s,
			struct ab_netd_rules *out)
{
	struct ab_strv allow = { 0 }, deny = { 0 }, priv = { 0 };
	struct ab_strv *lists[3] = { &allow, &deny, &priv };
	char line[4096];
	bool learn = false;
	FILE *f;
	int r = 0;

	if ((f = fopen(path, "re")) == NULL)
		return -errno;
	while (r == 0 && fgets(line, sizeof(line), f) != NULL)
		r = rules_line(line, lists, &learn);
	if (r == 0 && ferror(f))
		r = -EIO;
	fclose(f);
	if (r == 0 && (r = ab_netd_rules_build(&allow, &deny, &priv, s, out)) == 0)
		out->learn = learn;
	ab_strv_free(&allow);
	ab_strv_free(&deny);
	ab_strv_free(&priv);
	return r;
}

void
ab_netd_rules_free(struct ab_netd_rules *r)
{
	free(r->rule);
	free(r->priv);
	memset(r, 0, sizeof(*r));
}

/*
 * The first deny rule that names H on any port, or NULL.  Learning lets through what no
 * rule decides, and a deny_host is written for a host, not for one of its ports: its
 * host stays out of a learning session on every port (enforcing mode needs no such
 * reach, its default already refuses the other ports).
 */
static const char *
deny_any_port(const struct ab_netd_rules *r, const struct ab_netd_host *h)
{
	size_t i;

	for (i = 0; i < r->nrule; i++)
		if (r->rule[i].deny && ab_netd_rule_match(&r->rule[i], h, r->rule[i].port))
			return r->rule[i].text;
	return NULL;
}

bool
ab_netd_decide_name(const struct ab_netd_rules *r, const struct ab_netd_host *h,
		    uint16_t port, enum ab_netd_reason *reason, const char **rule)
{
	struct ab_netd_verdict v;

	ab_netd_decide(r->rule, r->nrule, h, port, &v);
	*rule = v.rule;
	if (v.allow)
		*reason = AB_NETD_R_NONE;
	else if (v.rule != NULL)
		*reason = AB_NETD_R_DENY_RULE;
	else if (!r->learn)
		*reason = AB_NETD_R_NO_RULE;
	else if ((*rule = deny_any_port(r, h)) != NULL)
		*reason = AB_NETD_R_DENY_RULE;
	else
		/* What learning changes, and only this: no rule said yes, none said no. */
		return *reason = AB_NETD_R_LEARN, true;
	return v.allow;
}

bool
ab_netd_decide_addr(const struct ab_netd_rules *r, const struct ab_netd_cidr *host,
		    size_t nhost, const struct sockaddr_storage *ss, enum ab_netd_reason *reason)
{
	struct ab_netd_addr_policy ap = {
		.allow = r->priv, .nallow = r->npriv, .host = host, .nhost = nhost,
	};
	enum ab_netd_addr_class cls = AB_NETD_ADDR_RESERVED;

	if (ab_netd_addr_check(&ap, ss, &cls) == 0) {
		*reason = AB_NETD_R_NONE;
		return true;
	}
	switch (cls) {
	case AB_NETD_ADDR_LOOPBACK: *reason = AB_NETD_R_LOOPBACK; break;
	case AB_NETD_ADDR_METADATA: *reason = AB_NETD_R_METADATA; break;
	case AB_NETD_ADDR_HOST: *reason = AB_NETD_R_HOST_ADDRESS; break;
	default: *reason = AB_NETD_R_PRIVATE; break;
	}
	return false;
}

bool
ab_netd_decide_dns_name(const struct ab_netd_rules *r, const char *name,
			enum ab_netd_reason *reason, const char **rule)
{
	struct ab_netd_host h;
	size_t i;

	*reason = AB_NETD_R_NO_RULE;
	*rule = NULL;
	if (ab_netd_host_parse(name, strlen(name), &h) != 0 || h.kind != AB_NETD_HOST_NAME)
		return false;
	for (i = 0; i < r->nrule; i++) {
		enum ab_netd_reason why;
		const char *text;

		if (r->rule[i].deny)
			continue;
		if (ab_netd_decide_name(r, &h, r->rule[i].port, &why, &text)) {
			*reason = why;
			*rule = text;
			return true;
		}
		if (why == AB_NETD_R_DENY_RULE) {
			*reason = why;
			*rule = text;
		}
	}
	/* No allow rule's port lets it through (or there is none): a learning session
	 * answers a name it would let a connection through to on the default port. */
	if (r->learn)
		return ab_netd_decide_name(r, &h, AB_NETD_DEFAULT_PORT, reason, rule);
	return false;
}
