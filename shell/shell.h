/*
 * agentbox-shell internals: one file per mechanism, each returning 0 or -errno and never
 * printing or exiting (main.c is the only place that talks to the user).  The functions
 * take the session plan written by pam_agentbox.so and read back by plan_check.c.
 *
 * Files are opened with openat(AT_FDCWD, ...), never open(): musl's open() follows an
 * O_CLOEXEC open with an fcntl(F_SETFD) for kernels older than 2.6.23, one syscall more
 * per open (~40 in a login's setup); its openat() passes the flag alone.
 */
#ifndef AB_SHELL_H
#define AB_SHELL_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* PROC_USER_INIT_INO from include/linux/proc_ns.h: the initial user namespace. */
#define AB_INIT_USER_NS_INO	0xEFFFFFFDU

/* The PATH every session starts with; the login shell's profile may extend it. */
#define AB_FIXED_PATH	"/usr/local/bin:/usr/bin:/bin"

/* The largest plan we read: plans are a few KiB; anything bigger is not ours. */
#define AB_PLAN_MAX	(1024 * 1024)

/* plan_check.c */

/*
 * Open PATH (O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC), require a regular file owned by root,
 * writable by nobody but root, on a read-only mount, at most AB_PLAN_MAX bytes; parse
 * it strictly into *out.  On failure *why names the check that failed (static string).
 */
int	ab_plan_read(const char *path, struct ab_plan **out, const char **why);

/*
 * Does PLAN describe the world this process runs in?  Its uid is our real and effective
 * uid, our user namespace is the initial one, and the mnt/pid/net/ipc/uts namespaces
 * are the ones the PAM module recorded.  0 on match, -EPERM with *why otherwise, or
 * another -errno when /proc cannot be read.
 */
int	ab_plan_matches_world(const struct ab_plan *plan, const char **why);

/*
 * 1 when this process already runs with no_new_privs and a seccomp filter (a login
 * started inside the box: tmux pane, nested shell), 0 when not, -errno on error.
 */
int	ab_already_confined(void);

/* fds.c */

/* Close every fd above 2 and make sure 0, 1 and 2 are open (on /dev/null if not). */
int	ab_fds_reset(void);

/* env.c */

/*
 * Build the session environment from the allow-list, PLAN and the current ENVIRON.
 * NESTED keeps the terminal-multiplexer variables a pane inside the box relies on.
 * *out is a malloc'd NULL-terminated vector of malloc'd "NAME=value" strings.
 */
int	ab_env_build(const struct ab_plan *plan, char *const *environ_in, int nested,
	    char ***out);
void	ab_env_free(char **env);

/* landlock.c */

struct ab_landlock_result {
	int	abi;		/* ABI the kernel offers */
	int	rules;		/* path and port rules added */
	int	skipped;	/* paths that do not exist in this world */
	uint64_t handled_fs, handled_net, scoped;
	uint32_t restrict_flags;
};

/*
 * Landlock the calling thread (and everything it execs) from PLAN, best effort up the
 * ABI ladder.  -EOPNOTSUPP when the kernel's ABI is below the policy's
 * landlock_min_abi (or Landlock is off); -errno on any other failure.  Requires
 * no_new_privs already set.  *res (may be NULL) says what was enforced.
 */
int	ab_landlock_apply(const struct ab_plan *plan, struct ab_landlock_result *res);

/* The Landlock ABI of the running kernel, or -errno (ENOSYS, EOPNOTSUPP). */
int	ab_landlock_abi(void);

/* seccomp_load.c */

/*
 * Load the agentbox seccomp filter for PLAN's network mode (precompiled from the table
 * in seccomp.c at build time), with SECCOMP_FILTER_FLAG_LOG so every denial is audited,
 * then the quiet filter (clone3 -> ENOSYS, unlogged: glibc's fallback probe).
 * Default allow; non-native architectures kill the process.  Needs no_new_privs.
 * 0 or -errno.
 */
int	ab_seccomp_apply(const struct ab_plan *plan);

/* seccomp.c (build time and tests only: needs libseccomp) */

/*
 * Write the filter for network mode NET to FD: raw BPF (BPF nonzero, what
 * seccomp_gen.c compiles in) or libseccomp's PFC text (for tests and review).
 */
int	ab_seccomp_export(enum ab_network net, int bpf, int fd);

/*
 * Write the quiet filter to FD (same formats): clone3 -> ENOSYS without a record, loaded
 * after the table so that glibc's clone3 probe in every threaded program is not logged.
 */
int	ab_seccomp_export_quiet(int bpf, int fd);

/* exec.c */

/*
 * chdir to the first project (else home, else /) and execve the plan's shell with
 * ARGV's arguments: "-NAME" as argv[0] for a login shell (ARGV[0] starts with '-'),
 * everything after ARGV[0] passed unchanged (-c COMMAND from sshd, su and sudo).
 * Returns -errno only on failure.
 */
int	ab_exec_shell(const struct ab_plan *plan, int argc, char **argv, char **envp);

#endif /* AB_SHELL_H */
