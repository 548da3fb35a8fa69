/*
 * netd/record.h: the daemon's audit records (netd-spec §5), with denials folded so a
 * storm of them cannot flood the audit backlog.  Thread-safe (one mutex); the records
 * go to a sink so unit tests can read them without auditd.
 */
#ifndef AB_NETD_RECORD_H
#define AB_NETD_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "rules.h"

/* Where a finished record goes: the audit socket in the daemon, a list in tests. */
typedef int (*ab_netd_sink_fn)(void *ctx, const char *msg, bool success);

struct ab_netd_event {
	uint32_t ses, uid;
	const char *user;
	const char *proto;		/* connect, http, dns, gateway */
	const char *event;		/* open, close, deny */
	const char *host;		/* normal form, or the name asked */
	uint16_t port;
	const char *addr;		/* the address dialled, or NULL ("?") */
	bool allowed;
	const char *rule;		/* the deciding rule's text, or NULL ("-") */
	enum ab_netd_reason reason;
	uint64_t bytes_up, bytes_down, dur_ms;
};

#define AB_NETD_FOLD_MS 1000
#define AB_NETD_FOLD_SLOTS 1024

struct ab_netd_recorder;

/* 0 or -ENOMEM. */
int ab_netd_recorder_new(ab_netd_sink_fn sink, void *ctx, struct ab_netd_recorder **out);
void ab_netd_recorder_free(struct ab_netd_recorder *rec);

/*
 * Record one connection event at time NOW_MS (CLOCK_MONOTONIC).  A denial whose (ses,
 * proto, host, port, reason) was already recorded less than AB_NETD_FOLD_MS ago is only
 * counted; the first one is written at once.  Returns the sink's result (0 when folded).
 */
int ab_netd_record(struct ab_netd_recorder *rec, const struct ab_netd_event *ev,
		   uint64_t now_ms);

/* op=agentbox-net-session ses= uid= user= event=open|end reason=R. */
int ab_netd_record_session(struct ab_netd_recorder *rec, uint32_t ses, uint32_t uid,
			   const char *user, const char *event, const char *reason);

/*
 * Write the folded denials whose window has ended by NOW_MS (all of them when ALL), each
 * as one deny record with count=N, N the repeats it stood for.  Returns the milliseconds
 * until the next window ends, or -1 when none is open (an epoll timeout).
 */
int ab_netd_record_flush(struct ab_netd_recorder *rec, uint64_t now_ms, bool all);

/* The text of one connection record (count as given), malloc'd; NULL on -ENOMEM. */
char *ab_netd_record_format(const struct ab_netd_event *ev, uint64_t count);

#endif /* AB_NETD_RECORD_H */
