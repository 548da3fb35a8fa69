/*
 * agentbox-audit internals without a log file: the record parser, value decoding, event
 * grouping (late records, slot reuse), serial-gap accounting, time arguments, and the
 * completeness verdict against a given kernel lost counter (which a test cannot set).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "review.h"
#include "tap.h"

static int
field_is(const struct ab_rec *r, const char *key, int inner, const char *want)
{
	struct ab_str v;
	char buf[256];
	size_t n;

	if (ab_rec_field(r, key, inner, &v) != 0)
		return want == NULL;
	if (want == NULL)
		return 0;
	(void)ab_val_decode(key, v, buf, sizeof(buf), &n);
	return n == strlen(want) && memcmp(buf, want, n) == 0;
}

static void
test_header(void)
{
	struct ab_rec r;
	const char *l1 = "node=build-01 type=UNKNOWN[1423] msg=audit(1796032868.463:20): domain=1d5 "
	    "blockers=fs.read_file path=2F746D702F612062 dev=\"vda\" ino=5";
	const char *l2 = "type=SYSCALL msg=audit(1.001:7): arch=c000003e syscall=257 success=no "
	    "exit=-13 comm=\"cat\" key=(null)\x1d" "ARCH=x86_64 SYSCALL=openat UID=\"agent one\"";
	struct ab_str v;

	ok(ab_rec_parse(l1, strlen(l1), &r) == 0, "node= prefixed record parses");
	ok(r.node.n == 8 && memcmp(r.node.p, "build-01", 8) == 0, "node name");
	ok(r.t == AB_T_LL_ACCESS, "UNKNOWN[1423] is a Landlock access record");
	ok(r.sec == 1796032868 && r.ms == 463 && r.serial == 20, "time and serial");
	ok(field_is(&r, "path", 0, "/tmp/a b"), "hex path decoded");
	ok(field_is(&r, "dev", 0, "vda"), "quoted value unquoted");
	ok(field_is(&r, "blockers", 0, "fs.read_file"), "plain value");
	ok(field_is(&r, "nosuch", 0, NULL), "missing field is -ENOENT");

	ok(ab_rec_parse(l2, strlen(l2), &r) == 0, "enriched record parses");
	ok(field_is(&r, "key", 0, ""), "key=(null) decodes to empty");
	ok(ab_rec_field(&r, "ARCH", 0, &v) == -ENOENT, "enriched names are not raw fields");
	ok(ab_rec_enriched(&r, "UID", &v) == 0 && v.n == 11, "enriched UID with a space");
	ok(ab_rec_enriched(&r, "SYSCALL", &v) == 0 && v.n == 6 && memcmp(v.p, "openat", 6) == 0,
	    "enriched SYSCALL translation");
	ok(ab_type_of("LANDLOCK_DOMAIN", 15) == AB_T_LL_DOMAIN, "named LANDLOCK_DOMAIN");
	ok(ab_type_of("UNKNOWN[1424]", 13) == AB_T_LL_DOMAIN, "unnamed UNKNOWN[1424]");
	ok(ab_type_of("UNKNOWN[1105]", 13) == AB_T_USER, "unnamed user-space type");
	ok(ab_type_of("DAEMON_START", 12) == AB_T_DAEMON, "auditd's own record");
}

static void
test_hostile_headers(void)
{
	static const char *bad[] = {
		"", "type=", "type=SYSCALL", "type=SYSCALL msg=audit(", "type=SYSCALL msg=audit(1.1:2): x",
		"type=SYSCALL msg=audit(1.001:2) x", "type=SYSCALL msg=audit(1.001:):",
		"msg=audit(1.001:2): type=SYSCALL", "node= type=X msg=audit(1.001:2):",
		"type=SYSCALL msg=audit(.001:2):", "node=x",
	};
	const char *huge_t = "type=SYSCALL msg=audit(99999999999999999999999.000:1): a=b";
	const char *huge_s = "type=SYSCALL msg=audit(1.000:184467440737095516150): a=b";
	const char *far = "type=SYSCALL msg=audit(253402300800.000:1): a=b";
	struct ab_rec r;
	size_t i, bad_refused = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int refused = ab_rec_parse(bad[i], strlen(bad[i]), &r) != 0;

		bad_refused += refused;
		if (!refused)
			diag("accepted: %s", bad[i]);
	}
	ok(bad_refused == sizeof(bad) / sizeof(bad[0]), "%zu malformed headers refused", i);
	ok(ab_rec_parse(huge_t, strlen(huge_t), &r) == -ERANGE, "absurd time: -ERANGE");
	ok(ab_rec_parse(huge_s, strlen(huge_s), &r) == -ERANGE, "serial beyond 64 bits: -ERANGE");
	ok(ab_rec_parse(far, strlen(far), &r) == -ERANGE, "year 10000: -ERANGE");
	{
		/* A NUL inside the line: parsing is bounded by the length, not by the NUL. */
		const char l[] = "type=PATH msg=audit(1.000:3): name=\"a\0b\" item=0";
		struct ab_str v;

		ok(ab_rec_parse(l, sizeof(l) - 1, &r) == 0 && ab_rec_field(&r, "item", 0, &v) == 0,
		    "NUL inside a value does not end the record");
	}
	{
		const char l[] = "type=SYSCALL msg=audit(1.000:3): key=\"unterminated";
		char buf[64];
		size_t n;
		struct ab_str v;

		ok(ab_rec_parse(l, sizeof(l) - 1, &r) == 0 && ab_rec_field(&r, "key", 0, &v) == 0 &&
		    ab_val_decode("key", v, buf, sizeof(buf), &n) == 0 && n == 12,
		    "unterminated quote: value runs to the end of the line");
	}
}

static void
test_decode(void)
{
	char buf[8];
	size_t n;

	ok(ab_val_decode("path", (struct ab_str){ "414", 3 }, buf, sizeof(buf), &n) == 0 &&
	    n == 3 && memcmp(buf, "414", 3) == 0, "odd-length hex is not decoded");
	ok(ab_val_decode("digest", (struct ab_str){ "4142", 4 }, buf, sizeof(buf), &n) == 0 &&
	    n == 4, "hex only for fields the kernel encodes");
	ok(ab_val_decode("path", (struct ab_str){ "41004243", 8 }, buf, sizeof(buf), &n) == 0 &&
	    n == 4 && buf[1] == '\0' && buf[2] == 'B', "decoded NUL kept by length");
	ok(ab_val_decode("path", (struct ab_str){ "\"0123456789\"", 12 }, buf, sizeof(buf), &n) ==
	    -ENOSPC && n == 7 && buf[7] == '\0', "too long: -ENOSPC, truncated, terminated");
	ok(ab_val_decode("path", (struct ab_str){ "4141414141414141414141", 22 }, buf, sizeof(buf),
	    &n) == -ENOSPC && n == 7, "too long hex: -ENOSPC");
	ok(ab_val_decode("tty", (struct ab_str){ "(none)", 6 }, buf, sizeof(buf), &n) == 1 && n == 0,
	    "(none) is unset");
}

static void
test_inner(void)
{
	const char *l = "type=TRUSTED_APP msg=audit(5.000:9): pid=1 uid=0 auid=2001 ses=3 "
	    "msg='op=agentbox-session-start ses=7 user=6167656E742031 uid=2001 res=success'";
	struct ab_rec r;

	ok(ab_rec_parse(l, strlen(l), &r) == 0, "user-space record parses");
	ok(field_is(&r, "ses", 1, "7"), "inner ses preferred with inner");
	ok(field_is(&r, "ses", 0, "3"), "outer ses by default");
	ok(field_is(&r, "user", 1, "agent 1"), "hex-encoded user name decoded");
	ok(field_is(&r, "op", 0, "agentbox-session-start"), "inner-only field found either way");
}

/* ---- grouping ---------------------------------------------------------------------------- */

static char got[4096];

static void
collect(void *arg, const struct ab_rec *recs, size_t n)
{
	(void)arg;
	size_t o = strlen(got);

	o += (size_t)snprintf(got + o, sizeof(got) - o, "%ju:%zu ", (uintmax_t)recs[0].serial, n);
}

static void
feed(struct ab_group *g, const char *const *lines)
{
	for (; *lines != NULL; lines++)
		(void)ab_group_line(g, *lines, strlen(*lines));
	ab_group_flush(g);
}

static void
test_group(void)
{
	struct ab_group *g;
	const char *inter[] = {
		"type=UNKNOWN[1423] msg=audit(1.000:10): domain=1 blockers=fs.read_file",
		"type=SYSCALL msg=audit(1.000:11): success=no exit=-13 key=\"agentbox\"",
		"type=SYSCALL msg=audit(1.000:10): success=no exit=-13 key=\"agentbox\"",
		"type=PATH msg=audit(1.000:11): item=0 name=\"x\"",
		"type=PATH msg=audit(1.000:10): item=0 name=\"y\"",
		"type=DAEMON_START msg=audit(1.000:10): op=start",	/* auditd's own serial */
		"type=EOE msg=audit(1.000:11): ",
		NULL,
	};
	const char *late[] = {
		"type=SYSCALL msg=audit(1.000:20): success=no exit=-13 key=\"agentbox\"",
		"type=EOE msg=audit(1.000:20): ",
		"type=PATH msg=audit(1.000:20): item=0 name=\"late\"",
		NULL,
	};

	got[0] = '\0';
	ok(ab_group_new(collect, NULL, &g) == 0, "group created");
	feed(g, inter);
	ok(strstr(got, "10:1 ") == got, "DAEMON_START is its own event, not serial 10's");
	ok(strstr(got, "11:2 ") != NULL, "interleaved event 11 closed by EOE with 2 records (%s)", got);
	ok(strstr(got, "10:3 ") != NULL, "interleaved event 10 joined: 3 records");
	ok(ab_group_stats(g)->late == 0, "no late records");
	ab_group_free(g);

	got[0] = '\0';
	ok(ab_group_new(collect, NULL, &g) == 0, "group created");
	feed(g, late);
	ok(strcmp(got, "20:1 20:1 ") == 0, "a record after EOE is its own event (%s)", got);
	ok(ab_group_stats(g)->late == 1, "and is counted late");
	ab_group_free(g);
}

/* ---- completeness ---------------------------------------------------------------------- */

static void
test_gaps(void)
{
	struct ab_complete *c;
	struct ab_gap ex[4];
	size_t nex, nseg;
	uint64_t seen, missing;
	struct ab_str none = { "", 0 }, other = { "h2", 2 };

	ok(ab_complete_new(&c) == 0, "completeness state");
	for (uint64_t s = 100; s <= 200; s++)
		if (s != 150 && (s < 170 || s > 172))
			ab_complete_serial(c, none, s, 1);
	ab_complete_serial(c, none, 171, 1);	/* late: fills part of a hole */
	missing = ab_complete_gaps(c, ex, 4, &nex, &nseg, &seen);
	ok(missing == 3, "holes 150 and 170,172 found after a late fill (%ju)", (uintmax_t)missing);
	ok(nex == 3 && ex[0].lo == 150 && ex[0].hi == 150, "first gap 150..150");
	/* A reboot: serials restart far below; not a gap, a new run. */
	for (uint64_t s = 1; s <= 10; s++)
		ab_complete_serial(c, none, s, 60);
	/* Another node's serials are its own. */
	ab_complete_serial(c, other, 5000, 1);
	ab_complete_serial(c, other, 5002, 1);
	missing = ab_complete_gaps(c, ex, 4, &nex, &nseg, &seen);
	ok(missing == 4 && nseg == 3, "reboot and second node: %ju missing in %zu runs",
	    (uintmax_t)missing, nseg);
	ab_complete_free(c);

	/* A log made of holes: memory stays bounded, the count stays exact. */
	ok(ab_complete_new(&c) == 0, "completeness state");
	for (uint64_t s = 0; s < 100000; s++)
		ab_complete_serial(c, none, 1000 + 2 * s, 1);
	missing = ab_complete_gaps(c, ex, 4, &nex, &nseg, &seen);
	ok(missing == 99999 && seen == 100000, "100000 serials, every other missing: %ju",
	    (uintmax_t)missing);
	ab_complete_free(c);
}

static void
test_time(void)
{
	uint64_t t, u;

	ok(ab_parse_time("1796032868", 0, 0, &t) == 0 && t == 1796032868, "epoch");
	ok(ab_parse_time("@42", 0, 0, &t) == 0 && t == 42, "@epoch");
	ok(ab_parse_time("2h", 10000, 0, &t) == 0 && t == 10000 - 7200, "2h ago");
	ok(ab_parse_time("2026-11-30 10:00", 0, 0, &t) == 0, "date and time");
	ok(ab_parse_time("2026-11-30T10:00:05", 0, 0, &t) == 0, "ISO 8601 with T");
	ok(ab_parse_time("99999999999999999999999", 0, 0, &t) != 0, "absurd epoch refused");
	ok(ab_parse_time("5x", 0, 0, &t) != 0 && ab_parse_time("-1", 0, 0, &t) != 0,
	    "garbage refused");
	ok(ab_parse_time("9999999d", 100, 0, &t) != 0, "before the epoch refused");
	/* --until names the end of a day or a minute; exact times stay exact.  (UTC: the
	 * test sets TZ, so a day is 86,400 s.) */
	setenv("TZ", "UTC", 1);
	tzset();
	ok(ab_parse_time("2026-11-30", 0, 0, &t) == 0 && t == 1796083200 - 86400,
	    "--since DAY: its first second");
	ok(ab_parse_time("2026-11-30", 0, 1, &u) == 0 && u == t + 86399,
	    "--until DAY: its last second (the day is in the range)");
	ok(ab_parse_time("2026-11-30 10:00", 0, 1, &u) == 0 &&
	    ab_parse_time("2026-11-30 10:00", 0, 0, &t) == 0 && u == t + 59,
	    "--until MINUTE: its last second");
	ok(ab_parse_time("2026-11-30 10:00:05", 0, 1, &u) == 0 &&
	    ab_parse_time("2026-11-30 10:00:05", 0, 0, &t) == 0 && u == t,
	    "--until SECOND: exact");
	ok(ab_parse_time("1796032868", 0, 1, &u) == 0 && u == 1796032868, "--until epoch: exact");
	ok(ab_parse_time("today", 1796032868, 1, &u) == 0 && u == 1796083199,
	    "--until today: its last second");
	ok(ab_parse_time("yesterday", 1796032868, 1, &u) == 0 && u == 1796083199 - 86400,
	    "--until yesterday: its last second");
}

/* ---- losses judged on a session's own span ------------------------------------------- */

#define SPAN_LOG "tests/fixtures/session-lost.log"	/* prove runs from the top */

/*
 * The completeness verdict for tests/fixtures/session-lost.log under FILTER when the
 * kernel's counter now is KLOST: returns ab_out_completeness's 1 (not known complete) or
 * 0, -1 when the review could not be made; the report in REPORT.
 */
static int
verdict(const struct ab_filter *filter, uint64_t klost, char *report, size_t cap)
{
	struct ab_facts x = { .kernel_checked = 1, .backlog_limit = 8192, .files_read = 1 };
	struct ab_review *rv;
	struct ab_group *g;
	char line[AB_LINE_MAX];
	FILE *in, *out;
	int r = -1;

	if ((in = fopen(SPAN_LOG, "re")) == NULL)
		return -1;
	if (ab_review_new(filter, NULL, NULL, &rv) != 0 ||
	    ab_group_new(ab_review_event, rv, &g) != 0) {
		fclose(in);
		return -1;
	}
	while (fgets(line, sizeof(line), in) != NULL)
		(void)ab_group_line(g, line, strcspn(line, "\n"));
	ab_group_flush(g);
	ab_review_finish(rv);
	x.events = ab_group_stats(g)->events;
	x.lines = ab_group_stats(g)->lines;
	x.kernel_lost = klost;
	x.rs = ab_review_stats(rv);
	x.cp = ab_review_complete(rv);
	x.rv = rv;
	x.filtered = ab_review_filtering(rv);
	if ((out = fmemopen(report, cap, "w")) != NULL) {
		r = ab_out_completeness(out, 0, &x);
		fclose(out);
	}
	ab_group_free(g);
	ab_review_free(rv);
	fclose(in);
	return r;
}

static void
test_span(void)
{
	struct ab_filter f = { .have_session = 1 };
	char rep[8192];
	int r;

	/* The host lost 7 records before session 201, none during it (lost=7 .. lost=7). */
	f.session = 201;
	r = verdict(&f, 7, rep, sizeof(rep));
	ok(r == 0 && strstr(rep, "COMPLETE: every serial") != NULL,
	    "host counter 7, unchanged across session 201: COMPLETE (%d)", r);
	ok(strstr(rep, "dropped 7 audit records since boot") != NULL,
	    "the host-wide counter stays, as a note");
	r = verdict(NULL, 7, rep, sizeof(rep));
	ok(r == 1 && strstr(rep, "INCOMPLETE: the kernel dropped 7") != NULL,
	    "without --session/--user the host-wide counter still judges");
	f.session = 202;
	r = verdict(&f, 12, rep, sizeof(rep));
	ok(r == 1 && strstr(rep, "session 202: 5 audit record(s) lost during this session") != NULL,
	    "counter rose 7 -> 12 inside session 202: INCOMPLETE with the count");
	/* Session 203 is still open, lost=12 at its start: judged against the counter now. */
	f.session = 203;
	ok(verdict(&f, 12, rep, sizeof(rep)) == 0, "open session, counter now = at its start: "
	    "complete");
	r = verdict(&f, 15, rep, sizeof(rep));
	ok(r == 1 && strstr(rep, "3 audit record(s) lost during this session so far") != NULL,
	    "open session, counter now 3 higher: INCOMPLETE");
	ok(verdict(&f, 11, rep, sizeof(rep)) == 1, "open session, counter now below its start "
	    "(another boot): not complete");
	/* Older records carry no lost=: the host-wide counter, as before. */
	f.session = 204;
	ok(verdict(&f, 7, rep, sizeof(rep)) == 1, "old records without lost=: host counter 7 "
	    "makes it incomplete");
	ok(verdict(&f, 0, rep, sizeof(rep)) == 0, "old records, host counter 0: complete");
	/* Hostile values: huge/negative, non-numeric/empty, end without, end below start,
	 * hex: never complete, whatever the host counter says. */
	for (uint64_t ses = 205; ses <= 209; ses++) {
		f.session = ses;
		r = verdict(&f, 0, rep, sizeof(rep));
		ok(r == 1 && strstr(rep, "cannot be read as a count") != NULL,
		    "session %ju: hostile lost= never complete", (uintmax_t)ses);
	}
	/* --user: every selected session's span must be clean (201 closed, 203 open). */
	f.have_session = 0;
	f.user = "abt_l1";
	ok(verdict(&f, 12, rep, sizeof(rep)) == 0, "--user abt_l1: both spans clean: complete");
	ok(verdict(&f, 13, rep, sizeof(rep)) == 1, "--user abt_l1: the open one lost 1: not");
}

/* ---- learning records (learn.c) ------------------------------------------------------ */

/* One op=agentbox-learn message under agentbox-maskd's header (ses 5: the daemon's). */
static int
learn_of(const char *msg, struct ab_learn *l)
{
	static char line[1024];
	struct ab_rec r;

	snprintf(line, sizeof(line), "type=TRUSTED_APP msg=audit(1796110001.001:8003): pid=888 "
	    "uid=0 auid=1000 ses=5 msg='%s exe=\"/usr/sbin/agentbox-maskd\" hostname=? addr=? "
	    "terminal=? res=success'", msg);
	if (ab_rec_parse(line, strlen(line), &r) != 0)
		return -100;
	return ab_learn_parse(&r, l);
}

static void
test_learn(void)
{
	static const char *const right[][2] = { { "read", "fs.read_file" },
	    { "list", "fs.read_dir" }, { "execute", "fs.execute" }, { "write", "fs.write_file" } };
	static const char *const bad[] = {
		"op=agentbox-learn uid=1401 pid=1 access=read path=\"/a\"",		/* no ses */
		"op=agentbox-learn ses=401 pid=1 access=read path=\"/a\"",		/* no uid */
		"op=agentbox-learn ses=401 uid=1401 pid=1 path=\"/a\"",		/* no access */
		"op=agentbox-learn ses=401 uid=1401 pid=1 access=read",		/* no path */
		"op=agentbox-learn ses=401 uid=1401 pid=1 access=READ path=\"/a\"",
		"op=agentbox-learn ses=401 uid=1401 pid=1 access=readx path=\"/a\"",
		"op=agentbox-learn ses=401 uid=1401 pid=1 access=read path=\"a/b\"",
		"op=agentbox-learn ses=401 uid=1401 pid=x access=read path=\"/a\"",
		"op=agentbox-learn ses=4294967295 uid=1401 pid=1 access=read path=\"/a\"",
		"op=agentbox-learn ses=401 uid=-1 pid=1 access=read path=\"/a\"",
	};
	const char *cut = "type=TRUSTED_APP msg=audit(1796110001.001:8004): pid=888 uid=0 "
	    "auid=1000 ses=5 msg='op=agentbox-learn ses=401 uid=1401 pid=1 access=read "
	    "path=\"/srv/tool-secret/da";
	struct ab_rec r;
	struct ab_learn l;
	char msg[256];

	for (size_t i = 0; i < sizeof(right) / sizeof(right[0]); i++) {
		snprintf(msg, sizeof(msg), "op=agentbox-learn ses=401 uid=1401 pid=5001 access=%s "
		    "path=\"/srv/t/a\" comm=\"abttool\"", right[i][0]);
		ok(learn_of(msg, &l) == 0 && l.access.n == strlen(right[i][1]) &&
		    memcmp(l.access.p, right[i][1], l.access.n) == 0,
		    "access=%s is %s", right[i][0], right[i][1]);
	}
	ok(l.ses == 401 && l.uid == 1401 && l.pid == 5001 && !l.malformed,
	    "session, uid and pid are the message's, not the daemon's header");
	ok(l.path.n == 8 && memcmp(l.path.p, "/srv/t/a", 8) == 0 && l.comm.n == 7,
	    "path and comm decoded");
	ok(learn_of("op=agentbox-learn ses=401 uid=1401 pid=1 access=read "
	    "path=2F7372762F6120620A comm=1B5B33316D", &l) == 0 && l.path.n == 9 &&
	    memcmp(l.path.p, "/srv/a b\n", 9) == 0 && l.comm.n == 5 && l.comm.p[0] == 0x1b,
	    "hex-encoded path and comm (audit_encode_nv_string) decoded");
	ok(learn_of("op=agentbox-learn ses=401 uid=1401 access=read path=\"/a\"", &l) == 0 &&
	    l.pid == AB_UNSET32, "no pid: unknown, not malformed");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(learn_of(bad[i], &l) == -EINVAL && l.malformed, "malformed: %s", bad[i] + 18);
	ok(ab_rec_parse(cut, strlen(cut), &r) == 0 && ab_learn_parse(&r, &l) == -EINVAL &&
	    l.malformed, "a line cut inside its path: malformed (a prefix is not the path)");
	ok(learn_of("op=agentbox-learn-lost ses=401 uid=1401 reason=overflow", &l) == 1,
	    "learn-lost is not a learning record");
	ok(learn_of("op=agentbox-net ses=401 uid=1401", &l) == 1, "nor is a network record");
}

static void
test_learn_lost(void)
{
	static const struct { const char *msg; int rc; uint64_t ses; } c[] = {
		{ "op=agentbox-learn-lost ses=402 uid=1401 reason=overflow", 0, 402 },
		{ "op=agentbox-learn-lost ses=402 uid=1401 reason=table-full", 0, 402 },
		{ "op=agentbox-learn-lost ses=402 uid=1401 reason=read-error", 0, 402 },
		{ "op=agentbox-learn-lost ses=402 uid=1401 reason=other", -EINVAL, 402 },
		{ "op=agentbox-learn-lost ses=402 reason=overflow", -EINVAL, 402 },
		{ "op=agentbox-learn-lost uid=1401 reason=overflow", -EINVAL, AB_UNSET32 },
		{ "op=agentbox-learn ses=402 uid=1401 access=read path=\"/a\"", 1, 0 },
	};
	char line[512], reason[32];
	struct ab_rec r;
	uint64_t ses, uid;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int rc;

		snprintf(line, sizeof(line), "type=TRUSTED_APP msg=audit(1.001:9): pid=888 uid=0 "
		    "auid=1000 ses=5 msg='%s res=failed'", c[i].msg);
		ses = 0;
		rc = ab_rec_parse(line, strlen(line), &r) == 0 ?
		    ab_learn_lost_parse(&r, &ses, &uid, reason, sizeof(reason)) : -100;
		ok(rc == c[i].rc && (rc == 1 || ses == c[i].ses), "%s: %d, ses %ju",
		    c[i].msg, rc, (uintmax_t)ses);
	}
}

int
main(void)
{
	test_header();
	test_hostile_headers();
	test_decode();
	test_inner();
	test_group();
	test_gaps();
	test_time();
	test_span();
	test_learn();
	test_learn_lost();
	return done_testing();
}
