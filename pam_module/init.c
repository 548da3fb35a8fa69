/*
 * agentbox-init: pid 1 of an agentbox session's pid namespace.
 *
 * Started by pam_agentbox (as root, empty environment, no fds) right after it unshared
 * the pid namespace; every orphan of the session reparents to it.  It reaps them, and
 * nothing else: pam_agentbox's close_session SIGKILLs it at logout, and the kernel then
 * kills every process left in the namespace.  PR_SET_PDEATHSIG (set before the exec)
 * kills it too if su/sshd/sudo die without closing the session.
 *
 * A box with persist = yes outlives its login (no PDEATHSIG, no kill at logout) and is
 * started as "agentbox-init LINGER": it ends itself, and with it every process of the
 * box, once no login has been left in it for LINGER seconds (0: never; agentbox stop or
 * a changed policy end it from outside).  A login is a process whose parent lives
 * outside the namespace (the shell su forked, sshd's session process): /proc shows it
 * with ppid 0.  Processes a login left behind (a detached tmux server) were reparented
 * to us and have ppid 1; they do not count.  The agent cannot make a process with ppid
 * 0: only root outside can start one in here (setns).
 *
 * Freestanding on x86_64: no C library, a few raw system calls.  It runs at every login
 * and pam_agentbox waits for it to be running, and a static glibc's start-up alone
 * (CPU feature and cache probing with cpuid, which traps to the hypervisor on a VM:
 * about 7 us a call, ~150 calls) cost 1.2 ms of the login on the reference VM, more
 * than building the whole mount world (bench/README.md, session-start).  It takes no
 * input but signals and child exits, so there is nothing here a library would make
 * safer.  Other architectures build the same code on the C library's syscall(2).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#if defined(AB_INIT_FREESTANDING)
/* The kernel's x86_64 convention: rax number, rdi rsi rdx r10 args; rcx r11 clobbered. */
static long
sys4(long nr, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile ("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
	    : "rcx", "r11", "memory");
	return ret;	/* -errno on failure */
}

static void __attribute__((noreturn))
sys_exit(int code)
{
	for (;;)
		sys4(SYS_exit_group, code, 0, 0, 0);
}

/* The process entry: no return address on the stack, so align it and call in, with the
 * initial stack (argc, argv[]) as the argument. */
__asm__(".text\n.global _start\n.type _start,@function\n_start:\n"
    "\txor %ebp, %ebp\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall init_main\n\thlt\n");
#else
#include <unistd.h>

/* -1 on failure where the raw call gives -errno: the loop below tests only the sign. */
static long
sys4(long nr, long a, long b, long c, long d)
{
	return syscall(nr, a, b, c, d);
}

static void __attribute__((noreturn))
sys_exit(int code)
{
	_exit(code);
}
#endif

/* The kernel's sigset_t for rt_sig* calls: 64 signals, one word. */
#define KSIGSET_SIZE	8

/* Decimal digits of S (at most 9) as a number; -1 if S is not one. */
static long
parse_secs(const char *s)
{
	long v = 0;
	int i;

	for (i = 0; s[i] >= '0' && s[i] <= '9' && i < 9; i++)
		v = v * 10 + (s[i] - '0');
	return i > 0 && s[i] == '\0' ? v : -1;
}

/* CLOCK_MONOTONIC in milliseconds: whole seconds would cut up to one off the linger. */
static long
now_ms(void)
{
	struct { long sec, nsec; } ts;

	if (sys4(SYS_clock_gettime, 1 /* CLOCK_MONOTONIC */, (long)&ts, 0, 0) != 0)
		return 0;
	return ts.sec * 1000 + ts.nsec / 1000000;
}

/* Is /proc/PID/stat's ppid (the field after state, after the last ')') 0? */
static int
ppid_is_zero(int procfd, const char *pid)
{
	char path[32], buf[512];
	long fd, n, i, k, close_at;

	for (i = 0; pid[i] != '\0' && i < 16; i++)
		path[i] = pid[i];
	for (k = 0; "/stat"[k] != '\0'; k++)
		path[i++] = "/stat"[k];
	path[i] = '\0';
	if ((fd = sys4(SYS_openat, procfd, (long)path, O_RDONLY | O_CLOEXEC, 0)) < 0)
		return 0;	/* gone already */
	n = sys4(SYS_read, fd, (long)buf, sizeof(buf) - 1, 0);
	sys4(SYS_close, fd, 0, 0, 0);
	if (n <= 0)
		return 0;
	for (close_at = -1, i = 0; i < n; i++)
		if (buf[i] == ')')
			close_at = i;
	/* ") S 0 ": after the last ')', a space, the state, a space, then ppid. */
	return close_at >= 0 && close_at + 5 < n && buf[close_at + 4] == '0' &&
	    buf[close_at + 5] == ' ';
}

/* Does the box hold a login: a process other than us whose parent is outside? */
static int
has_login(void)
{
	char dents[4096];
	long procfd, n, off;
	int found = 0;

	procfd = sys4(SYS_open, (long)"/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
	if (procfd < 0)
		return 1;	/* cannot tell: never end a box on a guess */
	while (!found && (n = sys4(SYS_getdents64, procfd, (long)dents, sizeof(dents), 0)) > 0) {
		for (off = 0; off < n && !found; ) {
			/* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
			unsigned short reclen = *(unsigned short *)(dents + off + 16);
			const char *name = dents + off + 19;

			if (name[0] >= '1' && name[0] <= '9' && !(name[0] == '1' && name[1] == '\0'))
				found = ppid_is_zero((int)procfd, name);
			off += reclen;
		}
	}
	if (n < 0)
		found = 1;
	sys4(SYS_close, procfd, 0, 0, 0);
	return found;
}

void __attribute__((noreturn)) init_main(long *sp);

void __attribute__((noreturn))
init_main(long *sp)
{
	unsigned long all = ~0UL;	/* SIGKILL and SIGSTOP cannot be blocked anyway */
	char **argv = (char **)(sp + 1);
	struct { long sec, nsec; } tick = { 1, 0 };
	long linger = 0, idle_since;
	siginfo_t si;

	/* 1. Only as pid 1 of a namespace: anywhere else there is nothing for us to do. */
	if (sys4(SYS_getpid, 0, 0, 0, 0) != 1)
		sys_exit(1);
	/* 2. Every signal blocked and taken synchronously: SIGCHLD drives the loop, and
	 *    the session (inside the namespace, not root) cannot signal us anyway. */
	if (sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, 0, KSIGSET_SIZE) != 0)
		sys_exit(1);
	/* 3. A persistent box's linger, in seconds: checked every second below 10 s of
	 *    linger (tests), every 5 s above. */
	if (sp[0] > 1 && (linger = parse_secs(argv[1])) < 0)
		sys_exit(1);
	if (linger >= 10)
		tick.sec = 5;
	idle_since = now_ms();
	/* 4. Reap until the box ends.  A termination signal from outside the namespace
	 *    (si_pid 0: the sender is in an ancestor namespace, i.e. root on the host) ends
	 *    us; so does a linger run out. */
	for (;;) {
		while (sys4(SYS_wait4, -1, 0, WNOHANG, 0) > 0)
			;
		if (linger > 0) {
			/* The last check that saw a login starts the idle time: a box ends
			 * between LINGER and LINGER + one tick after its last login. */
			if (has_login())
				idle_since = now_ms();
			else if (now_ms() - idle_since >= linger * 1000)
				sys_exit(3);
		}
		if (sys4(SYS_rt_sigtimedwait, (long)&all, (long)&si, linger > 0 ? (long)&tick : 0,
		    KSIGSET_SIZE) <= 0)
			continue;	/* EINTR, or the tick */
		if (si.si_pid == 0 && (si.si_signo == SIGTERM || si.si_signo == SIGINT ||
		    si.si_signo == SIGHUP))
			sys_exit(0);
	}
}

#if !defined(AB_INIT_FREESTANDING)
int
main(int argc, char **argv)
{
	long sp[3] = { argc, (long)(argc > 0 ? argv[0] : 0), (long)(argc > 1 ? argv[1] : 0) };

	init_main(sp);
}
#endif
