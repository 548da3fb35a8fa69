/*
 * agentbox audit-scope, and enroll's and unenroll's last step: keep the kernel's audit
 * scope rule (pam_module/auditscope.c says what it is) equal to what the live rules ask
 * for.  It is rebuilt from the kernel's rules, never from this host's policy, so every
 * agent whose exit rules are loaded is exempted, whoever enrolled it.
 *
 * The scope is wanted only when all of these hold; otherwise none is loaded:
 *   - some agent's exit rules (key agentbox, one uid each) are loaded;
 *   - every other rule that costs every task (auditrules.c, costs_every_task) is
 *     agentbox's: a host rule of its own would be silenced for every task the scope
 *     exempts, and agentbox never turns someone else's auditing off;
 *   - at most AB_AUDITSCOPE_MAX agents (the kernel's 64 fields a rule);
 *   - loginuid is not immutable: a session could not get its own loginuid, and the
 *     scope would leave it without a context (the login refuses then).
 * The old rule is deleted before the new one is added: a moment without a scope costs
 * time, never a record.  A lock file serialises two enrolls at once, so they cannot
 * leave two rules behind.  The rule is live only, never written to rules.d: after a
 * reboot, or when the host's rules change, `agentbox audit-scope` (or the next enroll)
 * rebuilds it, and doctor says when it is missing or must go.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libaudit.h>

#include "admin.h"
#include "auditscope.h"
#include "cmd.h"

#define SCOPE_LOCK_DIR	"/run/lock"
#define SCOPE_LOCK	SCOPE_LOCK_DIR "/agentbox-audit-scope"
#define SCOPE_MAXRULES	8	/* scope rules we delete in one go; more is not ours */

struct census {
	struct adm_scope	*st;
	struct audit_rule_data	*loaded[SCOPE_MAXRULES];	/* copies, to delete */
	size_t			 nloaded;
};

_Static_assert(sizeof(((struct adm_scope *)0)->agents) / sizeof(uid_t) == AB_AUDITSCOPE_MAX + 1,
    "adm_scope holds one agent past what a rule can exempt, to tell it is too many");

/* UID when D is one of an agent's exit rules (key agentbox, exactly one uid field). */
static int
agent_uid(const struct audit_rule_data *d, uid_t *uid)
{
	uint32_t i;
	int n = 0;

	if ((d->flags & ~AUDIT_FILTER_PREPEND) != AUDIT_FILTER_EXIT || d->action != AUDIT_ALWAYS)
		return 0;
	for (i = 0; i < d->field_count && i < AUDIT_MAX_FIELDS; i++)
		if (d->fields[i] == AUDIT_UID && d->fieldflags[i] == AUDIT_EQUAL) {
			*uid = d->values[i];
			n++;
		}
	return n == 1;
}

static void
add_agent(struct adm_scope *st, uid_t uid)
{
	size_t i;

	for (i = 0; i < st->nagents && i < AB_AUDITSCOPE_MAX + 1; i++)
		if (st->agents[i] == uid)
			return;
	if (st->nagents < AB_AUDITSCOPE_MAX + 1)
		st->agents[st->nagents] = uid;
	st->nagents++;
}

static int
census_one(const struct audit_rule_data *d, void *arg)
{
	struct census *c = arg;
	size_t size = sizeof(*d) + d->buflen;
	uid_t uid;

	if (ab_auditscope_is(d)) {
		if (c->nloaded == SCOPE_MAXRULES)
			return -E2BIG;
		if ((c->loaded[c->nloaded] = malloc(size)) == NULL)
			return -ENOMEM;
		memcpy(c->loaded[c->nloaded++], d, size);
		return 0;
	}
	switch (adm_audit_rule_class(d)) {
	case ADM_RULE_FREE:
		break;
	case ADM_RULE_OURS:
		if (agent_uid(d, &uid)) {
			add_agent(c->st, uid);
			break;
		}
		/* Keyed agentbox but no agent's: it covers other tasks too. */
		__attribute__((fallthrough));
	default:
		c->st->host_rules++;
		if ((d->flags & ~AUDIT_FILTER_PREPEND) == AUDIT_FILTER_TASK &&
		    d->action == AUDIT_NEVER)
			c->st->host_never++;
	}
	return 0;
}

static int
loginuid_immutable(int fd)
{
	struct audit_reply rep;
	int r;

	if ((r = audit_request_features(fd)) <= 0)
		return r < 0 ? r : -EIO;
	for (;;) {
		if ((r = audit_get_reply(fd, &rep, GET_REPLY_BLOCKING, 0)) <= 0)
			return r < 0 ? r : -EIO;
		if (rep.type == NLMSG_ERROR && rep.error->error)
			return rep.error->error;
		if (rep.type == AUDIT_GET_FEATURE)
			return (rep.features->features &
			    AUDIT_FEATURE_TO_MASK(AUDIT_FEATURE_LOGINUID_IMMUTABLE)) != 0;
	}
}

/* Whether the one loaded scope rule exempts exactly the wanted agents. */
static int
loaded_is_wanted(const struct census *c)
{
	const struct audit_rule_data *d = c->loaded[0];
	size_t i;

	if (c->nloaded != 1 || !c->st->wanted ||
	    d->field_count != 2 * c->st->nagents + 1)
		return 0;
	for (i = 0; i < c->st->nagents; i++)
		if (!ab_auditscope_exempts(d, c->st->agents[i]))
			return 0;
	return 1;
}

static void
census_free(struct census *c)
{
	while (c->nloaded > 0)
		free(c->loaded[--c->nloaded]);
}

static int
cmp_uid(const void *a, const void *b)
{
	uid_t x = *(const uid_t *)a, y = *(const uid_t *)b;

	return (x > y) - (x < y);
}

/* The live rules read into C (its st filled in): the scope wanted and what is loaded. */
static int
census_take(int fd, struct census *c, struct adm_scope *st)
{
	int r;

	memset(st, 0, sizeof(*st));
	memset(c, 0, sizeof(*c));
	c->st = st;
	if ((r = ab_audit_rules_each(fd, census_one, c)) != 0 ||
	    (r = loginuid_immutable(fd)) < 0) {
		census_free(c);
		return r;
	}
	st->immutable = r;
	st->loaded = (int)c->nloaded;
	qsort(st->agents, st->nagents < AB_AUDITSCOPE_MAX + 1 ? st->nagents :
	    AB_AUDITSCOPE_MAX + 1, sizeof(st->agents[0]), cmp_uid);
	if (st->nagents == 0)
		st->why_not = "no agent is enrolled";
	else if (st->host_rules > 0)
		st->why_not = "the host has syscall rules of its own, which the scope would "
		    "silence for every other task";
	else if (st->nagents > AB_AUDITSCOPE_MAX)
		st->why_not = "more agents than one rule can exempt";
	else if (st->immutable)
		st->why_not = "loginuid is immutable: a session could not get its own";
	st->wanted = st->why_not == NULL;
	st->current = st->wanted ? loaded_is_wanted(c) : c->nloaded == 0;
	return 0;
}

static int
add_field(struct audit_rule_data *rule, uint32_t field, uint32_t op, uint32_t value)
{
	if (rule->field_count >= AUDIT_MAX_FIELDS)
		return -E2BIG;
	rule->fields[rule->field_count] = field;
	rule->fieldflags[rule->field_count] = op;
	rule->values[rule->field_count] = value;
	rule->field_count++;
	return 0;
}

/* The wanted rule: auid != A and uid != A for each agent, in uid order, and the key. */
static int
build_scope(struct adm_scope *st, struct audit_rule_data **out)
{
	struct audit_rule_data *rule;
	size_t i;
	int r = 0;

	if ((rule = audit_rule_create_data()) == NULL)
		return -ENOMEM;
	for (i = 0; i < st->nagents && r == 0; i++)
		if ((r = add_field(rule, AUDIT_LOGINUID, AUDIT_NOT_EQUAL, st->agents[i])) == 0)
			r = add_field(rule, AUDIT_UID, AUDIT_NOT_EQUAL, st->agents[i]);
	if (r == 0)
		r = adm_audit_rule_add_key(&rule, AB_AUDITSCOPE_KEY);
	if (r != 0) {
		audit_rule_free_data(rule);
		return r;
	}
	*out = rule;
	return 0;
}

void
adm_audit_scope_text(const struct adm_scope *st, char *buf, size_t len)
{
	size_t i, off;

	off = (size_t)snprintf(buf, len, "-a never,task");
	for (i = 0; i < st->nagents && i < AB_AUDITSCOPE_MAX && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, " -F auid!=%u -F uid!=%u",
		    (unsigned)st->agents[i], (unsigned)st->agents[i]);
	if (off < len)
		snprintf(buf + off, len - off, " -F key=%s", AB_AUDITSCOPE_KEY);
}

/* Delete the loaded scope rules, then add the wanted one (if any) and list it back. */
static int
replace(int fd, struct census *c, struct adm_scope *st)
{
	struct audit_rule_data *rule = NULL;
	char text[64 + AB_AUDITSCOPE_MAX * 48];
	size_t i;
	int r;

	for (i = 0; i < c->nloaded; i++) {
		if (!act("unload the audit scope rule (%u agents)",
		    (unsigned)(c->loaded[i]->field_count - 1) / 2))
			continue;
		r = audit_delete_rule_data(fd, c->loaded[i], AUDIT_FILTER_TASK, AUDIT_NEVER);
		if (r <= 0 && r != -ENOENT)
			return r < 0 ? r : -EIO;
		st->loaded--;
	}
	if (!st->wanted) {
		st->current = st->loaded == 0;
		return 0;
	}
	adm_audit_scope_text(st, text, sizeof(text));
	if (!act("load the audit scope rule: %s", text))
		return 0;
	if ((r = build_scope(st, &rule)) != 0)
		return r;
	r = audit_add_rule_data(fd, rule, AUDIT_FILTER_TASK, AUDIT_NEVER);
	audit_rule_free_data(rule);
	if (r <= 0 && r != -EEXIST)
		return r < 0 ? r : -EIO;
	/* Trust, then verify. */
	census_free(c);
	if ((r = census_take(fd, c, st)) != 0)
		return r;
	return st->current ? 0 : -ENOENT;
}

/* /run/lock is shared by every mount namespace that binds the host's /run; a host or
 * container without it gets one, root's. */
static int
scope_lock(void)
{
	int fd;

	if (mkdir(SCOPE_LOCK_DIR, 0755) == -1 && errno != EEXIST)
		return -errno;
	if ((fd = open(SCOPE_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		return -errno;
	if (flock(fd, LOCK_EX) == -1) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

int
adm_audit_scope_state(struct adm_scope *st)
{
	struct census c;
	int fd, r;

	if ((fd = adm_audit_open()) < 0)
		return fd;
	r = census_take(fd, &c, st);
	census_free(&c);
	audit_close(fd);
	return r;
}

int
adm_audit_scope_refresh(struct adm_scope *st, int off)
{
	struct census c;
	int lock, fd, r;

	if ((lock = scope_lock()) < 0)
		return lock;
	if ((fd = adm_audit_open()) < 0) {
		close(lock);
		return fd;
	}
	if ((r = census_take(fd, &c, st)) == 0 && off) {
		st->wanted = 0;
		st->why_not = "unloaded on request (agentbox audit-scope --off)";
		st->current = c.nloaded == 0;
	}
	if (r == 0 && !st->current)
		r = replace(fd, &c, st);
	census_free(&c);
	audit_close(fd);
	close(lock);
	return r;
}

/* One line: what is loaded now, and why (or why not). */
void
adm_audit_scope_say(FILE *f, const struct adm_scope *st)
{
	char text[64 + AB_AUDITSCOPE_MAX * 48];

	if (st->wanted && st->current) {
		adm_audit_scope_text(st, text, sizeof(text));
		fprintf(f, "audit scope: loaded, %zu agent%s exempted: %s\n", st->nagents,
		    st->nagents == 1 ? "" : "s", text);
	} else if (st->wanted) {
		fprintf(f, "audit scope: not what the rules ask for (%d loaded)\n", st->loaded);
	} else {
		fprintf(f, "audit scope: %s: %s\n", st->loaded ? "still loaded" : "none",
		    st->why_not);
	}
}

int
adm_audit_scope_update(void)
{
	struct adm_scope st;
	int r;

	if ((r = adm_audit_scope_refresh(&st, 0)) == 0 && !adm_quiet && !adm_dry_run)
		adm_audit_scope_say(stdout, &st);
	return r;
}

int
cmd_audit_scope(int argc, char **argv)
{
	static const char usage[] = "usage: agentbox audit-scope [--off] [--dry-run]\n";
	static const struct option opts[] = {
		{ "off", no_argument, NULL, 'o' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct adm_scope st;
	int c, off = 0, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': off = 1; break;
		case 'n': adm_dry_run = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind != argc) {
		fputs(usage, stderr);
		return 2;
	}
	if (geteuid() != 0)
		die("audit-scope: must be root");
	if ((r = adm_audit_scope_refresh(&st, off)) != 0)
		die("audit-scope: %s", strerror(-r));
	adm_audit_scope_say(stdout, &st);
	return 0;
}
