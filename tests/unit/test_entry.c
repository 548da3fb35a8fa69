/*
 * pam_module/entry.c: which su/runuser/sudo command lines run the agent's login shell.
 * Every row is a command line a caller could type; the module must refuse each one
 * that would exec anything but the passwd shell, however the options are spelled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "module.h"

/* entry.c reports through ab_sess_fail, which lives in pam_agentbox.c. */
int
ab_sess_fail(struct ab_sess *s, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	return r;
}

#define SH "/usr/local/sbin/agentbox-shell"

static const struct row {
	const char	*service;
	int		 listed;	/* agentbox-shell in /etc/shells */
	int		 allowed;
	const char	*argv[8];
} rows[] = {
	{ "sshd", 0, 1, { "sshd: agent [priv]" } },
	{ "login", 0, 1, { "login", "--", "agent" } },
	{ "sudo-i", 0, 1, { "sudo", "-iu", "agent", "make" } },
	{ "su", 0, 1, { "su", "agent" } },
	{ "su", 0, 1, { "su", "-", "agent" } },
	{ "su-l", 0, 1, { "su", "-l", "agent", "-c", "id -s" } },
	{ "su", 0, 1, { "su", "agent", "-c", "--shell /bin/sh" } },
	{ "su", 0, 1, { "su", "-c", "-s", "agent" } },		/* -s is -c's argument */
	{ "su", 0, 1, { "su", "agent", "--", "-s", "/bin/sh" } },	/* after --: shell args */
	{ "su", 0, 1, { "su", "-m", "agent" } },		/* shell restricted: -m ignored */
	{ "su", 1, 0, { "su", "-m", "agent" } },
	{ "su", 1, 0, { "su", "-lp", "agent" } },
	{ "su", 1, 0, { "su", "--preserve", "agent" } },
	{ "su", 0, 1, { "su", "-s", SH, "agent" } },		/* the login shell itself */
	{ "su", 0, 0, { "su", "-s", "/bin/sh", "agent" } },
	{ "su", 0, 0, { "su", "-s/bin/sh", "agent" } },
	{ "su", 0, 0, { "su", "-ls", "/bin/sh", "agent" } },
	{ "su", 0, 0, { "su", "agent", "-s", "/bin/sh" } },	/* permuted */
	{ "su", 0, 0, { "su", "--shell=/bin/sh", "agent" } },
	{ "su", 0, 0, { "su", "--shell", "/bin/sh", "agent" } },
	{ "su", 0, 0, { "su", "--sh=/bin/sh", "agent" } },	/* abbreviated */
	{ "su", 0, 0, { "su", "--she", "/bin/sh", "agent" } },
	{ "su", 0, 0, { "su", "--s", "/bin/sh", "agent" } },	/* ambiguous: refuse */
	{ "su", 0, 0, { "su", "-X", "agent" } },		/* unknown option */
	{ "su", 0, 0, { "su", "agent", "-s" } },		/* missing argument */
	{ "runuser", 0, 1, { "runuser", "-l", "agent", "-c", "true" } },
	{ "runuser", 0, 0, { "runuser", "-u", "agent", "--", "id" } },
	{ "runuser", 0, 0, { "runuser", "--user=agent", "id" } },
	{ "runuser", 0, 0, { "runuser", "-gagent", "-uagent", "id" } },
	{ "sudo", 0, 0, { "sudo", "-u", "agent", "id" } },
	{ "sudo", 0, 0, { "sudo", "-su", "agent" } },
	{ "cron", 0, 0, { "/usr/sbin/cron", "-f" } },
	{ "atd", 0, 0, { "/usr/sbin/atd" } },
	{ "xrdp-sesman", 0, 0, { "xrdp-sesman" } },		/* unknown service */
};

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
		rc = ab_entry_check(r->service, argc, (char *const *)r->argv, SH, r->listed, &why);
		ok(r->allowed ? rc == 0 : rc == -EPERM && why != NULL, "%s %s(%s%s)%s%s",
		    r->allowed ? "allows" : "refuses", line, r->service,
		    r->listed ? ", shell listed" : "", why ? ": " : "", why ? why : "");
	}
	return done_testing();
}
