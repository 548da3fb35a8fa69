/*
 * Processes of an enrolled user outside any box (DESIGN invariant 3): enroll refuses
 * while one runs, unless --kill-running ends them; doctor lists them and says whether
 * agentbox-maskd watches for new ones (without it every login is refused).  Which
 * process is in a box is lib/proc.c's answer, the watcher's too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "abutil.h"
#include "admin.h"
#include "handoff.h"
#include "unboxed.h"

#define SHOW_MAX	8	/* processes named in a message; the rest are counted */
#define KILL_ROUNDS	10	/* a process may fork while we kill: walk again */

struct found {
	size_t	 n;
	char	 text[SHOW_MAX * 48];
};

static int
note(void *ctx, int pid, const char *name)
{
	struct found *f = ctx;
	size_t at = strlen(f->text);

	if (f->n++ < SHOW_MAX)
		snprintf(f->text + at, sizeof(f->text) - at, "%s%d (%.24s)", at ? ", " : "",
		    pid, name);
	return 0;
}

/* "N: pid (name), ..." of UID's processes outside a box; 0 when none, or -errno. */
static int
find(unsigned uid, struct found *f)
{
	memset(f, 0, sizeof(*f));
	return ab_proc_unboxed_each(uid, note, f);
}

static int
kill_one(void *ctx, int pid, const char *name)
{
	struct pollfd p = { .events = POLLIN };
	int *killed = ctx;

	(void)name;
	if ((p.fd = pidfd_open(pid, 0)) == -1)
		return errno == ESRCH ? 0 : -errno;
	if (pidfd_send_signal(p.fd, SIGKILL, NULL, 0) == 0) {
		(*killed)++;
		(void)poll(&p, 1, 2000);	/* readable once it has exited */
	}
	(void)close(p.fd);
	return 0;
}

int
adm_unboxed_refuse(const char *user, unsigned uid, int kill_running)
{
	struct found f;
	int r, round, killed = 0;

	if ((r = find(uid, &f)) != 0)
		die_errno(r, "enroll %s: list its processes", user);
	if (f.n == 0)
		return 0;
	if (!kill_running)
		die("enroll %s: %zu process(es) of %s run outside any box: %s%s; a box cannot "
		    "hold against them (they could hand a session what it hides). End them, or "
		    "enroll with --kill-running", user, f.n, user, f.text,
		    f.n > SHOW_MAX ? ", ..." : "");
	if (adm_dry_run) {
		printf("would end %zu process(es) of %s outside any box: %s\n", f.n, user, f.text);
		return 0;
	}
	for (round = 0; round < KILL_ROUNDS; round++) {
		if ((r = ab_proc_unboxed_each(uid, kill_one, &killed)) != 0)
			die_errno(r, "enroll %s: end its processes", user);
		if ((r = find(uid, &f)) != 0)
			die_errno(r, "enroll %s: list its processes", user);
		if (f.n == 0)
			break;
	}
	if (f.n != 0)
		die("enroll %s: %zu process(es) still run outside any box after %d rounds: %s",
		    user, f.n, KILL_ROUNDS, f.text);
	if (!adm_quiet)
		printf("ended %d process(es) of %s that ran outside any box\n", killed, user);
	return 0;
}

int
adm_unboxed_list(unsigned uid, char *buf, size_t len)
{
	struct found f;
	int r;

	if ((r = find(uid, &f)) != 0)
		return r;
	snprintf(buf, len, "%s%s", f.text, f.n > SHOW_MAX ? ", ..." : "");
	return (int)(f.n > 0x7fffffff ? 0x7fffffff : f.n);
}

int
adm_unboxed_watching(void)
{
	char path[128];
	const char *slash = strrchr(AB_MASKD_CONTROL, '/');
	int fd, r;

	snprintf(path, sizeof(path), "%.*s/%s/%s", (int)(slash - AB_MASKD_CONTROL),
	    AB_MASKD_CONTROL, AB_MASKD_UNBOXED_DIR, AB_UNBOXED_LOCK);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : -errno;
	r = flock(fd, LOCK_SH | LOCK_NB) == -1 && errno == EWOULDBLOCK;
	(void)close(fd);
	return r;
}
