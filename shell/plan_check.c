/*
 * Verify the world: agentbox-shell only ever runs inside a session built by
 * pam_agentbox.so.  The proof is the session plan the module left on a read-only tmpfs
 * of the session's own mount namespace, naming the namespaces it built.  Without it
 * (sshd with UsePAM no, a PAM stack missing the module, a user namespace with a forged
 * plan) the login is refused: never a weaker sandbox of our own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "shell.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

/* Read all of FD (a regular file of SIZE bytes) into a NUL-terminated buffer. */
static int
read_all(int fd, size_t size, char **out)
{
	char *buf;
	size_t got = 0;
	ssize_t n;

	if ((buf = malloc(size + 1)) == NULL)
		return -ENOMEM;
	/* Read one byte past SIZE: a file that grows under us is not the plan we checked. */
	while (got <= size) {
		n = read(fd, buf + got, size + 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got != size) {
		free(buf);
		return -EIO;
	}
	buf[size] = '\0';
	*out = buf;
	return 0;
}

int
ab_plan_read(const char *path, struct ab_plan **out, const char **why)
{
	struct stat st;
	struct statvfs vfs;
	char *buf = NULL;
	int fd, r;

	*out = NULL;
	/* O_NONBLOCK: a FIFO planted at the path must not hang the login. */
	if ((fd = openat(AT_FDCWD, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) == -1) {
		r = -errno;
		*why = r == -ENOENT ? "no session plan (is pam_agentbox in this PAM stack?)" :
		    r == -ELOOP ? "session plan is a symlink" : "cannot open session plan";
		return r;
	}
	r = -EPERM;
	if (fstat(fd, &st) == -1 || fstatvfs(fd, &vfs) == -1) {
		r = -errno;
		*why = "cannot stat session plan";
	} else if (!S_ISREG(st.st_mode))
		*why = "session plan is not a regular file";
	else if (st.st_uid != 0)
		*why = "session plan is not owned by root";
	else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		*why = "session plan is writable by group or others";
	else if ((vfs.f_flag & ST_RDONLY) == 0)
		*why = "session plan is not on a read-only mount";
	else if (st.st_size <= 0 || st.st_size > AB_PLAN_MAX) {
		r = -EFBIG;
		*why = "session plan has an implausible size";
	} else if ((r = read_all(fd, (size_t)st.st_size, &buf)) != 0)
		*why = "cannot read session plan";
	else if ((r = ab_plan_parse(buf, (size_t)st.st_size, out)) != 0)
		*why = "session plan does not parse";
	free(buf);
	close(fd);
	return r;
}

/*
 * Inode number of /proc/self/ns/NAME, checked to be an nsfs file: a tmpfs or bind mount
 * over /proc must not be able to pass off a plain file as a namespace.
 */
static int
ns_inode(const char *name, uint64_t *ino)
{
	char path[64];
	struct stat st;
	struct statfs sfs;
	int fd, r = 0;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	if ((fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC)) == -1)
		return -errno;
	if (fstat(fd, &st) == -1 || fstatfs(fd, &sfs) == -1)
		r = -errno;
	else if (sfs.f_type != NSFS_MAGIC)
		r = -EPERM;
	else
		*ino = st.st_ino;
	close(fd);
	return r;
}

int
ab_plan_matches_world(const struct ab_plan *plan, const char **why)
{
	static const struct {
		const char *ns;
		size_t off;
		const char *why;
	} want[] = {
		{ "mnt", offsetof(struct ab_plan, ns_mnt), "not in the session's mount namespace" },
		{ "pid", offsetof(struct ab_plan, ns_pid), "not in the session's pid namespace" },
		{ "net", offsetof(struct ab_plan, ns_net), "not in the session's network namespace" },
		{ "ipc", offsetof(struct ab_plan, ns_ipc), "not in the session's ipc namespace" },
		{ "uts", offsetof(struct ab_plan, ns_uts), "not in the session's uts namespace" },
	};
	uint64_t ino;
	size_t i;
	int r;

	/* A user namespace makes "root-owned" and "read-only mount" forgeable. */
	if ((r = ns_inode("user", &ino)) != 0) {
		*why = "cannot read /proc/self/ns/user";
		return r;
	}
	if (ino != AB_INIT_USER_NS_INO) {
		*why = "running in a user namespace";
		return -EPERM;
	}
	if (plan->uid != getuid() || plan->uid != geteuid()) {
		*why = "session plan is for another user";
		return -EPERM;
	}
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if ((r = ns_inode(want[i].ns, &ino)) != 0) {
			*why = "cannot read /proc/self/ns";
			return r;
		}
		if (ino != *(const uint64_t *)((const char *)plan + want[i].off)) {
			*why = want[i].why;
			return -EPERM;
		}
	}
	return 0;
}

/* Value of a "Key:\tN" line of /proc/self/status, or -1 when absent. */
static long
status_field(const char *buf, const char *key)
{
	size_t klen = strlen(key);
	const char *p;

	for (p = buf; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, key, klen) == 0 && p[klen] == ':')
			return strtol(p + klen + 1, NULL, 10);
	return -1;
}

int
ab_already_confined(void)
{
	char buf[8192];
	ssize_t n;
	size_t got = 0;
	int fd;

	if ((fd = openat(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC)) == -1)
		return -errno;
	while (got < sizeof(buf) - 1) {
		n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	/* Seccomp 2 = SECCOMP_MODE_FILTER. */
	return status_field(buf, "NoNewPrivs") == 1 && status_field(buf, "Seccomp") == 2;
}
