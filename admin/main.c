/*
 * agentbox(8): enroll and unenroll agent users, check the policy, check the host, list
 * live sessions, run one command in a session.  main only dispatches; each command lives in its own file (cmd.h).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

#define AB_VERSION "0.1.0"

static const struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{ "enroll", cmd_enroll,
	  "USER --project DIR [--project DIR...] [--network N] [--dry-run]\n"
	  "\t\tcreate or update USER as a confined agent account" },
	{ "unenroll", cmd_unenroll, "USER [--remove-user] [--dry-run]\n"
	  "\t\tundo everything enroll did for USER" },
	{ "check", cmd_check, "[FILE] [--root DIR]\n\t\tvalidate the policy" },
	{ "doctor", cmd_doctor, "[--quiet]\n\t\tcheck the host: kernel, audit, PAM, sshd, users" },
	{ "sessions", cmd_sessions, "[--json]\n\t\tlist live boxes of enrolled users, with their logins" },
	{ "stop", cmd_stop, "USER [--box ID]\n\t\tend USER's boxes (or box ID): every process of them" },
	{ "audit-scope", cmd_audit_scope, "[--off] [--dry-run]\n"
	  "\t\trebuild the audit scope rule from the live rules (or unload it)" },
	{ "run", cmd_run, "[-u USER] [-C DIR] [--ephemeral] [--json] -- CMD [ARG...]\n"
	  "\t\trun CMD in a new confined session of USER; a summary of its denials after" },
};

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: agentbox COMMAND [ARGS...]\n\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n  agentbox --help | --version\n");
}

int
main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("agentbox " AB_VERSION "\n");
		return 0;
	}
	/* Line-buffered even into a pipe: progress lines interleave with the tools we run. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "agentbox: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
