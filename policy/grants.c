/*
 * What a box may touch on the filesystem: the one list both enforcers ask.
 * agentbox-shell turns each grant into a Landlock rule (shell/landlock.c);
 * agentbox-maskd, in a learning session, asks the same list whether Landlock would
 * have refused an open it saw (maskd/learn.c).  Two copies would drift, and a learning
 * session would then suggest lines the enforcing one does not need, or miss some.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "policy.h"

#define FS_READ		(AB_FS_READ | AB_FS_LIST | AB_FS_EXEC)
#define FS_WRITE	(FS_READ | AB_FS_WRITE | AB_FS_TREE)
#define FS_OWN		(FS_WRITE | AB_FS_SOCK)	/* a tree of this box alone */
#define FS_DEV_RW	(AB_FS_READ | AB_FS_WRITE)
#define FS_TTY		(FS_DEV_RW | AB_FS_IOCTL)

/*
 * Devices of the world's minimal /dev and what the session may do with each.  The memory
 * devices get their ioctls too: stdio asks isatty() (TCGETS) of every stream, so without
 * it each `cmd >/dev/null` in the session was an audited fs.ioctl_dev denial, noise that
 * buries real ones in the review.  null, zero and full have no ioctl at all (ENOTTY);
 * random's only ioctl without CAP_SYS_ADMIN reads the entropy count.
 */
static const struct {
	const char	*path;
	unsigned int	 rights;
} fixed[] = {
	{ "/dev/null", FS_DEV_RW | AB_FS_IOCTL },
	{ "/dev/zero", FS_DEV_RW | AB_FS_IOCTL },
	{ "/dev/full", FS_DEV_RW | AB_FS_IOCTL },
	{ "/dev/random", AB_FS_READ | AB_FS_IOCTL },
	{ "/dev/urandom", AB_FS_READ | AB_FS_IOCTL },
	{ "/dev/tty", FS_TTY },		/* the controlling terminal, whatever it is */
	{ "/dev/ptmx", FS_TTY },	/* new ptys for tmux, script, expect ... */
	/* The session's own devpts instance (PAM mounts it newinstance): its ptys only. */
	{ "/dev/pts", FS_TTY | AB_FS_LIST },
	{ "/dev", AB_FS_LIST },		/* ls /dev; /dev/fd links */
	/* The session plan: a login nested inside the box (tmux pane running the passwd
	 * shell, agentbox-shell -c) verifies its world from it like the first one did. */
	{ AB_RUN_DIR, AB_FS_READ | AB_FS_LIST },
	/* ps, top, /proc/self/fd: procfs of the session's own pid namespace. */
	{ "/proc", AB_FS_READ | AB_FS_LIST },
	/* The session-private trees PAM mounted fresh (besides /run/user/UID): the only
	 * places a socket file may be made (AB_FS_SOCK says why). */
	{ "/tmp", FS_OWN },
	{ "/var/tmp", FS_OWN },
	{ "/dev/shm", FS_OWN },
};

static int
each_list(const struct ab_strv *v, unsigned int rights, ab_fs_grant_fn fn, void *ctx)
{
	size_t i;
	int r;

	for (i = 0; i < v->n; i++)
		if ((r = fn(ctx, v->v[i], rights)) != 0)
			return r;
	return 0;
}

int
ab_fs_grants(const struct ab_fs_sets *s, ab_fs_grant_fn fn, void *ctx)
{
	char runtime[64];
	size_t i;
	int r;

	if ((r = each_list(s->read, FS_READ, fn, ctx)) != 0 ||
	    (r = each_list(s->write, FS_WRITE, fn, ctx)) != 0 ||
	    (r = each_list(s->project, FS_WRITE, fn, ctx)) != 0 ||
	    (s->home != NULL && (r = fn(ctx, s->home, FS_WRITE)) != 0))
		return r;
	snprintf(runtime, sizeof(runtime), "/run/user/%u", (unsigned int)s->uid);
	if ((r = fn(ctx, runtime, FS_OWN)) != 0)
		return r;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if ((r = fn(ctx, fixed[i].path, fixed[i].rights)) != 0)
			return r;
	return 0;
}

/* Is PATH the grant's path or beneath it (whole components: /srv/tool2 is not in /srv/tool)? */
static int
beneath(const char *grant, const char *path)
{
	size_t n = strlen(grant);

	while (n > 1 && grant[n - 1] == '/')
		n--;
	if (n == 1 && grant[0] == '/')
		return path[0] == '/';
	return strncmp(grant, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

struct covers {
	const char	*path;
	unsigned int	 rights;	/* the union of the grants above PATH */
};

static int
add_cover(void *ctx, const char *grant, unsigned int rights)
{
	struct covers *c = ctx;

	if (beneath(grant, c->path))
		c->rights |= rights;
	return 0;
}

unsigned int
ab_fs_rights_at(const struct ab_fs_sets *s, const char *path)
{
	struct covers c = { path, 0 };

	/* Landlock's rights are the union of every rule on the way down: so is this. */
	(void)ab_fs_grants(s, add_cover, &c);
	return c.rights;
}
