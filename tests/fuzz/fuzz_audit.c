/*
 * libFuzzer target for agentbox-audit's record parser and everything behind it: lines
 * -> events (fast path) -> denials, sessions, domains, completeness -> table and JSON.
 * The input is an audit log; anything goes (NUL bytes, no newlines, absurd numbers).
 *   make build/fuzz/fuzz_audit && build/fuzz/fuzz_audit -max_total_time=600 CORPUS SEEDS
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "review.h"

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

		(void)ab_group_line(g, p, len);
		p += len + (nl != NULL);
	}
	ab_group_flush(g);
	ab_review_finish(rv);
	ab_out_sessions(&out, rv);
	ab_out_summary(&out, rv);
	x.rs = ab_review_stats(rv);
	x.cp = ab_review_complete(rv);
	x.rv = rv;
	(void)ab_out_completeness(devnull, size & 2, &x);
	ab_group_free(g);
	ab_review_free(rv);
	return 0;
}
