/*
 * agentbox-audit: what did the agent try that was denied, and is that the whole record?
 *
 *   agentbox-audit [denials|sessions|summary|net|suggest] [--input FILE|-]... [filters]
 *                  [--json] [--follow] [--utc] [--engine fast|auparse] [--kernel-status]
 *                  [--policy-root DIR] [--home DIR]   (suggest)
 *
 * Exit status: 0 the review is printed and the record is complete; 1 the review is
 * printed but the record is NOT known to be complete (the report says why); 2 usage
 * error; 3 nothing could be read (no input, I/O error, out of memory).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "review.h"

#define PROG		"agentbox-audit"
#define AUDIT_LOG	"/var/log/audit/audit.log"
#define CHUNK		(1 << 20)
#define WARN_MAX	10	/* warnings printed per kind; all are counted */

enum { EXIT_COMPLETE = 0, EXIT_INCOMPLETE = 1, EXIT_USAGE = 2, EXIT_FATAL = 3 };
enum cmd { CMD_DENIALS, CMD_SESSIONS, CMD_SUMMARY, CMD_NET, CMD_SUGGEST };

struct reader {
	const char	*name;		/* for warnings */
	uint64_t	 lineno;
	char		*buf;		/* CHUNK + AB_LINE_MAX */
	size_t		 len;
	int		 skipping;	/* inside an overlong line */
	int		 has_nul;	/* the buffer holds a NUL: check line by line */
};

static struct {
	struct ab_group	*g;
	struct ab_netview *net;		/* the net view's table */
	struct ab_aup	*aup;
	struct ab_suggest *sg;		/* suggest: the denials to judge */
	struct ab_facts	 x;
	struct ab_review *rv;		/* where an unreadable line is kept by its serial */
	unsigned	 warned_malformed, warned_overlong, warned_nul;
	int		 quiet;
} st;

static volatile sig_atomic_t stop;

/* --dump-events: one line per assembled event (serial, node, record types), for the
 * cross-check of the two engines (tests/unit/audit_engines.t). */
static void
dump_event(void *arg, const struct ab_rec *recs, size_t n)
{
	(void)arg;
	printf("%ju %.*s", (uintmax_t)recs[0].serial, (int)recs[0].node.n, recs[0].node.p);
	for (size_t i = 0; i < n; i++)
		printf(" %.*s", (int)recs[i].type.n, recs[i].type.p);
	putchar('\n');
}

/* The net view: every network decision the filters select goes into its table. */
static void
net_collect(void *arg, const struct ab_denial *d)
{
	(void)arg;
	if (d->net != NULL && ab_netview_add(st.net, d) != 0)
		st.x.net_rows_lost++;
}

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static void __attribute__((format(printf, 3, 4)))
warn_line(unsigned *counter, const struct reader *rd, const char *fmt, ...)
{
	va_list ap;

	if (st.quiet || ++*counter > WARN_MAX)
		return;
	fprintf(stderr, PROG ": warning: %s:%ju: ", rd->name, (uintmax_t)rd->lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (*counter == WARN_MAX)
		fputs(" (further warnings of this kind are counted, not shown)", stderr);
	fputc('\n', stderr);
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: " PROG " [denials|sessions|summary|net|suggest] [options]\n"
	    "  denials (default)  one row (or --json object) per denial; with --kind net,\n"
	    "                     every network decision, allowed ones too\n"
	    "  sessions           one row per agentbox session (denials, connections)\n"
	    "  summary            top paths, programs and kinds per session\n"
	    "  net                one row per session, host, port, protocol and decision:\n"
	    "                     count, first and last seen (--by user: per user)\n"
	    "  suggest            a policy drop-in for one user (--user or --session): the\n"
	    "                     read, write and allow_host lines the denials would need,\n"
	    "                     each with its count and an example; what is not suggested\n"
	    "                     (masks, protects, seccomp...) as comments saying why\n"
	    "options:\n"
	    "  --input FILE       read FILE (repeatable; '-' is stdin); default:\n"
	    "                     " AUDIT_LOG ".N (highest first) then " AUDIT_LOG "\n"
	    "  --session N  --user NAME|UID  --since T  --until T\n"
	    "  --kind landlock|seccomp|dac|net|learn[,...]  --path PREFIX|GLOB\n"
	    "                     learn: a learning session's would-be denials (file, net)\n"
	    "                     T: epoch, @epoch, YYYY-MM-DD[ HH:MM[:SS]], now, today,\n"
	    "                     yesterday, or N[smhd] (that long ago)\n"
	    "                     sessions, summary: --session, --user, --since/--until select\n"
	    "                     sessions (spans overlapping the range); every filter narrows\n"
	    "                     their denial counts (\"N of M match the filters\")\n"
	    "  --by session|user  net: one row per session (default) or per user\n"
	    "  --json             JSON lines on stdout; the completeness report goes to\n"
	    "                     stderr as one JSON object\n"
	    "  --follow           keep reading the last input as it grows (rotation followed)\n"
	    "  --utc              table and report times in UTC (JSON times are always UTC)\n"
	    "  --engine fast|auparse   event assembly (default fast; auparse is the reference)\n"
	    "  --kernel-status    ask the kernel for its lost counter even with --input\n"
	    "  --quiet            do not print per-line warnings (they are still counted)\n"
	    "  --policy-root DIR  suggest: read DIR/etc/agentbox/... (default /)\n"
	    "  --home DIR         suggest: the user's home (default: from passwd)\n"
	    "exit: 0 complete, 1 printed but not known to be complete, 2 usage, 3 unreadable\n");
}

/* ---- reading ---------------------------------------------------------------------------- */

static void
take_line(struct reader *rd, const char *line, size_t len)
{
	int r;

	rd->lineno++;
	if (len == 0)
		return;
	if (rd->has_nul && memchr(line, '\0', len) != NULL) {
		st.x.nul_lines++;
		ab_review_unreadable(st.rv, line, len);
		warn_line(&st.warned_nul, rd, "NUL byte in line: line skipped");
		return;
	}
	if (st.aup != NULL) {
		struct ab_rec rec;
		char nl = '\n';

		/* The reference engine assembles events, not lines: a line the fast path
		 * refuses is refused here too (libauparse takes many without a word), so both
		 * count the same unreadable lines at the same serials. */
		if (ab_rec_parse(line, len, &rec) != 0 || ab_aup_feed(st.aup, line, len) != 0 ||
		    ab_aup_feed(st.aup, &nl, 1) != 0) {
			st.x.malformed++;
			ab_review_unreadable(st.rv, line, len);
		}
		return;
	}
	if ((r = ab_group_line(st.g, line, len)) == -ENOMEM)
		die(EXIT_FATAL, "out of memory");
	if (r != 0) {
		st.x.malformed++;
		ab_review_unreadable(st.rv, line, len);
		warn_line(&st.warned_malformed, rd, "not an audit record (%s): line skipped",
		    r == -ERANGE ? "number out of range" : "no type= or msg=audit(...)");
	}
}

/* Split what is buffered into lines; keep a partial last line for the next read. */
static void
drain(struct reader *rd, int eof)
{
	size_t off = 0;

	for (;;) {
		char *nl = memchr(rd->buf + off, '\n', rd->len - off);
		size_t len = nl ? (size_t)(nl - (rd->buf + off)) : rd->len - off;

		if (nl == NULL && !eof && len <= AB_LINE_MAX)
			break;	/* wait for the rest of the line */
		if (rd->skipping || len > AB_LINE_MAX) {
			if (!rd->skipping) {
				rd->lineno++;
				st.x.overlong++;
				/* Its serial, if any, is in what is buffered of it. */
				ab_review_unreadable(st.rv, rd->buf + off, len);
				warn_line(&st.warned_overlong, rd, "line longer than %d bytes: skipped",
				    AB_LINE_MAX);
			}
			rd->skipping = nl == NULL;
		} else if (len > 0 || nl != NULL) {
			if (nl == NULL) {
				st.x.truncated_last++;
				if (!st.quiet)
					fprintf(stderr, PROG ": warning: %s: last line has no newline "
					    "(truncated, or still being written)\n", rd->name);
			}
			take_line(rd, rd->buf + off, len);
		}
		if (nl == NULL) {
			off = rd->len;
			break;
		}
		off += len + 1;
	}
	memmove(rd->buf, rd->buf + off, rd->len - off);
	rd->len -= off;
}

/* Read what FD has now; returns bytes read, 0 at EOF, -errno. */
static ssize_t
read_some(struct reader *rd, int fd)
{
	ssize_t n;

	do
		n = read(fd, rd->buf + rd->len, CHUNK);
	while (n == -1 && errno == EINTR && !stop);
	if (n < 0)
		return -errno;
	/* One scan per read for NUL bytes, not one per line: they are rare (and hostile). */
	rd->has_nul = memchr(rd->buf, '\0', rd->len + (size_t)n) != NULL;
	rd->len += (size_t)n;
	drain(rd, 0);
	return n;
}

static int
read_all(struct reader *rd, int fd)
{
	ssize_t n;

	while ((n = read_some(rd, fd)) > 0 && !stop)
		;
	if (n < 0)
		return (int)n;
	drain(rd, 1);
	return 0;
}

static void
flush_events(void)
{
	if (st.aup != NULL)
		ab_aup_flush(st.aup);
	else
		ab_group_flush(st.g);
}

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* --follow: keep reading PATH (or stdin); reopen when auditd rotates the file. */
static void
follow(struct reader *rd, const char *path, int fd)
{
	struct stat a, b;
	int idle = 0;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop) {
		ssize_t n = read_some(rd, fd);

		if (n < 0)
			die(EXIT_FATAL, "read %s: %s", path, strerror((int)-n));
		if (n > 0) {
			idle = 0;
			fflush(stdout);
			continue;
		}
		if (fd == STDIN_FILENO)
			break;
		/* Idle: auditd writes whole events, so what is open is complete. */
		if (++idle == 2) {
			flush_events();
			fflush(stdout);
		}
		if (stat(path, &a) == 0 && fstat(fd, &b) == 0 && a.st_ino != b.st_ino) {
			int nfd = open(path, O_RDONLY | O_CLOEXEC);

			if (nfd >= 0) {
				(void)read_all(rd, fd);
				close(fd);
				fd = nfd;
				rd->lineno = 0;
				continue;
			}
		}
		(void)poll(NULL, 0, 250);
	}
	drain(rd, 1);
	if (fd != STDIN_FILENO)
		close(fd);
}

/*
 * Open INPUTS newest (last) first; returns one fd per input, -2 where there is nothing
 * to read: a rotated file gone between glob and open, or (OWN: the host's logs) a file
 * already open under a newer name.  Unreadable files are warned about and counted.
 */
static int *
open_inputs(char **inputs, size_t ninputs, int own)
{
	int *fds = NULL;
	ino_t *inos;

	if ((fds = calloc(ninputs, sizeof(*fds))) == NULL || (inos = calloc(ninputs, sizeof(*inos))) == NULL)
		die(EXIT_FATAL, "out of memory");
	for (size_t k = ninputs; k-- > 0;) {
		struct stat sb;

		fds[k] = strcmp(inputs[k], "-") == 0 ? STDIN_FILENO : open(inputs[k], O_RDONLY | O_CLOEXEC);
		if (fds[k] < 0) {
			/* A rotated file vanishing between glob and open is rotation, not loss. */
			if (errno == ENOENT && own && strcmp(inputs[k], AUDIT_LOG) != 0) {
				fds[k] = -2;
				continue;
			}
			fprintf(stderr, PROG ": cannot read %s: %s\n", inputs[k], strerror(errno));
			st.x.files_failed++;
			continue;
		}
		if (own && fstat(fds[k], &sb) == 0) {
			for (size_t j = k + 1; j < ninputs; j++)
				if (fds[j] >= 0 && inos[j] == sb.st_ino) {
					close(fds[k]);
					fds[k] = -2;	/* rotated under us: already open as a newer name */
					break;
				}
			inos[k] = sb.st_ino;
		}
	}
	free(inos);
	return fds;
}

/*
 * Read the inputs FDS (from open_inputs) oldest first, closing each.  With FOLLOW the
 * last one is not read here: its fd is returned for follow(); otherwise -1.
 */
static int
read_inputs(struct reader *rd, char **inputs, size_t ninputs, int *fds, int follow_mode)
{
	int last_fd = -1;

	for (size_t i = 0; i < ninputs && !stop; i++) {
		int is_stdin = strcmp(inputs[i], "-") == 0, fd = fds[i], r;

		if (fd < 0)
			continue;
		if (st.x.oldest_file == NULL)
			st.x.oldest_file = inputs[i];
		rd->name = is_stdin ? "(stdin)" : inputs[i];
		rd->lineno = 0;
		rd->len = 0;
		rd->skipping = 0;
		if (follow_mode && i + 1 == ninputs) {
			last_fd = fd;
			st.x.files_read++;
			break;
		}
		if ((r = read_all(rd, fd)) != 0) {
			fprintf(stderr, PROG ": read %s: %s\n", inputs[i], strerror(-r));
			st.x.files_failed++;
		} else
			st.x.files_read++;
		if (!is_stdin)
			close(fd);
		fds[i] = -2;
	}
	for (size_t i = 0; i < ninputs; i++)	/* left open by an interruption */
		if (fds[i] >= 0 && fds[i] != STDIN_FILENO && fds[i] != last_fd)
			close(fds[i]);
	return last_fd;
}

/* Default inputs: audit.log.N, highest N (oldest) first, then audit.log. */
static size_t
default_inputs(char ***out)
{
	glob_t gl;
	char **v;
	size_t n = 0;

	memset(&gl, 0, sizeof(gl));
	(void)glob(AUDIT_LOG ".[0-9]*", 0, NULL, &gl);
	if ((v = calloc(gl.gl_pathc + 2, sizeof(*v))) == NULL)
		die(EXIT_FATAL, "out of memory");
	/* glob sorts as strings: audit.log.10 < audit.log.2; order by number instead. */
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		char *end;
		unsigned long k = strtoul(gl.gl_pathv[i] + strlen(AUDIT_LOG) + 1, &end, 10);

		if (*end != '\0')
			continue;
		size_t j = n;
		while (j > 0 && strtoul(v[j - 1] + strlen(AUDIT_LOG) + 1, NULL, 10) < k) {
			v[j] = v[j - 1];
			j--;
		}
		if ((v[j] = strdup(gl.gl_pathv[i])) == NULL)
			die(EXIT_FATAL, "out of memory");
		n++;
	}
	globfree(&gl);
	if ((v[n++] = strdup(AUDIT_LOG)) == NULL)
		die(EXIT_FATAL, "out of memory");
	*out = v;
	return n;
}

static int
parse_kinds(const char *s)
{
	int k = 0;
	char *dup = strdup(s), *save = NULL;

	if (dup == NULL)
		die(EXIT_FATAL, "out of memory");
	for (char *t = strtok_r(dup, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		int found = 0;

		for (int i = 0; i < AB_KIND_N; i++)
			if (strcmp(t, ab_kind_name[i]) == 0) {
				k |= 1 << i;
				found = 1;
			}
		/* learn: a learning session's would-be denials (file and net), by any kind. */
		if (strcmp(t, "learn") == 0) {
			k |= AB_KIND_LEARN_BIT;
			found = 1;
		}
		if (!found)
			die(EXIT_USAGE, "--kind %s: expected landlock, seccomp, dac, net or learn", t);
	}
	free(dup);
	return k;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "session", required_argument, NULL, 's' },
		{ "user", required_argument, NULL, 'u' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "kind", required_argument, NULL, 'k' },
		{ "path", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "follow", no_argument, NULL, 'f' },
		{ "utc", no_argument, NULL, 'z' },
		{ "engine", required_argument, NULL, 'e' },
		{ "by", required_argument, NULL, 'b' },
		{ "kernel-status", no_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "dump-events", no_argument, NULL, 'D' },
		{ "policy-root", required_argument, NULL, 'R' },
		{ "home", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ab_filter flt = { 0 };
	struct ab_out out = { .f = stdout };
	struct ab_suggest_opts sopt = { 0 };
	struct ab_review *rv;
	struct reader rd = { 0 };
	enum cmd cmd = CMD_DENIALS;
	char **inputs = NULL;
	size_t ninputs = 0;
	int own_inputs = 0;	/* default_inputs() strings are ours to free */
	int *fds = NULL;
	int c, auparse_engine = 0, follow_mode = 0, kernel = 0, incomplete, last_fd = -1;
	int dump = 0, by_user = 0;
	uint64_t now = (uint64_t)time(NULL);
	char *end;

	/* 1. What to answer: the command, its filters, the output form. */
	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if ((inputs = realloc(inputs, (ninputs + 2) * sizeof(*inputs))) == NULL)
				die(EXIT_FATAL, "out of memory");
			inputs[ninputs++] = optarg;
			break;
		case 's':
			errno = 0;
			flt.session = strtoull(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || end == optarg)
				die(EXIT_USAGE, "--session %s: expected a number", optarg);
			flt.have_session = 1;
			break;
		case 'u':
			flt.user = optarg;
			break;
		case 'S':
			if (ab_parse_time(optarg, now, 0, &flt.since) != 0)
				die(EXIT_USAGE, "--since %s: not a time (see --help)", optarg);
			flt.have_since = 1;
			break;
		case 'U':
			if (ab_parse_time(optarg, now, 1, &flt.until) != 0)
				die(EXIT_USAGE, "--until %s: not a time (see --help)", optarg);
			flt.have_until = 1;
			break;
		case 'k':
			flt.kinds = parse_kinds(optarg);
			break;
		case 'p':
			flt.path = optarg;
			break;
		case 'j':
			out.json = 1;
			break;
		case 'f':
			follow_mode = 1;
			break;
		case 'z':
			out.utc = 1;
			break;
		case 'e':
			if (strcmp(optarg, "auparse") == 0)
				auparse_engine = 1;
			else if (strcmp(optarg, "fast") != 0)
				die(EXIT_USAGE, "--engine %s: expected fast or auparse", optarg);
			break;
		case 'K':
			kernel = 1;
			break;
		case 'b':
			if (strcmp(optarg, "user") == 0)
				by_user = 1;
			else if (strcmp(optarg, "session") != 0)
				die(EXIT_USAGE, "--by %s: expected session or user", optarg);
			break;
		case 'q':
			st.quiet = 1;
			break;
		case 'D':
			dump = 1;
			break;
		case 'R':
			sopt.policy_root = optarg;
			break;
		case 'H':
			if (optarg[0] != '/')
				die(EXIT_USAGE, "--home %s: expected an absolute path", optarg);
			sopt.home = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind], "denials") == 0)
			cmd = CMD_DENIALS;
		else if (strcmp(argv[optind], "sessions") == 0)
			cmd = CMD_SESSIONS;
		else if (strcmp(argv[optind], "summary") == 0)
			cmd = CMD_SUMMARY;
		else if (strcmp(argv[optind], "net") == 0)
			cmd = CMD_NET;
		else if (strcmp(argv[optind], "suggest") == 0)
			cmd = CMD_SUGGEST;
		else
			die(EXIT_USAGE, "unknown command '%s' (denials, sessions, summary, net, "
			    "suggest)", argv[optind]);
		if (++optind < argc)
			die(EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
	}
	if (follow_mode && cmd != CMD_DENIALS)
		die(EXIT_USAGE, "--follow works with the denials command");
	if ((sopt.policy_root != NULL || sopt.home != NULL) && cmd != CMD_SUGGEST)
		die(EXIT_USAGE, "--policy-root and --home work with the suggest command");
	sopt.user = flt.user;
	sopt.json = out.json;
	out.tty = isatty(STDOUT_FILENO);
	if (follow_mode)
		setvbuf(stdout, NULL, _IOLBF, 0);

	/* 2. Where to read: the host's logs in rotation order, or what was named. */
	if (ninputs == 0) {
		ninputs = default_inputs(&inputs);
		own_inputs = 1;
		kernel = 1;	/* this host's logs: its kernel's lost counter applies */
	}

	/* 3. The machinery: review state, and an engine that assembles events into it.  The
	 * allowed network decisions are listed when asked for by kind, and make the net view. */
	flt.net_decisions = cmd == CMD_NET || (flt.kinds & (1 << AB_KIND_NET)) != 0;
	if (cmd == CMD_NET && ab_netview_new(by_user, &st.net) != 0)
		die(EXIT_FATAL, "out of memory");
	if (cmd == CMD_SUGGEST && ab_suggest_new(&st.sg) != 0)
		die(EXIT_FATAL, "out of memory");
	if (ab_review_new(&flt, cmd == CMD_DENIALS ? ab_out_denial : cmd == CMD_NET ? net_collect :
	    cmd == CMD_SUGGEST ? ab_suggest_add : NULL, cmd == CMD_SUGGEST ? (void *)st.sg :
	    (void *)&out, &rv) != 0)
		die(EXIT_FATAL, "out of memory");
	st.rv = rv;
	if ((auparse_engine ? ab_aup_new(dump ? dump_event : ab_review_event, rv, &st.aup) :
	    ab_group_new(dump ? dump_event : ab_review_event, rv, &st.g)) != 0)
		die(EXIT_FATAL, "cannot set up the %s engine", auparse_engine ? "auparse" : "fast");
	if (st.g != NULL)
		ab_group_on_trouble(st.g, ab_review_grouping, rv);
	if ((rd.buf = malloc(CHUNK + AB_LINE_MAX + 1)) == NULL)
		die(EXIT_FATAL, "out of memory");

	/* 4. Open every input first, newest first, then read them oldest first.  auditd may
	 * rotate while we read (audit.log -> .1 -> .2 ...): open fds keep their files, and
	 * opening newest first means a rotation in between can only make us open one file
	 * twice (skipped by inode), never skip one that existed when we started. */
	fds = open_inputs(inputs, ninputs, own_inputs);
	/* 5. Read every input in order, one pass; warn and go on past anything unreadable. */
	last_fd = read_inputs(&rd, inputs, ninputs, fds, follow_mode);
	if (last_fd >= 0)
		follow(&rd, inputs[ninputs - 1], last_fd);
	if (st.x.files_read == 0)
		die(EXIT_FATAL, "no input could be read: nothing to review");
	flush_events();
	if (dump) {
		incomplete = 0;
		goto out;
	}
	ab_review_finish(rv);

	/* 6. The answer: sessions or summary tables (denials were printed as they came). */
	if (cmd == CMD_SESSIONS)
		ab_out_sessions(&out, rv);
	else if (cmd == CMD_SUMMARY)
		ab_out_summary(&out, rv);
	else if (cmd == CMD_NET)
		ab_out_net(&out, st.net, rv);
	else if (cmd == CMD_SUGGEST) {
		char err[AB_SUGGEST_ERR] = "";

		const struct ab_session *s;

		/* Learning sessions whose record is short: the drop-in's header says so. */
		for (size_t i = 0; (s = ab_review_session(rv, i)) != NULL; i++)
			if (s->learn_lost > 0 && ab_session_selected(rv, s))
				ab_suggest_learn_lost(st.sg, s->ses, s->uid, s->user,
				    s->learn_lost_reason);
		/* stdout is the drop-in alone: the report goes to stderr, as with --json. */
		if (ab_suggest_print(st.sg, stdout, &sopt, err, sizeof(err)) != 0)
			die(EXIT_FATAL, "suggest: %s", err[0] != '\0' ? err : "failed");
		if (ab_suggest_dropped(st.sg) > 0)
			st.x.suggest_dropped = ab_suggest_dropped(st.sg);
	}

	/* 7. Completeness, with every review: "no denials" must never mean "could not see". */
	{
		const struct ab_group_stats *gs = st.aup ? ab_aup_stats(st.aup) : ab_group_stats(st.g);

		st.x.lines = st.aup ? rd.lineno : gs->lines;
		st.x.records = gs->records;
		st.x.events = gs->events;
		st.x.late = gs->late;
		st.x.dropped = gs->dropped;
		st.x.evicted = gs->evicted;
		st.x.cut = gs->cut;
	}
	if (kernel)
		st.x.kernel_checked = ab_kernel_status(&st.x.kernel_lost, &st.x.backlog_limit) == 0 ?
		    1 : -EPERM;
	st.x.rs = ab_review_stats(rv);
	st.x.cp = ab_review_complete(rv);
	st.x.rv = rv;
	st.x.filtered = ab_review_filtering(rv);
	st.x.utc = out.utc;
	/* Nothing to list is said in words; with filters, that they matched nothing (sessions
	 * and summary say it themselves). */
	if (!out.json && cmd == CMD_DENIALS && st.x.rs->denials == 0 && st.x.rs->net_shown == 0)
		fputs(st.x.filtered ? "no denials in the records read match the filters\n" :
		    "no denials in the records read\n", stdout);
	fflush(stdout);
	if (!out.json && cmd != CMD_SUGGEST)
		fputc('\n', stdout);
	incomplete = ab_out_completeness(out.json || cmd == CMD_SUGGEST ? stderr : stdout,
	    out.json, &st.x);
out:
	if (fflush(stdout) != 0 || ferror(stdout))
		die(EXIT_FATAL, "write: %s", strerror(errno));
	ab_review_free(rv);
	ab_netview_free(st.net);
	ab_suggest_free(st.sg);
	ab_group_free(st.g);
	ab_aup_free(st.aup);
	free(rd.buf);
	for (size_t i = 0; own_inputs && i < ninputs; i++)
		free(inputs[i]);
	free(inputs);
	free(fds);
	return incomplete ? EXIT_INCOMPLETE : EXIT_COMPLETE;
}
