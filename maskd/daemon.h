/* maskd/daemon.c: agentbox-maskd --daemon, the supervisor of every session's reader. */
#ifndef AB_MASKD_DAEMON_H
#define AB_MASKD_DAEMON_H

#include <stddef.h>

struct ab_maskd_serve_opts {
	const char	*control;	/* the control socket (AB_MASKD_CONTROL) */
	int		 foreground;	/* no daemon(3); log to stderr too */
	size_t		 history_max;	/* per session's S; 0: AB_MASKD_HISTORY_MAX */
	size_t		 learn_max;	/* a learning session's recorded paths; 0: the most */
	size_t		 netns_pool;	/* network namespaces made ahead; 0: none */
	int		 walk_index;	/* keep the walk index (walkindex.h); 0: logins walk all */
	int		 warm;		/* give readers their user's warm set (warm.c); 0: none */
};

/* Serve hand-offs until a fatal error; returns the exit status. */
int	ab_maskd_serve(const struct ab_maskd_serve_opts *o);

#endif
