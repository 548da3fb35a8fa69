/*
 * Step 1, the gate's last question: does a process of the user run outside a box?  Then
 * the login is refused (DESIGN invariant 3; maskd/unboxed.h).  Such a process can hand
 * the session fds of the host's tree, which no mask of the session's namespace hides.
 *
 * agentbox-maskd's watcher knows, from the kernel's process events, and keeps the
 * answer in a file per uid beside its control socket; this reads it: a handful of
 * syscalls, whatever the number of processes on the host (a walk of /proc grows with
 * it).  Fail closed: no daemon holding the state directory's lock means nobody watches,
 * and a state file we cannot read is a refusal too.  A uid without a file yet is
 * watched from now: the daemon walks /proc once for it while this login waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "handoff.h"
#include "module.h"
#include "unboxed.h"

#define WHO	"agentbox-maskd"

/* The state directory: the control socket's directory, then "unboxed". */
static int
state_dir(struct ab_sess *s)
{
	const char *slash = strrchr(s->maskd_path, '/');
	char path[256];
	int fd, n;

	n = slash == NULL ? -1 : snprintf(path, sizeof(path), "%.*s/%s",
	    (int)(slash - s->maskd_path), s->maskd_path, AB_MASKD_UNBOXED_DIR);
	if (n < 0 || (size_t)n >= sizeof(path))
		return ab_sess_fail(s, -ENAMETOOLONG, WHO ": control path %s", s->maskd_path);
	if ((fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return ab_sess_fail(s, -errno, WHO " is not watching for processes outside a "
		    "box: %s: %s", path, strerror(errno));
	return fd;
}

/* The daemon holds the lock exclusively while its files are true. */
static int
daemon_watches(struct ab_sess *s, int dir)
{
	int fd, r = 0;

	if ((fd = openat(dir, AB_UNBOXED_LOCK, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return ab_sess_fail(s, -errno, WHO " is not watching for processes outside a "
		    "box: %s: %s", AB_UNBOXED_LOCK, strerror(errno));
	if (flock(fd, LOCK_SH | LOCK_NB) == 0)
		r = ab_sess_fail(s, -ESRCH, WHO " is not watching for processes outside a box "
		    "(it is not running, or starting)");
	else if (errno != EWOULDBLOCK)
		r = ab_sess_fail(s, -errno, WHO ": lock: %s", strerror(errno));
	(void)close(fd);	/* drops our LOCK_SH, if we got it */
	return r;
}

/* "watch UID": the daemon walks /proc for the uid and writes its file. */
static int
ask_watch(struct ab_sess *s)
{
	char msg[32], reply[AB_MASKD_REPLY_MAX + 1];
	ssize_t n;
	int fd, r = 0;

	n = snprintf(msg, sizeof(msg), "watch %u", (unsigned)s->uid);
	if ((fd = ab_maskd_dial(s)) < 0)
		return ab_sess_fail(s, fd, WHO " did not take the watch of uid %u: connect %s: "
		    "%s", (unsigned)s->uid, s->maskd_path, strerror(-fd));
	errno = 0;
	if (send(fd, msg, (size_t)n, MSG_NOSIGNAL) != n ||
	    (n = recv(fd, reply, sizeof(reply) - 1, 0)) <= 0)
		r = ab_sess_fail(s, errno != 0 ? -errno : -ECONNRESET, WHO " did not take the "
		    "watch of uid %u: %s", (unsigned)s->uid, errno != 0 ? strerror(errno) :
		    "no reply");
	else if ((reply[n] = '\0', strcmp(reply, "ok") != 0))
		r = ab_sess_fail(s, -EACCES, WHO " did not take the watch of uid %u: %.200s",
		    (unsigned)s->uid, reply);
	(void)close(fd);
	return r;
}

/* Terminal- and syslog-safe: the names are the processes' own (comm). */
static void
printable(char *p)
{
	for (; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
}

/* The uid's state file: empty is "none outside a box"; else its first line is named. */
static int
judge(struct ab_sess *s, int fd)
{
	char buf[256], *nl;
	struct stat st;
	ssize_t n;
	size_t lines = 0;

	if (fstat(fd, &st) == -1)
		return ab_sess_fail(s, -errno, WHO ": state of uid %u: %s", (unsigned)s->uid,
		    strerror(errno));
	if (st.st_uid != 0 || !S_ISREG(st.st_mode))
		return ab_sess_fail(s, -EPERM, WHO ": state of uid %u is not root's file",
		    (unsigned)s->uid);
	if ((n = read(fd, buf, sizeof(buf) - 1)) < 0)
		return ab_sess_fail(s, -errno, WHO ": state of uid %u: %s", (unsigned)s->uid,
		    strerror(errno));
	if (n == 0)
		return 0;
	buf[n] = '\0';
	for (nl = buf; (nl = strchr(nl, '\n')) != NULL; nl++)
		lines++;
	buf[strcspn(buf, "\n")] = '\0';
	printable(buf);
	return ab_sess_fail(s, -EBUSY, "%zu%s process(es) of %s run outside any box (pid %s): "
	    "no session of theirs can be confined while one does; end them (agentbox doctor "
	    "lists them)", lines, (size_t)n == sizeof(buf) - 1 ? " or more" : "", s->user, buf);
}

int
ab_unboxed_check(struct ab_sess *s)
{
	char name[16];
	int dir, fd, r;

	if ((dir = state_dir(s)) < 0)
		return dir;
	snprintf(name, sizeof(name), "%u", (unsigned)s->uid);
	if ((r = daemon_watches(s, dir)) != 0)
		goto out;
	if ((fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1 &&
	    errno == ENOENT && (r = ask_watch(s)) == 0)
		fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (r != 0)
		goto out;
	if (fd == -1) {
		r = ab_sess_fail(s, -errno, WHO ": state of uid %u: %s", (unsigned)s->uid,
		    strerror(errno));
		goto out;
	}
	r = judge(s, fd);
	(void)close(fd);
out:
	(void)close(dir);
	return r;
}
