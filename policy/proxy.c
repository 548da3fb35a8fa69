/*
 * `network = proxy` in the policy language: the allow_host / deny_host / allow_private /
 * credential keys, the [hosts:NAME] sets that "@NAME" stands for, and the
 * [credential:NAME] sections.  parse.c reads and merges every key; this file checks the
 * values of these (with netd/'s own parsers, so the policy and agentbox-netd agree on
 * one syntax: pure code, no libpsl, since the PAM module loads the policy at every
 * login), the sections as a whole, and expands them into a user's struct ab_policy.
 *
 * Sets do not nest: "@NAME" inside a [hosts:NAME] is refused, so an expansion is one
 * level deep, never recursive, and each set is expanded at most once per list (a
 * hostile policy repeating "@big" cannot multiply its size).
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "host.h"
#include "pset.h"

/* ---- values ---- */

/* A host rule as netd/host.c takes it, or "@NAME" where sets may be named. */
static const char *
host_rule(char *v, bool set_ok)
{
	struct ab_netd_rule rule;
	const char *why;

	if (v[0] == '@') {
		if (!set_ok)
			return "a [hosts:NAME] set cannot name another set (sets do not nest)";
		return ab_set_name_valid(v + 1) ? NULL : "not @NAME of a [hosts:NAME] set";
	}
	return ab_netd_rule_parse(v, false, &rule, &why) == 0 ? NULL : why;
}

/* Drop the quotes of "TEXT" (how a prefix keeps its trailing blank past inih). */
static void
unquote(char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		memmove(v, v + 1, n - 2);
		v[n - 2] = '\0';
	}
}

/* An absolute path without blanks, "." or ".." components. */
static bool
cred_path_ok(const char *v)
{
	return v[0] == '/' && strstr(v, "/./") == NULL && strstr(v, "/../") == NULL &&
	    (strlen(v) < 2 || strcmp(v + strlen(v) - 2, "/.") != 0) &&
	    (strlen(v) < 3 || strcmp(v + strlen(v) - 3, "/..") != 0) &&
	    strlen(v) < 4096;
}

static const char *
cred_value(enum ab_key k, char *v)
{
	struct ab_netd_host h;

	if (k == AB_KEY_CRED_PREFIX) {
		unquote(v);
		return ab_cred_prefix_valid(v) ? NULL :
		    "is not printable ASCII of at most 64 bytes (quote it to keep blanks)";
	}
	if (strpbrk(v, " \t") != NULL)
		return "takes one value";
	switch (k) {
	case AB_KEY_CRED_HOST:
		if (ab_netd_host_parse(v, strlen(v), &h) != 0 || h.kind != AB_NETD_HOST_NAME)
			return "is not a host name (the gateway checks its TLS certificate)";
		strcpy(v, h.text);	/* lower case, no final dot: never longer */
		return NULL;
	case AB_KEY_CRED_HEADER:
		return ab_header_name_valid(v) ? NULL : "is not an HTTP header name";
	case AB_KEY_CRED_FILE:
		return cred_path_ok(v) ? NULL :
		    "is not an absolute path (without '.' or '..' components)";
	case AB_KEY_CRED_ENV:
	case AB_KEY_CRED_BASE_URL_ENV:
		return ab_env_name_valid(v) ? NULL : "is not a valid variable name";
	case AB_KEY_CRED_BASE_PATH:
		return ab_url_path_valid(v) ? NULL :
		    "is not a URL path ('/' then letters, digits and -._~!$&'()*+,;=:@/)";
	default:
		return "is not a credential key";
	}
}

const char *
ab_proxy_value(enum ab_key k, char *v)
{
	struct ab_netd_cidr cidr;

	switch (ab_policy_key(k)->kind) {
	case AB_KIND_HOSTS:
		return host_rule(v, true);
	case AB_KIND_SET:
		return host_rule(v, false);
	case AB_KIND_CIDRS:
		return ab_netd_cidr_parse(v, &cidr) == 0 ? NULL :
		    "is not ADDRESS/LENGTH (no host bits set, IPv4 written as IPv4)";
	case AB_KIND_NAMES:
		return ab_set_name_valid(v) ? NULL : "is not a [credential:NAME] name";
	case AB_KIND_CRED:
		return cred_value(k, v);
	default:
		return "is not a network = proxy key";
	}
}

/* ---- sections ---- */

static const char *
kind_word(unsigned int skind)
{
	return skind == AB_SECT_HOSTS ? "hosts" : "credential";
}

static struct entry *
ent(const struct ab_pset *ps, const struct ab_psect *s, size_t i)
{
	return &ps->e[s->idx[i]];
}

/* One header per name (a set split over files would depend on file names), and for a
 * set at least one host. */
static void
check_headers(struct ab_pset *ps, const struct ab_psect *s)
{
	const struct entry *first = ent(ps, s, 0), *e;
	size_t i, nhost = 0;

	for (i = 1; i < s->n; i++) {
		e = ent(ps, s, i);
		nhost += e->key == AB_KEY_SET_HOST;
		if (e->key == KEY_SECTION)
			ab_pset_fail(ps, -EINVAL, "%s:%u: [%s:%s] again (first at %s:%u); one "
			    "section per name", ps->files[e->file], e->line,
			    kind_word(e->skind), s->name, ps->files[first->file], first->line);
	}
	if (first->skind == AB_SECT_HOSTS && nhost == 0)
		ab_pset_fail(ps, -EINVAL, "%s:%u: [hosts:%s] has no host (an empty set "
		    "allows nothing: remove it or add host = HOST)", ps->files[first->file],
		    first->line, s->name);
}

/* A credential's keys: each at most once, the required ones present. */
static void
check_cred(struct ab_pset *ps, const struct ab_psect *s)
{
	const struct entry *hdr = ent(ps, s, 0), *seen[AB_KEY_N] = { NULL }, *e;
	uint32_t k;
	size_t i;

	for (i = 1; i < s->n; i++) {
		e = ent(ps, s, i);
		if (e->key >= AB_KEY_N)
			continue;
		if (seen[e->key] != NULL)
			ab_pset_fail(ps, -EINVAL, "%s:%u: %s given twice in [credential:%s] "
			    "(first at line %u)", ps->files[e->file], e->line,
			    ab_policy_key(e->key)->name, s->name, seen[e->key]->line);
		else
			seen[e->key] = e;
	}
	for (k = 0; k < AB_KEY_N; k++)
		if (ab_policy_key(k)->kind == AB_KIND_CRED &&
		    ab_cred_key_required((enum ab_key)k) && seen[k] == NULL)
			ab_pset_fail(ps, -EINVAL, "%s:%u: [credential:%s] has no %s (required)",
			    ps->files[hdr->file], hdr->line, s->name, ab_policy_key(k)->name);
}

/* Append S to V (N used, *CAP allocated), doubling: a hostile 4 MiB policy can hold a
 * hundred thousand sections, and growing by one would copy quadratically. */
static int
push_sect(struct ab_psect **v, size_t *n, size_t *cap, const struct ab_psect *s)
{
	struct ab_psect *nv;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;

		if ((nv = reallocarray(*v, c, sizeof(**v))) == NULL)
			return -ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = *s;
	return 0;
}

int
ab_proxy_collect(struct ab_pset *ps, const size_t *idx, size_t n, struct ab_proxy *px)
{
	size_t a, b, capsets = 0, capcreds = 0;
	int r;

	for (a = 0; a < n; a = b) {
		const struct entry *e = &ps->e[idx[a]];
		struct ab_psect s = { e->sect, idx + a, 0 };

		for (b = a + 1; b < n && ps->e[idx[b]].skind == e->skind &&
		    (e->sect == NULL) == (ps->e[idx[b]].sect == NULL) &&
		    (e->sect == NULL || strcmp(ps->e[idx[b]].sect, e->sect) == 0); b++)
			;
		s.n = b - a;
		if (e->skind != AB_SECT_HOSTS && e->skind != AB_SECT_CRED)
			continue;
		check_headers(ps, &s);
		if (e->skind == AB_SECT_CRED)
			check_cred(ps, &s);
		r = e->skind == AB_SECT_HOSTS ? push_sect(&px->sets, &px->nsets, &capsets, &s) :
		    push_sect(&px->creds, &px->ncreds, &capcreds, &s);
		if (r != 0)
			return r;
	}
	return 0;
}

void
ab_proxy_free(struct ab_proxy *px)
{
	free(px->sets);
	free(px->creds);
	*px = (struct ab_proxy){ 0 };
}

static int
sect_name_cmp(const void *key, const void *elt)
{
	return strcmp(key, ((const struct ab_psect *)elt)->name);
}

/* The section called NAME (sorted by name: entry_cmp), or NULL. */
static const struct ab_psect *
find(const struct ab_psect *v, size_t n, const char *name)
{
	return n == 0 ? NULL : bsearch(name, v, n, sizeof(*v), sect_name_cmp);
}

void
ab_proxy_check_refs(struct ab_pset *ps, const struct ab_proxy *px)
{
	const struct entry *e;
	size_t i;

	for (i = 0; i < ps->n; i++) {
		e = &ps->e[i];
		if ((e->key == AB_KEY_ALLOW_HOST || e->key == AB_KEY_DENY_HOST) &&
		    e->val[0] == '@' && find(px->sets, px->nsets, e->val + 1) == NULL)
			ab_pset_fail(ps, -EINVAL, "%s:%u: %s: '%s': no [hosts:%s] section",
			    ps->files[e->file], e->line, ab_policy_key(e->key)->name, e->val,
			    e->val + 1);
		if (e->key == AB_KEY_CREDENTIAL && find(px->creds, px->ncreds, e->val) == NULL)
			ab_pset_fail(ps, -EINVAL, "%s:%u: credential: '%s': no [credential:%s] "
			    "section", ps->files[e->file], e->line, e->val, e->val);
	}
}

/* ---- one user ---- */

/* The entries of a user's policy, defaults first: E(0 .. nd + nu). */
struct merged {
	const struct ab_pset	*ps;
	const size_t		*dflt, *usr;
	size_t			 nd, nu;
};

static const struct entry *
at(const struct merged *m, size_t i)
{
	return &m->ps->e[i < m->nd ? m->dflt[i] : m->usr[i - m->nd]];
}

static bool
is_proxy_key(uint32_t k)
{
	return k == AB_KEY_ALLOW_HOST || k == AB_KEY_DENY_HOST || k == AB_KEY_ALLOW_PRIVATE ||
	    k == AB_KEY_CREDENTIAL;
}

/* The proxy keys only mean something with network = proxy: anywhere else they would
 * look like a restriction that nothing enforces. */
static void
check_mode(struct ab_pset *ps, const struct merged *m, const char *user)
{
	const char *net = "none";
	const struct entry *e;
	size_t i;

	for (i = 0; i < m->nd + m->nu; i++)
		if (at(m, i)->key == AB_KEY_NETWORK)
			net = at(m, i)->val;	/* the user's last, else the defaults' */
	if (strcmp(net, ab_network_name(AB_NET_PROXY)) == 0)
		return;
	for (i = 0; i < m->nd + m->nu; i++) {
		e = at(m, i);
		if (!is_proxy_key(e->key))
			continue;
		ab_pset_fail(ps, -EINVAL, "%s:%u: %s needs network = proxy ([user:%s] has "
		    "network = %s)", ps->files[e->file], e->line, ab_policy_key(e->key)->name,
		    user, net);
		return;
	}
}

/* The value of KEY in credential section S, or NULL. */
static const char *
cred_get(const struct ab_pset *ps, const struct ab_psect *s, uint32_t key)
{
	size_t i;

	for (i = 1; i < s->n; i++)
		if (ent(ps, s, i)->key == key)
			return ent(ps, s, i)->val;
	return NULL;
}

/* At most AB_CRED_MAX distinct credentials, and no variable set by two of them. */
static void
check_creds(struct ab_pset *ps, const struct ab_proxy *px, const struct merged *m,
    const char *user)
{
	const struct ab_psect *c[AB_CRED_MAX];
	const char *vars[2 * AB_CRED_MAX], *v;
	size_t i, j, nc = 0, nv = 0;

	for (i = 0; i < m->nd + m->nu; i++) {
		const struct entry *e = at(m, i);
		const struct ab_psect *s;

		if (e->key != AB_KEY_CREDENTIAL || (s = find(px->creds, px->ncreds, e->val)) == NULL)
			continue;
		for (j = 0; j < nc && c[j] != s; j++)
			;
		if (j < nc)
			continue;
		if (nc == AB_CRED_MAX) {
			ab_pset_fail(ps, -EINVAL, "%s:%u: credential: [user:%s] has more than %d "
			    "credentials", ps->files[e->file], e->line, user, AB_CRED_MAX);
			return;
		}
		c[nc++] = s;
		for (j = 0; j < 2; j++) {
			v = cred_get(ps, s, j == 0 ? AB_KEY_CRED_ENV : AB_KEY_CRED_BASE_URL_ENV);
			for (size_t k = 0; v != NULL && k < nv; k++)
				if (strcmp(vars[k], v) == 0) {
					ab_pset_fail(ps, -EINVAL, "%s:%u: credential: '%s' sets %s, "
					    "which another credential of [user:%s] sets too",
					    ps->files[e->file], e->line, e->val, v, user);
					v = NULL;
				}
			if (v != NULL)
				vars[nv++] = v;
		}
	}
}

void
ab_proxy_check_user(struct ab_pset *ps, const struct ab_proxy *px, const size_t *dflt,
    size_t nd, const size_t *usr, size_t nu, const char *user)
{
	const struct merged m = { ps, dflt, usr, nd, nu };

	check_mode(ps, &m, user);
	check_creds(ps, px, &m, user);
}

/* ---- building ---- */

/* Append RULE, written at E, to LIST and its "FILE:LINE" to SRC. */
static int
push_rule(const struct ab_pset *ps, const struct entry *e, struct ab_strv *list,
    struct ab_strv *src)
{
	char *where;
	int r;

	if (asprintf(&where, "%s:%u", ps->files[e->file], e->line) < 0)
		return -ENOMEM;
	if ((r = ab_strv_push(list, e->val)) == 0 && (r = ab_strv_push(src, where)) != 0) {
		free(list->v[--list->n]);
		list->v[list->n] = NULL;
	}
	free(where);
	return r;
}

/* KEY's rules, "@NAME" replaced in place by the set's hosts (each set once). */
static int
expand(const struct merged *m, const struct ab_proxy *px, uint32_t key,
    struct ab_strv *list, struct ab_strv *src)
{
	unsigned char *done;
	size_t i, j;
	int r = 0;

	if ((done = calloc(px->nsets + 1, 1)) == NULL)
		return -ENOMEM;
	for (i = 0; r == 0 && i < m->nd + m->nu; i++) {
		const struct entry *e = at(m, i);
		const struct ab_psect *s;

		if (e->key != key)
			continue;
		if (e->val[0] != '@') {
			r = push_rule(m->ps, e, list, src);
			continue;
		}
		/* An unknown set was reported (ab_proxy_check_refs): the load fails. */
		if ((s = find(px->sets, px->nsets, e->val + 1)) == NULL || done[s - px->sets])
			continue;
		done[s - px->sets] = 1;
		for (j = 1; r == 0 && j < s->n; j++)
			if (ent(m->ps, s, j)->key == AB_KEY_SET_HOST)
				r = push_rule(m->ps, ent(m->ps, s, j), list, src);
	}
	free(done);
	return r;
}

int
ab_proxy_build(const struct ab_pset *ps, const struct ab_proxy *px, const size_t *dflt,
    size_t nd, const size_t *usr, size_t nu, struct ab_policy *p)
{
	const struct merged m = { ps, dflt, usr, nd, nu };
	int r;

	if ((r = expand(&m, px, AB_KEY_ALLOW_HOST, &p->allow_host, &p->allow_host_src)) != 0)
		return r;
	return expand(&m, px, AB_KEY_DENY_HOST, &p->deny_host, &p->deny_host_src);
}

/* Credential section S as a struct ab_cred. */
static int
build_cred(const struct ab_pset *ps, const struct ab_psect *s, struct ab_cred *c)
{
	const struct entry *e;
	size_t i;

	if ((c->name = strdup(s->name)) == NULL)
		return -ENOMEM;
	for (i = 1; i < s->n; i++) {
		char **field = NULL;

		e = ent(ps, s, i);
		switch (e->key) {
#define FIELD(ID, NAME, KIND, MEMBER, ...) case AB_KEY_##ID: field = &c->MEMBER; break;
		AB_CRED_KEYS(FIELD)
#undef FIELD
		default:
			continue;
		}
		free(*field);
		if ((*field = strdup(e->val)) == NULL)
			return -ENOMEM;
	}
	return 0;
}

int
ab_proxy_build_creds(const struct ab_pset *ps, const struct ab_proxy *px,
    struct ab_policy *p)
{
	const struct ab_psect *s;
	size_t i;
	int r;

	if (p->credential.n == 0)
		return 0;
	if ((p->creds = calloc(p->credential.n, sizeof(*p->creds))) == NULL)
		return -ENOMEM;
	for (i = 0; i < p->credential.n; i++) {
		/* An unknown name was reported (ab_proxy_check_refs): the load fails. */
		if ((s = find(px->creds, px->ncreds, p->credential.v[i])) == NULL)
			return -EINVAL;
		p->ncreds++;
		if ((r = build_cred(ps, s, &p->creds[p->ncreds - 1])) != 0)
			return r;
	}
	return 0;
}
