/*
 * netd/cred.c: credential files that must not be read (issue 11 item 4). Run as any
 * user: the owner the test asks for is its own uid (the daemon asks for root).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cred.h"
#include "tap.h"

static char dir[] = "/tmp/ab-cred-XXXXXX";
static char path[256];

/* Write CONTENT (LEN bytes) to NAME in the test dir with MODE; the path in `path`. */
static void
write_file(const char *name, const char *content, size_t len, mode_t mode)
{
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, content, len) != (ssize_t)len || fchmod(fd, mode) != 0 ||
	    close(fd) != 0)
		ok(0, "write %s: %m", path);
}

static int
read_cred(const char *p, char *buf, size_t *len)
{
	return ab_netd_cred_read(p, getuid(), getgid(), buf, AB_NETD_SECRET_MAX + 1, len);
}

static const struct {
	const char *name, *content;
	mode_t mode;
	int want;
	const char *secret;
} rows[] = {
	{ "plain line", "sk-ant-api03-abcdef\n", 0640, 0, "sk-ant-api03-abcdef" },
	{ "no newline, mode 0600", "sk-ant-api03-abcdef", 0600, 0, "sk-ant-api03-abcdef" },
	{ "surrounding whitespace and CRLF", "  sk-abcdefgh \r\n", 0400, 0, "sk-abcdefgh" },
	{ "mode 0644 (world-readable)", "sk-abcdefgh\n", 0644, -EPERM, NULL },
	{ "mode 0660 (group-writable)", "sk-abcdefgh\n", 0660, -EPERM, NULL },
	{ "mode 0740 (owner-executable)", "sk-abcdefgh\n", 0740, -EPERM, NULL },
	{ "setgid bit", "sk-abcdefgh\n", 02640, -EPERM, NULL },
	{ "two lines", "sk-abcdefgh\nsk-second-line\n", 0640, -EINVAL, NULL },
	{ "a space inside", "sk-abc defgh\n", 0640, -EINVAL, NULL },
	{ "a control byte (header injection)", "sk-abcdefgh\rX-A: b\n", 0640, -EINVAL, NULL },
	{ "non-ASCII", "sk-abcdefgh\xc3\xa9\n", 0640, -EINVAL, NULL },
	{ "empty", "", 0640, -EINVAL, NULL },
	{ "only whitespace", " \n", 0640, -EINVAL, NULL },
	{ "too short to redact safely", "sk-abc\n", 0640, -EINVAL, NULL },
};

static void
test_rows(void)
{
	char buf[AB_NETD_SECRET_MAX + 1];
	size_t len = 0;
	int r;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		write_file("key", rows[i].content, strlen(rows[i].content), rows[i].mode);
		r = read_cred(path, buf, &len);
		ok(r == rows[i].want && (r != 0 || (len == strlen(rows[i].secret) &&
						    strcmp(buf, rows[i].secret) == 0)),
		   "%s: %d", rows[i].name, r);
		if (r != 0)
			ok(buf[0] == '\0' && buf[AB_NETD_SECRET_MAX] == '\0', "%s: buffer wiped",
			   rows[i].name);
	}
}

static void
test_paths(void)
{
	char buf[AB_NETD_SECRET_MAX + 1], link[300], sub[300], via[300];
	char *big = malloc(AB_NETD_SECRET_MAX + 64);
	size_t len;

	write_file("real", "sk-abcdefgh\n", 12, 0640);
	snprintf(link, sizeof(link), "%s/link", dir);
	ok(symlink(path, link) == 0 && read_cred(link, buf, &len) == -ELOOP,
	   "a symlink to a good file: ELOOP");
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(via, sizeof(via), "%s/sub/real", dir);
	ok(symlink(dir, sub) == 0 && read_cred(via, buf, &len) == -ELOOP,
	   "a symlinked directory on the way: ELOOP");
	ok(read_cred("real", buf, &len) == -EINVAL, "a relative path: EINVAL");
	ok(read_cred(dir, buf, &len) == -EINVAL, "a directory: EINVAL");
	ok(ab_netd_cred_read(path, getuid() + 1, getgid(), buf, sizeof(buf), &len) == -EPERM,
	   "owned by another user: EPERM");
	ok(getgid() == 0 ||
	   ab_netd_cred_read(path, getuid(), getgid() + 1, buf, sizeof(buf), &len) == -EPERM,
	   "another group (not root): EPERM");
	ok(ab_netd_cred_read(path, getuid(), getgid(), buf, 16, &len) == -EINVAL,
	   "a buffer smaller than the cap: EINVAL");
	if (big == NULL)
		return;
	memset(big, 'k', AB_NETD_SECRET_MAX + 64);
	write_file("big", big, AB_NETD_SECRET_MAX, 0640);
	ok(read_cred(path, buf, &len) == 0 && len == AB_NETD_SECRET_MAX, "a secret of the cap: read");
	write_file("big", big, AB_NETD_SECRET_MAX + 64, 0640);
	ok(read_cred(path, buf, &len) == -EFBIG, "over the cap: EFBIG");
	free(big);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ok(mkfifo(path, 0640) == 0 && read_cred(path, buf, &len) == -EINVAL,
	   "a FIFO: EINVAL, without blocking");
}

int
main(void)
{
	char cmd[64];

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp: %m");
		return done_testing();
	}
	test_rows();
	test_paths();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
