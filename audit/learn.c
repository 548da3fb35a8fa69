/*
 * agentbox-maskd's own records.  Learning records (docs/audit-records.md, "Learning
 * records"): TRUSTED_APP op=agentbox-learn, one would-be Landlock denial of a `learn =
 * yes` session, and op=agentbox-learn-lost, which says the session's learning record is
 * incomplete.  Live-mask records ("Live masks"): op=agentbox-mask, one denial by a mask
 * pattern or the history of names, and op=agentbox-mask-lost, denials it could not write.
 *
 * As for the network records, the kernel stamps the daemon's pid/uid/auid/ses on the
 * header: the session, uid, pid and comm are the message's own, never the header's.  A
 * record that does not say what the contract says is "malformed": still listed (it may be
 * a would-be denial) and counted for the completeness report, never vouched for, and never
 * turned into a policy line by suggest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "review.h"

/* The contract's access values, and the Landlock right that would have refused each. */
static const struct {
	const char *access, *right;
} rights[] = {
	{ "read", "fs.read_file" },
	{ "list", "fs.read_dir" },
	{ "execute", "fs.execute" },
	{ "write", "fs.write_file" },
};

/* The op= of R when it is a TRUSTED_APP record, else "". */
static void
op_of(const struct ab_rec *r, char *op, size_t cap)
{
	op[0] = '\0';
	if (r->t == AB_T_TRUSTED_APP)
		ab_rec_inner_str(r, "op", op, cap, NULL);
}

/* A quoted value whose closing quote is missing: the line was cut inside it, so what was
 * decoded is a prefix of the path, not the path (a prefix would be a wider suggestion). */
static int
cut_short(const struct ab_rec *r, const char *key)
{
	struct ab_str raw;

	if (ab_rec_field(r, key, AB_INNER_ONLY, &raw) != 0 || raw.n == 0 || raw.p[0] != '"')
		return 0;
	return raw.n < 2 || raw.p[raw.n - 1] != '"';
}

/* The path of a maskd record: absolute, whole (not cut by the buffer or the line). */
static int
path_whole(const struct ab_rec *r, char *buf, size_t cap, struct ab_str *out)
{
	int trunc = 0;

	out->n = ab_rec_inner_str(r, "path", buf, cap, &trunc);
	out->p = buf;
	return out->n > 0 && buf[0] == '/' && !trunc && !cut_short(r, "path");
}

/*
 * The access and the path: the right it maps to (the raw value when it is not one of
 * the contract's, for the listing), and whether both say what the contract says.
 */
static int
object(const struct ab_rec *r, struct ab_learn *l)
{
	int ok = 0;
	size_t n;

	n = ab_rec_inner_str(r, "access", l->b_raw_access, sizeof(l->b_raw_access), NULL);
	l->access = (struct ab_str){ l->b_raw_access, n };
	for (size_t i = 0; i < sizeof(rights) / sizeof(rights[0]); i++)
		if (strcmp(l->b_raw_access, rights[i].access) == 0 && n == strlen(rights[i].access)) {
			l->access = (struct ab_str){ rights[i].right, strlen(rights[i].right) };
			ok = 1;
		}
	/* fanotify gives the opener's absolute path; anything else is not the contract's. */
	if (!path_whole(r, l->b_path, sizeof(l->b_path), &l->path))
		ok = 0;
	return ok;
}

int
ab_learn_parse(const struct ab_rec *r, struct ab_learn *l)
{
	char op[32];
	int ok;

	op_of(r, op, sizeof(op));
	if (strcmp(op, "agentbox-learn") != 0)
		return 1;
	memset(l, 0, sizeof(*l));
	ok = object(r, l);
	ok &= ab_rec_inner_num(r, "ses", AB_UNSET32, &l->ses) == 0 && l->ses != AB_UNSET32;
	ok &= ab_rec_inner_num(r, "uid", AB_UNSET32, &l->uid) == 0 && l->uid != AB_UNSET32;
	ok &= ab_rec_inner_num(r, "pid", AB_UNSET32, &l->pid) != -EINVAL;
	l->comm.n = ab_rec_inner_str(r, "comm", l->b_comm, sizeof(l->b_comm), NULL);
	l->comm.p = l->b_comm;
	if (!ok) {
		l->malformed = 1;
		return -EINVAL;
	}
	return 0;
}

int
ab_learn_lost_parse(const struct ab_rec *r, uint64_t *ses, uint64_t *uid, char *reason,
    size_t rcap)
{
	char op[32];
	int ok;

	op_of(r, op, sizeof(op));
	if (strcmp(op, "agentbox-learn-lost") != 0)
		return 1;
	ab_rec_inner_str(r, "reason", reason, rcap, NULL);
	ok = ab_rec_inner_num(r, "ses", AB_UNSET32, ses) == 0 && *ses != AB_UNSET32;
	ok &= ab_rec_inner_num(r, "uid", AB_UNSET32, uid) == 0;
	ok &= strcmp(reason, "table-full") == 0 || strcmp(reason, "overflow") == 0 ||
	    strcmp(reason, "read-error") == 0 || strcmp(reason, "write-error") == 0;
	return ok ? 0 : -EINVAL;
}

int
ab_mask_parse(const struct ab_rec *r, struct ab_mask *m)
{
	char op[32];
	int ok, rc;

	op_of(r, op, sizeof(op));
	if (strcmp(op, "agentbox-mask") != 0)
		return 1;
	memset(m, 0, sizeof(*m));
	ok = path_whole(r, m->b_path, sizeof(m->b_path), &m->path);
	m->access.n = ab_rec_inner_str(r, "access", m->b_access, sizeof(m->b_access), NULL);
	m->access.p = m->b_access;
	ok &= strcmp(m->b_access, "open") == 0 || strcmp(m->b_access, "exec") == 0;
	m->pattern.n = ab_rec_inner_str(r, "pattern", m->b_pattern, sizeof(m->b_pattern), NULL);
	m->pattern.p = m->b_pattern;
	ok &= m->pattern.n > 0 && !cut_short(r, "pattern");
	ok &= ab_rec_inner_num(r, "ses", AB_UNSET32, &m->ses) == 0 && m->ses != AB_UNSET32;
	ok &= ab_rec_inner_num(r, "uid", AB_UNSET32, &m->uid) == 0 && m->uid != AB_UNSET32;
	ok &= ab_rec_inner_num(r, "pid", AB_UNSET32, &m->pid) != -EINVAL;
	/* A repeats= that is not a count is malformed; it then stands for this one only. */
	if ((rc = ab_rec_inner_num(r, "repeats", 0, &m->repeats)) == -EINVAL ||
	    m->repeats > UINT32_MAX) {
		m->repeats = 0;
		ok = 0;
	} else if (rc != 0)
		m->repeats = 0;
	m->comm.n = ab_rec_inner_str(r, "comm", m->b_comm, sizeof(m->b_comm), NULL);
	m->comm.p = m->b_comm;
	m->prog.n = ab_rec_inner_str(r, "prog", m->b_prog, sizeof(m->b_prog), NULL);
	m->prog.p = m->b_prog;
	if (!ok) {
		m->malformed = 1;
		return -EINVAL;
	}
	return 0;
}

int
ab_mask_lost_parse(const struct ab_rec *r, uint64_t *ses, uint64_t *count)
{
	char op[32], reason[32];
	uint64_t uid;
	int ok;

	op_of(r, op, sizeof(op));
	if (strcmp(op, "agentbox-mask-lost") != 0)
		return 1;
	ab_rec_inner_str(r, "reason", reason, sizeof(reason), NULL);
	ok = ab_rec_inner_num(r, "ses", AB_UNSET32, ses) == 0 && *ses != AB_UNSET32;
	ok &= ab_rec_inner_num(r, "uid", AB_UNSET32, &uid) == 0;
	ok &= ab_rec_inner_num(r, "count", 0, count) == 0 && *count <= UINT32_MAX;
	ok &= strcmp(reason, "write-error") == 0;
	if (*count > UINT32_MAX)
		*count = 0;
	return ok ? 0 : -EINVAL;
}

int
ab_mask_end_parse(const struct ab_rec *r, uint64_t *ses, char *reason, size_t len)
{
	static const char *const known[] = { "failed-closed", "reader-gone", "supervisor-gone",
	    "cannot-start" };
	char op[32];
	uint64_t uid;
	int ok, k = 0;

	op_of(r, op, sizeof(op));
	if (strcmp(op, "agentbox-mask-end") != 0)
		return 1;
	ab_rec_inner_str(r, "reason", reason, len, NULL);
	ok = ab_rec_inner_num(r, "ses", AB_UNSET32, ses) == 0 && *ses != AB_UNSET32;
	ok &= ab_rec_inner_num(r, "uid", AB_UNSET32, &uid) == 0;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		k |= strcmp(reason, known[i]) == 0;
	if (!k)
		snprintf(reason, len, "?");	/* never shown as one the contract has */
	return ok && k ? 0 : -EINVAL;
}
