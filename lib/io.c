/* Plain I/O helpers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "abutil.h"

int
ab_io_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
ab_fd_path(int fd, char *out, size_t outlen)
{
	char link[32];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, out, outlen)) == -1)
		return -errno;
	if ((size_t)n >= outlen)
		return -ENAMETOOLONG;
	out[n] = '\0';
	return 0;
}

static void
mountinfo_unescape(char *p)
{
	char *o = p;

	for (; *p != '\0'; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*o++ = (char)(((p[1] - '0') << 6) | ((p[2] - '0') << 3) | (p[3] - '0'));
			p += 3;
		} else
			*o++ = *p;
	}
	*o = '\0';
}

int
ab_mountinfo_fields(char *line, char *f[5])
{
	char *save = NULL;
	int i;

	for (i = 0; i < 5; i++)
		if ((f[i] = strtok_r(i == 0 ? line : NULL, " \n", &save)) == NULL)
			return -EINVAL;
	mountinfo_unescape(f[4]);
	return 0;
}

ssize_t
ab_read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd, e;

	if (cap < 2)
		return -EINVAL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -errno;
	n = read(fd, buf, cap - 1);
	e = errno;
	(void)close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	return n;
}
