/*
 * pam_try: open and close a PAM session through a service file, print the exact
 * return codes, for the root e2e tests of pam_agentbox.
 *
 *   pam_try CONFDIR SERVICE USER
 *
 * pam_start_confdir(SERVICE, USER, CONFDIR); pam_open_session; with AB_TRY_CMD set, run
 * it with /bin/sh in a child (the session's pid 2, as su would, still root) and print
 * its status; pam_close_session twice (the second shows close is idempotent).
 * Prints "open=NAME [cmd=N] [close=NAME close2=NAME]", exits 0; 2 on a setup error.
 * With AB_TRY_LINGER_MS=N, it stays N ms after that line before it ends the handle and
 * exits, as a login's process may after its close (sshd's, an orchestrator's).
 * libpam reports a stack in which every module returned PAM_IGNORE as PAM_PERM_DENIED.
 * After the close, the session's pid namespace is dead and this process could not fork
 * any more (su and sshd exit there), and /proc shows the session's pid namespace, not
 * ours; LeakSanitizer needs both, so pam_try moves its pid_for_children back to its own
 * pid namespace and unmounts the session's /proc (in the session's mount namespace,
 * which is ours now and dies with us) before exiting.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_appl.h>

static int
no_conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	(void)n; (void)msg; (void)resp; (void)data;
	return PAM_CONV_ERR;
}

static const char *
code_name(int rc)
{
	switch (rc) {
	case PAM_SUCCESS:	return "PAM_SUCCESS";
	case PAM_IGNORE:	return "PAM_IGNORE";
	case PAM_SYSTEM_ERR:	return "PAM_SYSTEM_ERR";
	case PAM_SESSION_ERR:	return "PAM_SESSION_ERR";
	case PAM_PERM_DENIED:	return "PAM_PERM_DENIED";
	case PAM_USER_UNKNOWN:	return "PAM_USER_UNKNOWN";
	case PAM_BUF_ERR:	return "PAM_BUF_ERR";
	default:		return "PAM_OTHER";
	}
}

/* Run AB_TRY_CMD in a child, as su runs the shell; its exit status, -1 if unset. */
static int
run_cmd(void)
{
	const char *cmd = getenv("AB_TRY_CMD");
	int st;
	pid_t pid;

	if (cmd == NULL)
		return -1;
	fflush(stdout);
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) == -1)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void
linger(void)
{
	const char *v = getenv("AB_TRY_LINGER_MS");
	long ms = v != NULL ? strtol(v, NULL, 10) : 0;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	if (ms > 0)
		while (nanosleep(&ts, &ts) == -1)
			;
}

int
main(int argc, char **argv)
{
	struct pam_conv conv = { no_conv, NULL };
	pam_handle_t *pamh = NULL;
	int rc, st, pidns;

	if (argc != 4) {
		fprintf(stderr, "usage: pam_try CONFDIR SERVICE USER\n");
		return 2;
	}
	if ((pidns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC)) == -1) {
		perror("pam_try: open /proc/self/ns/pid");
		return 2;
	}
	rc = pam_start_confdir(argv[2], argv[3], &conv, argv[1], &pamh);
	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam_try: pam_start_confdir: %s\n", pam_strerror(pamh, rc));
		return 2;
	}
	rc = pam_open_session(pamh, 0);
	printf("open=%s", code_name(rc));
	if (rc == PAM_SUCCESS) {
		if ((st = run_cmd()) != -1)
			printf(" cmd=%d", st);
		printf(" close=%s", code_name(pam_close_session(pamh, 0)));
		printf(" close2=%s", code_name(pam_close_session(pamh, 0)));
	}
	printf("\n");
	fflush(stdout);
	linger();
	pam_end(pamh, rc);
	if (setns(pidns, CLONE_NEWPID) == -1)
		perror("pam_try: setns back to our pid namespace");
	close(pidns);
	/* The session's /proc is on top when pid 1 was started: after a session, and after
	 * a refusal past that step (network = proxy's hand-off); ours has /proc/self. */
	if ((rc == PAM_SUCCESS && getenv("AB_TRY_CMD") != NULL) || access("/proc/self", F_OK) != 0)
		(void)umount2("/proc", MNT_DETACH);
	return 0;
}
