/*
 * The review's tables full: what they cannot hold must make the completeness report
 * INCOMPLETE with its reason, never COMPLETE.  Built with MAX_SESSIONS, MAX_DOMAINS and
 * AB_NETVIEW_MAX of 8 (audit/build.mk), so a few records fill them.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review.h"
#include "review.h"	/* twice on purpose: the whole header is under its include guard */
#include "tap.h"

/* Review LINES (one record per event, serials contiguous: no gap to find), then print
 * the completeness report into REPORT; returns what ab_out_completeness returns. */
static int
review(char **lines, size_t n, int json, char *report, size_t cap)
{
	struct ab_facts x = { .events = n, .lines = n, .files_read = 1 };
	struct ab_review *rv;
	struct ab_rec r;
	FILE *f;
	int incomplete;

	if (ab_review_new(NULL, NULL, NULL, &rv) != 0 || (f = fmemopen(report, cap, "w")) == NULL)
		abort();
	for (size_t i = 0; i < n; i++)
		if (ab_rec_parse(lines[i], strlen(lines[i]), &r) == 0)
			ab_review_event(rv, &r, 1);
		else
			diag("not a record: %s", lines[i]);
	ab_review_finish(rv);
	x.rs = ab_review_stats(rv);
	x.cp = ab_review_complete(rv);
	x.rv = rv;
	incomplete = ab_out_completeness(f, json, &x);
	fclose(f);
	ab_review_free(rv);
	return incomplete;
}

/* Append one record of TYPE, the next serial (100, 101, ...), fields from FMT. */
static void __attribute__((format(printf, 4, 5)))
add(char **lines, size_t *n, const char *type, const char *fmt, ...)
{
	char *body;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&body, fmt, ap) < 0 || asprintf(&lines[*n], "type=%s "
	    "msg=audit(1796032879.100:%zu): %s", type, 100 + *n, body) < 0)
		abort();
	va_end(ap);
	free(body);
	(*n)++;
}

static void
free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
}

/* 12 sessions start, each with a seccomp denial: 4 more than the table holds. */
static void
test_sessions_full(void)
{
	char *lines[24], report[8192];
	size_t n = 0;

	for (int ses = 1; ses <= 12; ses++) {
		add(lines, &n, "TRUSTED_APP", "pid=1 uid=0 auid=1001 ses=%d msg='op=agentbox-"
		    "session-start ses=%d user=agent uid=1001 service=su res=success'", ses, ses);
		add(lines, &n, "SECCOMP", "auid=1001 uid=1001 gid=1001 ses=%d pid=7 comm=\"x\" "
		    "exe=\"/bin/x\" sig=0 arch=c000003e syscall=101 compat=0 ip=0x0 code=0x50001", ses);
	}
	ok(review(lines, n, 0, report, sizeof(report)) == 1,
	    "sessions past the table: not complete");
	ok(strstr(report, "COMPLETE: every serial") == NULL, "never COMPLETE");
	ok(strstr(report, "whose session could not be tracked") != NULL,
	    "the untracked sessions are reported");
	ok(review(lines, n, 1, report, sizeof(report)) == 1 &&
	    strstr(report, "\"complete\":false") != NULL &&
	    strstr(report, "whose session could not be tracked") != NULL,
	    "JSON: complete false, with the reason");
	free_lines(lines, n);
}

#define ALLOCATED "domain=%x status=allocated mode=enforcing pid=7 uid=1001 exe=\"/bin/x\" comm=\"x\""
#define DENIED "domain=%x blockers=fs.read_file path=\"/etc/shadow\""
#define FREED "domain=%x status=deallocated denials=1"

/* 12 Landlock domains allocated, each with one denial, then freed by the kernel with
 * denials=1: the log holds every record, but 4 domains do not fit the table. */
static void
test_domains_full(void)
{
	char *lines[36], report[8192];
	size_t n = 0;

	for (int d = 1; d <= 12; d++) {
		add(lines, &n, "UNKNOWN[1424]", ALLOCATED, 0x100 + d);
		add(lines, &n, "UNKNOWN[1423]", DENIED, 0x100 + d);
	}
	for (int d = 1; d <= 12; d++)
		add(lines, &n, "UNKNOWN[1424]", FREED, 0x100 + d);
	ok(review(lines, n, 0, report, sizeof(report)) == 1, "domains past the table: not complete");
	ok(strstr(report, "of a domain the table could not hold") != NULL,
	    "the untracked domains are reported");
	free_lines(lines, n);
	/* Within the table, the same log is complete: the check is not always-on. */
	n = 0;
	for (int d = 1; d <= 4; d++) {
		add(lines, &n, "UNKNOWN[1424]", ALLOCATED, 0x100 + d);
		add(lines, &n, "UNKNOWN[1423]", DENIED, 0x100 + d);
		add(lines, &n, "UNKNOWN[1424]", FREED, 0x100 + d);
	}
	ok(review(lines, n, 0, report, sizeof(report)) == 0, "4 domains in the table: complete");
	free_lines(lines, n);
}

/*
 * A domain's slot is reused after the kernel freed it: the new domain must start from
 * nothing.  Found by audit_storm.t: a new domain took a freed one's slot with its count
 * of records, and the domain check said 230 records missing where 231 were.  1,500
 * domains each with its one denial held and freed, then 1,500 whose one denial the log
 * lost (the kernel counted it), then 1,500 of which the log holds neither the
 * allocation nor the denial: one live at a time, so the table's 1,024 slots are reused.
 */
#define REUSE 1500

static void
test_domain_slot_reuse(void)
{
	struct ab_review_stats st;
	struct ab_review *rv;
	struct ab_rec r;
	char **lines;
	size_t n = 0;

	if ((lines = calloc(REUSE * 6, sizeof(*lines))) == NULL)
		abort();
	for (int d = 0; d < REUSE; d++) {
		add(lines, &n, "UNKNOWN[1424]", ALLOCATED, 0x10000 + d);
		add(lines, &n, "UNKNOWN[1423]", DENIED, 0x10000 + d);
		add(lines, &n, "UNKNOWN[1424]", FREED, 0x10000 + d);
	}
	for (int d = 0; d < REUSE; d++) {
		add(lines, &n, "UNKNOWN[1424]", ALLOCATED, 0x20000 + d);
		add(lines, &n, "UNKNOWN[1424]", FREED, 0x20000 + d);
	}
	for (int d = 0; d < REUSE; d++)
		add(lines, &n, "UNKNOWN[1424]", FREED, 0x30000 + d);
	if (ab_review_new(NULL, NULL, NULL, &rv) != 0)
		abort();
	for (size_t i = 0; i < n; i++)
		if (ab_rec_parse(lines[i], strlen(lines[i]), &r) == 0)
			ab_review_event(rv, &r, 1);
	ab_review_finish(rv);
	st = *ab_review_stats(rv);
	ab_review_free(rv);
	ok(st.domains_checked == 3 * REUSE, "slot reuse: every freed domain checked (%ju)",
	    (uintmax_t)st.domains_checked);
	ok(st.domains_short == REUSE && st.domains_records_missing == REUSE,
	    "slot reuse: each domain whose denial the log lost is short one record "
	    "(%ju short, %ju missing)", (uintmax_t)st.domains_short,
	    (uintmax_t)st.domains_records_missing);
	ok(st.domains_partial == REUSE,
	    "slot reuse: a domain allocated before the logs read is partial, not short (%ju)",
	    (uintmax_t)st.domains_partial);
	free_lines(lines, n);
	free(lines);
}

struct netcollect {
	struct ab_netview	*v;
	uint64_t		 lost;
};

/* What main.c's net view does with each decision the review hands it. */
static void
net_collect(void *arg, const struct ab_denial *d)
{
	struct netcollect *c = arg;

	if (d->net != NULL && ab_netview_add(c->v, d) != 0)
		c->lost++;
}

/* The net view over LINES; the completeness report into REPORT, as main prints it. */
static int
net_review(char **lines, size_t n, char *report, size_t cap, size_t *rows)
{
	struct ab_filter flt = { .net_decisions = 1 };
	struct netcollect c = { 0 };
	struct ab_facts x = { .events = n, .lines = n, .files_read = 1 };
	struct ab_review *rv;
	struct ab_rec r;
	FILE *f;
	int incomplete;

	if (ab_netview_new(0, &c.v) != 0 || ab_review_new(&flt, net_collect, &c, &rv) != 0 ||
	    (f = fmemopen(report, cap, "w")) == NULL)
		abort();
	for (size_t i = 0; i < n; i++)
		if (ab_rec_parse(lines[i], strlen(lines[i]), &r) == 0)
			ab_review_event(rv, &r, 1);
	ab_review_finish(rv);
	x.rs = ab_review_stats(rv);
	x.cp = ab_review_complete(rv);
	x.rv = rv;
	x.net_rows_lost = c.lost;
	incomplete = ab_out_completeness(f, 0, &x);
	fclose(f);
	for (*rows = 0; ab_netview_row(c.v, *rows) != NULL; (*rows)++)
		;
	ab_review_free(rv);
	ab_netview_free(c.v);
	return incomplete;
}

#define NET "pid=777 uid=999 auid=4294967295 ses=4294967295 msg='op=agentbox-net ses=1 " \
	"uid=1001 user=\"agent\" proto=connect event=deny host=\"h%d.example\" port=443 addr=? " \
	"decision=denied rule=\"-\" reason=\"no-rule\" count=1 bytes_up=0 bytes_down=0 dur_ms=0 " \
	"exe=\"/usr/sbin/agentbox-netd\" hostname=? addr=? terminal=? res=failed'"

#define START "pid=1 uid=0 auid=1001 ses=1 msg='op=agentbox-session-start ses=1 user=agent " \
	"uid=1001 service=su network=proxy res=success'"

/* The net view's table (AB_NETVIEW_MAX 8 here): 12 hosts denied, 4 rows it cannot hold
 * must make the report INCOMPLETE; 12 denials of 4 hosts fit and are complete. */
static void
test_netview_full(void)
{
	char *lines[13], report[8192];
	size_t n = 0, rows;

	add(lines, &n, "TRUSTED_APP", START);
	for (int h = 1; h <= 12; h++)
		add(lines, &n, "TRUSTED_APP", NET, h);
	ok(net_review(lines, n, report, sizeof(report), &rows) == 1 && rows == 8,
	    "net view past its table: 8 rows kept, not complete");
	ok(strstr(report, "4 network decision(s) not counted in the net view") != NULL,
	    "the decisions not counted are reported");
	ok(strstr(report, "COMPLETE: every serial") == NULL, "never COMPLETE");
	free_lines(lines, n);
	n = 0;
	add(lines, &n, "TRUSTED_APP", START);
	for (int h = 1; h <= 12; h++)
		add(lines, &n, "TRUSTED_APP", NET, h % 4);
	ok(net_review(lines, n, report, sizeof(report), &rows) == 0 && rows == 4,
	    "12 denials of 4 hosts: 4 rows, complete");
	free_lines(lines, n);
}

int
main(void)
{
	test_sessions_full();
	test_domains_full();
	test_domain_slot_reuse();
	test_netview_full();
	return done_testing();
}
