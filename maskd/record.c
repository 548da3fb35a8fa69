/*
 * The record of each live-mask denial (docs/audit-records.md "Live masks"): one
 * op=agentbox-mask record per denial, written by the enforcer before it answers, so the
 * record precedes the opener's own kernel event in the log (agentbox-audit joins them:
 * audit/analyze.c).  An agent that retries one masked file in a loop must not flood the
 * audit log, and must not hide either: repeats of one key (session, path, access,
 * pattern) within AB_MASKREC_WINDOW_MS of the key's last record are counted, and the
 * count goes out as repeats=N on the key's next record.  Nothing is dropped uncounted:
 * a window that ends, a key the bounded table evicts and the session's end all write
 * what they hold; a record the sink could not write is counted and goes out on
 * op=agentbox-mask-lost.
 *
 * Pure bookkeeping over an injected sink and clock: tests/unit/test_maskd_record.c
 * drives it without root or an audit socket.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libaudit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maskd.h"

struct key {
	uint64_t	 hash;		/* 0: an empty slot */
	uint32_t	 ses, uid;
	pid_t		 pid;		/* the latest denial's: a late record is its */
	int		 exec;
	char		*path, *pattern, *exe;
	char		 comm[64];
	uint64_t	 since_ms;	/* the window: from the key's last record */
	uint64_t	 used_ms;	/* its latest denial: the oldest is evicted */
	uint64_t	 pending;	/* denials counted since its last record */
};

struct ab_maskrec {
	struct ab_maskrec_sink	 sink;
	struct key		 k[AB_MASKREC_MAX];
	uint64_t		 due_ms;	/* the earliest window with a count ends */
	int			 have_due;
	/* Denials off the record, for the next agentbox-mask-lost (the first one's
	 * session and uid name it). */
	uint64_t		 lost;
	uint32_t		 lost_ses, lost_uid;
	struct ab_maskrec_stats	 st;
};

int
ab_maskrec_new(const struct ab_maskrec_sink *sink, struct ab_maskrec **out)
{
	struct ab_maskrec *r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return -ENOMEM;
	r->sink = *sink;
	*out = r;
	return 0;
}

static void
key_clear(struct key *k)
{
	free(k->path);
	free(k->pattern);
	free(k->exe);
	memset(k, 0, sizeof(*k));
}

void
ab_maskrec_free(struct ab_maskrec *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < AB_MASKREC_MAX; i++)
		key_clear(&r->k[i]);
	free(r);
}

void
ab_maskrec_stats(const struct ab_maskrec *r, struct ab_maskrec_stats *out)
{
	*out = r->st;
}

/* FNV-1a over the key's parts; never 0 (the empty slot). */
static uint64_t
hash_of(const struct ab_maskrec_deny *d)
{
	uint64_t h = 0xcbf29ce484222325ull ^ d->ses ^ ((uint64_t)(d->exec != 0) << 32);
	const char *parts[2] = { d->path, d->pattern };
	size_t i;

	for (i = 0; i < 2; i++) {
		for (const unsigned char *p = (const unsigned char *)parts[i]; *p != '\0'; p++)
			h = (h ^ *p) * 0x100000001b3ull;
		h = (h ^ 0xff) * 0x100000001b3ull;	/* no byte of a name: a separator */
	}
	return h != 0 ? h : 1;
}

/* The message of one denial standing for 1 + REPEATS, through the sink.  0 or -errno. */
static int
send_one(struct ab_maskrec *r, uint32_t ses, uint32_t uid, pid_t pid, int exec,
    const char *path, const char *pattern, const char *comm, const char *exe, uint64_t repeats)
{
	char *p = audit_encode_nv_string("path", path, 0);
	char *pt = audit_encode_nv_string("pattern", pattern, 0);
	char *c = audit_encode_nv_string("comm", comm[0] != '\0' ? comm : "?", 0);
	char *x = audit_encode_nv_string("prog", exe[0] != '\0' ? exe : "?", 0);
	char *msg = NULL, rep[32] = "";
	int rc = -ENOMEM;

	if (repeats > 0)
		snprintf(rep, sizeof(rep), " repeats=%llu", (unsigned long long)repeats);
	if (p != NULL && pt != NULL && c != NULL && x != NULL &&
	    asprintf(&msg, "op=agentbox-mask ses=%u uid=%u pid=%d access=%s %s %s %s %s%s", ses,
	    uid, (int)pid, exec ? "exec" : "open", p, pt, c, x, rep) != -1)
		rc = r->sink.send(r->sink.arg, 0, msg);
	free(msg);
	free(p);
	free(pt);
	free(c);
	free(x);
	return rc;
}

/* The lost count, once a write gets through again (or at the end).  0 or -errno. */
static int
send_lost(struct ab_maskrec *r)
{
	char msg[160];
	int rc;

	if (r->lost == 0)
		return 0;
	snprintf(msg, sizeof(msg), "op=agentbox-mask-lost ses=%u uid=%u count=%llu "
	    "reason=write-error", r->lost_ses, r->lost_uid, (unsigned long long)r->lost);
	if ((rc = r->sink.send(r->sink.arg, 0, msg)) == 0) {
		r->lost = 0;
		r->st.lost_records++;
	}
	return rc;
}

/* N denials of SES/UID are off the record: counted, and said. */
static void
lose(struct ab_maskrec *r, uint32_t ses, uint32_t uid, uint64_t n, int err)
{
	int first = r->lost == 0;

	if (first) {
		r->lost_ses = ses;
		r->lost_uid = uid;
	}
	r->lost += n;
	r->st.lost += n;
	/* Said once per run of failures: a log that cannot take records cannot take a
	 * line per denial either. */
	if (first && r->sink.lost != NULL)
		r->sink.lost(r->sink.arg, ses, r->st.lost, err);
}

/*
 * K's record: its latest denial standing for 1 + REPEATS (the current denial closing a
 * window, REPEATS the count before it; or a late record of the latest repeat).  A held
 * lost count goes first, so the log says it before anything after it.
 */
static void
write_key(struct ab_maskrec *r, struct key *k, uint64_t repeats, uint64_t now_ms)
{
	int rc;

	(void)send_lost(r);
	if ((rc = send_one(r, k->ses, k->uid, k->pid, k->exec, k->path, k->pattern, k->comm,
	    k->exe != NULL ? k->exe : "", repeats)) == 0) {
		r->st.records++;
		r->st.repeats += repeats;
	} else
		lose(r, k->ses, k->uid, 1 + repeats, rc);
	k->pending = 0;
	k->since_ms = now_ms;
}

/* K's count, if any, as a late record of its latest repeat. */
static void
write_pending(struct ab_maskrec *r, struct key *k, uint64_t now_ms)
{
	if (k->pending > 0)
		write_key(r, k, k->pending - 1, now_ms);
}

/* The latest denial's process, kept for a late record. */
static int
key_process(struct key *k, const struct ab_maskrec_deny *d)
{
	const char *exe = d->exe != NULL ? d->exe : "";

	k->pid = d->pid;
	snprintf(k->comm, sizeof(k->comm), "%s", d->comm != NULL ? d->comm : "");
	if (k->exe == NULL || strcmp(k->exe, exe) != 0) {
		free(k->exe);
		if ((k->exe = strdup(exe)) == NULL)
			return -ENOMEM;
	}
	return 0;
}

/* A slot for a new key: an empty one, else the least recently denied (its count is
 * written first). */
static struct key *
slot(struct ab_maskrec *r, uint64_t now_ms)
{
	struct key *old = &r->k[0];
	size_t i;

	for (i = 0; i < AB_MASKREC_MAX; i++) {
		if (r->k[i].hash == 0)
			return &r->k[i];
		if (r->k[i].used_ms < old->used_ms)
			old = &r->k[i];
	}
	write_pending(r, old, now_ms);
	key_clear(old);
	return old;
}

static struct key *
find(struct ab_maskrec *r, const struct ab_maskrec_deny *d, uint64_t h)
{
	size_t i;

	for (i = 0; i < AB_MASKREC_MAX; i++) {
		struct key *k = &r->k[i];

		if (k->hash == h && k->ses == d->ses && k->exec == (d->exec != 0) &&
		    strcmp(k->path, d->path) == 0 && strcmp(k->pattern, d->pattern) == 0)
			return k;
	}
	return NULL;
}

void
ab_maskrec_deny(struct ab_maskrec *r, const struct ab_maskrec_deny *d, uint64_t now_ms)
{
	uint64_t h = hash_of(d);
	struct key *k = find(r, d, h);

	if (k != NULL && now_ms < k->since_ms + AB_MASKREC_WINDOW_MS) {
		/* A repeat inside the window: counted, written when the window ends. */
		k->used_ms = now_ms;
		k->uid = d->uid;
		if (key_process(k, d) != 0) {
			lose(r, d->ses, d->uid, 1, -ENOMEM);
			return;
		}
		if (k->pending++ == 0 && (!r->have_due || k->since_ms + AB_MASKREC_WINDOW_MS <
		    r->due_ms)) {
			r->due_ms = k->since_ms + AB_MASKREC_WINDOW_MS;
			r->have_due = 1;
		}
		return;
	}
	if (k == NULL) {
		k = slot(r, now_ms);
		k->hash = h;
		k->ses = d->ses;
		k->exec = d->exec != 0;
		k->path = strdup(d->path);
		k->pattern = strdup(d->pattern);
		k->pending = 0;
	}
	k->used_ms = now_ms;
	k->uid = d->uid;
	if (k->path == NULL || k->pattern == NULL || key_process(k, d) != 0) {
		/* Out of memory: the denial still counts, the key is given up. */
		lose(r, d->ses, d->uid, 1 + k->pending, -ENOMEM);
		key_clear(k);
		return;
	}
	/* This denial, and the count of the window that ended before it. */
	write_key(r, k, k->pending, now_ms);
}

void
ab_maskrec_tick(struct ab_maskrec *r, uint64_t now_ms)
{
	size_t i;

	if (!r->have_due || now_ms < r->due_ms)
		return;
	r->have_due = 0;
	for (i = 0; i < AB_MASKREC_MAX; i++) {
		struct key *k = &r->k[i];
		uint64_t end = k->since_ms + AB_MASKREC_WINDOW_MS;

		if (k->hash == 0 || k->pending == 0)
			continue;
		if (end <= now_ms)
			write_pending(r, k, now_ms);
		else if (!r->have_due || end < r->due_ms) {
			r->due_ms = end;
			r->have_due = 1;
		}
	}
}

int
ab_maskrec_timeout(const struct ab_maskrec *r, uint64_t now_ms)
{
	if (!r->have_due)
		return -1;
	if (r->due_ms <= now_ms)
		return 0;
	return r->due_ms - now_ms > 60000 ? 60000 : (int)(r->due_ms - now_ms);
}

void
ab_maskrec_flush(struct ab_maskrec *r)
{
	size_t i;

	for (i = 0; i < AB_MASKREC_MAX; i++)
		if (r->k[i].hash != 0)
			write_pending(r, &r->k[i], r->k[i].since_ms);
	r->have_due = 0;
	(void)send_lost(r);
}
