/*
 * netd/record.c: format and fold the §5 records.  Values that may hold spaces, quotes or
 * non-ASCII (host, rule, reason, user) go through audit_encode_nv_string, as auparse
 * expects; the rest are numbers or fixed words.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <libaudit.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

struct fold {
	bool used;
	uint64_t start_ms;
	uint64_t count;			/* repeats folded since the first */
	struct ab_netd_event ev;	/* its strings point into the copies below */
	char user[64], proto[16], host[AB_NETD_NAME_MAX + 1], addr[64];
	char rule[AB_NETD_RULE_TEXT_MAX + 1];
};

struct ab_netd_recorder {
	pthread_mutex_t lock;
	ab_netd_sink_fn sink;
	void *ctx;
	struct fold slot[AB_NETD_FOLD_SLOTS];
};

int
ab_netd_recorder_new(ab_netd_sink_fn sink, void *ctx, struct ab_netd_recorder **out)
{
	struct ab_netd_recorder *rec = calloc(1, sizeof(*rec));

	if (rec == NULL)
		return -ENOMEM;
	pthread_mutex_init(&rec->lock, NULL);
	rec->sink = sink;
	rec->ctx = ctx;
	*out = rec;
	return 0;
}

void
ab_netd_recorder_free(struct ab_netd_recorder *rec)
{
	if (rec == NULL)
		return;
	pthread_mutex_destroy(&rec->lock);
	free(rec);
}

static char *
enc(const char *name, const char *value)
{
	return audit_encode_nv_string(name, value, 0);
}

char *
ab_netd_record_format(const struct ab_netd_event *ev, uint64_t count)
{
	char *user = enc("user", ev->user ? ev->user : "?");
	char *host = enc("host", ev->host ? ev->host : "?");
	char *rule = enc("rule", ev->rule ? ev->rule : "-");
	char *reason = enc("reason", ab_netd_reason_name(ev->reason));
	char *msg = NULL;

	if (user && host && rule && reason &&
	    asprintf(&msg, "op=agentbox-net ses=%" PRIu32 " uid=%" PRIu32 " %s proto=%s "
	    "event=%s %s port=%u addr=%s decision=%s %s %s count=%" PRIu64 " bytes_up=%"
	    PRIu64 " bytes_down=%" PRIu64 " dur_ms=%" PRIu64, ev->ses, ev->uid, user,
	    ev->proto, ev->event, host, ev->port, ev->addr ? ev->addr : "?",
	    ev->allowed ? "allowed" : "denied", rule, reason, count, ev->bytes_up,
	    ev->bytes_down, ev->dur_ms) < 0)
		msg = NULL;
	free(user);
	free(host);
	free(rule);
	free(reason);
	return msg;
}

static int
emit(struct ab_netd_recorder *rec, const struct ab_netd_event *ev, uint64_t count)
{
	char *msg = ab_netd_record_format(ev, count);
	int r;

	if (msg == NULL)
		return -ENOMEM;
	r = rec->sink(rec->ctx, msg, ev->allowed);
	free(msg);
	return r;
}

static bool
same(const struct fold *f, const struct ab_netd_event *ev)
{
	return f->used && f->ev.ses == ev->ses && f->ev.port == ev->port &&
	    f->ev.reason == ev->reason && strcmp(f->proto, ev->proto) == 0 &&
	    strcmp(f->host, ev->host ? ev->host : "?") == 0;
}

#define COPY(dst, src) snprintf((dst), sizeof(dst), "%s", (src) ? (src) : "")

static void
fold_start(struct fold *f, const struct ab_netd_event *ev, uint64_t now_ms)
{
	f->used = true;
	f->start_ms = now_ms;
	f->count = 0;
	f->ev = *ev;
	COPY(f->user, ev->user);
	COPY(f->proto, ev->proto);
	COPY(f->host, ev->host ? ev->host : "?");
	COPY(f->addr, ev->addr);
	COPY(f->rule, ev->rule);
	f->ev.user = f->user;
	f->ev.proto = f->proto;
	f->ev.host = f->host;
	f->ev.addr = ev->addr ? f->addr : NULL;
	f->ev.rule = ev->rule ? f->rule : NULL;
}

/* The window of F ends: write what it folded, free the slot. */
static int
fold_end(struct ab_netd_recorder *rec, struct fold *f)
{
	int r = 0;

	if (f->count > 0)
		r = emit(rec, &f->ev, f->count);
	f->used = false;
	return r;
}

/* A free slot; when all are in use, the oldest window is closed early. */
static struct fold *
fold_slot(struct ab_netd_recorder *rec)
{
	struct fold *oldest = &rec->slot[0];
	size_t i;

	for (i = 0; i < AB_NETD_FOLD_SLOTS; i++) {
		if (!rec->slot[i].used)
			return &rec->slot[i];
		if (rec->slot[i].start_ms < oldest->start_ms)
			oldest = &rec->slot[i];
	}
	fold_end(rec, oldest);
	return oldest;
}

static int
record_locked(struct ab_netd_recorder *rec, const struct ab_netd_event *ev, uint64_t now_ms)
{
	size_t i;

	if (ev->allowed)
		return emit(rec, ev, 1);
	for (i = 0; i < AB_NETD_FOLD_SLOTS; i++) {
		struct fold *f = &rec->slot[i];

		if (!same(f, ev))
			continue;
		if (now_ms < f->start_ms + AB_NETD_FOLD_MS) {
			f->count++;
			return 0;
		}
		fold_end(rec, f);
		break;
	}
	fold_start(fold_slot(rec), ev, now_ms);
	return emit(rec, ev, 1);
}

int
ab_netd_record(struct ab_netd_recorder *rec, const struct ab_netd_event *ev, uint64_t now_ms)
{
	int r;

	pthread_mutex_lock(&rec->lock);
	r = record_locked(rec, ev, now_ms);
	pthread_mutex_unlock(&rec->lock);
	return r;
}

int
ab_netd_record_flush(struct ab_netd_recorder *rec, uint64_t now_ms, bool all)
{
	uint64_t next = UINT64_MAX;
	size_t i;

	pthread_mutex_lock(&rec->lock);
	for (i = 0; i < AB_NETD_FOLD_SLOTS; i++) {
		struct fold *f = &rec->slot[i];

		if (!f->used)
			continue;
		if (all || now_ms >= f->start_ms + AB_NETD_FOLD_MS)
			fold_end(rec, f);
		else if (f->start_ms + AB_NETD_FOLD_MS - now_ms < next)
			next = f->start_ms + AB_NETD_FOLD_MS - now_ms;
	}
	pthread_mutex_unlock(&rec->lock);
	return next == UINT64_MAX ? -1 : (int)next;
}

int
ab_netd_record_session(struct ab_netd_recorder *rec, uint32_t ses, uint32_t uid,
		       const char *user, const char *event, const char *reason)
{
	char *u = enc("user", user), *why = enc("reason", reason), *msg = NULL;
	int r = -ENOMEM;

	if (u && why && asprintf(&msg, "op=agentbox-net-session ses=%" PRIu32 " uid=%" PRIu32
	    " %s event=%s %s", ses, uid, u, event, why) >= 0) {
		pthread_mutex_lock(&rec->lock);
		r = rec->sink(rec->ctx, msg, true);
		pthread_mutex_unlock(&rec->lock);
		free(msg);
	}
	free(u);
	free(why);
	return r;
}
