/*
 * The session's pid 1.  After unshare(CLONE_NEWPID) the next child of this process is
 * pid 1 of the new namespace, so we start it before returning to su/sshd/sudo, whose own
 * children (the shell, sshd's session process) then become pid 2+.  Orphans reparent to
 * our pid 1, and killing it makes the kernel kill every process of the namespace
 * (zap_pid_ns_processes): nohup, setsid, double forks and detached tmux servers included.
 *
 * The child, still root, mounts a fresh /proc from inside the namespace (so `ps -e`
 * shows the session only), arms PR_SET_PDEATHSIG (the caller dying kills the session),
 * closes every fd and execs agentbox-init with an empty environment.
 *
 * It is started like posix_spawn does, with clone(CLONE_VM | CLONE_VFORK): no copy of
 * the caller's page tables (a fork of sshd costs more than the rest of the world on a
 * small VM), and the caller sleeps until the exec succeeded or the child failed, so no
 * readiness pipe and no timeout are needed: a failing step leaves {step, errno} in the
 * memory we share, then _exit.  CLONE_PIDFD gives us a pidfd before anyone could reap
 * the child, so a reused pid is never signalled.  Signals stay blocked in the child
 * (it shares our memory: no handler of the caller's may run in it) and agentbox-init
 * keeps them blocked.  Only raw system calls in the child.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "module.h"

#define CHILD_STACK	(64 * 1024)

enum { STEP_NONE, STEP_PROC, STEP_PDEATHSIG, STEP_PARENT, STEP_CLOSE, STEP_EXEC, STEP_N };
static const char *const step_name[STEP_N] = {
	[STEP_NONE]	 = "-",
	[STEP_PROC]	 = "mount /proc in the session's pid namespace",
	[STEP_PDEATHSIG] = "prctl(PR_SET_PDEATHSIG)",
	[STEP_PARENT]	 = "parent exited before PR_SET_PDEATHSIG was armed",
	[STEP_CLOSE]	 = "close_range",
	[STEP_EXEC]	 = "exec",
};

/* Shared with the child (CLONE_VM): its input, and where it says what failed. */
struct spawn {
	int		 init_fd;
	int		 parent_pidfd;
	int		 persist;	/* the box outlives its login: no PDEATHSIG */
	char		 linger[16];	/* persist: agentbox-init's argument, seconds */
	volatile int	 step;
	volatile int	 err;
};

static int __attribute__((noreturn))
child_fail(struct spawn *sp, int step, int err)
{
	sp->step = step;
	sp->err = err;
	_exit(127);
}

/* Root, pid 1 of the session's pid namespace, sharing the caller's memory until exec. */
static int
reaper_child(void *arg)
{
	static char *const envp[] = { NULL };
	struct spawn *sp = arg;
	char *argv[] = { "agentbox-init", sp->persist ? sp->linger : NULL, NULL };
	struct pollfd pfd = { .fd = sp->parent_pidfd, .events = POLLIN };

	/* hidepid=invisible: the agent sees its own processes, not root's pid 1. */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    "hidepid=invisible") == -1)
		child_fail(sp, STEP_PROC, errno);
	/* A persistent box outlives the login that built it: its end is agentbox-init's
	 * linger, agentbox stop, or a changed policy (box.c). */
	if (!sp->persist && prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		child_fail(sp, STEP_PDEATHSIG, errno);
	/* getppid() is 0 in a new pid namespace, so the usual race check cannot work:
	 * the parent's pidfd becomes readable once it has exited (killed mid-vfork). */
	if (!sp->persist && poll(&pfd, 1, 0) != 0)
		child_fail(sp, STEP_PARENT, ESRCH);
	/* pid 1 holds nothing of the caller's: sockets, ttys, the caller's files.  The
	 * binary's fd (close-on-exec) stays until the exec. */
	if ((sp->init_fd > 0 && close_range(0, (unsigned)sp->init_fd - 1, 0) == -1) ||
	    close_range((unsigned)sp->init_fd + 1, ~0U, 0) == -1)
		child_fail(sp, STEP_CLOSE, errno);
	execveat(sp->init_fd, "", argv, envp, AT_EMPTY_PATH);
	child_fail(sp, STEP_EXEC, errno);
}

int
ab_reaper_open(struct ab_sess *s)
{
	struct stat st;
	int fd;

	if ((fd = open(s->init_path, O_PATH | O_CLOEXEC)) == -1)
		return ab_sess_fail(s, -errno, "session pid 1: open %s: %s", s->init_path,
		    strerror(errno));
	/* It runs as root in every session: only root may have written it. */
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) != 0) {
		close(fd);
		return ab_sess_fail(s, -EPERM, "session pid 1: %s is not a root-owned file "
		    "writable by root only", s->init_path);
	}
	s->init_fd = fd;
	return 0;
}

int
ab_reaper_start(struct ab_sess *s)
{
	struct spawn sp = { .init_fd = s->init_fd, .step = STEP_NONE };
	sigset_t all, old;
	int pidfd = -1, r = 0;
	void *stack;
	pid_t pid;

	sp.persist = s->pol->persist == AB_YES && !s->run;	/* run: its own box */
	snprintf(sp.linger, sizeof(sp.linger), "%u", (unsigned)s->pol->linger);

	if ((sp.parent_pidfd = pidfd_open(getpid(), 0)) == -1)
		return ab_sess_fail(s, -errno, "pidfd_open(self): %s", strerror(errno));
	stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		r = ab_sess_fail(s, -errno, "mmap: %s", strerror(errno));
		close(sp.parent_pidfd);
		return r;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	/* Returns once the child exec'd agentbox-init or exited. */
	pid = clone(reaper_child, (char *)stack + CHILD_STACK, CLONE_VM | CLONE_VFORK |
	    CLONE_PIDFD | SIGCHLD, &sp, &pidfd);
	if (pid == -1)
		r = ab_sess_fail(s, -errno, "clone the session's pid 1: %s", strerror(errno));
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	munmap(stack, CHILD_STACK);
	close(sp.parent_pidfd);
	if (r != 0)
		return r;
	if (sp.step != STEP_NONE) {
		r = ab_sess_fail(s, -sp.err, "session pid 1: %s%s%s: %s", step_name[sp.step],
		    sp.step == STEP_EXEC ? " " : "", sp.step == STEP_EXEC ? s->init_path : "",
		    strerror(sp.err));
		ab_reaper_stop(pidfd, pid);
		close(pidfd);
		return r;
	}
	s->init_pid = pid;
	s->init_pidfd = pidfd;
	return 0;
}

/*
 * Kill the session's pid 1; the kernel then SIGKILLs every process of the namespace
 * (zap_pid_ns_processes) and pid 1 exits once all of them are reaped.  We wait for that,
 * so that nothing of the session is left when close_session returns, with one
 * exception: a process of the namespace whose parent is the caller (sshd's session
 * child, pid 2) can only be reaped by the caller, which is busy in close_session.
 * Once the only thing left is a zombie child of ours, we leave: the caller reaps it
 * next, pid 1 exits then, and the caller reaps (or, exiting, hands over) pid 1.
 * STOP_WAIT_MS bounds the wait for a process stuck in the kernel.
 */
#define STOP_WAIT_MS 3000

/* Does the caller have a zombie child other than pid 1?  (WNOWAIT: left to it.) */
static int
caller_zombie(pid_t init_pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid != 0 &&
	    si.si_pid != init_pid;
}

int
ab_reaper_stop(int pidfd, pid_t init_pid)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	siginfo_t si;
	int i;

	/* By pidfd: if someone else reaped it, its pid may name another process now. */
	if (pidfd_send_signal(pidfd, SIGKILL, NULL, 0) == -1 && errno != ESRCH)
		return -errno;
	for (i = 0; i < STOP_WAIT_MS; i++) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PIDFD, pidfd, &si, WEXITED | WNOHANG) == 0) {
			if (si.si_pid != 0)
				return 0;	/* pid 1 gone: so is everything else */
		} else if (errno == ECHILD) {
			return 0;		/* reaped by the caller already */
		} else if (errno != EINTR) {
			return -errno;
		}
		if (caller_zombie(init_pid))
			return 0;
		(void)poll(&pfd, 1, 1);	/* wakes when pid 1 exits */
	}
	return -ETIMEDOUT;
}
