/*
 * fail-syscall: run PROG with one syscall failing, for the root tests' fail-closed paths
 * that no real condition reaches alone (agentbox-maskd's reader it cannot watch:
 * tests/e2e/maskd_world.t).
 *
 *   fail-syscall [--arg0-self] NAME ERRNO PROG [ARGS...]
 *
 * NAME is a syscall name as libseccomp knows it (pidfd_open), ERRNO a number; every
 * call of NAME by PROG and its children returns -1 with that errno, every other call
 * runs.  With --arg0-self only the calls whose first argument is PROG's pid (ours: exec
 * keeps it) fail: pidfd_open(PROG) by PROG's children, a child's look at its parent.  The filter needs no_new_privs, which it sets: PROG keeps its uid and
 * capabilities but can gain none by exec, as it never needs to here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <seccomp.h>

int
main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	char *end;
	long err;
	int nr, r, self = 0;

	if (argc > 1 && strcmp(argv[1], "--arg0-self") == 0) {
		self = 1;
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: fail-syscall [--arg0-self] NAME ERRNO PROG [ARGS...]\n");
		return 2;
	}
	if ((nr = seccomp_syscall_resolve_name(argv[1])) == __NR_SCMP_ERROR) {
		fprintf(stderr, "fail-syscall: unknown syscall %s\n", argv[1]);
		return 2;
	}
	errno = 0;
	err = strtol(argv[2], &end, 10);
	if (errno != 0 || *end != '\0' || err <= 0 || err > 4095) {
		fprintf(stderr, "fail-syscall: bad errno %s\n", argv[2]);
		return 2;
	}
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		fprintf(stderr, "fail-syscall: seccomp_init failed\n");
		return 1;
	}
	if ((r = self ? seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)err), nr, 1,
	    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid())) :
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)err), nr, 0)) != 0 ||
	    (r = seccomp_load(ctx)) != 0) {	/* libseccomp sets no_new_privs itself */
		fprintf(stderr, "fail-syscall: %s: %s\n", argv[1], strerror(-r));
		seccomp_release(ctx);
		return 1;
	}
	seccomp_release(ctx);
	execv(argv[3], argv + 3);
	fprintf(stderr, "fail-syscall: exec %s: %s\n", argv[3], strerror(errno));
	return 127;
}
