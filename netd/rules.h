/*
 * netd/rules.h: one session's network policy as the daemon uses it, built from the
 * policy's lists (allow_host, deny_host, allow_private), and the pure decisions on it.
 */
#ifndef AB_NETD_RULES_H
#define AB_NETD_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "abutil.h"
#include "addr.h"
#include "host.h"

struct ab_policy;

struct ab_netd_rules {
	struct ab_netd_rule *rule;	/* deny and allow rules; host.c decides on them */
	size_t nrule;
	struct ab_netd_cidr *priv;	/* allow_private */
	size_t npriv;
	bool learn;			/* learn = yes: a name no rule matches is let through */
};

/*
 * Compile the three lists into *out (each entry parsed with host.c / addr.c, wildcards
 * checked against the public-suffix list when S is not NULL).  0, -EINVAL (a bad entry:
 * the policy library validates these, so this is a mismatch between the two), -ENOMEM.
 */
int ab_netd_rules_build(const struct ab_strv *allow, const struct ab_strv *deny,
			const struct ab_strv *priv, const struct ab_netd_suffixes *s,
			struct ab_netd_rules *out);

/*
 * The network lists of a compiled policy, appended to allow/deny/priv, and its learn
 * key: the one place that knows struct ab_policy's network keys.  0, -EPERM for a policy
 * whose network is not proxy (or NULL), or -ENOMEM.
 */
int ab_netd_rules_lists(const struct ab_policy *p, struct ab_strv *allow,
			struct ab_strv *deny, struct ab_strv *priv, bool *learn);

/*
 * Test-only source: a file of "allow_host = ...", "deny_host = ...", "allow_private = ..."
 * lines (blank-separated items, '#' comments) and "learn = yes|no" (default no), for
 * `agentbox-netd --rules FILE` in tests.
 */
int ab_netd_rules_load_file(const char *path, const struct ab_netd_suffixes *s,
			    struct ab_netd_rules *out);

void ab_netd_rules_free(struct ab_netd_rules *r);

/* The reasons of netd-spec §5, for records. */
enum ab_netd_reason {
	AB_NETD_R_NONE = 0,	/* "-": allowed */
	AB_NETD_R_NO_RULE, AB_NETD_R_DENY_RULE, AB_NETD_R_PRIVATE, AB_NETD_R_METADATA,
	AB_NETD_R_LOOPBACK, AB_NETD_R_HOST_ADDRESS, AB_NETD_R_SNI_MISMATCH, AB_NETD_R_ECH,
	AB_NETD_R_BAD_REQUEST, AB_NETD_R_RESOLVE_FAILED, AB_NETD_R_DIAL_FAILED,
	AB_NETD_R_LIMIT, AB_NETD_R_TIMEOUT,
	AB_NETD_R_LEARN,	/* "learn": allowed only because the session learns */
};
const char *ab_netd_reason_name(enum ab_netd_reason r);

/*
 * The name decision: host:port against the session's rules.  true when allowed (*reason
 * NONE, or LEARN when no rule matched and the session learns: *rule NULL then); *reason
 * NO_RULE or DENY_RULE otherwise; *rule the deciding rule's text or NULL.  A deny rule
 * refuses in a learning session too.
 */
bool ab_netd_decide_name(const struct ab_netd_rules *r, const struct ab_netd_host *h,
			 uint16_t port, enum ab_netd_reason *reason, const char **rule);

/*
 * The DNS decision: NAME (the answerer's spelling) is allowed when host.c takes it and
 * some allow rule's port would let a connection to it through, or, in a learning
 * session, when a connection to it on port 443 would be (reason LEARN: no deny rule for
 * it there).  A name host.c refuses ('_', ...) is denied, so the DNS side never answers
 * a name the proxy would refuse.
 */
bool ab_netd_decide_dns_name(const struct ab_netd_rules *r, const char *name,
			     enum ab_netd_reason *reason, const char **rule);

/*
 * The address decision for one resolved (or literal) address: true when dialable; else
 * *reason LOOPBACK, METADATA, HOST_ADDRESS or PRIVATE (every other non-public class).
 */
bool ab_netd_decide_addr(const struct ab_netd_rules *r, const struct ab_netd_cidr *host,
			 size_t nhost, const struct sockaddr_storage *ss,
			 enum ab_netd_reason *reason);

#endif /* AB_NETD_RULES_H */
