/*
 * agentbox-maskd --daemon: the supervisor of every session's enforcer (maskd/README.md
 * "Fail closed"; research/dynamic_masks.md 2.6).
 *
 * The PAM module makes both fanotify groups inside the session's mount namespace, marks
 * the session's mounts and sends the groups here with the pidfd of the session's pid 1
 * (handoff.h).  For each session this process forks one reader, which answers the
 * permission events, and keeps a copy of both groups itself.  Why two holders: fanotify
 * allows every pending open and drops the marks when a group's last fd closes (research
 * e1), so no fd of a group may close while the session can still open files.  Both
 * groups, not only the permission one: a reader killed with an open waiting hangs in its
 * exit if that exit destroys a group (the waiting opener holds fsnotify's SRCU read
 * side: measured, the reader never became a zombie), and then nobody sees it die.
 *
 *   reader dies (killed, crashed, failed closed)  the supervisor SIGKILLs the session's
 *       pid 1 (the kernel kills the rest of its pid namespace), and closes its dup only
 *       once pid 1's pidfd says the namespace is gone: blocked opens wait, killably,
 *       until their process dies (research e2, e4: 0 leaks in 10).
 *   supervisor dies                              each reader sees its pidfd, kills its
 *       session the same way and keeps denying until pid 1 is gone, then exits.
 *   queue overflow                               FAN_UNLIMITED_QUEUE on both groups; an
 *       overflow event or S full fails the reader closed (enforce.c): the session ends.
 *   session ends                                 pid 1's pidfd: reader and supervisor
 *       close their copies.
 * A reader as pid 1 of the session is no fix (research e3), hence a host-side process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libaudit.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "daemon.h"
#include "handoff.h"
#include "maskd.h"
#include "netpool.h"
#include "unboxed.h"
#include "walkindex.h"

#define SESS_MAX	AB_MASKD_SESS_MAX	/* handoff.h says why */

struct sess {
	int		 used;
	uint32_t	 ses, uid;
	pid_t		 reader;
	int		 reader_pidfd;	/* -1 once reaped */
	int		 pid1;		/* pidfd of the session's pid 1; -1 once it is gone */
	int		 perm, track;	/* our copies of both groups */
	int		 warm;		/* the reader's warm set comes on this pipe; -1 */
	int		 release;	/* closed once our group copies are: the reader's
					 * cue to let them go last (world_release); -1 */
	char		 policy[AB_MASKD_POLICY_HEX + 1];	/* its user's, as sent */
};

#define WATCH_RETRY_MS	1000	/* a watcher that failed to start is started again */
/* Connections waiting for their message: a login connects before it builds its world
 * (the world hides the socket's path) and sends at step 7, after its mask walk; one
 * slow walk must not hold every other login, nor be refused for its length. */
#define PENDING_MAX	128	/* one fd each: twice the sessions (SESS_MAX) that can start */
#define PENDING_MS	30000	/* a walk is bounded (1,000,000 entries: ~0.5 s) */
#define NETPOOL_IDLE_MS	5	/* idle this long: one more namespace for the pool */

static struct sess sessions[SESS_MAX];
static const struct ab_maskd_serve_opts *opts;
static struct ab_unboxed *unboxed;	/* NULL: not watching, every login is refused */
static struct ab_netpool *netpool;	/* NULL: none kept, logins make their own */
static struct ab_windex *windex;	/* NULL: none, every login walks all its trees */
static struct pending {
	int		 fd;		/* -1: free */
	long long	 deadline;	/* CLOCK_MONOTONIC ms */
} pending[PENDING_MAX];
static char unboxed_dir[108];
/*
 * The warm set of the last few users (maskd/warm.c): what a reader sent as it ended,
 * inherited by the next reader of that uid and policy at its fork (a path one policy's
 * Landlock let the session read may be one another's does not).  Least recently stored
 * goes.
 */
#define WARM_UIDS	32
static struct warm_slot {
	int			 used;
	uint32_t		 uid;
	char			 policy[AB_MASKD_POLICY_HEX + 1];
	unsigned long long	 stamp;
	struct ab_maskd_warm	 w;
} warm_slots[WARM_UIDS];
static unsigned long long warm_clock;

static void __attribute__((format(printf, 2, 3)))
say(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsyslog(prio, fmt, ap);
	va_end(ap);
}

static void
close_fds(int *fds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			(void)close(fds[i]);
}

/*
 * The record of a session agentbox-maskd ends (docs/audit-records.md "Live masks"):
 * op=agentbox-mask-end, before the kill, so the review says why the session stopped.
 * A record that cannot be written is said in syslog: the session ends all the same
 * (fail closed first, record second).
 */
static void
end_record(uint32_t ses, uint32_t uid, const char *reason)
{
	int fd = ab_maskd_audit_open();

	if (fd < 0 || ab_maskd_audit_send(fd, 0, "op=agentbox-mask-end ses=%u uid=%u reason=%s",
	    ses, uid, reason) != 0)
		say(LOG_ERR, "ses %u: cannot write the agentbox-mask-end record (%s)", ses, reason);
	if (fd >= 0)
		audit_close(fd);
}

/*
 * End the session of pid 1 PID1 while still answering PERM: SIGKILL to pid 1 (the kernel
 * kills the whole pid namespace), and every open queued until it is gone is denied.
 */
static void
end_session(int perm, int pid1)
{
	if (pidfd_send_signal(pid1, SIGKILL, NULL, 0) == -1 && errno != ESRCH)
		say(LOG_ERR, "kill the session's pid 1: %m (still denying every open)");
	ab_maskd_deny_until_gone(perm, pid1);
}

static long long
now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The end of a session, off the next login's path.  When the session's pid 1 is gone,
 * two things are left for whoever lets go of them last, each slow:
 *   the box's mount namespace: the process that opened the login (su, sshd's, login's)
 *       unshared it and would be its last holder; its exit would unmount the whole
 *       world (umount_tree and an RCU grace period), 0.2-0.4 ms measured inside `su
 *       AGENT -c true` (bench/README.md, "The login's end, off its path").
 *   both fanotify groups: the close of a group's last fd waits for fsnotify's mark
 *       reaper (an SRCU grace period; flushing the marks first does not help while
 *       other sessions' marks are being freed), 3-23 ms measured, and in the supervisor
 *       that held every other login's walk plan and hand-off behind it.
 * So the reader holds the namespace (from pid 1's pidfd) from its start, and at the
 * session's end goes on answering opens (the login's process, still in that namespace,
 * may open files through the marked mounts) until that process has exited and the
 * supervisor has closed its copies of the groups (it closes the release pipe after
 * them), at most LOGIN_EXIT_WAIT_MS; then it lets the world go, and its exit the groups.
 * Nothing reaches the namespace meanwhile: no process is left in it but the login's, and
 * the fd is this root process's alone.  Only an optimisation: on a kernel without
 * SO_PEERPIDFD (6.5) or PIDFD_GET_MNT_NAMESPACE (6.11) the login's exit pays, as before.
 */
#define LOGIN_EXIT_WAIT_MS	250	/* su exits within a millisecond of its close */

/* Supervisor, at the hand-off: a pidfd of the login's process, or -1. */
static int
login_pidfd(int conn)
{
#ifdef SO_PEERPIDFD
	socklen_t len = sizeof(int);
	int fd = -1;

	if (getsockopt(conn, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) == -1)
		return -1;
	return fd;
#else
	(void)conn;
	return -1;
#endif
}

/* Reader, once its enforcer runs (before it answers anything): the mount namespace of
 * the box's pid 1, or -1. */
static int
world_hold(int pid1)
{
	int fd = ioctl(pid1, PIDFD_GET_MNT_NAMESPACE, 0);

	return fd < 0 ? -1 : fd;
}

/*
 * Reader, its session over: answer on until the login's process is gone and the
 * supervisor's group copies are (RELEASE hangs up), then let go, in this order: the
 * permission group (an open still pending is answered by its release, so that nothing
 * waits on it while the tracking group's teardown waits for fsnotify's SRCU), the
 * tracking group, the rest of the hand-off's fds (a learning session's group last), the
 * world (its unmount happens here).
 */
static void
world_release(struct ab_maskd *e, int *fds, size_t nfds, int world, int login, int release)
{
	const int cues[] = { login, release };	/* -1: none to wait for */
	size_t i;

	(void)ab_maskd_serve_until(e, cues, 2, LOGIN_EXIT_WAIT_MS);
	for (i = AB_MASKD_FD_PERM; i < nfds; i++)	/* handoff.h's order: perm, track, */
		(void)close(fds[i]);			/* mounts, the learning group */
	if (world >= 0)
		(void)close(world);
}

/*
 * The trees the masks are decided in: the projects (the home is the decider's own),
 * and for a learning session "/" too, standing for everything outside them: without
 * Landlock's read set, masks are what keeps a learning session from another project's
 * .env (ab_maskd_decider_outside).
 */
static int
learning_trees(const struct ab_maskd_open *m, struct ab_strv *out)
{
	int r;

	if ((r = ab_strv_append(out, &m->projects)) != 0)
		return r;
	return m->learn ? ab_strv_push(out, "/") : 0;
}

static struct warm_slot *
warm_of(uint32_t uid, const char *policy)
{
	size_t i;

	for (i = 0; i < WARM_UIDS; i++)
		if (warm_slots[i].used && warm_slots[i].uid == uid &&
		    strcmp(warm_slots[i].policy, policy) == 0)
			return &warm_slots[i];
	return NULL;
}

/* Keep the warm set a reader of UID under POLICY sent on FD (non-blocking, written
 * before it ended).  A user's set under another policy is replaced. */
static void
warm_keep(uint32_t uid, const char *policy, int fd)
{
	struct warm_slot *slot = NULL, *other = &warm_slots[0];
	ssize_t n;
	size_t i;

	/* UID's own slot; else a free one, else the one least recently stored. */
	for (i = 0; slot == NULL && i < WARM_UIDS; i++) {
		if (warm_slots[i].used && warm_slots[i].uid == uid)
			slot = &warm_slots[i];
		else if (other->used && (!warm_slots[i].used ||
		    warm_slots[i].stamp < other->stamp))
			other = &warm_slots[i];
	}
	if (slot == NULL)
		slot = other;
	/* Read in place: a read that fails or finds nothing has written nothing. */
	if ((n = read(fd, slot->w.buf, sizeof(slot->w.buf))) <= 0)
		return;		/* none sent: a reader that failed, or nothing cached */
	slot->used = 1;
	slot->uid = uid;
	memcpy(slot->policy, policy, sizeof(slot->policy));
	slot->stamp = ++warm_clock;
	slot->w.len = (size_t)n;
}

/* The reader of one session: never returns.  FDS as received (handoff.h order); WARM_FD
 * the pipe its warm set goes back on (-1: none); LOGIN a pidfd of the login's process
 * and RELEASE the supervisor's cue (world_release; -1: none). */
static void __attribute__((noreturn))
reader(const struct ab_maskd_open *m, int *fds, size_t nfds, pid_t parent, int warm_fd,
    int login, int release)
{
	struct ab_maskd_decider *d;
	struct ab_maskd *e;
	struct ab_maskd_stats st;
	struct ab_learn *l = NULL;
	struct ab_learn_stats ls = { 0 };
	struct ab_maskrec *rec = NULL;
	struct ab_maskrec_stats rs = { 0 };
	struct ab_maskrec_sink sink = { ab_maskd_audit_sink, ab_maskd_audit_lost, NULL };
	static struct ab_maskd_warm warm;
	int audit_fd = -1;
	size_t nmounts = nfds - AB_MASKD_FD_MOUNT - (m->learn ? 1 : 0);
	struct ab_strv trees = { 0 };
	/* What the session's Landlock would grant, for a learning session's recorder and
	 * its masks outside the trees.  Lives as long as the reader (it never returns). */
	const struct ab_fs_sets grants = { &m->reads, &m->writes, &m->projects, m->home,
	    (uid_t)m->uid };
	int parentfd, world, r;

	prctl(PR_SET_NAME, "maskd-reader", 0, 0, 0);
	/* A stop that signals the whole service must not take the reader down with the
	 * supervisor (both gone: the groups close, pending opens are allowed).  The
	 * reader ends when the supervisor is gone, after ending the session. */
	(void)signal(SIGTERM, SIG_IGN);
	(void)signal(SIGINT, SIG_IGN);
	(void)signal(SIGHUP, SIG_IGN);
	(void)signal(SIGPIPE, SIG_IGN);	/* the warm set's pipe, its reader gone */
	/* Our supervisor's life: if it is gone already, getppid says so after the open. */
	if ((parentfd = pidfd_open(parent, 0)) == -1 || getppid() != parent) {
		say(LOG_ERR, "ses %u: supervisor gone before the reader started: ending the "
		    "session", m->ses);
		end_record(m->ses, m->uid, "supervisor-gone");
		/* We may be the groups' last holder: nothing goes through until pid 1 is. */
		end_session(fds[AB_MASKD_FD_PERM], fds[AB_MASKD_FD_PID1]);
		_exit(1);
	}
	if ((r = learning_trees(m, &trees)) != 0 ||
	    (r = ab_maskd_decider_new(&m->patterns, m->home, &trees, &d)) != 0 ||
	    (m->learn && (r = ab_maskd_decider_outside(d, &grants)) != 0) ||
	    (r = ab_maskd_adopt(d, opts->history_max, fds[AB_MASKD_FD_PERM],
	    fds[AB_MASKD_FD_TRACK], fds + AB_MASKD_FD_MOUNT, nmounts, &e)) != 0 ||
	    (m->learn && (r = ab_learn_new(fds[nfds - 1], m->ses, m->uid, &grants,
	    opts->learn_max, &l)) != 0) ||
	    (r = ab_maskd_watch(e, fds[AB_MASKD_FD_PID1])) != 0 ||
	    (r = ab_maskd_watch(e, parentfd)) != 0 ||
	    (r = audit_fd = ab_maskd_audit_open()) < 0 ||
	    (sink.arg = &audit_fd, r = ab_maskrec_new(&sink, &rec)) != 0) {
		say(LOG_ERR, "ses %u: cannot start the enforcer: %s: ending the session", m->ses,
		    strerror(-r));
		end_record(m->ses, m->uid, "cannot-start");
		end_session(fds[AB_MASKD_FD_PERM], fds[AB_MASKD_FD_PID1]);
		_exit(1);
	}
	if (l != NULL)
		ab_maskd_learn(e, l);
	world = world_hold(fds[AB_MASKD_FD_PID1]);
	/* Answer ahead what this user's last session opened first, and note this one's. A
	 * learning session's tree is "/": nothing is outside it, so it has no warm set. */
	if (warm_fd >= 0 && !m->learn) {
		const struct warm_slot *ws = warm_of(m->uid, m->policy);

		ab_maskd_warm_collect(e, &warm);
		if (ws != NULL)
			(void)ab_maskd_warm_seed(e, fds[AB_MASKD_FD_PID1], ws->w.buf, ws->w.len);
	}
	/* Each denial on the record with its pattern (docs/audit-records.md "Live masks"). */
	ab_maskd_record(e, rec, m->ses, m->uid);
	r = ab_maskd_run(e);
	ab_maskd_stats(e, &st);
	ab_maskrec_stats(rec, &rs);
	if (l != NULL)
		ab_learn_stats(l, &ls);
	if (r == fds[AB_MASKD_FD_PID1]) {
		/* One write into an empty pipe, smaller than its buffer: never blocks. */
		if (warm_fd >= 0 && warm.len != 0)
			(void)ab_io_write_all(warm_fd, warm.buf, warm.len);
		say(LOG_INFO, "ses %u ended (allowed %llu, denied %llu, cached %llu, warm %llu, "
		    "tracked %llu, creating opens %llu, learning events %llu, recorded %llu, mask "
		    "records %llu, repeats %llu, not recorded %llu)", m->ses,
		    (unsigned long long)st.allowed, (unsigned long long)st.denied,
		    (unsigned long long)st.cached, (unsigned long long)st.warm,
		    (unsigned long long)st.tracked,
		    (unsigned long long)st.created, (unsigned long long)ls.events,
		    (unsigned long long)ls.recorded, (unsigned long long)rs.records,
		    (unsigned long long)rs.repeats, (unsigned long long)rs.lost);
		world_release(e, fds, nfds, world, login, release);
		_exit(0);
	}
	if (r == parentfd) {
		say(LOG_ERR, "ses %u: the supervisor is gone: ending the session", m->ses);
		end_record(m->ses, m->uid, "supervisor-gone");
	} else {
		say(LOG_ERR, "ses %u: enforcer failed closed (%s; denied %llu): ending the "
		    "session", m->ses, strerror(-r), (unsigned long long)st.denied);
		end_record(m->ses, m->uid, "failed-closed");
	}
	end_session(fds[AB_MASKD_FD_PERM], fds[AB_MASKD_FD_PID1]);
	_exit(1);
}

static void
reply(int conn, const char *fmt, ...)
{
	char buf[AB_MASKD_REPLY_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (send(conn, buf, (size_t)n, MSG_NOSIGNAL) != n)
		say(LOG_WARNING, "reply to the PAM module: %m");
}

static struct sess *
free_slot(void)
{
	size_t i;

	for (i = 0; i < SESS_MAX; i++)
		if (!sessions[i].used)
			return &sessions[i];
	return NULL;
}


/* The child keeps only its own session's fds: a reader holding another session's group
 * would keep that group alive past its session. */
static void
child_close_others(int listen_fd, int conn)
{
	size_t i;

	(void)close(listen_fd);
	(void)close(conn);
	for (i = 0; i < PENDING_MAX; i++)	/* other logins' connections */
		if (pending[i].fd >= 0 && pending[i].fd != conn)
			(void)close(pending[i].fd);
	ab_unboxed_free(unboxed);	/* the parent's watcher, not ours to hold */
	unboxed = NULL;
	ab_netpool_free(netpool);	/* namespaces for other boxes */
	netpool = NULL;
	ab_windex_forsake(windex);	/* its group; not its memory: see walkindex.h */
	for (i = 0; i < SESS_MAX; i++) {
		if (!sessions[i].used)
			continue;
		if (sessions[i].reader_pidfd >= 0)
			(void)close(sessions[i].reader_pidfd);
		if (sessions[i].pid1 >= 0)
			(void)close(sessions[i].pid1);
		if (sessions[i].perm >= 0)
			(void)close(sessions[i].perm);
		if (sessions[i].track >= 0)
			(void)close(sessions[i].track);
		if (sessions[i].warm >= 0)
			(void)close(sessions[i].warm);
		if (sessions[i].release >= 0)
			(void)close(sessions[i].release);
	}
}

/* "watch UID" (unboxed.h): UID's processes outside a box, in its state file, from now
 * on.  The module asks at a login of UID when the file is not there yet. */
static void
take_watch(int conn, const char *arg)
{
	unsigned long uid;
	char *end;
	int r;

	errno = 0;
	uid = strtoul(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || uid == 0 || uid > UINT32_MAX - 1) {
		reply(conn, "refused malformed watch request");
		return;
	}
	if (unboxed == NULL) {
		reply(conn, "refused not watching processes outside a box");
		return;
	}
	if ((r = ab_unboxed_watch(unboxed, (unsigned)uid)) != 0) {
		reply(conn, "refused cannot watch uid %lu: %s", uid, strerror(-r));
		say(LOG_ERR, "watch uid %lu: %s", uid, strerror(-r));
		return;
	}
	reply(conn, "ok");
}

/*
 * "netns" (handoff.h): one namespace of the pool, out of it before it is sent and closed
 * here after, whatever the send did: it is never offered twice.  An empty pool is a
 * refusal the module answers by making its own.
 */
static void
give_netns(int conn)
{
	int fd, r;

	if (netpool == NULL || (fd = ab_netpool_take(netpool)) < 0) {
		reply(conn, "refused no network namespace ready");
		return;
	}
	if ((r = ab_send_fds(conn, "ok", 2, &fd, 1)) != 0)
		say(LOG_WARNING, "send a network namespace to the PAM module: %s", strerror(-r));
	(void)close(fd);
}

/*
 * One more namespace for the pool, after a hand-off or when the daemon has been idle for
 * NETPOOL_IDLE_MS: not between a login's take and its hand-off (making one takes ~0.4 ms
 * of this thread), and one at a time, so a login that comes meanwhile waits for one at
 * most.  A failure is said once until one succeeds: logins make their own meanwhile.
 * Only a make that could not come back to the host's namespace is fatal.
 */
static int netpool_last;	/* the last make's result: a failing one is retried slowly */

static int
netpool_make(void)
{
	int r;

	if (netpool == NULL || ab_netpool_full(netpool))
		return 0;
	if ((r = ab_netpool_make(netpool)) == -ENOTRECOVERABLE) {
		say(LOG_ERR, "making a network namespace: cannot return to the host's: exiting");
		return r;
	}
	if (r != 0 && r != netpool_last)
		say(LOG_WARNING, "cannot make network namespaces ahead (%s): logins make their "
		    "own", strerror(-r));
	netpool_last = r;
	return 0;
}

/* How long poll waits: for ever, but for the watcher's retry and the pool's refill. */
static int
poll_timeout(void)
{
	if (unboxed == NULL)
		return WATCH_RETRY_MS;
	if (netpool != NULL && !ab_netpool_full(netpool))
		return netpool_last == 0 ? NETPOOL_IDLE_MS : WATCH_RETRY_MS;
	return -1;
}

/*
 * "walkplan 1 ..." (handoff.h): which directories this login's mask walk must read.
 * Without an index, "refused": the login walks all of its trees, as before there was one.
 */
static void
give_plan(int conn, const char *buf, size_t len)
{
	static char out[AB_WALKPLAN_REPLY_MAX];
	size_t n = 0;

	if (windex == NULL) {
		reply(conn, "refused no walk index");
		return;
	}
	ab_windex_plan(windex, buf, len, out, sizeof(out), &n);
	if (send(conn, out, n, MSG_NOSIGNAL) != (ssize_t)n)
		say(LOG_WARNING, "walk plan to the PAM module: %m");
}

/* "walkcheck ID GEN": was anything added to that plan while its login walked? */
static void
check_plan(int conn, const char *arg)
{
	unsigned id, gen;
	int end = 0;

	if (windex == NULL || sscanf(arg, "%u %u%n", &id, &gen, &end) != 2 ||
	    arg[end] != '\0') {
		reply(conn, "changed");
		return;
	}
	reply(conn, ab_windex_check(windex, id, gen) == 0 ? "same" : "changed");
}

/*
 * No reader for this hand-off: the fork failed (PID -1), or the reader forked cannot be
 * watched (pidfd_open: without it we could not see it die), ERR why.  The login is
 * refused with the reason, which kills its pid 1; a reader forked is killed first, so
 * its copies of the groups go before the module's refusal lets the session's opens go.
 */
static void
refuse_unwatched(int conn, struct ab_maskd_open *m, int *fds, size_t nfds, int warm,
    int release, pid_t pid, int err)
{
	const char *what = pid == -1 ? "fork" : "pidfd_open(reader)";

	if (pid > 0) {
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
	}
	if (warm >= 0)
		(void)close(warm);
	if (release >= 0)
		(void)close(release);
	(void)pidfd_send_signal(fds[AB_MASKD_FD_PID1], SIGKILL, NULL, 0);
	close_fds(fds, nfds);
	reply(conn, "refused %s: %s", what, strerror(err));
	say(LOG_ERR, "ses %u refused: %s: %s", m->ses, what, strerror(err));
	ab_maskd_open_free(m);
}

/* One request on CONN: a hand-off (a reader for the session, or a refusal with the
 * reason), a watch, or a network namespace.  1 for the last, else 0. */
static int
take_session(int listen_fd, int conn)
{
	static char buf[AB_MASKD_MSG_MAX + 1];
	int fds[AB_MASKD_NFDS_MAX];
	struct ab_maskd_open m;
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	struct sess *s;
	size_t nfds = 0;
	ssize_t len;
	pid_t pid, parent = getpid();
	int warm[2], release[2], login, rpidfd = -1, r;

	memset(&cred, 0, sizeof(cred));
	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == -1) {
		say(LOG_WARNING, "a connection's credentials: %m: refused");
		return 0;
	}
	if (cred.uid != 0) {
		say(LOG_WARNING, "hand-off from uid %d refused: root only", (int)cred.uid);
		return 0;
	}
	len = ab_recv_fds(conn, buf, sizeof(buf) - 1, fds, AB_MASKD_NFDS_MAX, &nfds);
	if (len < 0) {
		close_fds(fds, nfds);
		reply(conn, "refused cannot read the message: %s", strerror((int)-len));
		return 0;
	}
	buf[len] = '\0';	/* the text requests are compared as strings */
	if (len == 0 && nfds == 0)
		return 0;	/* hung up unsent: a login refused before its step 7 */
	if (nfds == 0 && len == 5 && memcmp(buf, "netns", 5) == 0) {
		give_netns(conn);
		return 1;
	}
	if (nfds == 0 && strncmp(buf, "watch ", 6) == 0) {
		take_watch(conn, buf + 6);
		return 0;
	}
	if (nfds == 0 && strncmp(buf, "walkplan ", 9) == 0) {
		give_plan(conn, buf, (size_t)len);
		return 0;
	}
	if (nfds == 0 && strncmp(buf, "walkcheck ", 10) == 0) {
		check_plan(conn, buf + 10);
		return 0;
	}
	memset(&m, 0, sizeof(m));
	if (nfds < AB_MASKD_FD_MOUNT + 1 || (r = ab_maskd_open_parse(buf, (size_t)len, &m)) != 0 ||
	    (m.learn && nfds < AB_MASKD_FD_MOUNT + 2)) {
		close_fds(fds, nfds);
		ab_maskd_open_free(&m);
		reply(conn, "refused malformed hand-off (%zu fds)", nfds);
		return 0;
	}
	if ((s = free_slot()) == NULL) {
		close_fds(fds, nfds);
		reply(conn, "refused %d sessions already enforced", SESS_MAX);
		say(LOG_ERR, "ses %u refused: %d sessions already", m.ses, SESS_MAX);
		ab_maskd_open_free(&m);
		return 0;
	}
	/* The warm set is an optimisation: without its pipe the session is only slower. */
	if (!opts->warm || m.policy[0] == '\0' || pipe2(warm, O_CLOEXEC | O_NONBLOCK) == -1)
		warm[0] = warm[1] = -1;
	login = login_pidfd(conn);
	if (pipe2(release, O_CLOEXEC) == -1)
		release[0] = release[1] = -1;	/* the groups' last close may be ours then */
	/*
	 * "ok" once the reader is forked and watched: it holds the groups from then on, so
	 * the answer never precedes a holder that outlives us (were we to die between an
	 * "ok" and the fork, the groups would close with us and the session run unmasked;
	 * a reader that finds us gone ends its session), and a reader we cannot watch is a
	 * refusal with its reason, not a session ended after it began.
	 */
	if ((pid = fork()) == 0) {
		child_close_others(listen_fd, conn);
		if (warm[0] >= 0)
			(void)close(warm[0]);
		if (release[1] >= 0)
			(void)close(release[1]);
		reader(&m, fds, nfds, parent, warm[1], login, release[0]);
	}
	r = pid == -1 ? errno : 0;
	if (warm[1] >= 0)
		(void)close(warm[1]);
	if (release[0] >= 0)
		(void)close(release[0]);
	if (login >= 0)
		(void)close(login);
	if (pid != -1 && (rpidfd = pidfd_open(pid, 0)) == -1)
		r = errno;
	if (r != 0) {
		refuse_unwatched(conn, &m, fds, nfds, warm[0], release[1], pid, r);
		return 0;
	}
	reply(conn, "ok");
	*s = (struct sess){ .used = 1, .ses = m.ses, .uid = m.uid, .reader = pid,
	    .reader_pidfd = rpidfd, .pid1 = fds[AB_MASKD_FD_PID1], .perm = fds[AB_MASKD_FD_PERM],
	    .track = fds[AB_MASKD_FD_TRACK], .warm = warm[0], .release = release[1] };
	memcpy(s->policy, m.policy, sizeof(s->policy));
	say(LOG_INFO, "ses %u (uid %u): enforcing masks, reader %d", m.ses, m.uid, (int)pid);
	/* What its walk found, once the login has its answer. */
	if (m.walked && windex != NULL)
		ab_windex_report(windex, m.uid, m.walk_id, m.walk_gen, &m.found, &m.mounts);
	fds[AB_MASKD_FD_PID1] = fds[AB_MASKD_FD_PERM] = fds[AB_MASKD_FD_TRACK] = -1; /* in *s */
	close_fds(fds, nfds);
	ab_maskd_open_free(&m);
	return 0;
}

/* The reader of S is gone: reap it; if its session still runs, end it. */
static void
reader_gone(struct sess *s)
{
	siginfo_t si = { 0 };

	(void)waitid(P_PIDFD, (id_t)s->reader_pidfd, &si, WEXITED | WNOHANG);
	(void)close(s->reader_pidfd);
	s->reader_pidfd = -1;
	if (s->warm >= 0) {
		warm_keep(s->uid, s->policy, s->warm);
		(void)close(s->warm);
		s->warm = -1;
	}
	if (s->pid1 < 0) {
		/* After its session: nothing to end, but a crash is said. */
		if (si.si_code != CLD_EXITED)
			say(LOG_WARNING, "ses %u: reader %d killed by signal %d after its session "
			    "ended", s->ses, (int)s->reader, si.si_status);
		return;
	}
	say(LOG_ERR, "ses %u: reader %d ended (%s %d) while the session runs: ending the "
	    "session, its group stays open until pid 1 is gone", s->ses, (int)s->reader,
	    si.si_code == CLD_EXITED ? "status" : "signal", si.si_status);
	/* A reader that failed closed wrote its own record; one killed or crashed did not. */
	if (si.si_code != CLD_EXITED)
		end_record(s->ses, s->uid, "reader-gone");
	if (pidfd_send_signal(s->pid1, SIGKILL, NULL, 0) == -1 && errno != ESRCH)
		say(LOG_ERR, "ses %u: kill pid 1: %m (opens stay blocked)", s->ses);
}

/*
 * A persist = yes box that ended by itself (its linger ran out, its pid 1 was killed):
 * its end on the record now, not at the next login (maskd/boxend.c).  Its registry
 * names it by the ses of the login that built it, which is this session's.  Never
 * waits: while a login or agentbox stop holds the registry, that one writes the record.
 */
static void
box_gone(const struct sess *s)
{
	struct ab_box_entry g;
	char id[16];
	int lock, fd, r;

	snprintf(id, sizeof(id), "%u", s->ses);
	if ((lock = ab_box_registry_lock(s->uid, 0)) < 0) {
		if (lock != -ENOENT && lock != -EWOULDBLOCK)
			say(LOG_ERR, "ses %u: box registry of uid %u: %s", s->ses, s->uid,
			    strerror(-lock));
		return;
	}
	if ((r = ab_box_registry_take(lock, id, &g)) == 1) {
		if ((fd = ab_maskd_audit_open()) < 0 ||
		    ab_box_end_record(fd, g.id, g.user, s->uid, g.pid, "gone") != 0)
			say(LOG_ERR, "ses %u: cannot write the agentbox-box-end record", s->ses);
		if (fd >= 0)
			audit_close(fd);
	} else if (r < 0) {
		say(LOG_ERR, "ses %u: box registry of uid %u: %s", s->ses, s->uid, strerror(-r));
	}
	close(lock);
}

/* The session of S has ended (pid 1 and its namespace are gone): our copies go. */
static void
pid1_gone(struct sess *s)
{
	box_gone(s);
	(void)close(s->pid1);
	(void)close(s->perm);
	(void)close(s->track);
	/* Said after both: the reader, which holds them too, lets them go last (below). */
	if (s->release >= 0)
		(void)close(s->release);
	s->pid1 = s->perm = s->track = s->release = -1;
}

/* The directory of the control socket PATH (root only), which holds the watcher's too. */
static int
control_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	strcpy(dir, path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) == -1 && errno != EEXIST)
			return -errno;
	}
	return 0;
}

static int
listen_on(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, r;

	if ((r = control_dir(path)) != 0)
		return r;
	strcpy(sun.sun_path, path);	/* control_dir checked its length */
	if (unlink(path) == -1 && errno != ENOENT)
		return -errno;
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 || chmod(path, 0600) == -1 ||
	    listen(fd, 64) == -1) {
		int e = errno;

		(void)close(fd);
		return -e;
	}
	return fd;
}

/* The watcher (re)started: its state is rebuilt from nothing, uid by uid as logins ask.
 * Failing, it stays off: the daemon still enforces the running sessions' masks, and every
 * new login is refused (no lock on the state directory). */
static void
watcher_start(void)
{
	static int last;	/* the last failure said, so a retry each second says it once */
	int r;

	ab_unboxed_free(unboxed);
	unboxed = NULL;
	if ((r = ab_unboxed_open(unboxed_dir, &unboxed)) != 0) {
		if (r != last)
			say(LOG_ERR, "cannot watch processes outside a box (%s): %s; every "
			    "login is refused until it can", unboxed_dir, strerror(-r));
		last = r;
		return;
	}
	if (last != 0)
		say(LOG_INFO, "watching processes outside a box again");
	last = 0;
}

/* The directory of the control socket PATH, then "/unboxed". */
static int
unboxed_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	int n;

	if (slash == NULL)
		return -EINVAL;
	n = snprintf(unboxed_dir, sizeof(unboxed_dir), "%.*s/%s", (int)(slash - path), path,
	    AB_MASKD_UNBOXED_DIR);
	return n < 0 || (size_t)n >= sizeof(unboxed_dir) ? -ENAMETOOLONG : 0;
}

/* A new connection waits in pending[] for its message (or is refused: too many). */
static void
accept_one(int listen_fd)
{
	struct timeval tv = { 1, 0 };
	size_t i;
	int conn;

	if ((conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC)) == -1)
		return;
	/* Once its message is there, neither its read nor our reply may hold the rest. */
	if (setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == -1) {
		(void)close(conn);
		return;
	}
	for (i = 0; i < PENDING_MAX; i++) {
		if (pending[i].fd < 0) {
			pending[i] = (struct pending){ conn, now_ms() + PENDING_MS };
			return;
		}
	}
	reply(conn, "refused %d logins already waiting", PENDING_MAX);
	say(LOG_WARNING, "a login refused: %d connections already wait for their message",
	    PENDING_MAX);
	(void)close(conn);
}

/* Pending connection I's message is there (or it hung up): serve it, then it goes.
 * 1 if it took a network namespace of the pool. */
static int
serve_pending(int listen_fd, size_t i)
{
	int took;

	if (pending[i].fd < 0)
		return 0;
	took = take_session(listen_fd, pending[i].fd);
	(void)close(pending[i].fd);
	pending[i].fd = -1;
	return took;
}

/* Close the connections that sent nothing in PENDING_MS; ms until the next deadline
 * (or -1: none waits). */
static int
pending_expire(void)
{
	long long now = now_ms(), next = -1;
	size_t i;

	for (i = 0; i < PENDING_MAX; i++) {
		if (pending[i].fd < 0)
			continue;
		if (pending[i].deadline <= now) {
			say(LOG_WARNING, "a connection sent nothing in %d ms: closed", PENDING_MS);
			(void)close(pending[i].fd);
			pending[i].fd = -1;
		} else if (next < 0 || pending[i].deadline - now < next)
			next = pending[i].deadline - now;
	}
	return next < 0 ? -1 : (int)next;
}

/* The sooner of two poll timeouts (-1: for ever). */
static int
sooner(int a, int b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

int
ab_maskd_serve(const struct ab_maskd_serve_opts *o)
{
	struct pollfd p[3 + 2 * SESS_MAX + PENDING_MAX];
	struct sess *who[3 + 2 * SESS_MAX + PENDING_MAX];
	size_t pend[3 + 2 * SESS_MAX + PENDING_MAX];	/* for a pending entry: its slot */
	size_t i, np, nsess;
	int listen_fd, n, r, refill, timeout;

	opts = o;
	for (i = 0; i < PENDING_MAX; i++)
		pending[i].fd = -1;
	openlog("agentbox-maskd", LOG_PID | (o->foreground ? LOG_PERROR : 0), LOG_DAEMON);
	/* The watcher first: once the control socket exists, a login finds it watching
	 * (a login between the two was refused as "not watching, or starting").  Its
	 * sockets, pidfds and lock are kept across daemon()'s fork. */
	if ((r = unboxed_path(o->control)) != 0 || (r = control_dir(o->control)) != 0) {
		say(LOG_ERR, "control socket %s: %s", o->control, strerror(-r));
		return 1;
	}
	watcher_start();
	/* The pool before the control socket too: a login that finds the socket finds
	 * namespaces ready (the fds are kept across daemon()'s fork). */
	if (o->netns_pool != 0 && (r = ab_netpool_new(o->netns_pool, &netpool)) != 0)
		say(LOG_WARNING, "no pool of network namespaces (%s): logins make their own",
		    strerror(-r));
	for (i = 0; i < o->netns_pool; i++)
		if (netpool_make() != 0)
			return 1;
	/* The walk index: without it (no fanotify for us), every login walks all. */
	if (o->walk_index && (r = ab_windex_new(&windex)) != 0)
		say(LOG_WARNING, "no walk index (%s): every login walks all its trees",
		    strerror(-r));
	if ((listen_fd = listen_on(o->control)) < 0) {
		say(LOG_ERR, "control socket %s: %s", o->control, strerror(-listen_fd));
		return 1;
	}
	if (!o->foreground && daemon(0, 0) == -1) {
		say(LOG_ERR, "daemon: %m");
		return 1;
	}
	say(LOG_INFO, "taking sessions on %s", o->control);
	for (;;) {
		/* Rebuilt each round: at most 130 entries, and only on an event. */
		p[0] = (struct pollfd){ .fd = listen_fd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = unboxed != NULL ? ab_unboxed_fd(unboxed) : -1,
		    .events = POLLIN };
		p[2] = (struct pollfd){ .fd = windex != NULL ? ab_windex_fd(windex) : -1,
		    .events = POLLIN };
		np = 3;
		for (i = 0; i < SESS_MAX; i++) {
			struct sess *s = &sessions[i];

			if (s->used && s->reader_pidfd < 0 && s->pid1 < 0)
				s->used = 0;
			if (!s->used)
				continue;
			/* pid 1 first: a reader that ended with its session (both seen in
			 * one round) is not taken for one that died while the session runs. */
			if (s->pid1 >= 0) {
				who[np] = s;
				p[np++] = (struct pollfd){ .fd = s->pid1, .events = POLLIN };
			}
			if (s->reader_pidfd >= 0) {
				who[np] = s;
				p[np++] = (struct pollfd){ .fd = s->reader_pidfd, .events = POLLIN };
			}
		}
		/* Expired connections go before the rest are polled: none closed is in p[]. */
		timeout = sooner(poll_timeout(), pending_expire());
		nsess = np;
		for (i = 0; i < PENDING_MAX; i++) {
			if (pending[i].fd < 0)
				continue;
			who[np] = NULL;
			pend[np] = i;
			p[np++] = (struct pollfd){ .fd = pending[i].fd, .events = POLLIN };
		}
		/* Not watching (it failed to start: the lock held by a daemon still going
		 * away, no connector): every login is refused until it starts, so try again
		 * each second. */
		if ((n = poll(p, np, timeout)) == -1) {
			if (errno == EINTR)
				continue;
			say(LOG_ERR, "poll: %m");
			return 1;	/* every reader sees us go and ends its session */
		}
		if (n == 0 && unboxed == NULL)
			watcher_start();
		if (p[1].revents != 0 && (r = ab_unboxed_serve(unboxed)) != 0) {
			say(LOG_ERR, "watching processes outside a box: %s: starting again",
			    strerror(-r));
			watcher_start();
		}
		/* The index follows the trees as they change, between logins too. */
		if (p[2].revents != 0 && (r = ab_windex_drain(windex)) != 0)
			say(LOG_WARNING, "walk index: %s: every login walks all its trees once",
			    strerror(-r));
		for (i = 3; i < nsess; i++) {
			if (p[i].revents == 0)
				continue;
			if (p[i].fd == who[i]->reader_pidfd)
				reader_gone(who[i]);
			else if (p[i].fd == who[i]->pid1)
				pid1_gone(who[i]);
		}
		/* The pool's refill: after a message served (a login that took a namespace
		 * has its hand-off still to send: not after that one), or when idle (a login
		 * without masks hands nothing off). */
		refill = n == 0;
		for (i = nsess; i < np; i++)
			if (p[i].revents != 0 && !serve_pending(listen_fd, pend[i]))
				refill = 1;
		if (p[0].revents != 0)
			accept_one(listen_fd);
		if (refill && netpool_make() != 0)
			return 1;	/* every reader sees us go and ends its session */
	}
}
