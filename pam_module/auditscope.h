/*
 * The audit scope rule (auditscope.c): shared by agentbox(8) and pam_agentbox.
 */
#ifndef AB_AUDITSCOPE_H
#define AB_AUDITSCOPE_H

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
/*
 * At login, in two halves so the kernel's answer (a kernel thread per listing) is made
 * while the login does other work.  The ask: the listing requested on an audit socket
 * of its own; the fd, or -errno.  The answer, after the loginuid write: it reads the
 * listing, closes FD, and returns 0 when no scope rule is loaded or every one exempts
 * UID (AUID_IS_UID: the write made the loginuid UID); -EPERM with *WHY, one line, when
 * the session's tasks would have no audit context; -errno when the rules could not be
 * listed (FD < 0: the ask's error).
 */
int	ab_auditscope_ask(void);
int	ab_auditscope_answer(int fd, uid_t uid, int auid_is_uid, const char **why);

#endif
