/*
 * The audit scope rule (auditscope.c): shared by agentbox(8) and pam_agentbox.
 */
#ifndef AB_AUDITSCOPE_H
#define AB_AUDITSCOPE_H

#include <stdint.h>
#include <sys/types.h>

#define AB_AUDITSCOPE_KEY	"agentbox"	/* the exit rules' key: one name for all */
/* Two fields an agent (auid, uid) and the key, in the kernel's 64. */
#define AB_AUDITSCOPE_MAX	31

struct audit_rule_data;

/* Call EACH on every rule the kernel lists on audit socket FD, reading to the end;
 * the first non-zero return of EACH is the result.  0 or -errno. */
int	ab_audit_rules_each(int fd, int (*each)(const struct audit_rule_data *, void *),
	    void *arg);
/* Whether listed rule D carries the filter key KEY. */
int	ab_audit_rule_has_key(const struct audit_rule_data *d, const char *key);
/* Whether D is a scope rule (the task list, never, key agentbox). */
int	ab_auditscope_is(const struct audit_rule_data *d);
/* Whether scope rule D leaves a task forked with loginuid UID its audit context. */
int	ab_auditscope_exempts(const struct audit_rule_data *d, uid_t uid);
/* A task's credentials as the kernel's task list judges them when it is forked. */
struct ab_task_creds {
	uint32_t	uid, euid, suid, fsuid;
	uint32_t	auid;		/* (uint32_t)-1: unset */
};

/*
 * Whether D is a never rule on the task list, other than the scope, that may match a
 * task forked with credentials C (it takes that task's audit context, and its exit and
 * Landlock records).  Only uid and loginuid fields are judged; any other field is
 * taken to hold, so "may".
 */
int	ab_audit_never_task_may_match(const struct audit_rule_data *d,
	    const struct ab_task_creds *c);

/* A session's tasks when the kernel forks them, for the login's check below. */
struct ab_scope_session {
	uid_t			agent;
	uint32_t		auid;	/* the loginuid after step 3's write: the agent's,
					 * or the caller's when loginuid is immutable */
	struct ab_task_creds	entry;	/* su's or sshd's uids as it forks the first task */
};

/*
 * At login, in two halves so the kernel's answer (a kernel thread per listing) is made
 * while the login does other work.  The ask: the listing requested on an audit socket
 * of its own; the fd, or -errno.  The answer, after the loginuid write: it reads the
 * listing and closes FD.  0: every task of SESS keeps its audit context.  -EPERM with
 * *WHY, one line: agentbox's scope rule would take it (it does not exempt the agent, or
 * the loginuid is not the agent's).  -EACCES with *WHY: a never,task rule of the host's
 * may.  Another -errno: the rules could not be listed (FD < 0: the ask's error).
 */
int	ab_auditscope_ask(void);
int	ab_auditscope_answer(int fd, const struct ab_scope_session *sess, const char **why);
/* The answer's verdict from what the listing held: SCOPES scope rules, COVERING of them
 * exempting the agent, HOST_NEVER never,task rules of the host's that may match. */
int	ab_auditscope_judge(int scopes, int covering, int host_never,
	    const struct ab_scope_session *sess, const char **why);

#endif
