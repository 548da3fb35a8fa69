/*
 * maskd-try: the agent's side of tests/e2e/maskd_enforce.t.  One operation per run; the
 * exit status is the errno of the open that matters (0: it worked), so the test can
 * assert EPERM exactly, and the audit record of that open carries this process's ses.
 *
 *   maskd-try read PATH                 open O_RDONLY, print what it reads
 *   maskd-try rename FROM TO | link FROM TO | symlink TARGET PATH
 *   maskd-try opath-linkat PATH NEW     O_PATH fd, linkat(fd, "", NEW, AT_EMPTY_PATH)
 *   maskd-try opath-proclink PATH NEW   O_PATH fd, linkat("/proc/self/fd/N", NEW, FOLLOW)
 *   maskd-try opath-reopen PATH         O_PATH fd, then open("/proc/self/fd/N") and read
 *   maskd-try stale PATH READY GO       O_PATH fd, create READY, wait for GO, reopen, read
 *   maskd-try bench DIR N               open+close DIR/f0 .. DIR/f(N-1); print us per op
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int
show(const char *what, int err)
{
	printf("%s: %s\n", what, err == 0 ? "OK" : strerrorname_np(err));
	return err;
}

/* Read FD to stdout (a secret that leaks is then in the test's output). */
static int
read_out(int fd)
{
	char buf[256];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	if (n < 0)
		return errno;
	buf[n] = '\0';
	printf("content: %s\n", buf);
	return 0;
}

static int
do_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd == -1)
		return show("open", errno);
	r = read_out(fd);
	close(fd);
	return show("open", r);
}

static int
proc_reopen(int fd)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	return do_read(p);
}

static int
opath(const char *path)
{
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd == -1) {
		show("open(O_PATH)", errno);
		exit(2);
	}
	return fd;
}

static int
wait_for(const char *path)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (access(path, F_OK) == 0)
			return 0;
		usleep(10000);
	}
	return ETIMEDOUT;
}

static int
bench(const char *dir, long n)
{
	struct timespec a, b;
	char p[4096];
	long i;
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/f%ld", dir, i);
		if ((fd = open(p, O_RDONLY | O_CLOEXEC)) == -1)
			return show(p, errno);
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.2f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / n);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	char p[64];
	int fd;

	if (strcmp(op, "read") == 0 && argc == 3)
		return do_read(argv[2]);
	if (strcmp(op, "rename") == 0 && argc == 4)
		return show("rename", rename(argv[2], argv[3]) == -1 ? errno : 0);
	if (strcmp(op, "link") == 0 && argc == 4)
		return show("link", link(argv[2], argv[3]) == -1 ? errno : 0);
	if (strcmp(op, "symlink") == 0 && argc == 4)
		return show("symlink", symlink(argv[2], argv[3]) == -1 ? errno : 0);
	if (strcmp(op, "opath-linkat") == 0 && argc == 4) {
		fd = opath(argv[2]);
		return show("linkat", linkat(fd, "", AT_FDCWD, argv[3], AT_EMPTY_PATH) == -1 ?
		    errno : 0);
	}
	if (strcmp(op, "opath-proclink") == 0 && argc == 4) {
		fd = opath(argv[2]);
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		return show("linkat", linkat(AT_FDCWD, p, AT_FDCWD, argv[3],
		    AT_SYMLINK_FOLLOW) == -1 ? errno : 0);
	}
	if (strcmp(op, "opath-reopen") == 0 && argc == 3)
		return proc_reopen(opath(argv[2]));
	if (strcmp(op, "stale") == 0 && argc == 5) {
		fd = opath(argv[2]);
		if (close(open(argv[3], O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) == -1 ||
		    wait_for(argv[4]) != 0)
			return show("stale", ETIMEDOUT);
		return proc_reopen(fd);
	}
	if (strcmp(op, "bench") == 0 && argc == 4)
		return bench(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: maskd-try read|rename|link|symlink|opath-linkat|opath-proclink|"
	    "opath-reopen|stale|bench ...\n");
	return 254;
}
