/* netd/polcache.c: the loader's last answer per user, served only for the same digest;
 * copies both ways; a user's new digest replaces its entry; full, the least recently
 * used goes. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "polcache.h"
#include "tap.h"

static char *allow_v[] = { "api.example.com:443" }, *cred_v[] = { "k\th\tx-api-key\t\t/f\tK" };

static void
digest_of(int n, char out[65])
{
	snprintf(out, 65, "%064d", n);
}

int
main(void)
{
	struct ab_netd_polcache *c;
	struct ab_netd_pol p = { .learn = true, .allow = { allow_v, 1 }, .creds = { cred_v, 1 } };
	struct ab_netd_pol got;
	char d1[65], d2[65], user[16];
	int i, hits;

	digest_of(1, d1);
	digest_of(2, d2);
	ok(ab_netd_polcache_new(&c) == 0, "a cache");
	ok(ab_netd_polcache_get(c, "agent", d1, &got) == -ENOENT, "empty: a miss");
	ok(ab_netd_polcache_put(c, "agent", d1, &p) == 0, "put agent's policy of digest 1");
	ok(ab_netd_polcache_get(c, "agent", d1, &got) == 0 && got.learn &&
	    got.allow.n == 1 && strcmp(got.allow.v[0], "api.example.com:443") == 0 &&
	    got.deny.n == 0 && got.priv.n == 0 && got.creds.n == 1 &&
	    strcmp(got.creds.v[0], cred_v[0]) == 0, "the same digest: a hit, every list");
	ok(got.allow.v[0] != allow_v[0], "a copy, not the caller's strings");
	ab_netd_pol_free(&got);
	ok(ab_netd_polcache_get(c, "agent", d2, &got) == -ENOENT,
	    "another digest (the policy changed): a miss");
	ok(ab_netd_polcache_get(c, "agent2", d1, &got) == -ENOENT, "another user: a miss");
	p.learn = false;
	ok(ab_netd_polcache_put(c, "agent", d2, &p) == 0 &&
	    ab_netd_polcache_get(c, "agent", d1, &got) == -ENOENT,
	    "the new digest replaces the user's entry");
	ok(ab_netd_polcache_get(c, "agent", d2, &got) == 0 && !got.learn, "and is served");
	ab_netd_pol_free(&got);
	ok(ab_netd_polcache_put(c, "", d1, &p) == -EINVAL, "no user name: refused");
	ok(ab_netd_polcache_put(c, "agent", "abc", &p) == -EINVAL, "a short digest: refused");
	ok(ab_netd_polcache_put(c, "a23456789012345678901234567890123", d1, &p) == -EINVAL,
	    "a user name longer than any valid one: refused");
	/* Full: the least recently used goes, a user just asked for stays. */
	for (i = 0; i < AB_NETD_POLCACHE_MAX - 1; i++) {
		snprintf(user, sizeof(user), "u%d", i);
		(void)ab_netd_polcache_put(c, user, d1, &p);
	}
	ok(ab_netd_polcache_get(c, "agent", d2, &got) == 0, "full: agent is still there");
	ab_netd_pol_free(&got);
	ok(ab_netd_polcache_put(c, "newcomer", d1, &p) == 0, "one more user");
	ok(ab_netd_polcache_get(c, "u0", d1, &got) == -ENOENT, "the least recently used went");
	ok(ab_netd_polcache_get(c, "agent", d2, &got) == 0, "the one asked for last stayed");
	ab_netd_pol_free(&got);
	for (i = 1, hits = 0; i < AB_NETD_POLCACHE_MAX - 1; i++) {
		snprintf(user, sizeof(user), "u%d", i);
		hits += ab_netd_polcache_get(c, user, d1, &got) == 0;
		ab_netd_pol_free(&got);
	}
	ok(hits == AB_NETD_POLCACHE_MAX - 2, "every other user stayed (%d)", hits);
	ab_netd_polcache_free(c);
	return done_testing();
}
