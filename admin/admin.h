/*
 * Internal interfaces of agentbox(8), the admin tool.  One file per mechanism; each
 * returns 0 or -errno and leaves printing to its caller unless it is a cmd_* or says so.
 */
#ifndef AB_ADMIN_H
#define AB_ADMIN_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>

#include "abutil.h"
#include "policy.h"

#define AB_PAM_PROFILE_NAME	"agentbox"
#define AB_PAM_CONFIGS_DIR	"/usr/share/pam-configs"
#define AB_PAM_D		"/etc/pam.d"
#define AB_PAM_LINE		"session\trequired\tpam_agentbox.so"
#define AB_PAM_MARK		"# added by agentbox enroll"
#define AB_PAM_RUN_NAME		"agentbox-run"
#define AB_PAM_RUN_SERVICE	AB_PAM_D "/" AB_PAM_RUN_NAME
#define AB_STATE_DIR		"/etc/agentbox/enrolled"
#define AB_AUDITD_CONF		"/etc/audit/auditd.conf"
#define AB_AUDITD_BACKUP	"/etc/agentbox/auditd.conf.orig"
#define AB_AUDIT_RULES_DIR	"/etc/audit/rules.d"
#define AB_AUDIT_BACKLOG_RULES	"/etc/audit/rules.d/agentbox-00-backlog.rules"
#define AB_AUDIT_KEY		"agentbox"
#define AB_SSHD_DROPIN_DIR	"/etc/ssh/sshd_config.d"
#define AB_SSHD			"/usr/sbin/sshd"
#define AB_SSHD_PID		"/run/sshd.pid"
#define AB_SSHD_CONFIG		"/etc/ssh/sshd_config"

/*
 * unboxed.c: processes of an enrolled user outside any box (DESIGN invariant 3).
 * adm_unboxed_refuse: enroll's check: dies naming them, or with KILL_RUNNING ends them
 * (says so; --dry-run only says).  adm_unboxed_list: how many (or -errno), some named in
 * BUF.  adm_unboxed_watching: 1 if agentbox-maskd watches for new ones, 0 if not.
 */
int	adm_unboxed_refuse(const char *user, unsigned uid, int kill_running);
int	adm_unboxed_list(unsigned uid, char *buf, size_t len);
int	adm_unboxed_watching(void);

/* Messages (util.c).  die* never return; "agentbox: " is prepended. */
void	die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void	die_errno(int err, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
void	adm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Every change enroll/unenroll makes goes through act(): it prints what is being done
 * ("would ..." under --dry-run) and returns 1 when the caller should go ahead.
 */
extern int adm_dry_run;
extern int adm_quiet;
int	act(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Files (util.c). */
int	adm_read_file(const char *path, char **buf, size_t *len);
/* sessions.c: end UID's boxes (or only box ID), every process of each, then forget them
 * in the registry and write their agentbox-box-end records (reason=stop); *STOPPED
 * counts them.  0, or the -errno of the first box that did not end. */
int	adm_boxes_stop(uid_t uid, const char *box, unsigned *stopped);
/*
 * Replace PATH atomically (temp file in the same directory, fsync, rename).  An existing
 * file keeps its owner and mode; a new one is root-owned with MODE.
 */
int	adm_write_file(const char *path, const char *buf, size_t len, mode_t mode);
int	adm_unlink(const char *path);	/* ENOENT is success */
int	adm_mkdir_p(const char *path, mode_t mode);
/* Lines: whole-line matches, ignoring trailing whitespace. */
int	adm_has_line(const char *buf, const char *line);
/* New malloc'd buffer without any line equal to LINE; *removed counts them. */
char	*adm_without_line(const char *buf, const char *line, int *removed);
/*
 * Make PATH hold exactly TEXT.  If it already does: 0, nothing said or written.
 * Otherwise the change goes through act(FMT, ...); unless that says no (--dry-run,
 * which then reports it truthfully), DIR (when not NULL) is created with DIR_MODE and
 * PATH replaced with adm_write_file(MODE).  1 when PATH was written, 0 when not,
 * -errno on failure.
 */
int	adm_write_if_changed(const char *path, const char *text, mode_t mode,
	    const char *dir, mode_t dir_mode, const char *fmt, ...)
	    __attribute__((format(printf, 6, 7)));
/*
 * Drop every line of PATH equal to LINE (adm_has_line's match), through
 * act("remove WHAT from PATH").  With UNLINK_EMPTY a file left empty is removed
 * instead.  A missing PATH, or one without LINE, is left alone.  0 or -errno.
 */
int	adm_remove_line(const char *path, const char *line, const char *what, int unlink_empty);
int	adm_path_exists(const char *path);
/* String vectors: ab_strv_push, ab_strv_has, ab_strv_free (lib/abutil.h). */

/*
 * Run ARGV[0] (absolute) with a fixed environment, no shell.  When OUT is not NULL it
 * receives stdout (malloc'd, NUL-terminated, at most 1 MiB); stderr passes through
 * unless QUIET.  Returns the exit status (0..255), or -errno if it could not run.
 */
int	adm_run(const char *const argv[], char **out, int quiet);

/* Users (user.c). */
int	adm_user_ensure(const char *user, const char *shell, int *created);
int	adm_user_remove(const char *user);
int	adm_shells_remove(const char *shell);
/* Groups that hand out root-equivalent or host-wide powers. */
extern const char *const adm_privileged_groups[];

/* POSIX ACLs on project trees (acl.c).  Walks fd-relative, never follows symlinks. */
struct adm_acl_stats {
	unsigned long	dirs, files, skipped;
	unsigned long	masked;		/* given user:UID:--- (grant only) */
};
struct adm_acl_opts {
	/* The user's masks (grant), as the session decides them: ab_maskset_new with
	 * AB_MASKSET_MASKS over the home and the policy's projects; DIR is tree TREE of it.
	 * Matches get --- and are not entered.  NULL: nothing masked. */
	const struct ab_maskset *masks;
	size_t	tree;
	/* Called every few seconds during a long walk with the entry being visited. */
	void	(*progress)(const struct adm_acl_stats *st, const char *path, void *arg);
	void	*arg;
	long long progress_ns;	/* interval; 0: every 3 s */
};
int	adm_acl_grant(const char *dir, uid_t uid, const struct adm_acl_opts *opts,
	    struct adm_acl_stats *st, char *why, size_t whylen);
int	adm_acl_revoke(const char *dir, uid_t uid, const struct adm_acl_opts *opts,
	    struct adm_acl_stats *st, char *why, size_t whylen);
/* 1 if DIR's access and default ACL give UID rwx, 0 if not, -errno. */
int	adm_acl_check(const char *dir, uid_t uid);

/* PAM stacks (pam.c). */
int	adm_pam_enable(void);
int	adm_pam_disable(void);
/* Services whose session stack must run pam_agentbox (entry paths of DESIGN.md). */
extern const char *const adm_pam_services[];
/*
 * Expand SERVICE's session stack (following @include, include and substack) into the
 * list of module names in order; returns 0 or -errno.
 */
int	adm_pam_session_modules(const char *service, struct ab_strv *mods);

/* sshd (sshd.c). */
int	adm_sshd_dropin_path(const char *user, char *buf, size_t len);
int	adm_sshd_install(const char *user);
int	adm_sshd_remove(const char *user);
/* `sshd -T -C user=USER,...` output, or -errno / -ENOENT when sshd is absent. */
int	adm_sshd_effective(const char *user, char **out);
int	adm_sshd_reload(void);
/*
 * 1 if sshd -T output EFFECTIVE serves sftp inside sshd (Subsystem sftp internal-sftp,
 * or ForceCommand internal-sftp), bypassing the login shell (FINDINGS F8); else 0.
 */
int	adm_sshd_sftp_inprocess(const char *effective);
/* Name the config file that sets internal-sftp into BUF (the main file if not found). */
int	adm_sshd_sftp_source(char *buf, size_t len);
#define AB_SFTP_SERVER		"/usr/lib/openssh/sftp-server"

/* cron/at deny files (deny.c). */
int	adm_deny_add(const char *user);
int	adm_deny_remove(const char *user);
extern const char *const adm_deny_files[];

/* Audit rules, live and on disk (auditrules.c). */
#define ADM_AUDIT_NRULES 3	/* EACCES, EPERM, EROFS; every ABI */
int	adm_audit_rule_text(uid_t uid, size_t i, char *buf, size_t len);
int	adm_audit_rules_install(const char *user, uid_t uid);
int	adm_audit_rules_remove(const char *user, uid_t uid);
/* How many of the uid's rules are loaded in the kernel (0..ADM_AUDIT_NRULES), or -errno. */
int	adm_audit_rules_loaded(uid_t uid);
/* An audit socket, libaudit's own messages off (we report its errors).  Fd or -errno. */
int	adm_audit_open(void);
/* One listed rule (a struct audit_rule_data, its list in flags): costs no task
 * anything (user, exclude, filesystem lists), is agentbox's, or the host's own. */
enum { ADM_RULE_FREE, ADM_RULE_OURS, ADM_RULE_HOST };
struct audit_rule_data;
int	adm_audit_rule_class(const struct audit_rule_data *d);
/* Append the filter key KEY to *RULEP (libaudit's parser takes it only from auditctl). */
int	adm_audit_rule_add_key(struct audit_rule_data **rulep, const char *key);
int	adm_audit_backlog_install(void);
int	adm_audit_backlog_remove(void);
int	adm_audit_status(int *enabled, int *pid, unsigned *backlog_limit, unsigned *lost);

/* The audit scope rule (auditscope.c; pam_module/auditscope.c). */
struct adm_scope {
	uid_t		 agents[32];	/* AB_AUDITSCOPE_MAX + 1, sorted */
	size_t		 nagents;	/* agents with exit rules loaded (may exceed it) */
	int		 host_rules;	/* rules costing every task that are not agentbox's */
	int		 host_never;	/* of those, -a never,task: silence whom they match */
	int		 immutable;	/* loginuid is immutable */
	int		 loaded;	/* scope rules loaded now */
	int		 wanted;	/* a scope rule should be loaded ... */
	const char	*why_not;	/* ... or why not */
	int		 current;	/* what is loaded is what is wanted */
};
int	adm_audit_scope_state(struct adm_scope *st);
/* Make the loaded scope what the live rules ask for; ST says what it is now. */
int	adm_audit_scope_refresh(struct adm_scope *st, int off);
/* Say in one line what is loaded and why (or why not). */
void	adm_audit_scope_say(FILE *f, const struct adm_scope *st);
/* enroll's and unenroll's step: refresh, and say the result unless quiet. */
int	adm_audit_scope_update(void);
/* The wanted rule in auditctl's words. */
void	adm_audit_scope_text(const struct adm_scope *st, char *buf, size_t len);

/* auditd.conf (auditconf.c). */
struct adm_auditd_setting {
	const char *key, *value, *why;
};
extern const struct adm_auditd_setting adm_auditd_settings[];
int	adm_auditd_tune(void);
int	adm_auditd_restore(void);
/* Value of KEY in auditd.conf (malloc'd) or NULL. */
char	*adm_auditd_get(const char *conf, const char *key);
int	adm_auditd_reload(void);

/* Enrollment state (enroll.c): users enrolled by this tool. */
int	adm_enrolled_users(struct ab_strv *users);

/*
 * One field of a JSON object LINE (jsonl.c), as agentbox-audit --json prints them: a
 * string decoded into OUT (1), a number or true/false copied as written (2), null (0,
 * OUT empty); -ENOENT without KEY, -EINVAL when LINE is not a JSON object.  OUT is
 * always NUL-terminated; a longer value is cut.
 */
int	adm_jsonl_get(const char *line, const char *key, char *out, size_t cap);

/* What agentbox run (run.c) hands its summary (runsum.c). */
struct adm_run_result {
	const char	*user;
	unsigned	 ses;
	long long	 started;	/* epoch seconds, before the session opened */
	double		 secs;
	int		 exit_code;	/* ours: CMD's, or 128 + signal */
	int		 signal;	/* CMD was killed by it */
	int		 interrupted;	/* we ended the session on this signal */
	int		 ephemeral, have_eph, eph_partial;
	unsigned long	 created, modified, deleted;
};
/* On stderr, once the session has ended: its denials from agentbox-audit (AUDIT_BIN),
 * grouped, the ephemeral count, and the command that shows it all; JSON: one object. */
void	adm_run_summary(const char *audit_bin, const struct adm_run_result *res, int json);
/* A refused session: the reason from its refusal record, if auditd has it. */
void	adm_run_refusal(const char *audit_bin, const struct adm_run_result *res);

#endif
