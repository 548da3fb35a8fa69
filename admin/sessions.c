/*
 * agentbox sessions [--json]: the live sessions of enrolled users.
 *
 * A session is found by its pid 1: a root process named agentbox-init that is pid 1 of
 * its own pid namespace (NSpid "HOST 1").  For each: the session plan the PAM module
 * left in the session's mount namespace (/proc/INIT/root/run/agentbox/session.plan,
 * parsed with ab_plan_parse) names the user, service and tty; /proc gives the audit
 * session id, the start time and how many processes share the pid namespace.  Only
 * /proc is read; nothing is entered or signalled.
 *
 * A session is a box (persist = yes: one box, many logins over time).  Its id is the
 * audit session id of its pid 1, i.e. of the login that built it.  Its logins now are
 * its processes whose parent lives outside the box (ppid 0 in the box's /proc: the
 * shell su forked, sshd's session process), as agentbox-init counts them for linger.
 *
 * agentbox stop USER [--box ID]: SIGKILL the pid 1 of USER's boxes (or box ID), by
 * pidfd, wait until each is gone (the kernel kills the rest of the box first), forget
 * it in the registry (AB_BOX_DIR/UID) and write its agentbox-box-end record
 * (reason=stop), holding the registry's lock throughout (maskd/boxend.c).
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
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libaudit.h>

#include "abutil.h"
#include "admin.h"
#include "cmd.h"
#include "maskd.h"


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
	int		 persist;
	unsigned	 linger;
	char		 digest[17];	/* the policy digest's first 16 hex digits */
	char		 logins[256];	/* "SES:PID SES:PID": its logins now */
	unsigned	 nlogins;
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

/* A login of S's box: PID's parent is outside the box (NSpid's inner pid > 1 and
 * PPid, as the box sees it, 0).  Appended to S->logins as "SES:PID". */
static void
note_login(struct session *s, pid_t pid)
{
	char *status, ppid[32], nspid[64], *ses, *inner;
	size_t at = strlen(s->logins);

	if ((status = proc_slurp(pid, "status")) == NULL)
		return;
	/* PPid in /proc/PID/status is the parent as the reader's (host) pid namespace sees
	 * it; the box's view is /proc/PID/stat read inside.  Parent outside the box: its
	 * host pid is not one of the box's, i.e. its pid namespace differs. */
	if (ab_status_field(status, "PPid", ppid, sizeof(ppid)) == 0 &&
	    ab_status_field(status, "NSpid", nspid, sizeof(nspid)) == 0 &&
	    (inner = strrchr(nspid, '\t')) != NULL && strcmp(inner + 1, "1") != 0) {
		char link[32];

		if (ns_link((pid_t)atoi(ppid), link, sizeof(link)) == 0 &&
		    strcmp(link, s->pidns) != 0 && (ses = proc_slurp(pid, "sessionid")) != NULL) {
			if (at + 32 < sizeof(s->logins))
				snprintf(s->logins + at, sizeof(s->logins) - at, "%s%s:%d",
				    at > 0 ? " " : "", ses, (int)pid);
			s->nlogins++;
			free(ses);
		}
	}
	free(status);
}

static unsigned long
count_in_ns(struct session *s)
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
		    strcmp(link, s->pidns) == 0) {
			n++;
			note_login(s, (pid_t)atoi(de->d_name));
		}
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
		s->persist = plan->policy->persist == AB_YES;
		s->linger = plan->policy->linger;
		for (size_t i = 0; i < 8; i++)
			snprintf(s->digest + 2 * i, 3, "%02x", plan->policy->digest[i]);
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
		s->procs = count_in_ns(s);
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
session_free(struct session *s)
{
	free(s->service);
	free(s->tty);
	free(s->rhost);
}

/* The next session's pid 1 in /proc (D), collected into S: 1, or 0 at the end. */
static int
next_session(DIR *d, time_t btime, struct session *s)
{
	struct dirent *de;

	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		memset(s, 0, sizeof(*s));
		s->pid = (pid_t)atoi(de->d_name);
		if (!ab_proc_is_box_init(s->pid))
			continue;
		collect(s, btime);
		return 1;
	}
	return 0;
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
		printf(",\"box\":");
		json_str(s->ses);
		printf(",\"persist\":%s,\"linger\":%u,\"digest\":", s->persist ? "true" : "false",
		    s->linger);
		json_str(s->digest);
		printf(",\"logins\":");
		json_str(s->logins);
		printf(",\"nlogins\":%u", s->nlogins);
		printf(",\"plan\":%s}\n", s->plan_ok ? "true" : "false");
		return;
	}
	safe_col(s->user, 16);
	printf(" %8d %6s %6lu %6u %-7s %-16s %-20s ", (int)s->pid, s->ses, s->procs,
	    s->nlogins, s->persist ? "persist" : "login", s->digest[0] ? s->digest : "?", when);
	safe_col(s->service ? s->service : "?", 8);
	putchar(' ');
	safe_col(s->tty && s->tty[0] ? s->tty : "-", 0);
	if (s->rhost && s->rhost[0]) {
		fputs(" from ", stdout);
		safe_col(s->rhost, 0);
	}
	putchar('\n');
	if (s->logins[0])
		printf("  logins (ses:pid): %s\n", s->logins);
}

int
cmd_sessions(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct session s;
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
		printf("%-16s %8s %6s %6s %6s %-7s %-16s %-20s %-8s %s\n", "USER", "INIT_PID",
		    "BOX", "PROCS", "LOGINS", "KIND", "DIGEST", "STARTED", "SERVICE", "TTY");
	while (next_session(d, btime, &s)) {
		print_session(&s, json);
		session_free(&s);
		n++;
	}
	closedir(d);
	if (!json && n == 0)
		printf("(no live agentbox sessions)\n");
	return 0;
}

/* SIGKILL the box whose pid 1 is S->pid, if that process still is a box's pid 1. */
static int
stop_box(const struct session *s)
{
	struct pollfd pfd;
	int fd, r;

	if ((fd = pidfd_open(s->pid, 0)) == -1)
		return errno == ESRCH ? 0 : -errno;
	/* Checked after the pidfd is open: a pid reused before is not a box's pid 1. */
	if (!ab_proc_is_box_init(s->pid)) {
		close(fd);
		return 0;
	}
	if (pidfd_send_signal(fd, SIGKILL, NULL, 0) == -1 && errno != ESRCH) {
		r = -errno;
		close(fd);
		return r;
	}
	/* Readable once pid 1 exited: every other process of the box is gone by then. */
	pfd.fd = fd;
	pfd.events = POLLIN;
	while ((r = poll(&pfd, 1, 5000)) == -1 && errno == EINTR)
		;
	close(fd);
	return r == 1 ? 0 : r == 0 ? -ETIMEDOUT : -errno;
}

static void
box_end_record(const struct session *s)
{
	int fd;

	if ((fd = ab_maskd_audit_open()) < 0) {
		adm_warn("no audit record of the end of box %s: %s", s->ses, strerror(-fd));
		return;
	}
	if (ab_box_end_record(fd, s->ses, s->user, s->uid, s->pid, "stop") != 0)
		adm_warn("could not write the end record of box %s", s->ses);
	audit_close(fd);
}

/*
 * End box S, holding its user's registry lock throughout (maskd/boxend.c): a login
 * waits, and agentbox-maskd, seeing pid 1 end, leaves the record to us.  The registry
 * forgets it only if it is the box there (a box of agentbox run is not registered).
 */
static int
end_box(const struct session *s)
{
	struct ab_box_entry g;
	int lock = ab_box_registry_lock(s->uid, 1), r, t;

	if ((r = stop_box(s)) == 0) {
		if (lock >= 0 && (t = ab_box_registry_take(lock, s->ses, &g)) < 0)
			adm_warn("forget box %s in %s/%u: %s", s->ses, AB_BOX_DIR, s->uid,
			    strerror(-t));
		box_end_record(s);
	}
	if (lock >= 0)
		close(lock);
	return r;
}

int
adm_boxes_stop(uid_t uid, const char *box, unsigned *stopped)
{
	struct session s;
	time_t btime;
	int r, first = 0;
	DIR *d;

	*stopped = 0;
	if ((d = opendir("/proc")) == NULL)
		return -errno;
	btime = boot_time();
	while (next_session(d, btime, &s)) {
		if (s.uid == (unsigned)uid && (box == NULL || strcmp(box, s.ses) == 0)) {
			if ((r = end_box(&s)) != 0) {
				adm_warn("box %s of %s (pid 1 %d) did not end: %s", s.ses, s.user,
				    (int)s.pid, strerror(-r));
				if (first == 0)
					first = r;
			} else {
				if (!adm_quiet)
					printf("stopped box %s of %s (pid 1 %d, %lu processes)\n",
					    s.ses, s.user, (int)s.pid, s.procs);
				(*stopped)++;
			}
		}
		session_free(&s);
	}
	closedir(d);
	return first;
}

int
cmd_stop(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "box", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *box = NULL, *usage = "usage: agentbox stop USER [--box ID]\n";
	struct passwd *pw;
	unsigned n = 0;
	int c, r, rc = 0;

	while ((c = getopt_long(argc, argv, "b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': box = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(usage, stderr);
		return 2;
	}
	if ((pw = getpwnam(argv[optind])) == NULL)
		die("stop: no such user: %s", argv[optind]);
	if (pw->pw_uid == 0)
		die("stop: root has no box");
	if (geteuid() != 0)
		die("stop: must be root");
	if ((r = adm_boxes_stop(pw->pw_uid, box, &n)) != 0)
		rc = 1;
	if (n == 0 && rc == 0) {
		fprintf(stderr, "agentbox: stop: no box%s%s of %s\n", box ? " " : "", box ? box : "",
		    pw->pw_name);
		return 1;
	}
	return rc;
}
