/*
 * agentbox-shell: the login shell of every enrolled user.  It runs as the agent, inside
 * the world pam_agentbox.so built, before any agent code: it closes what was inherited,
 * resets the environment, sets no_new_privs, applies Landlock then seccomp from the
 * session plan and execs the real shell.  Linked statically: LD_PRELOAD and friends from
 * su -m, sudo -E or sshd AcceptEnv cannot run code in it before confinement.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "shell.h"

extern char **environ;

/* One line on stderr, then exit 1: the caller (su, sshd, login) shows it. */
static void __attribute__((noreturn, format(printf, 1, 2)))
refuse(const char *fmt, ...)
{
	va_list ap;

	fputs("agentbox-shell: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(": login refused\n", stderr);
	exit(1);
}

int
main(int argc, char **argv)
{
	struct ab_plan *plan;
	const char *why = "";
	char **env;
	int nested, r;

	/* 1. Only inside a world built by pam_agentbox: never a weaker sandbox of our own. */
	if ((r = ab_plan_read(AB_PLAN_PATH, &plan, &why)) != 0)
		refuse("%s (%s)", why, strerror(-r));
	if ((r = ab_plan_matches_world(plan, &why)) != 0)
		refuse("%s (%s)", why, strerror(-r));
	/*
	 * A login started inside the box (tmux pane, nested shell) already has our
	 * Landlock domain and seccomp filter; stacking more would hit the kernel's limit
	 * of 16 Landlock layers after a few nested panes, and adds nothing.
	 */
	if ((nested = ab_already_confined()) < 0)
		refuse("cannot read /proc/self/status (%s)", strerror(-nested));

	/* 2. Nothing inherited survives: Landlock does not restrict fds already open. */
	if ((r = ab_fds_reset()) != 0)
		refuse("cannot close inherited fds (%s)", strerror(-r));
	/* The environment is rebuilt from an allow-list; the caller chose the old one. */
	if ((r = ab_env_build(plan, environ, nested, &env)) != 0)
		refuse("cannot build the environment (%s)", strerror(-r));

	if (!nested) {
		/* 3. Neither we nor anything we exec may gain privileges again (setuid, caps). */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
			refuse("prctl(PR_SET_NO_NEW_PRIVS) (%s)", strerror(errno));
		/* 4. Landlock binds to inodes of this mount namespace: after every mount. */
		if ((r = ab_landlock_apply(plan, NULL)) == -EOPNOTSUPP)
			refuse("Landlock ABI %d required by policy is not available",
			    plan->policy->landlock_min_abi);
		else if (r != 0)
			refuse("Landlock (%s)", strerror(-r));
		/* 5. seccomp last: a filter loaded earlier would have to allow our setup. */
		if ((r = ab_seccomp_apply(plan)) != 0)
			refuse("seccomp (%s)", strerror(-r));
	}

	/* 6. The real shell: login shell, -c COMMAND, or interactive. */
	r = ab_exec_shell(plan, argc, argv, env);
	refuse("exec %s (%s)", plan->policy->shell, strerror(-r));
}
