/*
 * seccomp, loaded last (libseccomp): default allow, then a table of denied calls, each
 * with its errno and the reason.  Errnos are the ones the kernel itself gives when the
 * feature is missing or not permitted, so programs take the fallback paths they already
 * have (glibc falls back from clone3 on ENOSYS, Go and curl from MPTCP on
 * EPROTONOSUPPORT, clients from TCP Fast Open on EOPNOTSUPP).  Every denial is logged
 * (SCMP_FLTATR_CTL_LOG -> SECCOMP_FILTER_FLAG_LOG; the kernel's
 * /proc/sys/kernel/seccomp/actions_logged must include "errno") as an AUDIT SECCOMP
 * record carrying the session's ses=.
 *
 * The table is compiled to BPF at build time (seccomp_gen.c writes one program per
 * network mode with libseccomp's seccomp_export_bpf); agentbox-shell loads the
 * precompiled program (seccomp_load.c): generating it at login cost 2+ ms of a ~10 ms
 * login, and keeps libseccomp out of the static binary.
 *
 * Architecture: the filter is native (x86_64) only.  A syscall made through another ABI
 * of the same CPU (i386 int 0x80, x32 numbers with bit 30 set) kills the process: those
 * tables number every call differently, so no errno row here would cover them, and an
 * errno for "wrong arch" would only tell the caller to try again elsewhere.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/netlink.h>

#include "shell.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP	262
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif
#ifndef AF_VSOCK
#define AF_VSOCK	40
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN	0x20000000
#endif
#ifndef TIOCLINUX
#define TIOCLINUX	0x541C
#endif

/* Whole calls denied, whatever their arguments. */
static const struct deny_row {
	const char *name;
	int	    err;
	const char *why;
} deny_calls[] = {
	/* Also in the quiet filter (below), which answers it unlogged. */
	{ "clone3", ENOSYS, "flags live in memory seccomp cannot read; glibc falls back to clone" },
	{ "setns", EPERM, "joining another namespace leaves the session's world" },
	{ "mount", EPERM, "the world is fixed at login (invariant 3)" },
	{ "umount2", EPERM, "unmounting a mask would reveal what it hides" },
	{ "pivot_root", EPERM, "the world is fixed at login" },
	{ "chroot", EPERM, "the world is fixed at login" },
	{ "fsopen", EPERM, "new mount API: the world is fixed at login" },
	{ "fsconfig", EPERM, "new mount API" },
	{ "fsmount", EPERM, "new mount API" },
	{ "fspick", EPERM, "new mount API" },
	{ "move_mount", EPERM, "new mount API: moving a mask reveals what it hides" },
	{ "open_tree", EPERM, "new mount API: detached copies of masked trees" },
	{ "mount_setattr", EPERM, "read-only protect mounts must stay read-only" },
	{ "ptrace", EPERM, "no ptrace out of (or within) the box" },
	{ "process_vm_readv", EPERM, "reads another process's memory" },
	{ "process_vm_writev", EPERM, "writes another process's memory" },
	{ "pidfd_getfd", EPERM, "steals an fd from another process (ptrace access)" },
	{ "add_key", EPERM, "kernel keyrings are shared outside the session" },
	{ "request_key", EPERM, "kernel keyrings are shared outside the session" },
	{ "keyctl", EPERM, "kernel keyrings are shared outside the session" },
	{ "bpf", EPERM, "eBPF: kernel attack surface, reads other processes' data" },
	{ "perf_event_open", EPERM, "side channels and kernel attack surface" },
	{ "userfaultfd", EPERM, "stalls kernel copies: a classic exploit primitive" },
	{ "io_uring_setup", EPERM, "io_uring operations bypass seccomp's view of syscalls" },
	{ "io_uring_enter", EPERM, "io_uring operations bypass seccomp's view of syscalls" },
	{ "io_uring_register", EPERM, "io_uring operations bypass seccomp's view of syscalls" },
	{ "open_by_handle_at", EPERM, "opens by inode handle, past every path rule" },
	{ "name_to_handle_at", EPERM, "mints handles for open_by_handle_at" },
	{ "init_module", EPERM, "kernel modules" },
	{ "finit_module", EPERM, "kernel modules" },
	{ "delete_module", EPERM, "kernel modules" },
	{ "kexec_load", EPERM, "replaces the kernel" },
	{ "kexec_file_load", EPERM, "replaces the kernel" },
	{ "reboot", EPERM, "host power state" },
	{ "swapon", EPERM, "host swap" },
	{ "swapoff", EPERM, "host swap" },
	{ "acct", EPERM, "host process accounting" },
};

/*
 * Namespace flags of unshare(2) and clone(2) (arg 0 on x86_64).  CLONE_NEWTIME only for
 * unshare: in clone's flags 0x80 is part of the exit signal.
 */
static const struct {
	unsigned long flag;
	int	      unshare_only;
} ns_flags[] = {
	{ CLONE_NEWNS, 0 }, { CLONE_NEWCGROUP, 0 }, { CLONE_NEWUTS, 0 }, { CLONE_NEWIPC, 0 },
	{ CLONE_NEWUSER, 0 }, { CLONE_NEWPID, 0 }, { CLONE_NEWNET, 0 }, { CLONE_NEWTIME, 1 },
};

/*
 * Equality on an int argument.  The kernel reads only the low 32 bits of an int, so a
 * plain 64-bit SCMP_CMP_EQ would let AF_PACKET | 1UL << 32 through; compare masked.
 */
#define INT_EQ(arg, v)	SCMP_CMP((arg), SCMP_CMP_MASKED_EQ, 0xffffffffUL, (scmp_datum_t)(v))

/* Socket families the session may create; any other gets EAFNOSUPPORT. */
static const int allowed_families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };
#define FAMILY_LIMIT	64	/* AF_MAX is 46 on 6.18; >= this is denied as a whole */

static int
rule(scmp_filter_ctx ctx, int err, const char *name, unsigned n, const struct scmp_arg_cmp *a)
{
	int nr = seccomp_syscall_resolve_name(name);

	/* Fail closed: a call libseccomp cannot name is one we cannot deny. */
	if (nr == __NR_SCMP_ERROR)
		return -EINVAL;
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO((unsigned)err), nr, n, a);
}

static int
add_calls(scmp_filter_ctx ctx)
{
	size_t i;
	int r;

	for (i = 0; i < sizeof(deny_calls) / sizeof(deny_calls[0]); i++)
		if ((r = rule(ctx, deny_calls[i].err, deny_calls[i].name, 0, NULL)) != 0)
			return r;
	return 0;
}

/* unshare/clone with any namespace flag: no new namespace, above all no user namespace. */
static int
add_namespaces(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp a;
	size_t i;
	int r;

	for (i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
		a = SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i].flag, ns_flags[i].flag);
		if ((r = rule(ctx, EPERM, "unshare", 1, &a)) != 0)
			return r;
		if (!ns_flags[i].unshare_only && (r = rule(ctx, EPERM, "clone", 1, &a)) != 0)
			return r;
	}
	return 0;
}

/*
 * Terminal injection: TIOCSTI pushes input into the caller's terminal (su without --pty
 * shares it), TIOCLINUX can paste the console selection.  The kernel compares the ioctl
 * number as an unsigned int, so compare only the low 32 bits (CVE-2017-5226 bubblewrap,
 * and the high-bits bypass of naive filters).
 */
static int
add_ioctls(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp a;
	int r;

	a = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCSTI);
	if ((r = rule(ctx, EPERM, "ioctl", 1, &a)) != 0)
		return r;
	a = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCLINUX);
	return rule(ctx, EPERM, "ioctl", 1, &a);
}

static int
family_allowed(int af)
{
	size_t i;

	for (i = 0; i < sizeof(allowed_families) / sizeof(allowed_families[0]); i++)
		if (allowed_families[i] == af)
			return 1;
	return 0;
}

/* Socket families and protocols that would go around the network policy. */
static int
add_sockets_common(scmp_filter_ctx ctx)
{
	static const int inet[] = { AF_INET, AF_INET6 };
	struct scmp_arg_cmp a[3];
	size_t i;
	int af, r;

	/* Packet sockets see and forge every frame of the namespace. */
	a[0] = INT_EQ(0, AF_PACKET);
	if ((r = rule(ctx, EPERM, "socket", 1, a)) != 0)
		return r;
	/* vsock talks to the hypervisor, outside every namespace. */
	a[0] = INT_EQ(0, AF_VSOCK);
	if ((r = rule(ctx, EAFNOSUPPORT, "socket", 1, a)) != 0)
		return r;
	/* Everything else not on the allow-list: kernel attack surface, no agent needs it. */
	for (af = 0; af < FAMILY_LIMIT; af++) {
		if (family_allowed(af) || af == AF_PACKET || af == AF_VSOCK)
			continue;
		a[0] = INT_EQ(0, (unsigned)af);
		if ((r = rule(ctx, EAFNOSUPPORT, "socket", 1, a)) != 0)
			return r;
	}
	a[0] = SCMP_A0(SCMP_CMP_GE, FAMILY_LIMIT);
	if ((r = rule(ctx, EAFNOSUPPORT, "socket", 1, a)) != 0)
		return r;
	for (i = 0; i < 2; i++) {
		a[0] = INT_EQ(0, (unsigned)inet[i]);
		/* Raw IP and the obsolete SOCK_PACKET: forged packets, any protocol. */
		a[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW);
		if ((r = rule(ctx, EPERM, "socket", 2, a)) != 0)
			return r;
		a[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_PACKET);
		if ((r = rule(ctx, EPERM, "socket", 2, a)) != 0)
			return r;
		/* MPTCP: Landlock's TCP rules do not apply to it. */
		a[1] = INT_EQ(2, IPPROTO_MPTCP);
		if ((r = rule(ctx, EPROTONOSUPPORT, "socket", 2, a)) != 0)
			return r;
	}
	/* Netlink: only NETLINK_ROUTE, which `ip addr` reads (changes need CAP_NET_ADMIN). */
	a[0] = INT_EQ(0, AF_NETLINK);
	a[1] = SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE);
	if ((r = rule(ctx, EPERM, "socket", 2, a)) != 0)
		return r;
	/* socketpair makes connected pairs; only AF_UNIX ones are needed. */
	a[0] = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
	return rule(ctx, EAFNOSUPPORT, "socketpair", 1, a);
}

/*
 * tcp:PORTS shares the host network and Landlock only sees TCP bind/connect: UDP, ICMP
 * datagrams, SCTP and anything not SOCK_STREAM on IP would pass unchecked, so they are
 * denied (EACCES, as Landlock would).  DNS then goes over TCP (env.c sets RES_OPTIONS).
 */
static int
add_sockets_tcp_only(scmp_filter_ctx ctx)
{
	static const int inet[] = { AF_INET, AF_INET6 };
	struct scmp_arg_cmp a[2];
	unsigned type;
	size_t i;
	int r;

	for (i = 0; i < 2; i++) {
		a[0] = INT_EQ(0, (unsigned)inet[i]);
		for (type = 0; type <= 0xf; type++) {
			if (type == SOCK_STREAM || type == SOCK_RAW || type == SOCK_PACKET)
				continue;	/* allowed, or denied already */
			a[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, type);
			if ((r = rule(ctx, EACCES, "socket", 2, a)) != 0)
				return r;
		}
		a[1] = INT_EQ(2, IPPROTO_SCTP);
		if ((r = rule(ctx, EPROTONOSUPPORT, "socket", 2, a)) != 0)
			return r;
	}
	return 0;
}

/*
 * TCP Fast Open connects from sendto/sendmsg(MSG_FASTOPEN) without calling connect(),
 * so the Landlock connect hook never sees it (tcp_sendmsg_fastopen).  EOPNOTSUPP is
 * what the kernel says when client TFO is off; clients then connect() normally.
 */
static int
add_fastopen(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp a;
	int r;

	a = SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN);
	if ((r = rule(ctx, EOPNOTSUPP, "sendto", 1, &a)) != 0)
		return r;
	a = SCMP_A2(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN);
	if ((r = rule(ctx, EOPNOTSUPP, "sendmsg", 1, &a)) != 0)
		return r;
	a = SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN);
	return rule(ctx, EOPNOTSUPP, "sendmmsg", 1, &a);
}

static int
build(enum ab_network net, scmp_filter_ctx *out)
{
	scmp_filter_ctx ctx;
	int r;

	/* Non-native ABIs kill: see the top of this file. */
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		return -ENOMEM;
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) != 0 ||
	    (r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_LOG, 1)) != 0 ||
	    /* Binary search over syscall numbers: read/write do not walk the whole table. */
	    (r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) != 0 ||
	    (r = add_calls(ctx)) != 0 || (r = add_namespaces(ctx)) != 0 ||
	    (r = add_ioctls(ctx)) != 0 || (r = add_sockets_common(ctx)) != 0)
		goto fail;
	if (net == AB_NET_TCP && (r = add_sockets_tcp_only(ctx)) != 0)
		goto fail;
	/* Where Landlock guards TCP connect, close its Fast Open side door too. */
	if ((net == AB_NET_TCP || net == AB_NET_NONE) && (r = add_fastopen(ctx)) != 0)
		goto fail;
	*out = ctx;
	return 0;
fail:
	seccomp_release(ctx);
	return r < 0 ? r : -EINVAL;
}

/*
 * The quiet filter: clone3 -> ENOSYS, not logged.  glibc's pthread_create and posix_spawn
 * try clone3 first and fall back to clone on ENOSYS, so with the logged table alone every
 * threaded program (node at each start, python thread pools, git's preload) left SECCOMP
 * records that say nothing: clone3's flags are behind a pointer, so the record cannot
 * tell a thread from a namespace attempt, and the clone that follows is judged (and a
 * namespace flag in it logged) by the table.  Loaded after the table: on equal actions
 * the kernel keeps the newest filter's verdict and logs by that filter's LOG flag
 * (seccomp_run_filters, seccomp_log), so this one decides clone3 and decides it silently.
 * The table keeps its clone3 row: without this filter clone3 is still ENOSYS, logged.
 * Every other call and every other architecture is allowed here, left to the table.
 */
static int
build_quiet(scmp_filter_ctx *out)
{
	scmp_filter_ctx ctx;
	int r;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		return -ENOMEM;
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW)) != 0 ||
	    (r = rule(ctx, ENOSYS, "clone3", 0, NULL)) != 0) {
		seccomp_release(ctx);
		return r < 0 ? r : -EINVAL;
	}
	*out = ctx;
	return 0;
}

int
ab_seccomp_export_quiet(int bpf, int fd)
{
	scmp_filter_ctx ctx;
	int r;

	if ((r = build_quiet(&ctx)) != 0)
		return r;
	r = bpf ? seccomp_export_bpf(ctx, fd) : seccomp_export_pfc(ctx, fd);
	seccomp_release(ctx);
	return r;
}

int
ab_seccomp_export(enum ab_network net, int bpf, int fd)
{
	scmp_filter_ctx ctx;
	int r;

	if ((r = build(net, &ctx)) != 0)
		return r;
	r = bpf ? seccomp_export_bpf(ctx, fd) : seccomp_export_pfc(ctx, fd);
	seccomp_release(ctx);
	return r;
}
