/*
 * pam_agentbox internals: the session being built and the steps that build it.
 * Nothing here is exported from the module (pam_agentbox.map: only pam_sm_*).
 *
 * Every step returns 0 or -errno.  A step that fails also writes one line for the
 * auth log into s->why (ab_sess_fail), naming the object it failed on; the PAM entry
 * point logs it and refuses the session.  Steps never log and never exit.
 */
#ifndef AB_PAM_MODULE_H
#define AB_PAM_MODULE_H

#include <stdint.h>
#include <sys/types.h>

#include "policy.h"

struct pam_handle;

/* What the kernel said of its audit queue (AUDIT_GET), each -1 when it did not: records
 * lost since boot, records queued now, and the queue's limit (docs/audit-records.md). */
struct ab_audit_state {
	long long	 lost, backlog, backlog_limit;
};

struct ab_walkplan_reply;	/* maskd/handoff.h */

struct ab_sess {
	struct pam_handle	*pamh;
	const struct ab_policy	*pol;
	const char		*user;
	uid_t			 uid;
	gid_t			 gid;
	const char		*home;
	const char		*init_path;	/* agentbox-init, compiled in (init= in tests) */
	int			 init_fd;	/* O_PATH, opened before the world hides the path */
	int			 debug;

	int			 procfd;	/* the host's /proc, opened before ours hides it */
	int			 runfd;		/* /run/agentbox, the session's own tmpfs */
	int			 mask_file;	/* O_PATH: root-owned 0000 empty file (mask source) */
	int			 mask_dir;	/* O_PATH: root-owned 0000 empty dir (mask source) */
	dev_t			 run_dev;	/* st_dev of /run/agentbox: a name already masked */
	uint32_t		 masks;
	uint32_t		 protects;
	uint32_t		 walked;	/* entries the mask walk visited (debug line) */
	struct ab_walkplan_reply *plan;		/* agentbox-maskd's walk plan, or NULL */
	struct ab_strv		 plan_mounts;	/* mounts inside the trees: walked whole */
	int			 plan_fd;	/* for "walkcheck" after a planned walk, or -1 */
	int			 plan_ask;	/* the plan's question, its answer unread; -1 */
	struct ab_strv		 walk_found;	/* directories the walk masked or protected in */
	int			 walk_report;	/* 1: walk_found is complete, for the hand-off */
	const char		*walk_how;	/* "planned", "whole" (debug line); NULL: none */
	const char		*netns_how;	/* step 3: pooled, made, shared, host (debug line) */
	int			 pooled_netns;	/* agentbox-maskd's namespace for step 3, or -1 */
	pid_t			 init_pid;	/* host pid of the session's pid 1 */
	int			 init_pidfd;	/* pidfd of it: kill and reap without pid reuse */
	int			 netd_fd;	/* proxy: connected to agentbox-netd, or -1 */
	int			 maskd_fd;	/* connected to agentbox-maskd, or -1 */
	const char		*maskd_path;	/* its control socket (maskd= in tests) */
	uint32_t		 ses;		/* audit session id after the loginuid write */
	int			 ses_fresh;	/* 0 when loginuid was immutable: ses is inherited */
	int			 scope_ask;	/* the audit rules' listing asked for step 3's
						 * scope check (ab_auditscope_ask), or -errno */
	struct ab_audit_state	 audit_st;	/* the kernel's audit state before step 3 */
	/* Opened through the agentbox-run service (module argument `run`): a box of its
	 * own, always (a `persist = yes` box must never be joined by it); and what
	 * agentbox run asked for in the PAM environment, honoured only then. */
	int			 run;
	int			 ephemeral;	/* home and projects on a throw-away layer */
	int			 eph_upper;	/* ephemeral: the upper tmpfs (detached), or -1 */
	int			*eph_lower;	/* ephemeral: each tree's real dir, O_PATH, or -1 */
	size_t			 eph_n;
	int			 box_lock;	/* persist: the user's registry file, flocked, or -1 */
	int			 box_pidfd;	/* persist, joining: the box's pid 1, or -1 */
	int			 joined;	/* 1: this login joined a running box */
	char			 box_id[16];	/* persist: the box's id ("" without persist) */
	char			 box_digest[2 * AB_DIGEST_LEN + 1]; /* persist: what the box is
						 * kept by, hex ("" until box.c needs it) */
	char			 why[512];	/* reason of the first failure, for the auth log */
};

/* sessfail.c: record why the step failed (first failure wins) and return R (a -errno). */
int	ab_sess_fail(struct ab_sess *s, int r, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* unboxed.c: step 1's last question, agentbox-maskd's answer: refuse while a process
 * of the user runs outside a box (maskd/unboxed.h), or while nobody watches. */
int	ab_unboxed_check(struct ab_sess *s);

/* netns.c: ab_netns_take_pooled, for a policy whose box has a namespace of its own
 * (loopback, proxy): one made ahead by agentbox-maskd into s->pooled_netns, or -1 there
 * (never a failure: step 3 then makes one).  ab_netns_enter: enter the network namespace
 * the policy asks for (before the mount namespace). */
void	ab_netns_take_pooled(struct ab_sess *s);
int	ab_netns_enter(struct ab_sess *s);

/*
 * netd.c, network = proxy only (netd-spec.md section 3).  ab_netd_connect: connect to
 * agentbox-netd's control socket into s->netd_fd, while the host's /run is still in
 * view (the world replaces it).  DESIGN step 7 in two halves, so that agentbox-maskd's
 * hand-off runs between them: ab_netd_send, the box's listeners in the session's
 * network namespace and the open message with them and the pidfd of pid 1 (our copies
 * of the listeners closed whatever happens); ab_netd_await, the daemon's "ok" within
 * AB_NETD_TIMEOUT_MS, and the connection closed.  No "ok", no session.
 */
int	ab_netd_connect(struct ab_sess *s);
int	ab_netd_send(struct ab_sess *s);
int	ab_netd_await(struct ab_sess *s);

/*
 * livemask.c: live masks (maskd/README.md).  ab_livemask_connect: connect to
 * agentbox-maskd's control socket into s->maskd_fd while the host's /run is in view.
 * ab_livemask_handoff, DESIGN step 7: both fanotify groups made here, every mount of
 * this namespace on a tree's filesystem marked, the groups and the pidfd of pid 1 sent,
 * the daemon's "ok" within AB_MASKD_TIMEOUT_MS; our copies closed whatever it says.
 * A learning session's group too, marked on every mount.  Nothing to do without a mask
 * or learn; trees on overlayfs keep the login-time masks, and refuse a learning login.
 */
int	ab_livemask_connect(struct ab_sess *s);
/* A connection to agentbox-maskd's control socket (s->maskd_path), with its timeouts:
 * the fd, or -errno; says nothing (each caller knows what a failure means to it). */
int	ab_maskd_dial(const struct ab_sess *s);
/* FN(S, CTX, DEV, PATH) for each mount of this namespace, in mountinfo's order (PATH
 * unescaped); stops at FN's first non-zero and returns it. */
typedef int (*ab_mount_fn)(struct ab_sess *s, void *ctx, dev_t dev, const char *path);
int	ab_each_mount(struct ab_sess *s, ab_mount_fn fn, void *ctx);
int	ab_livemask_handoff(struct ab_sess *s);

/* world.c: private /tmp /var/tmp /dev /run, host sockets hidden, /run/agentbox made. */
int	ab_world_build(struct ab_sess *s);
/* world.c: /run/agentbox read-only, nosuid, nodev, noexec once the plan is written. */
int	ab_world_seal(struct ab_sess *s);

/*
 * ephemeral.c: `agentbox run --ephemeral`.  ab_ephemeral_apply, after the world and
 * before the masks: each tree (home, projects) becomes an overlay of itself with its
 * upper layer in one detached tmpfs (s->eph_upper, s->eph_lower).  ab_ephemeral_count,
 * once the session's processes are gone: what the upper layers hold, against the lowers.
 */
struct ab_eph_count {
	unsigned long	 created, modified, deleted, visited;
	int		 partial;	/* something could not be walked: the counts are a floor */
};
int	ab_ephemeral_apply(struct ab_sess *s);
void	ab_ephemeral_count(int upper, const int *lower, size_t n, struct ab_eph_count *c);

/* mask.c: mask and protect mounts under every project and the home directory. */
int	ab_mask_apply(struct ab_sess *s);

/*
 * walkplan.c: agentbox-maskd's walk plan (maskd/walkindex.h).  ab_walkplan_ask, host
 * side: sends the question; ab_walkplan_connect, after the hand-off's connection: a
 * second one for ab_walkplan_check; ab_walkplan_take, at step 5: the answer, s->plan or
 * NULL (walk everything), never a refusal.  ab_walkplan_mounts, in the
 * session's namespace before the walk: the mounts inside the trees, walked whole.
 * ab_walkplan_enter: 1 if the walk goes into directory PATH (absolute), and *FULL if
 * everything below it is walked.  ab_walkplan_free: the plan and what the walk found.
 */
void	ab_walkplan_ask(struct ab_sess *s);
void	ab_walkplan_connect(struct ab_sess *s);
void	ab_walkplan_take(struct ab_sess *s);
int	ab_walkplan_mounts(struct ab_sess *s);
int	ab_walkplan_enter(const struct ab_sess *s, const char *path, int *full);
/* After a planned walk: 1 if agentbox-maskd says nothing was added to the plan since
 * it was given, else 0 (the caller walks everything). */
int	ab_walkplan_check(struct ab_sess *s);
void	ab_walkplan_free(struct ab_sess *s);
/* mask.c: open tree TREE (0: the home, then each project) with OFLAGS, no symlinks on
 * the way; the fd, -ENOENT for a missing home (no failure recorded), or -errno. */
int	ab_tree_open(struct ab_sess *s, size_t tree, int oflags);

/*
 * entry.c: refuse entry paths that would exec something other than the agent's login
 * shell (sudo without -i, runuser -u, su -s, cron, unknown services).  ab_entry_check is
 * the pure decision on a service and an argv; ab_entry_verify reads our own
 * /proc/self/cmdline and /etc/shells and records the reason with ab_sess_fail.
 */
int	ab_entry_check(const char *service, int argc, char *const argv[], const char *pw_shell,
	    const char *caller_shell, const char **why);
int	ab_entry_verify(struct ab_sess *s, const char *service, const char *pw_shell);

/* reaper.c: open agentbox-init (root-owned, not writable by others) into s->init_fd,
 * before the world is built: a path under /tmp (tests) would be gone after. */
int	ab_reaper_open(struct ab_sess *s);
/* reaper.c: fork the session's pid 1 (agentbox-init) and wait until it runs. */
int	ab_reaper_start(struct ab_sess *s);
/* reaper.c: SIGKILL the session's pid 1 (the kernel kills the rest) and reap it. */
int	ab_reaper_stop(int init_pidfd, pid_t init_pid);

/*
 * box.c, persist = yes.  ab_box_decide: the one decision, join the user's running box or
 * build a new one (FORCE_BUILD: always build).  It locks the user's registry into
 * s->box_lock (held until ab_box_register or sess_close); joining, it leaves the pidfd
 * of the box's pid 1 in s->box_pidfd, its pid in s->init_pid and its id in s->box_id.
 * A box whose policy digest differs is ended first (ab_box_kill), and its end record
 * written on AUDIT_FD.  ab_box_join: setns into every namespace of the box.
 * ab_box_register: after a build, name the new box (s->box_id: the login's ses) in the
 * registry.  ab_box_kill: SIGKILL a box's pid 1 by pidfd and wait until every process
 * of it is gone.
 */
enum ab_box_how { AB_BOX_BUILD, AB_BOX_JOIN };
/* S->box_digest: the hex digest of the user's policy in force, hashed once.  0 or -errno
 * (refused). */
int	ab_box_digest(struct ab_sess *s);
int	ab_box_decide(struct ab_sess *s, int audit_fd, int force_build, enum ab_box_how *how);
int	ab_box_join(struct ab_sess *s);
int	ab_box_register(struct ab_sess *s);
int	ab_box_kill(int pidfd);

/* planfile.c: fill and write the session plan to AB_PLAN_PATH. */
int	ab_planfile_write(struct ab_sess *s);

/* auditrec.c: audit records (docs/audit-records.md).  ab_auditrec_open returns an fd or
 * -errno and asks whether audit is on; ab_auditrec_enabled reads the answer: 1 on, 0 off,
 * -1 unknown, and the kernel's audit state in *ST.  ab_auditrec_end asks for the state
 * again and writes it in the end record. */
int	ab_auditrec_open(void);
int	ab_auditrec_enabled(int fd, struct ab_audit_state *st);
int	ab_auditrec_start(int fd, const struct ab_sess *s, const char *service,
	    const char *tty, const char *rhost);
int	ab_auditrec_end(int fd, uint32_t ses, const char *user, uid_t uid, const char *service,
	    pid_t init_pid, const char *box_id);
/* The end of a persistent box is maskd/boxend.c's ab_box_end_record, shared. */
int	ab_auditrec_refused(int fd, const char *user, const char *service, const char *reason);

#endif /* AB_PAM_MODULE_H */
