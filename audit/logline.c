/*
 * One audit log line: header and fields, parsed in place.
 *
 * Hand-written rather than libauparse because the fast path (group.c) must touch each of
 * the millions of noise lines only once, for its header; libauparse tokenises every field
 * of every record.  The field syntax is the kernel's (audit_log_format, audit_log_n_string,
 * audit_log_n_untrustedstring) and libaudit's (audit_encode_nv_string): name=value with
 * value plain, "quoted" (never containing a quote), or upper-case hex for strings with
 * unsafe bytes; user-space records nest their own fields in msg='...'; log_format =
 * ENRICHED appends 0x1d and NAME=translation pairs.  Every access is bounded by the
 * line's length: lines may hold NUL bytes and need not end in a newline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "review.h"

/* Unsigned decimal with overflow check: absurd numbers are malformed, not wrapped. */
static const char *
parse_u64(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *start = p;

	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = *p - '0';

		if (v > (UINT64_MAX - d) / 10)
			return NULL;
		v = v * 10 + d;
		p++;
	}
	if (p == start)
		return NULL;
	*out = v;
	return p;
}

#define T(name, t) { name, sizeof(name) - 1, t }
static const struct {
	const char *name;
	size_t len;
	enum ab_type t;
} type_names[] = {
	T("SYSCALL", AB_T_SYSCALL),
	T("PATH", AB_T_PATH),
	T("CWD", AB_T_CWD),
	T("PROCTITLE", AB_T_PROCTITLE),
	T("SOCKADDR", AB_T_SOCKADDR),
	T("OBJ_PID", AB_T_OBJ_PID),
	T("EOE", AB_T_EOE),
	T("LANDLOCK_ACCESS", AB_T_LL_ACCESS),
	T("UNKNOWN[1423]", AB_T_LL_ACCESS),
	T("LANDLOCK_DOMAIN", AB_T_LL_DOMAIN),
	T("UNKNOWN[1424]", AB_T_LL_DOMAIN),
	T("SECCOMP", AB_T_SECCOMP),
	T("TRUSTED_APP", AB_T_TRUSTED_APP),
	T("LOGIN", AB_T_LOGIN),
	T("FANOTIFY", AB_T_FANOTIFY),
	T("UNKNOWN[1331]", AB_T_FANOTIFY),
};
#undef T

enum ab_type
ab_type_of(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (type_names[i].len == n && type_names[i].name[0] == name[0] &&
		    memcmp(type_names[i].name, name, n) == 0)
			return type_names[i].t;
	if (n > 7 && memcmp(name, "DAEMON_", 7) == 0)
		return AB_T_DAEMON;
	/* User-space messages are single-record events (libaudit sends them one by one). */
	if ((n > 5 && memcmp(name, "USER_", 5) == 0) || (n > 5 && memcmp(name, "CRED_", 5) == 0) ||
	    (n == 11 && memcmp(name, "SERVICE_", 8) == 0) || (n > 4 && memcmp(name, "ADD_", 4) == 0) ||
	    (n > 4 && memcmp(name, "DEL_", 4) == 0) || (n > 4 && memcmp(name, "GRP_", 4) == 0))
		return AB_T_USER;
	if (n > 9 && memcmp(name, "UNKNOWN[", 8) == 0 && name[n - 1] == ']') {
		uint64_t num;
		const char *e = parse_u64(name + 8, name + n - 1, &num);

		/* AUDIT_FIRST_USER_MSG..AUDIT_LAST_USER_MSG, AUDIT_FIRST_USER_MSG2..LAST2 */
		if (e == name + n - 1 && ((num >= 1100 && num <= 1199) || (num >= 2100 && num <= 2999)))
			return AB_T_USER;
		if (e == name + n - 1 && num >= 1200 && num <= 1299)
			return AB_T_DAEMON;
	}
	return AB_T_OTHER;
}

int
ab_rec_parse(const char *line, size_t len, struct ab_rec *r)
{
	const char *p = line, *end = line + len, *q;

	memset(r, 0, sizeof(*r));
	r->line = line;
	r->len = len;
	r->node.p = line;	/* empty, never NULL: callers may memcmp it */
	if (len >= 5 && memcmp(p, "node=", 5) == 0) {
		p += 5;
		q = memchr(p, ' ', end - p);
		if (q == NULL || q == p)
			return -EINVAL;
		r->node.p = p;
		r->node.n = q - p;
		p = q + 1;
	}
	if ((size_t)(end - p) < 5 || memcmp(p, "type=", 5) != 0)
		return -EINVAL;
	p += 5;
	if ((q = memchr(p, ' ', end - p)) == NULL || q == p)
		return -EINVAL;
	r->type.p = p;
	r->type.n = q - p;
	r->t = ab_type_of(p, q - p);
	p = q + 1;
	if ((size_t)(end - p) < 10 || memcmp(p, "msg=audit(", 10) != 0)
		return -EINVAL;
	p += 10;
	if ((q = parse_u64(p, end, &r->sec)) == NULL)
		return p < end && *p >= '0' && *p <= '9' ? -ERANGE : -EINVAL;
	p = q;
	if (p >= end || *p != '.')
		return -EINVAL;
	{
		uint64_t ms;
		const char *s = p + 1;

		if ((p = parse_u64(s, end, &ms)) == NULL || p - s != 3)
			return -EINVAL;
		r->ms = (uint32_t)ms;
	}
	if (p >= end || *p != ':')
		return -EINVAL;
	if ((q = parse_u64(p + 1, end, &r->serial)) == NULL)
		return p + 1 < end && p[1] >= '0' && p[1] <= '9' ? -ERANGE : -EINVAL;
	p = q;
	/* Seconds beyond year 9999 are corrupt: refuse rather than print nonsense dates. */
	if (r->sec > 253402300799ULL)
		return -ERANGE;
	if ((size_t)(end - p) < 2 || p[0] != ')' || p[1] != ':')
		return -EINVAL;
	p += 2;
	if (p < end && *p == ' ')
		p++;
	/* The enriched part (after 0x1d) is found on demand by body_end(): most lines are
	 * never looked into, and this keeps the header parse to one short scan. */
	r->body.p = p;
	r->body.n = end - p;
	return 0;
}

/*
 * Walk name=value tokens of [p, end).  A value is "..." (to the next quote), '...'
 * (user-space nesting, to the last quote before the end), {...} (enriched SADDR), or
 * runs to the next space.  Calls back with depth 0 or 1.
 */
struct tok_cb {
	const char *key;
	size_t klen;
	int want_depth;		/* -1: any */
	struct ab_str found;
	int hit;
};

static void
scan(const char *p, const char *end, int depth, struct tok_cb *cb)
{
	while (p < end && !cb->hit) {
		const char *name, *eq, *v, *ve;

		while (p < end && *p == ' ')
			p++;
		name = p;
		while (p < end && *p != '=' && *p != ' ')
			p++;
		if (p >= end || *p == ' ')
			continue;	/* a word without '=': skip it */
		eq = p;
		v = eq + 1;
		if (v < end && (*v == '"' || *v == '{')) {
			const char close = *v == '"' ? '"' : '}';
			const char *c = memchr(v + 1, close, end - v - 1);

			ve = c != NULL ? c + 1 : end;
		} else if (v < end && *v == '\'') {
			/* msg='...': the nested part ends at the last quote of the body */
			const char *c = end - 1;

			while (c > v && *c != '\'')
				c--;
			ve = c > v ? c + 1 : end;
		} else {
			const char *c = memchr(v, ' ', end - v);

			ve = c != NULL ? c : end;
		}
		if ((size_t)(eq - name) == cb->klen && memcmp(name, cb->key, cb->klen) == 0 &&
		    (cb->want_depth < 0 || cb->want_depth == depth)) {
			cb->found.p = v;
			cb->found.n = ve - v;
			cb->hit = 1;
			return;
		}
		if (depth == 0 && ve - v >= 2 && *v == '\'')
			scan(v + 1, ve - 1, 1, cb);
		p = ve;
	}
}

/* Where the fields end: at the enriched separator, or the end of the line. */
static const char *
body_end(const struct ab_rec *r)
{
	const char *sep = memchr(r->body.p, 0x1d, r->body.n);

	return sep != NULL ? sep : r->body.p + r->body.n;
}

int
ab_rec_field(const struct ab_rec *r, const char *key, int inner, struct ab_str *v)
{
	struct tok_cb cb = { .key = key, .klen = strlen(key), .want_depth = inner ? 1 : 0 };
	const char *end = body_end(r);

	scan(r->body.p, end, 0, &cb);
	if (!cb.hit && inner != AB_INNER_ONLY) {
		cb.want_depth = -1;
		scan(r->body.p, end, 0, &cb);
	}
	if (!cb.hit)
		return -ENOENT;
	*v = cb.found;
	return 0;
}

size_t
ab_rec_inner_str(const struct ab_rec *r, const char *key, char *buf, size_t cap, int *trunc)
{
	struct ab_str raw;
	size_t n = 0;

	buf[0] = '\0';
	if (ab_rec_field(r, key, AB_INNER_ONLY, &raw) != 0)
		return 0;
	if (ab_val_decode(key, raw, buf, cap, &n) == -ENOSPC && trunc != NULL)
		*trunc = 1;
	return n;
}

int
ab_rec_inner_num(const struct ab_rec *r, const char *key, uint64_t unset, uint64_t *out)
{
	struct ab_str raw;

	*out = unset;
	if (ab_rec_field(r, key, AB_INNER_ONLY, &raw) != 0 || (raw.n == 1 && raw.p[0] == '?'))
		return -ENOENT;
	if (ab_rec_num(r, key, AB_INNER_ONLY, 10, out) != 0) {
		*out = unset;
		return -EINVAL;
	}
	return 0;
}

int
ab_rec_enriched(const struct ab_rec *r, const char *key, struct ab_str *v)
{
	struct tok_cb cb = { .key = key, .klen = strlen(key), .want_depth = 0 };
	const char *sep = body_end(r), *end = r->body.p + r->body.n;

	if (sep >= end)
		return -ENOENT;
	scan(sep + 1, end, 0, &cb);
	if (!cb.hit)
		return -ENOENT;
	*v = cb.found;
	return 0;
}

int
ab_rec_num(const struct ab_rec *r, const char *key, int inner, int base, uint64_t *out)
{
	struct ab_str v;
	const char *p, *end;
	uint64_t n = 0;

	if (ab_rec_field(r, key, inner, &v) != 0)
		return -ENOENT;
	p = v.p;
	end = v.p + v.n;
	if (base == 16) {
		if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			p += 2;
		if (p == end || end - p > 16)
			return -EINVAL;
		for (; p < end; p++) {
			int d = (*p >= '0' && *p <= '9') ? *p - '0' :
			    (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10 :
			    (*p >= 'A' && *p <= 'F') ? *p - 'A' + 10 : -1;
			if (d < 0)
				return -EINVAL;
			n = n << 4 | (unsigned)d;
		}
		*out = n;
		return 0;
	}
	if ((p = parse_u64(p, end, &n)) == NULL)
		return -EINVAL;
	if (p != end)
		return -EINVAL;
	*out = n;
	return 0;
}

/* Fields whose values the kernel (audit_log_untrustedstring) or libaudit
 * (audit_encode_nv_string) hex-encode when they hold unsafe bytes. */
static const char *const hex_fields[] = {
	"name", "path", "cwd", "exe", "comm", "proctitle", "key", "ocomm", "dir", "data",
	"acct", "user", "service", "tty", "rhost", "reason", "cmd", "dev", "file",
	"host", "rule",		/* agentbox-netd's network records */
	"pattern", "prog",	/* agentbox-maskd's live-mask records */
	NULL,
};

static int
is_hex_field(const char *key)
{
	for (const char *const *f = hex_fields; *f != NULL; f++)
		if (strcmp(*f, key) == 0)
			return 1;
	return 0;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
ab_val_decode(const char *key, struct ab_str raw, char *out, size_t cap, size_t *outn)
{
	const char *p = raw.p;
	size_t n = raw.n, o = 0, i;
	int hex = 0, r = 0;

	if (cap == 0)
		return -ENOSPC;
	if (n >= 2 && (p[0] == '"' || p[0] == '\'') && p[n - 1] == p[0]) {
		p++;
		n -= 2;
	} else if (n >= 1 && p[0] == '"') {	/* truncated line: unterminated quote */
		p++;
		n--;
	} else if ((n == 6 && memcmp(p, "(null)", 6) == 0) || (n == 1 && p[0] == '?') ||
	    (n == 6 && memcmp(p, "(none)", 6) == 0)) {
		out[0] = '\0';
		*outn = 0;
		return 1;
	} else if (n >= 2 && n % 2 == 0 && is_hex_field(key)) {
		hex = 1;
		for (i = 0; i < n && hex; i++)
			hex = hexval(p[i]) >= 0;
	}
	if (hex) {
		for (i = 0; i + 1 < n; i += 2) {
			if (o + 1 >= cap) {
				r = -ENOSPC;
				break;
			}
			out[o++] = (char)(hexval(p[i]) << 4 | hexval(p[i + 1]));
		}
	} else {
		if (n >= cap) {
			n = cap - 1;
			r = -ENOSPC;
		}
		memcpy(out, p, n);
		o = n;
	}
	out[o] = '\0';
	*outn = o;
	return r;
}
