/*
 * Load the precompiled seccomp filter (see seccomp.c for the table and its reasons,
 * seccomp_gen.c for how it is compiled).  The raw seccomp(2) call is what libseccomp's
 * seccomp_load does with the same program; SECCOMP_FILTER_FLAG_LOG is the load-time
 * half of SCMP_FLTATR_CTL_LOG.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shell.h"
#include "seccomp_bpf.h"

#define PROG(a)	{ (unsigned short)(sizeof(a) / sizeof((a)[0])), (struct sock_filter *)(a) }

int
ab_seccomp_apply(const struct ab_plan *plan)
{
	struct sock_fprog prog;

	switch (plan->policy->network) {
	case AB_NET_NONE: prog = (struct sock_fprog)PROG(ab_bpf_none); break;
	/* proxy is loopback's namespace (only lo): the same program, none of its own. */
	case AB_NET_LOOPBACK:
	case AB_NET_PROXY: prog = (struct sock_fprog)PROG(ab_bpf_loopback); break;
	case AB_NET_HOST: prog = (struct sock_fprog)PROG(ab_bpf_host); break;
	case AB_NET_TCP: prog = (struct sock_fprog)PROG(ab_bpf_tcp); break;
	default: return -EINVAL;	/* fail closed on a mode this build does not know */
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_LOG, &prog) == -1)
		return -errno;
	/* After the table, without FLAG_LOG: it answers clone3 silently (seccomp.c). */
	prog = (struct sock_fprog)PROG(ab_bpf_quiet);
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == -1)
		return -errno;
	return 0;
}
