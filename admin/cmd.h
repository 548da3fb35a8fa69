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
int	cmd_run(int argc, char **argv);		/* run.c */
int	cmd_stop(int argc, char **argv);	/* sessions.c */
int	cmd_audit_scope(int argc, char **argv);	/* auditscope.c */

/* hostrules.c, for check.c.  Print (to stderr) every allow_host / deny_host wildcard of P
 * on a public suffix not yet in REPORTED, and add it there: 0, -EINVAL if any, -ENOENT
 * without a suffix list (fail closed), -ENOMEM. */
struct ab_policy;
struct ab_strv;
int	admin_hostrules_check(const struct ab_policy *p, struct ab_strv *reported);
/* Print P's verdict for HOSTPORT ("HOST[:PORT]", port 443 by default): the exit status,
 * 0 allowed, 4 denied, 2 not a host or P not in proxy mode, 1 on error. */
int	admin_host_decide(const struct ab_policy *p, const char *hostport);
/* Warn (stderr) about each credential file of P not in REPORTED that agentbox-netd would
 * refuse (not root:agentbox-netd 0640, missing), and add it there. */
void	admin_creds_warn(const struct ab_policy *p, struct ab_strv *reported);

/* The policy root: --root DIR beats $AGENTBOX_ROOT beats "/" (NULL). */
const char *admin_policy_root(const char *opt_root);

#endif
