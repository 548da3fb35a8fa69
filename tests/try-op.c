/*
 * try-op: perform one named operation and exit with its errno (0 on success), so shell
 * tests can assert exact outcomes inside a confined session (bubblewrap's
 * tests/try-syscall.c).  A denial that kills (seccomp's bad-arch action) shows up as
 * death by SIGSYS, i.e. exit status 159 from the shell.
 *
 *   try-op list                 print the operations
 *   try-op OP [ARGS...]         run one; prints "OP: OK" or "OP: ENAME (message)"
 *                               (exit 254: usage error, never an errno)
 *
 * Static, no NSS: it runs inside the box, where little of the host is visible.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif

/* Each op returns 0 or an errno value. */
#define SYS(expr)	((expr) == -1 ? errno : 0)

static int
op_open(char **a)
{
	int flags = O_RDONLY, fd;

	if (a[1] != NULL && strcmp(a[1], "w") == 0)
		flags = O_WRONLY;
	else if (a[1] != NULL && strcmp(a[1], "rw") == 0)
		flags = O_RDWR;
	else if (a[1] != NULL && strcmp(a[1], "create") == 0)
		flags = O_WRONLY | O_CREAT | O_EXCL;
	else if (a[1] != NULL && strcmp(a[1], "dir") == 0)
		flags = O_RDONLY | O_DIRECTORY;
	if ((fd = open(a[0], flags | O_CLOEXEC | O_NONBLOCK, 0600)) == -1)
		return errno;
	close(fd);
	return 0;
}

static int
op_read(char **a)
{
	char c;
	int fd, r = 0;

	if ((fd = open(a[0], O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return errno;
	if (read(fd, &c, 1) == -1)
		r = errno;
	close(fd);
	return r;
}

static int
op_write(char **a)
{
	int fd, r = 0;

	if ((fd = open(a[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) == -1)
		return errno;
	if (write(fd, "x\n", 2) == -1)
		r = errno;
	close(fd);
	return r;
}

static int op_mkdir(char **a) { return SYS(mkdir(a[0], 0700)); }
static int op_unlink(char **a) { return SYS(unlink(a[0])); }
static int op_rename(char **a) { return SYS(rename(a[0], a[1])); }
static int op_link(char **a) { return SYS(link(a[0], a[1])); }
static int op_symlink(char **a) { return SYS(symlink(a[0], a[1])); }
static int op_truncate(char **a) { return SYS(truncate(a[0], 0)); }

static int
op_exec(char **a)
{
	pid_t pid;
	int st;

	if ((pid = fork()) == -1)
		return errno;
	if (pid == 0) {
		execv(a[0], a);
		_exit(errno);
	}
	if (waitpid(pid, &st, 0) == -1)
		return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int
inet_addr_of(const char *host, const char *port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)atoi(port));
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)atoi(port));
		*len = sizeof(*in6);
		return 0;
	}
	return EINVAL;
}

static int
connect_type(char **a, int type)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, r;

	if ((r = inet_addr_of(a[0], a[1], &ss, &len)) != 0)
		return r;
	if ((fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0)) == -1)
		return errno;
	r = SYS(connect(fd, (struct sockaddr *)&ss, len));
	close(fd);
	return r;
}

static int op_connect(char **a) { return connect_type(a, SOCK_STREAM); }
static int op_udp(char **a) { return connect_type(a, SOCK_DGRAM); }

static int
op_bind(char **a)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, r;

	if ((r = inet_addr_of(a[0], a[1], &ss, &len)) != 0)
		return r;
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return errno;
	r = SYS(bind(fd, (struct sockaddr *)&ss, len));
	close(fd);
	return r;
}

/* TCP Fast Open: an implicit connect from sendto, which Landlock's hook never sees. */
static int
op_fastopen(char **a)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, r;

	if ((r = inet_addr_of(a[0], a[1], &ss, &len)) != 0)
		return r;
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return errno;
	r = SYS(sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&ss, len));
	close(fd);
	return r;
}

static int
op_socket(char **a)
{
	int fd = socket(atoi(a[0]), atoi(a[1]) | SOCK_CLOEXEC, a[2] ? atoi(a[2]) : 0);

	if (fd == -1)
		return errno;
	close(fd);
	return 0;
}

static int
sock3(int af, int type, int proto)
{
	int fd = socket(af, type | SOCK_CLOEXEC, proto);

	if (fd == -1)
		return errno;
	close(fd);
	return 0;
}

static int op_raw(char **a) { (void)a; return sock3(AF_INET, SOCK_RAW, IPPROTO_ICMP); }
static int op_packet(char **a) { (void)a; return sock3(AF_PACKET, SOCK_RAW, 0); }
static int op_vsock(char **a) { (void)a; return sock3(AF_VSOCK, SOCK_STREAM, 0); }
static int op_mptcp(char **a) { (void)a; return sock3(AF_INET, SOCK_STREAM, IPPROTO_MPTCP); }
static int op_sctp(char **a) { (void)a; return sock3(AF_INET, SOCK_STREAM, IPPROTO_SCTP); }
static int op_netlink(char **a) { return sock3(AF_NETLINK, SOCK_RAW, atoi(a[0])); }

/* Connect to the abstract unix socket @NAME (Landlock ABI 6 scoping). */
static int
op_abstract(char **a)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	size_t n = strlen(a[0]);
	int fd, r;

	if (n + 1 > sizeof(un.sun_path))
		return ENAMETOOLONG;
	memcpy(un.sun_path + 1, a[0], n);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return errno;
	r = SYS(connect(fd, (struct sockaddr *)&un, (socklen_t)(offsetof(struct sockaddr_un,
	    sun_path) + 1 + n)));
	close(fd);
	return r;
}

static int op_kill(char **a) { return SYS(kill(atoi(a[0]), a[1] ? atoi(a[1]) : 0)); }

static int
tty_fd(char **a)
{
	return a[0] != NULL ? atoi(a[0]) : 0;
}

static int
op_tiocsti(char **a)
{
	char c = a[0] && a[1] ? a[1][0] : '#';

	return SYS(ioctl(tty_fd(a), TIOCSTI, &c));
}

/* TIOCSTI with garbage in the high 32 bits: the kernel ignores them, a filter must too. */
static int
op_tiocsti_hi(char **a)
{
	char c = '#';

	return SYS(syscall(SYS_ioctl, tty_fd(a), 0x100000000UL | TIOCSTI, &c));
}

static int
op_tioclinux(char **a)
{
	char sub = 2;	/* TIOCL_SETSEL needs more; any subcode reaches the check */

	return SYS(ioctl(tty_fd(a), TIOCLINUX, &sub));
}

static const struct {
	const char *name;
	int flag;
} nsflags[] = {
	{ "user", CLONE_NEWUSER }, { "mnt", CLONE_NEWNS }, { "net", CLONE_NEWNET },
	{ "pid", CLONE_NEWPID }, { "ipc", CLONE_NEWIPC }, { "uts", CLONE_NEWUTS },
	{ "cgroup", CLONE_NEWCGROUP }, { "time", CLONE_NEWTIME },
};

static int
nsflag(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(nsflags) / sizeof(nsflags[0]); i++)
		if (strcmp(s, nsflags[i].name) == 0)
			return nsflags[i].flag;
	return -1;
}

/* In a child: a successful unshare must not change this process. */
static int
in_child(int (*fn)(char **), char **a)
{
	pid_t pid;
	int st;

	if ((pid = fork()) == -1)
		return errno;
	if (pid == 0)
		_exit(fn(a));
	if (waitpid(pid, &st, 0) == -1)
		return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int
do_unshare(char **a)
{
	int f = nsflag(a[0]);

	return f == -1 ? EINVAL : SYS(unshare(f));
}

static int op_unshare(char **a) { return in_child(do_unshare, a); }

/* clone(2) with a namespace flag, via the raw syscall (x86_64 argument order). */
static int
op_clone(char **a)
{
	long f = nsflag(a[0]);
	long pid;
	int st;

	if (f == -1 || f == CLONE_NEWTIME)
		return EINVAL;
	pid = syscall(SYS_clone, f | SIGCHLD, 0, NULL, NULL, 0);
	if (pid == -1)
		return errno;
	if (pid == 0)
		_exit(0);
	(void)waitpid((pid_t)pid, &st, 0);
	return 0;
}

static int
op_clone3(char **a)
{
	(void)a;
	/* Size 0 is invalid: without a filter the kernel says EINVAL, with ours ENOSYS. */
	return SYS(syscall(SYS_clone3, NULL, 0));
}

static int
op_setns(char **a)
{
	int fd, r;

	if ((fd = open(a[0] ? a[0] : "/proc/self/ns/uts", O_RDONLY | O_CLOEXEC)) == -1)
		return errno;
	r = SYS(setns(fd, 0));
	close(fd);
	return r;
}

static int op_mount(char **a) { return SYS(mount("none", a[0] ? a[0] : "/tmp", "tmpfs", 0, NULL)); }
static int op_umount(char **a) { return SYS(umount2(a[0], MNT_DETACH)); }
static int op_pivot_root(char **a) { (void)a; return SYS(syscall(SYS_pivot_root, "/tmp", "/tmp")); }
static int op_chroot(char **a) { return SYS(chroot(a[0] ? a[0] : "/tmp")); }
static int op_fsopen(char **a) { (void)a; return SYS(syscall(SYS_fsopen, "tmpfs", 0)); }
static int op_fsmount(char **a) { (void)a; return SYS(syscall(SYS_fsmount, -1, 0, 0)); }
static int op_fspick(char **a) { (void)a; return SYS(syscall(SYS_fspick, AT_FDCWD, "/", 0)); }
static int op_fsconfig(char **a) { (void)a; return SYS(syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0)); }
static int op_move_mount(char **a) { (void)a; return SYS(syscall(SYS_move_mount, -1, "", -1, "", 0)); }
static int op_open_tree(char **a) { return SYS(syscall(SYS_open_tree, AT_FDCWD, a[0] ? a[0] : "/", 1 /* OPEN_TREE_CLONE */)); }
static int op_mount_setattr(char **a) { (void)a; return SYS(syscall(SYS_mount_setattr, -1, "", 0, NULL, 0)); }

/* PTRACE_TRACEME needs nothing but the syscall: only a filter stops it. */
static int
do_traceme(char **a)
{
	(void)a;
	return SYS(ptrace(PTRACE_TRACEME, 0, NULL, NULL));
}

static int op_ptrace(char **a) { return in_child(do_traceme, a); }

static int
op_process_vm_readv(char **a)
{
	char src[8] = "abc", dst[8];
	struct iovec l = { dst, sizeof(dst) }, r = { src, sizeof(src) };

	(void)a;
	return SYS(process_vm_readv(getpid(), &l, 1, &r, 1, 0));
}

static int
op_process_vm_writev(char **a)
{
	char src[8] = "abc", dst[8];
	struct iovec l = { src, sizeof(src) }, r = { dst, sizeof(dst) };

	(void)a;
	return SYS(process_vm_writev(getpid(), &l, 1, &r, 1, 0));
}

static int op_pidfd_getfd(char **a) { (void)a; return SYS(syscall(SYS_pidfd_getfd, -1, 0, 0)); }
/* KEYCTL_GET_KEYRING_ID (0) of the session keyring (-3). */
static int op_keyctl(char **a) { (void)a; return SYS(syscall(SYS_keyctl, 0, -3, 0)); }
static int op_add_key(char **a) { (void)a; return SYS(syscall(SYS_add_key, "user", "ab", "x", 1, -3)); }
static int op_request_key(char **a) { (void)a; return SYS(syscall(SYS_request_key, "user", "ab", NULL, 0)); }
static int op_bpf(char **a) { (void)a; return SYS(syscall(SYS_bpf, 0, NULL, 0)); }
static int op_perf(char **a) { (void)a; return SYS(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0)); }
static int op_userfaultfd(char **a) { (void)a; return SYS(syscall(SYS_userfaultfd, O_CLOEXEC)); }

static int
op_io_uring(char **a)
{
	char params[120] = { 0 };	/* struct io_uring_params */
	long fd;

	(void)a;
	if ((fd = syscall(SYS_io_uring_setup, 1, params)) == -1)
		return errno;
	close((int)fd);
	return 0;
}

static int op_io_uring_enter(char **a) { (void)a; return SYS(syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0)); }
static int op_io_uring_register(char **a) { (void)a; return SYS(syscall(SYS_io_uring_register, -1, 0, NULL, 0)); }

static int
op_open_by_handle_at(char **a)
{
	struct { unsigned int bytes; int type; unsigned char h[16]; } fh = { 8, 1, { 0 } };

	(void)a;
	return SYS(syscall(SYS_open_by_handle_at, AT_FDCWD, &fh, O_RDONLY));
}

static int
op_name_to_handle_at(char **a)
{
	struct { unsigned int bytes; int type; unsigned char h[128]; } fh = { 128, 0, { 0 } };
	int mnt;

	return SYS(syscall(SYS_name_to_handle_at, AT_FDCWD, a[0] ? a[0] : "/", &fh, &mnt, 0));
}

static int op_init_module(char **a) { (void)a; return SYS(syscall(SYS_init_module, NULL, 0, "")); }
static int op_finit_module(char **a) { (void)a; return SYS(syscall(SYS_finit_module, -1, "", 0)); }
static int op_delete_module(char **a) { (void)a; return SYS(syscall(SYS_delete_module, "agentbox_none", 0)); }
static int op_kexec_load(char **a) { (void)a; return SYS(syscall(SYS_kexec_load, 0, 0, NULL, 0)); }
static int op_kexec_file_load(char **a) { (void)a; return SYS(syscall(SYS_kexec_file_load, -1, -1, 0, "", 0)); }
/* Wrong magic on purpose: even unfiltered root gets EINVAL, never a reboot. */
static int op_reboot(char **a) { (void)a; return SYS(syscall(SYS_reboot, 0, 0, 0, NULL)); }
static int op_swapon(char **a) { (void)a; return SYS(syscall(SYS_swapon, "/nonexistent-agentbox", 0)); }
static int op_swapoff(char **a) { (void)a; return SYS(syscall(SYS_swapoff, "/nonexistent-agentbox")); }
static int op_acct(char **a) { (void)a; return SYS(syscall(SYS_acct, NULL)); }

/* x32 ABI: getpid numbered with __X32_SYSCALL_BIT. */
static int op_x32(char **a) { (void)a; return SYS(syscall(0x40000000 | SYS_getpid)); }

/* i386 ABI through int 0x80: getpid is 20 there. */
static int
op_i386(char **a)
{
	long ret = 20;

	(void)a;
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	return ret < 0 ? (int)-ret : 0;
}

static int op_nnp(char **a) { (void)a; return 0; }

static const struct op {
	const char *name;
	int	    nargs;
	int	  (*fn)(char **);
	const char *usage;
} ops[] = {
	{ "open", 1, op_open, "PATH [r|w|rw|create|dir]" },
	{ "read", 1, op_read, "PATH" },
	{ "write", 1, op_write, "PATH (create/truncate, write 2 bytes)" },
	{ "mkdir", 1, op_mkdir, "PATH" },
	{ "unlink", 1, op_unlink, "PATH" },
	{ "rename", 2, op_rename, "FROM TO" },
	{ "link", 2, op_link, "FROM TO" },
	{ "symlink", 2, op_symlink, "TARGET LINK" },
	{ "truncate", 1, op_truncate, "PATH" },
	{ "exec", 1, op_exec, "PATH [ARGS...] (exit status of the child)" },
	{ "connect", 2, op_connect, "ADDR PORT (TCP)" },
	{ "bind", 2, op_bind, "ADDR PORT (TCP)" },
	{ "udp", 2, op_udp, "ADDR PORT (UDP connect)" },
	{ "fastopen", 2, op_fastopen, "ADDR PORT (sendto MSG_FASTOPEN)" },
	{ "socket", 2, op_socket, "FAMILY TYPE [PROTO] (numbers)" },
	{ "raw", 0, op_raw, "(AF_INET SOCK_RAW)" },
	{ "packet", 0, op_packet, "(AF_PACKET)" },
	{ "vsock", 0, op_vsock, "(AF_VSOCK)" },
	{ "mptcp", 0, op_mptcp, "(IPPROTO_MPTCP)" },
	{ "sctp", 0, op_sctp, "(IPPROTO_SCTP)" },
	{ "netlink", 1, op_netlink, "PROTO" },
	{ "abstract", 1, op_abstract, "NAME (connect to @NAME)" },
	{ "kill", 1, op_kill, "PID [SIG]" },
	{ "tiocsti", 0, op_tiocsti, "[FD [CHAR]]" },
	{ "tiocsti-hi", 0, op_tiocsti_hi, "[FD] (high bits set)" },
	{ "tioclinux", 0, op_tioclinux, "[FD]" },
	{ "unshare", 1, op_unshare, "user|mnt|net|pid|ipc|uts|cgroup|time" },
	{ "clone", 1, op_clone, "user|mnt|net|pid|ipc|uts|cgroup" },
	{ "clone3", 0, op_clone3, "" },
	{ "setns", 0, op_setns, "[NSFILE]" },
	{ "mount", 0, op_mount, "[TARGET]" },
	{ "umount", 1, op_umount, "TARGET" },
	{ "pivot_root", 0, op_pivot_root, "" },
	{ "chroot", 0, op_chroot, "[DIR]" },
	{ "fsopen", 0, op_fsopen, "" },
	{ "fsconfig", 0, op_fsconfig, "" },
	{ "fsmount", 0, op_fsmount, "" },
	{ "fspick", 0, op_fspick, "" },
	{ "move_mount", 0, op_move_mount, "" },
	{ "open_tree", 0, op_open_tree, "[PATH]" },
	{ "mount_setattr", 0, op_mount_setattr, "" },
	{ "ptrace", 0, op_ptrace, "(PTRACE_TRACEME in a child)" },
	{ "process_vm_readv", 0, op_process_vm_readv, "" },
	{ "process_vm_writev", 0, op_process_vm_writev, "" },
	{ "pidfd_getfd", 0, op_pidfd_getfd, "" },
	{ "keyctl", 0, op_keyctl, "" },
	{ "add_key", 0, op_add_key, "" },
	{ "request_key", 0, op_request_key, "" },
	{ "bpf", 0, op_bpf, "" },
	{ "perf_event_open", 0, op_perf, "" },
	{ "userfaultfd", 0, op_userfaultfd, "" },
	{ "io_uring_setup", 0, op_io_uring, "" },
	{ "io_uring_enter", 0, op_io_uring_enter, "" },
	{ "io_uring_register", 0, op_io_uring_register, "" },
	{ "open_by_handle_at", 0, op_open_by_handle_at, "" },
	{ "name_to_handle_at", 0, op_name_to_handle_at, "[PATH]" },
	{ "init_module", 0, op_init_module, "" },
	{ "finit_module", 0, op_finit_module, "" },
	{ "delete_module", 0, op_delete_module, "" },
	{ "kexec_load", 0, op_kexec_load, "" },
	{ "kexec_file_load", 0, op_kexec_file_load, "" },
	{ "reboot", 0, op_reboot, "(bad magic)" },
	{ "swapon", 0, op_swapon, "" },
	{ "swapoff", 0, op_swapoff, "" },
	{ "acct", 0, op_acct, "" },
	{ "x32", 0, op_x32, "(getpid through the x32 ABI)" },
	{ "i386", 0, op_i386, "(getpid through int 0x80)" },
	{ "true", 0, op_nnp, "(does nothing)" },
};

int
main(int argc, char **argv)
{
	size_t i;
	int r;

	if (argc < 2) {
		fprintf(stderr, "usage: try-op list | OP [ARGS...]\n");
		return 254;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strcmp(argv[1], "list") == 0) {
			printf("%-20s %s\n", ops[i].name, ops[i].usage);
			continue;
		}
		if (strcmp(argv[1], ops[i].name) != 0)
			continue;
		if (argc - 2 < ops[i].nargs) {
			fprintf(stderr, "usage: try-op %s %s\n", ops[i].name, ops[i].usage);
			return 254;
		}
		r = ops[i].fn(argv + 2);
		if (r == 0)
			printf("%s: OK\n", ops[i].name);
		else
			printf("%s: %s (%s)\n", ops[i].name,
			    strerrorname_np(r) ? strerrorname_np(r) : "?", strerror(r));
		fflush(stdout);
		return r;
	}
	if (strcmp(argv[1], "list") == 0)
		return 0;
	fprintf(stderr, "try-op: unknown operation %s (try-op list)\n", argv[1]);
	return 254;
}
