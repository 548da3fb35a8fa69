/*
 * pam_agentbox: the privileged half of agentbox.  A PAM session module that builds the
 * world every enrolled user's session lives in, inside the process of su, sshd, sudo,
 * runuser or login, before any code of the agent runs.  See DESIGN.md for the shape.
 *
 *   session required pam_agentbox.so [debug] [root=DIR] [init=PATH]
 *
 * root= and init= exist for the tests only (policy root, reaper binary); nothing is
 * ever taken from the environment, which the caller of su and sudo controls.
 *
 * Return codes: PAM_IGNORE for users the policy does not enroll (the module can sit in
 * shared stacks); PAM_SUCCESS for a confined session; PAM_SYSTEM_ERR, with one auth log
 * line saying why, for everything else: never PAM_SESSION_ERR, which sudo ignores.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <libaudit.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "config.h"
#include "module.h"

#define DATA_NAME	"agentbox-session"
#define SHELL_NAME	"agentbox-shell"

struct args {
	const char	*root;		/* policy root (tests); NULL: "/" */
	const char	*init;		/* agentbox-init (tests); default AB_INIT_PATH */
	int		 debug;
};

/* What close_session needs, kept as PAM data for the life of the handle. */
struct live {
	int		 init_pidfd;	/* -1 once the session is closed */
	pid_t		 init_pid;
	int		 audit_fd;
	uint32_t	 ses;
	uid_t		 uid;
	char		*user;
	char		*service;
};

/* Log why and refuse the session.  Call right after the failing call so %m is right. */
static int __attribute__((format(printf, 2, 3)))
refuse(pam_handle_t *pamh, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pam_vsyslog(pamh, LOG_ERR, fmt, ap);
	va_end(ap);
	return PAM_SYSTEM_ERR;	/* not PAM_SESSION_ERR: sudo ignores that one */
}

static int
parse_args(pam_handle_t *pamh, int argc, const char **argv, struct args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->init = AB_INIT_PATH;
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "debug") == 0)
			a->debug = 1;
		else if (strncmp(argv[i], "root=", 5) == 0 && argv[i][5] == '/')
			a->root = argv[i] + 5;
		else if (strncmp(argv[i], "init=", 5) == 0 && argv[i][5] == '/')
			a->init = argv[i] + 5;
		else
			return refuse(pamh, "unknown or invalid module argument \"%s\"", argv[i]);
	}
	return PAM_SUCCESS;
}

static const char *
item_str(pam_handle_t *pamh, int type)
{
	const void *v = NULL;

	if (pam_get_item(pamh, type, &v) != PAM_SUCCESS || v == NULL)
		return "";
	return v;
}

/* One auth log line, one audit record, PAM_SYSTEM_ERR. */
static int
refuse_session(pam_handle_t *pamh, const char *user, const char *why, int audit_fd)
{
	int fd = audit_fd;

	pam_syslog(pamh, LOG_ERR, "refusing session of %s: %s", user, why);
	if (fd < 0)
		fd = ab_auditrec_open();
	if (fd >= 0 && ab_auditrec_refused(fd, user, item_str(pamh, PAM_SERVICE), why) != 0)
		pam_syslog(pamh, LOG_ERR, "could not write the refusal audit record");
	if (fd >= 0 && fd != audit_fd)
		audit_close(fd);
	return PAM_SYSTEM_ERR;
}

static void
live_cleanup(pam_handle_t *pamh, void *data, int err)
{
	struct live *l = data;

	(void)pamh;
	(void)err;
	/* Never kills: pam_end also runs in children su and sshd fork (PAM_DATA_SILENT).
	 * A caller that never closes the session still ends it: PDEATHSIG kills pid 1. */
	if (l->init_pidfd != -1)
		close(l->init_pidfd);
	if (l->audit_fd >= 0)
		audit_close(l->audit_fd);
	free(l->user);
	free(l->service);
	free(l);
}

/*
 * A fresh audit session: su and sudo keep the caller's loginuid and ses otherwise, and
 * the session's records could not be told from its caller's.  Writing loginuid makes
 * the kernel assign a new ses (and log LOGIN with old-auid/old-ses).  If loginuid is
 * immutable (auditctl --loginuid-immutable) the write is EPERM: keep the inherited ses
 * and say so in the start record (new_ses=no).
 */
static int
fresh_audit_session(struct ab_sess *s)
{
	char buf[32];
	ssize_t n;
	int fd, len;

	if ((fd = openat(s->procfd, "self/loginuid", O_WRONLY | O_CLOEXEC)) == -1)
		return ab_sess_fail(s, -errno, "open /proc/self/loginuid: %s", strerror(errno));
	len = snprintf(buf, sizeof(buf), "%u", (unsigned)s->uid);
	n = write(fd, buf, (size_t)len);
	close(fd);
	if (n == len)
		s->ses_fresh = 1;
	else if (n == -1 && errno == EPERM)
		s->ses_fresh = 0;
	else
		return ab_sess_fail(s, -EIO, "write /proc/self/loginuid: %s",
		    n == -1 ? strerror(errno) : "short write");
	if ((fd = openat(s->procfd, "self/sessionid", O_RDONLY | O_CLOEXEC)) == -1)
		return ab_sess_fail(s, -errno, "open /proc/self/sessionid: %s", strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return ab_sess_fail(s, -EIO, "read /proc/self/sessionid: %s",
		    n == 0 ? "empty" : strerror(errno));
	buf[n] = '\0';
	s->ses = (uint32_t)strtoul(buf, NULL, 10);
	return 0;
}

/*
 * The caller's cwd still points into the host's trees (a `su agent` run from /tmp would
 * hand the shell the host's /tmp, under our mount).  Re-resolve it by name in the new
 * world; if it is gone there, "/".
 */
static void
reenter_cwd(const char *cwd)
{
	if (cwd[0] != '/' || chdir(cwd) == -1)
		(void)!chdir("/");
}

static long
elapsed_us(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000000L + (t1.tv_nsec - t0->tv_nsec) / 1000;
}

/* Steps 3..7 of DESIGN.md, in order.  Returns 0 or -errno with s->why set. */
static int
confine(struct ab_sess *s, const char *cwd, int audit_fd)
{
	int r, flags = CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWPID;
	struct timespec t0;

	/* Root, still in the caller's namespaces. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((r = fresh_audit_session(s)) != 0)
		return r;
	s->step_us[0] = elapsed_us(&t0);
	/* Before the mount namespace: the shared `none` namespace is pinned on the host. */
	if ((r = ab_netns_enter(s)) != 0)
		return r;
	s->step_us[1] = elapsed_us(&t0);
	if (unshare(flags) == -1)
		return ab_sess_fail(s, -errno, "unshare(mnt,ipc,uts,pid): %s", strerror(errno));
	/* From here on, mounts stay in the session; host mounts still propagate in. */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) == -1)
		return ab_sess_fail(s, -errno, "make / a slave tree: %s", strerror(errno));
	s->step_us[2] = elapsed_us(&t0);
	if ((r = ab_world_build(s)) != 0)
		return r;
	s->step_us[3] = elapsed_us(&t0);
	if ((r = ab_mask_apply(s)) != 0)
		return r;
	s->step_us[4] = elapsed_us(&t0);
	reenter_cwd(cwd);
	if ((r = ab_reaper_start(s)) != 0)
		return r;
	s->step_us[5] = elapsed_us(&t0);
	if ((r = ab_planfile_write(s)) != 0 || (r = ab_world_seal(s)) != 0)
		goto kill;
	s->step_us[6] = elapsed_us(&t0);
	/* The answer to the question ab_auditrec_open asked before we started. */
	if (audit_fd >= 0 && ab_auditrec_enabled(audit_fd) == 0 &&
	    s->pol->audit == AB_AUDIT_REQUIRED) {
		r = ab_sess_fail(s, -EPERM, "audit is required and disabled in the kernel");
		goto kill;
	}
	if (audit_fd >= 0 && ab_auditrec_start(audit_fd, s, item_str(s->pamh, PAM_SERVICE),
	    item_str(s->pamh, PAM_TTY), item_str(s->pamh, PAM_RHOST)) != 0 &&
	    s->pol->audit == AB_AUDIT_REQUIRED) {
		r = ab_sess_fail(s, -EIO, "audit is required and the start record could not be "
		    "written");
		goto kill;
	}
	s->step_us[7] = elapsed_us(&t0);
	return 0;
kill:
	ab_reaper_stop(s->init_pidfd, s->init_pid);
	return r;
}

static int
keep_live(pam_handle_t *pamh, struct ab_sess *s, int audit_fd)
{
	struct live *l = calloc(1, sizeof(*l));

	if (l == NULL || (l->user = strdup(s->user)) == NULL ||
	    (l->service = strdup(item_str(pamh, PAM_SERVICE))) == NULL) {
		if (l != NULL)
			free(l->user);
		free(l);
		return -ENOMEM;
	}
	l->init_pidfd = s->init_pidfd;
	l->init_pid = s->init_pid;
	l->audit_fd = audit_fd;
	l->ses = s->ses;
	l->uid = s->uid;
	if (pam_set_data(pamh, DATA_NAME, l, live_cleanup) != PAM_SUCCESS) {
		free(l->user);
		free(l->service);
		free(l);
		return -ENOMEM;
	}
	return 0;
}

/* An enrolled user with a compiled policy: build the world or refuse. */
static int
open_enrolled(pam_handle_t *pamh, const struct args *a, const char *user,
    const struct passwd *pw, struct ab_policy *pol, const struct timespec *t_load)
{
	char cwd[PATH_MAX];
	struct timespec t0;
	struct ab_sess s;
	long load_us;
	int audit_fd, r;

	load_us = elapsed_us(t_load);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(&s, 0, sizeof(s));
	s.pamh = pamh;
	s.pol = pol;
	s.user = user;
	s.init_path = a->init;
	s.debug = a->debug;
	s.procfd = s.runfd = s.mask_file = s.mask_dir = s.init_pidfd = s.init_fd = -1;
	if (pw == NULL)
		return refuse_session(pamh, user, "enrolled but not in the passwd database", -1);
	if (pw->pw_uid == 0)
		return refuse_session(pamh, user, "root cannot be confined", -1);
	s.uid = pw->pw_uid;
	s.gid = pw->pw_gid;
	s.home = pw->pw_dir;
	/* Opened in the host's network namespace, before we may leave it. */
	audit_fd = ab_auditrec_open();
	if (audit_fd < 0 && pol->audit == AB_AUDIT_REQUIRED)
		return refuse_session(pamh, user, "audit is required and unavailable", -1);
	/* The host's /proc: ours (mounted by pid 1) would not show this process. */
	if ((s.procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		r = ab_sess_fail(&s, -errno, "open /proc: %s", strerror(errno));
	/* Landlock and seccomp come from the login shell: refuse an entry that skips it. */
	else if ((r = ab_entry_verify(&s, item_str(pamh, PAM_SERVICE), pw->pw_shell)) != 0)
		;
	else if ((r = ab_reaper_open(&s)) == 0) {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			strcpy(cwd, "/");
		r = confine(&s, cwd, audit_fd);
	}
	if (r == 0 && (r = keep_live(pamh, &s, audit_fd)) != 0) {
		ab_sess_fail(&s, r, "out of memory");
		ab_reaper_stop(s.init_pidfd, s.init_pid);
	}
	if (s.procfd != -1)
		close(s.procfd);
	if (s.runfd != -1)
		close(s.runfd);
	if (s.mask_file != -1)
		close(s.mask_file);
	if (s.mask_dir != -1)
		close(s.mask_dir);
	if (s.init_fd != -1)
		close(s.init_fd);
	if (r != 0) {
		if (s.init_pidfd != -1)
			close(s.init_pidfd);
		r = refuse_session(pamh, user, s.why[0] ? s.why : strerror(-r), audit_fd);
		if (audit_fd >= 0)
			audit_close(audit_fd);
		return r;
	}
	if (a->debug)
		pam_syslog(pamh, LOG_DEBUG, "confined session of %s: ses %u, pid 1 %d, %u masks, "
		    "%u protects, %u entries walked, policy load %ld us, then %ld us (cumulative: "
		    "loginuid %ld, netns %ld, unshare %ld, world %ld, masks %ld, pid 1 %ld, plan %ld, "
		    "record %ld)", user, s.ses, (int)s.init_pid, s.masks, s.protects, s.walked,
		    load_us, elapsed_us(&t0), s.step_us[0],
		    s.step_us[1], s.step_us[2], s.step_us[3], s.step_us[4], s.step_us[5],
		    s.step_us[6], s.step_us[7]);
	return PAM_SUCCESS;
}

/* Is PW's login shell agentbox-shell (the mark agentbox enroll leaves)? */
static int
is_agentbox_shell(const struct passwd *pw)
{
	const char *base;

	if (pw == NULL || pw->pw_shell == NULL)
		return 0;
	base = strrchr(pw->pw_shell, '/');
	return strcmp(base ? base + 1 : pw->pw_shell, SHELL_NAME) == 0;
}

static int
open_session(pam_handle_t *pamh, int argc, const char **argv)
{
	const struct passwd *pw;
	struct ab_diag diag = { NULL, 0 };
	struct ab_policy *pol = NULL;
	const void *live = NULL;
	const char *user = NULL;
	char why[600];
	struct timespec t_load;
	struct args a;
	int r;

	/* 1. Arguments: only what the service file says, never the environment. */
	if ((r = parse_args(pamh, argc, argv, &a)) != PAM_SUCCESS)
		return r;
	if (pam_get_data(pamh, DATA_NAME, &live) == PAM_SUCCESS && live != NULL)
		return PAM_SUCCESS;	/* this process is confined already */
	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL || *user == '\0')
		return refuse(pamh, "no user to open a session for");
	pw = pam_modutil_getpwnam(pamh, user);

	/* 2. Gate: enrolled means a [user:NAME] section in the policy. */
	clock_gettime(CLOCK_MONOTONIC, &t_load);
	r = ab_policy_load(a.root, user, &pol, &diag);
	if (r == -ENOENT) {
		ab_diag_free(&diag);
		/* The login shell only works in a box: a user set up for one but without
		 * a policy section is a half-enrolled user, not an ordinary one. */
		if (is_agentbox_shell(pw))
			return refuse_session(pamh, user, "login shell is " SHELL_NAME " but the "
			    "policy has no [user:NAME] section for this user", -1);
		return PAM_IGNORE;
	}
	if (r != 0) {
		snprintf(why, sizeof(why), "policy unusable (%s)%s%s", strerror(-r),
		    diag.n > 0 ? ": " : "", diag.n > 0 ? diag.msg[0] : "");
		ab_diag_free(&diag);
		/* Root can always log in to repair it. */
		if (pw != NULL && pw->pw_uid == 0) {
			pam_syslog(pamh, LOG_WARNING, "%s; root's session not confined", why);
			return PAM_IGNORE;
		}
		/* Whom does the broken policy enroll?  A user named in any section header
		 * (scanned line by line, leniently), or whose login shell is agentbox-shell
		 * (enroll sets it), is refused; so is everyone when the files cannot be read
		 * safely.  Anyone else could never get a confined session anyway (entry.c
		 * refuses a login shell other than agentbox-shell), so refusing them would
		 * only lock every user out of the host over one agent's policy. */
		if (is_agentbox_shell(pw) || ab_policy_mentions_user(a.root, user) != 0)
			return refuse_session(pamh, user, why, -1);
		pam_syslog(pamh, LOG_WARNING, "%s; %s is not enrolled in it: session not confined",
		    why, user);
		return PAM_IGNORE;
	}
	ab_diag_free(&diag);
	r = open_enrolled(pamh, &a, user, pw, pol, &t_load);
	ab_policy_free(pol);
	return r;
}

static int
close_session(pam_handle_t *pamh, int argc, const char **argv)
{
	struct live *l = NULL;
	struct timespec t0;
	struct args a;
	int r;

	if ((r = parse_args(pamh, argc, argv, &a)) != PAM_SUCCESS)
		return r;
	if (pam_get_data(pamh, DATA_NAME, (const void **)&l) != PAM_SUCCESS || l == NULL)
		return PAM_IGNORE;	/* not ours: an unenrolled user */
	if (l->init_pidfd == -1)
		return PAM_SUCCESS;	/* closed already */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Every process of the session dies with its pid 1; the wait returns after. */
	if ((r = ab_reaper_stop(l->init_pidfd, l->init_pid)) != 0)
		return refuse(pamh, "cannot end the session of %s (pid 1 %d): %s", l->user,
		    (int)l->init_pid, strerror(-r));
	close(l->init_pidfd);
	l->init_pidfd = -1;
	if (l->audit_fd >= 0 &&
	    ab_auditrec_end(l->audit_fd, l->ses, l->user, l->uid, l->service, l->init_pid) != 0)
		pam_syslog(pamh, LOG_ERR, "could not write the end record of %s", l->user);
	if (a.debug)
		pam_syslog(pamh, LOG_DEBUG, "ended session of %s (ses %u) in %ld us", l->user,
		    l->ses, elapsed_us(&t0));
	return PAM_SUCCESS;
}

PAM_EXTERN int
pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)flags;
	return open_session(pamh, argc, argv);
}

PAM_EXTERN int
pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)flags;
	return close_session(pamh, argc, argv);
}
