/*
 * The session plan: what pam_agentbox.so hands to agentbox-shell, as text.
 *
 *   agentbox-plan 1
 *   KEY VALUE          one per line, in the fixed order of ab_plan_serialize(): the
 *                      session's fields, then the policy keys of AB_POLICY_KEYS
 *                      (internal.h), the scalars in table order, then the lists
 *                      (allow_host and deny_host: each rule line followed by its
 *                      KEY_src line, "FILE:LINE"), then for each name of the
 *                      credential list "cred NAME" and that credential's keys in
 *                      table order (the optional ones only when set)
 *   end
 *
 * Every line is "KEY" + one space + VALUE + "\n"; list keys repeat (zero or more lines),
 * scalar keys appear exactly once.  VALUE is printable ASCII: '\' is written "\\", and
 * every byte <= 0x20 or >= 0x7f (space, newline, tab, non-ASCII, non-UTF-8) as "\xHH"
 * with lowercase hex, so a path with a newline cannot forge a line.  The parser takes
 * only that canonical form: any other escape, a raw byte that should have been escaped,
 * "\x00", an unknown, missing, repeated or misplaced key, a number with a sign or a
 * leading zero, anything after "end", is -EINVAL.  It parses by hand (no inih, no
 * nettle) so agentbox-shell links it statically.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define PLAN_MAGIC	"agentbox-plan 1"

/* ---- writing ---- */

struct obuf {
	char	*b;
	size_t	 n, cap;
	int	 err;
};

static void
ob_put(struct obuf *o, const char *s, size_t n)
{
	char *nb;
	size_t cap;

	if (o->err)
		return;
	if (o->n + n + 1 > o->cap) {
		cap = o->cap ? o->cap : 1024;
		while (cap < o->n + n + 1) {
			if (cap > SIZE_MAX / 2) {
				o->err = -ENOMEM;
				return;
			}
			cap *= 2;
		}
		if ((nb = realloc(o->b, cap)) == NULL) {
			o->err = -ENOMEM;
			return;
		}
		o->b = nb;
		o->cap = cap;
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
	o->b[o->n] = '\0';
}

static void
ob_str(struct obuf *o, const char *key, const char *val)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *v = (const unsigned char *)val;
	char esc[4] = { '\\', 'x', 0, 0 };

	if (val == NULL) {
		o->err = -EINVAL;
		return;
	}
	ob_put(o, key, strlen(key));
	ob_put(o, " ", 1);
	for (; *v; v++) {
		if (*v == '\\') {
			ob_put(o, "\\\\", 2);
		} else if (*v <= 0x20 || *v >= 0x7f) {
			esc[2] = hex[*v >> 4];
			esc[3] = hex[*v & 15];
			ob_put(o, esc, 4);
		} else {
			ob_put(o, (const char *)v, 1);
		}
	}
	ob_put(o, "\n", 1);
}

static void
ob_num(struct obuf *o, const char *key, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	ob_str(o, key, num);
}

static void
ob_list(struct obuf *o, const char *key, const struct ab_strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		ob_str(o, key, sv->v[i]);
}

static void
ob_network(struct obuf *o, const char *key, const struct ab_policy *p)
{
	size_t i;

	ob_str(o, key, ab_network_name(p->network));
	for (i = 0; i < p->nports; i++)
		ob_num(o, "port", p->ports[i]);
}

/* Host rules: each "KEY RULE" line followed by its "KEY_src FILE:LINE". */
static void
ob_rules(struct obuf *o, const char *key, const char *srckey, const struct ab_strv *sv,
    const struct ab_strv *src)
{
	size_t i;

	if (src->n != sv->n) {
		o->err = -EINVAL;
		return;
	}
	for (i = 0; i < sv->n; i++) {
		ob_str(o, key, sv->v[i]);
		ob_str(o, srckey, src->v[i]);
	}
}

/* Each credential: "cred NAME", then its keys in table order, unset ones left out. */
static void
ob_creds(struct obuf *o, const struct ab_policy *p)
{
	size_t i;

	if (p->ncreds != p->credential.n) {
		o->err = -EINVAL;
		return;
	}
	for (i = 0; i < p->ncreds; i++) {
		const struct ab_cred *c = &p->creds[i];

		ob_str(o, "cred", c->name);
#define PUT_FIELD(ID, NAME, KIND, MEMBER, ...) \
		if (c->MEMBER != NULL) \
			ob_str(o, NAME, c->MEMBER);
		AB_CRED_KEYS(PUT_FIELD)
#undef PUT_FIELD
	}
}

/* Each kind's lines: the name, then the value (a list: one line per item). */
#define PUT_PATHS(o, name, p, m)	ob_list(o, name, &(p)->m)
#define PUT_PATTERNS(o, name, p, m)	ob_list(o, name, &(p)->m)
#define PUT_ENV_NAMES(o, name, p, m)	ob_list(o, name, &(p)->m)
#define PUT_PATH(o, name, p, m)		ob_str(o, name, (p)->m)
#define PUT_ABI(o, name, p, m)		ob_num(o, name, (uint64_t)(p)->m)
#define PUT_NETWORK(o, name, p, m)	ob_network(o, name, p)
#define PUT_AUDIT(o, name, p, m)	ob_str(o, name, ab_audit_name((p)->m))
#define PUT_YESNO(o, name, p, m)	ob_str(o, name, ab_yesno_name((p)->m))
#define PUT_DURATION(o, name, p, m)	ob_num(o, name, (uint64_t)(p)->m)
#define PUT_HOSTS(o, name, p, m)	ob_rules(o, name, name "_src", &(p)->m, &(p)->m##_src)
#define PUT_CIDRS(o, name, p, m)	ob_list(o, name, &(p)->m)
#define PUT_NAMES(o, name, p, m)	ob_list(o, name, &(p)->m)
#define PUT_SET(o, name, p, m)		(void)0	/* no member: expanded into allow_host */
#define PUT_CRED(o, name, p, m)		(void)0	/* ob_creds() */

/* The policy's keys in table order: the scalars (LISTS 0), or the lists (LISTS 1). */
static void
put_keys(struct obuf *o, const struct ab_policy *p, int lists)
{
#define PUT(ID, NAME, KIND, MEMBER, ...) \
	if (ab_kind_is_list(AB_KIND_##KIND) == lists) \
		PUT_##KIND(o, NAME, p, MEMBER);
	AB_POLICY_KEYS(PUT)
#undef PUT
}

int
ab_plan_serialize(const struct ab_plan *plan, char **buf, size_t *len)
{
	const struct ab_policy *p = plan->policy;
	struct obuf o = { 0 };
	char hex[2 * AB_DIGEST_LEN + 1];

	if (p == NULL)
		return -EINVAL;
	ob_put(&o, PLAN_MAGIC "\n", strlen(PLAN_MAGIC) + 1);
	ob_str(&o, "user", p->user);
	ob_num(&o, "uid", plan->uid);
	ob_num(&o, "gid", plan->gid);
	ob_str(&o, "home", plan->home);
	ob_str(&o, "service", plan->service);
	ob_str(&o, "tty", plan->tty);
	ob_str(&o, "rhost", plan->rhost);
	ob_num(&o, "audit_session", plan->audit_session);
	ob_num(&o, "ns_mnt", plan->ns_mnt);
	ob_num(&o, "ns_pid", plan->ns_pid);
	ob_num(&o, "ns_net", plan->ns_net);
	ob_num(&o, "ns_ipc", plan->ns_ipc);
	ob_num(&o, "ns_uts", plan->ns_uts);
	ob_num(&o, "started", plan->started);
	ob_num(&o, "masks", plan->masks);
	ob_num(&o, "protects", plan->protects);
	ab_digest_hex(p->digest, hex);
	ob_str(&o, "digest", hex);
	put_keys(&o, p, 0);
	put_keys(&o, p, 1);
	ob_creds(&o, p);
	ob_put(&o, "end\n", 4);
	if (o.err) {
		free(o.b);
		return o.err;
	}
	*buf = o.b;
	*len = o.n;
	return 0;
}

/* ---- reading ---- */

struct cur {
	const char	*b;
	size_t		 n, pos;
};

/* Does the next line start with "KEY "? */
static int
peek(const struct cur *c, const char *key)
{
	size_t k = strlen(key);

	return c->n - c->pos > k && memcmp(c->b + c->pos, key, k) == 0 &&
	    c->b[c->pos + k] == ' ';
}

static int
hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;	/* uppercase is not canonical */
}

/* Consume the line "KEY VALUE\n"; *out is the unescaped VALUE, malloc'd. */
static int
take(struct cur *c, const char *key, char **out)
{
	const char *v, *eol;
	char *s, *d;
	size_t vn, i;

	if (!peek(c, key))
		return -EINVAL;
	v = c->b + c->pos + strlen(key) + 1;
	if ((eol = memchr(v, '\n', c->n - (size_t)(v - c->b))) == NULL)
		return -EINVAL;
	vn = (size_t)(eol - v);
	if ((s = d = malloc(vn + 1)) == NULL)
		return -ENOMEM;
	for (i = 0; i < vn; i++) {
		unsigned char ch = (unsigned char)v[i];
		int hi, lo;

		if (ch != '\\') {
			if (ch <= 0x20 || ch >= 0x7f)
				goto bad;	/* should have been escaped */
			*d++ = (char)ch;
			continue;
		}
		if (i + 1 < vn && v[i + 1] == '\\') {
			*d++ = '\\';
			i++;
			continue;
		}
		if (i + 3 >= vn || v[i + 1] != 'x' ||
		    (hi = hexval((unsigned char)v[i + 2])) < 0 ||
		    (lo = hexval((unsigned char)v[i + 3])) < 0)
			goto bad;
		ch = (unsigned char)(hi << 4 | lo);
		if (ch == 0 || (ch > 0x20 && ch < 0x7f))
			goto bad;	/* NUL cuts a C string; printable is never escaped */
		*d++ = (char)ch;
		i += 3;
	}
	*d = '\0';
	c->pos = (size_t)(eol - c->b) + 1;
	*out = s;
	return 0;
bad:
	free(s);
	return -EINVAL;
}

static int
take_u64(struct cur *c, const char *key, uint64_t max, uint64_t *out)
{
	char *s, *p;
	uint64_t v = 0;
	int r;

	if ((r = take(c, key, &s)) != 0)
		return r;
	r = -EINVAL;
	if (s[0] == '\0' || (s[0] == '0' && s[1] != '\0'))
		goto out;
	for (p = s; *p; p++) {
		uint64_t d = (uint64_t)(*p - '0');

		if (*p < '0' || *p > '9' || d > max || v > (max - d) / 10)
			goto out;
		v = v * 10 + d;
	}
	*out = v;
	r = 0;
out:
	free(s);
	return r;
}

static int
take_u32(struct cur *c, const char *key, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int r;

	if ((r = take_u64(c, key, max, &v)) == 0)
		*out = (uint32_t)v;
	return r;
}

static int
abs_path_ok(const char *s)
{
	return s[0] == '/';
}

/* One "KEY VALUE" line; VALUE must pass OK. */
static int
take_list_one(struct cur *c, const char *key, int (*ok)(const char *), struct ab_strv *sv)
{
	char *s;
	int r;

	if ((r = take(c, key, &s)) != 0)
		return r;
	if (!ok(s)) {
		free(s);
		return -EINVAL;
	}
	r = ab_strv_push(sv, s);
	free(s);
	return r;
}

/* Zero or more "KEY VALUE" lines; each VALUE must pass OK. */
static int
take_list(struct cur *c, const char *key, int (*ok)(const char *), struct ab_strv *sv)
{
	int r;

	while (peek(c, key))
		if ((r = take_list_one(c, key, ok, sv)) != 0)
			return r;
	return 0;
}

static int
pattern_ok(const char *s)
{
	return ab_pattern_valid(s, NULL) == 0;
}

static int
take_path(struct cur *c, const char *key, char **out)
{
	int r;

	if ((r = take(c, key, out)) != 0)
		return r;
	if (!abs_path_ok(*out)) {
		free(*out);
		*out = NULL;
		return -EINVAL;
	}
	return 0;
}

/* VALUE names a value of enum kind K (the plan writes the name alone, no suffix). */
static int
take_enum(struct cur *c, const char *key, enum ab_key_kind k, int *out)
{
	const char *name;
	char *s;
	unsigned int i;
	int r;

	if ((r = take(c, key, &s)) != 0)
		return r;
	for (i = 0; (name = ab_kind_value(k, i, NULL)) != NULL; i++)
		if (strcmp(s, name) == 0)
			break;
	free(s);
	if (name == NULL)
		return -EINVAL;
	*out = (int)i;
	return 0;
}

static int
take_digest(struct cur *c, unsigned char digest[AB_DIGEST_LEN])
{
	char *s;
	int i, r;

	if ((r = take(c, "digest", &s)) != 0)
		return r;
	r = -EINVAL;
	if (strlen(s) != 2 * AB_DIGEST_LEN)
		goto out;
	for (i = 0; i < AB_DIGEST_LEN; i++) {
		int hi = hexval((unsigned char)s[2 * i]), lo = hexval((unsigned char)s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			goto out;
		digest[i] = (unsigned char)(hi << 4 | lo);
	}
	r = 0;
out:
	free(s);
	return r;
}

/* Ports: only for tcp, at least one, strictly increasing (so sorted and unique). */
static int
take_ports(struct cur *c, struct ab_policy *p)
{
	uint16_t *v;
	uint64_t port;
	int r;

	while (peek(c, "port")) {
		if ((r = take_u64(c, "port", 65535, &port)) != 0)
			return r;
		if (port == 0 || (p->nports > 0 && port <= p->ports[p->nports - 1]))
			return -EINVAL;
		if ((v = reallocarray(p->ports, p->nports + 1, sizeof(*v))) == NULL)
			return -ENOMEM;
		p->ports = v;
		p->ports[p->nports++] = (uint16_t)port;
	}
	if ((p->network == AB_NET_TCP) != (p->nports > 0))
		return -EINVAL;
	return 0;
}

static int
user_ok(const char *s) { return ab_user_name_valid(s); }
static int
env_ok(const char *s) { return ab_env_name_valid(s); }

static int
take_network(struct cur *c, const char *key, struct ab_policy *p)
{
	int r, e;

	if ((r = take_enum(c, key, AB_KIND_NETWORK, &e)) != 0)
		return r;
	p->network = (enum ab_network)e;
	return take_ports(c, p);
}

static int
take_audit(struct cur *c, const char *key, enum ab_audit_mode *a)
{
	int r, e;

	if ((r = take_enum(c, key, AB_KIND_AUDIT, &e)) != 0)
		return r;
	*a = (enum ab_audit_mode)e;
	return 0;
}

static int
take_yesno(struct cur *c, const char *key, enum ab_yesno *p)
{
	int r, e;

	if ((r = take_enum(c, key, AB_KIND_YESNO, &e)) != 0)
		return r;
	*p = (enum ab_yesno)e;
	return 0;
}

static int
take_abi(struct cur *c, const char *key, int *abi)
{
	uint64_t u;
	int r;

	if ((r = take_u64(c, key, AB_LANDLOCK_ABI_MAX, &u)) != 0)
		return r;
	if (u < 1)
		return -EINVAL;
	*abi = (int)u;
	return 0;
}

/*
 * The proxy keys' values, checked for shape only: the parsers that judge them fully
 * (netd/host.c, netd/addr.c) are not in this musl-built library, and the shell only
 * passes credentials' variables on; agentbox-netd loads the policy itself.
 */
static int
chars_in(const char *s, const char *set)
{
	return s[0] != '\0' && s[strspn(s, set)] == '\0';
}

#define LDH	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-."

static int
rule_ok(const char *s)
{
	return chars_in(s, LDH "*:[]/");	/* never "@NAME": the plan holds them expanded */
}

static int
src_ok(const char *s)
{
	return s[0] != '\0' && strrchr(s, ':') != NULL;
}

static int
cidr_ok(const char *s)
{
	return chars_in(s, "0123456789abcdefABCDEF.:/") && strchr(s, '/') != NULL;
}

/* Rule lines, each followed by its source line. */
static int
take_rules(struct cur *c, const char *key, const char *srckey, struct ab_strv *sv,
    struct ab_strv *src)
{
	int r;

	while (peek(c, key)) {
		if ((r = take_list_one(c, key, rule_ok, sv)) != 0 ||
		    (r = take_list_one(c, srckey, src_ok, src)) != 0)
			return r;
	}
	return 0;
}

static int
cred_ok(enum ab_key k, const char *v)
{
	switch (k) {
	case AB_KEY_CRED_HOST:
		return chars_in(v, LDH);
	case AB_KEY_CRED_HEADER:
		return ab_header_name_valid(v);
	case AB_KEY_CRED_PREFIX:
		return ab_cred_prefix_valid(v);
	case AB_KEY_CRED_FILE:
		return abs_path_ok(v);
	case AB_KEY_CRED_ENV:
	case AB_KEY_CRED_BASE_URL_ENV:
		return ab_env_name_valid(v);
	case AB_KEY_CRED_BASE_PATH:
		return ab_url_path_valid(v);
	default:
		return 0;
	}
}

/* Credential field K: required ones must be there, optional ones may be. */
static int
take_field(struct cur *c, enum ab_key k, char **out)
{
	const char *name = ab_policy_key(k)->name;
	int r;

	if (!ab_cred_key_required(k) && !peek(c, name))
		return 0;
	if ((r = take(c, name, out)) != 0)
		return r;
	return cred_ok(k, *out) ? 0 : -EINVAL;
}

/* The credentials ob_creds() wrote: one per name of the credential list, in order. */
static int
take_creds(struct cur *c, struct ab_policy *p)
{
	size_t i;
	int r;

	if (p->credential.n > AB_CRED_MAX)
		return -EINVAL;
	if (p->credential.n == 0)
		return 0;
	if ((p->creds = calloc(p->credential.n, sizeof(*p->creds))) == NULL)
		return -ENOMEM;
	for (i = 0; i < p->credential.n; i++) {
		struct ab_cred *cr = &p->creds[p->ncreds++];

		if ((r = take(c, "cred", &cr->name)) != 0)
			return r;
		if (strcmp(cr->name, p->credential.v[i]) != 0)
			return -EINVAL;
#define TAKE_FIELD(ID, NAME, KIND, MEMBER, ...) \
		if ((r = take_field(c, AB_KEY_##ID, &cr->MEMBER)) != 0) \
			return r;
		AB_CRED_KEYS(TAKE_FIELD)
#undef TAKE_FIELD
	}
	return 0;
}

/* The proxy keys belong to network = proxy only, as the parser insists. */
static int
proxy_ok(const struct ab_policy *p)
{
	return p->network == AB_NET_PROXY || (p->allow_host.n == 0 && p->deny_host.n == 0 &&
	    p->allow_private.n == 0 && p->credential.n == 0);
}

/* Each kind's lines, checked as the parser checks the policy's (host facts aside). */
#define TAKE_PATHS(c, name, p, m)	take_list(c, name, abs_path_ok, &(p)->m)
#define TAKE_PATTERNS(c, name, p, m)	take_list(c, name, pattern_ok, &(p)->m)
#define TAKE_ENV_NAMES(c, name, p, m)	take_list(c, name, env_ok, &(p)->m)
#define TAKE_PATH(c, name, p, m)	take_path(c, name, &(p)->m)
#define TAKE_ABI(c, name, p, m)		take_abi(c, name, &(p)->m)
#define TAKE_NETWORK(c, name, p, m)	take_network(c, name, p)
#define TAKE_AUDIT(c, name, p, m)	take_audit(c, name, &(p)->m)
#define TAKE_YESNO(c, name, p, m)	take_yesno(c, name, &(p)->m)
#define TAKE_DURATION(c, name, p, m)	take_u32(c, name, AB_DURATION_MAX, &(p)->m)
#define TAKE_HOSTS(c, name, p, m)	take_rules(c, name, name "_src", &(p)->m, &(p)->m##_src)
#define TAKE_CIDRS(c, name, p, m)	take_list(c, name, cidr_ok, &(p)->m)
#define TAKE_NAMES(c, name, p, m)	take_list(c, name, ab_set_name_valid, &(p)->m)
#define TAKE_SET(c, name, p, m)		0
#define TAKE_CRED(c, name, p, m)	0

/* The policy's keys in put_keys()'s order; the first error stops. */
static int
take_keys(struct cur *c, struct ab_policy *p, int lists)
{
	int r = 0;

#define TAKE(ID, NAME, KIND, MEMBER, ...) \
	if (r == 0 && ab_kind_is_list(AB_KIND_##KIND) == lists) \
		r = TAKE_##KIND(c, NAME, p, MEMBER);
	AB_POLICY_KEYS(TAKE)
#undef TAKE
	return r;
}

/* The body, in exactly the order ab_plan_serialize() writes it. */
static int
read_plan(struct cur *c, struct ab_plan *pl)
{
	struct ab_policy *p = pl->policy;
	uint32_t u32;
	int r;

	if ((r = take(c, "user", &p->user)) != 0)
		return r;
	if (!user_ok(p->user))
		return -EINVAL;
	/* (uid_t)-1 and (gid_t)-1 mean "no change" to setresuid(2): never valid here. */
	if ((r = take_u32(c, "uid", UINT32_MAX - 1, &u32)) != 0)
		return r;
	pl->uid = (uid_t)u32;
	if ((r = take_u32(c, "gid", UINT32_MAX - 1, &u32)) != 0)
		return r;
	pl->gid = (gid_t)u32;
	if ((r = take_path(c, "home", &pl->home)) != 0 ||
	    (r = take(c, "service", &pl->service)) != 0 ||
	    (r = take(c, "tty", &pl->tty)) != 0 ||
	    (r = take(c, "rhost", &pl->rhost)) != 0 ||
	    (r = take_u32(c, "audit_session", UINT32_MAX, &pl->audit_session)) != 0 ||
	    (r = take_u64(c, "ns_mnt", UINT64_MAX, &pl->ns_mnt)) != 0 ||
	    (r = take_u64(c, "ns_pid", UINT64_MAX, &pl->ns_pid)) != 0 ||
	    (r = take_u64(c, "ns_net", UINT64_MAX, &pl->ns_net)) != 0 ||
	    (r = take_u64(c, "ns_ipc", UINT64_MAX, &pl->ns_ipc)) != 0 ||
	    (r = take_u64(c, "ns_uts", UINT64_MAX, &pl->ns_uts)) != 0 ||
	    (r = take_u64(c, "started", UINT64_MAX, &pl->started)) != 0 ||
	    (r = take_u32(c, "masks", UINT32_MAX, &pl->masks)) != 0 ||
	    (r = take_u32(c, "protects", UINT32_MAX, &pl->protects)) != 0 ||
	    (r = take_digest(c, p->digest)) != 0)
		return r;
	if ((r = take_keys(c, p, 0)) != 0 || (r = take_keys(c, p, 1)) != 0 ||
	    (r = take_creds(c, p)) != 0)
		return r;
	if (!proxy_ok(p))
		return -EINVAL;
	if (p->project.n == 0)
		return -EINVAL;	/* [0] is the login cwd: a plan without one is not a plan */
	return 0;
}

int
ab_plan_parse(const char *buf, size_t len, struct ab_plan **out)
{
	struct cur c = { buf, len, 0 };
	struct ab_plan *pl;
	int r;

	*out = NULL;
	/* A NUL anywhere would make the C strings below disagree with the bytes. */
	if (buf == NULL || memchr(buf, '\0', len) != NULL)
		return -EINVAL;
	if (len < sizeof(PLAN_MAGIC) || memcmp(buf, PLAN_MAGIC "\n", sizeof(PLAN_MAGIC)) != 0)
		return -EINVAL;
	c.pos = sizeof(PLAN_MAGIC);
	if ((pl = calloc(1, sizeof(*pl))) == NULL)
		return -ENOMEM;
	if ((pl->policy = calloc(1, sizeof(*pl->policy))) == NULL) {
		free(pl);
		return -ENOMEM;
	}
	if ((r = read_plan(&c, pl)) != 0)
		goto fail;
	/* "end" and nothing after it. */
	if (c.n - c.pos != 4 || memcmp(c.b + c.pos, "end\n", 4) != 0) {
		r = -EINVAL;
		goto fail;
	}
	*out = pl;
	return 0;
fail:
	ab_plan_free(pl);
	return r;
}

void
ab_plan_free(struct ab_plan *plan)
{
	if (plan == NULL)
		return;
	ab_policy_free(plan->policy);
	free(plan->home);
	free(plan->service);
	free(plan->tty);
	free(plan->rhost);
	free(plan);
}
