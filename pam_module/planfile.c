/*
 * The session plan: the compiled policy plus what building the world learnt, written
 * where only this session sees it (/run/agentbox, its own tmpfs, sealed read-only
 * right after), root-owned and mode 0444, for agentbox-shell to read back and check
 * against the namespaces it runs in.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "abutil.h"
#include "module.h"

/* Inode of one of our namespaces, as the shell will see it in /proc/self/ns. */
static int
ns_ino(struct ab_sess *s, const char *name, uint64_t *out)
{
	char path[64];
	struct stat st;

	strcpy(path, "self/ns/");
	strcat(path, name);
	if (fstatat(s->procfd, path, &st, 0) == -1)
		return ab_sess_fail(s, -errno, "stat /proc/%s: %s", path, strerror(errno));
	*out = st.st_ino;
	return 0;
}

static const char *
item(struct ab_sess *s, int type)
{
	const void *v = NULL;

	if (pam_get_item(s->pamh, type, &v) != PAM_SUCCESS || v == NULL)
		return "";
	return v;
}

int
ab_planfile_write(struct ab_sess *s)
{
	const char *base = strrchr(AB_PLAN_PATH, '/') + 1;
	struct ab_plan plan;
	size_t len;
	char *buf;
	int fd, r;

	memset(&plan, 0, sizeof(plan));
	plan.policy = (struct ab_policy *)s->pol;	/* serialised only, never changed */
	plan.uid = s->uid;
	plan.gid = s->gid;
	plan.home = (char *)s->home;
	plan.service = (char *)item(s, PAM_SERVICE);
	plan.tty = (char *)item(s, PAM_TTY);
	plan.rhost = (char *)item(s, PAM_RHOST);
	plan.audit_session = s->ses;
	/* pid_for_children: the shell is a child of the caller, in the new pid namespace. */
	if ((r = ns_ino(s, "mnt", &plan.ns_mnt)) != 0 ||
	    (r = ns_ino(s, "pid_for_children", &plan.ns_pid)) != 0 ||
	    (r = ns_ino(s, "net", &plan.ns_net)) != 0 ||
	    (r = ns_ino(s, "ipc", &plan.ns_ipc)) != 0 ||
	    (r = ns_ino(s, "uts", &plan.ns_uts)) != 0)
		return r;
	plan.started = (uint64_t)time(NULL);
	plan.masks = s->masks;
	plan.protects = s->protects;
	if ((r = ab_plan_serialize(&plan, &buf, &len)) != 0)
		return ab_sess_fail(s, r, "serialise the session plan: %s", strerror(-r));
	fd = openat(s->runfd, base, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (fd == -1)
		r = ab_sess_fail(s, -errno, "create %s: %s", AB_PLAN_PATH, strerror(errno));
	else if ((r = ab_io_write_all(fd, buf, len)) != 0 || (r = fchmod(fd, 0444) == -1 ? -errno : 0))
		ab_sess_fail(s, r, "write %s: %s", AB_PLAN_PATH, strerror(-r));
	if (fd != -1 && close(fd) == -1 && r == 0)
		r = ab_sess_fail(s, -errno, "close %s: %s", AB_PLAN_PATH, strerror(errno));
	free(buf);
	return r;
}
