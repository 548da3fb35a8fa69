/*
 * netd/record.c: the §5 record text, and the folding of repeated denials: the first one
 * at once, the repeats of the same (ses, proto, host, port, reason) within 1 s as one
 * record with count=N when the window ends, nothing folded across keys.
 */
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "tap.h"

struct got {
	char *msg[4096];
	bool success[4096];
	size_t n;
};

static int
sink(void *ctx, const char *msg, bool success)
{
	struct got *g = ctx;

	if (g->n < 4096) {
		g->success[g->n] = success;
		g->msg[g->n++] = strdup(msg);
	}
	return 0;
}

static void
reset(struct got *g)
{
	while (g->n > 0)
		free(g->msg[--g->n]);
}

static struct ab_netd_event
deny_ev(const char *host, enum ab_netd_reason reason)
{
	return (struct ab_netd_event){ .ses = 9, .uid = 1001, .user = "alice",
		.proto = "connect", .event = "deny", .host = host, .port = 443,
		.reason = reason };
}

static void
test_format(struct ab_netd_recorder *rec, struct got *g)
{
	struct ab_netd_event ev = { .ses = 9, .uid = 1001, .user = "alice",
		.proto = "connect", .event = "close", .host = "api.example.com", .port = 443,
		.addr = "93.184.216.34", .allowed = true, .rule = "*.example.com",
		.bytes_up = 10, .bytes_down = 20, .dur_ms = 30 };

	ab_netd_record(rec, &ev, 0);
	ok(g->n == 1 && g->success[0], "an allowed event is written at once, res=success");
	ok(g->n == 1 && strcmp(g->msg[0], "op=agentbox-net ses=9 uid=1001 user=\"alice\" "
	   "proto=connect event=close host=\"api.example.com\" port=443 addr=93.184.216.34 "
	   "decision=allowed rule=\"*.example.com\" reason=\"-\" count=1 bytes_up=10 "
	   "bytes_down=20 dur_ms=30") == 0, "the record's text: %s", g->n ? g->msg[0] : "");
	reset(g);
	ev = deny_ev("a b\"c", AB_NETD_R_NO_RULE);
	ab_netd_record(rec, &ev, 0);
	ok(g->n == 1 && !g->success[0] && strstr(g->msg[0], " host=6120622263 ") != NULL &&
	   strstr(g->msg[0], " addr=? decision=denied rule=\"-\" reason=\"no-rule\" ") != NULL,
	   "a host with a space and a quote is hex-encoded; denied is res=failed");
	reset(g);
	ab_netd_record_session(rec, 9, 1001, "alice", "end", "daemon-restart");
	ok(g->n == 1 && strcmp(g->msg[0], "op=agentbox-net-session ses=9 uid=1001 "
	   "user=\"alice\" event=end reason=\"daemon-restart\"") == 0, "the session record");
	reset(g);
	ab_netd_record_flush(rec, 0, true);
	reset(g);
}

static void
test_fold(struct ab_netd_recorder *rec, struct got *g)
{
	struct ab_netd_event a = deny_ev("x.test", AB_NETD_R_NO_RULE);
	struct ab_netd_event b = deny_ev("y.test", AB_NETD_R_NO_RULE);
	struct ab_netd_event a2 = deny_ev("x.test", AB_NETD_R_LIMIT);
	int i;

	ok(ab_netd_record_flush(rec, 1000, false) == -1, "no window open: no timeout");
	ab_netd_record(rec, &a, 1000);
	ok(g->n == 1 && strstr(g->msg[0], " count=1 ") != NULL, "the first denial is not delayed");
	for (i = 0; i < 500; i++)
		ab_netd_record(rec, &a, 1001 + (uint64_t)i);
	ok(g->n == 1, "500 repeats within the window write nothing yet");
	ab_netd_record(rec, &b, 1600);
	ab_netd_record(rec, &a2, 1600);
	ok(g->n == 3, "another host, another reason: written at once");
	ok(ab_netd_record_flush(rec, 1700, false) == 300, "the next window ends in 300 ms");
	ok(g->n == 3, "nothing written before the window ends");
	ab_netd_record_flush(rec, 2000, false);
	ok(g->n == 4 && strstr(g->msg[3], "host=\"x.test\"") != NULL &&
	   strstr(g->msg[3], " count=500 ") != NULL, "window end: one record with count=500");
	ab_netd_record_flush(rec, 2600, false);
	ok(g->n == 4, "windows with no repeats write nothing more");
	ab_netd_record(rec, &a, 2601);
	ok(g->n == 5 && strstr(g->msg[4], " count=1 ") != NULL,
	   "after the window, the next denial is written at once again");
	a.ses = 10;
	ab_netd_record(rec, &a, 2602);
	ok(g->n == 6, "another session is never folded into this one");
	ab_netd_record_flush(rec, 0, true);
	reset(g);
}

/*
 * A connection a learning session let through: open and close carry reason=learn and
 * no rule, are res=success, written at once each time (never folded, as every allowed
 * record), and a fold of denials for the same host is not touched by them.
 */
static void
test_learn(struct ab_netd_recorder *rec, struct got *g)
{
	struct ab_netd_event ev = { .ses = 9, .uid = 1001, .user = "alice",
		.proto = "connect", .event = "open", .host = "new.example.org", .port = 443,
		.addr = "93.184.216.34", .allowed = true, .reason = AB_NETD_R_LEARN };
	struct ab_netd_event d = deny_ev("new.example.org", AB_NETD_R_NO_RULE);
	int i;

	ab_netd_record(rec, &ev, 7000);
	ok(g->n == 1 && g->success[0] && strcmp(g->msg[0], "op=agentbox-net ses=9 uid=1001 "
	   "user=\"alice\" proto=connect event=open host=\"new.example.org\" port=443 "
	   "addr=93.184.216.34 decision=allowed rule=\"-\" reason=\"learn\" count=1 "
	   "bytes_up=0 bytes_down=0 dur_ms=0") == 0, "learning's open: %s", g->n ? g->msg[0] : "");
	for (i = 0; i < 20; i++)
		ab_netd_record(rec, &ev, 7001 + (uint64_t)i);
	ok(g->n == 21, "20 more learning opens within a second: 20 more records, none folded");
	ev.event = "close", ev.bytes_up = 5, ev.bytes_down = 6, ev.dur_ms = 7;
	ab_netd_record(rec, &ev, 7100);
	ok(g->n == 22 && g->success[21] && strstr(g->msg[21], " event=close ") != NULL &&
	   strstr(g->msg[21], " decision=allowed rule=\"-\" reason=\"learn\" count=1 "
		  "bytes_up=5 bytes_down=6 dur_ms=7") != NULL, "learning's close, with bytes");
	ab_netd_record(rec, &d, 7200);
	ab_netd_record(rec, &d, 7201);
	ab_netd_record(rec, &ev, 7202);
	ab_netd_record_flush(rec, 8300, false);
	ok(g->n == 25 && strstr(g->msg[24], " count=1 ") != NULL &&
	   strstr(g->msg[24], "reason=\"no-rule\"") != NULL,
	   "denials of the same host still fold among themselves, allowed records apart");
	ab_netd_record_flush(rec, 0, true);
	reset(g);
}

/* More distinct keys than slots: the oldest window closes early, nothing is lost. */
static void
test_full(struct ab_netd_recorder *rec, struct got *g)
{
	char host[32];
	size_t i;

	for (i = 0; i < AB_NETD_FOLD_SLOTS + 1; i++) {
		struct ab_netd_event ev = deny_ev(host, AB_NETD_R_NO_RULE);

		snprintf(host, sizeof(host), "h%zu.test", i);
		ab_netd_record(rec, &ev, 5000 + i);
		ab_netd_record(rec, &ev, 5000 + i);	/* one repeat each */
	}
	ok(g->n == AB_NETD_FOLD_SLOTS + 2, "a full table closes the oldest window early (%zu)",
	   g->n);
	ab_netd_record_flush(rec, 0, true);
	ok(g->n == 2 * (AB_NETD_FOLD_SLOTS + 1), "every repeat is still counted (%zu)", g->n);
	reset(g);
}

int
main(void)
{
	static struct got g;
	struct ab_netd_recorder *rec;

	ok(ab_netd_recorder_new(sink, &g, &rec) == 0, "recorder");
	test_format(rec, &g);
	test_fold(rec, &g);
	test_learn(rec, &g);
	test_full(rec, &g);
	ab_netd_recorder_free(rec);
	return done_testing();
}
