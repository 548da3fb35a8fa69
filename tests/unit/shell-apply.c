/*
 * shell-apply: test driver for agentbox-shell's mechanisms without a PAM world.  It
 * builds a session plan from its options, applies the same steps as agentbox-shell
 * (close fds, no_new_privs, Landlock, seccomp) and execs COMMAND, so tests can run
 * try-op under exactly the confinement the shell applies.
 *
 *   shell-apply [--read P]... [--write P]... [--project P]... [--home P]
 *               [--net none|loopback|host|tcp:PORT,...] [--min-abi N]
 *               [--no-landlock] [--no-seccomp] [--env] [--env-keep NAME]...
 *               [--print] [--export-seccomp] -- COMMAND [ARGS...]
 *
 * --env replaces the environment the way agentbox-shell does; --print reports what
 * Landlock enforced on stderr; --export-seccomp writes the filter as PFC and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "shell.h"

extern char **environ;

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("shell-apply: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(125);
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
push(struct ab_strv *v, const char *s)
{
	if ((v->v = realloc(v->v, (v->n + 2) * sizeof(*v->v))) == NULL ||
	    (v->v[v->n] = strdup(s)) == NULL)
		die("out of memory");
	v->v[++v->n] = NULL;
}

static void
parse_net(struct ab_policy *p, const char *s)
{
	char *copy, *tok, *save = NULL;

	if (strcmp(s, "none") == 0)
		p->network = AB_NET_NONE;
	else if (strcmp(s, "loopback") == 0)
		p->network = AB_NET_LOOPBACK;
	else if (strcmp(s, "host") == 0)
		p->network = AB_NET_HOST;
	else if (strcmp(s, "proxy") == 0)
		p->network = AB_NET_PROXY;
	else if (strncmp(s, "tcp:", 4) == 0) {
		p->network = AB_NET_TCP;
		if ((copy = strdup(s + 4)) == NULL)
			die("out of memory");
		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			p->ports = realloc(p->ports, (p->nports + 1) * sizeof(*p->ports));
			if (p->ports == NULL)
				die("out of memory");
			p->ports[p->nports++] = (uint16_t)atoi(tok);
		}
		free(copy);
	} else
		die("bad --net %s", s);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "read", required_argument, NULL, 'r' },
		{ "write", required_argument, NULL, 'w' },
		{ "project", required_argument, NULL, 'p' },
		{ "home", required_argument, NULL, 'h' },
		{ "net", required_argument, NULL, 'n' },
		{ "min-abi", required_argument, NULL, 'm' },
		{ "no-landlock", no_argument, NULL, 'L' },
		{ "no-seccomp", no_argument, NULL, 'S' },
		{ "env", no_argument, NULL, 'e' },
		{ "env-keep", required_argument, NULL, 'k' },
		{ "print", no_argument, NULL, 'P' },
		{ "export-seccomp", no_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 },
	};
	struct ab_policy pol = { .shell = "/bin/bash", .landlock_min_abi = 1 };
	struct ab_plan plan = { .policy = &pol, .home = "/nonexistent" };
	struct ab_landlock_result res;
	int c, landlock = 1, seccomp = 1, env = 0, print = 0, export = 0, r;
	char **envp = environ;
	double t0, t1;

	pol.user = "agent";	/* the plan names the user; never the environment */
	plan.uid = getuid();
	plan.gid = getgid();
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': push(&pol.read, optarg); break;
		case 'w': push(&pol.write, optarg); break;
		case 'p': push(&pol.project, optarg); break;
		case 'h': plan.home = optarg; break;
		case 'n': parse_net(&pol, optarg); break;
		case 'm': pol.landlock_min_abi = atoi(optarg); break;
		case 'L': landlock = 0; break;
		case 'S': seccomp = 0; break;
		case 'e': env = 1; break;
		case 'k': push(&pol.env_keep, optarg); break;
		case 'P': print = 1; break;
		case 'X': export = 1; break;
		default: die("bad option");
		}
	}
	if (export) {
		r = ab_seccomp_export(pol.network, 0, 1);
		return r == 0 ? 0 : 1;
	}
	if (optind >= argc)
		die("no command");
	if ((r = ab_fds_reset()) != 0)
		die("fds: %s", strerror(-r));
	if (env && (r = ab_env_build(&plan, environ, 0, &envp)) != 0)
		die("env: %s", strerror(-r));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		die("no_new_privs: %s", strerror(errno));
	t0 = now_ms();
	if (landlock) {
		if ((r = ab_landlock_apply(&plan, &res)) != 0)
			die("landlock: %s (kernel ABI %d)", strerror(-r), res.abi);
		if (print)
			fprintf(stderr, "landlock abi=%d rules=%d skipped=%d fs=%#llx net=%#llx "
			    "scoped=%#llx flags=%#x\n", res.abi, res.rules, res.skipped,
			    (unsigned long long)res.handled_fs,
			    (unsigned long long)res.handled_net,
			    (unsigned long long)res.scoped, res.restrict_flags);
	}
	t1 = now_ms();
	if (seccomp && (r = ab_seccomp_apply(&plan)) != 0)
		die("seccomp: %s", strerror(-r));
	if (print)
		fprintf(stderr, "time landlock=%.3fms seccomp=%.3fms\n", t1 - t0, now_ms() - t1);
	execvpe(argv[optind], argv + optind, envp);
	die("exec %s: %s", argv[optind], strerror(errno));
}
