/*
 * Syscall-exit audit rules for one enrolled uid: every syscall of that uid failing with
 * EACCES, EPERM or EROFS, keyed "agentbox".  They are the backstop behind Landlock's
 * own records (an agent that stacks its own Landlock domain can silence those;
 * DESIGN.md pitfalls) and the only record of DAC and read-only mount denials.  Scoped
 * by uid, not auid: su and sudo keep the caller's loginuid.  No rule is system-wide.
 *
 * One rule per errno, with no arch field: "-S all" sets every bit of the syscall mask,
 * so the rule matches whatever the ABI (b64, b32 through int 0x80, x32), and a rule
 * without an arch field is never skipped for an arch mismatch.  The arch-split form
 * (b64 and b32 rules for each errno) catches exactly the same syscalls with six rules
 * instead of three, and every process on the host pays the filter walk of each rule on
 * every syscall (bench/audit-rules).  The uid comes first so that for everyone else
 * the walk stops at the first comparison.  auditctl 3.0.9 accepts this form and wants
 * "-S all" before "-k".
 *
 * The rules file under /etc/audit/rules.d is for the next boot (augenrules); the live
 * rules are loaded through libaudit, the same three, checked back by listing the
 * kernel's rules.
 *
 * The kernel backlog (-b, --backlog_wait_time) goes in its own rules file and is raised
 * live; unenroll never lowers it again, because lowering a kernel-global buffer under
 * another consumer could cost records and a bigger one costs nothing but memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libaudit.h>

#include "admin.h"
#include "auditscope.h"

#define BACKLOG_LIMIT		8192
#define BACKLOG_WAIT_TIME	60000	/* what Debian's own audit.rules asks for */

static const struct rule_row {
	const char *errname;
	int err;
} rows[ADM_AUDIT_NRULES] = {
	{ "EACCES", EACCES }, { "EPERM", EPERM }, { "EROFS", EROFS },
};

int
adm_audit_rule_text(uid_t uid, size_t i, char *buf, size_t len)
{
	if (i >= ADM_AUDIT_NRULES)
		return -EINVAL;
	if (snprintf(buf, len, "-a always,exit -S all -F uid=%u -F exit=-%s -k %s",
	    (unsigned)uid, rows[i].errname, AB_AUDIT_KEY) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int
adm_audit_open(void)
{
	int fd;

	/* libaudit prints its own errors unless told not to: we report them. */
	set_aumessage_mode(MSG_QUIET, DBG_NO);
	if ((fd = audit_open()) < 0)
		return errno ? -errno : -EIO;
	return fd;
}

/*
 * The filter key, appended by hand: libaudit's fieldpair parser accepts "key=" only
 * after auditctl set its private _audit_syscalladded flag (-19 otherwise), which is
 * not part of the library's API.  The layout is the kernel's struct audit_rule_data:
 * the field says AUDIT_FILTERKEY, its value is the key's length, the bytes go in buf.
 */
int
adm_audit_rule_add_key(struct audit_rule_data **rulep, const char *key)
{
	struct audit_rule_data *rule = *rulep, *nr;
	size_t klen = strlen(key);

	if (rule->field_count >= AUDIT_MAX_FIELDS || klen > AUDIT_MAX_KEY_LEN)
		return -E2BIG;
	if ((nr = realloc(rule, sizeof(*rule) + rule->buflen + klen)) == NULL)
		return -ENOMEM;
	rule = nr;
	memcpy(rule->buf + rule->buflen, key, klen);
	rule->buflen += (uint32_t)klen;
	rule->fields[rule->field_count] = AUDIT_FILTERKEY;
	rule->fieldflags[rule->field_count] = AUDIT_EQUAL;
	rule->values[rule->field_count] = (uint32_t)klen;
	rule->field_count++;
	*rulep = rule;
	return 0;
}

static int
build(uid_t uid, size_t i, struct audit_rule_data **out)
{
	struct audit_rule_data *rule;
	char pair[64];
	int r;

	if ((rule = audit_rule_create_data()) == NULL)
		return -ENOMEM;
	/* "all" needs no arch: every bit of the mask, every ABI. */
	if ((r = audit_rule_syscallbyname_data(rule, "all")) != 0)
		goto bad;
	snprintf(pair, sizeof(pair), "uid=%u", (unsigned)uid);
	if ((r = audit_rule_fieldpair_data(&rule, pair, AUDIT_FILTER_EXIT)) != 0)
		goto bad;
	snprintf(pair, sizeof(pair), "exit=-%d", rows[i].err);
	if ((r = audit_rule_fieldpair_data(&rule, pair, AUDIT_FILTER_EXIT)) != 0)
		goto bad;
	if ((r = adm_audit_rule_add_key(&rule, AB_AUDIT_KEY)) != 0)
		goto bad;
	*out = rule;
	return 0;
bad:
	audit_rule_free_data(rule);
	return -EINVAL;	/* libaudit's codes here are its own, not errnos */
}

/*
 * Flags and action are set only when a rule is sent, so compare the rest.  The kernel
 * reports the top 16 bits of the last syscall mask word as zero whatever was sent
 * (6.18, "-S all": 0xffffffff in, 0x0000ffff out), so that word is compared on its low
 * half only; no syscall number reaches those bits.
 */
static int
same_mask(const uint32_t *a, const uint32_t *b)
{
	return memcmp(a, b, (AUDIT_BITMASK_SIZE - 1) * sizeof(*a)) == 0 &&
	    ((a[AUDIT_BITMASK_SIZE - 1] ^ b[AUDIT_BITMASK_SIZE - 1]) & 0xffffu) == 0;
}

static int
same_rule(const struct audit_rule_data *a, const struct audit_rule_data *b)
{
	return a->field_count == b->field_count && a->buflen == b->buflen &&
	    same_mask(a->mask, b->mask) &&
	    memcmp(a->fields, b->fields, a->field_count * sizeof(a->fields[0])) == 0 &&
	    memcmp(a->values, b->values, a->field_count * sizeof(a->values[0])) == 0 &&
	    memcmp(a->fieldflags, b->fieldflags, a->field_count * sizeof(a->fieldflags[0])) == 0 &&
	    memcmp(a->buf, b->buf, a->buflen) == 0;
}

/* For each kernel rule, which of OURS it equals: sets found[i]. */
struct matching {
	struct audit_rule_data	**ours;
	int			 *found;
};

static int
match_one(const struct audit_rule_data *d, void *arg)
{
	struct matching *m = arg;
	size_t i;

	for (i = 0; i < ADM_AUDIT_NRULES; i++)
		if (same_rule(d, m->ours[i]))
			m->found[i] = 1;
	return 0;
}

static int
list_matching(int fd, struct audit_rule_data **ours, int *found)
{
	struct matching m = { ours, found };

	return ab_audit_rules_each(fd, match_one, &m);
}

/*
 * Which rules put every process of the host on the audit path: those the kernel counts
 * in audit_n_rules (kernel/auditfilter.c: every list but user, exclude and filesystem).
 * Once there is one, every task's audit context stops being a dummy and collects names
 * and inodes on every syscall (DESIGN.md pitfalls; bench/full-speed measures it).
 */
static int
costs_every_task(const struct audit_rule_data *d)
{
	switch (d->flags & ~AUDIT_FILTER_PREPEND) {
	case AUDIT_FILTER_USER:
	case AUDIT_FILTER_EXCLUDE:
	case AUDIT_FILTER_FS:
		return 0;
	default:
		return 1;
	}
}

int
adm_audit_rule_class(const struct audit_rule_data *d)
{
	if (!costs_every_task(d))
		return ADM_RULE_FREE;
	return ab_audit_rule_has_key(d, AB_AUDIT_KEY) ? ADM_RULE_OURS : ADM_RULE_HOST;
}

static void
free_rules(struct audit_rule_data **rules)
{
	size_t i;

	for (i = 0; i < ADM_AUDIT_NRULES; i++)
		if (rules[i] != NULL)
			audit_rule_free_data(rules[i]);
}

static int
build_all(uid_t uid, struct audit_rule_data **rules)
{
	size_t i;
	int r;

	memset(rules, 0, ADM_AUDIT_NRULES * sizeof(*rules));
	for (i = 0; i < ADM_AUDIT_NRULES; i++)
		if ((r = build(uid, i, &rules[i])) != 0) {
			free_rules(rules);
			return r;
		}
	return 0;
}

/* UID's rules built and the audit socket open; on failure nothing is left to free. */
static int
open_rules(uid_t uid, struct audit_rule_data **rules, int *fd)
{
	int r;

	if ((r = build_all(uid, rules)) != 0)
		return r;
	if ((*fd = adm_audit_open()) < 0) {
		free_rules(rules);
		return *fd;
	}
	return 0;
}

int
adm_audit_rules_loaded(uid_t uid)
{
	struct audit_rule_data *rules[ADM_AUDIT_NRULES];
	int found[ADM_AUDIT_NRULES] = { 0 }, fd, r, n = 0;
	size_t i;

	if ((r = open_rules(uid, rules, &fd)) != 0)
		return r;
	r = list_matching(fd, rules, found);
	audit_close(fd);
	free_rules(rules);
	if (r != 0)
		return r;
	for (i = 0; i < ADM_AUDIT_NRULES; i++)
		n += found[i];
	return n;
}

static int
rules_file(const char *user, char *path, size_t len)
{
	if (snprintf(path, len, AB_AUDIT_RULES_DIR "/agentbox-%s.rules", user) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static int
write_rules_file(const char *user, uid_t uid)
{
	char path[PATH_MAX], line[256], *text = NULL;
	size_t len = 0, i;
	FILE *f;
	int r;

	if ((r = rules_file(user, path, sizeof(path))) != 0)
		return r;
	if ((f = open_memstream(&text, &len)) == NULL)
		return -errno;
	fprintf(f, "## agentbox: denials of the enrolled user %s (uid %u).\n"
	    "## Written by agentbox enroll, removed by agentbox unenroll.\n",
	    user, (unsigned)uid);
	for (i = 0; i < ADM_AUDIT_NRULES; i++) {
		adm_audit_rule_text(uid, i, line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	r = adm_write_if_changed(path, text, 0640, AB_AUDIT_RULES_DIR, 0750,
	    "write the audit rules file %s", path);
	free(text);
	return r < 0 ? r : 0;
}

/*
 * Load (ADD) or unload the live rules of UID through libaudit, skipping those the
 * kernel already has (or lacks), so enroll and unenroll are idempotent.  A load is
 * verified by listing again: the kernel must now hold every one of them.
 */
static int
apply_live(uid_t uid, int add)
{
	struct audit_rule_data *rules[ADM_AUDIT_NRULES];
	int found[ADM_AUDIT_NRULES] = { 0 }, fd, r;
	size_t i;

	if ((r = open_rules(uid, rules, &fd)) != 0)
		return r;
	if ((r = list_matching(fd, rules, found)) != 0)
		goto out;
	for (i = 0; i < ADM_AUDIT_NRULES; i++) {
		char text[256];

		if (found[i] == add)	/* loaded already, or nothing to unload */
			continue;
		adm_audit_rule_text(uid, i, text, sizeof(text));
		if (!act("%s audit rule: %s", add ? "load" : "unload", text))
			continue;
		r = add ? audit_add_rule_data(fd, rules[i], AUDIT_FILTER_EXIT, AUDIT_ALWAYS) :
		    audit_delete_rule_data(fd, rules[i], AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
		if (r <= 0 && r != (add ? -EEXIST : -ENOENT)) {
			r = r < 0 ? r : -EIO;
			goto out;
		}
		r = 0;
	}
	if (!add || adm_dry_run)
		goto out;
	/* Trust, then verify. */
	memset(found, 0, sizeof(found));
	if ((r = list_matching(fd, rules, found)) != 0)
		goto out;
	for (i = 0; i < ADM_AUDIT_NRULES; i++)
		if (!found[i])
			r = -ENOENT;
out:
	audit_close(fd);
	free_rules(rules);
	return r;
}

int
adm_audit_rules_install(const char *user, uid_t uid)
{
	int r;

	if ((r = write_rules_file(user, uid)) != 0)
		return r;
	return apply_live(uid, 1);
}

int
adm_audit_rules_remove(const char *user, uid_t uid)
{
	char path[PATH_MAX];
	int r;

	if ((r = rules_file(user, path, sizeof(path))) != 0)
		return r;
	if (adm_path_exists(path) && act("remove the audit rules file %s", path) &&
	    (r = adm_unlink(path)) != 0)
		return r;
	if (uid == (uid_t)-1)
		return 0;	/* the user is gone: the caller removes rules by listing */
	return apply_live(uid, 0);
}

int
adm_audit_status(int *enabled, int *pid, unsigned *backlog_limit, unsigned *lost)
{
	struct audit_reply rep;
	int fd, r;

	if ((fd = adm_audit_open()) < 0)
		return fd;
	if ((r = audit_request_status(fd)) <= 0) {
		audit_close(fd);
		return r < 0 ? r : -EIO;
	}
	for (;;) {
		if ((r = audit_get_reply(fd, &rep, GET_REPLY_BLOCKING, 0)) <= 0) {
			r = r < 0 ? r : -EIO;
			break;
		}
		if (rep.type == NLMSG_ERROR && rep.error->error) {
			r = rep.error->error;
			break;
		}
		if (rep.type != AUDIT_GET)
			continue;
		if (enabled)
			*enabled = (int)rep.status->enabled;
		if (pid)
			*pid = (int)rep.status->pid;
		if (backlog_limit)
			*backlog_limit = rep.status->backlog_limit;
		if (lost)
			*lost = rep.status->lost;
		r = 0;
		break;
	}
	audit_close(fd);
	return r;
}

int
adm_audit_backlog_install(void)
{
	static const char text[] =
	    "## agentbox: a denial storm must queue, not drop (see agentbox(8)).\n"
	    "-b 8192\n"
	    "--backlog_wait_time 60000\n";
	unsigned limit = 0;
	int fd, r;

	if ((r = adm_write_if_changed(AB_AUDIT_BACKLOG_RULES, text, 0640, NULL, 0,
	    "write %s (backlog %d, wait %d)", AB_AUDIT_BACKLOG_RULES, BACKLOG_LIMIT,
	    BACKLOG_WAIT_TIME)) < 0)
		return r;
	if ((r = adm_audit_status(NULL, NULL, &limit, NULL)) != 0)
		return r;
	if (limit >= BACKLOG_LIMIT)
		return 0;
	if (!act("raise the kernel audit backlog from %u to %d", limit, BACKLOG_LIMIT))
		return 0;
	if ((fd = adm_audit_open()) < 0)
		return fd;
	if ((r = audit_set_backlog_limit(fd, BACKLOG_LIMIT)) > 0)
		r = audit_set_backlog_wait_time(fd, BACKLOG_WAIT_TIME);
	audit_close(fd);
	return r > 0 ? 0 : r < 0 ? r : -EIO;
}

int
adm_audit_backlog_remove(void)
{
	if (!adm_path_exists(AB_AUDIT_BACKLOG_RULES))
		return 0;
	if (!act("remove %s (the live backlog stays as it is)", AB_AUDIT_BACKLOG_RULES))
		return 0;
	return adm_unlink(AB_AUDIT_BACKLOG_RULES);
}
