/*
 * netd/cred.c: read one credential file (netd/cred.h). The file is the one secret the
 * daemon holds for a session, so it is opened as pam_namespace opens user paths: no
 * symlink anywhere (openat2 RESOLVE_NO_SYMLINKS, not just O_NOFOLLOW on the last
 * component), then fstat of the open fd decides, never a stat of the path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cred.h"

static int
open_strict(const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,	/* a FIFO never blocks */
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

static int
check_file(int fd, uid_t owner, gid_t group)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	/* Read by the daemon's group; nobody else reads it, nobody but root writes it. */
	if (st.st_uid != owner || (st.st_gid != group && st.st_gid != 0) ||
	    (st.st_mode & 07777 & ~(mode_t)0640) != 0)
		return -EPERM;
	if (st.st_size > AB_NETD_SECRET_MAX + 2)
		return -EFBIG;
	return 0;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Trim BUF[0..n) in place; one line of visible ASCII must remain. */
static int
trim_line(char *buf, size_t n, size_t *len)
{
	size_t s = 0, e = n;

	while (s < e && is_space(buf[s]))
		s++;
	while (e > s && is_space(buf[e - 1]))
		e--;
	if (e - s > AB_NETD_SECRET_MAX)
		return -EFBIG;
	if (e - s < AB_NETD_CRED_MIN)
		return -EINVAL;
	for (size_t i = s; i < e; i++)
		if (buf[i] < 0x21 || buf[i] > 0x7e)
			return -EINVAL;	/* a second line, a control, a space, non-ASCII */
	memmove(buf, buf + s, e - s);
	buf[e - s] = '\0';
	*len = e - s;
	return 0;
}

/* Read all of FD (at most SIZE - 1 bytes; one more means too long). */
static int
read_all(int fd, char *buf, size_t size, size_t *n)
{
	ssize_t r;

	*n = 0;
	do {
		r = read(fd, buf + *n, size - *n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		*n += (size_t)r;
	} while (r > 0 && *n < size);
	return *n == size ? -EFBIG : 0;	/* the file grew past its size */
}

int
ab_netd_cred_read(const char *path, uid_t owner, gid_t group, char *buf, size_t size,
		  size_t *len)
{
	size_t n = 0;
	int fd, r;

	if (size < AB_NETD_SECRET_MAX + 1)
		return -EINVAL;
	if (path[0] != '/')
		return -EINVAL;
	if ((fd = open_strict(path)) >= 0) {
		r = check_file(fd, owner, group);
		if (r == 0)
			r = read_all(fd, buf, size, &n);
		close(fd);
	} else {
		r = fd;
	}
	if (r == 0)
		r = trim_line(buf, n, len);
	if (r != 0)
		explicit_bzero(buf, size);
	return r;
}
