/*
 * Test driver for admin/check.c until (and independently of) the agentbox binary:
 * "policy-check ARGS" runs "agentbox check ARGS".  "policy-check --keys" prints the
 * policy key table instead, one key per line, NAME TAB ARG TAB SECTIONS TAB MERGE TAB
 * DOC, for policy_check_keys.t to hold agentbox.conf(5) to it.
 */
#include <stdio.h>
#include <string.h>

#include "../../admin/cmd.h"
#include "policy.h"

static int
print_keys(void)
{
	const struct ab_key_info *k;
	size_t i;

	for (i = 0; (k = ab_policy_key(i)) != NULL; i++) {
		unsigned int both = AB_SECT_DEFAULTS | AB_SECT_USER;

		printf("%s\t%s\t%s%s%s\t%s\t%s\n", k->name, k->arg,
		    k->sections & AB_SECT_DEFAULTS ? "[defaults]" : "",
		    (k->sections & both) == both ? " " : "",
		    k->sections & AB_SECT_USER ? "[user:NAME]" : "",
		    k->merge == AB_MERGE_APPEND ? "append" : "last", k->doc);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--keys") == 0)
		return print_keys();
	argv[0] = "check";
	return cmd_check(argc, argv);
}
