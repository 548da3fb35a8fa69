/*
 * maskd: the live-mask enforcer (DESIGN.md "Masks that hold for the whole
 * session"; facts and measurements in research/dynamic_masks.md).  A fanotify permission
 * group on the session's own mounts asks, at every open, whether the file is masked by
 * name (the one matcher: policy/maskset.c) or has ever carried a masked name (the
 * history, fed by a second, notification-only group).  One file per mechanism:
 *   group.c    the two fanotify groups and their marks
 *   history.c  S, the set of inodes that ever carried a masked name; draining the
 *              tracking group into it
 *   decide.c   the pure decision: (path, deleted?, in S?) -> allow / deny + rule number
 *   enforce.c  the loop: drain, read, decide, answer; fail closed on overflow or error
 * Library code: 0 / -errno, never prints, never exits, no global mutable state.
 */
#ifndef AB_MASKD_H
#define AB_MASKD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "abutil.h"
#include "policy.h"

struct ab_learn;		/* learn.c */
struct ab_maskrec;		/* record.c */

/* ---- group.c ---- */

/*
 * The permission group: FAN_CLASS_CONTENT|FAN_CLOEXEC|FAN_UNLIMITED_QUEUE|
 * FAN_ENABLE_AUDIT, event fds O_RDONLY|O_LARGEFILE|O_CLOEXEC|O_NONBLOCK.  Needs
 * CAP_SYS_ADMIN and CAP_AUDIT_WRITE.  *OUT: the group fd.  0 or -errno.
 */
int	ab_maskd_group_perm(int *out);
/*
 * The tracking group: FAN_CLASS_NOTIF|FAN_REPORT_DFID_NAME_TARGET|FAN_UNLIMITED_QUEUE,
 * non-blocking (it is drained, never waited on).  0 or -errno.
 */
int	ab_maskd_group_track(int *out);
/*
 * Mark the mount of DIRFD (a real fd, not O_PATH: fanotify_mark gives EBADF on one) on
 * PERM for FAN_OPEN_PERM|FAN_OPEN_EXEC_PERM, and DIRFD's filesystem on TRACK for
 * FAN_CREATE|FAN_RENAME|FAN_MOVED_FROM|FAN_MOVED_TO|FAN_ONDIR.  The caller opens DIRFD
 * before marking: once marked, an open through the mount waits for the reader.  0 or
 * -errno.
 */
int	ab_maskd_group_mark(int perm, int track, int dirfd);
/* Its two halves, for a caller that marks many mounts of few filesystems (FD: any real
 * fd on the mount, a regular file's too). */
int	ab_maskd_group_mark_mount(int perm, int fd);
int	ab_maskd_group_mark_fs(int track, int fd);
/*
 * The verdict cache: an evictable inode ignore mark on the file of event fd FD, without
 * FAN_MARK_IGNORED_SURV_MODIFY so that any write clears it (a cached file that is
 * renamed to a masked name and then written is asked again: research 2.5).  Only for
 * regular files the enforcer allowed and that are not in the history.  0 or -errno.
 */
int	ab_maskd_group_cache(int perm, int fd);
/* The same mark, and its removal, on the file of FD (O_PATH too: through its
 * /proc/self/fd link, which is no open).  0 or -errno (_uncache: -ENOENT if none). */
int	ab_maskd_group_cache_fd(int perm, int fd);
int	ab_maskd_group_uncache_fd(int perm, int fd);
/*
 * A learning session's group (learn.c): FAN_CLASS_NOTIF, fd events, non-blocking.
 * _mark_learn: a mount mark for FAN_OPEN, FAN_OPEN_EXEC, FAN_CLOSE_WRITE on files and
 * directories, on the mount of FD.  _learn_seen: an evictable inode ignore mark on the
 * file of event fd FD for the events in MASK, so the next open of it is not queued.
 */
int	ab_maskd_group_learn(int *out);
int	ab_maskd_group_mark_learn(int learn, int fd);
int	ab_maskd_group_learn_seen(int learn, int fd, uint64_t mask);

/* ---- decide.c ---- */

/* Rule numbers sent in FAN_INFO (audit's fan_info, printed in hex): pattern I is I + 1. */
#define AB_MASKD_RULE_HISTORY	0x10000u	/* the inode once carried a masked name */
#define AB_MASKD_RULE_UNKNOWN	0x10001u	/* the path could not be decided: fail closed */

struct ab_maskd_decider;
/*
 * A decider over PATTERNS (validated mask patterns), HOME (may be NULL) and PROJECTS,
 * each tree an absolute path as the session sees it (where the enforcer's readlink of an
 * event fd finds it).  The strings are kept, not copied: they must outlive the decider.
 * Flags are the mask walk's (AB_MASKSET_MASKS: case folding, undecoration).  0, -EINVAL
 * (a tree not absolute, or more than 0xffff patterns), -ENOMEM, -ENAMETOOLONG.
 */
int	ab_maskd_decider_new(const struct ab_strv *patterns, const char *home,
	    const struct ab_strv *projects, struct ab_maskd_decider **out);
void	ab_maskd_decider_free(struct ab_maskd_decider *d);
/*
 * Is the absolute PATH masked by name?  Decided relative to the deepest tree holding it
 * (the set then asks every enclosing and nested tree).  Returns the rule number (pattern
 * index + 1) when masked, 0 when not (also for a path in no tree), AB_MASKD_RULE_UNKNOWN
 * for a path that is not absolute or too long (callers deny).
 */
unsigned int	ab_maskd_rule(const struct ab_maskd_decider *d, const char *path, int is_dir);
/* -ENOMEM once a pattern's own set (the one that names the pattern of a denial) could
 * not be built when first needed, else 0: the caller must fail closed then. */
int	ab_maskd_decider_failed(const struct ab_maskd_decider *d);
/*
 * A learning session's decider (learn.c): Landlock leaves files alone there, so masks
 * must hold outside the trees too.  D was made with "/" among its projects; it stands
 * for every path no other tree holds, and a path there is judged by the masks only
 * where GRANTS (which must outlive D) give no read: where an enforcing session may read,
 * the learning one reads the same.  0, or -EINVAL without a "/" tree.
 */
int	ab_maskd_decider_outside(struct ab_maskd_decider *d, const struct ab_fs_sets *grants);

/* The text of RULE for the record: the policy's pattern (rule I + 1: pattern I),
 * "history" for AB_MASKD_RULE_HISTORY, NULL for anything else (0, UNKNOWN). */
const char	*ab_maskd_pattern(const struct ab_maskd_decider *d, unsigned int rule);

/* One open to judge: what the enforcer learnt from the event fd. */
struct ab_maskd_query {
	const char	*path;		/* readlink of /proc/self/fd/N; NULL: unknown */
	int		 is_dir;
	int		 unlinked;	/* st_nlink == 0: readlink appended " (deleted)" */
	int		 in_history;	/* the inode, or a directory above it, is in S */
	int		 creating;	/* the open that made this (empty) inode, by its
					 * creator: ab_maskd_history_take_fresh said so */
};
/*
 * The decision, pure: 0 = allow, else the rule number to deny with (name first, so the
 * record names the pattern; then the history; AB_MASKD_RULE_UNKNOWN when the path is
 * missing or not absolute).  A creating open (issue 12: denied "at its next open") is
 * allowed whatever its name or history, but never without a path.
 */
unsigned int	ab_maskd_decide(const struct ab_maskd_decider *d,
	    const struct ab_maskd_query *q);

/* 1 if PATH (absolute) is inside one of D's trees (a learning session's tree "/" holds
 * every path), else 0. */
int	ab_maskd_in_tree(const struct ab_maskd_decider *d, const char *path);

/* ---- warm.c ---- */

/*
 * The warm set: the first files a session's reader allowed and cached outside every
 * tree, given to the next session of the same user, whose reader marks them before the
 * session asks (warm.c says why that is the answer an open would get).
 */
#define AB_MASKD_WARM_MAX	64		/* paths */
#define AB_MASKD_WARM_BYTES	8192		/* their lines, each ending in '\n' */
struct ab_maskd_warm {
	char	buf[AB_MASKD_WARM_BYTES];
	size_t	len, n;
};
/* Append PATH if it is absolute, one line, and both bounds leave room; else nothing. */
void	ab_maskd_warm_note(struct ab_maskd_warm *w, const char *path);
/* The next path of LIST[0..LEN) from *OFF into OUT[0..OUTLEN): 1, or 0 at the end.  Lines
 * that are empty, relative, too long, hold a NUL or lack their newline are skipped. */
int	ab_maskd_warm_next(const char *list, size_t len, size_t *off, char *out,
	    size_t outlen);
/*
 * An O_PATH fd of the file the session sees at PATH (absolute), resolved beneath ROOT
 * (its pid 1's root) with no symlink followed; *ST its stat.  -EPERM unless it is a
 * regular file with one link, or -errno.
 */
int	ab_maskd_warm_open(int root, const char *path, struct stat *st);

/* ---- history.c ---- */

/* An inode, as the kernel names it for fanotify's FID events: fsid + file handle. */
#define AB_MASKD_HANDLE_MAX	128	/* MAX_HANDLE_SZ */
struct ab_maskd_key {
	int32_t		fsid[2];
	int32_t		type;
	uint32_t	len;
	unsigned char	h[AB_MASKD_HANDLE_MAX];
};
/* KEY of the file of FD (any fd, O_PATH too): fstatfs + name_to_handle_at.  0 or -errno. */
int	ab_maskd_key_of_fd(int fd, struct ab_maskd_key *key);
/* The path of the file KEY names, opened O_PATH through MOUNT_FD (a real fd on its
 * filesystem: no permission event, so it cannot wait on us), as the kernel shows it.
 * 0 or -errno (-ESTALE: gone). */
int	ab_maskd_key_path(int mount_fd, const struct ab_maskd_key *key, char *out,
	    size_t outlen);
/* An O_PATH fd of the file KEY names, through MOUNT_FD as above.  The fd or -errno. */
int	ab_maskd_key_open(int mount_fd, const struct ab_maskd_key *key);

struct ab_maskd_history;
/* S, holding at most MAX inodes (beyond: -ENOSPC, and the enforcer fails closed). */
int	ab_maskd_history_new(size_t max, struct ab_maskd_history **out);
void	ab_maskd_history_free(struct ab_maskd_history *h);
/* Add KEY (IS_DIR: a directory, so the enforcer checks ancestors).  0, -ENOSPC, -ENOMEM. */
int	ab_maskd_history_add(struct ab_maskd_history *h, const struct ab_maskd_key *key,
	    int is_dir);
/* 1 if KEY is in S, else 0. */
int	ab_maskd_history_has(const struct ab_maskd_history *h, const struct ab_maskd_key *key);
/*
 * The creating-open exception: 1 if KEY joined S from a plain FAN_CREATE by process PID
 * (> 0) and no permission event on it was judged since, else 0.  Every call clears the
 * mark, whatever it returns: the enforcer calls it for every open it judges, so only the
 * first open of a new masked inode can pass, and only the creator's.
 */
int	ab_maskd_history_take_fresh(struct ab_maskd_history *h, const struct ab_maskd_key *key,
	    pid_t pid);
/* How many directories S holds (0: no ancestor check is needed). */
size_t	ab_maskd_history_ndirs(const struct ab_maskd_history *h);
size_t	ab_maskd_history_size(const struct ab_maskd_history *h);
/*
 * Feed S from a buffer of tracking-group events (BUF[0..LEN), as read(2) returned it):
 * every created or renamed entry whose name (old or new), resolved to a path through
 * RESOLVE, is masked per D is added.  One added by an event that is FAN_CREATE alone
 * (a new name: a create, or a link) is marked fresh with the event's pid, for
 * ab_maskd_history_take_fresh.  RESOLVE(ARG, fsid, dir handle, name, out, outlen)
 * writes the absolute path of NAME in that directory, 0 or -errno; a failure adds the
 * entry anyway (deny is the safe side).  -EOVERFLOW on FAN_Q_OVERFLOW (fail closed),
 * -EPROTO on a malformed event, else what history_add returns.
 */
typedef int (*ab_maskd_resolve_fn)(void *arg, const int32_t fsid[2],
	    const struct ab_maskd_key *dir, const char *name, char *out, size_t outlen);
/* ADDED(ARG, key), if not NULL, is told of each inode the feed adds to S. */
typedef void (*ab_maskd_added_fn)(void *arg, const struct ab_maskd_key *key);
int	ab_maskd_history_feed(struct ab_maskd_history *h, const struct ab_maskd_decider *d,
	    const void *buf, size_t len, ab_maskd_resolve_fn resolve, ab_maskd_added_fn added,
	    void *arg);

/* ---- events.c ---- */

/* One directory-entry event of a FID group: the object (with _TARGET), and up to two
 * (directory, name) pairs: a create's, or a rename's old and new. */
struct ab_maskd_dirent_ev {
	uint64_t		 mask;		/* FAN_CREATE, FAN_RENAME, ... | FAN_ONDIR */
	pid_t			 pid;
	int			 has_target;
	struct ab_maskd_key	 target;
	size_t			 nnames;
	struct ab_maskd_key	 dir[2];
	const char		*name[2];	/* in the read buffer */
	int			 is_old[2];	/* a rename's old name (OLD_DFID_NAME) */
};
typedef int (*ab_maskd_event_fn)(void *arg, const struct ab_maskd_dirent_ev *ev);
/*
 * FN(ARG, event) for each event of BUF[0..LEN) (as read(2) returned it), in order;
 * stops at FN's first non-zero and returns it.  -EOVERFLOW at FAN_Q_OVERFLOW, -EPROTO on
 * a malformed event (its name records must end in a NUL inside the buffer).
 */
int	ab_maskd_events_each(const void *buf, size_t len, ab_maskd_event_fn fn, void *arg);

/* ---- enforce.c ---- */

struct ab_maskd;
/*
 * An enforcer over decider D (kept): creates both groups.  HISTORY_MAX bounds S (0:
 * AB_MASKD_HISTORY_MAX); past it the enforcer fails closed.  0 or -errno.
 */
#define AB_MASKD_HISTORY_MAX	(1u << 18)
int	ab_maskd_new(const struct ab_maskd_decider *d, size_t history_max,
	    struct ab_maskd **out);
void	ab_maskd_free(struct ab_maskd *e);
/*
 * Mark the mount at PATH (an absolute path as the session sees it, a directory) on both
 * groups.  The directory fd is kept to resolve the tracking group's handles.  0 or -errno.
 */
int	ab_maskd_add_mount(struct ab_maskd *e, const char *path);
/*
 * An enforcer over groups made elsewhere (the PAM module, in the session's namespace,
 * marks in place): PERM, TRACK and MOUNTS[0..NMOUNTS) (one directory fd per filesystem
 * of the marked mounts, for open_by_handle_at) become the enforcer's on success only.
 * 0 or -errno.
 */
int	ab_maskd_adopt(const struct ab_maskd_decider *d, size_t history_max, int perm,
	    int track, const int *mounts, size_t nmounts, struct ab_maskd **out);
/*
 * Also watch FD (a pidfd: the session's pid 1, the supervisor): ab_maskd_run returns it
 * once it is readable, after answering what was queued.  At most AB_MASKD_WATCH_MAX.
 */
#define AB_MASKD_WATCH_MAX	2
int	ab_maskd_watch(struct ab_maskd *e, int fd);
/* A learning session: poll L's group beside the permission group (L stays the caller's). */
void	ab_maskd_learn(struct ab_maskd *e, struct ab_learn *l);
/*
 * Put each denial by a pattern or by the history on the record through REC (it stays
 * the caller's; ab_maskd_run flushes it before it returns).  SES and UID: the session's,
 * for an opener whose /proc no longer says (UINT32_MAX: unknown; the uid is then the
 * opener's loginuid).  Undecidable and fail-closed denials are not recorded here: the
 * kernel's FANOTIFY record (fan_info 10001) is theirs.
 */
void	ab_maskd_record(struct ab_maskd *e, struct ab_maskrec *r, uint32_t ses, uint32_t uid);
/* Note in W (it stays the caller's) each file allowed and cached outside every tree,
 * and each ab_maskd_warm_seed marks: set it before seeding. */
void	ab_maskd_warm_collect(struct ab_maskd *e, struct ab_maskd_warm *w);
/*
 * Seed the verdict cache from LIST[0..LEN) (a warm set's lines; it stays the caller's
 * and must outlive ab_maskd_run), each path resolved in the session whose pid 1 is
 * PIDFD's and judged as its open would be (warm.c).  ab_maskd_run seeds one path at a
 * time, whenever no open is queued: an open that comes first is answered first.  A path
 * that cannot be seeded is skipped (its open is asked); st.warm counts those marked.
 * 0, or -ESRCH (pid 1 gone), -EINVAL (nothing to seed, or seeding already).
 */
int	ab_maskd_warm_seed(struct ab_maskd *e, int pidfd, const char *list, size_t len);
/*
 * Deny every open on PERM until the session's pid 1 (PIDFD) is gone: a session being
 * ended, by a reader that failed closed, could not start its enforcer, or lost its
 * supervisor; nothing is let through when this holder of the group exits.  Needs no
 * enforcer.
 */
void	ab_maskd_deny_until_gone(int perm, int pid1);
/* The permission group's fd (for a supervisor's dup, or a test).  Not to be closed. */
int	ab_maskd_fd(const struct ab_maskd *e);
/*
 * Serve until a watched fd is readable (returns it, > 0) or an error.  Fail closed: on a queue overflow of either
 * group, a read error or a history that cannot grow, every event already read or still
 * queued is answered FAN_DENY before it returns -EOVERFLOW / -errno / -ENOSPC.  What the
 * kernel does once the group's last fd closes after that is the supervisor's to close
 * (README "Fail-open modes").
 */
int	ab_maskd_run(struct ab_maskd *e);
/*
 * After ab_maskd_run: go on answering (as it does) until each of FDS[0..N) (at most
 * AB_MASKD_WATCH_MAX; -1 entries skipped) has been readable once, or TIMEOUT_MS have
 * passed.  0, or what failed (every open queued then denied, as ab_maskd_run does).
 */
int	ab_maskd_serve_until(struct ab_maskd *e, const int *fds, size_t n, int timeout_ms);
/* Counters a test or the daemon's exit line reads. */
struct ab_maskd_stats {
	uint64_t	allowed, denied, cached, tracked, created, warm;
};
void	ab_maskd_stats(const struct ab_maskd *e, struct ab_maskd_stats *out);


/* ---- learn.c ---- */

struct ab_maskd_open;
struct ab_learn_stats {
	uint64_t	events;		/* notification events read */
	uint64_t	recorded;	/* agentbox-learn records written */
};
/* The recorder of a learning session on GROUP (ab_maskd_group_learn, which it takes:
 * it closes it when it stops), for session SES of UID, judging by GRANTS (which must
 * outlive it), recording at most MAX distinct paths and accesses (0 or more than it
 * holds: the most, AB_LEARN_MAX).  0 or -errno. */
#define AB_LEARN_MAX	229376u	/* 7/8 of its 2^18-entry table: probes stay short */
int	ab_learn_new(int group, uint32_t ses, uint32_t uid, const struct ab_fs_sets *grants,
	    size_t max, struct ab_learn **out);
void	ab_learn_free(struct ab_learn *l);
/* The fd to poll, or -1 once the recorder has stopped (its lost record written). */
int	ab_learn_fd(const struct ab_learn *l);
/* Read and record one buffer of queued events.  0, or -errno once it stopped on a read error. */
int	ab_learn_drain(struct ab_learn *l);
void	ab_learn_stats(const struct ab_learn *l, struct ab_learn_stats *out);

/* ---- boxend.c: the end of a persist = yes box (its registry and its record) ---- */

/* The registry's line, parsed (pam_module/box.c writes it). */
struct ab_box_entry {
	char			 id[16];	/* BOXID: the ses of the login that built it */
	pid_t			 pid;		/* its pid 1 on the host */
	unsigned long long	 ticks;		/* that process's start time (stat field 22) */
	char			 digest[2 * AB_DIGEST_LEN + 1];
	long long		 created;
	char			 user[64];
};
/* USER's registry file AB_BOX_DIR/UID, flocked (WAIT: or -EWOULDBLOCK when another holds
 * it).  The fd, or -errno (-ENOENT: no registry, no box). */
int	ab_box_registry_lock(uid_t uid, int wait);
/* The entry of registry FD: 0, -ENOENT (empty: no box), -EINVAL, -errno. */
int	ab_box_registry_read(int fd, struct ab_box_entry *e);
/* If the locked registry FD names box ID, fill E and forget it (truncate): 1; another
 * box or none: 0; -errno. */
int	ab_box_registry_take(int fd, const char *id, struct ab_box_entry *e);
/* The agentbox-box-end record on audit socket FD.  0, -ENOMEM or -EIO. */
int	ab_box_end_record(int fd, const char *box_id, const char *user, uid_t uid,
	    pid_t init_pid, const char *reason);

/* ---- audit.c: the daemon's own audit records (learn.c's, record.c's) ---- */

/* A libaudit socket, close-on-exec.  The fd, or -errno. */
int	ab_maskd_audit_open(void);
/* One AUDIT_TRUSTED_APP record (res=success when OK, else failed) with the message FMT
 * on audit socket FD.  0, -ENOMEM, or -EIO when libaudit could not send it. */
int	ab_maskd_audit_send(int fd, int ok, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* record.c's sink and its lost hook over an audit socket: ARG points to the fd. */
int	ab_maskd_audit_sink(void *arg, int ok, const char *msg);
void	ab_maskd_audit_lost(void *arg, uint32_t ses, uint64_t lost, int err);
/* /proc/PID/NAME's first line into OUT (LEN > 0), or "" when the process is gone. */
void	ab_maskd_proc_line(pid_t pid, const char *name, char *out, size_t len);
/* /proc/PID/NAME (sessionid, loginuid) as a number, or FALLBACK when it cannot be read
 * or is audit's "unset". */
uint32_t ab_maskd_proc_num(pid_t pid, const char *name, uint32_t fallback);
/* /proc/PID/exe into OUT (LEN > 0), or "". */
void	ab_maskd_proc_exe(pid_t pid, char *out, size_t len);

/* ---- record.c: one audit record per denial, repeats counted ---- */

/*
 * op=agentbox-mask records (docs/audit-records.md "Live masks"): each denial of the
 * enforcer by a pattern or by the history is one, except repeats of the same session,
 * path, access and pattern within AB_MASKREC_WINDOW_MS of the last record written for
 * them: those are counted, and the count is written as repeats=N on the next record of
 * that key (the repeat that closes the window, or one written when the window ends,
 * the table evicts the key, or the session ends: ab_maskrec_tick, ab_maskrec_flush).
 * A record stands for 1 + repeats denials.  A record the sink could not write is
 * counted (and said through LOST); the count goes on op=agentbox-mask-lost, written
 * before the next record that gets through, or at flush.
 */
#define AB_MASKREC_WINDOW_MS	1000u
#define AB_MASKREC_MAX		256u	/* keys remembered; the oldest is evicted */
struct ab_maskrec_sink {
	/* Write MSG (ok: res=success, else failed).  0, or -errno. */
	int	(*send)(void *arg, int ok, const char *msg);
	/* A write failed; LOST denials of session SES are off the record so far. */
	void	(*lost)(void *arg, uint32_t ses, uint64_t lost, int err);
	void	 *arg;
};
/* One denial.  Strings are copied when kept.  PATTERN: the policy's text, or "history". */
struct ab_maskrec_deny {
	uint32_t	 ses, uid;
	pid_t		 pid;
	int		 exec;		/* FAN_OPEN_EXEC_PERM: access=exec, else open */
	const char	*path, *pattern, *comm, *exe;
};
struct ab_maskrec_stats {
	uint64_t	records;	/* agentbox-mask records written */
	uint64_t	repeats;	/* denials counted into another record's repeats= */
	uint64_t	lost;		/* denials whose record could not be written */
	uint64_t	lost_records;	/* agentbox-mask-lost records written */
};
struct ab_maskrec;
/* A recorder writing through SINK (copied).  0 or -ENOMEM. */
int	ab_maskrec_new(const struct ab_maskrec_sink *sink, struct ab_maskrec **out);
/* Frees without writing: call ab_maskrec_flush first. */
void	ab_maskrec_free(struct ab_maskrec *r);
/* Denial D at monotonic time NOW_MS: a record now, or counted. */
void	ab_maskrec_deny(struct ab_maskrec *r, const struct ab_maskrec_deny *d, uint64_t now_ms);
/* Write the counts of every window that ended by NOW_MS. */
void	ab_maskrec_tick(struct ab_maskrec *r, uint64_t now_ms);
/* Milliseconds from NOW_MS until the next window with a count ends (0: now), or -1. */
int	ab_maskrec_timeout(const struct ab_maskrec *r, uint64_t now_ms);
/* The session ends: write every count still held, and the lost count. */
void	ab_maskrec_flush(struct ab_maskrec *r);
void	ab_maskrec_stats(const struct ab_maskrec *r, struct ab_maskrec_stats *out);

#endif /* AB_MASKD_H */
