/*
 * agentbox sessions [--json]: the live sessions of enrolled users.
 *
 * A session is found by its pid 1: a root process named agentbox-init that is pid 1 of
 * its own pid namespace (NSpid "HOST 1").  For each: the session plan the PAM module
 * left in the session's mount namespace (/proc/INIT/root/run/agentbox/session.plan,
 * parsed with ab_plan_parse) names the user, service and tty; /proc gives the audit
 * session id, the start time and how many processes share the pid namespace.  Only
 * /proc is read; nothing is entered or signalled.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "abutil.h"
#include "admin.h"
#include "cmd.h"

#define INIT_COMM "agentbox-init"

struct session {
	pid_t		 pid;
	char		 user[64];
	unsigned	 uid;
	char		 ses[16];
	unsigned long	 procs;
	time_t		 started;
	char		 pidns[32];
	char		*service, *tty, *rhost;
	int		 plan_ok;
};

/* /proc files report size 0: read them with stdio instead. */
static char *
proc_slurp(pid_t pid, const char *what)
{
	char path[64], *line = NULL, *all = NULL;
	size_t cap = 0, len = 0;
	FILE *f, *m;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	if ((m = open_memstream(&all, &len)) == NULL) {
		fclose(f);
		return NULL;
	}
	while ((n = getline(&line, &cap, f)) > 0)
		fwrite(line, 1, (size_t)n, m);
	free(line);
	fclose(f);
	if (fclose(m) != 0) {
		free(all);
		return NULL;
	}
	return all;
}

static int
status_field(const char *status, const char *key, char *out, size_t len)
{
	const char *p = status;
	size_t kl = strlen(key);

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, kl) == 0 && p[kl] == ':') {
			p += kl + 1;
			p += strspn(p, " \t");
			snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
			return 0;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return -ENOENT;
}

/* Is PID a session's pid 1: comm agentbox-init, root, and "NSpid: PID 1"? */
static int
is_session_init(pid_t pid)
{
	char *status, field[128], want[64];
	int r = 0;

	if ((status = proc_slurp(pid, "status")) == NULL)
		return 0;
	snprintf(want, sizeof(want), "%d\t1", (int)pid);
	if (status_field(status, "Name", field, sizeof(field)) == 0 &&
	    strcmp(field, INIT_COMM) == 0 &&
	    status_field(status, "Uid", field, sizeof(field)) == 0 &&
	    strtoul(field, NULL, 10) == 0 &&
	    status_field(status, "NSpid", field, sizeof(field)) == 0 &&
	    strcmp(field, want) == 0)
		r = 1;
	free(status);
	return r;
}

static time_t
boot_time(void)
{
	char line[256];
	time_t t = 0;
	FILE *f;

	if ((f = fopen("/proc/stat", "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "btime ", 6) == 0)
			t = (time_t)strtoll(line + 6, NULL, 10);
	fclose(f);
	return t;
}

static time_t
start_time(pid_t pid, time_t btime)
{
	char *stat = proc_slurp(pid, "stat"), *p;
	unsigned long long ticks = 0;
	int field;

	/* Field 22, counted after the ")" that ends comm (comm may hold spaces). */
	if (stat == NULL || (p = strrchr(stat, ')')) == NULL) {
		free(stat);
		return 0;
	}
	for (field = 2; p != NULL && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		ticks = strtoull(p + 1, NULL, 10);
	free(stat);
	return btime + (time_t)(ticks / (unsigned long long)sysconf(_SC_CLK_TCK));
}

static int
ns_link(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if ((n = readlink(path, buf, len - 1)) < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static unsigned long
count_in_ns(const char *ns)
{
	char link[32];
	struct dirent *de;
	unsigned long n = 0;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (ns_link((pid_t)atoi(de->d_name), link, sizeof(link)) == 0 &&
		    strcmp(link, ns) == 0)
			n++;
	}
	closedir(d);
	return n;
}

static void
read_plan(struct session *s)
{
	char path[PATH_MAX], *buf;
	struct ab_plan *plan;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/root" AB_PLAN_PATH, (int)s->pid);
	if (adm_read_file(path, &buf, &len) != 0)
		return;
	if (ab_plan_parse(buf, len, &plan) == 0) {
		snprintf(s->user, sizeof(s->user), "%s", plan->policy->user);
		s->uid = (unsigned)plan->uid;
		s->service = strdup(plan->service ? plan->service : "");
		s->tty = strdup(plan->tty ? plan->tty : "");
		s->rhost = strdup(plan->rhost ? plan->rhost : "");
		s->plan_ok = 1;
		ab_plan_free(plan);
	}
	free(buf);
}

static void
collect(struct session *s, time_t btime)
{
	char *ses, *luid;
	struct passwd *pw;

	snprintf(s->user, sizeof(s->user), "?");
	s->uid = (unsigned)-1;
	ses = proc_slurp(s->pid, "sessionid");
	snprintf(s->ses, sizeof(s->ses), "%s", ses ? ses : "?");
	free(ses);
	s->started = start_time(s->pid, btime);
	if (ns_link(s->pid, s->pidns, sizeof(s->pidns)) == 0)
		s->procs = count_in_ns(s->pidns);
	read_plan(s);
	if (!s->plan_ok && (luid = proc_slurp(s->pid, "loginuid")) != NULL) {
		/* No readable plan: the loginuid the module set still names the user. */
		s->uid = (unsigned)strtoul(luid, NULL, 10);
		if ((pw = getpwuid(s->uid)) != NULL)
			snprintf(s->user, sizeof(s->user), "%s", pw->pw_name);
		else
			snprintf(s->user, sizeof(s->user), "#%u", s->uid);
		free(luid);
	}
}

/*
 * The plan's tty and rhost are PAM items a client may choose, and a name cut to fit
 * struct session can end inside a UTF-8 sequence: ab_text_put_json keeps the line
 * valid JSON whatever the bytes (U+FFFD for invalid UTF-8).
 */
static void
json_str(const char *s)
{
	ab_text_put_json(stdout, s ? s : "", s ? strlen(s) : 0);
}

/*
 * One table column of S: tty, rhost and service are PAM items the client chooses, and
 * a terminal must never receive their control, C1 or bidi characters raw.  WIDTH > 0
 * cuts and pads to WIDTH columns; 0 writes it whole.
 */
static void
safe_col(const char *s, size_t width)
{
	size_t cols = ab_text_put_safe(stdout, s, strlen(s), width, AB_TEXT_ESC_BACKSLASH);

	while (cols++ < width)
		putchar(' ');
}

static void
print_session(const struct session *s, int json)
{
	char when[32];
	struct tm tm;

	gmtime_r(&s->started, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (json) {
		printf("{\"v\":1,\"init_pid\":%d,\"user\":", (int)s->pid);
		json_str(s->user);
		printf(",\"uid\":%d,\"session\":", s->uid == (unsigned)-1 ? -1 : (int)s->uid);
		json_str(s->ses);
		printf(",\"procs\":%lu,\"started\":", s->procs);
		json_str(when);
		printf(",\"service\":");
		json_str(s->service);
		printf(",\"tty\":");
		json_str(s->tty);
		printf(",\"rhost\":");
		json_str(s->rhost);
		printf(",\"pidns\":");
		json_str(s->pidns);
		printf(",\"plan\":%s}\n", s->plan_ok ? "true" : "false");
		return;
	}
	safe_col(s->user, 16);
	printf(" %8d %6s %6lu  %-20s ", (int)s->pid, s->ses, s->procs, when);
	safe_col(s->service ? s->service : "?", 8);
	putchar(' ');
	safe_col(s->tty && s->tty[0] ? s->tty : "-", 0);
	if (s->rhost && s->rhost[0]) {
		fputs(" from ", stdout);
		safe_col(s->rhost, 0);
	}
	putchar('\n');
}

int
cmd_sessions(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dirent *de;
	int c, json = 0;
	unsigned n = 0;
	time_t btime;
	DIR *d;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h': printf("usage: agentbox sessions [--json]\n"); return 0;
		default: fprintf(stderr, "usage: agentbox sessions [--json]\n"); return 2;
		}
	}
	if (geteuid() != 0)
		adm_warn("not root: sessions of other users may be invisible");
	if ((d = opendir("/proc")) == NULL)
		die_errno(errno, "open /proc");
	btime = boot_time();
	if (!json)
		printf("%-16s %8s %6s %6s  %-20s %-8s %s\n", "USER", "INIT_PID", "SES", "PROCS",
		    "STARTED", "SERVICE", "TTY");
	while ((de = readdir(d)) != NULL) {
		struct session s = { 0 };
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		s.pid = (pid_t)atoi(de->d_name);
		if (!is_session_init(s.pid))
			continue;
		collect(&s, btime);
		print_session(&s, json);
		free(s.service);
		free(s.tty);
		free(s.rhost);
		n++;
	}
	closedir(d);
	if (!json && n == 0)
		printf("(no live agentbox sessions)\n");
	return 0;
}
