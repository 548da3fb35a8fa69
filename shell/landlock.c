/*
 * Landlock from the session plan.  Rules bind to inodes of this mount namespace (the
 * world pam_agentbox built), so /proc/self/root/..., symlinks and ".." all land on the
 * same verdict.  Best effort up the ABI ladder (kernel samples/landlock/sandboxer.c),
 * refusing below the policy's landlock_min_abi.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock_compat.h"
#include "shell.h"

/* Read, list, execute. */
#define FS_READ		(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
			 LANDLOCK_ACCESS_FS_READ_DIR)
/* Everything a build tree needs on top; not MAKE_CHAR/MAKE_BLOCK (device nodes). */
#define FS_WRITE	(FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | \
			 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
			 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | \
			 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
			 LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | \
			 LANDLOCK_ACCESS_FS_TRUNCATE)
/* A device read and written, never listed or executed. */
#define FS_DEV_RW	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE)
/* A terminal: read, write and its ioctls (TIOCSTI/TIOCLINUX are seccomp's job). */
#define FS_TTY		(FS_DEV_RW | LANDLOCK_ACCESS_FS_IOCTL_DEV)
/* The rights that apply to a non-directory (landlock.h ACCESS_FILE). */
#define FS_FILE_RIGHTS	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
			 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
			 LANDLOCK_ACCESS_FS_IOCTL_DEV)

#define FS_ABI1		((LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1)	/* bits 0..12 */

/* What each ABI added; rows newer than the running kernel are stripped (STYLE.md §5). */
static const struct ll_row {
	int	 abi;
	uint64_t fs, net, scoped;
	uint32_t restrict_flags;
} ll_added[] = {
	{ 1, FS_ABI1, 0, 0, 0 },
	{ 2, LANDLOCK_ACCESS_FS_REFER, 0, 0, 0 },
	{ 3, LANDLOCK_ACCESS_FS_TRUNCATE, 0, 0, 0 },
	{ 4, 0, LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP, 0, 0 },
	{ 5, LANDLOCK_ACCESS_FS_IOCTL_DEV, 0, 0, 0 },
	{ 6, 0, 0, LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL, 0 },
	/* Without it the kernel logs no denial of anything the shell execs. */
	{ 7, 0, 0, 0, LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON },
};
#define LL_NEWEST	7

/*
 * Devices of the world's minimal /dev and what the session may do with each.  The memory
 * devices get their ioctls too: stdio asks isatty() (TCGETS) of every stream, so without
 * it each `cmd >/dev/null` in the session was an audited fs.ioctl_dev denial, noise that
 * buries real ones in the review.  null, zero and full have no ioctl at all (ENOTTY);
 * random's only ioctl without CAP_SYS_ADMIN reads the entropy count.
 */
static const struct {
	const char *path;
	uint64_t    access;
} ll_devices[] = {
	{ "/dev/null", FS_DEV_RW | LANDLOCK_ACCESS_FS_IOCTL_DEV },
	{ "/dev/zero", FS_DEV_RW | LANDLOCK_ACCESS_FS_IOCTL_DEV },
	{ "/dev/full", FS_DEV_RW | LANDLOCK_ACCESS_FS_IOCTL_DEV },
	{ "/dev/random", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_IOCTL_DEV },
	{ "/dev/urandom", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_IOCTL_DEV },
	{ "/dev/tty", FS_TTY },		/* the controlling terminal, whatever it is */
	{ "/dev/ptmx", FS_TTY },	/* new ptys for tmux, script, expect ... */
	/* The session's own devpts instance (PAM mounts it newinstance): its ptys only. */
	{ "/dev/pts", FS_TTY | LANDLOCK_ACCESS_FS_READ_DIR },
	{ "/dev", LANDLOCK_ACCESS_FS_READ_DIR },	/* ls /dev; /dev/fd links */
	/* The session plan: a login nested inside the box (tmux pane running the passwd
	 * shell, agentbox-shell -c) verifies its world from it like the first one did. */
	{ AB_RUN_DIR, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR },
	/* ps, top, /proc/self/fd: procfs of the session's own pid namespace. */
	{ "/proc", FS_READ & ~LANDLOCK_ACCESS_FS_EXECUTE },
};

/* The session-private trees PAM mounted fresh (besides /run/user/UID). */
static const char *const ll_private[] = { "/tmp", "/var/tmp", "/dev/shm" };

struct ll_ctx {
	int	 ruleset;
	uint64_t handled_fs;
	struct ab_landlock_result *res;
};

int
ab_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? -errno : (int)abi;
}

/* Add a path-beneath rule on the open FD, narrowing ACCESS to what FD's type and the
 * ruleset can carry. */
static int
add_fd(struct ll_ctx *c, int fd, uint64_t access)
{
	struct ab_landlock_path_beneath_attr pb = { 0 };
	struct stat st;

	if (fstat(fd, &st) == -1)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		access &= FS_FILE_RIGHTS;
	pb.allowed_access = access & c->handled_fs;
	pb.parent_fd = fd;
	if (pb.allowed_access == 0)
		return 0;
	if (syscall(SYS_landlock_add_rule, c->ruleset, AB_LANDLOCK_RULE_PATH_BENEATH,
	    &pb, 0) == -1)
		return -errno;
	c->res->rules++;
	return 0;
}

/*
 * Rule for PATH as this world resolves it.  A path missing here (a policy written for
 * many hosts, a device the world left out) is skipped: no rule means no access.
 */
static int
add_path(struct ll_ctx *c, const char *path, uint64_t access)
{
	int fd, r;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1) {
		if (errno == ENOENT || errno == ENOTDIR) {
			c->res->skipped++;
			return 0;
		}
		return -errno;
	}
	r = add_fd(c, fd, access);
	close(fd);
	return r;
}

static int
add_list(struct ll_ctx *c, const struct ab_strv *v, uint64_t access)
{
	size_t i;
	int r;

	for (i = 0; i < v->n; i++)
		if ((r = add_path(c, v->v[i], access)) != 0)
			return r;
	return 0;
}

/*
 * The session's terminal: with su (no --pty) fds 0-2 are the caller's pty on the host
 * devpts, which the world does not show by path; a rule on the fd itself lets the shell
 * reopen it through /dev/stdout or /proc/self/fd without opening any other terminal.
 */
static int
add_terminal(struct ll_ctx *c)
{
	int fd, r;

	for (fd = 0; fd <= 2; fd++)
		if (isatty(fd) && (r = add_fd(c, fd, FS_TTY)) != 0)
			return r;
	return 0;
}

static int
add_fs_rules(struct ll_ctx *c, const struct ab_plan *plan)
{
	const struct ab_policy *p = plan->policy;
	char runtime[64];
	size_t i;
	int r;

	if ((r = add_list(c, &p->read, FS_READ)) != 0 ||
	    (r = add_list(c, &p->write, FS_WRITE)) != 0 ||
	    (r = add_list(c, &p->project, FS_WRITE)) != 0 ||
	    (r = add_path(c, plan->home, FS_WRITE)) != 0)
		return r;
	for (i = 0; i < sizeof(ll_private) / sizeof(ll_private[0]); i++)
		if ((r = add_path(c, ll_private[i], FS_WRITE)) != 0)
			return r;
	snprintf(runtime, sizeof(runtime), "/run/user/%u", (unsigned)plan->uid);
	if ((r = add_path(c, runtime, FS_WRITE)) != 0)
		return r;
	for (i = 0; i < sizeof(ll_devices) / sizeof(ll_devices[0]); i++)
		if ((r = add_path(c, ll_devices[i].path, ll_devices[i].access)) != 0)
			return r;
	return add_terminal(c);
}

/* tcp:PORTS: bind and connect on exactly those ports. */
static int
add_net_rules(struct ll_ctx *c, const struct ab_plan *plan)
{
	const struct ab_policy *p = plan->policy;
	struct ab_landlock_net_port_attr np;
	size_t i;

	for (i = 0; i < p->nports; i++) {
		np.allowed_access = LANDLOCK_ACCESS_NET_BIND_TCP |
		    LANDLOCK_ACCESS_NET_CONNECT_TCP;
		np.port = p->ports[i];
		if (syscall(SYS_landlock_add_rule, c->ruleset, AB_LANDLOCK_RULE_NET_PORT,
		    &np, 0) == -1)
			return -errno;
		c->res->rules++;
	}
	return 0;
}

/*
 * What to handle at ABI: every filesystem right the kernel knows; TCP for none (no
 * rules: every attempt an audited denial, even where the empty namespace would stop
 * it anyway) and tcp:PORTS; not for loopback and proxy (the session's own namespace,
 * only lo, is the boundary: its local servers and proxy's listeners stay reachable)
 * nor host.
 */
static void
ladder(int abi, enum ab_network net, struct ab_landlock_ruleset_attr *attr,
    uint32_t *flags)
{
	size_t i;

	attr->handled_access_fs = attr->handled_access_net = attr->scoped = 0;
	*flags = 0;
	for (i = 0; i < sizeof(ll_added) / sizeof(ll_added[0]); i++) {
		if (ll_added[i].abi > abi)
			break;
		attr->handled_access_fs |= ll_added[i].fs;
		attr->handled_access_net |= ll_added[i].net;
		attr->scoped |= ll_added[i].scoped;
		*flags |= ll_added[i].restrict_flags;
	}
	if (net != AB_NET_NONE && net != AB_NET_TCP)
		attr->handled_access_net = 0;
}

/* The size of the attribute the kernel at ABI understands (it rejects unknown tails). */
static size_t
attr_size(int abi)
{
	if (abi >= 6)
		return sizeof(struct ab_landlock_ruleset_attr);
	if (abi >= 4)
		return offsetof(struct ab_landlock_ruleset_attr, scoped);
	return offsetof(struct ab_landlock_ruleset_attr, handled_access_net);
}

int
ab_landlock_apply(const struct ab_plan *plan, struct ab_landlock_result *res)
{
	struct ab_landlock_result local = { 0 };
	struct ab_landlock_ruleset_attr attr;
	struct ll_ctx c;
	int abi, r;

	if (res == NULL)
		res = &local;
	*res = (struct ab_landlock_result){ 0 };
	if ((abi = ab_landlock_abi()) < 0)
		return abi == -ENOSYS || abi == -EOPNOTSUPP ? -EOPNOTSUPP : abi;
	res->abi = abi;
	if (abi < plan->policy->landlock_min_abi || abi < 1)
		return -EOPNOTSUPP;
	/* tcp:PORTS shares the host network: without ABI 4 nothing would enforce the list. */
	if (plan->policy->network == AB_NET_TCP && abi < 4)
		return -EOPNOTSUPP;
	/* A kernel newer than LL_NEWEST gets what we know; the caller may say so. */
	ladder(abi > LL_NEWEST ? LL_NEWEST : abi, plan->policy->network, &attr,
	    &res->restrict_flags);
	res->handled_fs = attr.handled_access_fs;
	res->handled_net = attr.handled_access_net;
	res->scoped = attr.scoped;
	/* The kernel makes ruleset fds close-on-exec itself. */
	c.ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size(abi), 0);
	if (c.ruleset == -1)
		return -errno;
	c.handled_fs = attr.handled_access_fs;
	c.res = res;
	r = add_fs_rules(&c, plan);
	if (r == 0 && plan->policy->network == AB_NET_TCP && attr.handled_access_net != 0)
		r = add_net_rules(&c, plan);
	if (r == 0 && syscall(SYS_landlock_restrict_self, c.ruleset, res->restrict_flags) == -1)
		r = -errno;
	close(c.ruleset);
	return r;
}
