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

/* A terminal: read, write and its ioctls (TIOCSTI/TIOCLINUX are seccomp's job). */
#define FS_TTY		(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
			 LANDLOCK_ACCESS_FS_IOCTL_DEV)
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

/* policy/grants.c's abstract rights, as Landlock's access bits. */
static const struct {
	unsigned int	 right;
	uint64_t	 access;
} ll_rights[] = {
	{ AB_FS_READ, LANDLOCK_ACCESS_FS_READ_FILE },
	{ AB_FS_LIST, LANDLOCK_ACCESS_FS_READ_DIR },
	{ AB_FS_EXEC, LANDLOCK_ACCESS_FS_EXECUTE },
	{ AB_FS_WRITE, LANDLOCK_ACCESS_FS_WRITE_FILE },
	{ AB_FS_IOCTL, LANDLOCK_ACCESS_FS_IOCTL_DEV },
	/* Everything a build tree needs on top; not MAKE_CHAR/MAKE_BLOCK (device nodes),
	 * and MAKE_SOCK only in the box's own trees (AB_FS_SOCK). */
	{ AB_FS_TREE, LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
	    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
	    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM |
	    LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE },
	{ AB_FS_SOCK, LANDLOCK_ACCESS_FS_MAKE_SOCK },
};

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

	if ((fd = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC)) == -1) {
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

/* ab_fs_grant_fn: one grant of policy/grants.c as a Landlock rule. */
static int
add_grant(void *ctx, const char *path, unsigned int rights)
{
	uint64_t access = 0;
	size_t i;

	for (i = 0; i < sizeof(ll_rights) / sizeof(ll_rights[0]); i++)
		if (rights & ll_rights[i].right)
			access |= ll_rights[i].access;
	return add_path(ctx, path, access);
}

static int
add_fs_rules(struct ll_ctx *c, const struct ab_plan *plan)
{
	const struct ab_policy *p = plan->policy;
	const struct ab_fs_sets sets = { &p->read, &p->write, &p->project, plan->home,
	    plan->uid };
	int r;

	if ((r = ab_fs_grants(&sets, add_grant, c)) != 0)
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
	/* learn = yes: Landlock has no log-only mode, so it leaves files alone and
	 * agentbox-maskd records what these rules would have refused (maskd/learn.c);
	 * scopes and TCP ports hold as in enforcing mode. */
	if (plan->policy->learn == AB_YES)
		attr.handled_access_fs = 0;
	if (attr.handled_access_fs == 0 && attr.handled_access_net == 0 && attr.scoped == 0)
		return 0;	/* nothing to handle: an empty ruleset is ENOMSG */
	res->handled_fs = attr.handled_access_fs;
	res->handled_net = attr.handled_access_net;
	res->scoped = attr.scoped;
	/* The kernel makes ruleset fds close-on-exec itself. */
	c.ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size(abi), 0);
	if (c.ruleset == -1)
		return -errno;
	c.handled_fs = attr.handled_access_fs;
	c.res = res;
	r = c.handled_fs != 0 ? add_fs_rules(&c, plan) : 0;
	if (r == 0 && plan->policy->network == AB_NET_TCP && attr.handled_access_net != 0)
		r = add_net_rules(&c, plan);
	if (r == 0 && syscall(SYS_landlock_restrict_self, c.ruleset, res->restrict_flags) == -1)
		r = -errno;
	close(c.ruleset);
	return r;
}
