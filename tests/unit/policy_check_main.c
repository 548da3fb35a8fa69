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
		static const struct { unsigned int bit; const char *name; } sects[] = {
			{ AB_SECT_DEFAULTS, "[defaults]" }, { AB_SECT_USER, "[user:NAME]" },
			{ AB_SECT_HOSTS, "[hosts:NAME]" }, { AB_SECT_CRED, "[credential:NAME]" },
		};
		const char *sep = "";
		size_t j;

		printf("%s\t%s\t", k->name, k->arg);
		for (j = 0; j < sizeof(sects) / sizeof(sects[0]); j++)
			if (k->sections & sects[j].bit) {
				printf("%s%s", sep, sects[j].name);
				sep = " ";
			}
		printf("\t%s\t%s\n", k->merge == AB_MERGE_APPEND ? "append" : "last", k->doc);
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
