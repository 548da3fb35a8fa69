/*
 * The learning recorder of a learn = yes session (policy/agentbox.conf(5) "learn";
 * docs/audit-records.md "Learning records").  Landlock has no log-only mode, so a
 * learning session runs without its filesystem rules, and this records what they
 * would have refused: the learning group's mount marks (the PAM module put one on
 * every mount of the session's namespace, livemask.c) report each open, exec and
 * close-after-write through them, and each is asked of policy/grants.c, the list
 * agentbox-shell builds its ruleset from.  A path and access outside it is one
 * agentbox-learn record, once per session.
 *
 * Notification events only: nothing waits for us, so this is a record, never a gate.
 * Masks are still the permission group's (enforce.c) and the mounts'.  Each event's
 * inode gets an evictable ignore mark for what it reported, so a file opened a
 * thousand times is one event.  Where the record can no longer be complete (the table
 * of recorded paths full, a queue overflow, a read error) one agentbox-learn-lost
 * record says so and the recorder stops: a partial record must not look whole.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libaudit.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "maskd.h"

#define BUF_SIZE	(64 * 1024)
#define SEEN_CAP	(1u << 18)	/* the table; AB_LEARN_MAX of it used at most */
_Static_assert(AB_LEARN_MAX < SEEN_CAP, "the table always has an empty slot to stop a probe");

struct ab_learn {
	int			 group, audit;
	uint32_t		 ses, uid;
	pid_t			 self;
	const struct ab_fs_sets	*grants;	/* what Landlock would grant: the caller's */
	uint64_t		*seen;		/* open addressing; 0 is empty */
	size_t			 nseen, max;
	int			 stopped;	/* the lost record is written: record nothing */
	struct ab_learn_stats	 st;
	char			 buf[BUF_SIZE];
};

static const struct {
	unsigned int	 right;
	const char	*name;
} accesses[] = {
	{ AB_FS_READ, "read" },
	{ AB_FS_LIST, "list" },
	{ AB_FS_EXEC, "execute" },
	{ AB_FS_WRITE, "write" },
};

int
ab_learn_new(int group, uint32_t ses, uint32_t uid, const struct ab_fs_sets *grants,
    size_t max, struct ab_learn **out)
{
	struct ab_learn *l;

	if ((l = calloc(1, sizeof(*l))) == NULL)
		return -ENOMEM;
	if ((l->seen = calloc(SEEN_CAP, sizeof(*l->seen))) == NULL) {
		free(l);
		return -ENOMEM;
	}
	if ((l->audit = ab_maskd_audit_open()) < 0) {
		int e = l->audit;

		free(l->seen);
		free(l);
		return e;
	}
	l->group = group;
	l->ses = ses;
	l->uid = uid;
	l->self = getpid();
	l->grants = grants;
	l->max = max == 0 || max > AB_LEARN_MAX ? AB_LEARN_MAX : max;
	*out = l;
	return 0;
}

void
ab_learn_free(struct ab_learn *l)
{
	if (l == NULL)
		return;
	if (l->group >= 0)
		(void)close(l->group);
	audit_close(l->audit);
	free(l->seen);
	free(l);
}

int
ab_learn_fd(const struct ab_learn *l)
{
	return l->stopped ? -1 : l->group;
}

void
ab_learn_stats(const struct ab_learn *l, struct ab_learn_stats *out)
{
	*out = l->st;
}

/* FNV-1a of ACCESS and PATH; never 0 (the empty slot). */
static uint64_t
key_of(unsigned int access, const char *path)
{
	uint64_t h = 0xcbf29ce484222325ull ^ access;
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p != '\0'; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return h != 0 ? h : 1;
}

/* 1 if K was new and is now in the table, 0 if it was there, -ENOSPC if it is full. */
static int
remember(struct ab_learn *l, uint64_t k)
{
	size_t i = (size_t)(k & (SEEN_CAP - 1));

	while (l->seen[i] != 0) {
		if (l->seen[i] == k)
			return 0;
		i = (i + 1) & (SEEN_CAP - 1);
	}
	if (l->nseen >= l->max)
		return -ENOSPC;
	l->seen[i] = k;
	l->nseen++;
	return 1;
}

/*
 * The record is incomplete from here: say so once, then record nothing more, and close
 * the group: its queue is unlimited, and nobody would read it any more.  Masks are the
 * permission group's, which this does not touch.
 */
static void
stop(struct ab_learn *l, const char *reason)
{
	if (l->stopped)
		return;
	l->stopped = 1;
	(void)close(l->group);
	l->group = -1;
	(void)ab_maskd_audit_send(l->audit, 0, "op=agentbox-learn-lost ses=%u uid=%u reason=%s", l->ses,
	    l->uid, reason);
}

/*
 * Is PID one of the agent's processes?  The PAM module's own root steps after the marks
 * (the hand-off, the plan, pid 1) are not the agent's.  A process already gone is
 * counted as the agent's: a short `cat` is gone by the time its event is read.
 */
static int
agents(const struct ab_learn *l, pid_t pid)
{
	char path[64], buf[4096], *u;
	unsigned int ruid, euid;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	if ((u = strstr(buf, "\nUid:")) == NULL || sscanf(u + 5, "%u %u", &ruid, &euid) != 2)
		return 1;
	return euid == l->uid;
}

static void
record(struct ab_learn *l, pid_t pid, const char *access, const char *path)
{
	char comm[64], *p, *c;
	/* The opener's own audit session: a login that joined a persistent box has its own. */
	uint32_t ses = ab_maskd_proc_num(pid, "sessionid", l->ses);

	ab_maskd_proc_line(pid, "comm", comm, sizeof(comm));
	p = audit_encode_nv_string("path", path, 0);
	c = audit_encode_nv_string("comm", comm[0] != '\0' ? comm : "?", 0);
	if (p != NULL && c != NULL &&
	    ab_maskd_audit_send(l->audit, 1, "op=agentbox-learn ses=%u uid=%u pid=%d access=%s "
	    "%s %s", ses, l->uid, (int)pid, access, p, c) == 0)
		l->st.recorded++;
	else
		stop(l, "write-error");
	free(p);
	free(c);
}

/* One event: what it did, each access the grants do not give, recorded once. */
static void
judge(struct ab_learn *l, const struct fanotify_event_metadata *md)
{
	char path[PATH_MAX];
	unsigned int did = 0, rights;
	struct stat st;
	size_t i, n;
	int r;

	if (fstat(md->fd, &st) == -1 || ab_fd_path(md->fd, path, sizeof(path)) != 0)
		return;		/* gone, or longer than any rule could name */
	n = strlen(path);
	if (path[0] != '/')
		return;		/* not a path (pipe:, anon_inode:): no rule names it */
	/* Unlinked since the open: the kernel appended " (deleted)"; the name was the path. */
	if (st.st_nlink == 0 && n > 10 && strcmp(path + n - 10, " (deleted)") == 0)
		path[n - 10] = '\0';
	if (md->mask & FAN_OPEN_EXEC)
		did |= AB_FS_EXEC;	/* an exec's open is not a read to Landlock */
	else if (md->mask & FAN_OPEN)
		did |= S_ISDIR(st.st_mode) ? AB_FS_LIST : AB_FS_READ;
	if (md->mask & FAN_CLOSE_WRITE)
		did |= AB_FS_WRITE;
	(void)ab_maskd_group_learn_seen(l->group, md->fd,
	    md->mask | (S_ISDIR(st.st_mode) ? FAN_ONDIR : 0));
	rights = ab_fs_rights_at(l->grants, path);
	if ((did & ~rights) == 0 || !agents(l, md->pid))
		return;
	for (i = 0; i < sizeof(accesses) / sizeof(accesses[0]) && !l->stopped; i++) {
		if (!(did & accesses[i].right) || (rights & accesses[i].right))
			continue;
		if ((r = remember(l, key_of(accesses[i].right, path))) < 0)
			stop(l, "table-full");
		else if (r == 1)
			record(l, md->pid, accesses[i].name, path);
	}
}

int
ab_learn_drain(struct ab_learn *l)
{
	struct fanotify_event_metadata md;
	size_t off, len;
	ssize_t n;

	/* One buffer per call: the permission group, polled beside us, must not wait for a
	 * busy session's whole learning queue. */
	if (!l->stopped) {
		if ((n = read(l->group, l->buf, sizeof(l->buf))) == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return 0;
			n = -errno;
			stop(l, "read-error");
			return (int)n;
		}
		len = (size_t)n;
		for (off = 0; len - off >= sizeof(md); off += md.event_len) {
			memcpy(&md, l->buf + off, sizeof(md));
			if (md.vers != FANOTIFY_METADATA_VERSION || md.event_len < sizeof(md) ||
			    md.event_len > len - off) {
				stop(l, "read-error");
				return -EPROTO;
			}
			if (md.mask & FAN_Q_OVERFLOW)
				stop(l, "overflow");
			if (md.fd < 0)
				continue;
			l->st.events++;
			if (md.pid != l->self && !l->stopped)
				judge(l, &md);
			(void)close(md.fd);
		}
	}
	return 0;
}
