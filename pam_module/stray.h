/*
 * stray.c: processes of an agent's uid that run outside every agentbox box.  Such a
 * process has no masks, no Landlock and no seccomp, and can hand a session fds of the
 * host's tree over a Unix socket (tests/escape/FINDINGS.md F7): the PAM gate refuses
 * a login while one exists, enroll ends them, doctor names them.  Shared by
 * pam_agentbox.so and agentbox(8) as one object; it never logs and never exits.
 */
#ifndef AB_STRAY_H
#define AB_STRAY_H

#include <stddef.h>
#include <sys/types.h>

struct ab_stray {
	pid_t	pid;
	char	comm[17];	/* /proc/PID/comm, newline stripped; "?" if unreadable */
};

/*
 * Scan PROCFD (the host's /proc, any open mode; our own pid namespace must be the
 * host's) for processes whose effective uid is UID and that are not inside a box;
 * fill OUT with up to MAX of them and stop there.  Returns how many were filled, or
 * -errno when the scan itself failed (the caller must then fail closed).
 */
int	ab_stray_find(int procfd, uid_t uid, struct ab_stray *out, size_t max);

#endif /* AB_STRAY_H */
