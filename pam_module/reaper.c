/*
 * The session's pid 1.  After unshare(CLONE_NEWPID) the next child of this process is
 * pid 1 of the new namespace, so we fork it before returning to su/sshd/sudo, whose own
 * children (the shell, sshd's session process) then become pid 2+.  Orphans reparent to
 * our pid 1, and killing it makes the kernel kill every process of the namespace
 * (zap_pid_ns_processes): nohup, setsid, double forks and detached tmux servers included.
 *
 * The child, still root and still a copy of the caller's memory, mounts a fresh /proc
 * from inside the namespace (so `ps -e` shows the session only), arms PR_SET_PDEATHSIG
 * (the caller dying kills the session), closes every fd but the readiness pipe and
 * execs agentbox-init with an empty environment, dropping the copy of sshd's or su's
 * memory.  The pipe is close-on-exec: EOF tells the parent the exec happened; a failing
 * step writes {step, errno} instead.  Only async-signal-safe calls after fork.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "module.h"

#define READY_TIMEOUT_MS 5000

enum { STEP_PROC, STEP_PDEATHSIG, STEP_PARENT, STEP_CLOSE, STEP_EXEC, STEP_N };
static const char *const step_name[STEP_N] = {
	[STEP_PROC]	 = "mount /proc in the session's pid namespace",
	[STEP_PDEATHSIG] = "prctl(PR_SET_PDEATHSIG)",
	[STEP_PARENT]	 = "parent exited before PR_SET_PDEATHSIG was armed",
	[STEP_CLOSE]	 = "close_range",
	[STEP_EXEC]	 = "exec agentbox-init",
};

struct ready_msg {
	int	step;
	int	err;
};

static void __attribute__((noreturn))
child_fail(int wfd, int step, int err)
{
	struct ready_msg m = { step, err };

	(void)!write(wfd, &m, sizeof(m));
	_exit(127);
}

/* Root, pid 1 of the session's pid namespace, not yet exec'd. */
static void __attribute__((noreturn))
reaper_child(int wfd, int parent_pidfd, const char *init_path)
{
	static char *const argv[] = { "agentbox-init", NULL };
	static char *const envp[] = { NULL };
	struct pollfd pfd = { .fd = parent_pidfd, .events = POLLIN };

	/* hidepid=invisible: the agent sees its own processes, not root's pid 1. */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    "hidepid=invisible") == -1)
		child_fail(wfd, STEP_PROC, errno);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		child_fail(wfd, STEP_PDEATHSIG, errno);
	/* getppid() is 0 in a new pid namespace, so the usual race check cannot work:
	 * the parent's pidfd becomes readable once it has exited. */
	if (poll(&pfd, 1, 0) != 0)
		child_fail(wfd, STEP_PARENT, ESRCH);
	if ((wfd > 0 && close_range(0, wfd - 1, 0) == -1) ||
	    close_range(wfd + 1, ~0U, 0) == -1)
		child_fail(wfd, STEP_CLOSE, errno);
	execve(init_path, argv, envp);
	child_fail(wfd, STEP_EXEC, errno);
}

/* Wait for EOF (exec done) or a failure message, within READY_TIMEOUT_MS. */
static int
wait_ready(struct ab_sess *s, int rfd)
{
	struct pollfd pfd = { .fd = rfd, .events = POLLIN };
	struct ready_msg m;
	ssize_t n;
	int r;

	do
		r = poll(&pfd, 1, READY_TIMEOUT_MS);
	while (r == -1 && errno == EINTR);
	if (r == -1)
		return ab_sess_fail(s, -errno, "poll agentbox-init readiness: %s", strerror(errno));
	if (r == 0)
		return ab_sess_fail(s, -ETIMEDOUT, "agentbox-init not ready after %d ms",
		    READY_TIMEOUT_MS);
	do
		n = read(rfd, &m, sizeof(m));
	while (n == -1 && errno == EINTR);
	if (n == 0)
		return 0;
	if (n != (ssize_t)sizeof(m) || m.step < 0 || m.step >= STEP_N)
		return ab_sess_fail(s, -EPROTO, "agentbox-init: bad readiness message");
	return ab_sess_fail(s, -m.err, "agentbox-init: %s (%s): %s", step_name[m.step],
	    m.step == STEP_EXEC ? s->init_path : "-", strerror(m.err));
}

int
ab_reaper_start(struct ab_sess *s)
{
	int pipefd[2], self, r;
	pid_t pid;

	if ((self = pidfd_open(getpid(), 0)) == -1)
		return ab_sess_fail(s, -errno, "pidfd_open(self): %s", strerror(errno));
	if (pipe2(pipefd, O_CLOEXEC) == -1) {
		r = ab_sess_fail(s, -errno, "pipe2: %s", strerror(errno));
		close(self);
		return r;
	}
	if ((pid = fork()) == -1) {
		r = ab_sess_fail(s, -errno, "fork the session's pid 1: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(pipefd[0]);
		reaper_child(pipefd[1], self, s->init_path);
	}
	s->init_pid = pid;
	/* Taken before any wait: the pid cannot have been reused yet. */
	if ((s->init_pidfd = pidfd_open(pid, 0)) == -1) {
		r = ab_sess_fail(s, -errno, "pidfd_open(pid 1): %s", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	if ((r = wait_ready(s, pipefd[0])) != 0) {
		ab_reaper_stop(s->init_pidfd);
		close(s->init_pidfd);
		s->init_pidfd = -1;
	}
out:
	close(pipefd[0]);
	if (pipefd[1] != -1)
		close(pipefd[1]);
	close(self);
	return r;
}

int
ab_reaper_stop(int pidfd)
{
	siginfo_t si;

	/* By pidfd: if someone else reaped it, its pid may name another process now. */
	if (pidfd_send_signal(pidfd, SIGKILL, NULL, 0) == -1 && errno != ESRCH)
		return -errno;
	/* pid 1 turns zombie only once every process of its namespace is gone. */
	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PIDFD, pidfd, &si, WEXITED) == 0 || errno == ECHILD)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}
