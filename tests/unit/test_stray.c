/*
 * pam_module/stray.c: which processes of a uid count as running outside every box.
 * Children of this test play each kind.  As root they run as a uid of their own (so the
 * scan's whole answer can be checked) and root builds the boxes; as a user only the
 * cases a user can build run, with the user's own uid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "policy.h"
#include "stray.h"

#define TEST_UID	4012345		/* as root: a uid no one else runs as */

enum kind { PLAIN, ZOMBIE, LEADER_GONE, OWN_USERNS, ROOT_BOX, ROOT_CONTAINER };

static uid_t uid;
static int procfd;

/* Become the test's uid, and dumpable again (a uid change clears it: stray.h). */
static void
become(void)
{
	if (geteuid() == 0 && (setgroups(0, NULL) == -1 || setresgid(TEST_UID, TEST_UID,
	    TEST_UID) == -1 || setresuid(TEST_UID, TEST_UID, TEST_UID) == -1))
		_exit(10);
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == -1)
		_exit(11);
}

static void
say_pid(int w)
{
	char self[32];
	ssize_t n;
	pid_t pid;

	/* The host's pid even in a pid namespace of our own: /proc is still the host's. */
	if ((n = readlink("/proc/self", self, sizeof(self) - 1)) <= 0)
		_exit(12);
	self[n] = '\0';
	pid = (pid_t)atoi(self);
	if (write(w, &pid, sizeof(pid)) != sizeof(pid))
		_exit(13);
}

static void * __attribute__((noreturn))
thread_main(void *arg)
{
	say_pid(*(int *)arg);
	for (;;)
		pause();
}

/* Root's private world for a box (with the plan) or a container (without). */
static void
root_world(int plan)
{
	int fd;

	if (unshare(CLONE_NEWNS | CLONE_NEWPID) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) == -1 ||
	    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") == -1 ||
	    mkdir("/run/agentbox", 0755) == -1)
		_exit(14);
	if (plan && ((fd = open(AB_PLAN_PATH, O_CREAT | O_WRONLY | O_CLOEXEC, 0444)) == -1 ||
	    close(fd) == -1))
		_exit(15);
}

/* The child of KIND; returns the pid the scan should judge, or -1. */
static pid_t
spawn(enum kind kind, pid_t *child)
{
	int p[2];
	pid_t pid = -1, c;
	pthread_t t;

	if (pipe2(p, O_CLOEXEC) == -1 || (c = fork()) == -1)
		return -1;
	if (c == 0) {
		close(p[0]);
		if (kind == ROOT_BOX || kind == ROOT_CONTAINER)
			root_world(kind == ROOT_BOX);
		else
			become();
		if (kind == OWN_USERNS && unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) == -1)
			_exit(16);
		if (kind == OWN_USERNS || kind == ROOT_BOX || kind == ROOT_CONTAINER) {
			/* The next child is the new pid namespace's first process. */
			if ((c = fork()) == -1)
				_exit(17);
			if (c > 0) {
				waitpid(c, NULL, 0);
				_exit(0);
			}
			if (kind != OWN_USERNS)
				become();
		}
		if (kind == ZOMBIE)
			_exit(0);
		if (kind == LEADER_GONE) {
			if (pthread_create(&t, NULL, thread_main, &p[1]) != 0)
				_exit(18);
			syscall(SYS_exit, 0);	/* this thread only: the leader becomes a zombie */
		}
		say_pid(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	*child = c;
	if (kind == ZOMBIE) {
		siginfo_t si;

		/* Exited but not reaped: a zombie, still in /proc with its owner. */
		pid = waitid(P_PID, c, &si, WEXITED | WNOWAIT) == 0 ? c : -1;
	} else if (read(p[0], &pid, sizeof(pid)) != sizeof(pid)) {
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* End the child and the process judged (pid 1 of its own namespace, if it has one),
 * and wait until both are gone: the next case counts the uid's processes. */
static void
reap(pid_t child, pid_t pid)
{
	struct pollfd pfd = { .events = POLLIN };

	pfd.fd = pid > 0 && pid != child ? pidfd_open(pid, 0) : -1;
	if (pfd.fd != -1) {
		pidfd_send_signal(pfd.fd, SIGKILL, NULL, 0);
		poll(&pfd, 1, 5000);
		close(pfd.fd);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* Is PID among the strays of uid? */
static int
found(pid_t pid, int *count)
{
	static struct ab_stray s[4096];
	int i, n = ab_stray_find(procfd, uid, s, sizeof(s) / sizeof(s[0]));

	*count = n;
	for (i = 0; i < n; i++)
		if (s[i].pid == pid)
			return 1;
	return 0;
}

static void
leader_gone(pid_t pid)
{
	char path[64];
	struct stat st;
	int i;

	/* Wait until the leader has no namespaces: the case under test. */
	snprintf(path, sizeof(path), "%d/ns/mnt", (int)pid);
	for (i = 0; i < 200 && fstatat(procfd, path, &st, 0) == 0; i++)
		usleep(10000);
}

int
main(void)
{
	static const struct row {
		enum kind	 kind;
		int		 root;	/* needs root to build */
		int		 stray;
		int		 count;	/* as root: strays of the uid in all */
		const char	*what;
	} rows[] = {
		{ PLAIN, 0, 1, 1, "a plain process of the uid is outside every box" },
		{ ZOMBIE, 0, 0, 0, "a zombie is not counted (it holds nothing)" },
		{ LEADER_GONE, 0, 1, 1, "a process whose main thread exited still runs: counted" },
		/* ... and so is its parent, which made the user namespace. */
		{ OWN_USERNS, 0, 1, 2, "its own user, pid and mount namespaces make no box" },
		{ ROOT_BOX, 1, 0, 0, "root's pid and mount namespaces with the session plan: a box" },
		{ ROOT_CONTAINER, 1, 1, 1, "root's namespaces without the plan (a container): no box" },
	};
	struct ab_stray one;
	size_t i;
	pid_t pid, child;
	int n, hit;

	uid = geteuid() == 0 ? TEST_UID : geteuid();
	if ((procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return perror("/proc"), 1;
	ok(ab_stray_find(procfd, TEST_UID + 1, &one, 1) == 0, "a uid with no process: none");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (rows[i].root && geteuid() != 0) {
			printf("ok %d # skip %s: needs root\n", ++tap_n, rows[i].what);
			continue;
		}
		pid = spawn(rows[i].kind, &child);
		if (pid <= 0) {
			ok(0, "%s: could not build it", rows[i].what);
			continue;
		}
		if (rows[i].kind == LEADER_GONE)
			leader_gone(pid);
		hit = found(pid, &n);
		ok(n >= 0 && hit == rows[i].stray, "%s (pid %d; %d found)", rows[i].what,
		    (int)pid, n);
		if (geteuid() == 0)
			ok(n == rows[i].count, "... and nothing else of uid %u", (unsigned)uid);
		reap(child, pid);
	}
	if (geteuid() == 0) {
		pid = spawn(PLAIN, &child);
		ok(ab_stray_find(procfd, uid, &one, 1) == 1 && one.pid == pid &&
		    strcmp(one.comm, "test_stray") == 0, "pid and comm of the one found (%s)",
		    one.comm);
		reap(child, pid);
	}
	close(procfd);
	return done_testing();
}
