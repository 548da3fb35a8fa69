/*
 * The policy set being compiled, shared by parse.c (reading, merging) and proxy.c (the
 * `network = proxy` sections and keys).  Private to policy/.
 */
#ifndef AB_POLICY_PSET_H
#define AB_POLICY_PSET_H

#include <stdint.h>
#include "internal.h"

/* The keys are AB_POLICY_KEYS (internal.h); entries also record section headers. */
#define KEY_SECTION	AB_KEY_N	/* a section header, by line */

/* One validated item: a list element or a scalar value, normalised. */
struct entry {
	const char	*sect;	/* section name (owned by its KEY_SECTION entry), NULL = defaults */
	unsigned int	 skind;	/* AB_SECT_* of the section */
	char		*val;	/* normalised value; for KEY_SECTION the user name or NULL */
	uint32_t	 file, line;
	uint32_t	 key;
	int		 unusable;	/* a project whose directory is not there as written:
					 * kept so the section still "has a project", never
					 * built into a policy */
};

struct ab_pset {
	struct ab_diag	*diag;
	const char	*user;		/* loading for this user only; NULL = check all */
	size_t		 nerr;		/* problems found, whether or not diag kept them */
	int		 err;		/* first error that is not a policy error */
	char		**files;	/* display names, by file index */
	size_t		 nfiles;
	struct entry	*e;
	size_t		 n, cap;
};


/* Which [hosts:NAME] or [credential:NAME] sections there are: one per name, each with
 * its entries (IDX into the sorted index, header first), sorted by name. */
struct ab_psect {
	const char	*name;
	const size_t	*idx;
	size_t		 n;
};
struct ab_proxy {
	struct ab_psect	*sets, *creds;
	size_t		 nsets, ncreds;
};

/*
 * The value V of proxy key K (a host rule, "@NAME", a CIDR, a credential name or a
 * [credential:NAME] value), checked and normalised in place.  NULL when valid, else why
 * not (a static phrase).
 */
const char *ab_proxy_value(enum ab_key k, char *v);
/* Collect and check the sections of IDX[0, N) (sorted: entry_cmp), those of kinds other
 * than hosts and credential skipped.  0 or -ENOMEM; problems go to PS. */
int	ab_proxy_collect(struct ab_pset *ps, const size_t *idx, size_t n, struct ab_proxy *px);
void	ab_proxy_free(struct ab_proxy *px);
/* Every "@NAME" and credential name resolves, no set includes itself. */
void	ab_proxy_check_refs(struct ab_pset *ps, const struct ab_proxy *px);
/* One user's merged proxy keys (DFLT then USR entries): network = proxy if any is
 * used, at most AB_CRED_MAX credentials, their variables distinct.  USER names it. */
void	ab_proxy_check_user(struct ab_pset *ps, const struct ab_proxy *px, const size_t *dflt,
	    size_t nd, const size_t *usr, size_t nu, const char *user);
/* Fill P's allow_host, deny_host (expanded, with sources) and creds (P->credential
 * merged later).  0 or -ENOMEM. */
int	ab_proxy_build(const struct ab_pset *ps, const struct ab_proxy *px, const size_t *dflt,
	    size_t nd, const size_t *usr, size_t nu, struct ab_policy *p);
/* Fill P's creds from P->credential (merged, deduplicated).  0 or -ENOMEM. */
int	ab_proxy_build_creds(const struct ab_pset *ps, const struct ab_proxy *px,
	    struct ab_policy *p);

#endif /* AB_POLICY_PSET_H */
