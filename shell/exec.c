/*
 * Exec the real shell.  Arguments after argv[0] pass through unchanged: sshd and su
 * call the login shell as `SHELL -c COMMAND` (the sftp subsystem as
 * `-c /usr/lib/openssh/sftp-server`), sudo -i as `-SHELL -c ESCAPED`.  They are only
 * ever interpreted by the real shell, after confinement.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"

/*
 * The first of: first project, home, / that we can enter.  A session of agentbox run
 * stays where it starts: root's agentbox run chose that directory among the projects
 * (-C) and pam_agentbox entered it again in the session's world.
 */
static int
enter_cwd(const struct ab_plan *plan)
{
	const struct ab_policy *p = plan->policy;

	if (plan->service != NULL && strcmp(plan->service, "agentbox-run") == 0)
		return 0;

	if (p->project.n > 0 && chdir(p->project.v[0]) == 0)
		return 0;
	if (chdir(plan->home) == 0)
		return 0;
	return chdir("/") == 0 ? 0 : -errno;
}

int
ab_exec_shell(const struct ab_plan *plan, int argc, char **argv, char **envp)
{
	const char *shell = plan->policy->shell;
	const char *base = strrchr(shell, '/');
	char **nargv;
	char *argv0;
	int i;

	base = base != NULL ? base + 1 : shell;
	if (argc < 1 || (nargv = calloc((size_t)argc + 1, sizeof(*nargv))) == NULL)
		return -ENOMEM;
	/* login(1), su -, sshd and sudo -i mark a login shell with a leading '-'. */
	if (argv[0] != NULL && argv[0][0] == '-') {
		if ((argv0 = malloc(strlen(base) + 2)) == NULL) {
			free(nargv);
			return -ENOMEM;
		}
		argv0[0] = '-';
		strcpy(argv0 + 1, base);
	} else if ((argv0 = strdup(base)) == NULL) {
		free(nargv);
		return -ENOMEM;
	}
	nargv[0] = argv0;
	for (i = 1; i < argc; i++)
		nargv[i] = argv[i];
	nargv[argc] = NULL;
	if ((i = enter_cwd(plan)) == 0) {
		execve(shell, nargv, envp);
		i = -errno;
	}
	free(argv0);
	free(nargv);
	return i;
}
