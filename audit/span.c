/*
 * Where the review's troubles lie, by serial: unreadable lines and Landlock domains of
 * no known session that ended short of records.  With --session or --user the review is
 * judged on the selected sessions' spans (DESIGN invariant 5), so each such trouble is
 * kept as the serial it happened at, and later counted inside a span or outside every
 * one.  A trouble whose serial cannot be read is "unplaced": it counts against every
 * span, never for none.
 *
 * Serials are sorted once at the end of input and counted with two binary searches,
 * so a sessions view of many sessions costs O(log n) per session.  Bounded: past
 * AB_MARKS_MAX entries a trouble is unplaced (fails toward "incomplete").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review.h"

#define AB_MARKS_MAX	(1u << 16)

struct list {
	uint64_t	*v;
	size_t		 n, cap;
	uint64_t	 unplaced;
};

struct ab_marks {
	struct list	 l[AB_MARK_N];
};

int
ab_marks_new(struct ab_marks **out)
{
	return (*out = calloc(1, sizeof(**out))) == NULL ? -ENOMEM : 0;
}

void
ab_marks_free(struct ab_marks *m)
{
	if (m == NULL)
		return;
	for (int k = 0; k < AB_MARK_N; k++)
		free(m->l[k].v);
	free(m);
}

void
ab_marks_add(struct ab_marks *m, enum ab_mark k, int placed, uint64_t serial)
{
	struct list *l = &m->l[k];

	if (!placed || l->n == AB_MARKS_MAX) {
		l->unplaced++;
		return;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		uint64_t *v = realloc(l->v, cap * sizeof(*v));

		if (v == NULL) {
			l->unplaced++;	/* out of memory: against every span */
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = serial;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void
ab_marks_sort(struct ab_marks *m)
{
	for (int k = 0; k < AB_MARK_N; k++)
		if (m->l[k].n > 1)
			qsort(m->l[k].v, m->l[k].n, sizeof(uint64_t), cmp_u64);
}

/* The first index whose serial is at least V. */
static size_t
lower(const struct list *l, uint64_t v)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t
ab_marks_in(const struct ab_marks *m, enum ab_mark k, uint64_t lo, uint64_t hi)
{
	const struct list *l = &m->l[k];

	if (lo > hi)
		return 0;
	return (hi == UINT64_MAX ? l->n : lower(l, hi + 1)) - lower(l, lo);
}

uint64_t
ab_marks_unplaced(const struct ab_marks *m, enum ab_mark k)
{
	return m->l[k].unplaced;
}

uint64_t
ab_marks_total(const struct ab_marks *m, enum ab_mark k)
{
	return m->l[k].n + m->l[k].unplaced;
}

static int
cmp_span(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

uint64_t
ab_marks_in_union(const struct ab_marks *m, enum ab_mark k, uint64_t (*spans)[2], size_t n)
{
	uint64_t count = 0, lo, hi;
	size_t i = 0;

	qsort(spans, n, sizeof(*spans), cmp_span);
	while (i < n) {
		lo = spans[i][0];
		hi = spans[i][1];
		/* Merge the spans that overlap this one: each trouble is counted once. */
		for (i++; i < n && spans[i][0] <= hi; i++)
			if (spans[i][1] > hi)
				hi = spans[i][1];
		count += ab_marks_in(m, k, lo, hi);
		if (hi == UINT64_MAX)
			break;
	}
	return count;
}

/*
 * The serial of an audit line that could not be read as a record: the digits after
 * the first "msg=audit(SECONDS.MS:" up to ")".  Hand-written: the line is exactly what
 * the parser refused, so it is scanned leniently, never trusted further.
 */
int
ab_line_serial(const char *line, size_t len, uint64_t *serial)
{
	static const char key[] = "msg=audit(";
	const char *p = memmem(line, len, key, sizeof(key) - 1), *end = line + len;
	uint64_t v = 0;
	int digits = 0;

	if (p == NULL)
		return -ENOENT;
	p += sizeof(key) - 1;
	while (p < end && ((*p >= '0' && *p <= '9') || *p == '.'))
		p++;
	if (p == end || *p++ != ':')
		return -ENOENT;
	for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (digits == 0 || p == end || *p != ')')
		return -ENOENT;
	*serial = v;
	return 0;
}
