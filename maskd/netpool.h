/*
 * maskd/netpool.c: network namespaces made ahead of logins, for `network = loopback`
 * and `network = proxy` (pam_module/netns.c takes one per box).
 *
 * Making a network namespace costs about 0.4 ms of kernel work (every pernet
 * subsystem's init), which a login would otherwise pay in its own clock (bench/README.md
 * "Network proxy").  agentbox-maskd is root and already up for every enrolled login, so
 * it keeps a few made in advance, each with only lo, brought up, and hands each one out
 * exactly once: taken out of the pool before it is sent, never put back, so no two boxes
 * can share one and nothing else holds it once the box has it.
 */
#ifndef AB_MASKD_NETPOOL_H
#define AB_MASKD_NETPOOL_H

#include <stddef.h>

#define AB_NETPOOL_MAX	4	/* a burst of logins past it makes its own, as without */

struct ab_netpool;

/* A pool of up to MAX (1..AB_NETPOOL_MAX) namespaces, empty; it remembers the network
 * namespace it is made in (the host's), which every fill returns to.  0 or -errno. */
int	ab_netpool_new(size_t max, struct ab_netpool **out);
/* Make one namespace if the pool is not full (about 0.4 ms).  0, or -errno.  Still in
 * the namespace the pool was made in either way, or -ENOTRECOVERABLE: the caller is now
 * in another one and must not go on. */
int	ab_netpool_make(struct ab_netpool *p);
/* One namespace's fd, the caller's alone, or -ENOENT when the pool is empty. */
int	ab_netpool_take(struct ab_netpool *p);
/* Is the pool full? */
int	ab_netpool_full(const struct ab_netpool *p);
/* Close everything (NULL is fine): the daemon's forked readers hold none of it. */
void	ab_netpool_free(struct ab_netpool *p);

#endif /* AB_MASKD_NETPOOL_H */
