/* prefilter.c: see prefilter.h. */
#include <stdint.h>
#include <string.h>

#include "policy.h"
#include "prefilter.h"

/* memcmp, or its ASCII case-insensitive twin (strncasecmp would stop at a NUL and
 * follow the locale). */
static int
same(const char *a, const char *b, size_t n, int fold)
{
	size_t i;
	int x, y;

	if (!fold)
		return memcmp(a, b, n) == 0;
	for (i = 0; i < n; i++) {
		x = (unsigned char)a[i];
		y = (unsigned char)b[i];
		if (x >= 'A' && x <= 'Z')
			x += 'a' - 'A';
		if (y >= 'A' && y <= 'Z')
			y += 'a' - 'A';
		if (x != y)
			return 0;
	}
	return 1;
}

/*
 * The middle P[0..N) of a last component, from its first special byte to its last: the
 * longest run of plain bytes in it must appear in any name it matches.  Only '*' and
 * '?' are understood here: a middle holding a '[' class (whose bytes are not literal)
 * gets no run, which only costs the matcher a call.
 */
static void
longest_run(struct prefilter *f, const char *p, size_t n)
{
	size_t i, at = 0, best = 0, best_at = 0;

	if (memchr(p, '[', n) != NULL)
		return;
	for (i = 0; i <= n; i++) {
		if (i < n && p[i] != '*' && p[i] != '?')
			continue;
		if (i - at > best) {
			best = i - at;
			best_at = at;
		}
		at = i + 1;
	}
	if (best > 0) {
		f->mid = p + best_at;
		f->nmid = best;
	}
}

/* Does NAME[0..N) hold F's middle run anywhere? */
static int
holds_mid(const struct prefilter *f, const char *name, size_t n)
{
	size_t i;

	for (i = 0; i + f->nmid <= n; i++)
		if (same(name + i, f->mid, f->nmid, f->fold))
			return 1;
	return 0;
}

void
ab_prefilter_make(struct prefilter *f, const char *pat, unsigned int flags)
{
	size_t len = strlen(pat), start, i, first = SIZE_MAX, last = SIZE_MAX;

	memset(f, 0, sizeof(*f));
	f->pat = pat;
	f->fold = (flags & AB_PATTERN_CASEFOLD) != 0;
	while (len > 0 && pat[len - 1] == '/')		/* "dir/": directories only */
		len--;
	for (start = len; start > 0 && pat[start - 1] != '/'; start--)
		;
	if (len == start || memchr(pat + start, '\\', len - start) != NULL ||
	    (len - start == 2 && pat[start] == '*' && pat[start + 1] == '*'))
		return;					/* no filter */
	/* ']' is special only after a '[' (it may close a class); otherwise a plain byte. */
	for (i = start; i < len; i++) {
		if (strchr("*?[", pat[i]) != NULL && first == SIZE_MAX)
			first = i;
		if (pat[i] == '*' || pat[i] == '?' || (pat[i] == ']' && first != SIZE_MAX &&
		    memchr(pat + first, '[', i - first) != NULL))
			last = i;
	}
	f->pre = pat + start;
	if (first == SIZE_MAX) {			/* plain name */
		f->literal = 1;
		f->npre = len - start;
		return;
	}
	f->npre = first - start;
	f->suf = last == SIZE_MAX ? pat + len : pat + last + 1;
	f->nsuf = (size_t)(pat + len - f->suf);
	if (last != SIZE_MAX)
		longest_run(f, pat + first, last + 1 - first);
}

int
ab_prefilter_pass(const struct prefilter *f, const char *name, size_t n)
{
	if (f->pre == NULL)
		return 1;
	if (f->literal)
		return n == f->npre && same(name, f->pre, n, f->fold);
	return n >= f->npre + f->nsuf && same(name, f->pre, f->npre, f->fold) &&
	    same(name + n - f->nsuf, f->suf, f->nsuf, f->fold) &&
	    (f->mid == NULL || holds_mid(f, name + f->npre, n - f->npre - f->nsuf));
}

/* Byte B may be there (and its other case, folding). */
static void
allow(unsigned char t[256], unsigned char b, int fold)
{
	t[b] = 1;
	if (fold && b >= 'a' && b <= 'z')
		t[b - 'a' + 'A'] = 1;
	else if (fold && b >= 'A' && b <= 'Z')
		t[b - 'A' + 'a'] = 1;
}

void
ab_prefilter_ends(const struct prefilter *f, unsigned char first[256],
    unsigned char last[256])
{
	const char *a = NULL, *z = NULL;	/* NULL: any byte */

	if (f->pre != NULL && f->literal) {
		a = f->pre;
		z = f->pre + f->npre - 1;
	} else if (f->pre != NULL) {
		a = f->npre > 0 ? f->pre : NULL;
		z = f->nsuf > 0 ? f->suf + f->nsuf - 1 : NULL;
	}
	if (a == NULL)
		memset(first, 1, 256);
	else
		allow(first, (unsigned char)*a, f->fold);
	if (z == NULL)
		memset(last, 1, 256);
	else
		allow(last, (unsigned char)*z, f->fold);
}
