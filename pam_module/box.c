/*
 * persist = yes: a box that outlives the login that built it (DESIGN.md, box lifecycle).
 *
 * The box is its pid 1: while agentbox-init lives, so do the box's namespaces, and when
 * it ends the kernel kills every process of the box (nothing of a box outlives it).
 * Later logins find it in the registry, one root-only file per user on the host,
 * AB_BOX_DIR/UID (the box's own /run hides it from the box), holding one line:
 *
 *   BOXID INIT_PID START_TICKS DIGEST_HEX CREATED USER
 *
 * BOXID is the audit session id of the login that built the box; START_TICKS (field 22
 * of /proc/PID/stat) tells the box's pid 1 from a process that reused its pid; USER, a
 * box of a deleted user from one of the user who got its uid.  The file
 * is flocked from the decision to the registration, so two first logins at once build
 * one box: the second one joins it.
 *
 * One decision, ab_box_decide: join the running box, or build a new one.  Building
 * ends a box whose policy digest differs from the login's (every process, an end record
 * with reason=policy-changed) and forgets one that ended by itself (linger, killed:
 * reason=gone).  FORCE_BUILD is for callers that must get their own box (agentbox
 * run): it is built as a persistent one but not registered, so no login joins it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "maskd.h"
#include "module.h"

#define BOX_STOP_WAIT_MS	3000

/* Field 22 of /proc/PID/stat (start time in clock ticks), read through the host's /proc. */
static int
start_ticks(int procfd, pid_t pid, unsigned long long *out)
{
	char path[32], buf[1024], *p;
	ssize_t n;
	int fd, f;

	snprintf(path, sizeof(path), "%d/stat", (int)pid);
	if ((fd = openat(procfd, path, O_RDONLY | O_CLOEXEC)) == -1)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	/* Counted after the last ')', which ends comm (comm may hold anything). */
	if ((p = strrchr(buf, ')')) == NULL)
		return -EIO;
	for (f = 2; p != NULL && f < 22; f++)
		p = strchr(p + 1, ' ');
	if (p == NULL)
		return -EIO;
	*out = strtoull(p + 1, NULL, 10);
	return 0;
}

/* A pidfd of E's pid 1 if that very process still runs, else -ESRCH. */
static int
open_box_init(struct ab_sess *s, const struct ab_box_entry *e)
{
	unsigned long long ticks;
	struct pollfd pfd;
	int fd;

	if ((fd = pidfd_open(e->pid, 0)) == -1)
		return errno == ESRCH ? -ESRCH : -errno;
	/* Opened first, then checked: a pid reused after the check is not this pidfd. */
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (start_ticks(s->procfd, e->pid, &ticks) != 0 || ticks != e->ticks ||
	    poll(&pfd, 1, 0) != 0) {
		close(fd);
		return -ESRCH;
	}
	return fd;
}

/* SIGKILL the box's pid 1 (the kernel kills the rest) and wait until it has exited. */
int
ab_box_kill(int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	int r;

	if (pidfd_send_signal(pidfd, SIGKILL, NULL, 0) == -1 && errno != ESRCH)
		return -errno;
	/* Readable once pid 1 exited, which is after every other process of its pid
	 * namespace was killed and reaped (zap_pid_ns_processes). */
	while ((r = poll(&pfd, 1, BOX_STOP_WAIT_MS)) == -1 && errno == EINTR)
		;
	if (r == -1)
		return -errno;
	return r == 0 ? -ETIMEDOUT : 0;
}

/* Open and lock the user's registry file (created empty, root-only). */
static int
lock_registry(struct ab_sess *s)
{
	char name[16];
	struct stat st;
	int dirfd, fd;

	if (mkdir(AB_BOX_DIR, 0700) == -1 && errno != EEXIST)
		return ab_sess_fail(s, -errno, "mkdir %s: %s", AB_BOX_DIR, strerror(errno));
	if ((dirfd = open(AB_BOX_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return ab_sess_fail(s, -errno, "open %s: %s", AB_BOX_DIR, strerror(errno));
	/* Only a root-owned, root-only directory may say where a box is. */
	if (fstat(dirfd, &st) == -1 || st.st_uid != 0 || (st.st_mode & 077) != 0) {
		close(dirfd);
		return ab_sess_fail(s, -EPERM, "%s is not root-owned mode 0700", AB_BOX_DIR);
	}
	snprintf(name, sizeof(name), "%u", (unsigned)s->uid);
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dirfd);
	if (fd == -1)
		return ab_sess_fail(s, -errno, "open %s/%s: %s", AB_BOX_DIR, name, strerror(errno));
	/* Serialises this user's logins from the decision to the registration. */
	if (flock(fd, LOCK_EX) == -1) {
		close(fd);
		return ab_sess_fail(s, -errno, "flock %s/%s: %s", AB_BOX_DIR, name, strerror(errno));
	}
	return fd;
}

/* What a box is kept by: the user's policy in force (ab_policy_user_digest), not the
 * policy files, so another user's enrolment or a comment does not end the box.  Hashed
 * once per login: the decision, the registration and the hand-off to agentbox-maskd
 * (its warm set is kept by it) all ask. */
int
ab_box_digest(struct ab_sess *s)
{
	unsigned char d[AB_DIGEST_LEN];
	int r;

	if (s->box_digest[0] != '\0')
		return 0;
	if ((r = ab_policy_user_digest(s->pol, d)) != 0)
		return ab_sess_fail(s, r, "the digest of %s's policy: %s", s->user, strerror(-r));
	ab_digest_hex(d, s->box_digest);
	return 0;
}

int
ab_box_decide(struct ab_sess *s, int audit_fd, int force_build, enum ab_box_how *how)
{
	struct ab_box_entry e;
	const char *reason;
	int fd, pidfd, r;

	*how = AB_BOX_BUILD;
	/* The caller wants a box of its own: the registered one (running or not) stays the
	 * user's, and the new box is neither registered nor ever joined. */
	if (force_build)
		return 0;
	if ((fd = lock_registry(s)) < 0)
		return fd;
	s->box_lock = fd;
	if ((r = ab_box_registry_read(fd, &e)) == -ENOENT)
		return 0;	/* no box yet */
	if (r != 0)
		return ab_sess_fail(s, r, "%s/%u: unreadable box registry: %s", AB_BOX_DIR,
		    (unsigned)s->uid, strerror(-r));
	if ((r = ab_box_digest(s)) != 0)
		return r;
	pidfd = open_box_init(s, &e);
	if (pidfd >= 0 && strcmp(s->box_digest, e.digest) == 0 && strcmp(s->user, e.user) == 0) {
		*how = AB_BOX_JOIN;
		s->box_pidfd = pidfd;
		s->init_pid = e.pid;
		snprintf(s->box_id, sizeof(s->box_id), "%s", e.id);
		return 0;
	}
	/* The box must go: it ended by itself, or its policy is not the user's any more. */
	reason = "gone";
	if (pidfd >= 0) {
		reason = strcmp(s->user, e.user) != 0 ? "user-changed" : "policy-changed";
		r = ab_box_kill(pidfd);
		close(pidfd);
		if (r != 0)
			return ab_sess_fail(s, r, "end box %s of uid %u (pid 1 %d, %s): %s", e.id,
			    (unsigned)s->uid, (int)e.pid, reason, strerror(-r));
	}
	if (ftruncate(fd, 0) == -1)
		return ab_sess_fail(s, -errno, "truncate %s/%u: %s", AB_BOX_DIR, (unsigned)s->uid,
		    strerror(errno));
	if (audit_fd >= 0 && ab_box_end_record(audit_fd, e.id, s->user, s->uid, e.pid,
	    reason) != 0 && s->pol->audit == AB_AUDIT_REQUIRED)
		return ab_sess_fail(s, -EIO, "audit is required and the end record of box %s "
		    "could not be written", e.id);
	return 0;
}

int
ab_box_join(struct ab_sess *s)
{
	/* Every namespace the box has, at once, from its pid 1: the mount namespace sets
	 * our root and cwd to the box's, the pid namespace becomes our children's. */
	if (setns(s->box_pidfd, CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
	    CLONE_NEWUTS) == -1)
		return ab_sess_fail(s, -errno, "join box %s (pid 1 %d): setns: %s", s->box_id,
		    (int)s->init_pid, strerror(errno));
	return 0;
}

int
ab_box_register(struct ab_sess *s)
{
	char line[256];
	unsigned long long ticks;
	int n, r;

	snprintf(s->box_id, sizeof(s->box_id), "%" PRIu32, s->ses);
	if ((r = start_ticks(s->procfd, s->init_pid, &ticks)) != 0)
		return ab_sess_fail(s, r, "start time of pid 1 %d: %s", (int)s->init_pid,
		    strerror(-r));
	if ((r = ab_box_digest(s)) != 0)
		return r;
	/* The user name is the policy's kind ([a-z_][a-z0-9_-]*, short): no blanks. */
	n = snprintf(line, sizeof(line), "%s %d %llu %s %lld %s\n", s->box_id,
	    (int)s->init_pid, ticks, s->box_digest, (long long)time(NULL), s->user);
	if (n < 0 || (size_t)n >= sizeof(line))
		return ab_sess_fail(s, -ENAMETOOLONG, "box registry line of %s too long", s->user);
	if (ftruncate(s->box_lock, 0) == -1 || pwrite(s->box_lock, line, (size_t)n, 0) != n)
		return ab_sess_fail(s, -EIO, "write %s/%u: %s", AB_BOX_DIR, (unsigned)s->uid,
		    strerror(errno));
	return 0;
}
