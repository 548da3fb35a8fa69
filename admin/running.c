/*
 * running.c: the agent's processes that run outside every box (pam_module/stray.c
 * finds them).  Each one could hand a session fds of the host's tree, and while one
 * exists pam_agentbox refuses the user's logins: enroll lists or ends them, doctor
 * fails on them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "admin.h"
#include "stray.h"

#define KILL_ROUNDS	10	/* a process may fork while we kill: scan again, this often */
#define KILL_WAIT_MS	5000	/* SIGKILL'd processes in D state may take a moment */

int
adm_running_list(uid_t uid, struct ab_stray *out, size_t max)
{
	int procfd, r;

	if ((procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -errno;
	r = ab_stray_find(procfd, uid, out, max);
	close(procfd);
	return r;
}

/* SIGKILL PID if it still is a process of UID (the pidfd pins it against pid reuse),
 * then wait until it is gone. */
static int
kill_one(pid_t pid, uid_t uid)
{
	struct pollfd pfd = { .events = POLLIN };
	char path[32];
	struct stat st;
	int r = 0;

	if ((pfd.fd = pidfd_open(pid, 0)) == -1)
		return errno == ESRCH ? 0 : -errno;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) == -1 || st.st_uid != uid)
		goto out;	/* gone, or not the same process any more */
	if (pidfd_send_signal(pfd.fd, SIGKILL, NULL, 0) == -1 && errno != ESRCH) {
		r = -errno;
		goto out;
	}
	if ((r = poll(&pfd, 1, KILL_WAIT_MS)) == -1)
		r = -errno;
	else
		r = r == 1 ? 0 : -ETIMEDOUT;
out:
	close(pfd.fd);
	return r;
}

int
adm_running_kill(uid_t uid, unsigned *killed)
{
	struct ab_stray p[64];
	int i, n, r, round;

	*killed = 0;
	for (round = 0; round < KILL_ROUNDS; round++) {
		if ((n = adm_running_list(uid, p, sizeof(p) / sizeof(p[0]))) <= 0)
			return n;
		for (i = 0; i < n; i++) {
			if ((r = kill_one(p[i].pid, uid)) != 0)
				return r;
			(*killed)++;
		}
	}
	n = adm_running_list(uid, p, 1);
	return n == 0 ? 0 : n < 0 ? n : -EAGAIN;
}
