/*
 * agentbox(8) subcommands.  Each takes the argv after the subcommand name
 * (argv[0] is the subcommand) and returns the process exit status.
 * main.c dispatches; each command lives in its own file.
 */
#ifndef AB_ADMIN_CMD_H
#define AB_ADMIN_CMD_H

int	cmd_check(int argc, char **argv);	/* check.c */
int	cmd_enroll(int argc, char **argv);	/* enroll.c */
int	cmd_unenroll(int argc, char **argv);	/* enroll.c */
int	cmd_doctor(int argc, char **argv);	/* doctor.c */
int	cmd_sessions(int argc, char **argv);	/* sessions.c */

/* The policy root: --root DIR beats $AGENTBOX_ROOT beats "/" (NULL). */
const char *admin_policy_root(const char *opt_root);

#endif
