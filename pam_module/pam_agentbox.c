/*
 * pam_agentbox: the privileged half of agentbox.  A PAM session module that builds the
 * world every enrolled user's session lives in, inside the process of su, sshd, sudo,
 * runuser or login, before any code of the agent runs.  open_steps() below is the order
 * of operations, numbered as DESIGN.md's Shape numbers it.
 *
 *   session required pam_agentbox.so [debug] [run] [root=DIR] [init=PATH] [maskd=PATH]
 *
 * root=, init= and maskd= exist for the tests only (policy root, reaper binary,
 * agentbox-maskd's control socket); nothing is
 * ever taken from the environment, which the caller of su and sudo controls.
 * `run` is for /etc/pam.d/agentbox-run only (written by agentbox enroll, used by
 * `agentbox run` alone, refused in any other service): the session gets a box of its
 * own, and agentbox run's requests are read from the PAM environment, which in that
 * stack only agentbox run, a root process, sets (RUN_EPHEMERAL below).
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

#include "auditscope.h"
#include "config.h"
#include "handoff.h"
#include "module.h"

#define DATA_NAME	"agentbox-session"
#define SHELL_NAME	"agentbox-shell"
#define RUN_SERVICE	"agentbox-run"
/* PAM environment of the agentbox-run service: "1" asks for ephemeral trees; the
 * module answers in EPHEMERAL_CHANGED at close_session ("CREATED MODIFIED DELETED
 * PARTIAL"), for agentbox run's summary. */
#define RUN_EPHEMERAL		"AGENTBOX_RUN_EPHEMERAL"
#define EPHEMERAL_CHANGED	"AGENTBOX_EPHEMERAL_CHANGED"

struct args {
	const char	*root;		/* policy root (tests); NULL: "/" */
	const char	*init;		/* agentbox-init (tests); default AB_INIT_PATH */
	const char	*maskd;		/* agentbox-maskd's socket (tests); AB_MASKD_CONTROL */
	int		 debug;
	int		 run;		/* the agentbox-run service's stack */
};

/* What close_session needs, kept as PAM data for the life of the handle. */
struct live {
	int		 init_pidfd;	/* -1 once the session is closed */
	pid_t		 init_pid;
	int		 audit_fd;
	uint32_t	 ses;
	uid_t		 uid;
	int		 persist;	/* the box outlives this login: close never kills */
	char		 box_id[16];
	char		*user;
	char		*service;
	int		 eph_upper;	/* ephemeral: the upper tmpfs, or -1 */
	int		*eph_lower;
	size_t		 eph_n;
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
	a->maskd = AB_MASKD_CONTROL;
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "debug") == 0)
			a->debug = 1;
		else if (strcmp(argv[i], "run") == 0)
			a->run = 1;
		else if (strncmp(argv[i], "root=", 5) == 0 && argv[i][5] == '/')
			a->root = argv[i] + 5;
		else if (strncmp(argv[i], "init=", 5) == 0 && argv[i][5] == '/')
			a->init = argv[i] + 5;
		else if (strncmp(argv[i], "maskd=", 6) == 0 && argv[i][6] == '/')
			a->maskd = argv[i] + 6;
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
close_ephemeral(int *upper, int **lower, size_t n)
{
	size_t i;

	if (*upper != -1)
		close(*upper);
	*upper = -1;
	for (i = 0; *lower != NULL && i < n; i++)
		if ((*lower)[i] != -1)
			close((*lower)[i]);
	free(*lower);
	*lower = NULL;
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
	close_ephemeral(&l->eph_upper, &l->eph_lower, l->eph_n);
	free(l->user);
	free(l->service);
	free(l);
}

/*
 * Step 3, last: no never rule on the kernel's task list may take this session's tasks
 * their audit contexts, or their exit and Landlock records would be lost (invariant 5):
 * a loaded audit scope rule of ours (auditscope.c) must exempt the agent, and a never,task
 * rule of the host's own (Debian's 10-no-audit.rules example) must not match.  Judged
 * after the loginuid write, on the listing asked after step 2, before the session's first
 * task is forked.  Rules that cannot be listed (not the initial pid namespace), or a host
 * rule that may match, refuse only with audit = required.
 */
static int
audit_scope_covers(struct ab_sess *s, uint32_t auid)
{
	struct ab_scope_session sess = { .agent = s->uid, .auid = auid };
	uid_t ruid, euid, suid;
	const char *why;
	int r;

	/* su's or sshd's uids now are what its fork of the session's first task carries
	 * (the file system uid follows the effective one in both). */
	if (getresuid(&ruid, &euid, &suid) == -1)
		return ab_sess_fail(s, -errno, "getresuid: %s", strerror(errno));
	sess.entry = (struct ab_task_creds){ ruid, euid, suid, euid, auid };
	r = ab_auditscope_answer(s->scope_ask, &sess, &why);
	s->scope_ask = -ENOTCONN;	/* the answer closed it */
	if (r == -EPERM && why != NULL)
		return ab_sess_fail(s, r, "%s", why);
	if (r == -EACCES && why != NULL) {
		/* The host's own choice, not a mistake of ours: audit = best-effort takes
		 * the session without those records, and says so. */
		if (s->pol->audit == AB_AUDIT_REQUIRED)
			return ab_sess_fail(s, r, "audit is required and %s", why);
		pam_syslog(s->pamh, LOG_WARNING, "session of %s: %s", s->user, why);
		return 0;
	}
	if (r != 0 && s->pol->audit == AB_AUDIT_REQUIRED)
		return ab_sess_fail(s, r, "audit is required and the audit rules cannot be "
		    "listed to check agentbox's audit scope: %s", strerror(-r));
	return 0;
}

/* /proc/self/NAME, a decimal number the kernel keeps for this task (its loginuid, its
 * audit session id), into *OUT. */
static int
proc_self_u32(struct ab_sess *s, const char *name, uint32_t *out)
{
	char buf[16], *end;
	unsigned long v;
	ssize_t n;
	int fd;

	if ((fd = openat(s->procfd, name, O_RDONLY | O_CLOEXEC)) == -1)
		return ab_sess_fail(s, -errno, "open /proc/%s: %s", name, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return ab_sess_fail(s, -EIO, "read /proc/%s: %s", name,
		    n == 0 ? "empty" : strerror(errno));
	buf[n] = '\0';
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno != 0 || end == buf || v > UINT32_MAX)
		return ab_sess_fail(s, -EIO, "read /proc/%s: not a number", name);
	*out = (uint32_t)v;
	return 0;
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
	uint32_t auid;
	ssize_t n;
	int fd, len, r;

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
	if ((r = proc_self_u32(s, "self/sessionid", &s->ses)) != 0)
		return r;
	/* The loginuid every task of the session is forked with, for the scope check. */
	auid = (uint32_t)s->uid;
	if (!s->ses_fresh && (r = proc_self_u32(s, "self/loginuid", &auid)) != 0)
		return r;
	return audit_scope_covers(s, auid);
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
	l->eph_upper = -1;
	l->persist = s->pol->persist == AB_YES && !s->run;
	snprintf(l->box_id, sizeof(l->box_id), "%s", s->box_id);
	if (pam_set_data(pamh, DATA_NAME, l, live_cleanup) != PAM_SUCCESS) {
		free(l->user);
		free(l->service);
		free(l);
		return -ENOMEM;
	}
	s->init_pidfd = -1;	/* close_session's now */
	/* The upper layer lives on in the session's mount namespace; its fds are for the
	 * count at close_session. */
	l->eph_upper = s->eph_upper;
	l->eph_lower = s->eph_lower;
	l->eph_n = s->eph_n;
	s->eph_upper = -1;
	s->eph_lower = NULL;
	return 0;
}

static long
elapsed_us(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000000L + (t1.tv_nsec - t0->tv_nsec) / 1000;
}

/* The steps the debug line times, by the name it gives them. */
enum sess_step {
	STEP_UNBOXED, STEP_LOGINUID, STEP_NETNS, STEP_UNSHARE, STEP_WORLD, STEP_MASKS, STEP_PID1, STEP_MASKD,
	STEP_NETD, STEP_PLAN, STEP_RECORD, STEP_BOX, STEP_N
};
static const char *const step_name[STEP_N] = {
	[STEP_UNBOXED]	= "unboxed",
	[STEP_LOGINUID]	= "loginuid",
	[STEP_NETNS]	= "netns",
	[STEP_UNSHARE]	= "unshare",
	[STEP_WORLD]	= "world",
	[STEP_MASKS]	= "masks",
	[STEP_PID1]	= "pid 1",
	[STEP_MASKD]	= "maskd",
	[STEP_NETD]	= "netd",
	[STEP_PLAN]	= "plan",
	[STEP_RECORD]	= "record",
	[STEP_BOX]	= "box",	/* persist: decide, and join (last: parsers count) */
};

/* What the debug line reports: bench/session-start and the e2e tests parse it. */
struct sess_clock {
	long		 load_us;	/* step 2 */
	struct timespec	 t_open;	/* after step 2: the whole open's clock */
	struct timespec	 t_steps;	/* before step 3: the steps' cumulative clock */
	long		 us[STEP_N];
};

/* R, what the step that just ran returned; if it succeeded, when it ended. */
static int
timed(struct sess_clock *c, enum sess_step step, int r)
{
	if (r == 0)
		c->us[step] = elapsed_us(&c->t_steps);
	return r;
}

static void
log_confined(const struct ab_sess *s, const struct sess_clock *c)
{
	char steps[STEP_N * 48] = "";
	size_t n = 0;
	int i, w;

	for (i = 0; i < STEP_N; i++) {
		w = snprintf(steps + n, sizeof(steps) - n, "%s%s %ld", i > 0 ? ", " : "",
		    step_name[i], c->us[i]);
		if (w < 0 || (size_t)w >= sizeof(steps) - n)
			break;		/* cannot happen: 48 bytes hold any name and number */
		n += (size_t)w;
	}
	pam_syslog(s->pamh, LOG_DEBUG, "confined session of %s: ses %u, pid 1 %d, %u masks, "
	    "%u protects, %u entries walked, netns %s, walk %s, policy load %ld us, then "
	    "%ld us (cumulative: %s)", s->user, s->ses, (int)s->init_pid, s->masks,
	    s->protects, s->walked, s->netns_how != NULL ? s->netns_how : "joined",
	    s->walk_how != NULL ? s->walk_how : "none",
	    c->load_us,
	    elapsed_us(&c->t_open), steps);
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

/*
 * Steps 1 and 2: load and compile USER's policy into *POL.  Enrolled means a [user:NAME]
 * section, so the load is what answers the gate.  PAM_SUCCESS: enrolled, go on;
 * PAM_IGNORE: not an agentbox user; PAM_SYSTEM_ERR: refused, and logged.
 */
static int
load_policy(pam_handle_t *pamh, const char *root, const char *user, const struct passwd *pw,
    struct ab_policy **pol)
{
	struct ab_diag diag = { NULL, 0 };
	char why[600];
	int r;

	r = ab_policy_load(root, user, pol, &diag);
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
		if (is_agentbox_shell(pw) || ab_policy_mentions_user(root, user) != 0)
			return refuse_session(pamh, user, why, -1);
		pam_syslog(pamh, LOG_WARNING, "%s; %s is not enrolled in it: session not confined",
		    why, user);
		return PAM_IGNORE;
	}
	ab_diag_free(&diag);
	return PAM_SUCCESS;
}

static void
sess_init(struct ab_sess *s, pam_handle_t *pamh, const struct args *a, const char *user,
    const struct ab_policy *pol)
{
	memset(s, 0, sizeof(*s));
	s->pamh = pamh;
	s->pol = pol;
	s->user = user;
	s->init_path = a->init;
	s->debug = a->debug;
	s->run = a->run;
	s->procfd = s->runfd = s->mask_file = s->mask_dir = s->init_pidfd = s->init_fd = -1;
	s->netd_fd = s->maskd_fd = s->eph_upper = s->box_lock = s->box_pidfd = -1;
	s->pooled_netns = s->plan_fd = s->plan_ask = -1;
	s->scope_ask = -ENOTCONN;
	s->maskd_path = a->maskd;
}

/* Close what the session's building opened; the pidfd of pid 1 only if live has not
 * taken it over. */
static void
sess_close(struct ab_sess *s)
{
	int *fds[] = { &s->procfd, &s->runfd, &s->mask_file, &s->mask_dir, &s->init_fd,
	    &s->init_pidfd, &s->netd_fd, &s->maskd_fd, &s->box_lock, &s->box_pidfd,
	    &s->pooled_netns, &s->plan_fd, &s->plan_ask };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] != -1)
			close(*fds[i]);
		*fds[i] = -1;
	}
	if (s->scope_ask >= 0)
		close(s->scope_ask);
	s->scope_ask = -ENOTCONN;
	close_ephemeral(&s->eph_upper, &s->eph_lower, s->eph_n);
	ab_walkplan_free(s);
}

/*
 * What agentbox run asked for, from the PAM environment: only in the agentbox-run
 * service's stack (module argument `run`), where nothing but agentbox run sets it.  A
 * value we do not know refuses: a request silently dropped would leave real trees
 * writable that the caller believes are thrown away.
 */
static int
run_requests(struct ab_sess *s)
{
	const char *service = item_str(s->pamh, PAM_SERVICE), *v;

	if (!s->run)
		return 0;
	if (strcmp(service, RUN_SERVICE) != 0)
		return ab_sess_fail(s, -EPERM, "module argument 'run' in the stack of service "
		    "%s: it belongs to %s only", service, RUN_SERVICE);
	v = pam_getenv(s->pamh, RUN_EPHEMERAL);
	if (v == NULL || strcmp(v, "0") == 0)
		return 0;
	if (strcmp(v, "1") != 0)
		return ab_sess_fail(s, -EINVAL, "%s=%s: expected 0 or 1", RUN_EPHEMERAL, v);
	s->ephemeral = 1;
	return 0;
}

/* Step 4: mounts made from here on stay in the session; the host's still propagate in. */
static int
unshare_session(struct ab_sess *s)
{
	if (unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWPID) == -1)
		return ab_sess_fail(s, -errno, "unshare(mnt,ipc,uts,pid): %s", strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) == -1)
		return ab_sess_fail(s, -errno, "make / a slave tree: %s", strerror(errno));
	return 0;
}

/*
 * Step 9.  Whether audit is on is the answer to the question ab_auditrec_open asked
 * before step 3; with audit = required, audit off or a lost start record refuses.
 */
static int
start_record(struct ab_sess *s, int audit_fd)
{
	pam_handle_t *pamh = s->pamh;

	if (audit_fd < 0)
		return 0;
	if (ab_auditrec_enabled(audit_fd, &s->audit_st) == 0 && s->pol->audit == AB_AUDIT_REQUIRED)
		return ab_sess_fail(s, -EPERM, "audit is required and disabled in the kernel");
	if (ab_auditrec_start(audit_fd, s, item_str(pamh, PAM_SERVICE), item_str(pamh, PAM_TTY),
	    item_str(pamh, PAM_RHOST)) != 0 && s->pol->audit == AB_AUDIT_REQUIRED)
		return ab_sess_fail(s, -EIO, "audit is required and the start record could not be "
		    "written");
	return 0;
}

/*
 * What a new box needs opened in the host's namespaces, before step 3 makes the first
 * of its own: a login that joins a running box needs none of it.
 */
static int
host_side_opens(struct ab_sess *s)
{
	int r;

	/* For step 6: agentbox-init, opened before step 5 hides its path. */
	if ((r = ab_reaper_open(s)) != 0)
		return r;
	/* For step 7: agentbox-netd's control socket, before step 5 replaces /run (and
	 * before any namespace is made: a daemon that is down refuses at once). */
	if (s->pol->network == AB_NET_PROXY && (r = ab_netd_connect(s)) != 0)
		return r;
	/* For step 3: a network namespace made ahead, if agentbox-maskd has one.  Asked
	 * before the hand-off connection is made, which sends only at step 7: a daemon
	 * older than this module read one connection at a time, and would sit on that
	 * one while this request waited behind it. */
	ab_netns_take_pooled(s);
	/* For step 5: which directories the mask walk must read (a plan of agentbox-maskd's
	 * walk index; without one, all of them): asked now, read at step 5. */
	ab_walkplan_ask(s);
	/* For step 7 too: agentbox-maskd's, for the same reasons.  A policy without a
	 * mask has nothing for it to decide, unless it learns. */
	if ((s->pol->mask.n != 0 || s->pol->learn == AB_YES) && (r = ab_livemask_connect(s)) != 0)
		return r;
	/* For step 5's check of its plan, after the hand-off's connection. */
	ab_walkplan_connect(s);
	return 0;
}

/* Steps 3 (network) to 8: a new box of USER's.  Fails after pid 1 started kill it. */
static int
build_steps(struct ab_sess *s, struct sess_clock *clk, const char *cwd)
{
	int r;

	if ((r = host_side_opens(s)) != 0)
		return r;

	/* 3. The network namespace: before the mount namespace, as the shared `none`
	 * namespace is pinned on the host. */
	if ((r = timed(clk, STEP_NETNS, ab_netns_enter(s))) != 0)
		return r;
	/* 4. unshare mount, ipc, uts, pid; / a slave tree. */
	if ((r = timed(clk, STEP_UNSHARE, unshare_session(s))) != 0)
		return r;
	/* 5. The world: private trees, (agentbox run --ephemeral: the home and projects on
	 * a throw-away layer,) secrets masked, protected paths read-only. */
	if ((r = timed(clk, STEP_WORLD, ab_world_build(s))) != 0 ||
	    (s->ephemeral && (r = timed(clk, STEP_WORLD, ab_ephemeral_apply(s))) != 0) ||
	    (r = timed(clk, STEP_MASKS, ab_mask_apply(s))) != 0)
		return r;
	reenter_cwd(cwd);
	/* 6. agentbox-init becomes pid 1 and mounts a fresh /proc. */
	if ((r = timed(clk, STEP_PID1, ab_reaper_start(s))) != 0)
		return r;
	/* 7. Hand-off to host-side helpers: the session's mounts, marked, to agentbox-maskd
	 * (masks decided at every open from now on); proxy's listeners to agentbox-netd,
	 * sent first and answered last, so both daemons work at once (the debug line's
	 * maskd step includes the send, its netd step is the wait for the answer).
	 * A learning session's recorder is agentbox-maskd's too.  Not for trees on
	 * overlayfs (agentbox run --ephemeral, a container's root): fanotify cannot mark
	 * them, and those sessions keep the login-time masks only, or are refused when
	 * learning; see ab_livemask_handoff and README, Limitations. */
	if (s->pol->network == AB_NET_PROXY && (r = ab_netd_send(s)) != 0)
		goto kill;
	if ((r = timed(clk, STEP_MASKD, ab_livemask_handoff(s))) != 0)
		goto kill;
	if ((r = timed(clk, STEP_NETD, s->pol->network == AB_NET_PROXY ?
	    ab_netd_await(s) : 0)) != 0)
		goto kill;
	/* 8. The session plan, then /run/agentbox sealed read-only. */
	if ((r = ab_planfile_write(s)) != 0 ||
	    (r = timed(clk, STEP_PLAN, ab_world_seal(s))) != 0)
		goto kill;
	/* persist = yes: later logins find the box by its pid 1. */
	if (s->box_lock != -1 && (r = ab_box_register(s)) != 0)
		goto kill;
	return 0;
kill:
	ab_reaper_stop(s->init_pidfd, s->init_pid);
	return r;
}

/*
 * Steps 3 to 8 as the policy wants them: persist = no, always a new box; persist = yes,
 * the one decision (ab_box_decide) between joining the user's running box, whose world
 * exists already (its plan included: agentbox-shell checks it against the namespaces
 * it runs in, as in a new box), and building one.
 */
static int
box_steps(struct ab_sess *s, struct sess_clock *clk, int audit_fd, const char *cwd)
{
	enum ab_box_how how = AB_BOX_BUILD;
	int r;

	if (s->pol->persist == AB_YES &&
	    (r = timed(clk, STEP_BOX, ab_box_decide(s, audit_fd, s->run, &how))) != 0)
		return r;
	if (how == AB_BOX_BUILD)
		return build_steps(s, clk, cwd);
	if ((r = timed(clk, STEP_BOX, ab_box_join(s))) != 0)
		return r;
	s->joined = 1;
	s->init_pidfd = s->box_pidfd;	/* close_session's, to say the login is open */
	s->box_pidfd = -1;
	reenter_cwd(cwd);
	return 0;
}

/*
 * Open USER's session: DESIGN.md's Shape, steps 1 to 9, in order and numbered as there.
 * Step 1's two questions are asked apart: "enrolled?" needs step 2's policy, and the
 * entry-path check comes after the opens that must happen in the host's namespaces.
 */
static int
open_steps(pam_handle_t *pamh, const struct args *a)
{
	struct ab_policy *pol = NULL;
	const struct passwd *pw;
	const char *user = NULL;
	struct timespec t_load;
	struct sess_clock clk = { 0 };
	char cwd[PATH_MAX];
	struct ab_sess s;
	int audit_fd, r;

	/* 1. Gate: whose session is it, and does the policy (2.) enroll them? */
	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL || *user == '\0')
		return refuse(pamh, "no user to open a session for");
	pw = pam_modutil_getpwnam(pamh, user);
	/* 2. Load and compile the policy; errors refuse (PAM_SYSTEM_ERR). */
	clock_gettime(CLOCK_MONOTONIC, &t_load);
	if ((r = load_policy(pamh, a->root, user, pw, &pol)) != PAM_SUCCESS)
		return r;
	clk.load_us = elapsed_us(&t_load);
	clock_gettime(CLOCK_MONOTONIC, &clk.t_open);
	sess_init(&s, pamh, a, user, pol);
	/* 1. Gate, continued: an account that can be confined. */
	if (pw == NULL || pw->pw_uid == 0) {
		r = refuse_session(pamh, user, pw == NULL ? "enrolled but not in the passwd "
		    "database" : "root cannot be confined", -1);
		goto out;
	}
	s.uid = pw->pw_uid;
	s.gid = pw->pw_gid;
	s.home = pw->pw_dir;
	/* For step 9 and refusals: opened in the host's network namespace, before step 3. */
	audit_fd = ab_auditrec_open();
	/* For step 3's scope check: asked now, answered by the kernel while we work. */
	s.scope_ask = ab_auditscope_ask();
	if (audit_fd < 0 && pol->audit == AB_AUDIT_REQUIRED) {
		r = refuse_session(pamh, user, "audit is required and unavailable", -1);
		goto out;
	}
	/* The host's /proc, for the entry check and step 3: step 6's will not show us. */
	if ((s.procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		r = ab_sess_fail(&s, -errno, "open /proc: %s", strerror(errno));
		goto refuse;
	}
	/* 1. Gate, last: Landlock and seccomp come from the login shell, so refuse an entry
	 * path that skips it.  Asked after the policy load (only the policy says who is
	 * enrolled: anyone else's sudo must stay theirs) and after the checks above, so a
	 * session refused for one of those keeps that reason. */
	if ((r = run_requests(&s)) != 0 ||
	    (r = ab_entry_verify(&s, item_str(pamh, PAM_SERVICE), pw->pw_shell)) != 0)
		goto refuse;
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		strcpy(cwd, "/");

	clock_gettime(CLOCK_MONOTONIC, &clk.t_steps);
	/* 1. Gate, last: no process of the user runs outside a box, where it could hand
	 * this session what its box hides (agentbox-maskd watches; a file read here). */
	if ((r = timed(&clk, STEP_UNBOXED, ab_unboxed_check(&s))) != 0)
		goto refuse;
	/* 3. A fresh audit session: every login has its own, joining a box or not. */
	if ((r = timed(&clk, STEP_LOGINUID, fresh_audit_session(&s))) != 0)
		goto refuse;
	/* 3-8, or, with persist = yes and a running box of this policy, join it. */
	if ((r = box_steps(&s, &clk, audit_fd, cwd)) != 0)
		goto refuse;
	/* 9. The start record. */
	if ((r = timed(&clk, STEP_RECORD, start_record(&s, audit_fd))) != 0)
		goto kill;

	if ((r = keep_live(pamh, &s, audit_fd)) != 0) {
		ab_sess_fail(&s, r, "out of memory");
		goto kill;
	}
	sess_close(&s);
	if (a->debug)
		log_confined(&s, &clk);
	r = PAM_SUCCESS;
	goto out;
kill:
	/* Never a box other logins share: only one this login built is ours to end. */
	if (!s.joined)
		ab_reaper_stop(s.init_pidfd, s.init_pid);
refuse:
	sess_close(&s);
	r = refuse_session(pamh, user, s.why[0] ? s.why : strerror(-r), audit_fd);
	if (audit_fd >= 0)
		audit_close(audit_fd);
out:
	ab_policy_free(pol);
	return r;
}

static int
open_session(pam_handle_t *pamh, int argc, const char **argv)
{
	const void *live = NULL;
	struct args a;
	int r;

	/* Arguments: only what the service file says, never the environment. */
	if ((r = parse_args(pamh, argc, argv, &a)) != PAM_SUCCESS)
		return r;
	if (pam_get_data(pamh, DATA_NAME, &live) == PAM_SUCCESS && live != NULL)
		return PAM_SUCCESS;	/* this process is confined already */
	return open_steps(pamh, &a);
}

/* Every process of the session is gone: count what its writes would have changed, for
 * agentbox run (the PAM environment), then let the layer go with the namespace. */
static void
ephemeral_report(pam_handle_t *pamh, struct live *l)
{
	struct ab_eph_count c;
	char buf[128];

	ab_ephemeral_count(l->eph_upper, l->eph_lower, l->eph_n, &c);
	snprintf(buf, sizeof(buf), EPHEMERAL_CHANGED "=%lu %lu %lu %d", c.created, c.modified,
	    c.deleted, c.partial);
	if (pam_putenv(pamh, buf) != PAM_SUCCESS)
		pam_syslog(pamh, LOG_ERR, "could not report the ephemeral count of %s", l->user);
	close_ephemeral(&l->eph_upper, &l->eph_lower, l->eph_n);
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
	/* persist = yes: the box lives on for the next login (its linger, agentbox stop or
	 * a changed policy end it); every process of the session dies with its pid 1
	 * otherwise, and the wait returns after. */
	if (!l->persist && (r = ab_reaper_stop(l->init_pidfd, l->init_pid)) != 0)
		return refuse(pamh, "cannot end the session of %s (pid 1 %d): %s", l->user,
		    (int)l->init_pid, strerror(-r));
	close(l->init_pidfd);
	l->init_pidfd = -1;
	if (l->eph_upper != -1)
		ephemeral_report(pamh, l);
	if (l->audit_fd >= 0 &&
	    ab_auditrec_end(l->audit_fd, l->ses, l->user, l->uid, l->service, l->init_pid,
	    l->box_id) != 0)
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
