/*
 * esc: the escape suite's attack program.  One call performs one attempt and reports it:
 *
 *	esc ID OP [ARGS...]
 *	-> prints "ESC ID RC ERRNAME DETAIL" and exits with RC (0: the operation worked,
 *	   otherwise the errno that stopped it; 128+N when a signal killed the attempt).
 *
 * Before anything else it renames itself (PR_SET_NAME) to "e-ID", so every kernel
 * record the attempt causes (SYSCALL comm=, SECCOMP comm=, Landlock's SYSCALL) and every
 * denial agentbox-audit lists can be tied to exactly this attempt.  The .t scripts
 * assert the outcome from the ESC line and then look for the record by that comm.
 *
 * The operations are the raw syscalls an agent that read our source would try; no
 * libc wrapper second-guesses them (bubblewrap's try-syscall.c does the same).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/landlock.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/perf_event.h>
#include <linux/rtnetlink.h>
#include <linux/userfaultfd.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "esc_compat.h"

#define SECRET_MARK "ABTSECRET"

static const char *id = "?";
static char detail[512];

static void __attribute__((format(printf, 1, 2)))
note(const char *fmt, ...)
{
	va_list ap;
	size_t l = strlen(detail);

	if (l >= sizeof(detail) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(detail + l, sizeof(detail) - l, fmt, ap);
	va_end(ap);
}

/* errno of the last failing call, as a positive number; the attack's verdict. */
#define FAIL()	(errno ? errno : EIO)

static const char *
errname(int e)
{
	const char *n = strerrorname_np(e);

	return e == 0 ? "OK" : n ? n : "E?";
}

/* -------------------------------------------------------------- files and paths */

/* Read what PATH names and say whether a planted secret came back. */
static int
read_fd_report(int fd)
{
	char buf[8192];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	if (n < 0)
		return FAIL();
	buf[n] = '\0';
	note("read %zd bytes%s", n, memmem(buf, n, SECRET_MARK, strlen(SECRET_MARK)) ?
	    " SECRET-LEAKED" : "");
	return 0;
}

static int
op_read(char **a)
{
	int fd = open(a[0], O_RDONLY | O_CLOEXEC | O_NONBLOCK), r;

	if (fd < 0)
		return FAIL();
	r = read_fd_report(fd);
	close(fd);
	return r;
}

static int
op_readdir(char **a)
{
	char buf[4096];
	int fd = open(a[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return FAIL();
	n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return FAIL();
	note("listed %ld bytes", n);
	return 0;
}

static int
op_write(char **a)
{
	int fd = open(a[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0755);
	const char *s = a[1] ? a[1] : "esc-was-here\n";

	if (fd < 0)
		return FAIL();
	if (write(fd, s, strlen(s)) < 0) {
		int e = FAIL();
		close(fd);
		return e;
	}
	close(fd);
	return 0;
}

static int
op_mkdir(char **a)
{
	return mkdir(a[0], 0755) == 0 ? 0 : FAIL();
}

static int
op_rename(char **a)
{
	return rename(a[0], a[1]) == 0 ? 0 : FAIL();
}

static int
op_link(char **a)
{
	return link(a[0], a[1]) == 0 ? 0 : FAIL();
}

static int
op_symlink(char **a)
{
	return symlink(a[0], a[1]) == 0 ? 0 : FAIL();
}

static int
op_unlink(char **a)
{
	return unlink(a[0]) == 0 ? 0 : FAIL();
}

static int
op_rmdir(char **a)
{
	return rmdir(a[0]) == 0 ? 0 : FAIL();
}

static int
op_chmod(char **a)
{
	return chmod(a[0], (mode_t)strtoul(a[1], NULL, 8)) == 0 ? 0 : FAIL();
}

/* Copy the whole file to DST: what `cp` or an archiver does. */
static int
op_copy(char **a)
{
	char buf[8192];
	int in = open(a[0], O_RDONLY | O_CLOEXEC | O_NONBLOCK), out;
	ssize_t n;

	if (in < 0)
		return FAIL();
	out = open(a[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		int e = FAIL();
		close(in);
		return e;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	{
		int e = n < 0 ? FAIL() : 0;
		close(in);
		close(out);
		return e;
	}
}

/* O_PATH needs no read right; re-opening it through /proc/self/fd must need one. */
static int
op_opath(char **a)
{
	char p[64];
	int pfd = open(a[0], O_PATH | O_CLOEXEC), fd, r;

	if (pfd < 0)
		return FAIL();
	snprintf(p, sizeof(p), "/proc/self/fd/%d", pfd);
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	close(pfd);
	if (fd < 0)
		return FAIL();
	r = read_fd_report(fd);
	close(fd);
	return r;
}

/* openat2 with every resolve flag that does not refuse the path outright. */
static int
op_openat2(char **a)
{
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK,
	    .resolve = RESOLVE_NO_MAGICLINKS };
	int fd = syscall(SYS_openat2, AT_FDCWD, a[0], &how, sizeof(how)), r;

	if (fd < 0)
		return FAIL();
	r = read_fd_report(fd);
	close(fd);
	return r;
}

/* A file handle names the inode, not the path: both halves must be refused. */
static int
op_handle(char **a)
{
	struct { struct file_handle fh; unsigned char b[MAX_HANDLE_SZ]; } h;
	int mnt, fd, mfd, r;

	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (syscall(SYS_name_to_handle_at, AT_FDCWD, a[0], &h.fh, &mnt, 0) == -1) {
		note("name_to_handle_at ");
		return FAIL();
	}
	mfd = open("/", O_PATH | O_CLOEXEC);
	fd = syscall(SYS_open_by_handle_at, mfd, &h.fh, O_RDONLY | O_CLOEXEC);
	close(mfd);
	if (fd < 0) {
		note("open_by_handle_at ");
		return FAIL();
	}
	r = read_fd_report(fd);
	close(fd);
	return r;
}

static int abstract_addr(const char *name, struct sockaddr_un *sun);

/* SOCK as an address: "@NAME" is the abstract NAME, anything else a path. */
static socklen_t
sock_addr(const char *sock, struct sockaddr_un *sun)
{
	if (sock[0] == '@')
		return (socklen_t)abstract_addr(sock + 1, sun);
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "%s", sock);
	return sizeof(*sun);
}

/*
 * Someone of the same uid hands us an fd over a socket (SCM_RIGHTS: a pathname socket,
 * or "@NAME" for an abstract one); we open REL relative to it.  From an outside process
 * the fd was opened in the host's mount namespace; from another box, in that box's.
 * With WAITFILE, the fd is held until WAITFILE exists (the other box has ended, and its
 * masks with it) and the open is retried for a while as long as it is denied.
 */
static int
op_scm_recv(char **a)
{
	struct sockaddr_un sun;
	socklen_t len = sock_addr(a[0], &sun);
	char c, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
	    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int s, dfd, fd, r, i;

	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return FAIL();
	if (connect(s, (struct sockaddr *)&sun, len) == -1) {
		note("connect ");
		r = FAIL();
		close(s);
		return r;
	}
	if (recvmsg(s, &m, MSG_CMSG_CLOEXEC) <= 0 || !(cm = CMSG_FIRSTHDR(&m)) ||
	    cm->cmsg_type != SCM_RIGHTS) {
		note("no fd received ");
		close(s);
		return EPROTO;
	}
	memcpy(&dfd, CMSG_DATA(cm), sizeof(int));
	close(s);
	note("got fd; ");
	if (a[2]) {
		for (i = 0; i < 1200 && access(a[2], F_OK) == -1; i++)
			usleep(50000);
		note(i < 1200 ? "held it until %s; " : "%s never came; ", a[2]);
	}
	for (i = 0;; i++) {
		fd = openat(dfd, a[1], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 || !a[2] || (errno != EACCES && errno != EPERM) || i >= 100)
			break;
		usleep(100000);
	}
	r = fd < 0 ? FAIL() : 0;
	close(dfd);
	if (fd < 0)
		return r;
	if (i > 0)
		note("open worked at try %d; ", i + 1);
	r = read_fd_report(fd);
	close(fd);
	return r;
}

/*
 * The sender for op_scm_recv: serves an O_PATH fd of DIR on SOCK ("@NAME": abstract), to
 * N connections (1).  Without SECS it serves until killed (at most 120 s); with SECS it
 * gives up after SECS seconds without a connection, and ETIMEDOUT means nobody took it.
 */
static int
op_scm_serve(char **a)
{
	struct sockaddr_un sun;
	socklen_t len = sock_addr(a[0], &sun);
	char c = 'x', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
	    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int s, c2, dfd = open(a[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	int n = a[2] ? atoi(a[2]) : 1, served = 0;
	struct timeval tv = { .tv_sec = a[2] && a[3] ? atoi(a[3]) : 0 };

	if (dfd < 0)
		return FAIL();
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (a[0][0] != '@')
		unlink(a[0]);
	if (s < 0 || bind(s, (struct sockaddr *)&sun, len) == -1) {
		note("bind ");
		return FAIL();
	}
	if ((a[0][0] != '@' && chmod(a[0], 0777) == -1) || listen(s, 4) == -1)
		return FAIL();
	if (tv.tv_sec > 0)
		setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	else
		alarm(120);
	while (n-- > 0 && (c2 = accept4(s, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &dfd, sizeof(int));
		if (sendmsg(c2, &m, 0) < 0)
			note("sendmsg %s ", strerror(errno));
		else
			served++;
		close(c2);
	}
	if (tv.tv_sec == 0)
		return 0;
	note("listened %lds, handed the fd to %d", (long)tv.tv_sec, served);
	return served > 0 ? 0 : ETIMEDOUT;
}

/* ------------------------------------------------------------ undoing the world */

static int
op_umount(char **a)
{
	return umount2(a[0], MNT_DETACH) == 0 ? 0 : FAIL();
}

static int
op_bind(char **a)
{
	return mount(a[0], a[1], NULL, MS_BIND, NULL) == 0 ? 0 : FAIL();
}

static int
op_remount(char **a)
{
	return mount(NULL, a[0], NULL, MS_REMOUNT | MS_BIND, NULL) == 0 ? 0 : FAIL();
}

static int
op_mountproc(char **a)
{
	return mount("proc", a[0], "proc", 0, NULL) == 0 ? 0 : FAIL();
}

static int
op_fsopen(char **a)
{
	(void)a;
	int fd = syscall(SYS_fsopen, "tmpfs", 0);

	if (fd < 0)
		return FAIL();
	close(fd);
	return 0;
}

static int
op_open_tree(char **a)
{
	int fd = syscall(SYS_open_tree, AT_FDCWD, a[0], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

	if (fd < 0)
		return FAIL();
	close(fd);
	return 0;
}

static int
op_mount_setattr(char **a)
{
	struct mount_attr attr = { .attr_clr = MOUNT_ATTR_RDONLY };

	return syscall(SYS_mount_setattr, AT_FDCWD, a[0], 0, &attr, sizeof(attr)) == 0 ?
	    0 : FAIL();
}

static const struct { const char *name; int flag; } ns_flags[] = {
	{ "user", CLONE_NEWUSER }, { "mnt", CLONE_NEWNS }, { "net", CLONE_NEWNET },
	{ "pid", CLONE_NEWPID }, { "ipc", CLONE_NEWIPC }, { "uts", CLONE_NEWUTS },
	{ "cgroup", CLONE_NEWCGROUP }, { "time", CLONE_NEWTIME },
};

static int
ns_flag(const char *name)
{
	for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++)
		if (strcmp(ns_flags[i].name, name) == 0)
			return ns_flags[i].flag;
	return 0;
}

static int
op_unshare(char **a)
{
	return unshare(ns_flag(a[0])) == 0 ? 0 : FAIL();
}

/* clone(2) with a namespace flag, the path that skips unshare(2). */
static int
op_clone_ns(char **a)
{
	long pid = syscall(SYS_clone, (long)(ns_flag(a[0]) | SIGCHLD), 0L, 0L, 0L, 0L);

	if (pid < 0)
		return FAIL();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return 0;
}

/* clone3 hides its flags behind a pointer seccomp cannot read: it must be ENOSYS. */
static int
op_clone3(char **a)
{
	struct clone_args ca = { .flags = CLONE_NEWUSER, .exit_signal = SIGCHLD };
	long pid;

	(void)a;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0)
		return FAIL();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return 0;
}

static int
op_setns(char **a)
{
	int fd = open(a[0], O_RDONLY | O_CLOEXEC), r;

	if (fd < 0) {
		note("open ");
		return FAIL();
	}
	r = setns(fd, 0) == 0 ? 0 : FAIL();
	close(fd);
	return r;
}

static int
op_pivot_root(char **a)
{
	return syscall(SYS_pivot_root, a[0], a[1]) == 0 ? 0 : FAIL();
}

static int
op_chroot(char **a)
{
	return chroot(a[0]) == 0 ? 0 : FAIL();
}

/* --------------------------------------------------------------- other processes */

static int
op_ptrace(char **a)
{
	pid_t pid = atoi(a[0]);

	if (ptrace(PTRACE_ATTACH, pid, 0, 0) == -1)
		return FAIL();
	waitpid(pid, NULL, __WALL);
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}

static int
op_pvread(char **a)
{
	char buf[16];
	struct iovec l = { buf, sizeof(buf) }, r = { (void *)0x400000, sizeof(buf) };

	return process_vm_readv(atoi(a[0]), &l, 1, &r, 1, 0) >= 0 ? 0 : FAIL();
}

static int
op_kill(char **a)
{
	return kill(atoi(a[0]), a[1] ? atoi(a[1]) : 0) == 0 ? 0 : FAIL();
}

static int
op_pidfd(char **a)
{
	int fd = syscall(SYS_pidfd_open, atoi(a[0]), 0);

	if (fd < 0)
		return FAIL();
	close(fd);
	return 0;
}

/* Which processes can we see?  ESRCH unless one's cmdline contains A[0]. */
static int
op_seek_proc(char **a)
{
	char path[300], buf[4096];
	struct dirent *de;
	DIR *d = opendir("/proc");
	int visible = 0;

	if (!d)
		return FAIL();
	while ((de = readdir(d)) != NULL) {
		int pid = atoi(de->d_name);
		if (pid <= 0 || pid == getpid())	/* our own argv holds the marker */
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		visible++;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0 && memmem(buf, n, a[0], strlen(a[0]))) {
			note("found pid %d ", pid);
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	note("%d processes visible, none is it", visible);
	return ESRCH;
}

/* A core dump: where would it go, and can the agent choose a pipe handler? */
static int
op_coredump(char **a)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	pid_t pid;
	int st;

	(void)a;
	setrlimit(RLIMIT_CORE, &rl);
	if ((pid = fork()) == 0) {
		prctl(PR_SET_DUMPABLE, 1);
		raise(SIGSEGV);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	note("child %s", WIFSIGNALED(st) && WCOREDUMP(st) ? "dumped core" : "no core");
	return WIFSIGNALED(st) && WCOREDUMP(st) ? 0 : ENOENT;
}

/* ------------------------------------------------------------------ the terminal */

static int
op_tiocsti(char **a)
{
	/* High bits set: a filter comparing all 64 bits would miss it; the kernel takes 32. */
	unsigned long req = (a[0] && strcmp(a[0], "hi") == 0) ? 0xdead00005412UL : TIOCSTI;
	const char *s = a[1] ? a[1] : "id\n";

	for (const char *p = s; *p; p++)
		if (syscall(SYS_ioctl, 0, req, p) == -1)
			return FAIL();
	return 0;
}

static int
op_tioclinux(char **a)
{
	char sub = 2;	/* TIOCL_SETSEL: selection paste is the injection vector */

	(void)a;
	return syscall(SYS_ioctl, 0, (unsigned long)TIOCLINUX, &sub) == 0 ? 0 : FAIL();
}

/*
 * Outlive the session with the terminal in hand: a double-forked, setsid child keeps
 * fd 0 and 1, sleeps, then writes A[1] to the terminal and copies whatever it can read
 * from it into A[2] (a file in the project).  The parent returns at once.
 */
static int
op_tty_later(char **a)
{
	pid_t pid = fork();

	if (pid < 0)
		return FAIL();
	if (pid == 0) {
		if (fork() != 0)
			_exit(0);
		setsid();
		signal(SIGHUP, SIG_IGN);
		sleep(atoi(a[0]));
		ssize_t w = write(0, a[1], strlen(a[1]));
		int out = open(a[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		char buf[256];
		ssize_t n;
		fcntl(0, F_SETFL, O_NONBLOCK);
		dprintf(out, "alive-after-logout write=%zd\n", w);
		for (int i = 0; i < 50; i++) {
			if ((n = read(0, buf, sizeof(buf))) > 0 && write(out, buf, n) < 0)
				break;
			usleep(100000);
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return 0;
}

/* --------------------------------------------------------------- kernel surface */

static int
op_io_uring(char **a)
{
	struct io_uring_params p = { 0 };
	int fd = syscall(SYS_io_uring_setup, 4, &p);

	(void)a;
	if (fd < 0)
		return FAIL();
	close(fd);
	return 0;
}

static int
op_add_key(char **a)
{
	(void)a;
	return syscall(SYS_add_key, "user", "esc", "x", 1, KEY_SPEC_SESSION_KEYRING) >= 0 ?
	    0 : FAIL();
}

static int
op_keyctl(char **a)
{
	(void)a;
	return syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, "esc") >= 0 ? 0 : FAIL();
}

static int
op_bpf(char **a)
{
	union bpf_attr attr;

	(void)a;
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	int fd = syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		return FAIL();
	close(fd);
	return 0;
}

static int
op_perf(char **a)
{
	struct perf_event_attr pe = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(pe),
	    .config = PERF_COUNT_SW_CPU_CLOCK, .disabled = 1, .exclude_kernel = 1 };
	int fd = syscall(SYS_perf_event_open, &pe, 0, -1, -1, 0);

	(void)a;
	if (fd < 0)
		return FAIL();
	close(fd);
	return 0;
}

static int
op_userfaultfd(char **a)
{
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);

	(void)a;
	if (fd < 0)
		return FAIL();
	close(fd);
	return 0;
}

static int
op_socket(char **a)
{
	int fd = socket(atoi(a[0]), atoi(a[1]) | SOCK_CLOEXEC, a[2] ? atoi(a[2]) : 0);

	if (fd < 0)
		return FAIL();
	close(fd);
	return 0;
}

static int
op_init_module(char **a)
{
	(void)a;
	return syscall(SYS_init_module, "", 0, "") == 0 ? 0 : FAIL();
}

static int
op_finit_module(char **a)
{
	int fd = open(a[0], O_RDONLY | O_CLOEXEC), r;

	r = syscall(SYS_finit_module, fd, "", 0) == 0 ? 0 : FAIL();
	if (fd >= 0)
		close(fd);
	return r;
}

static int
op_kexec(char **a)
{
	(void)a;
	return syscall(SYS_kexec_load, 0, 0, NULL, 0) == 0 ? 0 : FAIL();
}

static int
op_reboot(char **a)
{
	(void)a;
	/* CAD_OFF is harmless even if it were allowed. */
	return syscall(SYS_reboot, 0xfee1dead, 672274793, 0 /* LINUX_REBOOT_CMD_CAD_OFF */,
	    NULL) == 0 ? 0 : FAIL();
}

static int
op_swapon(char **a)
{
	return syscall(SYS_swapon, a[0], 0) == 0 ? 0 : FAIL();
}

static int
op_acct(char **a)
{
	return syscall(SYS_acct, a[0]) == 0 ? 0 : FAIL();
}

static int
op_mknod(char **a)
{
	/* /dev/mem's numbers: the classic device-node escape. */
	return mknod(a[0], S_IFCHR | 0666, makedev(1, 1)) == 0 ? 0 : FAIL();
}

static sigjmp_buf int80_jmp;

static void
int80_segv(int sig)
{
	siglongjmp(int80_jmp, sig);
}

/*
 * i386 getpid through int 0x80 from a 64-bit process: a second syscall table.  Where the
 * kernel (or the hypervisor) offers no int 0x80 gate the instruction faults: reported as
 * ENOSYS with a note, since no syscall was made.
 */
static int
op_int80(char **a)
{
	long ret;

	(void)a;
	signal(SIGSEGV, int80_segv);
	if (sigsetjmp(int80_jmp, 1) != 0) {
		note("int 0x80 faulted (SIGSEGV): no i386 gate on this machine");
		return ENOSYS;
	}
	__asm__ volatile ("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
	signal(SIGSEGV, SIG_DFL);
	note("int80 returned %ld", ret);
	if (ret < 0 && ret > -4096)
		return (int)-ret;
	return 0;
}

/* x32: the same table with bit 30 set. */
static int
op_x32(char **a)
{
	(void)a;
	return syscall(0x40000000L | SYS_getpid) >= 0 ? 0 : FAIL();
}

/* Execute code the agent wrote to memory; success is fine if the result is confined. */
static int
op_memfd_exec(char **a)
{
	char buf[65536];
	int in = open(a[0], O_RDONLY | O_CLOEXEC), mfd;
	ssize_t n;

	if (in < 0)
		return FAIL();
	mfd = syscall(SYS_memfd_create, "esc", 0);
	if (mfd < 0) {
		note("memfd_create ");
		close(in);
		return FAIL();
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(mfd, buf, n) != n)
			return EIO;
	close(in);
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { "esc", (char *)id, "status", NULL };
		char *envp[] = { NULL };
		syscall(SYS_execveat, mfd, "", argv, envp, AT_EMPTY_PATH);
		_exit(100 + errno);
	}
	int st;
	waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) >= 100) {
		note("execveat ");
		return WEXITSTATUS(st) - 100;
	}
	note("memfd program ran (its status line follows)");
	return 0;
}

/* ------------------------------------------------------------------------ network */

static int
sa_for(const char *fam, const char *addr, int port, struct sockaddr_storage *ss,
    socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (strcmp(fam, "4") == 0) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;
		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		*len = sizeof(*s);
		return inet_pton(AF_INET, addr, &s->sin_addr) == 1 ? AF_INET : -1;
	}
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;
	s->sin6_family = AF_INET6;
	s->sin6_port = htons(port);
	*len = sizeof(*s);
	return inet_pton(AF_INET6, addr, &s->sin6_addr) == 1 ? AF_INET6 : -1;
}

/* net FAM(4|6) KIND(tcp|udp|mptcp|tfo) ADDR PORT */
static int
op_net(char **a)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fam = sa_for(a[0], a[2], atoi(a[3]), &ss, &len), s, r = 0;
	const char *k = a[1];

	if (fam < 0)
		return EINVAL;
	if (strcmp(k, "udp") == 0)
		s = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	else if (strcmp(k, "mptcp") == 0)
		s = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 262 /* IPPROTO_MPTCP */);
	else
		s = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		note("socket ");
		return FAIL();
	}
	if (strcmp(k, "tfo") == 0) {
		/* TCP Fast Open: data and connect in one sendto, no connect() hook. */
		if (sendto(s, "esc\n", 4, MSG_FASTOPEN, (struct sockaddr *)&ss, len) < 0) {
			note("sendto(MSG_FASTOPEN) ");
			r = FAIL();
		}
	} else if (strcmp(k, "udp") == 0) {
		if (sendto(s, "esc\n", 4, 0, (struct sockaddr *)&ss, len) < 0) {
			note("sendto ");
			r = FAIL();
		}
	} else if (connect(s, (struct sockaddr *)&ss, len) == -1) {
		note("connect ");
		r = FAIL();
	}
	close(s);
	return r;
}

static int
op_ping(char **a)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct icmphdr ic = { .type = ICMP_ECHO };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_ICMP), r = 0;

	if (s < 0) {
		note("socket(ICMP) ");
		return FAIL();
	}
	inet_pton(AF_INET, a[0], &sin.sin_addr);
	if (sendto(s, &ic, sizeof(ic), 0, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		r = FAIL();
	close(s);
	return r;
}

/* Bring lo up in whatever network namespace we are in (the empty one must stay empty). */
static int
op_nl_linkup(char **a)
{
	struct { struct nlmsghdr nh; struct ifinfomsg ifi; } req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_NEWLINK,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK },
		.ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 1, .ifi_flags = IFF_UP,
			.ifi_change = IFF_UP },
	};
	struct { struct nlmsghdr nh; struct nlmsgerr err; } ack;
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	(void)a;
	if (s < 0) {
		note("socket ");
		return FAIL();
	}
	if (send(s, &req, sizeof(req), 0) < 0 || recv(s, &ack, sizeof(ack), 0) < 0) {
		int e = FAIL();
		close(s);
		return e;
	}
	close(s);
	return ack.nh.nlmsg_type == NLMSG_ERROR ? -ack.err.error : EPROTO;
}

static int
abstract_addr(const char *name, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1, "%s", name);
	return (int)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
}

static int
op_abstract(char **a)
{
	struct sockaddr_un sun;
	int len = abstract_addr(a[0], &sun), s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int r;

	if (s < 0)
		return FAIL();
	r = connect(s, (struct sockaddr *)&sun, len) == 0 ? 0 : FAIL();
	close(s);
	return r;
}

/* Listen on abstract NAME for SECS seconds, accepting and closing (the test's target). */
static int
op_alisten(char **a)
{
	struct sockaddr_un sun;
	int len = abstract_addr(a[0], &sun), s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&sun, len) == -1 || listen(s, 8) == -1)
		return FAIL();
	alarm(atoi(a[1]));
	for (;;) {
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		if (c >= 0) {
			dprintf(c, "hello from %s\n", a[0]);
			close(c);
		}
	}
}

static int
op_unix(char **a)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	if (s < 0)
		return FAIL();
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", a[0]);
	r = connect(s, (struct sockaddr *)&sun, sizeof(sun)) == 0 ? 0 : FAIL();
	close(s);
	return r;
}

/* Resolve a name through libc (files, dns, whatever nsswitch says). */
static int
op_resolve(char **a)
{
	struct addrinfo *ai = NULL;
	int r = getaddrinfo(a[0], "80", NULL, &ai);

	if (r != 0) {
		note("getaddrinfo: %s", gai_strerror(r));
		return r == EAI_SYSTEM ? FAIL() : EHOSTUNREACH;
	}
	freeaddrinfo(ai);
	return 0;
}

/* --------------------------------------------------------------------- audit trail */

static int
audit_send(uint16_t type, const void *data, size_t len)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	struct { struct nlmsghdr nh; char d[1024]; } req;
	struct { struct nlmsghdr nh; struct nlmsgerr err; char pad[256]; } ack;
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT), r;

	if (s < 0) {
		note("socket(NETLINK_AUDIT) ");
		return FAIL();
	}
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(len);
	req.nh.nlmsg_type = type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	memcpy(req.d, data, len);
	if (sendto(s, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&nl, sizeof(nl)) < 0) {
		r = FAIL();
		close(s);
		return r;
	}
	r = recv(s, &ack, sizeof(ack), 0) < 0 ? FAIL() :
	    ack.nh.nlmsg_type == NLMSG_ERROR ? -ack.err.error : 0;
	close(s);
	return r;
}

/* Forge the record that tells the review a session ended. */
static int
op_audit_forge(char **a)
{
	const char *m = a[0] ? a[0] :
	    "op=agentbox-session-end ses=1 user=root uid=0 service=sshd reason=logout";

	return audit_send(AUDIT_TRUSTED_APP, m, strlen(m) + 1);
}

/* auditctl -e 0, as a netlink message. */
static int
op_audit_off(char **a)
{
	struct audit_status st = { .mask = AUDIT_STATUS_ENABLED, .enabled = 0 };

	(void)a;
	return audit_send(AUDIT_SET, &st, sizeof(st));
}

/* auditctl -D: ask for the rule list would need more; deleting needs the same right. */
static int
op_loginuid(char **a)
{
	int fd = open("/proc/self/loginuid", O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return FAIL();
	if (write(fd, a[0], strlen(a[0])) < 0)
		r = FAIL();
	close(fd);
	return r;
}

/*
 * A Landlock domain of our own that handles file reads and allows none, created with
 * logging turned off, then the read: our domain silences its Landlock record; the
 * syscall-exit backstop (exit=-EACCES by uid) must still record it.
 */
static int
op_nested_landlock(char **a)
{
	struct landlock_ruleset_attr ra = { .handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE };
	int rs = syscall(SYS_landlock_create_ruleset, &ra, sizeof(ra), 0), fd;

	if (rs < 0) {
		note("create_ruleset ");
		return FAIL();
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (syscall(SYS_landlock_restrict_self, rs, AB_LL_LOG_SAME_EXEC_OFF |
	    AB_LL_LOG_SUBDOMAINS_OFF) == -1 &&
	    syscall(SYS_landlock_restrict_self, rs, AB_LL_LOG_SAME_EXEC_OFF) == -1) {
		note("restrict_self ");
		return FAIL();
	}
	close(rs);
	fd = open(a[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return FAIL();
	close(fd);
	return 0;
}

/* Many denied opens as fast as possible; prints how long it took. */
static int
op_flood(char **a)
{
	long n = atol(a[1]);
	struct timespec t0, t1;
	long denied = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		int fd = open(a[0], O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		else
			denied++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	note("%ld/%ld denied in %.1f s", denied, n,
	    (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return denied == n ? EACCES : 0;
}

/* N denied unshare(CLONE_NEWUSER): the cheapest record (one SECCOMP line each). */
static int
op_flood_seccomp(char **a)
{
	long n = atol(a[0]), denied = 0;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		if (unshare(CLONE_NEWUSER) == -1)
			denied++;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	note("%ld/%ld denied in %.1f s", denied, n,
	    (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return denied == n ? EPERM : 0;
}

/* --------------------------------------------------------------------- resources */

/* Fork until refused (RLIMIT_NPROC or pid_max), hold for SECS, then report the count. */
static int
op_forkbomb(char **a)
{
	int secs = atoi(a[0]), n = 0, last = 0;
	int p[2];

	if (pipe2(p, O_CLOEXEC) == -1)
		return FAIL();
	for (; n < 1000000; n++) {
		pid_t pid = fork();
		if (pid < 0) {
			last = errno;
			break;
		}
		if (pid == 0) {
			char c;
			close(p[1]);
			/* Children wait for the pipe to close (end of hold), or die with it. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			(void)!read(p[0], &c, 1);
			_exit(0);
		}
	}
	note("forked %d before %s; ", n, errname(last));
	sleep(secs);
	close(p[1]);
	while (wait(NULL) > 0)
		;
	return last ? last : 0;
}

static int
op_memhog(char **a)
{
	long mb = atol(a[0]), got = 0;

	for (; got < mb; got++) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			break;
		memset(p, 1, 1 << 20);
	}
	note("touched %ld MiB of %ld", got, mb);
	return got < mb ? ENOMEM : 0;
}

/* Write up to MB MiB into FILE; report where it stopped (ENOSPC is the expected end). */
static int
op_fill(char **a)
{
	static char buf[1 << 20];
	long mb = atol(a[1]), got = 0;
	int fd = open(a[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), r = 0;

	if (fd < 0)
		return FAIL();
	memset(buf, 'f', sizeof(buf));
	for (; got < mb; got++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			r = FAIL();
			break;
		}
	close(fd);
	unlink(a[0]);
	note("wrote %ld MiB", got);
	return r;
}

/* -------------------------------------------------------------------- status probe */

static void
status_field(const char *want, char *out, size_t outlen)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	snprintf(out, outlen, "?");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, want, strlen(want)) == 0) {
			char *v = line + strlen(want);
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(out, outlen, "%s", v);
		}
	fclose(f);
}

/* The confinement this process runs under, one line: asserted by the entry tests. */
static int
op_status(char **a)
{
	char nnp[32], sec[32], cap[32], capb[32], ses[32] = "?";
	char mnt[64] = "?", pidns[64] = "?";
	int fd;

	(void)a;
	status_field("NoNewPrivs:", nnp, sizeof(nnp));
	status_field("Seccomp:", sec, sizeof(sec));
	status_field("CapEff:", cap, sizeof(cap));
	status_field("CapBnd:", capb, sizeof(capb));
	if ((fd = open("/proc/self/sessionid", O_RDONLY | O_CLOEXEC)) >= 0) {
		ssize_t n = read(fd, ses, sizeof(ses) - 1);
		ses[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	if (readlink("/proc/self/ns/mnt", mnt, sizeof(mnt) - 1) < 0)
		strcpy(mnt, "?");
	if (readlink("/proc/self/ns/pid", pidns, sizeof(pidns) - 1) < 0)
		strcpy(pidns, "?");
	/* A Landlock domain shows as EPERM on a self-check that needs none. */
	int ll = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	note("uid=%d nnp=%s seccomp=%s capeff=%s ses=%s mnt=%s pidns=%s pid=%d ppid=%d llabi=%d",
	    (int)getuid(), nnp, sec, cap, ses, mnt, pidns, (int)getpid(), (int)getppid(), ll);
	(void)capb;
	return 0;
}

/* A setuid or file-capability program must not raise anything under no_new_privs. */
static int
op_euid(char **a)
{
	char cap[32];

	(void)a;
	status_field("CapEff:", cap, sizeof(cap));
	note("uid=%d euid=%d capeff=%s", (int)getuid(), (int)geteuid(), cap);
	return geteuid() == 0 || strcmp(cap, "0000000000000000") != 0 ? 0 : EPERM;
}

/* fds this process inherited above 2: what sshd, su, sudo or tmux left open for us. */
static int
op_fds(char **a)
{
	char p[64], t[256];
	int leaked = 0;

	(void)a;
	for (int fd = 3; fd < 1024; fd++) {
		if (fcntl(fd, F_GETFD) == -1)
			continue;
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(p, t, sizeof(t) - 1);
		t[n > 0 ? n : 0] = '\0';
		note("%d->%s ", fd, t);
		leaked++;
	}
	if (!leaked)
		note("no fd above 2");
	return leaked ? 0 : EBADF;
}

/* ------------------------------------------------------------------------ dispatch */

static const struct op {
	const char *name;
	int argc;		/* required arguments */
	int (*fn)(char **);
} ops[] = {
	{ "read", 1, op_read }, { "readdir", 1, op_readdir }, { "write", 1, op_write },
	{ "mkdir", 1, op_mkdir }, { "rename", 2, op_rename }, { "link", 2, op_link },
	{ "symlink", 2, op_symlink }, { "unlink", 1, op_unlink }, { "rmdir", 1, op_rmdir },
	{ "chmod", 2, op_chmod }, { "copy", 2, op_copy }, { "opath", 1, op_opath },
	{ "openat2", 1, op_openat2 }, { "handle", 1, op_handle },
	{ "scm-recv", 2, op_scm_recv }, { "scm-serve", 2, op_scm_serve },
	{ "umount", 1, op_umount }, { "bind", 2, op_bind }, { "remount", 1, op_remount },
	{ "mountproc", 1, op_mountproc }, { "fsopen", 0, op_fsopen },
	{ "open_tree", 1, op_open_tree }, { "mount_setattr", 1, op_mount_setattr },
	{ "unshare", 1, op_unshare }, { "clone", 1, op_clone_ns }, { "clone3", 0, op_clone3 },
	{ "setns", 1, op_setns }, { "pivot_root", 2, op_pivot_root }, { "chroot", 1, op_chroot },
	{ "ptrace", 1, op_ptrace }, { "pvread", 1, op_pvread }, { "kill", 1, op_kill },
	{ "pidfd", 1, op_pidfd }, { "seek-proc", 1, op_seek_proc },
	{ "coredump", 0, op_coredump },
	{ "tiocsti", 0, op_tiocsti }, { "tioclinux", 0, op_tioclinux },
	{ "tty-later", 3, op_tty_later },
	{ "io_uring", 0, op_io_uring }, { "add_key", 0, op_add_key }, { "keyctl", 0, op_keyctl },
	{ "bpf", 0, op_bpf }, { "perf", 0, op_perf }, { "userfaultfd", 0, op_userfaultfd },
	{ "socket", 2, op_socket }, { "init_module", 0, op_init_module },
	{ "finit_module", 1, op_finit_module }, { "kexec", 0, op_kexec },
	{ "reboot", 0, op_reboot }, { "swapon", 1, op_swapon }, { "acct", 1, op_acct },
	{ "mknod", 1, op_mknod }, { "int80", 0, op_int80 }, { "x32", 0, op_x32 },
	{ "memfd-exec", 1, op_memfd_exec },
	{ "net", 4, op_net }, { "ping", 1, op_ping }, { "nl-linkup", 0, op_nl_linkup },
	{ "abstract", 1, op_abstract }, { "alisten", 2, op_alisten }, { "unix", 1, op_unix },
	{ "resolve", 1, op_resolve },
	{ "audit-forge", 0, op_audit_forge }, { "audit-off", 0, op_audit_off },
	{ "loginuid", 1, op_loginuid }, { "nested-landlock", 1, op_nested_landlock },
	{ "flood", 2, op_flood }, { "flood-seccomp", 1, op_flood_seccomp },
	{ "forkbomb", 1, op_forkbomb }, { "memhog", 1, op_memhog }, { "fill", 2, op_fill },
	{ "status", 0, op_status }, { "euid", 0, op_euid }, { "fds", 0, op_fds },
};

int
main(int argc, char **argv)
{
	char comm[16];
	const struct op *op = NULL;
	int r;

	if (argc < 3) {
		fprintf(stderr, "usage: esc ID OP [ARGS...]\n");
		return 2;
	}
	id = argv[1];
	/* 1. Name the attempt so its audit records carry it (comm is 15 bytes). */
	snprintf(comm, sizeof(comm), "e-%s", id);
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(ops[i].name, argv[2]) == 0)
			op = &ops[i];
	if (!op || argc - 3 < op->argc) {
		fprintf(stderr, "esc: unknown op or missing arguments: %s\n", argv[2]);
		return 2;
	}
	/* 2. Output must reach the test even if the attempt dies half way. */
	setvbuf(stdout, NULL, _IONBF, 0);
	/* 3. The attempt itself. */
	errno = 0;
	r = op->fn(argv + 3);
	if (r > 255)
		r = 255;
	for (char *p = detail; *p; p++)
		if (*p == '\n')
			*p = ' ';
	printf("ESC %s %d %s %s\n", id, r, errname(r), detail);
	return r;
}
