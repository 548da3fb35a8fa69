/*
 * netd/hostcheck.c: the check-time test of a rule against the Public Suffix List.
 *
 * Separate from host.c because it needs libpsl, which only `agentbox check` and the
 * daemon link: the PAM module is loaded into every login on the host and must not pay
 * for a suffix list (issue 11).
 *
 * Which sections count: PSL_TYPE_ANY, so a wildcard on a private-section suffix
 * ("*.github.io", "*.s3.amazonaws.com", "*.herokuapp.com") is refused like "*.com":
 * names below such a suffix belong to unrelated owners, so the rule would let the box
 * reach any attacker's site there. Write the owner's own name instead
 * ("*.someone.github.io"). The list's implicit "*" rule makes every unlisted top-level
 * label a suffix too, so "*.corp" and "*.internal" are refused: name the zone below it.
 */
#include <errno.h>
#include <libpsl.h>
#include <stdlib.h>

#include "host.h"

struct ab_netd_suffixes {
	psl_ctx_t *psl;
};

/* psl_latest(NULL): the newer of libpsl's built-in list and the distribution's file. */
int
ab_netd_suffixes_open(struct ab_netd_suffixes **out)
{
	struct ab_netd_suffixes *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return -ENOMEM;
	s->psl = psl_latest(NULL);
	if (s->psl == NULL) {
		free(s);
		return -ENOENT;
	}
	*out = s;
	return 0;
}

void
ab_netd_suffixes_free(struct ab_netd_suffixes *s)
{
	if (s == NULL)
		return;
	psl_free(s->psl);
	free(s);
}

int
ab_netd_rule_check(const struct ab_netd_suffixes *s, const struct ab_netd_rule *rule)
{
	if (rule->kind != AB_NETD_RULE_WILDCARD)
		return 0;
	if (s == NULL || s->psl == NULL)
		return -ENOENT;
	return psl_is_public_suffix2(s->psl, rule->base, PSL_TYPE_ANY) ? -EINVAL : 0;
}
