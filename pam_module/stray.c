/*
 * stray.c: find processes of an agent's uid outside every agentbox box (stray.h).
 *
 * The scan is one getdents over the host's /proc and one fstatat per pid directory:
 * the directory's owner is the process's effective uid, so only the agent's own
 * processes are looked at more closely.  Limits, by construction of /proc: a process
 * that is not dumpable shows as root's (it was made so by prctl or by a set-id exec)
 * and one whose effective uid differs from its real, saved or fs uid is only found by
 * its euid; README.md says what would not have these limits.
 *
 * "Inside a box" is decided on namespaces the agent cannot make or join:
 *  - its user namespace is ours: a process that made its own could fake the rest, and
 *    only one outside a box can make one (the box's seccomp filter refuses it);
 *  - its pid and mount namespaces both differ from ours (ours: the host's, read before
 *    the caller unshares): without CAP_SYS_ADMIN in our user namespace nothing gets
 *    new ones or joins another's, so root made them;
 *  - and root made them for a box: the process's root holds pam_agentbox's session
 *    plan, root-owned (a container of root's running the same uid is no box).
 * sshd's post-authentication child ("sshd: agent@pts/0") is forked after the module's
 * unshare, so it lives in its session's box like the shell it starts.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module.h"
#include "stray.h"

struct nsids {
	ino_t	user, pid, mnt;
};

/* BASE's ("self", "PID" or "PID/task/TID") namespaces; -ENOENT once it has none
 * (exited, or a zombie, which holds no fds either). */
static int
read_ns(int procfd, const char *base, struct nsids *ns)
{
	static const char *const name[] = { "user", "pid", "mnt" };
	ino_t *ino[] = { &ns->user, &ns->pid, &ns->mnt };
	char path[64];
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(name) / sizeof(name[0]); i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/ns/%s", base, name[i]) >= sizeof(path))
			return -ENAMETOOLONG;
		if (fstatat(procfd, path, &st, 0) == -1)
			return -errno;
		*ino[i] = st.st_ino;
	}
	return 0;
}

/* 1: BASE is inside a box; 0: it is not; -ENOENT: it has no namespaces; -errno. */
static int
in_box(int procfd, const char *base, const struct nsids *self)
{
	struct nsids ns;
	struct stat st;
	char path[96];
	int r;

	if ((r = read_ns(procfd, base, &ns)) != 0)
		return r;
	if (ns.user != self->user || ns.pid == self->pid || ns.mnt == self->mnt)
		return 0;
	snprintf(path, sizeof(path), "%s/root%s", base, AB_PLAN_PATH);
	if (fstatat(procfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return S_ISREG(st.st_mode) && st.st_uid == 0;
	/* No plan, or the process exited in between (then it is no threat). */
	return read_ns(procfd, base, &ns) == -ENOENT ? -ENOENT : 0;
}

/* A thread group whose leader exited still runs in its other threads: judge one. */
static int
in_box_threads(int procfd, const char *pid, const struct nsids *self)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int fd, r = -ENOENT;

	snprintf(path, sizeof(path), "%s/task", pid);
	if ((fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -errno;
	if ((d = fdopendir(fd)) == NULL) {
		r = -errno;
		close(fd);
		return r;
	}
	while (r == -ENOENT && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/task/%.20s", pid, e->d_name);
		r = in_box(procfd, path, self);
	}
	closedir(d);
	return r;
}

/* comm for a log line and an audit record: the process chose it, so printable only. */
static void
read_comm(int procfd, const char *pid, char *comm, size_t cap)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/comm", pid);
	if ((fd = openat(procfd, path, O_RDONLY | O_CLOEXEC)) != -1) {
		n = read(fd, comm, cap - 1);
		close(fd);
	}
	if (n <= 0) {
		snprintf(comm, cap, "?");
		return;
	}
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	for (char *c = comm; *c != '\0'; c++)
		if (*c <= ' ' || *c > '~' || *c == '"' || *c == '\\')
			*c = '?';
}

static int
is_pid(const char *name)
{
	return name[0] >= '1' && name[0] <= '9' && strspn(name, "0123456789") == strlen(name);
}

int
ab_stray_find(int procfd, uid_t uid, struct ab_stray *out, size_t max)
{
	struct nsids self;
	struct dirent *e;
	struct stat st;
	size_t n = 0;
	DIR *d;
	int fd, r;

	if ((r = read_ns(procfd, "self", &self)) != 0)
		return r;
	if ((fd = openat(procfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -errno;
	if ((d = fdopendir(fd)) == NULL) {
		r = -errno;
		close(fd);
		return r;
	}
	while (r == 0 && n < max) {
		errno = 0;
		if ((e = readdir(d)) == NULL) {
			r = -errno;	/* 0 at the end */
			break;
		}
		if (!is_pid(e->d_name))
			continue;
		/* The owner is the euid: everything but the agent's own is passed over here. */
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
			r = errno == ENOENT ? 0 : -errno;	/* ENOENT: it exited */
			continue;
		}
		if (st.st_uid != uid)
			continue;
		if ((r = in_box(procfd, e->d_name, &self)) == -ENOENT)
			r = in_box_threads(procfd, e->d_name, &self);
		if (r == 1 || r == -ENOENT) {
			r = 0;
			continue;
		}
		if (r < 0)
			break;
		out[n].pid = (pid_t)strtol(e->d_name, NULL, 10);
		read_comm(procfd, e->d_name, out[n].comm, sizeof(out[n].comm));
		n++;
	}
	closedir(d);
	return r < 0 ? r : (int)n;
}

/* The gate's question, for open_steps: refuse while one such process runs. */
int
ab_stray_check(struct ab_sess *s)
{
	struct ab_stray p;
	int r;

	if ((r = ab_stray_find(s->procfd, s->uid, &p, 1)) < 0)
		return ab_sess_fail(s, r, "scan /proc for processes of uid %u: %s",
		    (unsigned)s->uid, strerror(-r));
	if (r > 0)
		return ab_sess_fail(s, -EBUSY, "process %d (%s) of uid %u runs outside every "
		    "agentbox box (agentbox doctor lists them; agentbox enroll %s "
		    "--kill-running ends them)", (int)p.pid, p.comm, (unsigned)s->uid, s->user);
	return 0;
}
