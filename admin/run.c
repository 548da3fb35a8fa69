/*
 * agentbox run [-u USER] [-C DIR] [--ephemeral] [--json] -- CMD [ARG...]
 *
 * One command in a new confined session of USER, opened through the real PAM session
 * stack (service agentbox-run, /etc/pam.d/agentbox-run, written by enroll), so the box
 * is the one every login gets: pam_agentbox builds the world in this process, as it
 * does in su's or sshd's, and the command runs under USER's login shell
 * (agentbox-shell -c), which applies Landlock and seccomp before anything of CMD runs.
 * The service's module argument `run` gives the session a box of its own, never a
 * `persist = yes` one, and is the only way --ephemeral reaches the module.
 *
 * This process stays root, outside the session's pid namespace, as su does: it waits
 * for CMD, ends the session (pam_close_session kills its pid 1, and the kernel every
 * process of it) when CMD exits or when it gets SIGINT, SIGTERM, SIGHUP or SIGQUIT
 * (Ctrl-C ends the whole session, not only the foreground command), goes back to the
 * host's namespaces and prints the summary (runsum.c).  Its exit status is CMD's
 * (128 + N for a signal N, 128 + N too when we ended it for signal N).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "admin.h"
#include "cmd.h"

#define RUN_EPHEMERAL		"AGENTBOX_RUN_EPHEMERAL"	/* pam_agentbox.c */
#define EPHEMERAL_CHANGED	"AGENTBOX_EPHEMERAL_CHANGED"

struct run_opts {
	const char	*user;
	const char	*dir;
	int		 ephemeral;
	int		 json;
	char		**cmd;
	int		 ncmd;
};

/* Namespaces pam_agentbox moves this process into, and the host's, to come back to
 * (the summary is read outside the session's world; pid: a fork after the session's
 * pid 1 is gone would fail). */
static const char *const ns_names[] = { "mnt", "net", "pid", "ipc", "uts" };
#define NS_N (sizeof(ns_names) / sizeof(ns_names[0]))

static void
usage(void)
{
	fprintf(stderr, "usage: agentbox run [-u USER] [-C DIR] [--ephemeral] [--json] -- "
	    "CMD [ARG...]\n");
	exit(2);
}

static void
parse(int argc, char **argv, struct run_opts *o)
{
	static const struct option opts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "dir", required_argument, NULL, 'C' },
		{ "ephemeral", no_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	/* '+': stop at the first operand, so CMD's own options are never ours. */
	while ((c = getopt_long(argc, argv, "+u:C:h", opts, NULL)) != -1) {
		switch (c) {
		case 'u': o->user = optarg; break;
		case 'C': o->dir = optarg; break;
		case 'e': o->ephemeral = 1; break;
		case 'j': o->json = 1; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	o->cmd = argv + optind;
	o->ncmd = argc - optind;
}

/* -u USER, or the only enrolled user. */
static const char *
pick_user(const char *user)
{
	struct ab_strv users = { 0 };
	const char *one;
	size_t i;
	int r;

	if (user != NULL)
		return user;
	if ((r = adm_enrolled_users(&users)) != 0)
		die_errno(-r, "list the enrolled users");
	if (users.n != 1) {
		if (users.n == 0)
			die("no user is enrolled: agentbox enroll USER --project DIR first");
		fprintf(stderr, "agentbox: %zu users are enrolled; name one with -u:", users.n);
		for (i = 0; i < users.n; i++)
			fprintf(stderr, " %s", users.v[i]);
		fputc('\n', stderr);
		exit(2);
	}
	if ((one = strdup(users.v[0])) == NULL)
		die("out of memory");
	ab_strv_free(&users);
	return one;
}

/* USER's compiled policy: the same load the module does, so "enrolled" means the same. */
static struct ab_policy *
load_policy(const char *user)
{
	struct ab_diag diag = { NULL, 0 };
	struct ab_policy *pol = NULL;
	int r;

	r = ab_policy_load(NULL, user, &pol, &diag);
	if (r == -ENOENT)
		die("%s is not enrolled (no [user:%s] section in the policy): refusing to run",
		    user, user);
	if (r != 0) {
		fprintf(stderr, "agentbox: the policy of %s does not load (%s)%s%s\n", user,
		    strerror(-r), diag.n > 0 ? ": " : "", diag.n > 0 ? diag.msg[0] : "");
		hint("agentbox check");
		exit(1);
	}
	ab_diag_free(&diag);
	return pol;
}

/* Is PATH DIR or below it (both canonical)? */
static int
within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1)	/* "/" */
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/*
 * -C DIR (canonical), which must be one of USER's projects or inside one; without -C,
 * the current directory if it is, else the first project.  Where the command starts is
 * a convenience, not a boundary (the session's Landlock rules are), so resolving it
 * here as root and entering it again by name later is enough.
 */
static char *
pick_dir(const char *dir, const char *user, const struct ab_policy *pol)
{
	char *want, *proj;
	size_t i;

	want = realpath(dir != NULL ? dir : ".", NULL);
	if (want == NULL && dir != NULL)
		die_errno(errno, "-C %s", dir);
	for (i = 0; want != NULL && i < pol->project.n; i++) {
		if ((proj = realpath(pol->project.v[i], NULL)) == NULL)
			continue;
		if (within(want, proj)) {
			free(proj);
			return want;
		}
		free(proj);
	}
	if (dir == NULL && pol->project.n > 0) {
		free(want);
		if ((want = strdup(pol->project.v[0])) == NULL)
			die("out of memory");
		return want;
	}
	fprintf(stderr, "agentbox: %s is not one of %s's projects:", dir, user);
	for (i = 0; i < pol->project.n; i++)
		fprintf(stderr, " %s", pol->project.v[i]);
	fputc('\n', stderr);
	hint("agentbox run -u %s -C PROJECT ..., or agentbox enroll %s --project %s first",
	    user, user, dir);
	exit(1);
}

/* CMD [ARG...] as one string for `SHELL -c`: each word single-quoted, as given. */
static char *
shell_words(char **cmd, int n)
{
	size_t len = 1;
	const char *p;
	char *s, *o;
	int k;

	for (k = 0; k < n; k++)
		for (len += 3, p = cmd[k]; *p != '\0'; p++)
			len += *p == '\'' ? 4 : 1;
	if ((s = malloc(len)) == NULL)
		die("out of memory");
	for (o = s, k = 0; k < n; k++) {
		if (k > 0)
			*o++ = ' ';
		*o++ = '\'';
		for (p = cmd[k]; *p != '\0'; p++) {
			if (*p == '\'') {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else
				*o++ = *p;
		}
		*o++ = '\'';
	}
	*o = '\0';
	return s;
}

/* The command never asks anything: a conversation would mean a module wants a secret. */
static int
no_conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	(void)n;
	(void)msg;
	(void)resp;
	(void)data;
	return PAM_CONV_ERR;
}

/* The environment the login shell starts from (agentbox-shell narrows it again). */
static char **
child_env(pam_handle_t *pamh, const struct passwd *pw)
{
	static char *env[16];
	char **pe = pam_getenvlist(pamh);
	const char *term = getenv("TERM");
	size_t n = 0, i;

	if (asprintf(&env[n++], "HOME=%s", pw->pw_dir) == -1 ||
	    asprintf(&env[n++], "SHELL=%s", pw->pw_shell) == -1 ||
	    asprintf(&env[n++], "USER=%s", pw->pw_name) == -1 ||
	    asprintf(&env[n++], "LOGNAME=%s", pw->pw_name) == -1 ||
	    asprintf(&env[n++], "PATH=/usr/local/bin:/usr/bin:/bin") == -1 ||
	    (term != NULL && asprintf(&env[n++], "TERM=%s", term) == -1))
		_exit(127);
	/* The PAM environment (pam_limits, pam_unix set none; kept for their successors),
	 * without our request to the module. */
	for (i = 0; pe != NULL && pe[i] != NULL && n < 15; i++)
		if (strncmp(pe[i], RUN_EPHEMERAL "=", sizeof(RUN_EPHEMERAL)) != 0)
			env[n++] = pe[i];
	env[n] = NULL;
	return env;
}

/* The child, pid 2 of the session: become USER for good, then its login shell -c CMD. */
static void __attribute__((noreturn))
exec_command(pam_handle_t *pamh, const struct passwd *pw, const char *words)
{
	char *argv[] = { "agentbox-shell", "-c", (char *)words, NULL };
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	sigset_t none;

	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) == -1 ||
	    initgroups(pw->pw_name, pw->pw_gid) == -1 || setgid(pw->pw_gid) == -1 ||
	    setuid(pw->pw_uid) == -1) {
		fprintf(stderr, "agentbox: become %s: %s\n", pw->pw_name, strerror(errno));
		_exit(126);
	}
	/* Prove the drop: setuid as root sets the real, effective and saved ids.  Read
	 * back, not tried as OpenSSH does: a failed setuid(0) would be an EPERM the uid's
	 * audit rules put on the session's record as a denial of the agent's. */
	if (getresuid(&ru, &eu, &su) == -1 || getresgid(&rg, &eg, &sg) == -1 ||
	    ru != pw->pw_uid || eu != pw->pw_uid || su != pw->pw_uid ||
	    rg != pw->pw_gid || eg != pw->pw_gid || sg != pw->pw_gid) {
		fprintf(stderr, "agentbox: %s's ids did not all take\n", pw->pw_name);
		_exit(126);
	}
	execve(pw->pw_shell, argv, child_env(pamh, pw));
	fprintf(stderr, "agentbox: exec %s: %s\n", pw->pw_shell, strerror(errno));
	_exit(127);
}

/*
 * Wait for CMD (child PID) or for a signal that ends the session.  Returns the wait
 * status of the child when it exited, else -SIGNO.
 */
static int
wait_command(int sfd, pid_t pid)
{
	struct signalfd_siginfo si;
	int status;
	ssize_t n;

	for (;;) {
		n = read(sfd, &si, sizeof(si));
		if (n == -1 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(si))
			die_errno(n == -1 ? errno : EIO, "read the signal fd");
		if (si.ssi_signo != SIGCHLD)
			return -(int)si.ssi_signo;
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
	}
}

static void
save_ns(int fds[NS_N])
{
	char path[64];
	size_t i;

	for (i = 0; i < NS_N; i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_names[i]);
		if ((fds[i] = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			die_errno(errno, "open %s", path);
	}
}

static void
restore_ns(int fds[NS_N])
{
	size_t i;

	for (i = 0; i < NS_N; i++) {
		if (setns(fds[i], 0) == -1)
			die_errno(errno, "return to the host's %s namespace", ns_names[i]);
		close(fds[i]);
	}
	if (chdir("/") == -1)
		die_errno(errno, "chdir /");
}

/* Our audit session id, read through the host's /proc (ours is the session's now). */
static uint32_t
session_id(int procfd)
{
	char buf[32];
	ssize_t n;
	int fd;

	if ((fd = openat(procfd, "self/sessionid", O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (uint32_t)strtoul(buf, NULL, 10);
}

/* The PAM calls that open the session; on failure, why (the module said it in the
 * auth log and in a refusal record, which the caller shows). */
static int
open_session(pam_handle_t *pamh, const struct run_opts *o, const char **what)
{
	const char *tty = isatty(STDIN_FILENO) ? ttyname(STDIN_FILENO) : NULL;
	int r;

	*what = "set PAM items";
	if ((r = pam_set_item(pamh, PAM_RUSER, "root")) != PAM_SUCCESS ||
	    (tty != NULL && (r = pam_set_item(pamh, PAM_TTY, tty)) != PAM_SUCCESS) ||
	    (o->ephemeral && (r = pam_putenv(pamh, RUN_EPHEMERAL "=1")) != PAM_SUCCESS))
		return r;
	*what = "account check";
	if ((r = pam_acct_mgmt(pamh, PAM_SILENT)) != PAM_SUCCESS)
		return r;
	*what = "credentials";
	if ((r = pam_setcred(pamh, PAM_ESTABLISH_CRED | PAM_SILENT)) != PAM_SUCCESS)
		return r;
	*what = "session";
	return pam_open_session(pamh, PAM_SILENT);
}

static void
parse_changed(const char *v, struct adm_run_result *res)
{
	if (v == NULL)
		return;
	if (sscanf(v, "%lu %lu %lu %d", &res->created, &res->modified, &res->deleted,
	    &res->eph_partial) == 4)
		res->have_eph = 1;
}

int
cmd_run(int argc, char **argv)
{
	static const struct pam_conv conv = { no_conv, NULL };
	struct adm_run_result res;
	struct ab_policy *pol;
	struct run_opts o;
	struct passwd *pw;
	pam_handle_t *pamh = NULL;
	char *dir, *words, self[PATH_MAX], audit_bin[PATH_MAX + 32];
	const char *user, *what;
	int nsfd[NS_N], procfd, sfd, r, status, sig;
	struct timespec t0, t1;
	sigset_t set;
	ssize_t n;
	pid_t pid;

	parse(argc, argv, &o);
	/* 1. Root only: the session is opened as su opens one. */
	if (geteuid() != 0)
		die("run must be run as root (sudo agentbox run ...)");
	/* 2. Who and where: an enrolled user, one of its projects, its login shell. */
	user = pick_user(o.user);
	pol = load_policy(user);
	if ((pw = getpwnam(user)) == NULL)
		die("%s is enrolled in the policy but has no account", user);
	if (pw->pw_uid == 0)
		die("%s is root: root cannot be confined", user);
	dir = pick_dir(o.dir, user, pol);
	ab_policy_free(pol);
	if (access(AB_PAM_RUN_SERVICE, F_OK) != 0) {
		fprintf(stderr, "agentbox: %s is missing: the session cannot be opened\n",
		    AB_PAM_RUN_SERVICE);
		hint("agentbox enroll %s ... again writes it", user);
		return 1;
	}
	words = shell_words(o.cmd, o.ncmd);
	/* agentbox-audit next to us (build tree or SBINDIR), for the summary. */
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		die_errno(errno, "readlink /proc/self/exe");
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(audit_bin, sizeof(audit_bin), "%s/agentbox-audit", self);

	/* 3. Signals: ours to act on from here, through a signal fd. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGCHLD);
	/* Blocked signals are queued even when the caller left them ignored (a job started
	 * with & in a script ignores SIGINT): the default disposition for the child. */
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&set, sig) == 1)
			signal(sig, SIG_DFL);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1 ||
	    (sfd = signalfd(-1, &set, SFD_CLOEXEC)) == -1)
		die_errno(errno, "signalfd");

	/* 4. The host's namespaces and /proc, to come back to and to read our ses. */
	save_ns(nsfd);
	if ((procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		die_errno(errno, "open /proc");
	/* pam_agentbox enters our cwd again, by name, in the session's world. */
	if (chdir(dir) == -1)
		die_errno(errno, "chdir %s", dir);

	/* 5. The session, through the agentbox-run stack. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(&res, 0, sizeof(res));
	res.user = user;
	res.started = time(NULL);
	if ((r = pam_start(AB_PAM_RUN_NAME, user, &conv, &pamh)) != PAM_SUCCESS)
		die("pam_start(%s): %s", AB_PAM_RUN_NAME, pam_strerror(NULL, r));
	if ((r = open_session(pamh, &o, &what)) != PAM_SUCCESS) {
		fprintf(stderr, "agentbox: %s of %s refused (%s): %s\n", what, user,
		    pam_strerror(pamh, r), "the command did not run");
		pam_end(pamh, r);
		restore_ns(nsfd);
		adm_run_refusal(audit_bin, &res);
		return 1;
	}
	res.ses = session_id(procfd);

	/* 6. CMD as USER, pid 2 of the session's pid namespace. */
	fflush(NULL);
	if ((pid = fork()) == -1)
		die_errno(errno, "fork");
	if (pid == 0)
		exec_command(pamh, pw, words);
	status = wait_command(sfd, pid);

	/* 7. End the session: every process of it dies with its pid 1. */
	if ((r = pam_close_session(pamh, PAM_SILENT)) != PAM_SUCCESS)
		fprintf(stderr, "agentbox: closing the session of %s: %s\n", user,
		    pam_strerror(pamh, r));
	if (status < 0) {
		res.interrupted = -status;
		(void)waitpid(pid, NULL, 0);
		res.exit_code = 128 - status;
	} else if (WIFEXITED(status)) {
		res.exit_code = WEXITSTATUS(status);
	} else {
		res.signal = WTERMSIG(status);
		res.exit_code = 128 + res.signal;
	}
	parse_changed(pam_getenv(pamh, EPHEMERAL_CHANGED), &res);
	res.ephemeral = o.ephemeral;
	(void)pam_setcred(pamh, PAM_DELETE_CRED | PAM_SILENT);
	pam_end(pamh, r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res.secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	/* 8. Back on the host: what the session tried and was denied. */
	restore_ns(nsfd);
	close(procfd);
	adm_run_summary(audit_bin, &res, o.json);
	free(words);
	free(dir);
	return res.exit_code;
}
