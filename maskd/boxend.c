/*
 * The end of a persist = yes box: forget it in the registry and write its
 * agentbox-box-end record (docs/audit-records.md).  Shared by the three that end or
 * see a box end: pam_agentbox (a login that finds the box's policy changed, or the box
 * gone), agentbox stop and unenroll, and agentbox-maskd, which holds a pidfd of every
 * session's pid 1 and so sees a box end by itself (its linger ran out, it was killed)
 * when it happens, not at the next login.
 *
 * The registry is pam_module/box.c's: one root-only file a user, AB_BOX_DIR/UID, one
 * line "BOXID INIT_PID START_TICKS DIGEST CREATED USER", flocked by whoever decides about
 * the box.  Whoever holds the lock while a box ends writes its record: the login that
 * killed it for a changed policy, agentbox stop.  agentbox-maskd never waits for the
 * lock (its loop serves every session): when it is held, the holder sees the box gone
 * and writes the record itself.  The entry is taken (the file truncated) by the one
 * that writes the record, so a box ends on the record once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libaudit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "maskd.h"
#include "policy.h"

int
ab_box_registry_lock(uid_t uid, int wait)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), AB_BOX_DIR "/%u", (unsigned)uid);
	if ((fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -errno;
	if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) == -1) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

int
ab_box_registry_read(int fd, struct ab_box_entry *e)
{
	char buf[256];
	ssize_t n;
	int pid;

	if ((n = pread(fd, buf, sizeof(buf) - 1, 0)) < 0)
		return -errno;
	buf[n] = '\0';
	if (n == 0)
		return -ENOENT;
	_Static_assert(sizeof(e->id) == 16 && sizeof(e->digest) == 65 && sizeof(e->user) == 64,
	    "the widths below");
	if (sscanf(buf, "%15[0-9] %d %llu %64[0-9a-f] %lld %63s\n", e->id, &pid, &e->ticks,
	    e->digest, &e->created, e->user) != 6 || pid <= 1 ||
	    strlen(e->digest) != 2 * AB_DIGEST_LEN)
		return -EINVAL;
	e->pid = (pid_t)pid;
	return 0;
}

int
ab_box_registry_take(int fd, const char *id, struct ab_box_entry *e)
{
	int r = ab_box_registry_read(fd, e);

	if (r == -ENOENT || r == -EINVAL || (r == 0 && strcmp(e->id, id) != 0))
		return 0;
	if (r != 0)
		return r;
	if (ftruncate(fd, 0) == -1)
		return -errno;
	return 1;
}

int
ab_box_end_record(int fd, const char *box_id, const char *user, uid_t uid, pid_t init_pid,
    const char *reason)
{
	char *u = audit_encode_nv_string("user", user, 0);
	int r = -ENOMEM;

	if (u != NULL)
		r = ab_maskd_audit_send(fd, 1, "op=agentbox-box-end box=%s %s uid=%u init_pid=%d "
		    "reason=%s", box_id, u, (unsigned)uid, (int)init_pid, reason);
	free(u);
	return r;
}
