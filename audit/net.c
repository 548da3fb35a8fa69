/*
 * Network decision records (docs/audit-records.md, "Network records"): agentbox-netd's
 * TRUSTED_APP op=agentbox-net and op=agentbox-net-session, and the table behind the net
 * view (one row per session or user, host, port, protocol, decision and reason).
 *
 * The kernel stamps the daemon's own pid/uid/auid/ses on these records: the session and
 * the user are the body's ses=, uid= and user=, never the header's.  A record that does
 * not say what the contract says (no session, a decision that is neither allowed nor
 * denied, a number that is not one) is "malformed": it is still listed when it may be a
 * denial, and the completeness report counts it, so a damaged record is never vouched for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "review.h"

#ifndef AB_NETVIEW_MAX	/* a test build makes it small, to fill it with a few records */
#define AB_NETVIEW_MAX	(1u << 16)
#endif


static int
is(const char *s, const char *what)
{
	return strcmp(s, what) == 0;
}

/* The fields every record must have, checked against the contract's values. */
static int
check(struct ab_net *n, int have_ses, int have_uid, int have_host)
{
	int ok = have_ses && have_uid && have_host && n->ses != AB_UNSET32;

	if (is(n->b_decision, "allowed"))
		n->allowed = 1;
	else if (!is(n->b_decision, "denied"))
		ok = 0;
	if (!is(n->b_event, "open") && !is(n->b_event, "close") && !is(n->b_event, "deny"))
		ok = 0;
	/* event=deny is a denied decision, open and close allowed ones: a record that says
	 * otherwise is read as denied (listed, never hidden) and counted malformed. */
	if (n->allowed != !is(n->b_event, "deny"))
		ok = n->allowed = 0;
	if (n->port != AB_NET_NONE && n->port > 65535)
		ok = 0;
	/* reason=learn: a learning session's host no allow_host matches, let through
	 * (docs/audit-records.md, "Learning records"): only ever on an allowed decision. */
	if (is(n->b_reason, "learn")) {
		if (!n->allowed)
			ok = 0;
		else
			n->learn = is(n->b_event, "open");
	}
	return ok;
}

/* The text fields of R into N; returns whether R has a host= at all. */
static int
strings(const struct ab_rec *r, struct ab_net *n)
{
	struct ab_str raw;
	int have_host;

	ab_rec_inner_str(r, "user", n->b_user, sizeof(n->b_user), NULL);
	n->proto.n = ab_rec_inner_str(r, "proto", n->b_proto, sizeof(n->b_proto), NULL);
	n->proto.p = n->b_proto;
	ab_rec_inner_str(r, "event", n->b_event, sizeof(n->b_event), NULL);
	ab_rec_inner_str(r, "decision", n->b_decision, sizeof(n->b_decision), NULL);
	/* host="?": the daemon never learnt it (a timeout or limit before the request head,
	 * a head it could not parse): unknown, which is not malformed; no host= at all is. */
	have_host = ab_rec_field(r, "host", AB_INNER_ONLY, &raw) == 0;
	n->host.n = ab_rec_inner_str(r, "host", n->b_host, sizeof(n->b_host), &n->host_truncated);
	n->host.p = n->b_host;
	if (n->host.n == 1 && n->b_host[0] == '?')
		n->host.n = 0;
	/* libaudit appends its own addr= after the message: the first one is the daemon's. */
	n->addr.n = ab_rec_inner_str(r, "addr", n->b_addr, sizeof(n->b_addr), NULL);
	n->addr.p = n->b_addr;
	n->rule.n = ab_rec_inner_str(r, "rule", n->b_rule, sizeof(n->b_rule), NULL);
	n->rule.p = n->b_rule;
	n->reason.n = ab_rec_inner_str(r, "reason", n->b_reason, sizeof(n->b_reason), NULL);
	n->reason.p = n->b_reason;
	if (n->rule.n == 1 && n->b_rule[0] == '-')
		n->rule.n = 0;
	if (n->reason.n == 1 && n->b_reason[0] == '-')
		n->reason.n = 0;
	return have_host;
}

int
ab_net_parse(const struct ab_rec *r, struct ab_net *n)
{
	char op[32];
	int have_ses, have_uid, have_host, bad = 0;

	if (r->t != AB_T_TRUSTED_APP)
		return 1;
	ab_rec_inner_str(r, "op", op, sizeof(op), NULL);
	if (!is(op, "agentbox-net"))
		return 1;
	memset(n, 0, sizeof(*n));
	have_ses = ab_rec_inner_num(r, "ses", AB_NET_NONE, &n->ses) == 0;
	have_uid = ab_rec_inner_num(r, "uid", AB_NET_NONE, &n->uid) == 0;
	if (!have_ses)
		n->ses = AB_UNSET32;
	if (!have_uid)
		n->uid = AB_UNSET32;
	have_host = strings(r, n);
	bad |= ab_rec_inner_num(r, "port", AB_NET_NONE, &n->port) == -EINVAL;
	bad |= ab_rec_inner_num(r, "count", AB_NET_NONE, &n->count) == -EINVAL;
	bad |= ab_rec_inner_num(r, "bytes_up", AB_NET_NONE, &n->bytes_up) == -EINVAL;
	bad |= ab_rec_inner_num(r, "bytes_down", AB_NET_NONE, &n->bytes_down) == -EINVAL;
	bad |= ab_rec_inner_num(r, "dur_ms", AB_NET_NONE, &n->dur_ms) == -EINVAL;
	/* No count: one attempt.  A count of 0 says nothing happened: read as one too. */
	n->attempts = n->count == AB_NET_NONE || n->count == 0 ? 1 : n->count;
	if (!check(n, have_ses, have_uid, have_host) || bad) {
		n->malformed = 1;
		return -EINVAL;
	}
	return 0;
}

int
ab_net_session_parse(const struct ab_rec *r, uint64_t *ses, char *event, size_t ecap,
    char *reason, size_t rcap)
{
	char op[40];

	if (r->t != AB_T_TRUSTED_APP)
		return 1;
	ab_rec_inner_str(r, "op", op, sizeof(op), NULL);
	/* §5 writes event=open|end; a restarted daemon's sweep (§3) may write the -end op. */
	if (is(op, "agentbox-net-session-end"))
		snprintf(event, ecap, "end");
	else if (is(op, "agentbox-net-session"))
		ab_rec_inner_str(r, "event", event, ecap, NULL);
	else
		return 1;
	ab_rec_inner_str(r, "reason", reason, rcap, NULL);
	if (ab_rec_inner_num(r, "ses", AB_NET_NONE, ses) != 0) {
		*ses = AB_UNSET32;
		return -EINVAL;
	}
	return is(event, "open") || is(event, "end") ? 0 : -EINVAL;
}

/* ---- the net view's table ------------------------------------------------------------- */

struct ab_netview {
	int			 by_user;
	struct ab_netrow	*rows;
	size_t			 n, cap;
	uint32_t		*idx;		/* open addressing: row index + 1 */
	size_t			 slots;
};

static uint64_t
hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return (h ^ 0xff) * 1099511628211ULL;	/* a separator: "ab"+"c" is not "a"+"bc" */
}

/* B up to its first NUL byte: the row keeps C strings, so a decoded value holding a NUL
 * (hex-encoded in the record) is keyed by what the row can hold, or it would never match
 * its own row and fill the table. */
static struct ab_str
cut(struct ab_str b)
{
	return (struct ab_str){ b.p, strnlen(b.p, b.n) };
}

static int
str_eq(const char *a, struct ab_str b)
{
	b = cut(b);
	return strlen(a) == b.n && memcmp(a, b.p, b.n) == 0;
}

/* The row's key: the session (node and id) or the user, then what was decided for what. */
static uint64_t
key_hash(const struct ab_netview *v, const struct ab_denial *d)
{
	const struct ab_net *n = d->net;
	uint64_t h = 1469598103934665603ULL;

	if (v->by_user) {
		h = hash_bytes(h, n->b_user, strlen(n->b_user));
		h = hash_bytes(h, &n->uid, sizeof(n->uid));
	} else {
		h = hash_bytes(h, d->node.p, cut(d->node).n);
		h = hash_bytes(h, &n->ses, sizeof(n->ses));
	}
	h = hash_bytes(h, n->proto.p, cut(n->proto).n);
	h = hash_bytes(h, n->host.p, cut(n->host).n);
	h = hash_bytes(h, &n->port, sizeof(n->port));
	h = hash_bytes(h, &n->allowed, sizeof(n->allowed));
	return hash_bytes(h, n->reason.p, cut(n->reason).n);
}

static int
key_eq(const struct ab_netview *v, const struct ab_netrow *w, const struct ab_denial *d)
{
	const struct ab_net *n = d->net;

	if (v->by_user ? w->uid != n->uid || strcmp(w->user, n->b_user) != 0 :
	    w->ses != n->ses || !str_eq(w->node, d->node))
		return 0;
	return w->port == n->port && w->allowed == n->allowed && str_eq(w->proto, n->proto) &&
	    str_eq(w->host, n->host) && str_eq(w->reason, n->reason);
}

int
ab_netview_new(int by_user, struct ab_netview **out)
{
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return -ENOMEM;
	(*out)->by_user = by_user;
	return 0;
}

/* Room for one more row: the array grown, the index at most half full. */
static int
room(struct ab_netview *v)
{
	if (v->n >= AB_NETVIEW_MAX)
		return -ENOSPC;
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 64;
		struct ab_netrow *a = realloc(v->rows, nc * sizeof(*a));

		if (a == NULL)
			return -ENOMEM;
		v->rows = a;
		v->cap = nc;
	}
	if ((v->n + 1) * 2 > v->slots) {
		size_t ns = v->slots ? v->slots * 2 : 256;
		uint32_t *idx = calloc(ns, sizeof(*idx));

		if (idx == NULL)
			return -ENOMEM;
		for (size_t k = 0; k < v->n; k++) {
			size_t i = v->rows[k].hash & (ns - 1);

			while (idx[i] != 0)
				i = (i + 1) & (ns - 1);
			idx[i] = (uint32_t)k + 1;
		}
		free(v->idx);
		v->idx = idx;
		v->slots = ns;
	}
	return 0;
}

static void
row_clear(struct ab_netrow *w)
{
	free(w->node);
	free(w->proto);
	free(w->host);
	free(w->reason);
	free(w->rule);
	free(w->user);
	memset(w, 0, sizeof(*w));
}

static int
row_new(struct ab_netview *v, const struct ab_denial *d, uint64_t h, struct ab_netrow **out)
{
	const struct ab_net *n = d->net;
	struct ab_netrow *w;
	size_t i;
	int r;

	if ((r = room(v)) != 0)
		return r;
	w = &v->rows[v->n];
	memset(w, 0, sizeof(*w));
	w->node = strndup(d->node.p, d->node.n);
	w->proto = strndup(n->proto.p, n->proto.n);
	w->host = strndup(n->host.p, n->host.n);
	w->reason = strndup(n->reason.p, n->reason.n);
	w->rule = strndup(n->rule.p, n->rule.n);
	w->user = strdup(n->b_user);
	if (!w->node || !w->proto || !w->host || !w->reason || !w->rule || !w->user) {
		row_clear(w);
		return -ENOMEM;
	}
	w->hash = h;
	w->ses = n->ses;
	w->uid = n->uid;
	w->port = n->port;
	w->allowed = n->allowed;
	w->first_sec = d->sec;
	w->first_ms = d->ms;
	for (i = h & (v->slots - 1); v->idx[i] != 0; i = (i + 1) & (v->slots - 1))
		;
	v->idx[i] = (uint32_t)++v->n;
	*out = w;
	return 0;
}

int
ab_netview_add(struct ab_netview *v, const struct ab_denial *d)
{
	const struct ab_net *n = d->net;
	uint64_t h = key_hash(v, d);
	struct ab_netrow *w = NULL;
	int r;

	for (size_t i = v->slots ? h & (v->slots - 1) : 0; v->slots && v->idx[i] != 0;
	    i = (i + 1) & (v->slots - 1))
		if (v->rows[v->idx[i] - 1].hash == h && key_eq(v, &v->rows[v->idx[i] - 1], d)) {
			w = &v->rows[v->idx[i] - 1];
			break;
		}
	if (w == NULL && (r = row_new(v, d, h, &w)) != 0)
		return r;
	/* A connection is counted by its open (the close carries its bytes); a denial by
	 * its record's count (repeats folded by the daemon). */
	if (!n->allowed)
		w->count += n->attempts;
	else if (strcmp(n->b_event, "open") == 0)
		w->count++;
	else
		w->closes++;
	if (n->bytes_up != AB_NET_NONE)
		w->bytes_up += n->bytes_up;
	if (n->bytes_down != AB_NET_NONE)
		w->bytes_down += n->bytes_down;
	if (d->sec < w->first_sec || (d->sec == w->first_sec && d->ms < w->first_ms)) {
		w->first_sec = d->sec;
		w->first_ms = d->ms;
	}
	if (d->sec > w->last_sec || (d->sec == w->last_sec && d->ms > w->last_ms)) {
		w->last_sec = d->sec;
		w->last_ms = d->ms;
	}
	return 0;
}

const struct ab_netrow *
ab_netview_row(const struct ab_netview *v, size_t i)
{
	return i < v->n ? &v->rows[i] : NULL;
}

int
ab_netview_by_user(const struct ab_netview *v)
{
	return v->by_user;
}

void
ab_netview_free(struct ab_netview *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < v->n; i++)
		row_clear(&v->rows[i]);
	free(v->rows);
	free(v->idx);
	free(v);
}
