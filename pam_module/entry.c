/*
 * entry.c: will the process that opens this session exec the agent's login shell?
 *
 * Landlock, seccomp and the clean environment are applied by agentbox-shell, the login
 * shell, because applying them here would confine su, sudo and sshd themselves (DESIGN.md,
 * "Why the split").  So an entry path that execs something other than the login shell
 * would give the agent the built world (namespaces, masks, private /tmp, pid 1) but no
 * Landlock, no seccomp and the caller's environment (LD_PRELOAD, BASH_ENV): invariant 1
 * says such a session must not start.  PAM gives a module no way to see what its caller
 * will exec, so we decide from what we can see, and refuse whatever we cannot vouch for:
 *
 *  - the service (PAM_SERVICE): sshd, login, sudo-i and agentbox-run (agentbox run,
 *    whose service file only root writes) always run the passwd shell;
 *    su, su-l, runuser and runuser-l do unless told otherwise on their command line;
 *    sudo (without -i) runs the command directly; cron and atd run /bin/sh; any
 *    service we do not know is refused, because we cannot tell what it runs;
 *  - for su and runuser, their own command line (/proc/self/cmdline, parsed the way
 *    util-linux's getopt_long parses it, options and operands permuted, clustered short
 *    options, abbreviated long options): -s/--shell with another shell, -u/--user
 *    (runuser's direct command mode), and -m/-p/--preserve-environment unless the
 *    caller's $SHELL is unset or is the login shell itself: su execs $SHELL then when
 *    the passwd shell is listed in /etc/shells, and always when root calls it.
 *    Anything the parser does not understand is refused.
 *
 * A hand-written parser because no library parses another program's argv for us; it
 * mirrors util-linux 2.38 su-common.c's option table and errs on the side of refusing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "module.h"

enum svc_kind {
	SVC_LOGIN_SHELL,	/* always execs the passwd shell */
	SVC_SU,			/* su-like: passwd shell unless -s / -m / -u */
	SVC_REFUSE,		/* never (or not knowably) the passwd shell */
};

static const struct svc {
	const char	*name;
	enum svc_kind	 kind;
	const char	*why;		/* for SVC_REFUSE */
} services[] = {
	{ "sshd",	SVC_LOGIN_SHELL, NULL },
	{ "login",	SVC_LOGIN_SHELL, NULL },
	{ "sudo-i",	SVC_LOGIN_SHELL, NULL },
	/* agentbox run (admin/run.c) execs the passwd shell with -c, nothing else. */
	{ "agentbox-run", SVC_LOGIN_SHELL, NULL },
	{ "su",		SVC_SU, NULL },
	{ "su-l",	SVC_SU, NULL },
	{ "runuser",	SVC_SU, NULL },
	{ "runuser-l",	SVC_SU, NULL },
	{ "sudo",	SVC_REFUSE,
	  "sudo without -i runs the command without the agent's login shell (use sudo -iu USER)" },
	{ "cron",	SVC_REFUSE, "cron runs jobs with /bin/sh, not the agent's login shell" },
	{ "atd",	SVC_REFUSE, "atd runs jobs with /bin/sh, not the agent's login shell" },
	{ "systemd-user", SVC_REFUSE, "systemd --user runs units without the agent's login shell" },
};

/* util-linux su/runuser long options, and whether each takes an argument. */
enum opt_id { O_SHELL, O_PRESERVE, O_USER, O_ARG, O_FLAG, O_STOP };

static const struct longopt {
	const char	*name;
	enum opt_id	 id;
} longopts[] = {
	{ "command",		O_ARG },
	{ "session-command",	O_ARG },
	{ "fast",		O_FLAG },
	{ "group",		O_ARG },
	{ "supp-group",		O_ARG },
	{ "login",		O_FLAG },
	{ "preserve-environment", O_PRESERVE },
	{ "pty",		O_FLAG },
	{ "shell",		O_SHELL },
	{ "user",		O_USER },	/* runuser only; refused either way */
	{ "whitelist-environment", O_ARG },
	{ "help",		O_STOP },
	{ "version",		O_STOP },
};

/* Short options: letter → meaning.  '-' alone is --login. */
static int
short_opt(char c, enum opt_id *id)
{
	switch (c) {
	case 's': *id = O_SHELL; return 0;
	case 'm': case 'p': *id = O_PRESERVE; return 0;
	case 'u': *id = O_USER; return 0;
	case 'c': case 'C': case 'g': case 'G': case 'w': *id = O_ARG; return 0;
	case 'f': case 'l': case 'P': *id = O_FLAG; return 0;
	case 'h': case 'V': *id = O_STOP; return 0;
	default: return -EINVAL;
	}
}

/* getopt_long accepts any unambiguous prefix of a long option ("--sh" is --shell). */
static int
long_opt(const char *arg, enum opt_id *id, const char **val)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg), i;
	int found = -1;

	for (i = 0; i < sizeof(longopts) / sizeof(longopts[0]); i++) {
		if (strncmp(longopts[i].name, arg, len) != 0)
			continue;
		if (longopts[i].name[len] == '\0') {	/* exact match wins */
			found = (int)i;
			break;
		}
		if (found != -1)
			return -EINVAL;			/* ambiguous */
		found = (int)i;
	}
	if (found == -1 || len == 0)
		return -EINVAL;
	*id = longopts[found].id;
	*val = eq ? eq + 1 : NULL;
	return 0;
}

struct verdict {
	const char	*pw_shell;
	const char	*caller_shell;	/* $SHELL of the process, NULL or "" if unset */
	const char	*why;
};

/* Decide on one option; VAL is its argument when it takes one. */
static int
judge(struct verdict *v, enum opt_id id, const char *val)
{
	switch (id) {
	case O_SHELL:
		if (val == NULL || strcmp(val, v->pw_shell) != 0) {
			v->why = "--shell would run another shell than the agent's login shell";
			return -EPERM;
		}
		return 0;
	case O_PRESERVE:
		if (v->caller_shell != NULL && v->caller_shell[0] != '\0' &&
		    strcmp(v->caller_shell, v->pw_shell) != 0) {
			v->why = "--preserve-environment would run the caller's $SHELL, not the "
			    "agent's login shell";
			return -EPERM;
		}
		return 0;
	case O_USER:
		v->why = "runuser -u runs the command without the agent's login shell";
		return -EPERM;
	default:
		return 0;
	}
}

static int
takes_arg(enum opt_id id)
{
	return id == O_ARG || id == O_SHELL || id == O_USER;
}

/* A cluster of short options ("-mc", "-s/bin/sh"). */
static int
judge_cluster(struct verdict *v, int argc, char *const argv[], int *i)
{
	const char *p = argv[*i] + 1;
	enum opt_id id;
	int r;

	for (; *p != '\0'; p++) {
		if (short_opt(*p, &id) != 0) {
			v->why = "unknown option on the su/runuser command line";
			return -EPERM;
		}
		if (!takes_arg(id)) {
			if ((r = judge(v, id, NULL)) != 0)
				return r;
			continue;
		}
		if (p[1] != '\0')
			return judge(v, id, p + 1);	/* rest of the word is the argument */
		if (*i + 1 >= argc) {
			v->why = "option without its argument on the su/runuser command line";
			return -EPERM;
		}
		return judge(v, id, argv[++*i]);
	}
	return 0;
}

static int
judge_long(struct verdict *v, int argc, char *const argv[], int *i)
{
	const char *val;
	enum opt_id id;

	if (long_opt(argv[*i] + 2, &id, &val) != 0) {
		v->why = "unknown or ambiguous option on the su/runuser command line";
		return -EPERM;
	}
	if (takes_arg(id) && val == NULL) {
		if (*i + 1 >= argc) {
			v->why = "option without its argument on the su/runuser command line";
			return -EPERM;
		}
		val = argv[++*i];
	}
	return judge(v, id, val);
}

/*
 * su/runuser command line.  getopt_long permutes, so options after the user name
 * count too; "--" ends the options (what follows goes to the shell as its arguments).
 */
static int
judge_su_argv(struct verdict *v, int argc, char *const argv[])
{
	int i, r;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-' || a[1] == '\0')	/* operand, or "-" (= --login) */
			continue;
		r = a[1] == '-' ? judge_long(v, argc, argv, &i) : judge_cluster(v, argc, argv, &i);
		if (r != 0)
			return r;
	}
	return 0;
}

int
ab_entry_check(const char *service, int argc, char *const argv[], const char *pw_shell,
    const char *caller_shell, const char **why)
{
	struct verdict v = { pw_shell, caller_shell, NULL };
	size_t i;

	for (i = 0; i < sizeof(services) / sizeof(services[0]); i++) {
		if (strcmp(services[i].name, service) != 0)
			continue;
		switch (services[i].kind) {
		case SVC_LOGIN_SHELL:
			return 0;
		case SVC_REFUSE:
			*why = services[i].why;
			return -EPERM;
		case SVC_SU:
			if (judge_su_argv(&v, argc, argv) == 0)
				return 0;
			*why = v.why;
			return -EPERM;
		}
	}
	*why = "unknown PAM service: agentbox cannot tell that it runs the agent's login shell";
	return -EPERM;
}

/* Our own argv, from /proc/self/cmdline (the host's /proc, opened before ours hid it). */
#define CMDLINE_MAX	(64 * 1024)
#define ARGV_MAX	512

static int
read_cmdline(int procfd, char *buf, size_t cap, char **argv, int *argc)
{
	size_t len = 0, i;
	ssize_t n;
	int fd;

	if ((fd = openat(procfd, "self/cmdline", O_RDONLY | O_CLOEXEC)) == -1)
		return -errno;
	while (len < cap - 1 && (n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	if (n == -1 && len < cap - 1) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	if (len == cap - 1)
		return -E2BIG;		/* too long to judge: refuse rather than judge a prefix */
	buf[len] = '\0';
	*argc = 0;
	for (i = 0; i < len; i += strlen(buf + i) + 1) {
		if (*argc == ARGV_MAX)
			return -E2BIG;
		argv[(*argc)++] = buf + i;
	}
	argv[*argc] = NULL;
	return 0;
}

int
ab_entry_verify(struct ab_sess *s, const char *service, const char *pw_shell)
{
	static const char shell_name[] = "agentbox-shell";
	const char *base = strrchr(pw_shell, '/'), *why = NULL;
	char *argv[ARGV_MAX + 1], *buf;
	int argc = 0, r;

	base = base ? base + 1 : pw_shell;
	if (strcmp(base, shell_name) != 0)
		return ab_sess_fail(s, -EPERM, "the login shell of %s is %s, not %s: "
		    "run agentbox enroll again", s->user, pw_shell, shell_name);
	if ((buf = malloc(CMDLINE_MAX)) == NULL)
		return ab_sess_fail(s, -ENOMEM, "entry check: out of memory");
	if ((r = read_cmdline(s->procfd, buf, CMDLINE_MAX, argv, &argc)) != 0) {
		free(buf);
		return ab_sess_fail(s, r, "read /proc/self/cmdline: %s", strerror(-r));
	}
	/* su runs in the caller's environment until it execs: $SHELL is what su -m takes. */
	r = ab_entry_check(service, argc, argv, pw_shell, getenv("SHELL"), &why);
	free(buf);
	if (r != 0)
		return ab_sess_fail(s, r, "service %s: %s", service, why);
	return 0;
}
