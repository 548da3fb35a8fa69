/*
 * agentbox-init: pid 1 of an agentbox session's pid namespace.
 *
 * Started by pam_agentbox (as root, empty environment, no fds) right after it unshared
 * the pid namespace; every orphan of the session reparents to it.  It reaps them, and
 * nothing else: pam_agentbox's close_session SIGKILLs it at logout, and the kernel then
 * kills every process left in the namespace.  PR_SET_PDEATHSIG (set before the exec)
 * kills it too if su/sshd/sudo die without closing the session.
 *
 * Freestanding on x86_64: no C library, five raw system calls.  It runs at every login
 * and pam_agentbox waits for it to be running, and a static glibc's start-up alone
 * (CPU feature and cache probing with cpuid, which traps to the hypervisor on a VM:
 * about 7 us a call, ~150 calls) cost 1.2 ms of the login on the reference VM, more
 * than building the whole mount world (bench/README.md, session-start).  It takes no
 * input but signals and child exits, so there is nothing here a library would make
 * safer.  Other architectures build the same code on the C library's syscall(2).
 */
#define _GNU_SOURCE
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

/* The process entry: no return address on the stack, so align it and call in. */
__asm__(".text\n.global _start\n.type _start,@function\n_start:\n"
    "\txor %ebp, %ebp\n\tand $-16, %rsp\n\tcall init_main\n\thlt\n");
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

void __attribute__((noreturn)) init_main(void);

void __attribute__((noreturn))
init_main(void)
{
	unsigned long all = ~0UL;	/* SIGKILL and SIGSTOP cannot be blocked anyway */
	siginfo_t si;

	/* 1. Only as pid 1 of a namespace: anywhere else there is nothing for us to do. */
	if (sys4(SYS_getpid, 0, 0, 0, 0) != 1)
		sys_exit(1);
	/* 2. Every signal blocked and taken synchronously: SIGCHLD drives the loop, and
	 *    the session (inside the namespace, not root) cannot signal us anyway. */
	if (sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, 0, KSIGSET_SIZE) != 0)
		sys_exit(1);
	/* 3. Reap forever.  A termination signal from outside the namespace (si_pid 0:
	 *    the sender is in an ancestor namespace, i.e. root on the host) ends us. */
	for (;;) {
		while (sys4(SYS_wait4, -1, 0, WNOHANG, 0) > 0)
			;
		if (sys4(SYS_rt_sigtimedwait, (long)&all, (long)&si, 0, KSIGSET_SIZE) <= 0)
			continue;	/* EINTR */
		if (si.si_pid == 0 && (si.si_signo == SIGTERM || si.si_signo == SIGINT ||
		    si.si_signo == SIGHUP))
			sys_exit(0);
	}
}

#if !defined(AB_INIT_FREESTANDING)
int
main(void)
{
	init_main();
}
#endif
