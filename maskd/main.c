/*
 * agentbox-maskd: the live-mask enforcer.
 *
 *   agentbox-maskd --daemon [--foreground] [--control PATH] [--history-max N]
 *                  [--learn-max N] [--netns-pool N]
 *
 * The daemon (daemon.c): takes each session from the PAM module, supervises its reader,
 * ends the session if enforcement stops.  The standalone form below serves one set of
 * mounts itself (tests and measurements):
 *
 *   agentbox-maskd --mount PATH [--mount PATH ...] [--home H] [--project P ...]
 *                  --pattern PAT [--pattern PAT ...] [--ready FILE] [--history-max N]
 *
 * Run as root, in the mount namespace that holds the session's mounts (PATH and the trees
 * are paths as that namespace sees them).  Each --mount is marked; --home and --project
 * are the trees the patterns are relative to, as in the policy.  --ready FILE is created
 * once every mark is in place.  --history-max bounds S (tests make it overflow).  It serves until something fails, then denies everything
 * pending and exits 1 (fail closed); what a session gets after that is README.md's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "handoff.h"
#include "maskd.h"
#include "netpool.h"

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("agentbox-maskd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

struct args {
	struct ab_strv	mounts, projects, patterns;
	const char	*home, *ready, *control;
	size_t		 history_max, learn_max;
	int		 daemon, foreground;
	int		 netns_pool;	/* -1: the default */
	int		 walk_index;	/* --walk-index 0|1, 1 by default */
	int		 warm;		/* --warm 0|1, 1 by default */
};

static void
push(struct ab_strv *sv, const char *s)
{
	if (ab_strv_push(sv, s) != 0)
		die("out of memory");
}

/* A positive decimal count, or 0 for anything else. */
static size_t
count(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || *s == '-' || v > SIZE_MAX / 1024)
		return 0;
	return (size_t)v;
}

/* A switch's 0 or 1; anything else ends the program. */
static int
zero_one(const char *opt, const char *arg)
{
	if (strcmp(arg, "0") != 0 && strcmp(arg, "1") != 0)
		die("--%s %s: 0 or 1", opt, arg);
	return arg[0] == '1';
}

static void
parse(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "mount", required_argument, NULL, 'm' },
		{ "home", required_argument, NULL, 'H' },
		{ "project", required_argument, NULL, 'p' },
		{ "pattern", required_argument, NULL, 'P' },
		{ "ready", required_argument, NULL, 'r' },
		{ "history-max", required_argument, NULL, 'x' },
		{ "learn-max", required_argument, NULL, 'l' },
		{ "netns-pool", required_argument, NULL, 'n' },
		{ "walk-index", required_argument, NULL, 'w' },
		{ "warm", required_argument, NULL, 'W' },
		{ "daemon", no_argument, NULL, 'D' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "control", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *why;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm': push(&a->mounts, optarg); break;
		case 'H': a->home = optarg; break;
		case 'p': push(&a->projects, optarg); break;
		case 'P':
			if (ab_pattern_valid(optarg, &why) != 0)
				die("pattern %s: %s", optarg, why);
			push(&a->patterns, optarg);
			break;
		case 'r': a->ready = optarg; break;
		case 'D': a->daemon = 1; break;
		case 'f': a->foreground = 1; break;
		case 'c': a->control = optarg; break;
		case 'x':
			if ((a->history_max = count(optarg)) == 0)
				die("--history-max %s: not a positive number", optarg);
			break;
		case 'n':	/* 0: no namespaces made ahead (tests: logins make their own) */
			if (strlen(optarg) != 1 || optarg[0] < '0' ||
			    optarg[0] > '0' + AB_NETPOOL_MAX)
				die("--netns-pool %s: 0 to %d", optarg, AB_NETPOOL_MAX);
			a->netns_pool = optarg[0] - '0';
			break;
		case 'w':	/* 0: every login walks all its trees (measurements, tests) */
			a->walk_index = zero_one("walk-index", optarg);
			break;
		case 'W':	/* 0: no session is answered ahead (measurements) */
			a->warm = zero_one("warm", optarg);
			break;
		case 'l':	/* tests: a learning session's table fills early */
			if ((a->learn_max = count(optarg)) == 0)
				die("--learn-max %s: not a positive number", optarg);
			break;
		default: die("usage: agentbox-maskd --mount PATH ... [--home H] [--project P ...] "
		    "--pattern PAT ... [--ready FILE]");
		}
	}
	if (optind != argc)
		die("usage: no arguments besides the options");
	if (a->daemon && (a->mounts.n != 0 || a->patterns.n != 0 || a->home != NULL ||
	    a->projects.n != 0 || a->ready != NULL))
		die("usage: --daemon takes sessions from the PAM module: no --mount, --pattern, "
		    "--home, --project or --ready");
	if (!a->daemon && (a->mounts.n == 0 || a->patterns.n == 0))
		die("usage: needs --mount and --pattern (or --daemon)");
}

int
main(int argc, char **argv)
{
	struct args a = { .netns_pool = -1, .walk_index = 1, .warm = 1 };
	struct ab_maskd_decider *d;
	struct ab_maskd_stats st;
	struct ab_maskrec_stats rs;
	struct ab_maskd *e;
	struct ab_maskrec *rec;
	int audit_fd;
	struct ab_maskrec_sink sink = { ab_maskd_audit_sink, ab_maskd_audit_lost, &audit_fd };
	size_t i;
	int r, fd;

	/* 0. The daemon: sessions come from the PAM module, groups and marks made. */
	parse(argc, argv, &a);
	if (a.daemon) {
		struct ab_maskd_serve_opts o = {
			.control = a.control != NULL ? a.control : AB_MASKD_CONTROL,
			.foreground = a.foreground, .history_max = a.history_max,
			.learn_max = a.learn_max,
			.netns_pool = a.netns_pool < 0 ? AB_NETPOOL_MAX : (size_t)a.netns_pool,
			.walk_index = a.walk_index, .warm = a.warm,
		};

		return ab_maskd_serve(&o);
	}
	/* 1. The policy's view: patterns relative to the trees, as the mask walk has it. */
	if ((r = ab_maskd_decider_new(&a.patterns, a.home, &a.projects, &d)) != 0)
		die("trees and patterns: %s", strerror(-r));
	/* 2. Both groups, then every mark: a mount we cannot mark is a session we cannot
	 *    enforce, so the whole start fails (the PAM step will refuse the login). */
	if ((r = ab_maskd_new(d, a.history_max, &e)) != 0)
		die("fanotify groups: %s", strerror(-r));
	for (i = 0; i < a.mounts.n; i++)
		if ((r = ab_maskd_add_mount(e, a.mounts.v[i])) != 0)
			die("mark %s: %s", a.mounts.v[i], strerror(-r));
	/* 3. Each denial on the record: the opener's session and loginuid from its /proc. */
	if ((audit_fd = ab_maskd_audit_open()) < 0)
		die("audit socket: %s", strerror(-audit_fd));
	if ((r = ab_maskrec_new(&sink, &rec)) != 0)
		die("recorder: %s", strerror(-r));
	ab_maskd_record(e, rec, UINT32_MAX, UINT32_MAX);
	/* 4. Only now may the session start opening. */
	if (a.ready != NULL) {
		if ((fd = open(a.ready, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) == -1)
			die("ready file %s: %s", a.ready, strerror(errno));
		(void)close(fd);
	}
	/* 5. Serve.  It returns only on failure, having denied everything pending. */
	r = ab_maskd_run(e);
	ab_maskd_stats(e, &st);
	ab_maskrec_stats(rec, &rs);
	die("stopped, failing closed: %s (allowed %llu, denied %llu, cached %llu, "
	    "tracked %llu, mask records %llu, repeats %llu, not recorded %llu)", strerror(-r),
	    (unsigned long long)st.allowed, (unsigned long long)st.denied,
	    (unsigned long long)st.cached, (unsigned long long)st.tracked,
	    (unsigned long long)rs.records, (unsigned long long)rs.repeats,
	    (unsigned long long)rs.lost);
}
