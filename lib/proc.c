/*
 * Processes as /proc shows them to root: their ids, whether one is a box's pid 1, and
 * whether a process lives in a box (DESIGN invariant "no process of an enrolled user
 * outside a box").  agentbox-maskd's watcher (maskd/unboxed.c) and the admin tool
 * (enroll, doctor, sessions) ask the same questions here, so they cannot disagree.
 *
 * In a box means: in the mount namespace of a box's pid 1, inside that pid 1's pid
 * namespace.  A box's pid 1 is a root process named agentbox-init that is pid 1 of its
 * pid namespace (pam_module/init.c makes it; only root can make a root process, and a
 * process of the agent that names itself so is not root).  Both namespaces, because a
 * process of the agent outside a box can make a pid namespace of its own (unshare -Urp)
 * or a mount namespace of its own, but never one of the box's.
 *
 * Read through /proc/PID/status and /proc/PID/ns as root, which a process cannot hide
 * from: a non-dumpable process makes /proc/PID root-owned (so st_uid lies) but its
 * status still says Uid, and root's ptrace access to its ns links stands.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abutil.h"

/* linux/nsfs.h of Linux 6.11; not in Debian 12's headers, nor musl's. */
#ifndef NS_GET_TGID_FROM_PIDNS
#define NS_GET_TGID_FROM_PIDNS	_IOR(0xb7, 0x7, int)
#endif

#define INIT_COMM	"agentbox-init"

int
ab_pidfd_pid(int pidfd, pid_t *pid)
{
	char path[64], buf[512], *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if ((n = ab_read_small(path, buf, sizeof(buf))) <= 0)
		return n == 0 ? -EIO : (int)n;
	if ((p = strstr(buf, "\nPid:\t")) == NULL || sscanf(p + 6, "%d", pid) != 1 || *pid <= 0)
		return -EBADF;	/* not a pidfd, or its process is gone (Pid: -1) */
	return 0;
}

int
ab_proc_status(int pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	/* One read: the kernel makes the whole file on the first; what a long group list
	 * cuts off lies past every field asked for here. */
	if ((n = ab_read_small(path, buf, len)) < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	return 0;
}

int
ab_status_field(const char *status, const char *key, char *out, size_t len)
{
	const char *p = status;
	size_t kl = strlen(key);

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, kl) == 0 && p[kl] == ':') {
			p += kl + 1;
			p += strspn(p, " \t");
			snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
			return 0;
		}
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return -ENOENT;
}

int
ab_status_is_uid(const char *status, unsigned uid)
{
	char ids[128], *p, *end;
	unsigned long v;
	int i;

	if (ab_status_field(status, "Uid", ids, sizeof(ids)) != 0)
		return -EPROTO;
	for (p = ids, i = 0; i < 2; i++, p = end) {	/* real, effective */
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno != 0 || end == p)
			return -EPROTO;
		if (v != uid)
			return 0;
	}
	return 1;
}

/* "R\tE\tS\tF" of a Uid line: is E 0? */
static int
euid_is_root(const char *ids)
{
	const char *e = strchr(ids, '\t');

	return e != NULL && e[1] == '0' && (e[2] == '\t' || e[2] == '\0');
}

/* A process that has exited and waits to be reaped (Z), or is being (X). */
static int
is_zombie(const char *status)
{
	char f[32];

	return ab_status_field(status, "State", f, sizeof(f)) == 0 && (f[0] == 'Z' || f[0] == 'X');
}

int
ab_proc_is_box_init(int pid)
{
	char status[4096], f[128], want[64];

	if (ab_proc_status(pid, status, sizeof(status)) != 0)
		return 0;
	/* A killed pid 1 stays a zombie until the host's init reaps it: no box any more. */
	if (ab_status_field(status, "State", f, sizeof(f)) != 0 || is_zombie(status))
		return 0;
	snprintf(want, sizeof(want), "%d\t1", pid);
	/* Root: its effective uid (the real one is sudo's caller's when sudo made it). */
	return ab_status_field(status, "Name", f, sizeof(f)) == 0 && strcmp(f, INIT_COMM) == 0 &&
	    ab_status_field(status, "Uid", f, sizeof(f)) == 0 && euid_is_root(f) &&
	    ab_status_field(status, "NSpid", f, sizeof(f)) == 0 && strcmp(f, want) == 0;
}

static int
ns_ino(int pid, const char *ns, ino_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, ns);
	if (stat(path, &st) == -1)
		return errno == ENOENT ? -ESRCH : -errno;
	*ino = st.st_ino;
	return 0;
}

/* Without NS_GET_TGID_FROM_PIDNS (before Linux 6.11): the box init whose pid namespace
 * is PIDNS, found among /proc's processes.  Grows with the host; only the daemon's
 * watcher and the admin tool ever ask, never a login. */
static int
init_by_scan(ino_t pidns)
{
	struct dirent *de;
	ino_t ino;
	DIR *d;
	int pid, found = 0;

	if ((d = opendir("/proc")) == NULL)
		return -errno;
	while (found == 0 && (de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (ns_ino(pid, "pid", &ino) == 0 && ino == pidns && ab_proc_is_box_init(pid))
			found = pid;
	}
	(void)closedir(d);
	return found;
}

/* The host pid of pid 1 of PID's pid namespace, 0 if none is a box's, or -errno. */
static int
pidns_init(int pid, ino_t *pidns)
{
	char path[64];
	struct stat st;
	int fd, init, e;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return errno == ENOENT ? -ESRCH : -errno;
	if (fstat(fd, &st) == -1) {
		e = errno;
		(void)close(fd);
		return -e;
	}
	*pidns = st.st_ino;
	init = ioctl(fd, NS_GET_TGID_FROM_PIDNS, 1);
	e = errno;
	(void)close(fd);
	if (init < 0 && (e == ENOTTY || e == EINVAL))
		return init_by_scan(st.st_ino);
	if (init < 0)
		return e == ESRCH ? 0 : -e;	/* pid 1 gone: the namespace is dying */
	return init;
}

int
ab_proc_boxed(int pid, ino_t host_pidns)
{
	ino_t pidns = 0, mnt, init_mnt;
	int init, r;

	if ((init = pidns_init(pid, &pidns)) < 0)
		return init;
	if (pidns == host_pidns || init == 0 || !ab_proc_is_box_init(init))
		return 0;
	if ((r = ns_ino(pid, "mnt", &mnt)) != 0)
		return r;
	if ((r = ns_ino(init, "mnt", &init_mnt)) != 0)
		return r == -ESRCH ? 0 : r;
	return mnt == init_mnt;
}

int
ab_proc_unboxed_each(unsigned uid, int (*fn)(void *ctx, int pid, const char *comm),
    void *ctx)
{
	char status[4096], comm[64];
	struct dirent *de;
	struct stat self;
	DIR *d;
	int pid, r = 0, b;

	if (stat("/proc/self/ns/pid", &self) == -1)
		return -errno;
	if ((d = opendir("/proc")) == NULL)
		return -errno;
	while (r == 0 && (de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (ab_proc_status(pid, status, sizeof(status)) != 0 ||
		    ab_status_is_uid(status, uid) == 0 || is_zombie(status))
			continue;	/* gone, not UID's (a status we cannot read is UID's), or
					 * dead: a zombie holds no fd and runs nothing */
		if ((b = ab_proc_boxed(pid, self.st_ino)) == 1 || b == -ESRCH)
			continue;
		/* Fail closed: a process we cannot place counts as outside. */
		if (ab_status_field(status, "Name", comm, sizeof(comm)) != 0)
			snprintf(comm, sizeof(comm), "?");
		r = fn(ctx, pid, comm);
	}
	(void)closedir(d);
	return r;
}
