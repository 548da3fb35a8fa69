/*
 * netd/polcache.h: the loader's last answer for each user, by policy digest
 * (polcache.c).
 */
#ifndef AB_NETD_POLCACHE_H
#define AB_NETD_POLCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "abutil.h"

#define AB_NETD_POLCACHE_MAX	64	/* users remembered; the least recently used goes */

/* One user's policy as the loader sent it: never a secret (session.c). */
struct ab_netd_pol {
	bool		learn;
	struct ab_strv	allow, deny, priv, creds;
};

struct ab_netd_polcache;

int	ab_netd_polcache_new(struct ab_netd_polcache **out);
void	ab_netd_polcache_free(struct ab_netd_polcache *c);
/*
 * USER's policy if the one cached has DIGEST (64 hex digits): copied into OUT (zeroed
 * first; the caller frees its lists with ab_netd_pol_free).  0 on a hit, -ENOENT on a
 * miss, -ENOMEM (OUT freed).
 */
int	ab_netd_polcache_get(struct ab_netd_polcache *c, const char *user, const char *digest,
			     struct ab_netd_pol *out);
/* Remember a copy of P as USER's policy of DIGEST.  0, or -ENOMEM / -EINVAL (a user
 * name or digest too long), the cache as it was. */
int	ab_netd_polcache_put(struct ab_netd_polcache *c, const char *user, const char *digest,
			     const struct ab_netd_pol *p);
void	ab_netd_pol_free(struct ab_netd_pol *p);

#endif /* AB_NETD_POLCACHE_H */
