/*
 * The audit scope rule, and the kernel's rule list it lives in.  Shared by agentbox(8),
 * which loads the rule, and pam_agentbox, which refuses a session the rule would leave
 * without its records.
 *
 * The first syscall rule on a host makes every task's audit context live on every
 * syscall (DESIGN.md pitfalls; bench/full-speed).  The scope rule,
 *
 *	-a never,task -F auid!=A1 -F uid!=A1 [-F auid!=A2 -F uid!=A2 ...] -F key=agentbox
 *
 * (its fields ANDed), gives a task forked outside every agent session no audit context
 * at all, so the rest of the host pays nothing for agentbox's exit rules.  The kernel
 * judges the task list once, when a task is forked (audit_alloc): pam_agentbox writes
 * the session's loginuid in su's or sshd's process before the session's first task is
 * forked, so every task of a session is forked with auid = the agent's uid and keeps its
 * context.  The loginuid cannot change after that without CAP_AUDIT_CONTROL, which no
 * task of a session has.
 *
 * The catch is a host with syscall rules of its own: the scope silences them for every
 * task it exempts.  So agentbox(8) loads it only while every such rule is agentbox's
 * (auditscope.c in admin/ says the rest), and a login checks that a loaded scope covers
 * its uid (ab_auditscope_ask, then ab_auditscope_answer).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <libaudit.h>

#include "auditscope.h"

/* The listing's replies on FD, after its request, to NLMSG_DONE. */
static int
rules_read(int fd, int (*each)(const struct audit_rule_data *, void *), void *arg)
{
	struct audit_reply rep;
	int r, err = 0;

	for (;;) {
		if ((r = audit_get_reply(fd, &rep, GET_REPLY_BLOCKING, 0)) <= 0)
			return r < 0 ? r : -EIO;
		if (rep.type == NLMSG_DONE)
			return err;
		if (rep.type == NLMSG_ERROR) {
			if (rep.error->error)
				return rep.error->error;
			continue;	/* the request's ack */
		}
		if (rep.type != AUDIT_LIST_RULES)
			continue;
		/* Keep reading to NLMSG_DONE whatever EACH says: the socket is reused. */
		if (err == 0)
			err = each(rep.ruledata, arg);
	}
}

int
ab_audit_rules_each(int fd, int (*each)(const struct audit_rule_data *, void *), void *arg)
{
	int r;

	if ((r = audit_request_rules_list_data(fd)) <= 0)
		return r < 0 ? r : -EIO;
	return rules_read(fd, each, arg);
}

/*
 * String-valued fields keep their bytes in buf, in field order, each as long as its
 * value says (the kernel's audit_krule_to_data), so a key's offset is the sum of the
 * string fields before it.
 */
static int
string_field(uint32_t f)
{
	/* AUDIT_PPID sits among the LSM fields' numbers but is a number. */
	return (f >= AUDIT_SUBJ_USER && f <= AUDIT_OBJ_LEV_HIGH && f != AUDIT_PPID) ||
	    f == AUDIT_WATCH || f == AUDIT_DIR || f == AUDIT_FILTERKEY || f == AUDIT_EXE;
}

int
ab_audit_rule_has_key(const struct audit_rule_data *d, const char *key)
{
	size_t off = 0, klen = strlen(key);
	uint32_t i;

	for (i = 0; i < d->field_count && i < AUDIT_MAX_FIELDS; i++) {
		if (!string_field(d->fields[i]))
			continue;
		if (off + d->values[i] > d->buflen)
			return 0;
		if (d->fields[i] == AUDIT_FILTERKEY && d->values[i] == klen &&
		    memcmp(d->buf + off, key, klen) == 0)
			return 1;
		off += d->values[i];
	}
	return 0;
}

int
ab_auditscope_is(const struct audit_rule_data *d)
{
	return (d->flags & ~AUDIT_FILTER_PREPEND) == AUDIT_FILTER_TASK &&
	    d->action == AUDIT_NEVER && ab_audit_rule_has_key(d, AB_AUDITSCOPE_KEY);
}

/*
 * Whether scope rule D leaves a task forked with auid = UID its context: one of its
 * ANDed fields must be false for it, and "auid != UID" is the one every session's
 * task has.  A uid field alone is not enough: su's process is root when it forks.
 */
int
ab_auditscope_exempts(const struct audit_rule_data *d, uid_t uid)
{
	uint32_t i;

	for (i = 0; i < d->field_count && i < AUDIT_MAX_FIELDS; i++)
		if (d->fields[i] == AUDIT_LOGINUID && d->fieldflags[i] == AUDIT_NOT_EQUAL &&
		    d->values[i] == (uint32_t)uid)
			return 1;
	return 0;
}

/*
 * Whether uid comparison OP holds for HAVE against VAL, as the kernel's
 * audit_uid_comparator decides it; *KNOWN 0 for an operator not judged here.
 */
static int
uid_compare(uint32_t op, uint32_t have, uint32_t val, int *known)
{
	*known = 1;
	switch (op) {
	case AUDIT_EQUAL:			return have == val;
	case AUDIT_NOT_EQUAL:			return have != val;
	case AUDIT_LESS_THAN:			return have < val;
	case AUDIT_LESS_THAN_OR_EQUAL:		return have <= val;
	case AUDIT_GREATER_THAN:		return have > val;
	case AUDIT_GREATER_THAN_OR_EQUAL:	return have >= val;
	default:				*known = 0; return 1;
	}
}

/* Whether field I of D is false for task credentials C: 0 when it holds, or when it
 * is a field this check does not judge (a group, a pid, an LSM label: it may hold). */
static int
field_false(const struct audit_rule_data *d, uint32_t i, const struct ab_task_creds *c)
{
	uint32_t have;
	int holds, known;

	switch (d->fields[i]) {
	case AUDIT_UID:		have = c->uid; break;
	case AUDIT_EUID:	have = c->euid; break;
	case AUDIT_SUID:	have = c->suid; break;
	case AUDIT_FSUID:	have = c->fsuid; break;
	case AUDIT_LOGINUID:	have = c->auid; break;
	case AUDIT_LOGINUID_SET: have = c->auid != (uint32_t)-1; break;
	default:		return 0;
	}
	holds = uid_compare(d->fieldflags[i], have, d->values[i], &known);
	return known && !holds;
}

int
ab_audit_never_task_may_match(const struct audit_rule_data *d, const struct ab_task_creds *c)
{
	uint32_t i;

	if ((d->flags & ~AUDIT_FILTER_PREPEND) != AUDIT_FILTER_TASK || d->action != AUDIT_NEVER ||
	    ab_auditscope_is(d))
		return 0;
	/* The fields are ANDed: one false field is enough for the rule not to match. */
	for (i = 0; i < d->field_count && i < AUDIT_MAX_FIELDS; i++)
		if (field_false(d, i, c))
			return 0;
	return 1;
}

struct check {
	const struct ab_scope_session *sess;
	struct ab_task_creds forks[2];	/* the entry program's fork, then the agent's */
	int scopes, covering, host_never;
};

static int
check_one(const struct audit_rule_data *d, void *arg)
{
	struct check *c = arg;

	if (ab_auditscope_is(d)) {
		c->scopes++;
		c->covering += ab_auditscope_exempts(d, c->sess->agent);
	} else if (ab_audit_never_task_may_match(d, &c->forks[0]) ||
	    ab_audit_never_task_may_match(d, &c->forks[1]))
		c->host_never++;
	return 0;
}

int
ab_auditscope_ask(void)
{
	static const struct timeval limit = { .tv_sec = 1 };
	int fd, r;

	if ((fd = audit_open()) < 0)
		return -errno;
	/* libaudit's blocking read has no bound: a login must not hang on the kernel. */
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit)) == -1) {
		r = -errno;
		audit_close(fd);
		return r;
	}
	if ((r = audit_request_rules_list_data(fd)) <= 0) {
		audit_close(fd);
		return r < 0 ? r : -EIO;
	}
	return fd;
}

int
ab_auditscope_answer(int fd, const struct ab_scope_session *sess, const char **why)
{
	struct check c = { .sess = sess };
	int r;

	*why = NULL;
	if (fd < 0)
		return fd;	/* the ask's error */
	/* su's or sshd's own fork of the session's first task, then every task the agent
	 * forks: all of them carry the session's loginuid. */
	c.forks[0] = sess->entry;
	c.forks[0].auid = sess->auid;
	c.forks[1] = (struct ab_task_creds){ sess->agent, sess->agent, sess->agent,
	    sess->agent, sess->auid };
	r = rules_read(fd, check_one, &c);
	audit_close(fd);
	if (r != 0)
		return r;
	return ab_auditscope_judge(c.scopes, c.covering, c.host_never, sess, why);
}

int
ab_auditscope_judge(int scopes, int covering, int host_never, const struct ab_scope_session *sess,
    const char **why)
{
	*why = NULL;
	if (scopes > 0 && sess->auid != (uint32_t)sess->agent) {
		*why = "agentbox's audit scope rule is loaded and this session keeps its "
		    "caller's loginuid (immutable): its tasks would have no audit context";
		return -EPERM;
	}
	if (covering != scopes) {
		*why = "agentbox's audit scope rule does not exempt this user: its tasks would "
		    "have no audit context (run agentbox audit-scope)";
		return -EPERM;
	}
	if (host_never > 0) {
		*why = "a -a never,task rule of the host's own may match this session: its "
		    "tasks would have no audit context (auditctl -l)";
		return -EACCES;
	}
	return 0;
}
