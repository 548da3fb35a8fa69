/*
 * agentbox doctor: one line per check, "ok|warn|fail  what  (hint)".  Exit 0 when no
 * check failed.  Read-only: it changes nothing on the host (the namespace probe runs in
 * a child that exits at once).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <linux/landlock.h>
#include <pwd.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "admin.h"
#include "cmd.h"
#include "config.h"
#include "handoff.h"

#ifndef AB_PAMDIR
#define AB_PAMDIR "/lib/x86_64-linux-gnu/security"
#endif
#define LANDLOCK_WANT_ABI 6	/* scoped signals and abstract sockets */

enum level { OK, WARN, FAIL };

static int nfail, nwarn, quiet;

static void __attribute__((format(printf, 3, 4)))
report(enum level lv, const char *hintmsg, const char *fmt, ...)
{
	static const char *const name[] = { "ok", "warn", "fail" };
	va_list ap;

	nfail += lv == FAIL;
	nwarn += lv == WARN;
	if (quiet && lv == OK)
		return;
	printf("%-4s  ", name[lv]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (hintmsg != NULL && lv != OK)
		printf("  (%s)", hintmsg);
	putchar('\n');
}

static char *
read_small(const char *path)
{
	char *buf;

	if (adm_read_file(path, &buf, NULL) != 0)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* Namespaces: try them for real, in a child that exits at once. */
static void
check_namespaces(void)
{
	static const struct { int flag; const char *name; } ns[] = {
		{ CLONE_NEWNS, "mount" }, { CLONE_NEWPID, "pid" }, { CLONE_NEWNET, "net" },
		{ CLONE_NEWIPC, "ipc" }, { CLONE_NEWUTS, "uts" }, { CLONE_NEWUSER, "user" },
	};
	size_t i;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		int status = 0;
		pid_t pid = fork();
		if (pid == 0)
			_exit(unshare(ns[i].flag) == 0 ? 0 : errno & 0xff);
		if (pid == -1 || waitpid(pid, &status, 0) == -1 || !WIFEXITED(status)) {
			report(FAIL, NULL, "kernel: %s namespace: cannot probe", ns[i].name);
			continue;
		}
		if (WEXITSTATUS(status) == 0)
			report(OK, NULL, "kernel: %s namespaces", ns[i].name);
		else
			report(FAIL, "a kernel built with namespaces, not disabled by sysctl",
			    "kernel: %s namespace: %s", ns[i].name,
			    strerror(WEXITSTATUS(status)));
	}
}

static void
check_seccomp_landlock(void)
{
	char *avail;
	long abi;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == -1 && errno == EINVAL)
		report(FAIL, "CONFIG_SECCOMP_FILTER", "kernel: seccomp");
	else if ((avail = read_small("/proc/sys/kernel/seccomp/actions_avail")) == NULL)
		report(FAIL, "CONFIG_SECCOMP_FILTER", "kernel: seccomp filter actions unknown");
	else {
		if (strstr(avail, "errno") != NULL && strstr(avail, "log") != NULL)
			report(OK, NULL, "kernel: seccomp filter (errno, log)");
		else
			report(FAIL, NULL, "kernel: seccomp lacks errno/log actions: %s", avail);
		free(avail);
	}
	abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0)
		report(FAIL, errno == EOPNOTSUPP ? "add landlock to the lsm= boot parameter" :
		    "a kernel with CONFIG_SECURITY_LANDLOCK", "kernel: Landlock: %s",
		    strerror(errno));
	else if (abi < LANDLOCK_WANT_ABI)
		report(WARN, "policies asking for a higher landlock_min_abi refuse logins",
		    "kernel: Landlock ABI %ld (signal and socket scoping need %d)", abi,
		    LANDLOCK_WANT_ABI);
	else
		report(OK, NULL, "kernel: Landlock ABI %ld", abi);
}

static void
check_tty(void)
{
	char *v = read_small("/proc/sys/dev/tty/legacy_tiocsti");

	if (v == NULL)
		report(WARN, "kernel older than 6.2: seccomp is the only TIOCSTI guard",
		    "kernel: dev.tty.legacy_tiocsti absent");
	else if (strcmp(v, "0") == 0)
		report(OK, NULL, "kernel: dev.tty.legacy_tiocsti = 0");
	else
		report(WARN, "sysctl -w dev.tty.legacy_tiocsti=0",
		    "kernel: dev.tty.legacy_tiocsti = %s (terminal injection possible "
		    "outside the seccomp filter)", v);
	free(v);
}

/*
 * Without audit=1 on the kernel command line, a record the kernel cannot hand to auditd
 * (its socket full under a denial storm, then the connection reset) is printed to the
 * kernel log and freed without being counted in "lost" (kernel/audit.c,
 * kauditd_hold_skb); only agentbox-audit's serial-gap check still sees the hole.
 */
static void
check_audit_boot(void)
{
	char *cmdline, *tok, *save = NULL;
	int on = 0;

	if ((cmdline = read_small("/proc/cmdline")) == NULL) {
		report(WARN, NULL, "audit: cannot read /proc/cmdline");
		return;
	}
	for (tok = strtok_r(cmdline, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save))
		if (strncmp(tok, "audit=", 6) == 0)
			on = strcmp(tok + 6, "1") == 0 || strcasecmp(tok + 6, "on") == 0;
	free(cmdline);
	if (on)
		report(OK, NULL, "audit: audit=1 on the kernel command line");
	else
		report(WARN, "add audit=1 to the kernel command line (GRUB_CMDLINE_LINUX)",
		    "audit: booted without audit=1: records the kernel cannot deliver to auditd "
		    "are dropped without being counted as lost");
}

/*
 * What agentbox's audit rules cost the rest of the host (issue 14): the first syscall
 * rule on a host makes every task's audit context live on every syscall; each further
 * rule adds only its filter walk.  The audit scope rule (auditscope.c) takes every task
 * outside agent sessions off the audit path, but only while the host has no syscall
 * rules of its own, which it would silence: loaded with such rules, it is a failure.
 */
static void
check_audit_cost(void)
{
	static const char fix[] = "agentbox audit-scope";
	struct adm_scope st;
	char text[256];
	int r;

	if ((r = adm_audit_scope_state(&st)) != 0) {
		report(WARN, NULL, "audit cost: cannot list the rules: %s", strerror(-r));
		return;
	}
	/* A host's own "never,task" rule (Debian's 10-no-audit.rules example) takes the
	 * audit context from every task it matches: an agent's too, and its records. */
	if (st.host_never > 0)
		report(WARN, "auditctl -l | grep never,task", "audit: the host has %d "
		    "-a never,task rule(s) of its own: a login they may match is refused with "
		    "audit = required, and runs without its exit and Landlock records with "
		    "best-effort", st.host_never);
	if (st.loaded && !st.wanted)
		report(FAIL, fix, "audit cost: agentbox's audit scope rule is loaded but must "
		    "not be (%s)%s", st.why_not, st.host_rules ? ": it silences the host's own "
		    "rules for every task outside agent sessions" : "");
	else if (st.loaded && !st.current)
		report(FAIL, fix, "audit cost: agentbox's audit scope rule does not exempt "
		    "exactly the %zu agents whose rules are loaded: logins of the others are "
		    "refused", st.nagents);
	else if (st.loaded) {
		adm_audit_scope_text(&st, text, sizeof(text));
		report(OK, NULL, "audit cost: agentbox's syscall rules are the only ones on this "
		    "host, and its scope rule gives no audit context to tasks outside the "
		    "sessions of its %zu agents: the rest of the host pays nothing (%s)",
		    st.nagents, text);
	} else if (st.nagents == 0 && st.host_rules == 0)
		report(OK, NULL, "audit cost: no syscall rules loaded: other processes keep "
		    "dummy audit contexts");
	else if (st.host_rules > 0)
		report(OK, NULL, "audit cost: the host has %d syscall rules of its own (every "
		    "process already pays a live audit context); agentbox's add their filter "
		    "walk, ~30 ns per rule per syscall, and no scope rule, which would silence "
		    "the host's", st.host_rules);
	else if (st.wanted)
		report(WARN, fix, "audit cost: agentbox's syscall rules are the only ones on this "
		    "host and its scope rule is not loaded (after a reboot it is not): every "
		    "process pays a live audit context on every syscall (3.5-19 %% of a build "
		    "on a 2-vCPU VM)");
	else
		report(WARN, NULL, "audit cost: every process pays a live audit context on "
		    "every syscall, and no scope rule can be loaded: %s", st.why_not);
	/* What the agents themselves pay, whatever the rest of the host does. */
	if (st.nagents > 0)
		report(OK, NULL, "agents' audit contexts: every task of an agent session keeps a "
		    "live audit context on every syscall, which its exit rules need (they are "
		    "the only kernel record of DAC and read-only-mount denials): 6-38 %% of a "
		    "syscall-heavy build on a 2-vCPU VM (bench/full-speed)");
}

/*
 * How many sessions live masks can hold at once: agentbox-maskd's own bound, or fewer
 * when the kernel's per-user fanotify group limit (root's, which every other fanotify
 * user running as root shares) leaves less room.  A session past it is refused.
 */
static void
check_live_mask_room(void)
{
	char *v = read_small("/proc/sys/fs/fanotify/max_user_groups"), *end = NULL, hint[64];
	long groups = v != NULL ? strtol(v, &end, 10) : -1, room;

	if (v == NULL || end == v || groups < 0) {
		report(WARN, NULL, "live masks: cannot read fs.fanotify.max_user_groups");
		free(v);
		return;
	}
	free(v);
	snprintf(hint, sizeof(hint), "sysctl -w fs.fanotify.max_user_groups=%d",
	    2 * AB_MASKD_SESS_MAX + AB_MASKD_OWN_GROUPS);
	room = groups > AB_MASKD_OWN_GROUPS ? (groups - AB_MASKD_OWN_GROUPS) / 2 : 0;
	if (room < AB_MASKD_SESS_MAX)
		report(WARN, hint, "live masks: "
		    "fs.fanotify.max_user_groups = %ld leaves room for %ld sessions at once "
		    "(two fanotify groups each, and agentbox-maskd's own); more are refused",
		    groups, room);
	else
		report(OK, NULL, "live masks: up to %d sessions at once (agentbox-maskd's "
		    "bound; fs.fanotify.max_user_groups = %ld: two groups a session, three "
		    "when it learns, and one for agentbox-maskd's walk index)",
		    AB_MASKD_SESS_MAX, groups);
}

static void
check_audit(void)
{
	unsigned backlog = 0, lost = 0;
	int enabled = 0, pid = 0, r;
	char path[64], *comm;

	if ((r = adm_audit_status(&enabled, &pid, &backlog, &lost)) != 0) {
		report(FAIL, "a kernel with CONFIG_AUDIT, run as root",
		    "audit: status: %s", strerror(-r));
		return;
	}
	if (enabled >= 1)
		report(OK, NULL, "audit: enabled%s", enabled == 2 ? " (locked)" : "");
	else
		report(FAIL, "auditctl -e 1", "audit: disabled in the kernel");
	comm = NULL;
	if (pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		comm = read_small(path);
	}
	if (comm != NULL && strcmp(comm, "auditd") == 0)
		report(OK, NULL, "audit: auditd running (pid %d)", pid);
	else
		report(FAIL, "start auditd (tools/start-services)",
		    "audit: no auditd: records go to the kernel log or are lost");
	free(comm);
	if (backlog >= 8192)
		report(OK, NULL, "audit: backlog limit %u", backlog);
	else
		report(WARN, "agentbox enroll raises it; or auditctl -b 8192",
		    "audit: backlog limit %u is small for a denial storm", backlog);
	if (lost == 0)
		report(OK, NULL, "audit: no records lost");
	else
		report(WARN, "agentbox-audit shows which reviews are incomplete",
		    "audit: the kernel lost %u records since boot", lost);
	check_audit_boot();
	check_audit_cost();
}

static int
blind_action(const char *key, const char *v)
{
	if (strcmp(key, "max_log_file_action") == 0)
		return strcasecmp(v, "ignore") == 0 || strcasecmp(v, "suspend") == 0;
	if (strstr(key, "_action") != NULL)
		return strcasecmp(v, "suspend") == 0 || strcasecmp(v, "ignore") == 0;
	return 0;
}

static void
check_auditd_conf(void)
{
	char *conf, *v;
	size_t i;

	if (adm_read_file(AB_AUDITD_CONF, &conf, NULL) != 0) {
		report(FAIL, "install auditd", "auditd.conf: cannot read %s", AB_AUDITD_CONF);
		return;
	}
	for (i = 0; adm_auditd_settings[i].key != NULL; i++) {
		const struct adm_auditd_setting *s = &adm_auditd_settings[i];
		v = adm_auditd_get(conf, s->key);
		if (v != NULL && strcasecmp(v, s->value) == 0)
			report(OK, NULL, "auditd.conf: %s = %s", s->key, v);
		else if (v != NULL && blind_action(s->key, v))
			report(FAIL, s->why, "auditd.conf: %s = %s loses records silently "
			    "(agentbox enroll sets %s)", s->key, v, s->value);
		else
			report(WARN, s->why, "auditd.conf: %s = %s (agentbox sets %s)", s->key,
			    v ? v : "(default)", s->value);
		free(v);
	}
	free(conf);
}

static void
check_install(void)
{
	char *shells = NULL;

	if (access(AB_PAMDIR "/pam_agentbox.so", R_OK) == 0)
		report(OK, NULL, "install: %s/pam_agentbox.so", AB_PAMDIR);
	else
		report(FAIL, "make install", "install: %s/pam_agentbox.so missing", AB_PAMDIR);
	if (access(AB_SHELL_PATH, X_OK) == 0)
		report(OK, NULL, "install: %s", AB_SHELL_PATH);
	else
		report(FAIL, "make install", "install: %s missing", AB_SHELL_PATH);
	if (access(AB_INIT_PATH, X_OK) == 0)
		report(OK, NULL, "install: %s", AB_INIT_PATH);
	else
		report(FAIL, "make install", "install: %s missing", AB_INIT_PATH);
	/* Listed, su -m would run the caller's $SHELL: pam_agentbox then refuses su -m. */
	if (adm_read_file("/etc/shells", &shells, NULL) == 0 && adm_has_line(shells, AB_SHELL_PATH))
		report(WARN, "remove that line: su -m would bypass it, so pam_agentbox refuses su -m",
		    "install: %s is listed in /etc/shells", AB_SHELL_PATH);
	else
		report(OK, NULL, "install: %s not in /etc/shells (su -m keeps the login shell)",
		    AB_SHELL_PATH);
	free(shells);
}

static void
check_pam(int enrolled)
{
	struct ab_strv mods = { 0 };
	size_t i, j;
	int r;

	for (i = 0; adm_pam_services[i] != NULL; i++) {
		const char *svc = adm_pam_services[i];
		char path[300];
		snprintf(path, sizeof(path), AB_PAM_D "/%s", svc);
		if (!adm_path_exists(path))
			continue;
		if ((r = adm_pam_session_modules(svc, &mods)) != 0) {
			report(FAIL, NULL, "pam: %s: cannot expand the stack: %s", svc, strerror(-r));
			ab_strv_free(&mods);
			continue;
		}
		long ab = -1, loginuid = -1;
		for (j = 0; j < mods.n; j++) {
			if (ab < 0 && strcmp(mods.v[j], "pam_agentbox.so") == 0)
				ab = (long)j;
			if (strcmp(mods.v[j], "pam_loginuid.so") == 0)
				loginuid = (long)j;
		}
		ab_strv_free(&mods);
		if (ab < 0)
			report(enrolled ? FAIL : WARN, "agentbox enroll adds it",
			    "pam: %s: no pam_agentbox.so in the session stack", svc);
		else if (loginuid > ab)
			report(FAIL, "pam_agentbox must see the session's loginuid",
			    "pam: %s: pam_agentbox.so runs before pam_loginuid.so", svc);
		else
			report(OK, NULL, "pam: %s runs pam_agentbox.so", svc);
	}
}

static void
check_groups(const char *user, const struct passwd *pw)
{
	gid_t groups[256];
	int n = 256, i, bad = 0;
	size_t k;

	if (getgrouplist(user, pw->pw_gid, groups, &n) == -1) {
		report(FAIL, NULL, "user %s: in more than 256 groups", user);
		return;
	}
	for (i = 0; i < n; i++) {
		struct group *gr = getgrgid(groups[i]);
		if (gr == NULL)
			continue;
		for (k = 0; adm_privileged_groups[k] != NULL; k++)
			if (strcmp(gr->gr_name, adm_privileged_groups[k]) == 0) {
				report(FAIL, "gpasswd -d USER GROUP",
				    "user %s: member of the privileged group %s", user, gr->gr_name);
				bad = 1;
			}
	}
	if (!bad)
		report(OK, NULL, "user %s: in no privileged group", user);
}

/*
 * internal-sftp runs inside sshd, never exec'ing the login shell: the agent's sftp would
 * see the host's files without the read set, Landlock or seccomp (FINDINGS F8).
 */
static void
check_sftp(const char *user, const char *effective)
{
	char file[PATH_MAX], hintmsg[PATH_MAX + 128];

	if (!adm_sshd_sftp_inprocess(effective)) {
		report(OK, NULL, "sshd %s: sftp runs through the login shell (no internal-sftp)",
		    user);
		return;
	}
	adm_sshd_sftp_source(file, sizeof(file));
	snprintf(hintmsg, sizeof(hintmsg), "in %s use 'Subsystem sftp " AB_SFTP_SERVER "', "
	    "which sshd runs through the login shell", file);
	report(FAIL, hintmsg, "sshd %s: internal-sftp serves files outside the confined "
	    "session", user);
}

static void
check_sshd(const char *user)
{
	static const char *const want[] = {
		"disableforwarding yes", "allowagentforwarding no", "allowtcpforwarding no",
		"allowstreamlocalforwarding no", "x11forwarding no", "permittunnel no",
		"permituserrc no", "permituserenvironment no", NULL,
	};
	char path[300], *out = NULL;
	size_t i;
	int r, bad = 0;

	adm_sshd_dropin_path(user, path, sizeof(path));
	if (!adm_path_exists(path))
		report(FAIL, "agentbox enroll writes it", "sshd %s: no drop-in %s", user, path);
	if ((r = adm_sshd_effective(user, &out)) == -ENOENT) {
		report(OK, NULL, "sshd %s: no sshd installed", user);
		return;
	}
	if (r != 0) {
		report(FAIL, "sshd -t shows why", "sshd %s: sshd -T failed", user);
		return;
	}
	for (i = 0; want[i] != NULL; i++) {
		if (!adm_has_line(out, want[i])) {
			report(FAIL, "is the drop-in included before other Match blocks?",
			    "sshd %s: effective config lacks '%s'", user, want[i]);
			bad = 1;
		}
	}
	if (!bad)
		report(OK, NULL, "sshd %s: drop-in active (no forwarding, no user rc/env)", user);
	check_sftp(user, out);
	free(out);
}

static void
check_cron(const char *user)
{
	static const char *const allow[] = { "/etc/cron.allow", "/etc/at.allow", NULL };
	char *buf = NULL;
	size_t i;

	for (i = 0; adm_deny_files[i] != NULL; i++) {
		if (adm_read_file(adm_deny_files[i], &buf, NULL) == 0 && adm_has_line(buf, user))
			report(OK, NULL, "user %s: listed in %s", user, adm_deny_files[i]);
		else
			report(FAIL, "agentbox enroll adds it", "user %s: not in %s", user,
			    adm_deny_files[i]);
		free(buf);
		buf = NULL;
	}
	for (i = 0; allow[i] != NULL; i++) {
		if (adm_read_file(allow[i], &buf, NULL) == 0 && adm_has_line(buf, user))
			report(FAIL, "an allow file overrides the deny file", "user %s: listed in %s",
			    user, allow[i]);
		free(buf);
		buf = NULL;
	}
}

/* DESIGN invariant 3: none of the user's processes outside a box (logins are refused). */
static void
check_unboxed(const char *user, unsigned uid)
{
	char buf[512];
	int n = adm_unboxed_list(uid, buf, sizeof(buf));

	if (n == 0)
		report(OK, NULL, "user %s: no process outside a box", user);
	else if (n > 0)
		report(FAIL, "end them: its logins are refused while they run", "user %s: %d "
		    "process(es) outside any box: %s", user, n, buf);
	else
		report(FAIL, NULL, "user %s: cannot list its processes: %s", user, strerror(-n));
}

/* agentbox-maskd's watcher: without it every enrolled login is refused. */
static void
check_watcher(int enrolled)
{
	if (adm_unboxed_watching() == 1)
		report(OK, NULL, "agentbox-maskd watches for processes outside a box");
	else
		report(enrolled ? FAIL : WARN, "start agentbox-maskd --daemon", "agentbox-maskd "
		    "is not watching for processes outside a box: every enrolled login is "
		    "refused");
}

static void
check_user(const char *user)
{
	struct ab_diag diag = { 0 };
	struct ab_policy *pol = NULL;
	struct passwd *pw;
	char path[300];
	size_t i;
	int r;

	if ((pw = getpwnam(user)) == NULL) {
		report(FAIL, "agentbox enroll creates it", "user %s: no such account", user);
		return;
	}
	if (strcmp(pw->pw_shell, AB_SHELL_PATH) == 0)
		report(OK, NULL, "user %s: login shell %s", user, pw->pw_shell);
	else
		report(FAIL, "agentbox enroll sets it", "user %s: login shell is %s, not %s",
		    user, pw->pw_shell, AB_SHELL_PATH);
	if (pw->pw_uid == 0)
		report(FAIL, NULL, "user %s: uid 0", user);
	check_groups(user, pw);
	snprintf(path, sizeof(path), "/var/lib/systemd/linger/%s", user);
	if (adm_path_exists(path))
		report(FAIL, "loginctl disable-linger USER", "user %s: lingering enabled", user);
	else
		report(OK, NULL, "user %s: no lingering", user);
	if ((r = ab_policy_load(NULL, user, &pol, &diag)) != 0) {
		report(FAIL, "agentbox check", "user %s: policy: %s%s%s", user, strerror(-r),
		    diag.n ? ": " : "", diag.n ? diag.msg[0] : "");
	} else {
		report(OK, NULL, "user %s: policy compiles (%zu projects)", user, pol->project.n);
		/* A learning user's box allows what it records: never quietly. */
		if (pol->learn == AB_YES)
			report(WARN, "agentbox-audit suggest --user USER, then remove learn = yes",
			    "user %s: learning: files outside read/write%s allowed and recorded, "
			    "not refused", user, pol->network == AB_NET_PROXY ?
			    " and hosts outside allow_host" : "");
		for (i = 0; i < pol->project.n; i++) {
			r = adm_acl_check(pol->project.v[i], pw->pw_uid);
			if (r == 1)
				report(OK, NULL, "user %s: rwx ACL on %s", user, pol->project.v[i]);
			else
				report(WARN, "agentbox enroll grants it",
				    "user %s: no rwx ACL (access + default) on %s", user,
				    pol->project.v[i]);
		}
		ab_policy_free(pol);
	}
	ab_diag_free(&diag);
	check_unboxed(user, pw->pw_uid);
	check_sshd(user);
	check_cron(user);
	r = adm_audit_rules_loaded(pw->pw_uid);
	if (r == ADM_AUDIT_NRULES)
		report(OK, NULL, "user %s: %d audit rules loaded (uid %u)", user, r,
		    (unsigned)pw->pw_uid);
	else if (r < 0)
		report(FAIL, NULL, "user %s: cannot list audit rules: %s", user, strerror(-r));
	else
		report(FAIL, "agentbox enroll loads them", "user %s: %d of %d audit rules loaded",
		    user, r, ADM_AUDIT_NRULES);
	snprintf(path, sizeof(path), AB_AUDIT_RULES_DIR "/agentbox-%s.rules", user);
	if (adm_path_exists(path))
		report(OK, NULL, "user %s: %s", user, path);
	else
		report(WARN, "the rules would be gone after a reboot", "user %s: no %s", user, path);
}

int
cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ab_strv users = { 0 };
	size_t i;
	int c, r;

	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q': quiet = 1; break;
		case 'h': printf("usage: agentbox doctor [--quiet]\n"); return 0;
		default: fprintf(stderr, "usage: agentbox doctor [--quiet]\n"); return 2;
		}
	}
	if (geteuid() != 0)
		die("doctor reads audit rules, auditd.conf and sshd's effective config: run it as root");
	check_namespaces();
	check_seccomp_landlock();
	check_tty();
	check_live_mask_room();
	check_audit();
	check_auditd_conf();
	check_install();
	if ((r = adm_enrolled_users(&users)) != 0)
		report(FAIL, "agentbox check", "policy: cannot list enrolled users: %s", strerror(-r));
	else if (users.n == 0)
		report(WARN, "agentbox enroll USER --project DIR", "policy: no enrolled user");
	check_pam(users.n > 0);
	check_watcher(users.n > 0);
	for (i = 0; i < users.n; i++)
		check_user(users.v[i]);
	ab_strv_free(&users);
	printf("%d failed, %d warnings\n", nfail, nwarn);
	return nfail > 0;
}
