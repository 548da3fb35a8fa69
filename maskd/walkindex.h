/*
 * maskd/walkindex.c: what a login's mask walk would find, kept by agentbox-maskd between
 * logins, so that a login walks only the directories that hold something to mask or
 * protect, not the whole project (issue 12 item 4; issue 14: a login must not cost more
 * as the project grows).
 *
 * A key is one walk plan request (handoff.h), byte for byte: a user's trees and
 * patterns.  For each, the index keeps D, a set of directories (absolute host paths),
 * with this invariant: every entry under the key's trees that the walk would mask or
 * protect lies in a directory of D, and so does each of its ancestors; a directory
 * marked "full" is walked whole.  D comes from a login's walk (its hand-off's "found"
 * lines) and grows with the filesystem's events, read from a notification group with a
 * filesystem mark on each tree's filesystem (FAN_CREATE, FAN_RENAME, directories too):
 *   a new name (create, link, rename's target) that the mask or protect set matches
 *       adds its directory and every ancestor;
 *   a directory renamed into a tree adds itself as "full" (its entries' paths changed:
 *       anchored patterns must be asked again, by the walk);
 *   a directory renamed that is a tree's root or above one, a tree root that is not the
 *       directory it was, a queue overflow, an event that cannot be read or resolved:
 *       the key forgets D, and its next login walks everything.
 * The queue is drained before every plan, so every change that finished before a login
 * asked is in the plan it gets (fsnotify queues inside the syscall that makes the name).
 * Deletions are not followed: D only ever holds too much, which costs a readdir.
 *
 * What a plan does not see, the login still checks itself (pam_module/mask.c): a
 * directory in D is read whole, so a name the index missed there is still matched;
 * mounts inside a tree (another filesystem: no events here) are walked whole; a masked
 * file with more than one link makes the hardlink pass walk every tree, as before.
 */
#ifndef AB_MASKD_WALKINDEX_H
#define AB_MASKD_WALKINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "abutil.h"

struct ab_windex;

/* An empty index and its notification group (CAP_SYS_ADMIN).  0 or -errno. */
int	ab_windex_new(struct ab_windex **out);
void	ab_windex_free(struct ab_windex *w);
/*
 * In a child forked from the daemon: close the index's group, keep its memory.  Freeing
 * it would write to every page of the parent's copy, a copy-on-write fault each, before
 * the reader's first answer (perf showed it in a daemon holding many users' keys); the
 * memory goes with the child's exit, and no code of the child uses the index.
 */
void	ab_windex_forsake(struct ab_windex *w);
/* The group's fd, to poll: readable means events to drain. */
int	ab_windex_fd(const struct ab_windex *w);
/* Apply queued events for at most 5 ms (a flood cannot hold the daemon's loop: poll
 * again).  0, or -errno after which every key walks again. */
int	ab_windex_drain(struct ab_windex *w);
/*
 * The reply to walk plan request BUF[0..LEN) into OUT[0..OUTLEN) (handoff.h: "plan",
 * "walk" or "refused", NUL-terminated; *N its length).  Drains first: a queue it
 * cannot empty in 20 ms gets "walk".
 */
void	ab_windex_plan(struct ab_windex *w, const char *buf, size_t len, char *out,
	    size_t outlen, size_t *n);
/*
 * A login's report: it walked by the plan ID GEN, and FOUND (absolute directories)
 * held what it masked or protected, and MOUNTS were mounted inside its trees: each stays
 * "full" (a later unmount, which makes no event, uncovers what lies under it).  D becomes FOUND (with ancestors) when no event
 * added to D since that plan, else D gains FOUND.  A report for a key that was forgotten
 * since is dropped.
 */
void	ab_windex_report(struct ab_windex *w, uint32_t uid, uint32_t id, uint32_t gen,
	    const struct ab_strv *found, const struct ab_strv *mounts);

/*
 * After a planned walk (handoff.h "walkcheck ID GEN"): 0 if no event added to that
 * key's directories since plan ID GEN (the walk saw every place it had to), 1 if one
 * did, the key was forgotten since, or the queue could not be emptied in 20 ms (the
 * login walks everything).  A move racing the walk, from one directory it skipped into
 * another, is an event it then sees.
 */
int	ab_windex_check(struct ab_windex *w, uint32_t id, uint32_t gen);

#endif /* AB_MASKD_WALKINDEX_H */
