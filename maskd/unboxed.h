/*
 * The watcher of processes outside a box (unboxed.c), inside agentbox-maskd --daemon,
 * and the state it keeps for the PAM module, in DIR (AB_MASKD_UNBOXED_DIR next to the
 * control socket):
 *
 *   DIR/lock   held with flock(LOCK_EX) while the watcher runs and its files are true.
 *              A module that can take LOCK_SH on it knows nobody watches: it refuses.
 *   DIR/UID    one per watched uid: empty while no process of UID runs outside a box,
 *              else one "PID NAME" line per such process (NAME as /proc has it).  No
 *              file: UID is not watched yet; the module asks ("watch UID") and reads it.
 *
 * A uid is watched from the first login of it the daemon sees: /proc is read once for
 * it then, and from there on the kernel's process events connector reports each uid
 * change (setuid, setresuid, the exec of a set-user-ID file), of every process, as it
 * happens, so a login reads a file and never walks /proc.
 */
#ifndef AB_MASKD_UNBOXED_H
#define AB_MASKD_UNBOXED_H

#define AB_MASKD_UNBOXED_DIR	"unboxed"	/* beside the control socket */
#define AB_UNBOXED_LOCK		"lock"
#define AB_UNBOXED_UIDS_MAX	256	/* uids one daemon watches */
#define AB_UNBOXED_TRACK_MAX	256	/* processes outside a box held by pidfd */

struct ab_unboxed;

/* Make DIR (mode 0700), drop what an earlier daemon left, listen to the process events,
 * then take the lock.  0, or -errno (-EBUSY: another daemon watches DIR). */
int	ab_unboxed_open(const char *dir, struct ab_unboxed **out);
/* Close and free.  Also what a forked child of the daemon (a session's reader) must do
 * with its copy: it closes only, so nothing changes for the parent, and a copy kept would
 * hold the lock after the daemon is gone (a new daemon could not take it). */
void	ab_unboxed_free(struct ab_unboxed *u);
/* The fd to poll for POLLIN: process events, and the end of a process we hold. */
int	ab_unboxed_fd(const struct ab_unboxed *u);
/* Take what is ready.  0, or -errno: the watcher can no longer be trusted (the caller
 * stops; its lock goes with it, and every later login is refused). */
int	ab_unboxed_serve(struct ab_unboxed *u);
/* Watch UID from now on and write DIR/UID.  0, -ENOSPC (too many uids), -errno. */
int	ab_unboxed_watch(struct ab_unboxed *u, unsigned uid);

#endif /* AB_MASKD_UNBOXED_H */
