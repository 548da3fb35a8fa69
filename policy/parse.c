/*
 * The policy language: INI read with inih, validated line by line, merged per user.
 *
 * inih does the INI grammar (sections, KEY = VALUE, comments); we feed it one line at a
 * time through ini_parse_stream() with our own reader, which also gives us line numbers
 * (Debian's libinih is built without INI_HANDLER_LINENO).  The reader looks at every raw
 * line first, because inih as built on Debian 12 (55-1, INI_MAX_LINE 200, on the stack)
 * has behaviours that would silently change meaning:
 *   - a line longer than its buffer is cut, and the rest read as a new line, so
 *     "read = /usr/lib/<long>" would become a shorter, different path;
 *   - a section name is cut at 49 bytes, so a long [user:...] could become another user;
 *   - any indented line after a key is a continuation of that key's value, so
 *     "  network = host" under "mask = .env" would become mask patterns;
 *   - text after "]" on a section line is ignored.
 * The reader refuses each of these (and NUL bytes, invalid UTF-8, control characters)
 * as "FILE:LINE: reason" and hands inih an empty line instead, so nothing cut or
 * misread ever reaches the handler, and parsing goes on to report every error.
 *
 * Values: list keys take whitespace-separated items; "\ " keeps a space inside an item
 * (patterns keep the backslash, which the matcher reads as an escape; paths drop it).
 * inih ends a value at " ;" (an inline comment).
 */
#define _GNU_SOURCE	/* qsort_r, vasprintf, asprintf, strchrnul */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ini.h>

#include "internal.h"
#include "pset.h"

static const char *const key_names[AB_KEY_N] = {
#define NAME(ID, NAME, ...) [AB_KEY_##ID] = NAME,
	AB_POLICY_KEYS(NAME)
#undef NAME
};

/* Where the reader is, shared with the handler through inih's user pointer. */
enum sect_state { SECT_NONE, SECT_BAD, SECT_OK };

struct reader {
	struct ab_pset	*ps;
	const char	*buf;
	size_t		 len, pos;
	uint32_t	 file, line;
	enum sect_state	 state;
	const char	*sect;		/* current user name; NULL = defaults */
	unsigned int	 sect_kind;	/* AB_SECT_* of that section; 0 = none valid */
	int		 want_handler;	/* the line given to inih was KEY = VALUE */
	int		 handled;	/* and inih called the handler for it */
};

int
ab_pset_new(struct ab_diag *diag, struct ab_pset **out)
{
	struct ab_pset *ps;

	if ((ps = calloc(1, sizeof(*ps))) == NULL)
		return -ENOMEM;
	ps->diag = diag;
	*out = ps;
	return 0;
}

void
ab_pset_set_user(struct ab_pset *ps, const char *user)
{
	ps->user = user;
}

int
ab_pset_status(const struct ab_pset *ps)
{
	if (ps->err != 0)
		return ps->err;
	return ps->nerr != 0 ? -EINVAL : 0;
}

void
ab_pset_free(struct ab_pset *ps)
{
	size_t i;

	if (ps == NULL)
		return;
	for (i = 0; i < ps->n; i++)
		free(ps->e[i].val);
	free(ps->e);
	for (i = 0; i < ps->nfiles; i++)
		free(ps->files[i]);
	free(ps->files);
	free(ps);
}

static void
vfail(struct ab_pset *ps, int r, const char *fmt, va_list ap)
{
	char *msg;

	ps->nerr++;
	if (r != -EINVAL && ps->err == 0)
		ps->err = r;
	if (vasprintf(&msg, fmt, ap) < 0) {
		if (ps->err == 0)
			ps->err = -ENOMEM;
		return;
	}
	if (ab_diag_add(ps->diag, "%s", msg) != 0 && ps->err == 0)
		ps->err = -ENOMEM;
	free(msg);
}

void
ab_pset_fail(struct ab_pset *ps, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(ps, r, fmt, ap);
	va_end(ap);
}

/* A policy error at the reader's current line. */
static void __attribute__((format(printf, 2, 3)))
bad(struct reader *rd, const char *fmt, ...)
{
	char *msg;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0) {
		ab_pset_fail(rd->ps, -ENOMEM, "out of memory");
		return;
	}
	ab_pset_fail(rd->ps, -EINVAL, "%s:%u: %s", rd->ps->files[rd->file], rd->line, msg);
	free(msg);
}

static int
add_entry(struct reader *rd, uint32_t key, const char *sect, char *val)
{
	struct ab_pset *ps = rd->ps;
	struct entry *e;

	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;

		if ((e = reallocarray(ps->e, cap, sizeof(*e))) == NULL) {
			free(val);
			return -ENOMEM;
		}
		ps->e = e;
		ps->cap = cap;
	}
	ps->e[ps->n++] = (struct entry){ sect, rd->sect_kind, val, rd->file, rd->line, key, 0 };
	return 0;
}

/* ---- raw line checks ---- */

/* 0 if the line is clean text; otherwise complain and return -1. */
static int
check_bytes(struct reader *rd, const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t i, k;

	for (i = 0; i < n; i += k) {
		k = 1;
		if (s[i] >= 0x20 && s[i] < 0x7f)
			continue;	/* printable ASCII, most of every policy */
		if (s[i] == '\0') {
			bad(rd, "NUL byte at column %zu", i + 1);
			return -1;
		}
		/* Tabs are blanks; a CR may end a CRLF line; other controls could rewrite a
		 * terminal when the policy is printed. */
		if ((s[i] < 0x20 && s[i] != '\t' && !(s[i] == '\r' && i + 1 == n)) ||
		    s[i] == 0x7f) {
			bad(rd, "control character 0x%02x at column %zu", s[i], i + 1);
			return -1;
		}
		if ((k = ab_utf8_decode(s + i, n - i, &cp)) == 0) {
			bad(rd, "invalid UTF-8 at column %zu", i + 1);
			return -1;
		}
	}
	return 0;
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The sections with a NAME, as written before it. */
static const struct {
	const char	*prefix;
	unsigned int	 kind;
	int		(*valid)(const char *);
	const char	*what;
} named[] = {
	{ "user:", AB_SECT_USER, ab_user_name_valid, "user name" },
	{ "hosts:", AB_SECT_HOSTS, ab_set_name_valid, "host set name" },
	{ "credential:", AB_SECT_CRED, ab_set_name_valid, "credential name" },
};

/* A [section] line: S is the line without leading blanks, N its length. */
static void
section_line(struct reader *rd, const char *s, size_t n)
{
	const char *close = memchr(s, ']', n);
	size_t i, nlen, k, plen;
	char *name;

	rd->state = SECT_BAD;
	rd->sect = NULL;
	rd->sect_kind = 0;
	if (close == NULL) {
		bad(rd, "section header without ']'");
		return;
	}
	for (i = (size_t)(close - s) + 1; i < n; i++)
		if (!is_blank(s[i])) {
			bad(rd, "text after ']' in a section header");
			return;
		}
	nlen = (size_t)(close - s) - 1;
	if (nlen == 8 && memcmp(s + 1, "defaults", 8) == 0) {
		rd->state = SECT_OK;
		rd->sect_kind = AB_SECT_DEFAULTS;
		if (add_entry(rd, KEY_SECTION, NULL, NULL) != 0)
			ab_pset_fail(rd->ps, -ENOMEM, "out of memory");
		return;
	}
	for (k = 0; k < sizeof(named) / sizeof(named[0]); k++)
		if (nlen >= strlen(named[k].prefix) &&
		    memcmp(s + 1, named[k].prefix, strlen(named[k].prefix)) == 0)
			break;
	if (k == sizeof(named) / sizeof(named[0])) {
		bad(rd, "unknown section [%.*s] (want [defaults], [user:NAME], [hosts:NAME] "
		    "or [credential:NAME])", (int)nlen, s + 1);
		return;
	}
	plen = strlen(named[k].prefix);
	if ((name = strndup(s + 1 + plen, nlen - plen)) == NULL) {
		ab_pset_fail(rd->ps, -ENOMEM, "out of memory");
		return;
	}
	if (!named[k].valid(name)) {
		bad(rd, "invalid %s '%s' in [%sNAME]", named[k].what, name, named[k].prefix);
		free(name);
		return;
	}
	rd->sect_kind = named[k].kind;
	if (add_entry(rd, KEY_SECTION, name, name) != 0) {
		rd->sect_kind = 0;
		ab_pset_fail(rd->ps, -ENOMEM, "out of memory");
		return;
	}
	rd->sect = name;	/* owned by the KEY_SECTION entry */
	rd->state = SECT_OK;
}

/*
 * inih's reader: hand over one line, after checking it.  A line that must not reach
 * inih as it is (see the top of this file) is reported and replaced by "\n".
 */
static char *
read_line(char *str, int num, void *stream)
{
	struct reader *rd = stream;
	const char *s, *eol, *t;
	size_t n, lead;

	if (rd->want_handler && !rd->handled)
		bad(rd, "not a KEY = VALUE line");	/* inih refused what we took for one */
	rd->want_handler = rd->handled = 0;
	if (rd->pos >= rd->len)
		return NULL;
	if (num < 8) {
		/* Never with Debian's inih (200); stopping early must not pass for EOF. */
		bad(rd, "inih line buffer too small (%d bytes)", num);
		return NULL;
	}
	s = rd->buf + rd->pos;
	eol = memchr(s, '\n', rd->len - rd->pos);
	n = eol ? (size_t)(eol - s) : rd->len - rd->pos;
	rd->pos += n + (eol != NULL);
	rd->line++;
	strcpy(str, "\n");
	if (rd->line == 1 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		s += 3;		/* a UTF-8 byte order mark, as inih allows */
		n -= 3;
	}
	if (check_bytes(rd, (const unsigned char *)s, n) != 0)
		return str;
	/* The line, its "\n" and inih's NUL must fit, or inih cuts the line. */
	if (n + 2 > (size_t)num) {
		bad(rd, "line too long (%zu bytes; at most %d)", n, num - 2);
		return str;
	}
	for (lead = 0; lead < n && is_blank(s[lead]); lead++)
		;
	t = s + lead;
	if (lead == n || *t == '#' || *t == ';')
		return str;		/* blank or comment */
	if (lead > 0) {
		bad(rd, "indented line (inih would read it as part of the previous value); "
		    "remove the indentation");
		return str;
	}
	if (*t == '[') {
		section_line(rd, t, n);
		strcpy(str, "[s]\n");	/* the handler uses rd->sect, not inih's copy */
		return str;
	}
	if (memchr(t, '=', n) == NULL && memchr(t, ':', n) == NULL) {
		bad(rd, "expected KEY = VALUE");
		return str;
	}
	memcpy(str, s, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	rd->want_handler = 1;
	return str;
}

/* ---- values ---- */

/* Split V at unescaped blanks.  Calls ITEM(rd, key, item, len) for each. */
static void
split_items(struct reader *rd, uint32_t key, const char *v,
    void (*item)(struct reader *, uint32_t, const char *, size_t))
{
	size_t i = 0, start;

	for (;;) {
		while (v[i] != '\0' && is_blank(v[i]))
			i++;
		if (v[i] == '\0')
			return;
		start = i;
		while (v[i] != '\0' && !is_blank(v[i])) {
			if (v[i] == '\\' && v[i + 1] != '\0')
				i++;
			i++;
		}
		item(rd, key, v + start, i - start);
	}
}

/* Drop '\' escapes. */
static char *
unescape(const char *s, size_t n)
{
	char *out, *d;
	size_t i;

	if ((out = d = malloc(n + 1)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n)
			i++;
		*d++ = s[i];
	}
	*d = '\0';
	return out;
}

/*
 * An absolute path, normalised: "//" and a trailing "/" removed.  "." and ".." are
 * refused rather than resolved: "/home/x/../../etc" must not look like a home path.
 */
static char *
norm_path(struct reader *rd, const char *key, const char *s, size_t n)
{
	char *p, *out, *d, *c;
	size_t len;

	if ((p = unescape(s, n)) == NULL)
		return NULL;
	if (p[0] != '/') {
		bad(rd, "%s: '%s' is not an absolute path", key, p);
		goto fail;
	}
	if ((len = strlen(p)) >= PATH_MAX) {
		bad(rd, "%s: path longer than %d bytes", key, PATH_MAX - 1);
		goto fail;
	}
	if ((out = d = malloc(len + 1)) == NULL)
		goto fail;
	for (c = p; *c; ) {
		char *end;
		size_t clen;

		while (*c == '/')
			c++;
		if (*c == '\0')
			break;
		end = strchrnul(c, '/');
		clen = (size_t)(end - c);
		if ((clen == 1 && c[0] == '.') || (clen == 2 && c[0] == '.' && c[1] == '.')) {
			bad(rd, "%s: '%s' has a '.' or '..' component", key, p);
			free(out);
			goto fail;
		}
		*d++ = '/';
		memcpy(d, c, clen);
		d += clen;
		c = end;
	}
	if (d == out)
		*d++ = '/';
	*d = '\0';
	free(p);
	return out;
fail:
	free(p);
	return NULL;
}

/*
 * Does a problem of the current section concern the user being loaded?  Those of
 * [defaults] (and of lines outside any valid section) concern everyone; those of
 * [user:NAME] only NAME; and ab_policy_check (no user) wants all of them.
 */
static int
concerns_load(const struct reader *rd)
{
	return rd->ps->user == NULL || rd->sect == NULL || strcmp(rd->sect, rd->ps->user) == 0;
}

/*
 * A project must exist and be a directory, and is stored as its canonical path.  A
 * path that resolves elsewhere through a symlink is refused, not followed: whoever can
 * replace that symlink (the agent, in its own home) could move the project at the next
 * login.
 *
 * These are facts about the host now, not about the policy text: a project of
 * [user:OTHER] deleted last week must not lock every other user out (the PAM module
 * refuses every login when the load fails).  So they are reported only when they
 * concern the load (concerns_load), and the project is then kept marked unusable, so
 * that OTHER's section still has a project and only OTHER's load fails.  Returns 0 when
 * usable, 1 when unusable for such a reason, -1 after any other failure.
 */
static int
check_project(struct reader *rd, const char *path)
{
	char *real;
	struct stat st;
	int r = 1, report = concerns_load(rd);

	if ((real = realpath(path, NULL)) == NULL) {
		if (errno == ENOMEM) {
			ab_pset_fail(rd->ps, -ENOMEM, "out of memory");
			return -1;
		}
		if (report)
			bad(rd, "project: '%s': %s", path, strerror(errno));
		return 1;
	}
	if (stat(real, &st) != 0) {
		if (report)
			bad(rd, "project: '%s': %s", path, strerror(errno));
	} else if (!S_ISDIR(st.st_mode)) {
		if (report)
			bad(rd, "project: '%s' is not a directory", path);
	} else if (strcmp(real, path) != 0) {
		if (report)
			bad(rd, "project: '%s' resolves to '%s' through a symlink; write the "
			    "real path", path, real);
	} else {
		r = 0;
	}
	free(real);
	return r;
}

/* Extra checks against the host (the VALID column), after the kind's own. */
static int (*const key_valid[AB_KEY_N])(struct reader *, const char *) = {
#define VALID(ID, NAME, KIND, MEMBER, SECTIONS, MERGE, VALID, ...) [AB_KEY_##ID] = VALID,
	AB_POLICY_KEYS(VALID)
#undef VALID
};

/* An unusable value (see check_project): kept, marked, in a valid section only. */
static void
store_unusable(struct reader *rd, uint32_t key, char *val)
{
	if (rd->state != SECT_OK) {
		free(val);
		return;
	}
	if (add_entry(rd, key, rd->sect, val) != 0) {
		ab_pset_fail(rd->ps, -ENOMEM, "out of memory");
		return;
	}
	rd->ps->e[rd->ps->n - 1].unusable = 1;
}

static void
store(struct reader *rd, uint32_t key, char *val)
{
	if (val == NULL)
		return;
	if (rd->state != SECT_OK) {	/* outside a valid section: checked, not kept */
		free(val);
		return;
	}
	if (add_entry(rd, key, rd->sect, val) != 0)
		ab_pset_fail(rd->ps, -ENOMEM, "out of memory");
}

/* "A, B or C": the values of enum kind K as the policy spells them, into BUF. */
static void
values_list(enum ab_key_kind k, char *buf, size_t size)
{
	const char *v, *suffix;
	size_t at = 0;
	unsigned int i;
	int len;

	buf[0] = '\0';
	for (i = 0; at < size && (v = ab_kind_value(k, i, &suffix)) != NULL; i++) {
		len = snprintf(buf + at, size - at, "%s%s%s", i == 0 ? "" :
		    ab_kind_value(k, i + 1, NULL) == NULL ? " or " : ", ", v, suffix);
		if (len < 0)
			break;
		at += (size_t)len;
	}
}

/* V is one of the values of enum kind K that stand alone (no suffix)? */
static char *
enum_value(struct reader *rd, const char *key, enum ab_key_kind k, const char *v)
{
	const char *name, *suffix;
	char list[128];
	unsigned int i;

	for (i = 0; (name = ab_kind_value(k, i, &suffix)) != NULL; i++)
		if (suffix[0] == '\0' && strcmp(v, name) == 0)
			return strdup(v);
	values_list(k, list, sizeof(list));
	bad(rd, "%s: '%s' is not %s", key, v, list);
	return NULL;
}

/* "tcp:PORT[,PORT...]", ports 1-65535 in decimal; P is past the ':'. */
static int
valid_tcp(struct reader *rd, const char *key, const char *v, const char *p)
{
	const char *tcp, *suffix;

	tcp = ab_kind_value(AB_KIND_NETWORK, AB_NET_TCP, &suffix);
	if (*p == '\0') {
		bad(rd, "%s: '%s:' needs at least one port", key, tcp);
		return 0;
	}
	for (;;) {
		unsigned long port = 0;
		const char *start = p;

		while (*p >= '0' && *p <= '9' && p - start < 6)
			port = port * 10 + (unsigned long)(*p++ - '0');
		if (p == start || (*p != ',' && *p != '\0') || port < 1 || port > 65535 ||
		    (*start == '0')) {
			bad(rd, "%s: bad port in '%s' (want %s%s, 1-65535)", key, v, tcp,
			    suffix);
			return 0;
		}
		if (*p == '\0')
			return 1;
		p++;
	}
}

static char *
network_value(struct reader *rd, const char *key, const char *v)
{
	const char *tcp = ab_network_name(AB_NET_TCP);
	size_t tl = strlen(tcp);

	if (strncmp(v, tcp, tl) == 0 && v[tl] == ':')
		return valid_tcp(rd, key, v, v + tl + 1) ? strdup(v) : NULL;
	return enum_value(rd, key, AB_KIND_NETWORK, v);
}

/*
 * The value S[0, N) of KEY (a list item, or a scalar's whole value), checked and
 * normalised as its kind says; NULL after saying why (or when out of memory).
 */
static char *
value_of(struct reader *rd, uint32_t key, const char *s, size_t n)
{
	const char *name = key_names[key], *why;
	char *v = NULL;

	switch (ab_policy_key(key)->kind) {
	case AB_KIND_PATHS:
	case AB_KIND_PATH:
		return norm_path(rd, name, s, n);
	case AB_KIND_PATTERNS:
		if ((v = strndup(s, n)) != NULL && ab_pattern_valid(v, &why) != 0) {
			bad(rd, "%s: invalid pattern '%s': %s", name, v, why);
			free(v);
			v = NULL;
		}
		return v;
	case AB_KIND_ENV_NAMES:
		if ((v = strndup(s, n)) != NULL && !ab_env_name_valid(v)) {
			bad(rd, "%s: '%s' is not a valid variable name", name, v);
			free(v);
			v = NULL;
		}
		return v;
	case AB_KIND_ABI:	/* a scalar: S is NUL-terminated */
		if (s[0] >= '1' && s[0] <= '0' + AB_LANDLOCK_ABI_MAX && s[1] == '\0')
			return strdup(s);
		bad(rd, "%s: '%s' is not an ABI version from 1 to %d", name, s,
		    AB_LANDLOCK_ABI_MAX);
		return NULL;
	case AB_KIND_NETWORK:
		return network_value(rd, name, s);
	case AB_KIND_AUDIT:
		return enum_value(rd, name, AB_KIND_AUDIT, s);
	case AB_KIND_YESNO:
		return enum_value(rd, name, AB_KIND_YESNO, s);
	case AB_KIND_DURATION:
		if (ab_duration_parse(s, NULL) == 0)
			return strdup(s);
		bad(rd, "%s: '%s' is not a duration (N, Ns, Nm, Nh or Nd, at most 365d)", name,
		    s);
		return NULL;
	case AB_KIND_HOSTS:
	case AB_KIND_CIDRS:
	case AB_KIND_NAMES:
	case AB_KIND_SET:
	case AB_KIND_CRED:
		if ((v = strndup(s, n)) != NULL && (why = ab_proxy_value(key, v)) != NULL) {
			bad(rd, "%s: '%s': %s", name, v, why);
			free(v);
			v = NULL;
		}
		return v;
	}
	return NULL;
}

/* One value of KEY: checked by its kind, then by its VALID column, and kept. */
static void
take_value(struct reader *rd, uint32_t key, const char *s, size_t n)
{
	char *v;

	if ((v = value_of(rd, key, s, n)) == NULL)
		return;
	switch (key_valid[key] != NULL ? key_valid[key](rd, v) : 0) {
	case 0:
		store(rd, key, v);
		return;
	case 1:
		store_unusable(rd, key, v);
		return;
	default:
		free(v);
	}
}

static void
scalar(struct reader *rd, uint32_t key, const char *v)
{
	size_t i;

	for (i = 0; v[i]; i++)
		if (is_blank(v[i]) && ab_policy_key(key)->kind != AB_KIND_CRED) {
			bad(rd, "%s takes one value, not '%s'", key_names[key], v);
			return;
		}
	take_value(rd, key, v, i);
}

/* The keys that may appear in a section of kind SECT (any, for 0), blank-separated. */
#define SPACED(ID, NAME, ...) " " NAME
#define KEY_LIST_MAX sizeof("" AB_POLICY_KEYS(SPACED))

static void
key_list(unsigned int sect, char buf[KEY_LIST_MAX])
{
	size_t at = 0, len;
	uint32_t key;

	for (key = 0; key < AB_KEY_N; key++) {
		if (sect != 0 && (ab_policy_key(key)->sections & sect) == 0)
			continue;
		len = strlen(key_names[key]);
		if (at > 0)
			buf[at++] = ' ';
		memcpy(buf + at, key_names[key], len);
		at += len;
	}
	buf[at] = '\0';
}

/* NAME's row: the one of the current section when two share a name ("host"). */
static uint32_t
find_key(const struct reader *rd, const char *name)
{
	uint32_t key, found = AB_KEY_N;

	for (key = 0; key < AB_KEY_N; key++) {
		if (strcmp(name, key_names[key]) != 0)
			continue;
		if (found == AB_KEY_N || (ab_policy_key(key)->sections & rd->sect_kind) != 0)
			found = key;
		if ((ab_policy_key(found)->sections & rd->sect_kind) != 0)
			break;
	}
	return found;
}

static int
handler(void *user, const char *section, const char *name, const char *value)
{
	struct reader *rd = user;
	char keys[KEY_LIST_MAX];
	uint32_t key;

	(void)section;		/* we track sections ourselves: inih cuts long names */
	rd->handled = 1;
	key = find_key(rd, name);
	if (key == AB_KEY_N) {
		key_list(rd->sect_kind, keys);
		bad(rd, "unknown key '%s' (keys: %s)", name, keys);
		return 1;
	}
	if (rd->state == SECT_NONE) {
		bad(rd, "'%s' before any [defaults] or [user:NAME] section", name);
		return 1;
	}
	if (rd->sect_kind != 0 && (ab_policy_key(key)->sections & rd->sect_kind) == 0) {
		key_list(rd->sect_kind, keys);
		bad(rd, "'%s' does not belong in this section (keys: %s)", name, keys);
		return 1;
	}
	if (value[0] == '\0') {
		bad(rd, "%s: empty value", name);
		return 1;
	}
	if (ab_kind_is_list(ab_policy_key(key)->kind))
		split_items(rd, key, value, take_value);
	else
		scalar(rd, key, value);
	return 1;	/* never let inih stop: we want every error */
}

int
ab_pset_parse(struct ab_pset *ps, const char *display, const char *buf, size_t len)
{
	struct reader rd = { .ps = ps, .buf = buf, .len = len };
	char **files;
	int r;

	if (ps->nfiles >= UINT32_MAX)
		return -E2BIG;
	if ((files = reallocarray(ps->files, ps->nfiles + 1, sizeof(*files))) == NULL)
		return -ENOMEM;
	ps->files = files;
	if ((files[ps->nfiles] = strdup(display)) == NULL)
		return -ENOMEM;
	rd.file = (uint32_t)ps->nfiles++;
	r = ini_parse_stream(read_line, &rd, handler, &rd);
	/* The reader checks the previous line on its next call: check the last one. */
	if (rd.want_handler && !rd.handled)
		bad(&rd, "not a KEY = VALUE line");
	if (r > 0 && ps->nerr == 0) {
		rd.line = (uint32_t)r;		/* never seen: belt and braces */
		bad(&rd, "syntax error");
	}
	if (r < 0)
		return -ENOMEM;
	return ps->err == -ENOMEM ? -ENOMEM : 0;
}

/* ---- compiling: merge [defaults] and [user:NAME] ---- */

static int
sect_cmp(const struct entry *ea, const struct entry *eb)
{
	const char *a = ea->sect, *b = eb->sect;

	if (ea->skind != eb->skind)	/* defaults, users, host sets, credentials */
		return ea->skind < eb->skind ? -1 : 1;
	if (a == NULL || b == NULL)
		return (a != NULL) - (b != NULL);	/* defaults (NULL) first */
	return strcmp(a, b);
}

static int
entry_cmp(const void *a, const void *b, void *arg)
{
	const struct ab_pset *ps = arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	int c = sect_cmp(&ps->e[ia], &ps->e[ib]);

	if (c != 0)
		return c;
	return ia < ib ? -1 : ia > ib;	/* stable: file order, then line order */
}

/*
 * Within one file the last value of a scalar wins; across files the values of one
 * section name must agree, or which file wins would depend on file names.  One pass:
 * an entry is its file's final value when the next entry of its key is in another file.
 */
static void
final_value(struct ab_pset *ps, const struct entry **first, const struct entry *e,
    int *reported)
{
	if (*first == NULL) {
		*first = e;
		return;
	}
	if (*reported || strcmp((*first)->val, e->val) == 0)
		return;
	*reported = 1;
	ab_pset_fail(ps, -EINVAL, "%s:%u: %s = %s for %s%s%s conflicts with %s = %s at %s:%u "
	    "(one value across files, please)", ps->files[e->file], e->line,
	    key_names[e->key], e->val, e->sect ? "[user:" : "[defaults", e->sect ? e->sect : "",
	    "]", key_names[e->key], (*first)->val, ps->files[(*first)->file], (*first)->line);
}

static void
check_conflicts(struct ab_pset *ps, const size_t *idx, size_t n)
{
	const struct entry *last[AB_KEY_N] = { NULL }, *first[AB_KEY_N] = { NULL };
	int reported[AB_KEY_N] = { 0 };
	uint32_t key;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct entry *e = &ps->e[idx[i]];

		if (e->key >= AB_KEY_N || ab_policy_key(e->key)->merge != AB_MERGE_LAST)
			continue;
		if (last[e->key] != NULL && last[e->key]->file != e->file)
			final_value(ps, &first[e->key], last[e->key], &reported[e->key]);
		last[e->key] = e;
	}
	for (key = 0; key < AB_KEY_N; key++)	/* only AB_MERGE_LAST keys have one */
		if (last[key] != NULL)
			final_value(ps, &first[key], last[key], &reported[key]);
}

static int
has_key(const struct ab_pset *ps, const size_t *idx, size_t n, uint32_t key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ps->e[idx[i]].key == key)
			return 1;
	return 0;
}

static int
port_cmp(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* V was validated by network_value(): a mode's name, or "tcp:P,P,...". */
static int
set_network(struct ab_policy *p, const char *v)
{
	const char *c, *name, *suffix;
	size_t n = 1, i, j;
	unsigned int m;

	free(p->ports);
	p->ports = NULL;
	p->nports = 0;
	for (m = 0; (name = ab_kind_value(AB_KIND_NETWORK, m, &suffix)) != NULL; m++)
		if (suffix[0] == '\0' && strcmp(v, name) == 0) {
			p->network = (enum ab_network)m;
			return 0;
		}
	p->network = AB_NET_TCP;
	for (c = v; *c; c++)
		n += *c == ',';
	if ((p->ports = calloc(n, sizeof(*p->ports))) == NULL)
		return -ENOMEM;
	for (c = v + strlen(ab_network_name(AB_NET_TCP)) + 1, i = 0; i < n; i++) {
		char *end;

		p->ports[i] = (uint16_t)strtoul(c, &end, 10);	/* checked by valid_tcp() */
		c = end + (*end == ',');
	}
	qsort(p->ports, n, sizeof(*p->ports), port_cmp);
	for (i = j = 0; i < n; i++)
		if (j == 0 || p->ports[j - 1] != p->ports[i])
			p->ports[j++] = p->ports[i];
	p->nports = j;
	return 0;
}

/* V was validated by enum_value(). */
static int
set_audit(enum ab_audit_mode *a, const char *v)
{
	const char *name;
	unsigned int m;

	for (m = 0; (name = ab_kind_value(AB_KIND_AUDIT, m, NULL)) != NULL; m++)
		if (strcmp(v, name) == 0)
			*a = (enum ab_audit_mode)m;
	return 0;
}

/* V was validated by enum_value(). */
static int
set_yesno(enum ab_yesno *p, const char *v)
{
	const char *name;
	unsigned int m;

	for (m = 0; (name = ab_kind_value(AB_KIND_YESNO, m, NULL)) != NULL; m++)
		if (strcmp(v, name) == 0)
			*p = (enum ab_yesno)m;
	return 0;
}

static int
set_str(char **to, const char *v)
{
	char *s;

	if ((s = strdup(v)) == NULL)
		return -ENOMEM;
	free(*to);
	*to = s;
	return 0;
}

/* Each kind's way of taking one validated value into struct ab_policy. */
#define APPLY_PATHS(p, m, v)		ab_strv_push(&(p)->m, v)
#define APPLY_PATTERNS(p, m, v)		ab_strv_push(&(p)->m, v)
#define APPLY_ENV_NAMES(p, m, v)	ab_strv_push(&(p)->m, v)
#define APPLY_PATH(p, m, v)		set_str(&(p)->m, v)
#define APPLY_ABI(p, m, v)		((p)->m = (v)[0] - '0', 0)
#define APPLY_NETWORK(p, m, v)		set_network(p, v)
#define APPLY_AUDIT(p, m, v)		set_audit(&(p)->m, v)
#define APPLY_YESNO(p, m, v)		set_yesno(&(p)->m, v)
#define APPLY_DURATION(p, m, v)		ab_duration_parse(v, &(p)->m)	/* validated */
#define APPLY_HOSTS(p, m, v)		0	/* expanded by ab_proxy_build() */
#define APPLY_CIDRS(p, m, v)		ab_strv_push(&(p)->m, v)
#define APPLY_NAMES(p, m, v)		ab_strv_push(&(p)->m, v)
#define APPLY_SET(p, m, v)		0	/* in [hosts:NAME] only */
#define APPLY_CRED(p, m, v)		0	/* in [credential:NAME] only */

static int
apply(struct ab_policy *p, const struct entry *e)
{
	/* Never reached: an unusable project concerning this load failed it already. */
	if (e->unusable)
		return -EINVAL;
	switch (e->key) {
#define APPLY(ID, NAME, KIND, MEMBER, ...) \
	case AB_KEY_##ID: return APPLY_##KIND(p, MEMBER, e->val);
	AB_POLICY_KEYS(APPLY)
#undef APPLY
	}
	return 0;	/* KEY_SECTION */
}

/* Defaults first, then the user's lines in order; lists deduplicated. */
static int
build(const struct ab_pset *ps, const struct ab_proxy *px, const size_t *dflt, size_t nd,
    const size_t *usr, size_t nu, const char *user,
    const unsigned char digest[AB_DIGEST_LEN], struct ab_policy **out)
{
	struct ab_policy *p;
	enum ab_key k;
	size_t i;
	int r = -ENOMEM;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return -ENOMEM;
	p->network = AB_NET_NONE;
	p->landlock_min_abi = 1;
	p->audit = AB_AUDIT_REQUIRED;
	p->persist = AB_NO;
	p->learn = AB_NO;
	p->linger = AB_LINGER_DEFAULT;
	if ((p->user = strdup(user)) == NULL || (p->shell = strdup("/bin/bash")) == NULL)
		goto fail;
	for (i = 0; i < nd; i++)
		if ((r = apply(p, &ps->e[dflt[i]])) != 0)
			goto fail;
	for (i = 0; i < nu; i++)
		if ((r = apply(p, &ps->e[usr[i]])) != 0)
			goto fail;
	if ((r = ab_proxy_build(ps, px, dflt, nd, usr, nu, p)) != 0)
		goto fail;
	for (k = 0; k < AB_KEY_N; k++)
		if (ab_policy_key(k)->merge == AB_MERGE_APPEND && ab_policy_strv(p, k) != NULL &&
		    (r = ab_strv_uniq_twin(ab_policy_strv(p, k), ab_policy_src(p, k))) != 0)
			goto fail;
	if ((r = ab_proxy_build_creds(ps, px, p)) != 0)
		goto fail;
	memcpy(p->digest, digest, AB_DIGEST_LEN);
	*out = p;
	return 0;
fail:
	ab_policy_free(p);
	return r;
}

int
ab_pset_compile(struct ab_pset *ps, const unsigned char digest[AB_DIGEST_LEN],
    const char *user, struct ab_policy **out, struct ab_strv *users)
{
	struct ab_proxy px = { 0 };
	size_t *idx, i, a, b, nd;
	int r = 0;

	if (out != NULL)
		*out = NULL;
	if ((idx = calloc(ps->n ? ps->n : 1, sizeof(*idx))) == NULL)
		return -ENOMEM;
	for (i = 0; i < ps->n; i++)
		idx[i] = i;
	qsort_r(idx, ps->n, sizeof(*idx), entry_cmp, ps);
	for (nd = 0; nd < ps->n && ps->e[idx[nd]].skind == AB_SECT_DEFAULTS; nd++)
		;
	check_conflicts(ps, idx, nd);
	/* The named sets and credentials first: every user's policy refers to them. */
	if ((r = ab_proxy_collect(ps, idx, ps->n, &px)) != 0)
		goto out;
	ab_proxy_check_refs(ps, &px);
	for (a = nd; a < ps->n && ps->e[idx[a]].skind == AB_SECT_USER; a = b) {
		const char *name = ps->e[idx[a]].sect;
		const struct entry *hdr = &ps->e[idx[a]];	/* first [user:NAME] line */

		for (b = a + 1; b < ps->n && ps->e[idx[b]].skind == AB_SECT_USER &&
		    strcmp(ps->e[idx[b]].sect, name) == 0; b++)
			;
		check_conflicts(ps, idx + a, b - a);
		if (!has_key(ps, idx, nd, AB_KEY_PROJECT) &&
		    !has_key(ps, idx + a, b - a, AB_KEY_PROJECT))
			ab_pset_fail(ps, -EINVAL, "%s:%u: [user:%s] has no project (set project = DIR)",
			    ps->files[hdr->file], hdr->line, name);
		ab_proxy_check_user(ps, &px, idx, nd, idx + a, b - a, name);
		if (users != NULL && (r = ab_strv_push(users, name)) != 0)
			break;
		if (user != NULL && out != NULL && strcmp(user, name) == 0 &&
		    (r = build(ps, &px, idx, nd, idx + a, b - a, name, digest, out)) != 0)
			break;
	}
out:
	ab_proxy_free(&px);
	free(idx);
	if (r == 0 && ps->err != 0)
		r = ps->err;
	if (r == 0 && ps->nerr != 0)
		r = -EINVAL;
	if (r != 0 && out != NULL) {
		ab_policy_free(*out);
		*out = NULL;
	}
	return r;
}
