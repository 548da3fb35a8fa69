/*
 * The compiled policy as data: freeing it, the names of its enums, the checks on names
 * that both the parser and the plan reader apply.  Needs no external library: it is part
 * of libabplan.a, which agentbox-shell links statically.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void
ab_policy_free(struct ab_policy *p)
{
	if (p == NULL)
		return;
	free(p->user);
	ab_strv_free(&p->project);
	ab_strv_free(&p->read);
	ab_strv_free(&p->write);
	ab_strv_free(&p->mask);
	ab_strv_free(&p->protect);
	free(p->ports);
	free(p->shell);
	ab_strv_free(&p->env_keep);
	free(p);
}

const char *
ab_network_name(enum ab_network n)
{
	switch (n) {
	case AB_NET_NONE:	return "none";
	case AB_NET_LOOPBACK:	return "loopback";
	case AB_NET_HOST:	return "host";
	case AB_NET_TCP:	return "tcp";
	}
	return "?";
}

const char *
ab_audit_name(enum ab_audit_mode a)
{
	switch (a) {
	case AB_AUDIT_REQUIRED:		return "required";
	case AB_AUDIT_BEST_EFFORT:	return "best-effort";
	}
	return "?";
}

static int
is_alpha_(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

int
ab_env_name_valid(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > 255 || !is_alpha_((unsigned char)name[0]))
		return 0;
	for (i = 1; i < n; i++)
		if (!is_alpha_((unsigned char)name[i]) && !is_digit((unsigned char)name[i]))
			return 0;
	return 1;
}
