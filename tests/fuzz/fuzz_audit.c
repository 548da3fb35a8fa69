/*
 * libFuzzer target for agentbox-audit's record parser and everything behind it: lines
 * -> events (fast path) -> denials, sessions, domains, completeness -> table and JSON.
 * The input is an audit log; anything goes (NUL bytes, no newlines, absurd numbers).
 * Property: whenever the report says complete, every node's serials in the input form
 * one run without a hole -- computed here from the lines themselves, not by the review.
 *   make build/fuzz/fuzz_audit && build/fuzz/fuzz_audit -max_total_time=600 CORPUS SEEDS
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review.h"

/* One kernel record as the property sees it: node, serial, time. */
struct seen {
	const char	*node;
	size_t		 nodelen;
	uint64_t	 serial, sec;
};

/* Digits at *P (advanced past them) into *V; 0 if there are none. */
static int
digits(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;

	for (*v = 0; *p < end && **p >= '0' && **p <= '9'; (*p)++)
		*v = *v * 10 + (uint64_t)(**p - '0');	/* wraps: such lines are refused */
	return *p > s;
}

/* auditd's own records (DAEMON_*, UNKNOWN[1200..1299]) carry auditd's numbers, not
 * kernel serials. */
static int
is_daemon(const char *t, size_t n)
{
	uint64_t v;
	const char *p = t + 8;

	if (n > 7 && memcmp(t, "DAEMON_", 7) == 0)
		return 1;
	if (n < 10 || n > 30 || memcmp(t, "UNKNOWN[", 8) != 0 || t[n - 1] != ']')
		return 0;
	return digits(&p, t + n - 1, &v) && p == t + n - 1 && v >= 1200 && v <= 1299;
}

/* "[node=N ]type=T msg=audit(SEC.MS:SERIAL):" -- a kernel record, into *S. */
static int
parse_simply(const char *p, const char *end, struct seen *s)
{
	const char *sp;
	uint64_t ms;

	s->node = p;
	s->nodelen = 0;
	if (end - p >= 5 && memcmp(p, "node=", 5) == 0) {
		if ((sp = memchr(p + 5, ' ', end - p - 5)) == NULL)
			return 0;
		s->node = p + 5;
		s->nodelen = sp - p - 5;
		p = sp + 1;
	}
	if (end - p < 5 || memcmp(p, "type=", 5) != 0 || (sp = memchr(p, ' ', end - p)) == NULL ||
	    is_daemon(p + 5, sp - p - 5))
		return 0;
	p = sp + 1;
	if (end - p < 10 || memcmp(p, "msg=audit(", 10) != 0)
		return 0;
	p += 10;
	return digits(&p, end, &s->sec) && p < end && *p++ == '.' && digits(&p, end, &ms) &&
	    p < end && *p++ == ':' && digits(&p, end, &s->serial);
}

static int
by_node_serial(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	size_t n = x->nodelen < y->nodelen ? x->nodelen : y->nodelen;
	int c = memcmp(x->node, y->node, n);

	if (c != 0 || x->nodelen != y->nodelen)
		return c != 0 ? c : x->nodelen < y->nodelen ? -1 : 1;
	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

/*
 * Whether node serials S[0..n) (sorted) leave a hole the review must have seen.  A
 * reboot restarts serials, and the review tells one from reordering by time (a lower
 * serial more than a second later) or distance (AB_REORDER, 100000): a node whose
 * records could look like that is not judged.
 */
static int
node_has_hole(const struct seen *s, size_t n)
{
	uint64_t maxsec = 0;

	if (s[n - 1].serial - s[0].serial >= 100000)
		return 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && s[j].serial == s[i].serial; j++)
			if (i > 0 && maxsec > s[j].sec + 1)
				return 0;	/* a lower serial later in time: maybe a boot */
		for (j = i; j < n && s[j].serial == s[i].serial; j++)
			maxsec = s[j].sec > maxsec ? s[j].sec : maxsec;
	}
	for (size_t i = 1; i < n; i++)
		if (s[i].serial > s[i - 1].serial + 1)
			return 1;
	return 0;
}

/* The property: a report that says complete over a hole is a bug, so crash. */
static void
check_complete(const uint8_t *data, size_t size, int incomplete)
{
	const char *p = (const char *)data, *end = p + size;
	struct seen *s;
	size_t n = 0;

	if (incomplete || (s = calloc(size / 8 + 1, sizeof(*s))) == NULL)
		return;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end;

		if (parse_simply(p, e, &s[n]))
			n++;
		p = e + 1;
	}
	qsort(s, n, sizeof(*s), by_node_serial);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && s[j].nodelen == s[i].nodelen &&
		    memcmp(s[j].node, s[i].node, s[i].nodelen) == 0; j++)
			;
		if (node_has_hole(s + i, j - i)) {
			fprintf(stderr, "COMPLETE reported over a hole in the serials of node "
			    "'%.*s'\n", (int)s[i].nodelen, s[i].node);
			abort();
		}
	}
	free(s);
}

static FILE *devnull;

static void
denial(void *arg, const struct ab_denial *d)
{
	struct ab_out *o = arg;

	ab_out_denial(o, d);
	o->json = !o->json;	/* exercise both printers */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ab_out out = { .tty = 1 };
	struct ab_filter flt = { .path = size & 1 ? "/tmp" : NULL };
	struct ab_facts x = { 0 };
	struct ab_review *rv;
	struct ab_group *g;
	const char *p = (const char *)data, *end = p + size;

	if (devnull == NULL && (devnull = fopen("/dev/null", "we")) == NULL)
		return 0;
	out.f = devnull;
	if (ab_review_new(&flt, denial, &out, &rv) != 0)
		return 0;
	if (ab_group_new(ab_review_event, rv, &g) != 0) {
		ab_review_free(rv);
		return 0;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		/* As agentbox-audit's main: empty lines ignored, the others counted. */
		if (len > 0 && ab_group_line(g, p, len) != 0)
			x.malformed++;
		p += len + (nl != NULL);
	}
	ab_group_flush(g);
	ab_review_finish(rv);
	ab_out_sessions(&out, rv);
	ab_out_summary(&out, rv);
	x.lines = ab_group_stats(g)->lines;
	x.records = ab_group_stats(g)->records;
	x.events = ab_group_stats(g)->events;
	x.late = ab_group_stats(g)->late;
	x.dropped = ab_group_stats(g)->dropped;
	x.rs = ab_review_stats(rv);
	x.cp = ab_review_complete(rv);
	x.rv = rv;
	check_complete(data, size, ab_out_completeness(devnull, size & 2, &x));
	ab_group_free(g);
	ab_review_free(rv);
	return 0;
}
