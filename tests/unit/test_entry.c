/*
 * pam_module/entry.c: which su/runuser/sudo command lines run the agent's login shell.
 * Every row is a command line a caller could type; the module must refuse each one
 * that would exec anything but the passwd shell, however the options are spelled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "module.h"

#define SH "/usr/local/sbin/agentbox-shell"

static const struct row {
	const char	*service;
	const char	*caller_shell;	/* $SHELL of the caller */
	int		 allowed;
	const char	*argv[8];
} rows[] = {
	{ "sshd", "/bin/bash", 1, { "sshd: agent [priv]" } },
	{ "login", "/bin/bash", 1, { "login", "--", "agent" } },
	{ "sudo-i", "/bin/bash", 1, { "sudo", "-iu", "agent", "make" } },
	{ "agentbox-run", "/bin/bash", 1, { "agentbox", "run", "-u", "agent", "--", "make" } },
	{ "agentbox-runx", "/bin/bash", 0, { "agentbox", "run" } },	/* not a prefix match */
	{ "su", "/bin/bash", 1, { "su", "agent" } },
	{ "su", "/bin/bash", 1, { "su", "-", "agent" } },
	{ "su-l", "/bin/bash", 1, { "su", "-l", "agent", "-c", "id -s" } },
	{ "su", "/bin/bash", 1, { "su", "agent", "-c", "--shell /bin/sh" } },
	{ "su", "/bin/bash", 1, { "su", "-c", "-s", "agent" } },		/* -s is -c's argument */
	{ "su", "/bin/bash", 1, { "su", "agent", "--", "-s", "/bin/sh" } },	/* after --: shell args */
	{ "su", NULL, 1, { "su", "-m", "agent" } },		/* SHELL unset: passwd shell */
	{ "su", SH, 1, { "su", "-m", "agent" } },		/* SHELL is the login shell */
	{ "su", "", 1, { "su", "-p", "agent" } },
	{ "su", "/bin/bash", 0, { "su", "-m", "agent" } },
	{ "su", "/bin/bash", 0, { "su", "-lp", "agent" } },
	{ "su", "/bin/sh", 0, { "su", "--preserve", "agent" } },
	{ "su", "/bin/bash", 1, { "su", "-s", SH, "agent" } },		/* the login shell itself */
	{ "su", "/bin/bash", 0, { "su", "-s", "/bin/sh", "agent" } },
	{ "su", "/bin/bash", 0, { "su", "-s/bin/sh", "agent" } },
	{ "su", "/bin/bash", 0, { "su", "-ls", "/bin/sh", "agent" } },
	{ "su", "/bin/bash", 0, { "su", "agent", "-s", "/bin/sh" } },	/* permuted */
	{ "su", "/bin/bash", 0, { "su", "--shell=/bin/sh", "agent" } },
	{ "su", "/bin/bash", 0, { "su", "--shell", "/bin/sh", "agent" } },
	{ "su", "/bin/bash", 0, { "su", "--sh=/bin/sh", "agent" } },	/* abbreviated */
	{ "su", "/bin/bash", 0, { "su", "--she", "/bin/sh", "agent" } },
	{ "su", "/bin/bash", 0, { "su", "--s", "/bin/sh", "agent" } },	/* ambiguous: refuse */
	{ "su", "/bin/bash", 0, { "su", "-X", "agent" } },		/* unknown option */
	{ "su", "/bin/bash", 0, { "su", "agent", "-s" } },		/* missing argument */
	{ "runuser", "/bin/bash", 1, { "runuser", "-l", "agent", "-c", "true" } },
	{ "runuser", "/bin/bash", 0, { "runuser", "-u", "agent", "--", "id" } },
	{ "runuser", "/bin/bash", 0, { "runuser", "--user=agent", "id" } },
	{ "runuser", "/bin/bash", 0, { "runuser", "-gagent", "-uagent", "id" } },
	{ "sudo", "/bin/bash", 0, { "sudo", "-u", "agent", "id" } },
	{ "sudo", "/bin/bash", 0, { "sudo", "-su", "agent" } },
	{ "cron", "/bin/bash", 0, { "/usr/sbin/cron", "-f" } },
	{ "atd", "/bin/bash", 0, { "/usr/sbin/atd" } },
	{ "xrdp-sesman", "/bin/bash", 0, { "xrdp-sesman" } },		/* unknown service */
};

/*
 * ab_entry_verify reports through the real ab_sess_fail (sessfail.c): the reason it
 * leaves is the one the auth log gets, and an earlier step's reason is never replaced.
 */
static void
verify_reasons(void)
{
	struct ab_sess s;

	memset(&s, 0, sizeof(s));
	s.user = "agent";
	s.procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ok(ab_entry_verify(&s, "sshd", "/bin/bash") == -EPERM &&
	    strcmp(s.why, "the login shell of agent is /bin/bash, not agentbox-shell: "
	    "run agentbox enroll again") == 0, "verify refuses another login shell: %s", s.why);
	s.why[0] = '\0';
	ok(ab_entry_verify(&s, "sudo", SH) == -EPERM &&
	    strncmp(s.why, "service sudo: sudo without -i", 29) == 0,
	    "verify refuses sudo without -i: %s", s.why);
	snprintf(s.why, sizeof(s.why), "an earlier step failed");
	ok(ab_entry_verify(&s, "cron", SH) == -EPERM &&
	    strcmp(s.why, "an earlier step failed") == 0,
	    "the first failure's reason stays: %s", s.why);
	if (s.procfd != -1)
		close(s.procfd);
}

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		const char *why = NULL;
		char line[256] = "";
		int argc, j, rc;

		for (argc = 0; r->argv[argc] != NULL; argc++)
			;
		for (j = 0; j < argc; j++) {
			strncat(line, r->argv[j], sizeof(line) - strlen(line) - 2);
			strcat(line, " ");
		}
		rc = ab_entry_check(r->service, argc, (char *const *)r->argv, SH, r->caller_shell,
		    &why);
		ok(r->allowed ? rc == 0 : rc == -EPERM && why != NULL, "%s %s(%s, SHELL=%s)%s%s",
		    r->allowed ? "allows" : "refuses", line, r->service,
		    r->caller_shell ? r->caller_shell : "unset", why ? ": " : "", why ? why : "");
	}
	verify_reasons();
	return done_testing();
}
