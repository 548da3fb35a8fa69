/*
 * agentbox-init: pid 1 of an agentbox session's pid namespace.
 *
 * Started by pam_agentbox (as root, empty environment, no fds) right after it unshared
 * the pid namespace; every orphan of the session reparents to it.  It reaps them, and
 * nothing else: pam_agentbox's close_session SIGKILLs it at logout, and the kernel then
 * kills every process left in the namespace.  PR_SET_PDEATHSIG (set before the exec)
 * kills it too if su/sshd/sudo die without closing the session.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void
reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int
main(void)
{
	siginfo_t si;
	sigset_t all;

	/* 1. Only as pid 1 of a namespace: anywhere else there is nothing for us to do. */
	if (getpid() != 1)
		return 1;
	/* 2. Every signal blocked and taken synchronously: SIGCHLD drives the loop, and
	 *    the session (inside the namespace, not root) cannot signal us anyway. */
	if (sigfillset(&all) == -1 || sigprocmask(SIG_BLOCK, &all, NULL) == -1)
		return 1;
	/* 3. Reap forever.  A termination signal from outside the namespace (si_pid 0:
	 *    the sender is in an ancestor namespace, i.e. root on the host) ends us. */
	for (;;) {
		reap_all();
		if (sigwaitinfo(&all, &si) == -1)
			continue;	/* EINTR */
		if (si.si_pid == 0 && (si.si_signo == SIGTERM || si.si_signo == SIGINT ||
		    si.si_signo == SIGHUP))
			return 0;
	}
}
