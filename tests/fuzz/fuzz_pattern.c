/*
 * libFuzzer: pattern and path -> ab_pattern_valid / ab_pattern_match, checked against a
 * slow, obviously-correct recursive matcher (backtracking, so only on small inputs), with
 * its own '[...]' parser and <ctype.h> in the C locale for "[:class:]".
 * Input: 1 flag byte (bit 0: is_dir), pattern, NUL, path.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The class at P[i] == '[' (valid: ab_pattern_valid said so): its length; *hit for C. */
static size_t
ref_class(const char *p, size_t pl, size_t i, int c, int *hit)
{
	static const struct { const char *name; int (*fn)(int); } cls[] = {
		{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank },
		{ "cntrl", iscntrl }, { "digit", isdigit }, { "graph", isgraph },
		{ "lower", islower }, { "print", isprint }, { "punct", ispunct },
		{ "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
	};
	size_t j = i + 1, k;
	int neg = 0, in = 0;

	if (p[j] == '!' || p[j] == '^') {
		neg = 1;
		j++;
	}
	for (k = j; ; ) {
		int lo, hi;

		if (p[k] == ']' && k != j)
			break;
		if (p[k] == '[' && p[k + 1] == ':') {
			const char *end = strstr(p + k + 2, ":]");
			size_t m;

			for (m = 0; m < sizeof(cls) / sizeof(cls[0]); m++)
				if (strlen(cls[m].name) == (size_t)(end - p - k - 2) &&
				    strncmp(cls[m].name, p + k + 2, (size_t)(end - p - k - 2)) == 0 &&
				    c < 0x80 && cls[m].fn(c))
					in = 1;
			k = (size_t)(end - p) + 2;
			continue;
		}
		if (p[k] == '\\')
			k++;
		lo = hi = (unsigned char)p[k++];
		if (p[k] == '-' && p[k + 1] != ']' && k + 1 < pl) {
			k++;
			if (p[k] == '\\')
				k++;
			hi = (unsigned char)p[k++];
		}
		if (c >= lo && c <= hi)
			in = 1;
	}
	*hit = in != neg;
	return k + 1 - i;
}

/* Does P[i..pl) match all of S[j..sl)?  gitignore rules, by brute force. */
static int
ref(const char *p, size_t pl, size_t i, const char *s, size_t sl, size_t j)
{
	size_t k, n;
	int cs;

	if (i == pl)
		return j == sl;
	cs = i == 0 || p[i - 1] == '/';
	if (p[i] == '*') {
		if (cs && i + 2 < pl && p[i + 1] == '*' && p[i + 2] == '/') {
			if (ref(p, pl, i + 3, s, sl, j))
				return 1;
			for (k = j; k < sl; k++)
				if (s[k] == '/' && ref(p, pl, i + 3, s, sl, k + 1))
					return 1;
			return 0;
		}
		if (cs && i + 2 == pl && p[i + 1] == '*')
			return 1;
		for (n = i; n < pl && p[n] == '*'; n++)
			;
		for (k = j; ; k++) {
			if (ref(p, pl, n, s, sl, k))
				return 1;
			if (k == sl || s[k] == '/')
				return 0;
		}
	}
	if (j == sl)
		return 0;
	if (p[i] == '?')
		return s[j] != '/' && ref(p, pl, i + 1, s, sl, j + 1);
	if (p[i] == '[') {
		int hit;

		n = ref_class(p, pl, i, (unsigned char)s[j], &hit);
		return s[j] != '/' && hit && ref(p, pl, i + n, s, sl, j + 1);
	}
	if (p[i] == '\\')
		i++;
	return s[j] == p[i] && ref(p, pl, i + 1, s, sl, j + 1);
}

static int
ref_match(const char *pat, const char *path, int is_dir)
{
	const char *p = pat;
	size_t pl = strlen(pat), sl = strlen(path), k, start;
	int dir_only = 0, anchored = 0;

	if (p[0] == '/') {
		anchored = 1;
		p++;
		pl--;
	}
	if (pl > 0 && p[pl - 1] == '/') {
		dir_only = 1;
		pl--;
	}
	for (k = 0; k < pl; k++) {
		int hit;

		if (p[k] == '\\')
			k++;
		else if (p[k] == '[')
			k += ref_class(p, pl, k, 0, &hit) - 1;
		else if (p[k] == '/')
			anchored = 1;
	}
	if (anchored) {
		for (k = 0; k < sl; k++)
			if (path[k] == '/' && ref(p, pl, 0, path, k, 0))
				return 1;	/* a parent directory matches */
		return ref(p, pl, 0, path, sl, 0) && (is_dir || !dir_only);
	}
	for (start = 0, k = 0; k <= sl; k++) {
		if (k < sl && path[k] != '/')
			continue;
		/* component path[start..k) */
		if (ref(p, pl, 0, path + start, k - start, 0) &&
		    (k < sl || is_dir || !dir_only))
			return 1;
		start = k + 1;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *pat, *path, *nul;
	char *copy;
	size_t stars = 0, i;
	int is_dir, m, valid;

	if (size < 1)
		return 0;
	is_dir = data[0] & 1;
	if ((copy = malloc(size)) == NULL)
		return 0;
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	pat = copy;
	nul = memchr(copy, '\0', size - 1);
	path = nul != NULL && nul < copy + size - 1 ? nul + 1 : "";
	valid = ab_pattern_valid(pat, NULL) == 0;
	m = ab_pattern_match(pat, path, is_dir);
	if (m != 0 && m != 1)
		abort();
	if (!valid && m)
		abort();	/* an invalid pattern must never match */
	for (i = 0; pat[i]; i++)
		stars += pat[i] == '*';
	if (valid && strlen(pat) <= 24 && strlen(path) <= 32 &&
	    stars <= 6 && m != ref_match(pat, path, is_dir))
		abort();
	free(copy);
	return 0;
}
