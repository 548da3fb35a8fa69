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

static int
put_paths(char *buf, size_t len, size_t *off, const char *key, const struct ab_strv *v)
{
	size_t i;
	int r;

	for (i = 0; i < v->n; i++) {
		if (v->v[i][0] != '/')
			return -EINVAL;
		if ((r = put(buf, len, off, key, v->v[i])) != 0)
			return r;
	}
	return 0;
}

int
ab_maskd_open_encode(const struct ab_maskd_open *m, char *buf, size_t len, size_t *out)
{
	char num[2][16];
	size_t i, off = 0;
	int r;

	snprintf(num[0], sizeof(num[0]), "%u", m->ses);
	snprintf(num[1], sizeof(num[1]), "%u", m->uid);
	if ((r = put(buf, len, &off, "maskd", "1")) != 0 ||
	    (r = put(buf, len, &off, "ses", num[0])) != 0 ||
	    (r = put(buf, len, &off, "uid", num[1])) != 0)
		return r;
	if (m->home != NULL && (m->home[0] != '/' ||
	    (r = put(buf, len, &off, "home", m->home)) != 0))
		return m->home[0] != '/' ? -EINVAL : r;
	for (i = 0; i < m->projects.n; i++) {
		if (m->projects.v[i][0] != '/')
			return -EINVAL;
		if ((r = put(buf, len, &off, "project", m->projects.v[i])) != 0)
			return r;
	}
	for (i = 0; i < m->patterns.n; i++)
		if ((r = put(buf, len, &off, "pattern", m->patterns.v[i])) != 0)
			return r;
	if (m->learn && ((r = put(buf, len, &off, "learn", "1")) != 0 ||
	    (r = put_paths(buf, len, &off, "read", &m->reads)) != 0 ||
	    (r = put_paths(buf, len, &off, "write", &m->writes)) != 0))
		return r;
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

/* One "KEY VALUE" line into M; SEEN: bit 0 version, 1 ses, 2 uid, 3 learn. */
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
	return -EPROTO;
}

int
ab_maskd_open_parse(const char *buf, size_t len, struct ab_maskd_open *m)
{
	unsigned seen = 0;
	char *copy, *l, *nl;
	int r = 0;

	memset(m, 0, sizeof(*m));
	if (len == 0 || len > AB_MASKD_MSG_MAX || memchr(buf, '\0', len) != NULL ||
	    buf[len - 1] != '\n')
		return -EPROTO;
	if ((copy = malloc(len + 1)) == NULL)
		return -ENOMEM;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	for (l = copy; r == 0 && *l != '\0'; l = nl + 1) {
		nl = strchr(l, '\n');	/* there is one: the buffer ends in '\n' */
		*nl = '\0';
		r = line(l, m, &seen);
	}
	free(copy);
	/* A session with nothing to mask is handed over only to learn. */
	if (r == 0 && ((seen & 7) != 7 || (m->patterns.n == 0 && !m->learn)))
		r = -EPROTO;
	return r;
}
