/*
 * The review's tables full: what they cannot hold must make the completeness report
 * INCOMPLETE with its reason, never COMPLETE.  Built with MAX_SESSIONS and MAX_DOMAINS
 * of 8 (audit/build.mk), so a few records fill them.
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

int
main(void)
{
	test_sessions_full();
	test_domains_full();
	return done_testing();
}
