/*
 * Small helpers of the admin tool: messages, whole-file reads and atomic replacement,
 * line edits, and running the system tools we deliberately delegate to (useradd,
 * pam-auth-update, sshd -t) without a shell.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "admin.h"

int adm_dry_run;
int adm_quiet;

static void
vmsg(const char *prefix, int err, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "agentbox: %s", prefix);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", 0, fmt, ap);
	va_end(ap);
	exit(1);
}

void
die_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", err < 0 ? -err : err, fmt, ap);
	va_end(ap);
	exit(1);
}

void
adm_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", 0, fmt, ap);
	va_end(ap);
}

void
hint(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("hint: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int
vact(const char *fmt, va_list ap)
{
	if (adm_quiet && !adm_dry_run)
		return 1;
	fputs(adm_dry_run ? "would " : "", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	return !adm_dry_run;
}

int
act(const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vact(fmt, ap);
	va_end(ap);
	return r;
}

/* Configuration files we edit are small; anything bigger is not what we think it is. */
#define ADM_FILE_MAX (4u << 20)

int
adm_read_file(const char *path, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	struct stat st;
	char *buf = NULL, *nb;
	ssize_t n;
	int fd, r = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) == -1)
		return -errno;
	if (fstat(fd, &st) == -1) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		goto out;
	}
	/* Read to EOF, not st_size: /proc files report 0 and files may grow. */
	for (;;) {
		if (buf == NULL || len + 1 >= cap) {
			if (buf != NULL && (cap *= 2) > ADM_FILE_MAX + 1) {
				r = -EFBIG;
				goto out;
			}
			if ((nb = realloc(buf, cap)) == NULL) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*bufp = buf;
	buf = NULL;
	if (lenp != NULL)
		*lenp = len;
out:
	free(buf);
	close(fd);
	return r;
}

int
adm_write_file(const char *path, const char *buf, size_t len, mode_t mode)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	uid_t uid = 0;
	gid_t gid = 0;
	struct stat st;
	int fd, r, dfd;

	/* Replacing a file keeps its owner and mode (at.deny is root:daemon 0640). */
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		uid = st.st_uid;
		gid = st.st_gid;
		mode = st.st_mode & 07777;
	}

	if (snprintf(tmp, sizeof(tmp), "%s.agentbox-tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	/* O_EXCL after unlink: a stale temp file of a crashed run is replaced, never reused. */
	if (unlink(tmp) == -1 && errno != ENOENT)
		return -errno;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600)) == -1)
		return -errno;
	if ((r = ab_io_write_all(fd, buf, len)) != 0 ||
	    (fchown(fd, uid, gid) == -1 && (r = -errno)) ||
	    (fchmod(fd, mode) == -1 && (r = -errno)) ||
	    (fsync(fd) == -1 && (r = -errno))) {
		close(fd);
		unlink(tmp);
		return r;
	}
	if (close(fd) == -1) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	if (rename(tmp, path) == -1) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	/* The rename itself must survive a crash: sync the directory. */
	snprintf(dir, sizeof(dir), "%s", path);
	if ((dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -errno;
	r = fsync(dfd) == -1 ? -errno : 0;
	close(dfd);
	return r;
}

int
adm_unlink(const char *path)
{
	if (unlink(path) == -1 && errno != ENOENT)
		return -errno;
	return 0;
}

int
adm_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, mode) == -1 && errno != EEXIST)
			return -errno;
		*p = c;
		if (c == '\0')
			break;
	}
	return 0;
}

int
adm_path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Length of the line at P without its newline and trailing blanks. */
static size_t
line_len(const char *p, const char **next)
{
	const char *e = strchrnul(p, '\n');
	size_t n = (size_t)(e - p);

	*next = *e == '\n' ? e + 1 : e;
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	return n;
}

int
adm_has_line(const char *buf, const char *line)
{
	const char *p = buf, *next;
	size_t want = strlen(line), n;

	while (*p != '\0') {
		n = line_len(p, &next);
		if (n == want && memcmp(p, line, n) == 0)
			return 1;
		p = next;
	}
	return 0;
}

char *
adm_without_line(const char *buf, const char *line, int *removed)
{
	const char *p = buf, *next;
	size_t want = strlen(line), n, o = 0;
	char *out;

	*removed = 0;
	if ((out = malloc(strlen(buf) + 1)) == NULL)
		return NULL;
	while (*p != '\0') {
		n = line_len(p, &next);
		if (n == want && memcmp(p, line, n) == 0) {
			(*removed)++;
		} else {
			memcpy(out + o, p, (size_t)(next - p));
			o += (size_t)(next - p);
		}
		p = next;
	}
	out[o] = '\0';
	return out;
}

int
adm_write_if_changed(const char *path, const char *text, mode_t mode, const char *dir,
    mode_t dir_mode, const char *fmt, ...)
{
	char *old = NULL;
	va_list ap;
	int r, go;

	/* Unchanged is the common case of a second enroll: say nothing, touch nothing. */
	if (adm_read_file(path, &old, NULL) == 0 && strcmp(old, text) == 0) {
		free(old);
		return 0;
	}
	free(old);
	va_start(ap, fmt);
	go = vact(fmt, ap);
	va_end(ap);
	if (!go)
		return 0;
	if (dir != NULL && (r = adm_mkdir_p(dir, dir_mode)) != 0)
		return r;
	if ((r = adm_write_file(path, text, strlen(text), mode)) != 0)
		return r;
	return 1;
}

int
adm_remove_line(const char *path, const char *line, const char *what, int unlink_empty)
{
	char *buf, *nb;
	int r, removed;

	if ((r = adm_read_file(path, &buf, NULL)) != 0)
		return r == -ENOENT ? 0 : r;
	if ((nb = adm_without_line(buf, line, &removed)) == NULL) {
		free(buf);
		return -ENOMEM;
	}
	r = 0;
	if (removed && act("remove %s from %s", what, path))
		r = unlink_empty && nb[0] == '\0' ? adm_unlink(path) :
		    adm_write_file(path, nb, strlen(nb), 0644);
	free(buf);
	free(nb);
	return r;
}

#define ADM_OUT_MAX (1u << 20)

static int
read_child(int fd, char **out)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *nb;
	ssize_t n;

	if (buf == NULL)
		return -ENOMEM;
	for (;;) {
		if (len + 1 >= cap) {
			if (cap >= ADM_OUT_MAX) {
				free(buf);
				return -EFBIG;
			}
			if ((nb = realloc(buf, cap *= 2)) == NULL) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/*
 * sshd -t / -T insist on its privilege separation directory /run/sshd, which only its
 * init script creates.  Give the child a private mount namespace with a private /run
 * holding it, so checking sshd's configuration never changes the host.
 */
static int
private_run_sshd(void)
{
	if (access("/run/sshd", F_OK) == 0)
		return 0;
	if (unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755") == -1 ||
	    mkdir("/run/sshd", 0755) == -1)
		return -errno;
	return 0;
}

int
adm_run(const char *const argv[], char **out, int quiet)
{
	/* A fixed environment: the tools we run as root must not see the caller's. */
	static char *const envp[] = {
		"PATH=/usr/sbin:/usr/bin:/sbin:/bin",
		"LC_ALL=C",
		"DEBIAN_FRONTEND=noninteractive",
		NULL,
	};
	int pfd[2] = { -1, -1 }, status, r = 0, devnull;
	pid_t pid;

	if (out != NULL && pipe2(pfd, O_CLOEXEC) == -1)
		return -errno;
	fflush(NULL);
	if ((pid = fork()) == -1) {
		r = -errno;
		if (out != NULL) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return r;
	}
	if (pid == 0) {
		/* Child: stdout to the pipe (or kept), stderr silenced when asked. */
		if (out != NULL && dup2(pfd[1], STDOUT_FILENO) == -1)
			_exit(127);
		if (quiet && (devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) != -1) {
			if (dup2(devnull, STDERR_FILENO) == -1)
				_exit(127);
			if (out == NULL && dup2(devnull, STDOUT_FILENO) == -1)
				_exit(127);
		}
		if (strcmp(argv[0], AB_SSHD) == 0 && private_run_sshd() != 0)
			_exit(127);
		execve(argv[0], (char *const *)argv, envp);
		_exit(127);
	}
	if (out != NULL) {
		close(pfd[1]);
		r = read_child(pfd[0], out);
		close(pfd[0]);
	}
	while (waitpid(pid, &status, 0) == -1) {
		if (errno != EINTR)
			return -errno;
	}
	if (r != 0)
		return r;
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status) == 127 && access(argv[0], X_OK) == -1) {
			if (out != NULL) {
				free(*out);
				*out = NULL;
			}
			return -ENOENT;
		}
		return WEXITSTATUS(status);
	}
	return 128 + WTERMSIG(status);
}
