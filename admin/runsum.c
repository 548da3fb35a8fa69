/*
 * The summary `agentbox run` prints on stderr when the session has ended: its id, what
 * was denied, grouped (files, network, syscalls) with counts and the rule that stopped
 * each, what --ephemeral threw away, and the agentbox-audit command that shows it all.
 *
 * The denials come from agentbox-audit itself (`--json --session N`, one object per
 * denial, read as it streams): one review tool, one reading of the audit log.  auditd
 * writes asynchronously, so we first wait, briefly, until the session's end record is
 * in the log; the kernel emits the session's denials before it, in order.
 *
 * Only the logs written to since the session started can hold its records, and a busy
 * host rotates often (here: 64 MiB a few times a minute, a gigabyte kept): we open those
 * ourselves, newest first as agentbox-audit does (a rotation meanwhile renames files, it
 * cannot take an open one away; one opened twice is skipped by inode), and hand them to
 * it as /dev/fd/N, oldest first.  Whether the session's record is complete is judged on
 * the session's own span, as its row says (lost_during), not on the host's whole log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"

#define WAIT_END_MS	3000	/* for auditd to write the end record */
#define GROUPS_MAX	256	/* distinct (group, access, object, rule) rows kept */
#define SHOW_MAX	10	/* rows printed per group; the rest are counted */
#define FIELD_MAX	1024
#define AUDIT_LOG	"/var/log/audit/audit.log"
#define LOGS_MAX	64

enum grp { G_FILES, G_NET, G_SYS, G_N };
static const char *const grp_name[G_N] = { "files", "network", "syscalls" };

struct row {
	enum grp	 g;
	char		*kind, *access, *object, *rule;
	unsigned long	 count;
};

/* The logs that may hold records written since SINCE: fds, oldest first; 0 or -errno. */
struct logs {
	int	 fd[LOGS_MAX];
	size_t	 n;
};

static void
logs_close(struct logs *l)
{
	while (l->n > 0)
		close(l->fd[--l->n]);
}

static int
logs_open(struct logs *l, long long since)
{
	ino_t ino[LOGS_MAX];
	char path[64];
	struct stat st;
	size_t i, k;
	int fd, tmp;

	l->n = 0;
	for (k = 0; l->n < LOGS_MAX; k++) {
		if (k == 0)
			snprintf(path, sizeof(path), AUDIT_LOG);
		else
			snprintf(path, sizeof(path), AUDIT_LOG ".%zu", k);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
			if (errno == ENOENT && k > 0)
				break;
			logs_close(l);
			return -errno;
		}
		if (fstat(fd, &st) == -1) {
			close(fd);
			logs_close(l);
			return -errno;
		}
		for (i = 0; i < l->n && ino[i] != st.st_ino; i++)
			;
		if (i < l->n || (k > 0 && (long long)st.st_mtime < since - 1)) {
			close(fd);
			if (i < l->n)
				continue;	/* rotated under us: open already */
			break;			/* older than the session: so are the rest */
		}
		ino[l->n] = st.st_ino;
		l->fd[l->n++] = fd;
	}
	for (i = 0; i < l->n / 2; i++) {	/* oldest first */
		tmp = l->fd[i];
		l->fd[i] = l->fd[l->n - 1 - i];
		l->fd[l->n - 1 - i] = tmp;
	}
	return 0;
}

struct sum {
	struct row	 rows[GROUPS_MAX];
	size_t		 nrows;
	unsigned long	 by_grp[G_N];
	unsigned long	 learned;	/* of them, let through by learn = yes */
	unsigned long	 unkept[G_N];	/* denials of rows past GROUPS_MAX */
	int		 complete;	/* agentbox-audit's exit status said so */
	int		 ran;		/* agentbox-audit could be run */
};

/* agentbox-audit ARGV with stdout to a pipe we read, stderr to /dev/null, and the logs
 * L as its inputs (inherited fds). */
static FILE *
spawn(const char *const argv[], const struct logs *l, pid_t *pid)
{
	char *full[32 + 2 * LOGS_MAX], names[LOGS_MAX][24];
	size_t n = 0, i;
	static char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
	int pfd[2], devnull;
	FILE *f;

	if (pipe2(pfd, O_CLOEXEC) == -1)
		return NULL;
	fflush(NULL);
	if ((*pid = fork()) == -1) {
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (*pid == 0) {
		if (dup2(pfd[1], STDOUT_FILENO) == -1 ||
		    (devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1 ||
		    dup2(devnull, STDERR_FILENO) == -1)
			_exit(127);
		while (argv[n] != NULL && n < 30) {
			full[n] = (char *)argv[n];
			n++;
		}
		for (i = 0; i < l->n; i++) {
			if (fcntl(l->fd[i], F_SETFD, 0) == -1)
				_exit(127);
			snprintf(names[i], sizeof(names[i]), "/dev/fd/%d", l->fd[i]);
			full[n++] = "--input";
			full[n++] = names[i];
		}
		/* The host's own logs: its kernel's lost counter applies. */
		full[n++] = "--kernel-status";
		full[n] = NULL;
		execve(full[0], full, envp);
		_exit(127);
	}
	close(pfd[1]);
	if ((f = fdopen(pfd[0], "re")) == NULL)
		close(pfd[0]);
	return f;
}

/* Wait for PID; its exit status, or -1. */
static int
reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run agentbox-audit with ARGV over the logs since SINCE and hand each output line to
 * FN; its exit status, or -1. */
static int
each_line(const char *const argv[], long long since, void (*fn)(void *, const char *),
    void *arg)
{
	struct logs l;
	char *line = NULL;
	size_t cap = 0;
	pid_t pid;
	FILE *f;

	if (logs_open(&l, since) != 0 || l.n == 0)
		return -1;
	f = spawn(argv, &l, &pid);
	logs_close(&l);
	if (f == NULL)
		return -1;
	while (getline(&line, &cap, f) != -1)
		fn(arg, line);
	free(line);
	fclose(f);
	return reap(pid);
}

struct find_end {
	int	 seen_end;
	int	 clean;		/* no record lost during the session's span */
	int	 refused;
	char	 reason[FIELD_MAX];
};

static void
on_session_line(void *arg, const char *line)
{
	struct find_end *fe = arg;
	char v[FIELD_MAX];

	if (adm_jsonl_get(line, "refused", v, sizeof(v)) == 2 && strcmp(v, "true") == 0) {
		if (adm_jsonl_get(line, "reason", fe->reason, sizeof(fe->reason)) == 1)
			fe->refused = 1;
		return;
	}
	if (adm_jsonl_get(line, "end", v, sizeof(v)) == 1)
		fe->seen_end = 1;
	fe->clean = adm_jsonl_get(line, "lost_during", v, sizeof(v)) == 2 &&
	    strcmp(v, "0") == 0;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* ---- grouping ------------------------------------------------------------------------ */

static enum grp
group_of(const char *kind, const char *access)
{
	if (strcmp(kind, "net") == 0 || strncmp(access, "net.", 4) == 0 ||
	    strstr(access, "abstract_unix") != NULL)
		return G_NET;
	if (strcmp(kind, "seccomp") == 0 || strncmp(access, "scope.", 6) == 0)
		return G_SYS;
	return G_FILES;		/* landlock fs.*, dac */
}

/* The rule in the words of the policy, then the record's own name for it. */
static void
rule_words(const char *line, const char *kind, const char *access, char *out, size_t cap)
{
	char rule[FIELD_MAX] = "", v[64] = "";

	(void)adm_jsonl_get(line, "rule", rule, sizeof(rule));
	/* learn = yes: it got through; the row says an enforcing session would refuse it
	 * ("learn" is a JSON literal: adm_jsonl_get says 2). */
	if (adm_jsonl_get(line, "learn", v, sizeof(v)) == 2 && strcmp(v, "true") == 0)
		snprintf(out, cap, "learning: allowed and recorded, enforcing would refuse "
		    "it [%s]", rule);
	else if (strcmp(kind, "landlock") == 0 && strncmp(access, "fs.", 3) == 0)
		snprintf(out, cap, "Landlock: outside the policy's read/write/project paths [%s]",
		    rule);
	else if (strcmp(kind, "landlock") == 0 && strncmp(access, "net.", 4) == 0)
		snprintf(out, cap, "Landlock: port not allowed by network = [%s]", rule);
	else if (strcmp(kind, "landlock") == 0)
		snprintf(out, cap, "Landlock scope: outside the session [%s]", rule);
	else if (strcmp(kind, "seccomp") == 0)
		snprintf(out, cap, "seccomp deny list [%s]", rule);
	else if (strcmp(kind, "dac") == 0) {
		(void)adm_jsonl_get(line, "exit", v, sizeof(v));
		snprintf(out, cap, "%s [%s]", strcmp(v, "-30") == 0 ? "protect: read-only" :
		    strcmp(v, "-13") == 0 ? "mask or file permissions" : strcmp(v, "-1") == 0 ?
		    "live mask (agentbox-maskd) or permissions" : "permissions", rule);
	} else if (strcmp(kind, "net") == 0) {
		(void)adm_jsonl_get(line, "reason", v, sizeof(v));
		snprintf(out, cap, "agentbox-netd: %s%s%s", v[0] ? v : "denied",
		    rule[0] ? ", rule " : "", rule);
	} else
		snprintf(out, cap, "%s", rule);
}

/* What was denied: a path, a host:port, an address, or the system call. */
static void
object_of(const char *line, enum grp g, const char *access, char *out, size_t cap)
{
	char host[FIELD_MAX] = "", port[32] = "";

	if (adm_jsonl_get(line, "host", host, sizeof(host)) == 1) {
		(void)adm_jsonl_get(line, "port", port, sizeof(port));
		snprintf(out, cap, "%s%s%s", host, port[0] ? ":" : "", port);
		return;
	}
	if (adm_jsonl_get(line, "path", out, cap) == 1 && out[0] != '\0')
		return;
	if (adm_jsonl_get(line, "addr", out, cap) == 1 && out[0] != '\0')
		return;
	snprintf(out, cap, "%s", g == G_SYS ? access : "?");
}

static int
same(const struct row *r, enum grp g, const char *access, const char *object,
    const char *rule)
{
	return r->g == g && strcmp(r->access, access) == 0 && strcmp(r->object, object) == 0 &&
	    strcmp(r->rule, rule) == 0;
}

static void
on_denial(void *arg, const char *line)
{
	char kind[32], access[128], object[FIELD_MAX], rule[FIELD_MAX + 96];
	struct sum *s = arg;
	struct row *r;
	enum grp g;
	size_t i;

	if (adm_jsonl_get(line, "kind", kind, sizeof(kind)) != 1 ||
	    adm_jsonl_get(line, "access", access, sizeof(access)) != 1)
		return;
	g = group_of(kind, access);
	object_of(line, g, access, object, sizeof(object));
	rule_words(line, kind, access, rule, sizeof(rule));
	s->by_grp[g]++;
	if (strncmp(rule, "learning:", 9) == 0)
		s->learned++;
	for (i = 0; i < s->nrows; i++)
		if (same(&s->rows[i], g, access, object, rule)) {
			s->rows[i].count++;
			return;
		}
	if (s->nrows == GROUPS_MAX) {
		s->unkept[g]++;
		return;
	}
	r = &s->rows[s->nrows];
	if ((r->kind = strdup(kind)) == NULL || (r->access = strdup(access)) == NULL ||
	    (r->object = strdup(object)) == NULL || (r->rule = strdup(rule)) == NULL)
		die("out of memory");
	r->g = g;
	r->count = 1;
	s->nrows++;
}

/* ---- printing ------------------------------------------------------------------------ */

static void
put_safe(const char *s)
{
	ab_text_put_safe(stderr, s, strlen(s), 0, 0);
}

static void
put_json(const char *s)
{
	ab_text_put_json(stderr, s, strlen(s));
}

static void
print_text(const struct sum *s, const struct adm_run_result *res, const char *audit_cmd)
{
	unsigned long total = s->by_grp[G_FILES] + s->by_grp[G_NET] + s->by_grp[G_SYS];
	size_t i, shown;
	int g;

	fprintf(stderr, "\nagentbox run: session %u of %s ended after %.1f s: ", res->ses,
	    res->user, res->secs);
	if (res->interrupted)
		fprintf(stderr, "ended by signal %d (%s), exit status %d\n", res->interrupted,
		    strsignal(res->interrupted), res->exit_code);
	else if (res->signal)
		fprintf(stderr, "command killed by signal %d (%s), exit status %d\n",
		    res->signal, strsignal(res->signal), res->exit_code);
	else
		fprintf(stderr, "exit status %d\n", res->exit_code);
	if (!s->ran) {
		fprintf(stderr, "  denials: agentbox-audit could not be run\n");
	} else {
		fprintf(stderr, "  denied: %lu (files %lu, network %lu, syscalls %lu)%s\n", total,
		    s->by_grp[G_FILES], s->by_grp[G_NET], s->by_grp[G_SYS],
		    s->complete ? "" : "; the audit record is NOT known to be complete");
		if (s->learned > 0)
			fprintf(stderr, "  of them %lu let through by learning (learn = yes): an "
			    "enforcing session refuses them\n", s->learned);
		for (g = 0; g < G_N; g++) {
			if (s->by_grp[g] == 0)
				continue;
			fprintf(stderr, "  %s:\n", grp_name[g]);
			for (i = 0, shown = 0; i < s->nrows; i++) {
				const struct row *r = &s->rows[i];

				if ((int)r->g != g || shown++ >= SHOW_MAX)
					continue;
				fprintf(stderr, "    %5lu  %-16s ", r->count, r->access);
				put_safe(r->object);
				fputs("  ", stderr);
				put_safe(r->rule);
				fputc('\n', stderr);
			}
			if (shown > SHOW_MAX || s->unkept[g] > 0)
				fprintf(stderr, "    ... and more: see the command below\n");
		}
	}
	if (res->ephemeral && res->have_eph)
		fprintf(stderr, "  ephemeral: %lu file%s would have changed (%lu created, %lu "
		    "modified, %lu deleted)%s; all thrown away\n",
		    res->created + res->modified + res->deleted,
		    res->created + res->modified + res->deleted == 1 ? "" : "s", res->created,
		    res->modified, res->deleted, res->eph_partial ? " (at least)" : "");
	else if (res->ephemeral)
		fprintf(stderr, "  ephemeral: writes thrown away (the module gave no count)\n");
	fprintf(stderr, "  all of it: %s\n", audit_cmd);
}

static void
print_json(const struct sum *s, const struct adm_run_result *res, const char *audit_cmd)
{
	size_t i;

	fprintf(stderr, "{\"v\":1,\"session\":%u,\"user\":", res->ses);
	put_json(res->user);
	fprintf(stderr, ",\"exit\":%d,\"signal\":", res->exit_code);
	if (res->signal)
		fprintf(stderr, "%d", res->signal);
	else
		fputs("null", stderr);
	fputs(",\"interrupted\":", stderr);
	if (res->interrupted)
		fprintf(stderr, "%d", res->interrupted);
	else
		fputs("null", stderr);
	fprintf(stderr, ",\"seconds\":%.3f,\"audit_read\":%s,\"complete\":%s,"
	    "\"denials\":{\"files\":%lu,\"network\":%lu,\"syscalls\":%lu},\"groups\":[",
	    res->secs, s->ran ? "true" : "false", s->complete ? "true" : "false",
	    s->by_grp[G_FILES], s->by_grp[G_NET], s->by_grp[G_SYS]);
	for (i = 0; i < s->nrows; i++) {
		const struct row *r = &s->rows[i];

		fprintf(stderr, "%s{\"group\":\"%s\",\"count\":%lu,\"kind\":", i ? "," : "",
		    grp_name[r->g], r->count);
		put_json(r->kind);
		fputs(",\"access\":", stderr);
		put_json(r->access);
		fputs(",\"object\":", stderr);
		put_json(r->object);
		fputs(",\"rule\":", stderr);
		put_json(r->rule);
		fputc('}', stderr);
	}
	fputs("],\"ephemeral\":", stderr);
	if (res->ephemeral && res->have_eph)
		fprintf(stderr, "{\"created\":%lu,\"modified\":%lu,\"deleted\":%lu,"
		    "\"partial\":%s}", res->created, res->modified, res->deleted,
		    res->eph_partial ? "true" : "false");
	else
		fputs(res->ephemeral ? "{}" : "null", stderr);
	fputs(",\"audit\":", stderr);
	put_json(audit_cmd);
	fputs("}\n", stderr);
}

void
adm_run_summary(const char *audit_bin, const struct adm_run_result *res, int json)
{
	char ses[16], since[32], audit_cmd[128];
	const char *wait_argv[] = { audit_bin, "sessions", "--json", "--quiet", "--session",
	    ses, "--since", since, NULL };
	const char *argv[] = { audit_bin, "--json", "--quiet", "--session", ses, "--since",
	    since, NULL };
	struct find_end fe;
	struct sum *s;
	int waited, st;
	size_t i;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		die("out of memory");
	snprintf(ses, sizeof(ses), "%u", res->ses);
	snprintf(since, sizeof(since), "@%lld", (long long)res->started);
	snprintf(audit_cmd, sizeof(audit_cmd), "agentbox-audit --session %u --since @%lld",
	    res->ses, (long long)res->started);
	/* 1. Until the end record is in the log (auditd writes asynchronously). */
	for (waited = 0; waited < WAIT_END_MS; waited += 100) {
		memset(&fe, 0, sizeof(fe));
		if (each_line(wait_argv, res->started, on_session_line, &fe) < 0 ||
		    fe.seen_end)
			break;
		sleep_ms(100);
	}
	/* 2. Every denial of the session, grouped as it streams. */
	st = each_line(argv, res->started, on_denial, s);
	s->ran = st == 0 || st == 1;
	s->complete = s->ran && fe.seen_end && fe.clean;
	if (json)
		print_json(s, res, audit_cmd);
	else
		print_text(s, res, audit_cmd);
	for (i = 0; i < s->nrows; i++) {
		free(s->rows[i].kind);
		free(s->rows[i].access);
		free(s->rows[i].object);
		free(s->rows[i].rule);
	}
	free(s);
}

void
adm_run_refusal(const char *audit_bin, const struct adm_run_result *res)
{
	char since[32];
	const char *argv[] = { audit_bin, "sessions", "--json", "--quiet", "--user", res->user,
	    "--since", since, NULL };
	struct find_end fe;
	int waited;

	snprintf(since, sizeof(since), "@%lld", (long long)res->started);
	for (waited = 0; waited < WAIT_END_MS; waited += 100) {
		memset(&fe, 0, sizeof(fe));
		if (each_line(argv, res->started, on_session_line, &fe) < 0 || fe.refused)
			break;
		sleep_ms(100);
	}
	if (fe.refused) {
		fputs("agentbox: why: ", stderr);
		put_safe(fe.reason);
		fputc('\n', stderr);
	} else
		hint("the reason is in the auth log (pam_agentbox)");
}
