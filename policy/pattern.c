/*
 * gitignore-style patterns for mask and protect (gitignore(5), git's wildmatch.c).
 *
 * Hand-written because no library matches gitignore semantics (fnmatch(3) has no '**'
 * and recurses; libgit2 is far too big to link into a PAM module).  The matcher runs a
 * set of states (one per token of the pattern) over the path once, like a Thompson NFA:
 * time O(pattern x path), memory fixed, no recursion, no backtracking.  A hostile
 * pattern of 200 "**" segments costs the same as a plain one of the same length.
 *
 * Semantics, as in gitignore:
 *   - '*' matches any run of bytes except '/', '?' one byte except '/', '[...]' one byte
 *     of a set ('!' or '^' negates, ranges a-z, "[:alpha:]" classes, '\' escapes);
 *   - "**" as a whole component: a leading "**" followed by '/' matches in any
 *     directory, an inner one between two '/' matches zero or more directories, a
 *     trailing one after '/' matches everything inside; any other "**" is a plain '*';
 *   - a leading '/' anchors to the tree root, and so does any other '/' but a trailing
 *     one; a pattern without '/' matches a name at any depth;
 *   - a trailing '/' matches directories only;
 *   - a path matches when it, or one of its parent directories, matches (as "git
 *     check-ignore" reports files inside an ignored directory).
 * Not supported, and refused by ab_pattern_valid: '!' re-inclusion (a mask that could be
 * punched through is not a mask), a leading '#' (a comment in gitignore).
 *
 * AB_PATTERN_CASEFOLD (git's core.ignorecase, wildmatch's WM_CASEFOLD): ASCII letters
 * match either case, in literals and in classes ("[a-c]" takes 'B', "[[:upper:]]" takes
 * 'q').  Only ASCII is folded: the PAM module must not depend on the locale, and a
 * case-insensitive file system's Unicode folding is not ours to reproduce.
 *
 * ab_pattern_undecorate: the names an editor or a backup habit derives from a name
 * (FINDINGS F4), so that the mask walk can mask "key.pem~" wherever "*.pem" applies.
 */
#define _GNU_SOURCE	/* memrchr */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

enum kind {
	K_NONE = 0,	/* not a token start */
	K_CHAR,		/* one literal byte (maybe escaped) */
	K_ANY,		/* '?' */
	K_CLASS,	/* '[...]' */
	K_STAR,		/* run of '*' not forming a "**" component */
	K_ANYSEQ,	/* trailing "**" component: anything, '/' included */
	K_GS,		/* "**" + "/" at a component start: "" or "anything/" */
	K_GS_IN,	/* inside a K_GS, after at least one byte */
	K_END,		/* the accepting state */
};

/* The pattern after anchoring and trailing-slash removal, split into tokens. */
struct pat {
	const char	*p;
	size_t		 len;
	int		 anchored, dir_only;
	size_t		 nwords;	/* state-set words in use: len / 64 + 1 */
	uint8_t		 kind[AB_PATTERN_MAX + 1];
	uint16_t	 next[AB_PATTERN_MAX + 1];	/* position after the token */
};

#define SET_WORDS	((AB_PATTERN_MAX + 1 + 63) / 64)
struct set {
	uint64_t w[SET_WORDS];
};

static void set_add(struct set *s, size_t i) { s->w[i / 64] |= UINT64_C(1) << (i % 64); }
static int set_has(const struct set *s, size_t i) { return (s->w[i / 64] >> (i % 64)) & 1; }

/* Indexed as posix_class_has() below. */
static const char *const posix_classes[] = {
	"alnum", "alpha", "blank", "cntrl", "digit", "graph",
	"lower", "print", "punct", "space", "upper", "xdigit",
};
#define NCLASSES (sizeof(posix_classes) / sizeof(posix_classes[0]))

/* The C locale's classes, spelled out: the PAM module must not depend on the locale. */
static int
posix_class_has(size_t k, int c)
{
	int lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z';
	int digit = c >= '0' && c <= '9';
	int graph = c > 0x20 && c < 0x7f;

	switch (k) {
	case 0:	return lower || upper || digit;
	case 1:	return lower || upper;
	case 2:	return c == ' ' || c == '\t';
	case 3:	return c < 0x20 || c == 0x7f;
	case 4:	return digit;
	case 5:	return graph;
	case 6:	return lower;
	case 7:	return graph || c == ' ';
	case 8:	return graph && !lower && !upper && !digit;
	case 9:	return c == ' ' || (c >= '\t' && c <= '\r');
	case 10: return upper;
	case 11: return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	}
	return 0;
}

/*
 * Parse the class starting at P[I] == '['.  With C >= 0, report membership of byte C.
 * Returns the length of the class, or 0 when malformed (*why says how).
 */
static size_t
class_scan(const char *p, size_t len, size_t i, int c, int *member, const char **why)
{
	size_t j = i + 1, k;
	int neg = 0, hit = 0, first = 1;

	if (j < len && (p[j] == '!' || p[j] == '^')) {
		neg = 1;
		j++;
	}
	for (;; first = 0) {
		int lo, hi;

		if (j >= len) {
			*why = "unterminated '[' (escape a literal '[' as '\\[')";
			return 0;
		}
		if (p[j] == ']' && !first)
			break;
		if (p[j] == '[' && j + 1 < len && p[j + 1] == ':') {
			const char *end = memchr(p + j + 2, ':', len - j - 2);

			if (end == NULL || (size_t)(end - p) + 1 >= len || end[1] != ']') {
				*why = "unterminated '[:class:]'";
				return 0;
			}
			for (k = 0; k < NCLASSES; k++)
				if (strlen(posix_classes[k]) == (size_t)(end - p - j - 2) &&
				    memcmp(posix_classes[k], p + j + 2, end - p - j - 2) == 0)
					break;
			if (k == NCLASSES) {
				*why = "unknown '[:class:]' name";
				return 0;
			}
			if (c >= 0 && posix_class_has(k, c))
				hit = 1;
			j = (size_t)(end - p) + 2;
			continue;
		}
		if (p[j] == '\\') {
			if (++j >= len) {
				*why = "'\\' at the end of the pattern";
				return 0;
			}
		}
		if (p[j] == '/') {
			*why = "'/' inside '[...]' never matches";
			return 0;
		}
		lo = hi = (unsigned char)p[j++];
		if (j + 1 < len && p[j] == '-' && p[j + 1] != ']') {
			j++;
			if (p[j] == '\\' && ++j >= len) {
				*why = "'\\' at the end of the pattern";
				return 0;
			}
			if (p[j] == '/') {
				*why = "'/' inside '[...]' never matches";
				return 0;
			}
			hi = (unsigned char)p[j++];
			if (hi < lo) {
				*why = "reversed range in '[...]'";
				return 0;
			}
		}
		if (c >= lo && c <= hi)
			hit = 1;
	}
	if (member != NULL)
		*member = hit != neg;
	return j + 1 - i;
}

static int
comp_start(const struct pat *pt, size_t i)
{
	return i == 0 || pt->p[i - 1] == '/';
}

/* Split PATTERN into tokens.  0, or -EINVAL with *why. */
static int
compile(const char *pattern, struct pat *pt, const char **why)
{
	size_t len, i, n;
	const char *p = pattern;

	*why = NULL;
	if (p == NULL || *p == '\0') {
		*why = "empty pattern";
		return -EINVAL;
	}
	if ((len = strlen(p)) > AB_PATTERN_MAX) {
		*why = "pattern longer than 4096 bytes";
		return -EINVAL;
	}
	if (p[0] == '!') {
		*why = "'!' re-inclusion is not supported (a mask must not have holes); "
		    "write '\\!' for a literal '!'";
		return -EINVAL;
	}
	if (p[0] == '#') {
		*why = "a leading '#' is a comment in gitignore; write '\\#' for a literal '#'";
		return -EINVAL;
	}
	pt->anchored = pt->dir_only = 0;
	if (p[0] == '/') {
		pt->anchored = 1;
		p++;
		len--;
	}
	/* A trailing '/' means "directories only" (an escaped "\/" is refused below). */
	if (len > 0 && p[len - 1] == '/') {
		pt->dir_only = 1;
		len--;
	}
	if (len == 0) {
		*why = "pattern matches the whole tree";
		return -EINVAL;
	}
	pt->p = p;
	pt->len = len;
	pt->nwords = len / 64 + 1;
	memset(pt->kind, K_NONE, len + 1);	/* only what is used: this runs per match */
	for (i = 0; i < len; i = n) {
		n = i + 1;
		switch (p[i]) {
		case '\\':
			if (i + 1 >= len) {
				*why = "'\\' at the end of the pattern";
				return -EINVAL;
			}
			if (p[i + 1] == '/') {
				*why = "'\\/' is ambiguous: write '/'";
				return -EINVAL;
			}
			pt->kind[i] = K_CHAR;
			n = i + 2;
			break;
		case '?':
			pt->kind[i] = K_ANY;
			break;
		case '[':
			if ((n = class_scan(p, len, i, -1, NULL, why)) == 0)
				return -EINVAL;
			pt->kind[i] = K_CLASS;
			n += i;
			break;
		case '*':
			if (comp_start(pt, i) && i + 1 < len && p[i + 1] == '*' &&
			    i + 2 < len && p[i + 2] == '/') {
				pt->kind[i] = K_GS;
				pt->kind[i + 1] = K_GS_IN;
				pt->next[i + 1] = (uint16_t)(i + 3);
				n = i + 3;
			} else if (comp_start(pt, i) && i + 2 == len && p[i + 1] == '*') {
				pt->kind[i] = K_ANYSEQ;
				n = i + 2;
			} else {
				while (n < len && p[n] == '*')
					n++;
				pt->kind[i] = K_STAR;
			}
			break;
		case '/':
			if (i == 0 || i + 1 == len || p[i + 1] == '/') {
				*why = "empty path component ('//')";
				return -EINVAL;
			}
			pt->anchored = 1;	/* an inner '/' anchors, as in gitignore */
			pt->kind[i] = K_CHAR;
			break;
		case '.':
			/* "." and ".." components: paths given to the matcher never hold them. */
			if (comp_start(pt, i) && (i + 1 == len || p[i + 1] == '/' ||
			    (p[i + 1] == '.' && (i + 2 == len || p[i + 2] == '/')))) {
				*why = "'.' and '..' components never match";
				return -EINVAL;
			}
			pt->kind[i] = K_CHAR;
			break;
		default:
			pt->kind[i] = K_CHAR;
			break;
		}
		if (pt->kind[i] != K_GS)
			pt->next[i] = (uint16_t)n;
		else
			pt->next[i] = (uint16_t)(i + 3);
	}
	pt->kind[len] = K_END;
	return 0;
}

/* Follow the moves that consume nothing; every such move goes forward, so one pass. */
static void
closure(const struct pat *pt, struct set *s)
{
	size_t i;

	for (i = 0; i <= pt->len; i++) {
		if (!set_has(s, i))
			continue;
		switch (pt->kind[i]) {
		case K_STAR:
		case K_ANYSEQ:
			set_add(s, pt->next[i]);
			break;
		case K_GS:
			set_add(s, pt->next[i]);	/* "**" + "/" matching nothing */
			break;
		default:
			break;
		}
	}
}

static int
set_empty(const struct pat *pt, const struct set *s)
{
	size_t i;

	for (i = 0; i < pt->nwords; i++)
		if (s->w[i])
			return 0;
	return 1;
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int
upper(int c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/*
 * Does the class at P[I] take byte C?  Under FOLD, as git's WM_CASEFOLD: C is in the
 * listed set if either of its cases is, and a negated class ("[!a]") takes C only if
 * neither case is listed.
 */
static int
class_has(const struct pat *pt, size_t i, int c, int fold)
{
	int neg = pt->p[i + 1] == '!' || pt->p[i + 1] == '^', m1, m2;
	const char *why;

	if (class_scan(pt->p, pt->len, i, c, &m1, &why) == 0)
		return 0;
	if (!fold || lower(c) == upper(c))
		return m1;
	c = c == lower(c) ? upper(c) : lower(c);
	if (class_scan(pt->p, pt->len, i, c, &m2, &why) == 0)
		return 0;
	return neg ? m1 && m2 : m1 || m2;
}

/* One byte C moves every state of CUR into NXT. */
static void
step(const struct pat *pt, const struct set *cur, struct set *nxt, unsigned char c, int fold)
{
	size_t i;

	memset(nxt->w, 0, pt->nwords * sizeof(nxt->w[0]));
	for (i = 0; i <= pt->len; i++) {
		if (!set_has(cur, i))
			continue;
		switch (pt->kind[i]) {
		case K_CHAR: {
			unsigned char want = (unsigned char)pt->p[pt->p[i] == '\\' ? i + 1 : i];

			if (c == want || (fold && lower(c) == lower(want)))
				set_add(nxt, pt->next[i]);
			break;
		}
		case K_ANY:
			if (c != '/')
				set_add(nxt, pt->next[i]);
			break;
		case K_CLASS:
			if (c != '/' && class_has(pt, i, c, fold))
				set_add(nxt, pt->next[i]);
			break;
		case K_STAR:
			if (c != '/')
				set_add(nxt, i);
			break;
		case K_ANYSEQ:
			set_add(nxt, i);
			break;
		case K_GS:
			set_add(nxt, i + 1);	/* now inside: "anything" then '/' */
			if (c == '/')
				set_add(nxt, pt->next[i]);
			break;
		case K_GS_IN:
			set_add(nxt, i);
			if (c == '/')
				set_add(nxt, pt->next[i]);
			break;
		default:
			break;
		}
	}
	closure(pt, nxt);
}

/*
 * Run the pattern over S[0..N).  With ANCESTORS, a match of any prefix ending before a
 * '/' counts (that prefix is a directory).  IS_DIR: whether S itself is a directory.
 */
static int
run(const struct pat *pt, const char *s, size_t n, int is_dir, int ancestors, int fold)
{
	struct set a, b, *cur = &a, *nxt = &b, *t;
	size_t k;

	memset(cur->w, 0, pt->nwords * sizeof(cur->w[0]));
	set_add(cur, 0);
	closure(pt, cur);
	for (k = 0; k < n; k++) {
		if (ancestors && s[k] == '/' && set_has(cur, pt->len))
			return 1;
		step(pt, cur, nxt, (unsigned char)s[k], fold);
		t = cur;
		cur = nxt;
		nxt = t;
		if (set_empty(pt, cur))
			return 0;
	}
	return set_has(cur, pt->len) && (is_dir || !pt->dir_only);
}

int
ab_pattern_valid(const char *pattern, const char **why)
{
	struct pat pt;
	const char *w;
	int r;

	r = compile(pattern, &pt, &w);
	if (why != NULL)
		*why = r == 0 ? NULL : w;
	return r;
}

int
ab_pattern_match_flags(const char *pattern, const char *path, int is_dir, unsigned int flags)
{
	struct pat pt;
	const char *why, *c, *slash;
	size_t plen;
	int fold = (flags & AB_PATTERN_CASEFOLD) != 0;

	/* Invalid patterns never come out of a validated policy; they match nothing. */
	if (path == NULL || (flags & ~AB_PATTERN_CASEFOLD) != 0 ||
	    compile(pattern, &pt, &why) != 0)
		return 0;
	plen = strlen(path);
	if (pt.anchored)
		return run(&pt, path, plen, is_dir, 1, fold);
	/* No '/' in the pattern: try it on each component; all but the last are directories. */
	for (c = path; ; c = slash + 1) {
		slash = memchr(c, '/', plen - (size_t)(c - path));
		if (slash == NULL)
			return run(&pt, c, plen - (size_t)(c - path), is_dir, 0, fold);
		if (run(&pt, c, (size_t)(slash - c), 1, 0, fold))
			return 1;
	}
}

int
ab_pattern_match(const char *pattern, const char *path, int is_dir)
{
	return ab_pattern_match_flags(pattern, path, is_dir, 0);
}

/* Backup suffixes after a '.', matched in either case (Windows tools write ".BAK"). */
static const char *const backup_words[] = {
	"bak", "backup", "bk", "orig", "rej", "old", "save", "sav", "tmp", "temp",
};
#define NWORDS (sizeof(backup_words) / sizeof(backup_words[0]))

static int
all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return n > 0;
}

/* vim's swap extensions: ".swp", then ".swo", ".swn" ... ".swa"; ".swx" is its probe. */
static int
is_swap_ext(const char *s, size_t n)
{
	return n == 4 && s[0] == '.' && lower(s[1]) == 's' && lower(s[2]) == 'w' &&
	    lower(s[3]) >= 'a' && lower(s[3]) <= 'z';
}

/* Length of the trailing decoration of NAME[0..N), or 0 when there is none. */
static size_t
suffix_len(const char *name, size_t n)
{
	const char *dot;
	size_t i, w;

	if (n > 0 && name[n - 1] == '~') {
		/* Emacs numbered backups "X.~3~", else the plain "X~" of Emacs and vim. */
		for (i = n - 1; i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9'; i--)
			;
		if (i >= 2 && i < n - 1 && name[i - 1] == '~' && name[i - 2] == '.')
			return n - i + 2;
		return 1;
	}
	if ((dot = memrchr(name, '.', n)) == NULL)
		return 0;
	w = n - (size_t)(dot - name);		/* the dot included */
	if (is_swap_ext(dot, w) || all_digits(dot + 1, w - 1))
		return w;
	for (i = 0; i < NWORDS; i++) {
		size_t k, len = strlen(backup_words[i]);

		if (len != w - 1)
			continue;
		for (k = 0; k < len && lower(dot[1 + k]) == backup_words[i][k]; k++)
			;
		if (k == len)
			return w;
	}
	return 0;
}

static void
span_add(const char *name, struct ab_name_span *out, size_t *n, size_t off, size_t len)
{
	size_t i;

	/* "", "." and ".." are no names; each candidate once. */
	if (len == 0 || (name[off] == '.' && (len == 1 || (len == 2 && name[off + 1] == '.'))))
		return;
	for (i = 0; i < *n; i++)
		if (out[i].off == off && out[i].len == len)
			return;
	if (*n < AB_UNDECORATE_MAX)
		out[(*n)++] = (struct ab_name_span){ off, len };
}

size_t
ab_pattern_undecorate(const char *name, struct ab_name_span out[AB_UNDECORATE_MAX])
{
	size_t n = 0, len, cut, k;

	if (name == NULL)
		return 0;
	len = strlen(name);
	/* Emacs: "#X#" auto-save, ".#X" lock. */
	if (len >= 3 && name[0] == '#' && name[len - 1] == '#')
		span_add(name, out, &n, 1, len - 2);
	if (len >= 3 && name[0] == '.' && name[1] == '#')
		span_add(name, out, &n, 2, len - 2);
	/* vim: ".X.swp" for X (the dot hides the swap file; a dotfile gets none more). */
	if (len > 5 && name[0] == '.' && is_swap_ext(name + len - 4, 4))
		span_add(name, out, &n, 1, len - 5);
	/* Trailing decorations, up to three stacked ("X.tmp.1234", "X.bak~"). */
	for (k = 0; k < AB_UNDECORATE_DEPTH && (cut = suffix_len(name, len)) != 0 &&
	    cut < len; k++) {
		len -= cut;
		span_add(name, out, &n, 0, len);
	}
	return n;
}
