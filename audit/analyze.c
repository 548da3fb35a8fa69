/*
 * Events -> denials, sessions, Landlock domain bookkeeping.
 *
 * One denial per Landlock access record (a syscall may be denied for two objects, e.g. a
 * rename), one per seccomp record whose action denies, and one per failed syscall that
 * hit agentbox's exit rules (key "agentbox") when neither of the others explains it: a
 * Landlock-denied open also fails with EACCES and matches the exit rule, and that is one
 * denial, not two.  Process details come from the event's SYSCALL record, else from the
 * record itself (SECCOMP carries them), else from the Landlock domain's allocation record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <libaudit.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "review.h"

const char *const ab_kind_name[AB_KIND_N] = { "landlock", "seccomp", "dac", "net" };

/* Table bounds (a test build makes them small, to fill them with a few records). */
#ifndef MAX_SESSIONS
#define MAX_SESSIONS	(1u << 20)
#endif
#ifndef MAX_DOMAINS
#define MAX_DOMAINS	(1u << 20)
#endif

struct ab_top {
	struct ab_top_item *items;
	size_t		 n, cap;
	uint64_t	 other;
};

struct domain {
	uint64_t	 id;		/* 0: free slot */
	uint64_t	 records;
	int		 allocated;
	struct ab_session *owner;	/* the session its first denial read carries */
};

struct uidname {
	uint64_t	 uid;
	char		 name[64];
	int		 used;
};

struct ab_review {
	struct ab_filter	 f;
	ab_denial_fn		 fn;
	void			*arg;
	struct ab_complete	*cp;
	struct ab_marks		*marks;		/* troubles by serial (span.c) */
	struct ab_review_stats	 st;
	struct ab_session	**ses;		/* in order of first appearance */
	size_t			 nses, capses;
	uint32_t		*ses_idx;	/* open addressing: index + 1 into ses */
	size_t			 ses_slots;
	struct domain		*dom;
	size_t			 dom_slots, ndom;
	struct ab_refusal	*refused;
	size_t			 nrefused;
	struct uidname		 names[256];	/* getpwuid cache (local log only) */
	uid_t			 filter_uid;
	int			 filter_uid_valid;
	/* Decode buffers for the denial being built. */
	char			 b_exe[4096 + 8], b_comm[64], b_path[8192], b_cwd[4096 + 8];
	char			 b_access[256], b_addr[512], b_domain[32], b_user[64];
	char			 b_dir[8192];	/* Landlock's directory of a make/remove */
	struct ab_net		 net;		/* the network decision being built */
	struct ab_learn		 learn;		/* the learning record being built */
	struct ab_mask		 mask;		/* the live-mask record being built */
};

/* ---- small helpers -------------------------------------------------------------------- */

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static uint64_t
hash_str(struct ab_str s)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < s.n; i++)
		h = (h ^ (unsigned char)s.p[i]) * 1099511628211ULL;
	return h;
}

/* Decode field KEY of R into BUF; returns its length, 0 when absent or unset. */
static size_t
getf(const struct ab_rec *r, const char *key, int inner, char *buf, size_t cap)
{
	struct ab_str raw;
	size_t n = 0;

	buf[0] = '\0';
	if (r == NULL || ab_rec_field(r, key, inner, &raw) != 0)
		return 0;
	if (ab_val_decode(key, raw, buf, cap, &n) < 0 && n == 0)
		return 0;
	return n;
}

static uint64_t
getnum(const struct ab_rec *r, const char *key, int inner)
{
	uint64_t v;

	if (r == NULL || ab_rec_num(r, key, inner, 10, &v) != 0)
		return AB_UNSET32;
	return v;
}

static void
copy_cstr(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	if (n > 0)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * Something the review should have tracked and could not (R: -ENOSPC table full,
 * -ENOMEM): COUNTER says what, st.err keeps the first error.  Each nonzero one makes the
 * completeness report INCOMPLETE, since what was not tracked may hide a gap, a denial or
 * a session.
 */
static void
bookkeeping_failed(struct ab_review *rv, uint64_t *counter, int r)
{
	if (rv->st.err == 0)
		rv->st.err = r;
	if (r == -ENOMEM)
		rv->st.oom++;
	(*counter)++;
}

/* ---- top-N counters ------------------------------------------------------------------- */

static int
top_add(struct ab_top **tp, const char *key, size_t n, uint64_t w)
{
	struct ab_top *t = *tp;
	size_t i;

	if (t == NULL && (t = *tp = calloc(1, sizeof(*t))) == NULL)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		if (strlen(t->items[i].key) == n && memcmp(t->items[i].key, key, n) == 0) {
			t->items[i].count += w;
			return 0;
		}
	if (t->n == AB_TOP_MAX) {
		t->other += w;
		return 0;
	}
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 16;
		struct ab_top_item *it = realloc(t->items, nc * sizeof(*it));

		if (it == NULL)
			return -ENOMEM;
		t->items = it;
		t->cap = nc;
	}
	if ((t->items[t->n].key = strndup(key, n)) == NULL)
		return -ENOMEM;
	t->items[t->n++].count = w;
	return 0;
}

/* A summary count (path or program of W denials); one lost is counted for the report. */
static void
count_top(struct ab_review *rv, struct ab_top **tp, struct ab_str key, uint64_t w)
{
	int r;

	if ((r = top_add(tp, key.p, key.n, w)) != 0)
		bookkeeping_failed(rv, &rv->st.counts_lost, r);
}

static int
cmp_top(const void *a, const void *b)
{
	const struct ab_top_item *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->key, y->key);
}

size_t
ab_top_list(const struct ab_top *t, struct ab_top_item *out, size_t max, uint64_t *other)
{
	size_t n;

	*other = 0;
	if (t == NULL)
		return 0;
	qsort(t->items, t->n, sizeof(*t->items), cmp_top);
	n = t->n < max ? t->n : max;
	memcpy(out, t->items, n * sizeof(*out));
	*other = t->other;
	for (size_t i = n; i < t->n; i++)
		*other += t->items[i].count;
	return n;
}

static void
top_free(struct ab_top *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->items[i].key);
	free(t->items);
	free(t);
}

/* ---- sessions --------------------------------------------------------------------------- */

/* The session SES of NODE if it is known; NULL if not (or SES is unset: no session). */
static struct ab_session *
session_find(const struct ab_review *rv, uint64_t nh, uint64_t ses)
{
	size_t mask, i;
	struct ab_session *s;

	if (ses == AB_UNSET32 || rv->ses_slots == 0)
		return NULL;
	mask = rv->ses_slots - 1;
	for (i = mix(ses ^ nh) & mask; rv->ses_idx[i] != 0; i = (i + 1) & mask) {
		s = rv->ses[rv->ses_idx[i] - 1];
		if (s->ses == ses && s->nodehash == nh)
			return s;
	}
	return NULL;
}

/* Make room for one more session: the index at most half full, the array grown. */
static int
session_room(struct ab_review *rv)
{
	size_t i;

	if (rv->nses >= MAX_SESSIONS)
		return -ENOSPC;
	if ((rv->nses + 1) * 2 > rv->ses_slots) {
		size_t ns = rv->ses_slots ? rv->ses_slots * 2 : 1024;
		uint32_t *idx = calloc(ns, sizeof(*idx));

		if (idx == NULL)
			return -ENOMEM;
		for (size_t k = 0; k < rv->nses; k++) {
			for (i = mix(rv->ses[k]->ses ^ rv->ses[k]->nodehash) & (ns - 1); idx[i] != 0;
			    i = (i + 1) & (ns - 1))
				;
			idx[i] = (uint32_t)k + 1;
		}
		free(rv->ses_idx);
		rv->ses_idx = idx;
		rv->ses_slots = ns;
	}
	if (rv->nses == rv->capses) {
		size_t nc = rv->capses ? rv->capses * 2 : 64;
		struct ab_session **a = realloc(rv->ses, nc * sizeof(*a));

		if (a == NULL)
			return -ENOMEM;
		rv->ses = a;
		rv->capses = nc;
	}
	return 0;
}

/*
 * The session SES of NODE, added if new.  Returns 0; -ENOENT when SES is unset (the
 * record belongs to no session: not an error); -ENOSPC past MAX_SESSIONS; -ENOMEM.
 */
static int
session_get(struct ab_review *rv, struct ab_str node, uint64_t ses, struct ab_session **out)
{
	uint64_t nh = hash_str(node);
	size_t mask, i;
	struct ab_session *s;
	int r;

	if (ses == AB_UNSET32)
		return -ENOENT;
	if ((*out = session_find(rv, nh, ses)) != NULL)
		return 0;
	if ((r = session_room(rv)) != 0)
		return r;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return -ENOMEM;
	s->ses = ses;
	s->nodehash = nh;
	s->uid = AB_UNSET32;
	copy_cstr(s->node, sizeof(s->node), node.p, node.n);
	rv->ses[rv->nses++] = s;
	mask = rv->ses_slots - 1;
	for (i = mix(ses ^ nh) & mask; rv->ses_idx[i] != 0; i = (i + 1) & mask)
		;
	rv->ses_idx[i] = (uint32_t)rv->nses;
	*out = s;
	return 0;
}

/* A session record or denial that names session SES: its session, or NULL when it has
 * none (unset) or the table could not take it (counted: the report says so). */
static struct ab_session *
session_of(struct ab_review *rv, struct ab_str node, uint64_t ses)
{
	struct ab_session *s = NULL;
	int r;

	if ((r = session_get(rv, node, ses, &s)) != 0 && r != -ENOENT)
		bookkeeping_failed(rv, &rv->st.sessions_untracked, r);
	return s;
}

/* The session's span as seen: what --since/--until compare against. */
static void
session_seen(struct ab_session *s, uint64_t sec)
{
	if (s->first_sec == 0 || sec < s->first_sec)
		s->first_sec = sec;
	if (sec > s->last_sec)
		s->last_sec = sec;
}

/* --session hides refused logins (they have no session); --user and --since/--until
 * select them by name and time. */
static int
refusal_selected(const struct ab_review *rv, const struct ab_refusal *r)
{
	const struct ab_filter *f = &rv->f;

	if (f->have_session)
		return 0;
	if (f->user != NULL && strcmp(r->user, f->user) != 0) {
		/* The record names the user, not the uid: a numeric --user matches through this
		 * host's account database. */
		struct passwd *pw = rv->filter_uid_valid ? getpwnam(r->user) : NULL;

		if (pw == NULL || pw->pw_uid != rv->filter_uid)
			return 0;
	}
	if (f->have_since && r->sec < f->since)
		return 0;
	if (f->have_until && r->sec > f->until)
		return 0;
	return 1;
}

/* lost=N of a session record: AB_LOST_NONE absent; AB_LOST_OK a 32-bit count (the
 * kernel's is a u32) in *V; AB_LOST_BAD anything else (empty, a sign, quoted, not
 * digits, too big): never read as a count, so it cannot make a span look clean. */
static int
lost_field(const struct ab_rec *r, uint64_t *v)
{
	struct ab_str raw;
	uint64_t n = 0;

	if (ab_rec_field(r, "lost", 1, &raw) != 0)
		return AB_LOST_NONE;
	if (raw.n == 0 || raw.n > 10)
		return AB_LOST_BAD;
	for (size_t i = 0; i < raw.n; i++) {
		if (raw.p[i] < '0' || raw.p[i] > '9')
			return AB_LOST_BAD;
		n = n * 10 + (uint64_t)(raw.p[i] - '0');
	}
	if (n > UINT32_MAX)
		return AB_LOST_BAD;
	*v = n;
	return AB_LOST_OK;
}

/* Fold the lost= of a start (START) or end record into S: the first sets it, later ones
 * (several logins sharing a ses) widen the span, lowest start and highest end; one that
 * disagrees about having a value makes it bad. */
static void
session_lost(struct ab_session *s, const struct ab_rec *r, int start)
{
	int *st = start ? &s->lost_start_st : &s->lost_end_st;
	uint64_t *have = start ? &s->lost_start : &s->lost_end, v = 0;
	int first = start ? s->logins == 0 : s->ends == 0;
	int got = lost_field(r, &v);

	if (first) {
		*st = got;
		*have = v;
	} else if (*st != got || got == AB_LOST_BAD) {
		*st = AB_LOST_BAD;
	} else if (got == AB_LOST_OK && (start ? v < *have : v > *have)) {
		*have = v;
	}
}

/* TRUSTED_APP op=agentbox-session-*: the contract in docs/audit-records.md. */
static void
session_record(struct ab_review *rv, const struct ab_rec *r)
{
	char op[64], buf[256];
	struct ab_session *s;
	uint64_t ses;

	getf(r, "op", 1, op, sizeof(op));
	if (strncmp(op, "agentbox-session-", 17) != 0)
		return;
	if (strcmp(op, "agentbox-session-refused") == 0) {
		struct ab_refusal f = { .sec = r->sec, .ms = r->ms };

		rv->st.refused++;
		getf(r, "user", 1, f.user, sizeof(f.user));
		getf(r, "service", 1, f.service, sizeof(f.service));
		getf(r, "reason", 1, f.reason, sizeof(f.reason));
		/* Filtered as they come, so the ones kept are the ones selected: other users'
		 * refusals cannot crowd out the one asked for. */
		if (!refusal_selected(rv, &f))
			return;
		rv->st.refused_selected++;
		if (rv->nrefused == AB_REFUSALS_MAX)
			return;	/* counted in refused_selected: the list says how many more */
		if (rv->refused == NULL &&
		    (rv->refused = calloc(AB_REFUSALS_MAX, sizeof(*rv->refused))) == NULL) {
			bookkeeping_failed(rv, &rv->st.refusals_lost, -ENOMEM);
			return;
		}
		rv->refused[rv->nrefused++] = f;
		return;
	}
	ses = getnum(r, "ses", 1);
	if ((s = session_of(rv, r->node, ses)) == NULL)
		return;
	session_seen(s, r->sec);
	if (getf(r, "user", 1, buf, sizeof(buf)) > 0)
		copy_cstr(s->user, sizeof(s->user), buf, strlen(buf));
	if (getnum(r, "uid", 1) != AB_UNSET32)
		s->uid = getnum(r, "uid", 1);
	if (getf(r, "service", 1, buf, sizeof(buf)) > 0)
		copy_cstr(s->service, sizeof(s->service), buf, strlen(buf));
	if (getf(r, "digest", 1, buf, sizeof(buf)) > 0)
		copy_cstr(s->digest, sizeof(s->digest), buf, strlen(buf));
	if (getnum(r, "init_pid", 1) != AB_UNSET32)
		s->init_pid = getnum(r, "init_pid", 1);
	if (strcmp(op, "agentbox-session-start") == 0 || strcmp(op, "agentbox-session-end") == 0)
		session_lost(s, r, op[17] == 's');
	if (strcmp(op, "agentbox-session-start") == 0) {
		/* With an immutable loginuid the session keeps its caller's ses
		 * (docs/audit-records.md, new_ses=no): several logins may then share one row,
		 * which keeps the first start and says how many there were. */
		if (getf(r, "new_ses", 1, buf, sizeof(buf)) > 0 && strcmp(buf, "no") == 0)
			s->shared = 1;
		s->logins++;
		if (s->have_start)
			return;
		s->have_start = 1;
		s->serial_start = r->serial;
		s->start_sec = r->sec;
		s->start_ms = r->ms;
		if (getf(r, "tty", 1, buf, sizeof(buf)) > 0)
			copy_cstr(s->tty, sizeof(s->tty), buf, strlen(buf));
		if (getf(r, "rhost", 1, buf, sizeof(buf)) > 0)
			copy_cstr(s->rhost, sizeof(s->rhost), buf, strlen(buf));
		if (getf(r, "network", 1, buf, sizeof(buf)) > 0)
			copy_cstr(s->network, sizeof(s->network), buf, strlen(buf));
		if (getf(r, "box", 1, buf, sizeof(buf)) > 0)
			copy_cstr(s->box, sizeof(s->box), buf, strlen(buf));
		/* learn=yes (docs/audit-records.md): a learning session; absent otherwise. */
		if (getf(r, "learn", 1, buf, sizeof(buf)) > 0 && strcmp(buf, "yes") == 0)
			s->learn = 1;
	} else if (strcmp(op, "agentbox-session-end") == 0) {
		s->ends++;
		s->have_end = 1;
		if (r->serial > s->serial_end)
			s->serial_end = r->serial;
		s->end_sec = r->sec;
		s->end_ms = r->ms;
		if (getf(r, "reason", 1, buf, sizeof(buf)) > 0)
			copy_cstr(s->end_reason, sizeof(s->end_reason), buf, strlen(buf));
	}
}

enum ab_span
ab_session_span_lost(const struct ab_session *s, int kernel_checked, uint64_t kernel_lost,
    uint64_t *lost)
{
	int open = !s->have_end || s->ends < s->logins;
	uint64_t end;

	*lost = 0;
	if (!s->have_start || s->lost_start_st == AB_LOST_NONE)
		return AB_SPAN_HOST;
	if (s->lost_start_st != AB_LOST_OK || (s->have_end && s->lost_end_st != AB_LOST_OK))
		return AB_SPAN_BAD;
	if (open && kernel_checked <= 0)
		return AB_SPAN_OPEN;
	end = open ? kernel_lost : s->lost_end;
	if (end < s->lost_start)
		return AB_SPAN_BAD;	/* fell: another boot (or host), or a forged value */
	*lost = end - s->lost_start;
	return *lost > 0 ? AB_SPAN_LOST : AB_SPAN_CLEAN;
}

/* ---- Landlock domains ------------------------------------------------------------------ */

/* Room for one more domain: at most MAX_DOMAINS, the table at most half full.
 * -ENOSPC, -ENOMEM. */
static int
domain_room(struct ab_review *rv)
{
	size_t ns, i;
	struct domain *d;

	if (rv->ndom >= MAX_DOMAINS)
		return -ENOSPC;
	if ((rv->ndom + 1) * 2 <= rv->dom_slots)
		return 0;
	ns = rv->dom_slots ? rv->dom_slots * 2 : 1024;
	if ((d = calloc(ns, sizeof(*d))) == NULL)
		return -ENOMEM;
	for (size_t k = 0; k < rv->dom_slots; k++) {
		if (rv->dom[k].id == 0)
			continue;
		for (i = mix(rv->dom[k].id) & (ns - 1); d[i].id != 0; i = (i + 1) & (ns - 1))
			;
		d[i] = rv->dom[k];
	}
	free(rv->dom);
	rv->dom = d;
	rv->dom_slots = ns;
	return 0;
}

/* The slot of domain ID, or the free slot where it would go (the table is never full). */
static struct domain *
domain_slot(const struct ab_review *rv, uint64_t id)
{
	size_t mask = rv->dom_slots - 1, i;

	for (i = mix(id) & mask; rv->dom[i].id != 0 && rv->dom[i].id != id; i = (i + 1) & mask)
		;
	return &rv->dom[i];
}

/*
 * The Landlock domain ID, added when CREATE.  A full table still finds the domains it
 * holds.  Returns 0; -ENOENT when ID is 0 (none) or unknown and not CREATE; -ENOSPC
 * past MAX_DOMAINS; -ENOMEM.
 */
static int
domain_get(struct ab_review *rv, uint64_t id, int create, struct domain **out)
{
	int r;

	*out = NULL;
	if (id == 0)
		return -ENOENT;
	if (rv->dom_slots > 0 && domain_slot(rv, id)->id == id) {
		*out = domain_slot(rv, id);
		return 0;
	}
	if (!create)
		return -ENOENT;
	if ((r = domain_room(rv)) != 0)
		return r;
	*out = domain_slot(rv, id);
	/* A whole new entry: a slot a freed domain left holds nothing of it (domain_del
	 * clears it too, but a count carried over would hide missing records). */
	**out = (struct domain){ .id = id };
	rv->ndom++;
	return 0;
}

/* The domain of a Landlock record, added if new; one the table cannot take is counted
 * for the report (its denial count can then not be checked). */
static struct domain *
domain_of(struct ab_review *rv, uint64_t id)
{
	struct domain *d;
	int r;

	if ((r = domain_get(rv, id, 1, &d)) != 0 && id != 0)
		bookkeeping_failed(rv, &rv->st.domains_untracked, r);
	return d;
}

/* Remove by backward-shift so lookups keep working without tombstones. */
static void
domain_del(struct ab_review *rv, struct domain *d)
{
	size_t mask = rv->dom_slots - 1, i = d - rv->dom, j = i;

	rv->dom[i] = (struct domain){ .id = 0 };
	rv->ndom--;
	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (rv->dom[j].id == 0)
			return;
		k = mix(rv->dom[j].id) & mask;
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			rv->dom[i] = rv->dom[j];
			rv->dom[j] = (struct domain){ .id = 0 };
			i = j;
		}
	}
}

/* Domain D (NULL: none of its records read) ended MISSING records short: its session's,
 * or, with none known, kept by the serial of its end for the spans it ended in. */
static void
domain_short(struct ab_review *rv, const struct ab_rec *r, const struct domain *d,
    uint64_t missing)
{
	if (d != NULL && d->owner != NULL) {
		d->owner->ll_short++;
		d->owner->ll_missing += missing;
		return;
	}
	rv->st.domains_unowned++;
	ab_marks_add(rv->marks, AB_MARK_DOMAIN, 1, r->serial);
}

static void
domain_record(struct ab_review *rv, const struct ab_rec *r)
{
	char status[32];
	uint64_t id, n;
	struct domain *d;

	if (ab_rec_num(r, "domain", 0, 16, &id) != 0)
		return;
	getf(r, "status", 0, status, sizeof(status));
	if (strcmp(status, "allocated") == 0) {
		if ((d = domain_of(rv, id)) != NULL)
			d->allocated = 1;
		return;
	}
	if (strcmp(status, "deallocated") != 0 || ab_rec_num(r, "denials", 0, 10, &n) != 0)
		return;
	if (domain_get(rv, id, 0, &d) != 0)
		d = NULL;	/* no record of it read, or none kept (then counted) */
	rv->st.domains_checked++;
	if (d != NULL && d->records >= n) {
		domain_del(rv, d);
		return;
	}
	/* The kernel counted more denials than the log holds for this domain. */
	{
		uint64_t have = d != NULL ? d->records : 0;
		int alloc = d != NULL && d->allocated;

		domain_short(rv, r, d, n - have);
		if (!alloc) {
			/* Created before the oldest record read: the rest may be in older logs. */
			rv->st.domains_partial++;
			if (rv->st.partial_example[0] == '\0')
				snprintf(rv->st.partial_example, sizeof(rv->st.partial_example),
				    "domain %jx: the kernel counted %ju denials, the logs read hold %ju",
				    (uintmax_t)id, (uintmax_t)n, (uintmax_t)have);
		} else {
			rv->st.domains_short++;
			rv->st.domains_records_missing += n - have;
			if (rv->st.short_example[0] == '\0')
				snprintf(rv->st.short_example, sizeof(rv->st.short_example),
				    "domain %jx: the kernel counted %ju denials, the log holds %ju",
				    (uintmax_t)id, (uintmax_t)n, (uintmax_t)have);
		}
		if (d != NULL)
			domain_del(rv, d);
	}
}

/* ---- users ------------------------------------------------------------------------------- */

static const char *
user_name(struct ab_review *rv, const struct ab_rec *r, const struct ab_session *s,
    struct ab_str node, uint64_t uid)
{
	struct ab_str v;
	struct uidname *c;
	size_t n;

	/* 1. The enriched log translated it on the machine that wrote the record. */
	if (r != NULL && ab_rec_enriched(r, "UID", &v) == 0 &&
	    ab_val_decode("user", v, rv->b_user, sizeof(rv->b_user), &n) == 0 && n > 0 &&
	    strncmp(rv->b_user, "unknown(", 8) != 0)
		return rv->b_user;
	/* 2. The session record names the user it confined. */
	if (s != NULL && s->user[0] != '\0' && (s->uid == uid || uid == AB_UNSET32))
		return s->user;
	/* 3. This machine's account database, only for records written here. */
	if (node.n != 0 || uid == AB_UNSET32)
		return NULL;
	c = &rv->names[uid % 256];
	if (!c->used || c->uid != uid) {
		struct passwd *pw = getpwuid((uid_t)uid);

		c->used = 1;
		c->uid = uid;
		copy_cstr(c->name, sizeof(c->name), pw ? pw->pw_name : "", pw ? strlen(pw->pw_name) : 0);
	}
	return c->name[0] != '\0' ? c->name : NULL;
}

/* ---- filters ----------------------------------------------------------------------------- */

static int
path_match(const char *pat, struct ab_str path)
{
	size_t n = strlen(pat);
	char buf[8192];

	if (strpbrk(pat, "*?[") != NULL) {
		copy_cstr(buf, sizeof(buf), path.p, path.n);
		return fnmatch(pat, buf, 0) == 0;
	}
	while (n > 1 && pat[n - 1] == '/')
		n--;
	/* A prefix on a directory boundary: /home/a matches /home/a/x, not /home/ab. */
	return path.n >= n && memcmp(path.p, pat, n) == 0 &&
	    (path.n == n || path.p[n] == '/' || pat[n - 1] == '/');
}

/* --user: a number is a uid, anything else a name. */
static int
user_matches(const struct ab_review *rv, uint64_t uid, const char *name)
{
	if (rv->filter_uid_valid)
		return uid == rv->filter_uid;
	return name != NULL && strcmp(name, rv->f.user) == 0;
}

static int
passes(const struct ab_review *rv, const struct ab_denial *d)
{
	const struct ab_filter *f = &rv->f;

	if (f->have_session && d->ses != f->session)
		return 0;
	if (f->user != NULL && !user_matches(rv, d->uid, d->user))
		return 0;
	if (f->have_since && d->sec < f->since)
		return 0;
	if (f->have_until && d->sec > f->until)
		return 0;
	/* --kind learn selects the would-be denials; with other kinds, either does. */
	if (f->kinds != 0 && !(f->kinds & (1 << d->kind)) &&
	    !(d->learn && (f->kinds & AB_KIND_LEARN_BIT)))
		return 0;
	if (f->path != NULL && !path_match(f->path, d->path))
		return 0;
	return 1;
}

int
ab_session_selected(const struct ab_review *rv, const struct ab_session *s)
{
	const struct ab_filter *f = &rv->f;
	/* Start not in the records read: it began before them, at a time we cannot know.
	 * Fewer end records than starts (or none): still open, or its end was not logged. */
	uint64_t lo = s->have_start ? s->first_sec : 0;
	uint64_t hi = !s->have_end || s->logins > s->ends ? UINT64_MAX : s->last_sec;

	if (f->have_session && s->ses != f->session)
		return 0;
	if (f->user != NULL && !user_matches(rv, s->uid, s->user))
		return 0;
	if (f->have_since && hi < f->since)
		return 0;
	if (f->have_until && lo > f->until)
		return 0;
	return 1;
}

/* ---- building denials --------------------------------------------------------------- */

static const char *
syscall_name(const struct ab_rec *r)
{
	uint64_t arch, nr;
	int machine;

	if (r == NULL || ab_rec_num(r, "arch", 0, 16, &arch) != 0 ||
	    ab_rec_num(r, "syscall", 0, 10, &nr) != 0 || nr > 100000)
		return NULL;
	if ((machine = audit_elf_to_machine((unsigned)arch)) < 0)
		return NULL;
	return audit_syscall_to_name((int)nr, machine);
}

/* Paths inside the session's own mounts have no host counterpart (DESIGN.md: private
 * /tmp, /var/tmp, /dev/shm, /run/user/UID; /proc is the session's pid namespace). */
static const char *
host_note(struct ab_str p)
{
	static const struct { const char *prefix; const char *note; } priv[] = {
		{ "/tmp", "session-private /tmp" },
		{ "/var/tmp", "session-private /var/tmp" },
		{ "/dev/shm", "session-private /dev/shm" },
		{ "/run/user/", "session-private /run/user" },
		{ "/proc/", "session /proc (pid namespace)" },
		{ "/dev/", "session /dev" },
	};

	for (size_t i = 0; i < sizeof(priv) / sizeof(priv[0]); i++) {
		size_t n = strlen(priv[i].prefix);

		if (p.n >= n && memcmp(p.p, priv[i].prefix, n) == 0 &&
		    (p.n == n || priv[i].prefix[n - 1] == '/' || p.p[n] == '/'))
			return priv[i].note;
	}
	return NULL;
}

/* A denial or network decision of session S: the session's span, and for a session
 * whose start record was rotated away, its uid and user from what names them. */
static void
session_met(struct ab_session *s, const struct ab_denial *d)
{
	session_seen(s, d->sec);
	if (s->uid == AB_UNSET32)
		s->uid = d->uid;
	if (s->user[0] == '\0' && d->user != NULL)
		copy_cstr(s->user, sizeof(s->user), d->user, strlen(d->user));
}

/*
 * Every denial makes its session known, whatever the filters: which sessions there are,
 * and how many denials each has in all, must not depend on --kind or --path (the
 * sessions table shows "N of M", the completeness report counts sessions with denials
 * whose start is not in the logs).  What passes the filters is counted apart.
 */
static void
emit(struct ab_review *rv, struct ab_denial *d, struct ab_session *s)
{
	/* A live-mask record stands for its repeats too (op=agentbox-mask repeats=N). */
	uint64_t w = 1 + d->repeats;

	d->host_path_note = d->path.n > 0 && d->path.p[0] == '/' ? host_note(d->path) : NULL;
	rv->st.denials_all += w;
	/* net_decision(), learn_record() and mask_record() have looked it up already. */
	if (s == NULL && d->net == NULL && !d->learn && d->pattern.n == 0)
		s = session_of(rv, d->node, d->ses);
	if (s != NULL) {
		s->denials_all += w;
		session_met(s, d);
	}
	if (!passes(rv, d))
		return;
	rv->st.denials += w;
	if (s != NULL) {
		s->denials += w;
		s->by_kind[d->kind] += w;
		if (d->net != NULL) {
			/* A learning session's would-be denial was let through: a connection. */
			if (d->learn)
				s->net_allowed++;
			else
				s->net_denied += d->net->attempts;
			count_top(rv, &s->paths, d->net->host, 1);
		} else if (d->path.n > 0)
			count_top(rv, &s->paths, d->path, w);
		else if (d->addr.n > 0)
			count_top(rv, &s->paths, d->addr, 1);
		if (d->exe.n > 0)
			count_top(rv, &s->progs, d->exe, w);
	}
	if (rv->fn != NULL) {
		rv->st.net_shown += d->net != NULL;
		rv->fn(rv->arg, d);
	}
}

/*
 * op=agentbox-net: one network decision of agentbox-netd.  The header's pid, uid, auid
 * and ses are the daemon's: the session and user are the body's, and the daemon's
 * process is not the agent's (pid, exe, comm stay unknown).  Denied decisions are
 * denials; allowed ones count towards their session, and reach FN only when asked for
 * (net_decisions: --kind net, the net view).
 */
static void
net_decision(struct ab_review *rv, const struct ab_rec *r)
{
	struct ab_net *n = &rv->net;
	struct ab_denial d = { .sec = r->sec, .ms = r->ms, .serial = r->serial, .node = r->node,
	    .kind = AB_KIND_NET, .auid = AB_UNSET32, .pid = AB_UNSET32, .net = n };
	struct ab_session *s;
	int rc;

	if ((rc = ab_net_parse(r, n)) == 1)
		return;
	rv->st.net_records++;
	rv->st.net_malformed += rc != 0;
	if (n->allowed)
		rv->st.net_allowed++;
	else
		rv->st.net_denied++;
	d.ses = n->ses;
	d.uid = n->uid;
	d.exe = d.comm = d.path = d.domain = (struct ab_str){ "", 0 };
	d.access = n->proto;
	d.addr = n->addr;
	snprintf(d.rule, sizeof(d.rule), "agentbox-netd");
	s = session_of(rv, d.node, d.ses);	/* NULL: no ses (malformed), or table full */
	d.user = n->b_user[0] != '\0' ? n->b_user : s != NULL && s->user[0] != '\0' ? s->user : NULL;
	if (s != NULL) {
		s->net_records_all++;
		session_met(s, &d);
	}
	/* A denied decision is a denial; a learning session's open with reason=learn is a
	 * would-be one (its close, with the bytes, is an allowed decision as any other). */
	d.learn = n->learn;
	if (!n->allowed || n->learn) {
		emit(rv, &d, s);
		return;
	}
	if (!passes(rv, &d))
		return;
	if (s != NULL && strcmp(n->b_event, "open") == 0)
		s->net_allowed++;
	if (rv->f.net_decisions && rv->fn != NULL) {
		rv->st.net_shown++;
		rv->fn(rv->arg, &d);
	}
}

/* op=agentbox-net-session: the daemon took the session, or let it go (and why). */
static void
net_session(struct ab_review *rv, const struct ab_rec *r)
{
	char event[16], reason[32];
	struct ab_session *s;
	uint64_t ses;
	int rc;

	if ((rc = ab_net_session_parse(r, &ses, event, sizeof(event), reason, sizeof(reason))) == 1)
		return;
	if (rc != 0)
		rv->st.net_malformed++;
	if ((s = session_of(rv, r->node, ses)) == NULL)
		return;
	session_seen(s, r->sec);
	if (strcmp(event, "end") == 0)
		snprintf(s->net_end, sizeof(s->net_end), "%s", reason[0] ? reason : "end");
}

/*
 * op=agentbox-learn: a would-be Landlock denial of a learning session, recorded by
 * agentbox-maskd.  As for network records the header is the daemon's: the session, uid,
 * pid and comm are the message's, the user is the session's (or, for this host's own
 * records, its account database's: never the enriched translation of the header's uid).
 */
static void
learn_record(struct ab_review *rv, const struct ab_rec *r)
{
	struct ab_learn *l = &rv->learn;
	struct ab_denial d = { .sec = r->sec, .ms = r->ms, .serial = r->serial, .node = r->node,
	    .kind = AB_KIND_LANDLOCK, .auid = AB_UNSET32, .learn = 1 };
	struct ab_session *s;
	int rc;

	if ((rc = ab_learn_parse(r, l)) == 1)
		return;
	rv->st.learn_records++;
	rv->st.learn_malformed += rc != 0;
	d.malformed = rc != 0;
	d.ses = l->ses;
	d.uid = l->uid;
	d.pid = l->pid;
	d.comm = l->comm;
	d.access = l->access;
	d.path = l->path;
	d.exe = d.domain = d.dir = d.addr = (struct ab_str){ "", 0 };
	snprintf(d.rule, sizeof(d.rule), "learn (agentbox-maskd)");
	s = session_of(rv, d.node, d.ses);	/* NULL: no ses (malformed), or table full */
	d.user = user_name(rv, NULL, s, d.node, d.uid);
	emit(rv, &d, s);
}

/* op=agentbox-learn-lost: the session's learning record is incomplete from here on. */
static void
learn_lost(struct ab_review *rv, const struct ab_rec *r)
{
	char reason[32];
	struct ab_session *s;
	uint64_t ses, uid;
	int rc;

	if ((rc = ab_learn_lost_parse(r, &ses, &uid, reason, sizeof(reason))) == 1)
		return;
	rv->st.learn_malformed += rc != 0;
	if (ses == AB_UNSET32) {
		rv->st.learn_lost_unattributed++;
		return;
	}
	if ((s = session_of(rv, r->node, ses)) == NULL)
		return;		/* counted: the table could not hold it */
	session_seen(s, r->sec);
	if (s->learn_lost++ == 0)
		copy_cstr(s->learn_lost_reason, sizeof(s->learn_lost_reason),
		    reason[0] ? reason : "?", reason[0] ? strlen(reason) : 1);
}

/*
 * op=agentbox-mask: a live-mask denial of agentbox-maskd, with its pattern, standing for
 * 1 + repeats denials.  Listed as kind dac, access EPERM (what the opener got), as the
 * kernel's own event of it was before these records (docs/audit-records.md "Live
 * masks"); the session then joins its kernel events to these (ab_review_event).  As for
 * learning records the header is the daemon's: everything else is the message's.
 */
static void
mask_record(struct ab_review *rv, const struct ab_rec *r)
{
	struct ab_mask *m = &rv->mask;
	struct ab_denial d = { .sec = r->sec, .ms = r->ms, .serial = r->serial, .node = r->node,
	    .kind = AB_KIND_DAC, .auid = AB_UNSET32, .exit = -EPERM, .has_exit = 1 };
	struct ab_session *s;
	int rc;

	if ((rc = ab_mask_parse(r, m)) == 1)
		return;
	rv->st.mask_records++;
	rv->st.mask_repeats += m->repeats;
	rv->st.mask_malformed += rc != 0;
	d.malformed = rc != 0;
	d.ses = m->ses;
	d.uid = m->uid;
	d.pid = m->pid;
	d.comm = m->comm;
	d.exe = m->prog;
	d.path = m->path;
	d.pattern = m->pattern.n > 0 ? m->pattern : (struct ab_str){ "?", 1 };
	d.repeats = m->repeats;
	d.access = (struct ab_str){ "EPERM", 5 };
	d.domain = d.dir = d.addr = (struct ab_str){ "", 0 };
	snprintf(d.rule, sizeof(d.rule), "mask (agentbox-maskd, %s)", m->b_access[0] ?
	    m->b_access : "?");
	s = session_of(rv, d.node, d.ses);	/* NULL: no ses (malformed), or table full */
	if (s != NULL)
		s->mask_records++;
	d.user = user_name(rv, NULL, s, d.node, d.uid);
	emit(rv, &d, s);
}

/* op=agentbox-mask-end: agentbox-maskd ended the session (it failed closed). */
static void
mask_end(struct ab_review *rv, const struct ab_rec *r)
{
	struct ab_session *s;
	char reason[24];
	uint64_t ses;
	int rc;

	if ((rc = ab_mask_end_parse(r, &ses, reason, sizeof(reason))) == 1)
		return;
	rv->st.mask_malformed += rc != 0;
	if (ses == AB_UNSET32 || (s = session_of(rv, r->node, ses)) == NULL)
		return;
	session_seen(s, r->sec);
	if (s->mask_end[0] == '\0')
		copy_cstr(s->mask_end, sizeof(s->mask_end), reason, strlen(reason));
}

/* op=agentbox-mask-lost: denials of the session agentbox-maskd could not write. */
static void
mask_lost(struct ab_review *rv, const struct ab_rec *r)
{
	struct ab_session *s;
	uint64_t ses, count;
	int rc;

	if ((rc = ab_mask_lost_parse(r, &ses, &count)) == 1)
		return;
	rv->st.mask_malformed += rc != 0;
	rv->st.mask_lost += count;
	if (ses == AB_UNSET32 || (s = session_of(rv, r->node, ses)) == NULL) {
		rv->st.mask_lost_unattributed++;
		return;
	}
	session_seen(s, r->sec);
	/* A count that is not one still says records are missing: at least one. */
	s->mask_lost += count > 0 ? count : 1;
}

/*
 * The rule agentbox-maskd answered the open of event RECS with, from its FANOTIFY record
 * (resp=2: denied; fan_info, hex: pattern index + 1, 10000 history, 10001 undecidable):
 * 0 when the event has none.
 */
static uint64_t
fanotify_rule(const struct ab_rec *recs, size_t n)
{
	uint64_t resp, info;

	for (size_t i = 0; i < n; i++)
		if (recs[i].t == AB_T_FANOTIFY && ab_rec_num(&recs[i], "resp", 0, 10, &resp) == 0 &&
		    resp == 2 && ab_rec_num(&recs[i], "fan_info", 0, 16, &info) == 0)
			return info;
	return 0;
}

/*
 * Is the kernel's event of a live-mask denial (a FANOTIFY denial by a pattern or the
 * history, with its SYSCALL SC) one that agentbox-maskd's own record stands for?  maskd
 * writes its record before it answers, so the record is in the log before the event:
 * once the session has one, each later such event is the same denial seen twice (or a
 * repeat its count holds), and is not listed again.  Undecidable and fail-closed
 * denials (10001) have no record of maskd's: the kernel's event is listed.
 */
static int
mask_joined(struct ab_review *rv, const struct ab_rec *sc, uint64_t rule)
{
	const struct ab_session *s;

	if (rule == 0 || rule > 0x10000)
		return 0;
	s = session_find(rv, hash_str(sc->node), getnum(sc, "ses", 0));
	return s != NULL && s->mask_records > 0;
}

/* Process details: from SYSCALL, else from REC itself (SECCOMP, LANDLOCK_DOMAIN). */
static void
fill_process(struct ab_review *rv, struct ab_denial *d, const struct ab_rec *sc,
    const struct ab_rec *self)
{
	const struct ab_rec *p = sc != NULL ? sc : self;

	d->pid = getnum(p, "pid", 0);
	d->uid = getnum(p, "uid", 0);
	d->auid = getnum(p, "auid", 0);
	d->ses = getnum(p, "ses", 0);
	d->exe.n = getf(p, "exe", 0, rv->b_exe, sizeof(rv->b_exe));
	d->exe.p = rv->b_exe;
	d->comm.n = getf(p, "comm", 0, rv->b_comm, sizeof(rv->b_comm));
	d->comm.p = rv->b_comm;
	d->syscall = syscall_name(p);
	if (sc != NULL) {
		struct ab_str v;
		char *end;

		if (ab_rec_field(sc, "exit", 0, &v) == 0 && v.n < 24) {
			char num[24];

			copy_cstr(num, sizeof(num), v.p, v.n);
			errno = 0;
			d->exit = strtol(num, &end, 10);
			d->has_exit = errno == 0 && *end == '\0';
		}
	}
}

/* The object of a DAC denial: the PATH item the syscall acted on, made absolute. */
static int
dac_path(struct ab_review *rv, struct ab_denial *d, const struct ab_rec *recs, size_t n,
    const struct ab_rec *cwd)
{
	const struct ab_rec *best = NULL;
	char nt[32];
	size_t len, cl;
	int parent = 0;

	for (size_t i = 0; i < n; i++) {
		if (recs[i].t != AB_T_PATH)
			continue;
		getf(&recs[i], "nametype", 0, nt, sizeof(nt));
		if (best == NULL || (strcmp(nt, "PARENT") != 0 && strcmp(nt, "UNKNOWN") != 0)) {
			best = &recs[i];
			parent = strcmp(nt, "PARENT") == 0;
		}
		if (strcmp(nt, "NORMAL") == 0 || strcmp(nt, "CREATE") == 0 || strcmp(nt, "DELETE") == 0)
			break;
	}
	d->path.p = rv->b_path;
	d->path.n = 0;
	if (best == NULL)
		return 0;
	len = getf(best, "name", 0, rv->b_path, sizeof(rv->b_path));
	if (len > 0 && rv->b_path[0] != '/' && cwd != NULL &&
	    (cl = getf(cwd, "cwd", 0, rv->b_cwd, sizeof(rv->b_cwd))) > 0 &&
	    cl + 1 + len < sizeof(rv->b_path)) {
		memmove(rv->b_path + cl + 1, rv->b_path, len + 1);
		memcpy(rv->b_path, rv->b_cwd, cl);
		rv->b_path[cl] = '/';
		len += cl + 1;
	}
	d->path.n = len;
	return parent;	/* only the directory of the object is named */
}

static void
errno_access(struct ab_review *rv, struct ab_denial *d)
{
	const char *name = d->has_exit && d->exit < 0 && d->exit > -4096 ?
	    strerrorname_np((int)-d->exit) : NULL;

	if (name != NULL)
		snprintf(rv->b_access, sizeof(rv->b_access), "%s", name);
	else
		snprintf(rv->b_access, sizeof(rv->b_access), "exit %ld", d->exit);
	d->access.p = rv->b_access;
	d->access.n = strlen(rv->b_access);
}

static void
landlock_denial(struct ab_review *rv, const struct ab_rec *r, const struct ab_rec *recs,
    size_t n, const struct ab_rec *sc, const struct ab_rec *cwd)
{
	struct ab_denial d = { .sec = r->sec, .ms = r->ms, .serial = r->serial, .node = r->node,
	    .kind = AB_KIND_LANDLOCK };
	const struct ab_rec *alloc = NULL;
	struct ab_session *s;
	char a[128], b[128];
	uint64_t id;

	for (size_t i = 0; i < n; i++)
		if (recs[i].t == AB_T_LL_DOMAIN)
			alloc = &recs[i];
	fill_process(rv, &d, sc, alloc);
	d.access.n = getf(r, "blockers", 0, rv->b_access, sizeof(rv->b_access));
	d.access.p = rv->b_access;
	d.domain.n = getf(r, "domain", 0, rv->b_domain, sizeof(rv->b_domain));
	d.domain.p = rv->b_domain;
	d.path.n = getf(r, "path", 0, rv->b_path, sizeof(rv->b_path));
	d.path.p = rv->b_path;
	/* Landlock names the directory for creations and removals (fs.make_*, fs.remove_*):
	 * the PATH record of the syscall names the entry itself. */
	if (d.path.n == 0 || (d.access.n > 8 && (memcmp(d.access.p, "fs.make_", 8) == 0 ||
	    memcmp(d.access.p, "fs.remove", 9) == 0))) {
		struct ab_str dir = d.path;
		char saved[256];

		copy_cstr(saved, sizeof(saved), dir.p, dir.n);
		/* Kept whole for suggest: the right to create or remove is the directory's. */
		copy_cstr(rv->b_dir, sizeof(rv->b_dir), dir.p, dir.n);
		d.dir.p = rv->b_dir;
		d.dir.n = strlen(rv->b_dir);
		if (dac_path(rv, &d, recs, n, cwd) || d.path.n == 0 || (dir.n > 0 && (d.path.n < dir.n ||
		    memcmp(d.path.p, saved, strlen(saved)) != 0))) {
			/* No PATH record, or one that is not below Landlock's directory. */
			d.path.n = strlen(saved);
			memcpy(rv->b_path, saved, d.path.n + 1);
		}
	}
	d.addr.p = rv->b_addr;
	if (getf(r, "daddr", 0, a, sizeof(a)) > 0 || getf(r, "saddr", 0, a, sizeof(a)) > 0) {
		if (getf(r, "dest", 0, b, sizeof(b)) == 0)
			getf(r, "src", 0, b, sizeof(b));
		d.addr.n = (size_t)snprintf(rv->b_addr, sizeof(rv->b_addr),
		    strchr(a, ':') ? "[%s]:%s" : "%s:%s", a, b);
	} else if (getf(r, "opid", 0, a, sizeof(a)) > 0) {
		getf(r, "ocomm", 0, b, sizeof(b));
		d.addr.n = (size_t)snprintf(rv->b_addr, sizeof(rv->b_addr), "pid %s (%s)", a, b);
	}
	if (d.addr.n >= sizeof(rv->b_addr))
		d.addr.n = sizeof(rv->b_addr) - 1;
	snprintf(d.rule, sizeof(d.rule), "landlock domain %.*s", (int)d.domain.n, d.domain.p);
	s = session_find(rv, hash_str(d.node), d.ses);
	if (ab_rec_num(r, "domain", 0, 16, &id) == 0) {
		struct domain *dm = domain_of(rv, id);

		if (dm != NULL) {
			dm->records++;
			if (dm->owner == NULL)
				dm->owner = s;
		}
	}
	d.user = user_name(rv, sc != NULL ? sc : alloc, s, d.node, d.uid);
	emit(rv, &d, s);
}

/* The action of a SECCOMP record's code=: which ones deny the call. */
static const char *
seccomp_action(uint64_t code, int *denies)
{
	*denies = 1;
	switch (code & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS: return "kill_process";
	case SECCOMP_RET_KILL_THREAD: return "kill_thread";
	case SECCOMP_RET_TRAP: return "trap";
	case SECCOMP_RET_ERRNO: return "errno";
	case SECCOMP_RET_USER_NOTIF: return "user_notif";
	case SECCOMP_RET_TRACE: return "trace";
	case SECCOMP_RET_LOG: *denies = 0; return "log";
	case SECCOMP_RET_ALLOW: *denies = 0; return "allow";
	}
	return "unknown";
}

static int
seccomp_denial(struct ab_review *rv, const struct ab_rec *r, const struct ab_rec *sc)
{
	struct ab_denial d = { .sec = r->sec, .ms = r->ms, .serial = r->serial, .node = r->node,
	    .kind = AB_KIND_SECCOMP };
	struct ab_session *s;
	const char *act;
	uint64_t code;
	int denies;

	if (ab_rec_num(r, "code", 0, 16, &code) != 0)
		code = 0;	/* unreadable action: report it rather than drop it */
	act = seccomp_action(code, &denies);
	if (!denies)
		return 0;
	fill_process(rv, &d, NULL, r);
	if (sc != NULL)
		d.pid = getnum(sc, "pid", 0) != AB_UNSET32 ? getnum(sc, "pid", 0) : d.pid;
	if ((code & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO) {
		d.exit = -(long)(code & SECCOMP_RET_DATA);
		d.has_exit = 1;
		snprintf(d.rule, sizeof(d.rule), "seccomp errno(%s)",
		    strerrorname_np((int)(code & SECCOMP_RET_DATA)) ?: "?");
	} else
		snprintf(d.rule, sizeof(d.rule), "seccomp %s", act);
	snprintf(rv->b_access, sizeof(rv->b_access), "%s", d.syscall ? d.syscall : "unknown-syscall");
	d.access.p = rv->b_access;
	d.access.n = strlen(rv->b_access);
	d.path.p = rv->b_path;
	d.path.n = 0;
	s = session_find(rv, hash_str(d.node), d.ses);
	d.user = user_name(rv, r, s, d.node, d.uid);
	emit(rv, &d, s);
	return 1;
}

/* A failed syscall caught by agentbox's exit rules (key "agentbox", possibly among
 * several keys: libaudit then hex-encodes them joined by 0x01). */
static int
is_rule_hit(const struct ab_rec *sc)
{
	struct ab_str v;
	char key[512];
	size_t n;

	if (ab_rec_field(sc, "success", 0, &v) != 0 || v.n != 2 || memcmp(v.p, "no", 2) != 0)
		return 0;
	if (ab_rec_field(sc, "key", 0, &v) != 0 || ab_val_decode("key", v, key, sizeof(key), &n) != 0)
		return 0;
	for (char *k = key; k != NULL && k < key + n;) {
		char *e = memchr(k, 0x01, key + n - k);
		size_t kl = e ? (size_t)(e - k) : (size_t)(key + n - k);

		if (kl == 8 && memcmp(k, "agentbox", 8) == 0)
			return 1;
		k = e ? e + 1 : NULL;
	}
	return 0;
}

static void
dac_denial(struct ab_review *rv, const struct ab_rec *sc, const struct ab_rec *recs, size_t n,
    const struct ab_rec *cwd, uint64_t fan_rule)
{
	struct ab_denial d = { .sec = sc->sec, .ms = sc->ms, .serial = sc->serial, .node = sc->node,
	    .kind = AB_KIND_DAC };
	const struct ab_rec *obj = NULL;
	struct ab_session *s;
	char a[64];

	fill_process(rv, &d, sc, NULL);
	errno_access(rv, &d);
	dac_path(rv, &d, recs, n, cwd);
	/* No Landlock or seccomp record explains it: DAC, a mask, a read-only mount -- or a
	 * Landlock record the kernel dropped (it logs those without waiting for the backlog),
	 * which the completeness report then counts against the domain's denials=N. */
	snprintf(d.rule, sizeof(d.rule), "audit key agentbox");
	/* A live-mask denial no record of maskd's stands for: its rule number at least. */
	if (fan_rule != 0)
		snprintf(d.rule, sizeof(d.rule), "mask (agentbox-maskd, fan_info %jx)",
		    (uintmax_t)fan_rule);
	for (size_t i = 0; i < n; i++)
		if (recs[i].t == AB_T_OBJ_PID)
			obj = &recs[i];
	d.addr.p = rv->b_addr;
	if (obj != NULL && getf(obj, "opid", 0, a, sizeof(a)) > 0) {
		char c[64];

		getf(obj, "ocomm", 0, c, sizeof(c));
		d.addr.n = (size_t)snprintf(rv->b_addr, sizeof(rv->b_addr), "pid %s (%s)", a, c);
	}
	s = session_find(rv, hash_str(d.node), d.ses);
	d.user = user_name(rv, sc, s, d.node, d.uid);
	emit(rv, &d, s);
}

static void
daemon_record(struct ab_review *rv, const struct ab_rec *r)
{
	const struct ab_str t = r->type;

	if (t.n == 12 && memcmp(t.p, "DAEMON_START", 12) == 0)
		rv->st.daemon_start++;
	else if (t.n == 10 && memcmp(t.p, "DAEMON_END", 10) == 0)
		rv->st.daemon_end++;
	else if (t.n == 12 && memcmp(t.p, "DAEMON_ABORT", 12) == 0)
		rv->st.daemon_abort++;
	else if (t.n == 10 && memcmp(t.p, "DAEMON_ERR", 10) == 0)
		rv->st.daemon_err++;
	else if (t.n == 13 && memcmp(t.p, "DAEMON_ROTATE", 13) == 0)
		rv->st.daemon_rotate++;
}

void
ab_review_event(void *arg, const struct ab_rec *recs, size_t n)
{
	struct ab_review *rv = arg;
	const struct ab_rec *sc = NULL, *cwd = NULL;
	size_t i, explained = 0;
	int r;

	if (n == 0)
		return;
	if (rv->st.oldest_sec == 0 || recs[0].sec < rv->st.oldest_sec)
		rv->st.oldest_sec = recs[0].sec;
	if (recs[0].sec > rv->st.newest_sec)
		rv->st.newest_sec = recs[0].sec;
	if (recs[0].t == AB_T_DAEMON) {
		daemon_record(rv, &recs[0]);
		return;
	}
	if ((r = ab_complete_serial(rv->cp, recs[0].node, recs[0].serial, recs[0].sec)) != 0)
		bookkeeping_failed(rv, &rv->st.serials_untracked, r);
	for (i = 0; i < n; i++) {
		if (recs[i].t == AB_T_SYSCALL && sc == NULL)
			sc = &recs[i];
		else if (recs[i].t == AB_T_CWD && cwd == NULL)
			cwd = &recs[i];
	}
	for (i = 0; i < n; i++) {
		switch (recs[i].t) {
		case AB_T_LL_DOMAIN:
			domain_record(rv, &recs[i]);
			break;
		case AB_T_TRUSTED_APP:
			session_record(rv, &recs[i]);
			net_decision(rv, &recs[i]);
			net_session(rv, &recs[i]);
			learn_record(rv, &recs[i]);
			learn_lost(rv, &recs[i]);
			mask_record(rv, &recs[i]);
			mask_lost(rv, &recs[i]);
			mask_end(rv, &recs[i]);
			break;
		default:
			break;
		}
	}
	for (i = 0; i < n; i++) {
		if (recs[i].t == AB_T_LL_ACCESS) {
			landlock_denial(rv, &recs[i], recs, n, sc, cwd);
			explained++;
		} else if (recs[i].t == AB_T_SECCOMP)
			explained += seccomp_denial(rv, &recs[i], sc);
	}
	if (explained == 0 && sc != NULL && is_rule_hit(sc)) {
		uint64_t fan = fanotify_rule(recs, n);

		if (mask_joined(rv, sc, fan))
			rv->st.mask_joined++;
		else
			dac_denial(rv, sc, recs, n, cwd, fan);
	}
}

/* ---- lifecycle ------------------------------------------------------------------------ */

int
ab_review_new(const struct ab_filter *filter, ab_denial_fn fn, void *arg, struct ab_review **out)
{
	struct ab_review *rv;
	int r;

	if ((rv = calloc(1, sizeof(*rv))) == NULL)
		return -ENOMEM;
	if (filter != NULL)
		rv->f = *filter;
	rv->fn = fn;
	rv->arg = arg;
	if ((r = ab_complete_new(&rv->cp)) != 0) {
		free(rv);
		return r;
	}
	if ((r = ab_marks_new(&rv->marks)) != 0) {
		ab_complete_free(rv->cp);
		free(rv);
		return r;
	}
	if (rv->f.user != NULL) {
		char *end;
		unsigned long u;

		errno = 0;
		u = strtoul(rv->f.user, &end, 10);
		/* A number past 32 bits is no uid: cast, it would select another user's. */
		if (errno == 0 && *end == '\0' && end != rv->f.user && u < AB_UNSET32) {
			rv->filter_uid = (uid_t)u;
			rv->filter_uid_valid = 1;
		}
	}
	*out = rv;
	return 0;
}

void
ab_review_finish(struct ab_review *rv)
{
	for (size_t i = 0; i < rv->dom_slots; i++)
		if (rv->dom[i].id != 0)
			rv->st.domains_open++;
	ab_marks_sort(rv->marks);
}

void
ab_review_unreadable(struct ab_review *rv, const char *line, size_t len)
{
	uint64_t serial = 0;
	int placed = ab_line_serial(line, len, &serial) == 0;

	ab_marks_add(rv->marks, AB_MARK_UNREADABLE, placed, serial);
}

void
ab_review_grouping(void *review, uint64_t serial)
{
	struct ab_review *rv = review;

	ab_marks_add(rv->marks, AB_MARK_GROUPING, 1, serial);
}

int
ab_session_serials(const struct ab_session *s, uint64_t *lo, uint64_t *hi)
{
	if (!s->have_start)
		return -ENOENT;
	*lo = s->serial_start;
	*hi = s->have_end && s->ends >= s->logins ? s->serial_end : UINT64_MAX;
	return 0;
}

int
ab_session_trouble(const struct ab_review *rv, const struct ab_session *s,
    struct ab_span_trouble *t)
{
	uint64_t lo, hi;

	memset(t, 0, sizeof(*t));
	t->ll_short = s->ll_short;
	t->ll_missing = s->ll_missing;
	if (ab_session_serials(s, &lo, &hi) != 0)
		return -ENOENT;
	t->serials_known = ab_complete_missing_in(rv->cp, (struct ab_str){ s->node, strlen(s->node) }, lo, hi,
	    &t->serials_missing) == 0;
	t->ll_unknown = ab_marks_in(rv->marks, AB_MARK_DOMAIN, lo, hi);
	t->unreadable = ab_marks_in(rv->marks, AB_MARK_UNREADABLE, lo, hi);
	t->grouping = ab_marks_in(rv->marks, AB_MARK_GROUPING, lo, hi);
	return 0;
}

void
ab_review_trouble_selected(const struct ab_review *rv, uint64_t in[AB_MARK_N])
{
	uint64_t (*spans)[2];
	const struct ab_session *s;
	size_t n = 0;
	int k;

	if ((spans = calloc(rv->nses ? rv->nses : 1, sizeof(*spans))) == NULL) {
		for (k = 0; k < AB_MARK_N; k++)
			in[k] = ab_marks_total(rv->marks, k);	/* all of them: never fewer */
		return;
	}
	for (size_t i = 0; (s = ab_review_session(rv, i)) != NULL; i++)
		if (ab_session_selected(rv, s) &&
		    ab_session_serials(s, &spans[n][0], &spans[n][1]) == 0)
			n++;
	for (k = 0; k < AB_MARK_N; k++)
		in[k] = ab_marks_in_union(rv->marks, k, spans, n);
	free(spans);
}

uint64_t
ab_review_unplaced(const struct ab_review *rv, enum ab_mark k)
{
	return ab_marks_unplaced(rv->marks, k);
}

const struct ab_review_stats *
ab_review_stats(const struct ab_review *rv)
{
	return &rv->st;
}

struct ab_complete *
ab_review_complete(struct ab_review *rv)
{
	return rv->cp;
}

const struct ab_session *
ab_review_session(const struct ab_review *rv, size_t i)
{
	return i < rv->nses ? rv->ses[i] : NULL;
}

const struct ab_filter *
ab_review_filter(const struct ab_review *rv)
{
	return &rv->f;
}

int
ab_review_filtering(const struct ab_review *rv)
{
	const struct ab_filter *f = &rv->f;

	return f->have_session || f->user != NULL || f->have_since || f->have_until ||
	    f->kinds != 0 || f->path != NULL;
}

const struct ab_refusal *
ab_review_refusal(const struct ab_review *rv, size_t i)
{
	return i < rv->nrefused ? &rv->refused[i] : NULL;
}

void
ab_review_free(struct ab_review *rv)
{
	if (rv == NULL)
		return;
	free(rv->refused);
	for (size_t i = 0; i < rv->nses; i++) {
		top_free(rv->ses[i]->paths);
		top_free(rv->ses[i]->progs);
		free(rv->ses[i]);
	}
	free(rv->ses);
	free(rv->ses_idx);
	free(rv->dom);
	ab_marks_free(rv->marks);
	ab_complete_free(rv->cp);
	free(rv);
}

/* ---- time arguments ------------------------------------------------------------------ */

/*
 * The last second of the period that starts at TM (local time): the next day, or the
 * next minute, through mktime (a DST day has 23 or 25 hours), minus one second.
 */
static int
period_end(struct tm *tm, int day, uint64_t *out)
{
	time_t t;

	if (day)
		tm->tm_mday++;
	else
		tm->tm_min++;
	tm->tm_isdst = -1;
	if ((t = mktime(tm)) == (time_t)-1 || t <= 0)
		return -EINVAL;
	*out = (uint64_t)t - 1;
	return 0;
}

/*
 * UPPER: T ends a range (--until), so a time named to the day ("2026-11-30", "today")
 * or to the minute ("2026-11-30 14:05") means the last second of that day or minute,
 * as a reader of "--until 2026-11-30" expects that day to be in; a time to the second,
 * epoch seconds and "N ago" are exact either way.
 */
int
ab_parse_time(const char *s, uint64_t now, int upper, uint64_t *out)
{
	static const struct { const char *fmt; int day, minute; } fmts[] = {
		{ "%Y-%m-%d %H:%M:%S", 0, 0 }, { "%Y-%m-%dT%H:%M:%S", 0, 0 },
		{ "%Y-%m-%d %H:%M", 0, 1 }, { "%Y-%m-%dT%H:%M", 0, 1 }, { "%Y-%m-%d", 1, 0 },
	};
	struct tm tm;
	char *end;
	unsigned long long v;
	time_t t;
	size_t i;

	if (strcmp(s, "now") == 0) {
		*out = now;
		return 0;
	}
	if (strcmp(s, "today") == 0 || strcmp(s, "yesterday") == 0) {
		t = (time_t)now;
		if (localtime_r(&t, &tm) == NULL)
			return -EINVAL;
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		tm.tm_isdst = -1;
		if (strcmp(s, "yesterday") == 0)
			tm.tm_mday--;
		if (upper)
			return period_end(&tm, 1, out);
		if ((t = mktime(&tm)) == (time_t)-1)
			return -EINVAL;
		*out = (uint64_t)t;
		return 0;
	}
	errno = 0;
	v = strtoull(s[0] == '@' ? s + 1 : s, &end, 10);
	if (errno == 0 && end != s && *end == '\0' && s[0] != '-') {
		*out = v;
		return 0;
	}
	if (errno == 0 && end != s && *end != '\0' && end[1] == '\0' && strchr("smhd", *end) != NULL &&
	    s[0] != '-' && s[0] != '@') {
		uint64_t mul = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : 86400;

		if (v > now / mul)
			return -EINVAL;
		*out = now - v * mul;
		return 0;
	}
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, fmts[i].fmt, &tm);
		if (end == NULL || *end != '\0')
			continue;
		if (upper && (fmts[i].day || fmts[i].minute))
			return period_end(&tm, fmts[i].day, out);
		tm.tm_isdst = -1;
		if ((t = mktime(&tm)) == (time_t)-1)
			return -EINVAL;
		*out = (uint64_t)t;
		return 0;
	}
	return -EINVAL;
}
