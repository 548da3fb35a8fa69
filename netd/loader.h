/*
 * netd/loader.h: the policy loader helper (loader.c says why it is a process of its own).
 */
#ifndef AB_NETD_LOADER_H
#define AB_NETD_LOADER_H

#include <stdbool.h>
#include <sys/types.h>

#include "abutil.h"
#include "proto.h"
#include "rules.h"

#define AB_NETD_USER_MAX	32	/* ab_user_name_valid's limit */
#define AB_NETD_LOADER_MS	1500	/* under PAM's 2 s for the whole open */

/* Still root: fork the loader, which becomes uid/gid with CAP_DAC_READ_SEARCH only.
 * *out is the daemon's end of the pair, *pid the loader.  0 or -errno. */
int ab_netd_loader_start(uid_t uid, gid_t gid, int *out, pid_t *pid);

/*
 * Load USER's policy through the loader: its digest (lower-case hex), its learn key,
 * the network lists, appended to allow/deny/priv, and its credentials, one
 * "NAME\tHOST\tHEADER\tPREFIX\tFILE\tENV" each (PREFIX empty: none) appended to creds.  ID: a number not used for the last requests.
 * 0, or the loader's -errno (-ENOENT: not enrolled, -EINVAL: invalid), -ETIMEDOUT
 * after AB_NETD_LOADER_MS, -EPIPE when the loader is gone, -EPROTO.
 */
int ab_netd_loader_load(int fd, unsigned id, const char *user, char digest[65], bool *learn,
			struct ab_strv *allow, struct ab_strv *deny, struct ab_strv *priv,
			struct ab_strv *creds);

#endif /* AB_NETD_LOADER_H */
