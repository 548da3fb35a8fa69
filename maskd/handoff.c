/*
 * The hand-off message (handoff.h): encoded by the PAM module, parsed by the daemon.
 * The daemon trusts its sender (root, checked by SO_PEERCRED) but still parses strictly:
 * a message it half understands would be a session it half enforces.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handoff.h"
#include "policy.h"

static int
put(char *buf, size_t len, size_t *off, const char *key, const char *val)
{
	int n;

	if (strchr(val, '\n') != NULL || val[0] == '\0')
		return -EINVAL;
	n = snprintf(buf + *off, len - *off, "%s %s\n", key, val);
	if (n < 0 || (size_t)n >= len - *off)
		return -E2BIG;
	*off += (size_t)n;
	return 0;
}

/* "KEY A B\n": two numbers. */
static int
put2(char *buf, size_t len, size_t *off, const char *key, const char *a, const char *b)
{
	int n = snprintf(buf + *off, len - *off, "%s %s %s\n", key, a, b);

	if (n < 0 || (size_t)n >= len - *off)
		return -E2BIG;
	*off += (size_t)n;
	return 0;
}

/* "KEY V" for each V of V; PATHS: each must be absolute. */
static int
put_each(char *buf, size_t len, size_t *off, const char *key, const struct ab_strv *v,
    int paths)
{
	size_t i;
	int r;

	for (i = 0; i < v->n; i++) {
		if (paths && v->v[i][0] != '/')
			return -EINVAL;
		if ((r = put(buf, len, off, key, v->v[i])) != 0)
			return r;
	}
	return 0;
}

static int
put_paths(char *buf, size_t len, size_t *off, const char *key, const struct ab_strv *v)
{
	return put_each(buf, len, off, key, v, 1);
}

/* The trees, as both messages carry them: "home" (at most once), then "project"s. */
static int
put_trees(char *buf, size_t len, size_t *off, const char *home, const struct ab_strv *projects)
{
	int r;

	if (home != NULL) {
		if (home[0] != '/')
			return -EINVAL;
		if ((r = put(buf, len, off, "home", home)) != 0)
			return r;
	}
	return put_paths(buf, len, off, "project", projects);
}

int
ab_maskd_open_encode(const struct ab_maskd_open *m, char *buf, size_t len, size_t *out)
{
	char num[2][16];
	size_t off = 0;
	int r;

	snprintf(num[0], sizeof(num[0]), "%u", m->ses);
	snprintf(num[1], sizeof(num[1]), "%u", m->uid);
	if ((r = put(buf, len, &off, "maskd", "1")) != 0 ||
	    (r = put(buf, len, &off, "ses", num[0])) != 0 ||
	    (r = put(buf, len, &off, "uid", num[1])) != 0)
		return r;
	if ((r = put_trees(buf, len, &off, m->home, &m->projects)) != 0 ||
	    (r = put_each(buf, len, &off, "pattern", &m->patterns, 0)) != 0)
		return r;
	if (m->policy[0] != '\0' && (r = put(buf, len, &off, "policy", m->policy)) != 0)
		return r;
	if (m->learn && ((r = put(buf, len, &off, "learn", "1")) != 0 ||
	    (r = put_paths(buf, len, &off, "read", &m->reads)) != 0 ||
	    (r = put_paths(buf, len, &off, "write", &m->writes)) != 0))
		return r;
	if (m->walked) {
		snprintf(num[0], sizeof(num[0]), "%u", m->walk_id);
		snprintf(num[1], sizeof(num[1]), "%u", m->walk_gen);
		if ((r = put2(buf, len, &off, "walked", num[0], num[1])) != 0 ||
		    (r = put_paths(buf, len, &off, "found", &m->found)) != 0 ||
		    (r = put_paths(buf, len, &off, "mount", &m->mounts)) != 0)
			return r;
	}
	*out = off;
	return 0;
}

void
ab_maskd_open_free(struct ab_maskd_open *m)
{
	free(m->home);
	ab_strv_free(&m->projects);
	ab_strv_free(&m->patterns);
	ab_strv_free(&m->reads);
	ab_strv_free(&m->writes);
	ab_strv_free(&m->found);
	ab_strv_free(&m->mounts);
	memset(m, 0, sizeof(*m));
}

/* A decimal uint32 that is all of S, no sign, no leading zero but "0". */
static int
u32(const char *s, uint32_t *out)
{
	unsigned long long v = 0;
	const char *p;

	if (s[0] == '\0' || (s[0] == '0' && s[1] != '\0'))
		return -EPROTO;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -EPROTO;
		v = v * 10 + (unsigned)(*p - '0');
		if (v > UINT32_MAX)
			return -EPROTO;
	}
	*out = (uint32_t)v;
	return 0;
}

/* "A B": two decimal uint32s, one space. */
static int
u32_pair(char *s, uint32_t *a, uint32_t *b)
{
	char *sp = strchr(s, ' ');
	int r;

	if (sp == NULL)
		return -EPROTO;
	*sp = '\0';
	r = u32(s, a);
	*sp = ' ';
	return r != 0 ? r : u32(sp + 1, b);
}

/* One "KEY VALUE" line into M; SEEN: bit 0 version, 1 ses, 2 uid, 3 learn, 4 walked. */
static int
line(char *l, struct ab_maskd_open *m, unsigned *seen)
{
	char *val = strchr(l, ' ');
	const char *why;

	if (val == NULL || val[1] == '\0')
		return -EPROTO;
	*val++ = '\0';
	if (*seen == 0)		/* the version line first: a future format is refused whole */
		return strcmp(l, "maskd") == 0 && strcmp(val, "1") == 0 ? (*seen = 1, 0) :
		    -EPROTO;
	if (strcmp(l, "ses") == 0 || strcmp(l, "uid") == 0) {
		unsigned bit = l[0] == 's' ? 2 : 4;

		if (*seen & bit)
			return -EPROTO;
		*seen |= bit;
		return u32(val, bit == 2 ? &m->ses : &m->uid);
	}
	if (strcmp(l, "home") == 0) {
		if (m->home != NULL)
			return -EPROTO;
		if (val[0] != '/')
			return -EINVAL;
		return (m->home = strdup(val)) == NULL ? -ENOMEM : 0;
	}
	if (strcmp(l, "project") == 0)
		return val[0] != '/' ? -EINVAL : ab_strv_push(&m->projects, val);
	if (strcmp(l, "pattern") == 0)
		return ab_pattern_valid(val, &why) != 0 ? -EINVAL : ab_strv_push(&m->patterns, val);
	if (strcmp(l, "policy") == 0) {
		if (m->policy[0] != '\0' || strlen(val) != AB_MASKD_POLICY_HEX ||
		    strspn(val, "0123456789abcdef") != AB_MASKD_POLICY_HEX)
			return -EPROTO;
		memcpy(m->policy, val, AB_MASKD_POLICY_HEX + 1);
		return 0;
	}
	if (strcmp(l, "learn") == 0) {
		if ((*seen & 8) || strcmp(val, "1") != 0)
			return -EPROTO;
		*seen |= 8;
		m->learn = 1;
		return 0;
	}
	/* The policy's read and write sets, which only a learning session's recorder asks. */
	if (strcmp(l, "read") == 0 || strcmp(l, "write") == 0) {
		if (!(*seen & 8))
			return -EPROTO;
		if (val[0] != '/')
			return -EINVAL;
		return ab_strv_push(l[0] == 'r' ? &m->reads : &m->writes, val);
	}
	/* A walk plan's report: once, its found directories after it. */
	if (strcmp(l, "walked") == 0) {
		if (*seen & 16)
			return -EPROTO;
		*seen |= 16;
		m->walked = 1;
		return u32_pair(val, &m->walk_id, &m->walk_gen);
	}
	if (strcmp(l, "found") == 0 || strcmp(l, "mount") == 0) {
		if (!(*seen & 16))
			return -EPROTO;
		if (val[0] != '/')
			return -EINVAL;
		return ab_strv_push(l[0] == 'f' ? &m->found : &m->mounts, val);
	}
	return -EPROTO;
}

/* Each '\n'-terminated line of BUF[0..LEN) (no NUL in it) to FN, in order. */
static int
each_line(const char *buf, size_t len, size_t max, int (*fn)(char *, void *), void *arg)
{
	char *copy, *l, *nl;
	int r = 0;

	if (len == 0 || len > max || memchr(buf, '\0', len) != NULL || buf[len - 1] != '\n')
		return -EPROTO;
	if ((copy = malloc(len + 1)) == NULL)
		return -ENOMEM;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	for (l = copy; r == 0 && *l != '\0'; l = nl + 1) {
		nl = strchr(l, '\n');	/* there is one: the buffer ends in '\n' */
		*nl = '\0';
		r = fn(l, arg);
	}
	free(copy);
	return r;
}

struct open_parse {
	struct ab_maskd_open	*m;
	unsigned		 seen;
};

static int
open_line(char *l, void *arg)
{
	struct open_parse *p = arg;

	return line(l, p->m, &p->seen);
}

int
ab_maskd_open_parse(const char *buf, size_t len, struct ab_maskd_open *m)
{
	struct open_parse p = { m, 0 };
	int r;

	memset(m, 0, sizeof(*m));
	r = each_line(buf, len, AB_MASKD_MSG_MAX, open_line, &p);
	/* A session with nothing to mask is handed over only to learn. */
	if (r == 0 && ((p.seen & 7) != 7 || (m->patterns.n == 0 && !m->learn)))
		r = -EPROTO;
	return r;
}

/* ---- the walk plan ---- */

int
ab_walkplan_req_encode(const struct ab_walkplan_req *q, char *buf, size_t len, size_t *out)
{
	char num[16];
	size_t off = 0;
	int r;

	snprintf(num, sizeof(num), "%u", q->uid);
	if ((r = put(buf, len, &off, "walkplan", "1")) != 0 ||
	    (r = put(buf, len, &off, "uid", num)) != 0)
		return r;
	if ((r = put_trees(buf, len, &off, q->home, &q->projects)) != 0 ||
	    (r = put_each(buf, len, &off, "mask", &q->masks, 0)) != 0 ||
	    (r = put_each(buf, len, &off, "protect", &q->protects, 0)) != 0)
		return r;
	*out = off;
	return 0;
}

void
ab_walkplan_req_free(struct ab_walkplan_req *q)
{
	free(q->home);
	ab_strv_free(&q->projects);
	ab_strv_free(&q->masks);
	ab_strv_free(&q->protects);
	memset(q, 0, sizeof(*q));
}

struct req_parse {
	struct ab_walkplan_req	*q;
	unsigned		 seen;	/* bit 0 version, 1 uid */
};

static int
req_line(char *l, void *arg)
{
	struct req_parse *p = arg;
	char *val = strchr(l, ' ');
	const char *why;

	if (val == NULL || val[1] == '\0')
		return -EPROTO;
	*val++ = '\0';
	if (p->seen == 0)
		return strcmp(l, "walkplan") == 0 && strcmp(val, "1") == 0 ?
		    (p->seen = 1, 0) : -EPROTO;
	if (strcmp(l, "uid") == 0) {
		if (p->seen & 2)
			return -EPROTO;
		p->seen |= 2;
		return u32(val, &p->q->uid);
	}
	if (strcmp(l, "home") == 0) {
		if (p->q->home != NULL)
			return -EPROTO;
		if (val[0] != '/')
			return -EINVAL;
		return (p->q->home = strdup(val)) == NULL ? -ENOMEM : 0;
	}
	if (strcmp(l, "project") == 0)
		return val[0] != '/' ? -EINVAL : ab_strv_push(&p->q->projects, val);
	if (strcmp(l, "mask") == 0 || strcmp(l, "protect") == 0)
		return ab_pattern_valid(val, &why) != 0 ? -EINVAL :
		    ab_strv_push(l[0] == 'm' ? &p->q->masks : &p->q->protects, val);
	return -EPROTO;
}

int
ab_walkplan_req_parse(const char *buf, size_t len, struct ab_walkplan_req *q)
{
	struct req_parse p = { q, 0 };
	int r;

	memset(q, 0, sizeof(*q));
	r = each_line(buf, len, AB_MASKD_MSG_MAX, req_line, &p);
	if (r == 0 && (p.seen & 3) != 3)
		r = -EPROTO;
	return r;
}

/* An absolute, normal path: "/", or "/a/b" without "//", "." or ".." components. */
static int
normal_path(const char *s)
{
	const char *c = s;

	if (s[0] != '/')
		return 0;
	if (s[1] == '\0')
		return 1;
	while (*c == '/') {
		const char *end = strchrnul(c + 1, '/');
		size_t n = (size_t)(end - c - 1);

		if (n == 0 || (n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			return 0;
		c = end;
	}
	return 1;
}

struct reply_parse {
	struct ab_walkplan_reply	*p;
	int				 first;
};

static int
reply_line(char *l, void *arg)
{
	struct reply_parse *rp = arg;
	char *val = strchr(l, ' ');

	if (val == NULL || val[1] == '\0')
		return -EPROTO;
	*val++ = '\0';
	if (rp->first) {
		rp->first = 0;
		if (strcmp(l, "plan") != 0 && strcmp(l, "walk") != 0)
			return -EPROTO;
		rp->p->prune = l[0] == 'p';
		return u32_pair(val, &rp->p->id, &rp->p->gen);
	}
	if (!rp->p->prune || (strcmp(l, "dir") != 0 && strcmp(l, "full") != 0))
		return -EPROTO;
	if (!normal_path(val))
		return -EPROTO;
	if (rp->p->dirs.n + rp->p->fulls.n >= AB_WALKPLAN_DIRS_MAX)
		return -EPROTO;
	return ab_strv_push(l[0] == 'd' ? &rp->p->dirs : &rp->p->fulls, val);
}

int
ab_walkplan_reply_parse(const char *buf, size_t len, struct ab_walkplan_reply *p)
{
	struct reply_parse rp = { p, 1 };
	int r;

	memset(p, 0, sizeof(*p));
	if ((r = each_line(buf, len, AB_WALKPLAN_REPLY_MAX, reply_line, &rp)) != 0)
		return r;
	ab_strv_sort(&p->dirs);
	ab_strv_sort(&p->fulls);
	return 0;
}

void
ab_walkplan_reply_free(struct ab_walkplan_reply *p)
{
	ab_strv_free(&p->dirs);
	ab_strv_free(&p->fulls);
	memset(p, 0, sizeof(*p));
}
