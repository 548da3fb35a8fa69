/* String vectors: the list type of struct ab_policy and of the admin tool. */
#define _GNU_SOURCE	/* qsort_r, reallocarray */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abutil.h"

int
ab_strv_push_n(struct ab_strv *sv, const char *s, size_t n)
{
	char **v, *copy;

	if ((copy = strndup(s, n)) == NULL)
		return -ENOMEM;
	/* Grow one slot at a time through reallocarray: lists are short and overflow-safe. */
	if ((v = reallocarray(sv->v, sv->n + 2, sizeof(*v))) == NULL) {
		free(copy);
		return -ENOMEM;
	}
	v[sv->n++] = copy;
	v[sv->n] = NULL;	/* keep it NULL-terminated for callers that want argv shape */
	sv->v = v;
	return 0;
}

int
ab_strv_push(struct ab_strv *sv, const char *s)
{
	return ab_strv_push_n(sv, s, strlen(s));
}

int
ab_strv_append(struct ab_strv *sv, const struct ab_strv *from)
{
	size_t i;
	int r;

	for (i = 0; i < from->n; i++)
		if ((r = ab_strv_push(sv, from->v[i])) != 0)
			return r;
	return 0;
}

void
ab_strv_free(struct ab_strv *sv)
{
	size_t i;

	if (sv == NULL)
		return;
	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

int
ab_strv_has(const struct ab_strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return 1;
	return 0;
}

static int
uniq_cmp(const void *a, const void *b, void *arg)
{
	const struct ab_strv *sv = arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	int c = strcmp(sv->v[ia], sv->v[ib]);

	if (c != 0)
		return c;
	return ia < ib ? -1 : ia > ib;
}

/*
 * Sorting indices keeps this O(n log n): a hostile 4 MiB policy can hold hundreds of
 * thousands of list items, and the quadratic scan would take minutes.
 */
int
ab_strv_uniq(struct ab_strv *sv)
{
	return ab_strv_uniq_twin(sv, NULL);
}

int
ab_strv_uniq_twin(struct ab_strv *sv, struct ab_strv *twin)
{
	size_t *idx, i, j;
	unsigned char *dup;

	if (twin != NULL && twin->n != sv->n)
		return -EINVAL;
	if (sv->n < 2)
		return 0;
	idx = calloc(sv->n, sizeof(*idx));
	dup = calloc(sv->n, 1);
	if (idx == NULL || dup == NULL) {
		free(idx);
		free(dup);
		return -ENOMEM;
	}
	for (i = 0; i < sv->n; i++)
		idx[i] = i;
	/* qsort_r, not a global: the PAM module may run in a threaded process. */
	qsort_r(idx, sv->n, sizeof(*idx), uniq_cmp, sv);
	for (i = 1; i < sv->n; i++)
		if (strcmp(sv->v[idx[i]], sv->v[idx[i - 1]]) == 0)
			dup[idx[i]] = 1;	/* idx[i-1] < idx[i]: the first stays */
	for (i = j = 0; i < sv->n; i++) {
		if (dup[i]) {
			free(sv->v[i]);
			if (twin != NULL)
				free(twin->v[i]);
			continue;
		}
		sv->v[j] = sv->v[i];
		if (twin != NULL)
			twin->v[j] = twin->v[i];
		j++;
	}
	sv->n = j;
	sv->v[j] = NULL;
	if (twin != NULL) {
		twin->n = j;
		twin->v[j] = NULL;
	}
	free(idx);
	free(dup);
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
ab_strv_sort(struct ab_strv *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
}

int
ab_strv_sorted_has(const struct ab_strv *sv, const char *s)
{
	return sv->n != 0 && bsearch(&s, sv->v, sv->n, sizeof(*sv->v), cmp_str) != NULL;
}
