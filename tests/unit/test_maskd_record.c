/*
 * maskd/record.c: the op=agentbox-mask records of live-mask denials, through a sink that
 * keeps what it is given and a clock the test sets.  Every denial is on a record or in
 * a count: the sum of 1 + repeats over the records, plus the lost count, is the number
 * of denials, whatever the order of windows, evictions, failures and the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maskd.h"
#include "tap.h"

#define MSGS_MAX	4096

static struct sink {
	char	*msg[MSGS_MAX];
	size_t	 n;
	int	 fail;		/* the next writes fail */
	size_t	 lost_said;	/* the lost hook's calls */
	uint64_t lost_last;
} S;

static int
fake_send(void *arg, int ok_, const char *msg)
{
	(void)arg;
	(void)ok_;
	if (S.fail)
		return -EIO;
	if (S.n < MSGS_MAX)
		S.msg[S.n++] = strdup(msg);
	return 0;
}

static void
fake_lost(void *arg, uint32_t ses, uint64_t lost, int err)
{
	(void)arg;
	(void)ses;
	(void)err;
	S.lost_said++;
	S.lost_last = lost;
}

static void
reset(void)
{
	for (size_t i = 0; i < S.n; i++)
		free(S.msg[i]);
	memset(&S, 0, sizeof(S));
}

static const struct ab_maskrec_sink sink = { fake_send, fake_lost, NULL };

static struct ab_maskrec_deny
deny(uint32_t ses, pid_t pid, const char *path, const char *pattern)
{
	return (struct ab_maskrec_deny){ .ses = ses, .uid = 64123, .pid = pid, .path = path,
	    .pattern = pattern, .comm = "cat", .exe = "/usr/bin/cat" };
}

/* Denials the records stand for: 1 + repeats each; agentbox-mask-lost adds its count. */
static uint64_t
accounted(const char *op)
{
	uint64_t sum = 0;
	char want[64];

	snprintf(want, sizeof(want), "op=%s ", op);
	for (size_t i = 0; i < S.n; i++) {
		const char *r;

		if (strncmp(S.msg[i], want, strlen(want)) != 0)
			continue;
		if (strcmp(op, "agentbox-mask") == 0)
			sum += 1 + ((r = strstr(S.msg[i], " repeats=")) ? strtoull(r + 9, NULL, 10) : 0);
		else if ((r = strstr(S.msg[i], " count=")) != NULL)
			sum += strtoull(r + 7, NULL, 10);
	}
	return sum;
}

static void
t_first_and_repeats(void)
{
	struct ab_maskrec *r;
	struct ab_maskrec_deny d = deny(7, 100, "/srv/p/.env", ".env");
	struct ab_maskrec_stats st;

	reset();
	ok(ab_maskrec_new(&sink, &r) == 0, "a recorder");
	ab_maskrec_deny(r, &d, 10000);
	ok(S.n == 1 && strcmp(S.msg[0], "op=agentbox-mask ses=7 uid=64123 pid=100 access=open "
	    "path=\"/srv/p/.env\" pattern=\".env\" comm=\"cat\" prog=\"/usr/bin/cat\"") == 0,
	    "the first denial is one record, with the pattern: %s", S.n ? S.msg[0] : "(none)");
	ok(ab_maskrec_timeout(r, 10000) == -1, "nothing counted: no deadline");
	for (int i = 0; i < 999; i++) {
		d.pid = 200 + i % 3;
		ab_maskrec_deny(r, &d, 10000 + (uint64_t)i % 900);
	}
	ok(S.n == 1, "999 repeats within the window: no record yet (%zu)", S.n);
	ok(ab_maskrec_timeout(r, 10500) == 500, "the window ends in 500 ms (%d)",
	    ab_maskrec_timeout(r, 10500));
	ab_maskrec_tick(r, 10999);
	ok(S.n == 1, "a tick before the window ends writes nothing");
	ab_maskrec_tick(r, 11000);
	ok(S.n == 2 && strstr(S.msg[1], " repeats=998") != NULL && strstr(S.msg[1], " pid=") != NULL,
	    "the window's end: a record of the latest repeat, repeats=998: %s", S.n > 1 ? S.msg[1] : "");
	ok(accounted("agentbox-mask") == 1000, "1000 denials on the records (%llu)",
	    (unsigned long long)accounted("agentbox-mask"));
	ok(ab_maskrec_timeout(r, 11000) == -1, "no count left: no deadline");
	/* The next denial after a written window opens a new one. */
	ab_maskrec_deny(r, &d, 11500);
	ab_maskrec_deny(r, &d, 12600);
	ok(S.n == 3 && strstr(S.msg[2], " repeats=1") != NULL,
	    "a repeat counted, then the denial after the window carries it: %s", S.n > 2 ? S.msg[2] : "");
	ab_maskrec_deny(r, &d, 12700);
	ab_maskrec_flush(r);
	ok(S.n == 4 && strstr(S.msg[3], "repeats") == NULL,
	    "the end writes the one repeat held, as itself: %s", S.n > 3 ? S.msg[3] : "");
	ok(accounted("agentbox-mask") == 1003, "every denial accounted for (1003)");
	ab_maskrec_stats(r, &st);
	ok(st.records == 4 && st.repeats == 999 && st.lost == 0, "stats: 4 records, 999 repeats");
	ab_maskrec_free(r);
}

static void
t_keys(void)
{
	struct ab_maskrec *r;
	struct ab_maskrec_deny a = deny(7, 100, "/srv/p/.env", ".env");
	struct ab_maskrec_deny b = deny(8, 100, "/srv/p/.env", ".env");
	struct ab_maskrec_deny c = deny(7, 100, "/srv/p/.env", "history");
	struct ab_maskrec_deny x = deny(7, 100, "/srv/p/.env", ".env");

	reset();
	(void)ab_maskrec_new(&sink, &r);
	x.exec = 1;
	ab_maskrec_deny(r, &a, 0);
	ab_maskrec_deny(r, &b, 1);
	ab_maskrec_deny(r, &c, 2);
	ab_maskrec_deny(r, &x, 3);
	ok(S.n == 4, "another session, pattern or access is another key: 4 records (%zu)", S.n);
	ok(S.n == 4 && strstr(S.msg[3], "access=exec") && strstr(S.msg[2], "pattern=\"history\""),
	    "access=exec, pattern=history");
	ab_maskrec_flush(r);
	ok(S.n == 4, "nothing held: the end writes nothing");
	ab_maskrec_free(r);
}

static void
t_hostile(void)
{
	struct ab_maskrec *r;
	struct ab_maskrec_deny d = deny(7, 100, "/srv/p/a b'\" \n\x1b[2J.env", "*.pem");

	reset();
	(void)ab_maskrec_new(&sink, &r);
	d.comm = "ev\"il";
	d.exe = "";
	ab_maskrec_deny(r, &d, 0);
	ok(S.n == 1 && strstr(S.msg[0], " path=2F7372762F702F6120622722200A1B5B324A2E656E76 ") &&
	    strstr(S.msg[0], " comm=657622696C ") && strstr(S.msg[0], " prog=\"?\""),
	    "a hostile path and comm are hex, an unknown program is ?: %s", S.n ? S.msg[0] : "");
	ok(S.n == 1 && strchr(S.msg[0], '\n') == NULL && strchr(S.msg[0], '\'') == NULL,
	    "no newline or quote of the message's own");
	ab_maskrec_free(r);
}

static void
t_evict(void)
{
	struct ab_maskrec *r;
	char path[64];
	struct ab_maskrec_deny d;

	reset();
	(void)ab_maskrec_new(&sink, &r);
	d = deny(7, 100, "/srv/p/first/.env", ".env");
	ab_maskrec_deny(r, &d, 0);
	ab_maskrec_deny(r, &d, 1);
	ab_maskrec_deny(r, &d, 2);
	for (unsigned i = 0; i < AB_MASKREC_MAX; i++) {
		snprintf(path, sizeof(path), "/srv/p/%u/.env", i);
		d = deny(7, 100, path, ".env");
		ab_maskrec_deny(r, &d, 10 + i);
	}
	ok(S.n == AB_MASKREC_MAX + 2, "a full table evicts the oldest key (%zu records)", S.n);
	ok(S.n > 2 && strstr(S.msg[AB_MASKREC_MAX], "/srv/p/first/.env") &&
	    strstr(S.msg[AB_MASKREC_MAX], " repeats=1"),
	    "its count is written first: %s", S.n > AB_MASKREC_MAX ? S.msg[AB_MASKREC_MAX] : "");
	ab_maskrec_flush(r);
	ok(accounted("agentbox-mask") == AB_MASKREC_MAX + 3, "every denial accounted for");
	ab_maskrec_free(r);
}

static void
t_lost(void)
{
	struct ab_maskrec *r;
	struct ab_maskrec_deny d = deny(7, 100, "/srv/p/.env", ".env");
	struct ab_maskrec_deny e = deny(7, 101, "/srv/p/other.pem", "*.pem");
	struct ab_maskrec_stats st;

	reset();
	(void)ab_maskrec_new(&sink, &r);
	S.fail = 1;
	ab_maskrec_deny(r, &d, 0);	/* lost: 1 */
	ab_maskrec_deny(r, &d, 10);	/* counted */
	ab_maskrec_deny(r, &d, 20);	/* counted */
	ab_maskrec_tick(r, 1000);	/* lost: 2 more */
	ab_maskrec_deny(r, &e, 1001);	/* lost: 1 more */
	ok(S.n == 0 && S.lost_said == 1 && S.lost_last == 1,
	    "writes failing: said once for the run (%zu), counted", S.lost_said);
	S.fail = 0;
	ab_maskrec_deny(r, &e, 2500);
	ok(S.n == 2 && strcmp(S.msg[0], "op=agentbox-mask-lost ses=7 uid=64123 count=4 "
	    "reason=write-error") == 0, "the next write says the count first: %s",
	    S.n ? S.msg[0] : "");
	ok(S.n == 2 && strncmp(S.msg[1], "op=agentbox-mask ", 17) == 0, "then the record");
	ab_maskrec_flush(r);
	ok(accounted("agentbox-mask") + accounted("agentbox-mask-lost") == 5,
	    "every denial is on a record or in the lost count (5)");
	ab_maskrec_stats(r, &st);
	ok(st.lost == 4 && st.lost_records == 1, "stats: 4 lost, one lost record");
	/* Failing at the end: the flush cannot write, and the count stays counted. */
	S.fail = 1;
	ab_maskrec_deny(r, &d, 5000);
	ab_maskrec_flush(r);
	ab_maskrec_stats(r, &st);
	ok(st.lost == 5 && S.lost_said == 2, "a failure at the end is counted and said");
	ab_maskrec_free(r);
}

int
main(void)
{
	t_first_and_repeats();
	t_keys();
	t_hostile();
	t_evict();
	t_lost();
	reset();
	return done_testing();
}
