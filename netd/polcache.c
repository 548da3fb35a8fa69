/*
 * netd/polcache.c: the last policy the loader sent for each user, by digest.
 *
 * Why: every proxy-mode login waited for a round trip to the loader, a process of its
 * own that parses and compiles the whole policy set again (loader.c), although the PAM
 * module sends the digest of the policy it confined the session with.  The digest is
 * the SHA-256 of the user's compiled policy, so a login whose digest is the one cached
 * would get the same lists from the loader: it is served from here.  A changed policy
 * has another digest: a miss, the loader asked as before, and its answer, once it is
 * the login's, replaces the entry.  Never a secret: the credential lines name files,
 * which the daemon reads for each session itself (session.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "polcache.h"

struct entry {
	char		user[AB_NETD_USER_MAX + 1];	/* "" : a free slot */
	char		digest[65];
	uint64_t	used;				/* the tick of its last hit */
	struct ab_netd_pol pol;
};

struct ab_netd_polcache {
	struct entry	e[AB_NETD_POLCACHE_MAX];
	uint64_t	tick;
};

int
ab_netd_polcache_new(struct ab_netd_polcache **out)
{
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return -ENOMEM;
	return 0;
}

void
ab_netd_pol_free(struct ab_netd_pol *p)
{
	ab_strv_free(&p->allow);
	ab_strv_free(&p->deny);
	ab_strv_free(&p->priv);
	ab_strv_free(&p->creds);
	memset(p, 0, sizeof(*p));
}

void
ab_netd_polcache_free(struct ab_netd_polcache *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < AB_NETD_POLCACHE_MAX; i++)
		ab_netd_pol_free(&c->e[i].pol);
	free(c);
}

/* A copy of FROM into TO (zeroed first): 0, or -ENOMEM with TO freed. */
static int
pol_copy(struct ab_netd_pol *to, const struct ab_netd_pol *from)
{
	memset(to, 0, sizeof(*to));
	to->learn = from->learn;
	if (ab_strv_append(&to->allow, &from->allow) != 0 ||
	    ab_strv_append(&to->deny, &from->deny) != 0 ||
	    ab_strv_append(&to->priv, &from->priv) != 0 ||
	    ab_strv_append(&to->creds, &from->creds) != 0) {
		ab_netd_pol_free(to);
		return -ENOMEM;
	}
	return 0;
}

static struct entry *
find(struct ab_netd_polcache *c, const char *user)
{
	size_t i;

	for (i = 0; i < AB_NETD_POLCACHE_MAX; i++)
		if (c->e[i].user[0] != '\0' && strcmp(c->e[i].user, user) == 0)
			return &c->e[i];
	return NULL;
}

int
ab_netd_polcache_get(struct ab_netd_polcache *c, const char *user, const char *digest,
		     struct ab_netd_pol *out)
{
	struct entry *e = find(c, user);
	int r;

	memset(out, 0, sizeof(*out));
	if (e == NULL || strcmp(e->digest, digest) != 0)
		return -ENOENT;
	if ((r = pol_copy(out, &e->pol)) != 0)
		return r;
	e->used = ++c->tick;
	return 0;
}

int
ab_netd_polcache_put(struct ab_netd_polcache *c, const char *user, const char *digest,
		     const struct ab_netd_pol *p)
{
	struct entry *e = find(c, user), *lru = &c->e[0];
	struct ab_netd_pol copy;
	size_t i;
	int r;

	if (strlen(user) > AB_NETD_USER_MAX || user[0] == '\0' || strlen(digest) != 64)
		return -EINVAL;
	if ((r = pol_copy(&copy, p)) != 0)
		return r;
	/* The user's own entry, else a free slot, else the least recently used. */
	for (i = 0; e == NULL && i < AB_NETD_POLCACHE_MAX; i++) {
		if (c->e[i].user[0] == '\0') {
			e = &c->e[i];
			break;
		}
		if (c->e[i].used < lru->used)
			lru = &c->e[i];
	}
	if (e == NULL)
		e = lru;
	ab_netd_pol_free(&e->pol);
	memcpy(e->user, user, strlen(user) + 1);
	memcpy(e->digest, digest, 65);
	e->pol = copy;
	e->used = ++c->tick;
	return 0;
}
