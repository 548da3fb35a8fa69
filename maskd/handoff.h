/*
 * The hand-off of one session to agentbox-maskd (DESIGN step 7; maskd/README.md "PAM
 * hand-off"), shared by pam_module/maskd.c, which sends it, and maskd/daemon.c, which
 * takes it.  Control socket: AB_MASKD_CONTROL, AF_UNIX SOCK_SEQPACKET, root only.  One
 * message from the module, one reply from the daemon, then the module hangs up.
 *
 * The message is text, one "KEY VALUE" per line: "maskd 1", "ses N", "uid N", then
 * "home PATH" (at most once), "project PATH" and "pattern PAT" lines, "policy HEX" (at
 * most once: the digest of the user's policy in force, which the warm set is kept by), and
 * for a learning session (policy learn = yes) "learn 1" followed by the policy's "read
 * PATH" and "write PATH" lines; with SCM_RIGHTS, in the order of enum ab_maskd_fd: the pidfd of the
 * session's pid 1, the permission group, the tracking group, then one directory fd per
 * filesystem the session's marked mounts are on (for open_by_handle_at), and last, for
 * a learning session, the learning group (maskd/learn.c).  The marks are in place when
 * it is sent: every open through the session's mounts already waits for the daemon.
 * The reply: "ok", or "refused WHY".
 *
 * After the patterns, a login whose walk followed a walk plan (below) reports what it
 * found: "walked ID GEN" (the plan's reply line), then "found PATH" lines, each a
 * directory that held an entry the walk masked or protected, and "mount PATH" lines,
 * each a mount inside a tree, which it walked whole (absolute, as the host sees them).
 *
 * Two other one-line requests, without fds: "watch UID" (unboxed.h; reply "ok" or
 * "refused WHY"), and "netns" (netpool.h): "ok" with one fd, a network namespace made
 * ahead that is now the caller's alone, or "refused WHY" (the caller makes its own).
 *
 * And the walk plan (maskd/walkindex.c), asked by a login before it builds its world:
 * "walkplan 1", "uid N", "home PATH" (at most once), then "project PATH", "mask PAT",
 * "protect PAT" lines, the policy's, in its order (the text is the index's key).  The
 * reply: "plan ID GEN" followed by "dir PATH" and "full PATH" lines (walk only into
 * those directories, and below each "full" one, everything), or "walk ID GEN" (walk
 * everything), or "refused WHY" (walk everything, report nothing).  After a walk by a
 * "plan", the login asks "walkcheck ID GEN" on a second connection it made with the
 * first: "same" (nothing was added to the plan since), or "changed" (walk everything).
 */
#ifndef AB_MASKD_HANDOFF_H
#define AB_MASKD_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

#include "abutil.h"

#define AB_MASKD_CONTROL	"/run/agentbox-maskd/control"
#define AB_MASKD_MSG_MAX	(64 * 1024)	/* the whole message, bounded before parsing */
#define AB_MASKD_REPLY_MAX	256
#define AB_MASKD_TIMEOUT_MS	1500		/* a login waits on it: under PAM's budget */
#define AB_MASKD_FS_MAX		16		/* filesystems one session's trees span */
#define AB_MASKD_POLICY_HEX	64		/* a SHA-256 digest in hex */
/* Sessions one daemon enforces at once: two fanotify groups each (three when learning),
 * plus the daemon's own (the walk index's), and the kernel's default
 * fs.fanotify.max_user_groups, 128, is root's for them all. */
#define AB_MASKD_OWN_GROUPS	1
#define AB_MASKD_SESS_MAX	((128 - AB_MASKD_OWN_GROUPS) / 2)

enum ab_maskd_fd {
	AB_MASKD_FD_PID1,	/* pidfd of the session's pid 1: the session's life */
	AB_MASKD_FD_PERM,	/* FAN_CLASS_CONTENT group, marks on the session's mounts */
	AB_MASKD_FD_TRACK,	/* FAN_CLASS_NOTIF group, filesystem marks */
	AB_MASKD_FD_MOUNT,	/* first of 1..AB_MASKD_FS_MAX directory fds */
};
#define AB_MASKD_NFDS_MAX	(AB_MASKD_FD_MOUNT + AB_MASKD_FS_MAX + 1)	/* + learning */
_Static_assert(AB_MASKD_NFDS_MAX <= AB_FDPASS_MAX, "a hand-off fits one datagram's fds");

struct ab_maskd_open {
	uint32_t	ses, uid;
	char		*home;			/* NULL: none */
	struct ab_strv	projects, patterns;
	int		learn;			/* "learn 1": the last fd is the learning group */
	struct ab_strv	reads, writes;		/* learning only: the policy's read, write */
	int		walked;			/* "walked ID GEN": a walk plan's report */
	uint32_t	walk_id, walk_gen;
	struct ab_strv	found;			/* its "found PATH" lines */
	struct ab_strv	mounts;			/* its "mount PATH" lines */
	/* "policy HEX": the digest of the user's policy in force (ab_policy_user_digest,
	 * lowercase hex), which the reader's warm set is kept by; "": none sent. */
	char		policy[AB_MASKD_POLICY_HEX + 1];
};

/*
 * Encode M into BUF[0..LEN) (no NUL).  *OUT the length.  -E2BIG if it does not fit,
 * -EINVAL for a value holding a newline or a tree that is not absolute.
 */
int	ab_maskd_open_encode(const struct ab_maskd_open *m, char *buf, size_t len,
	    size_t *out);
/*
 * Parse BUF[0..LEN) into M (zeroed first; free with ab_maskd_open_free even on error).
 * Every line must be known, "maskd 1" first, ses and uid once each, trees absolute and
 * at least one pattern unless "learn 1" (at most once, before any read or write line);
 * each pattern must be valid (ab_pattern_valid).  0, -EPROTO
 * (malformed), -EINVAL (a bad tree or pattern), -ENOMEM.
 */
int	ab_maskd_open_parse(const char *buf, size_t len, struct ab_maskd_open *m);
void	ab_maskd_open_free(struct ab_maskd_open *m);

/* ---- the walk plan (maskd/walkindex.c, pam_module/walkplan.c) ---- */

#define AB_WALKPLAN_DIRS_MAX	2048	/* directories a plan names, "full" ones too */
#define AB_WALKPLAN_REPLY_MAX	(64 * 1024)

struct ab_walkplan_req {
	uint32_t	uid;
	char		*home;			/* NULL: none */
	struct ab_strv	projects, masks, protects;
};
/* Encode / parse a request, as ab_maskd_open_encode and _parse do the hand-off: strict,
 * every pattern valid, trees absolute.  0, -E2BIG, -EINVAL, -EPROTO, -ENOMEM. */
int	ab_walkplan_req_encode(const struct ab_walkplan_req *q, char *buf, size_t len,
	    size_t *out);
int	ab_walkplan_req_parse(const char *buf, size_t len, struct ab_walkplan_req *q);
void	ab_walkplan_req_free(struct ab_walkplan_req *q);

struct ab_walkplan_reply {
	int		prune;			/* "plan": walk only into DIRS; "walk": all */
	uint32_t	id, gen;		/* for the hand-off's "walked ID GEN" */
	struct ab_strv	dirs, fulls;		/* absolute; sorted by the parser */
};
/* Parse a reply (not "refused": the caller tests that first).  Dirs and fulls at most
 * AB_WALKPLAN_DIRS_MAX together, absolute, no "." or ".." component, no "//", no
 * trailing '/'.  0, -EPROTO, -ENOMEM. */
int	ab_walkplan_reply_parse(const char *buf, size_t len, struct ab_walkplan_reply *p);
void	ab_walkplan_reply_free(struct ab_walkplan_reply *p);

#endif /* AB_MASKD_HANDOFF_H */
