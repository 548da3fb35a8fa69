/*
 * agentbox check [--root DIR] [--user NAME [--host HOST[:PORT]]] [FILE]
 *
 * Validate the policy (ROOT/etc/agentbox/agentbox.conf and policy.d/, or the one FILE)
 * and print the compiled policy of NAME, or of every enrolled user, as the PAM module
 * would compile it.  Exit 0 when valid; 1 with every error as "FILE:LINE: reason" on
 * stderr; 2 on a usage error.  With --host: what agentbox-netd decides for NAME and
 * HOST[:PORT], and where the deciding rule is written; exit 0 allowed, 4 denied.
 */
#define _GNU_SOURCE	/* secure_getenv */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abutil.h"
#include "cmd.h"
#include "policy.h"

#define LABEL_WIDTH 18

const char *
admin_policy_root(const char *opt_root)
{
	const char *env;

	if (opt_root != NULL)
		return opt_root;
	/* secure_getenv: never taken from the environment of a setuid/setcap caller. */
	env = secure_getenv("AGENTBOX_ROOT");
	return env != NULL && env[0] != '\0' ? env : NULL;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: agentbox check [--root DIR] [--user NAME [--host HOST[:PORT]]] "
	    "[FILE]\n"
	    "  Validate the agentbox policy and print what it compiles to.\n"
	    "  --root DIR   read DIR/etc/agentbox/... (default $AGENTBOX_ROOT, else /)\n"
	    "  --user NAME  print only NAME's policy\n"
	    "  --host HOST[:PORT]  say whether NAME may reach HOST:PORT (443 by default)\n"
	    "               through the proxy, and by which rule; exit 0 allowed, 4 denied\n"
	    "  FILE         check this one file instead of the installed policy\n");
}

/*
 * Print S to F with control characters (C0, DEL, C1), bidirectional overrides and
 * invalid UTF-8 escaped: neither the policy nor a message quoting what a path resolves
 * to (a symlink the agent may own) may drive the admin's terminal or reorder what it
 * shows.  A backslash stays as it is: policy patterns use it as their own escape.
 */
static void
fput_safe(const char *s, FILE *f)
{
	ab_text_put_safe(f, s, strlen(s), 0, 0);
}

static void
put_value(const char *s)
{
	fput_safe(s, stdout);
}

static void
put_scalar(const char *label, const char *value)
{
	printf("  %-*s ", LABEL_WIDTH, label);
	put_value(value);
	putchar('\n');
}

/* One item per line, the label on the first, so long lists stay readable. */
static void
put_list(const char *label, const struct ab_strv *sv)
{
	size_t i;

	if (sv->n == 0) {
		put_scalar(label, "(none)");
		return;
	}
	for (i = 0; i < sv->n; i++)
		put_scalar(i == 0 ? label : "", sv->v[i]);
}

/* Host rules, each with where it is written (a [hosts:NAME] set's line for "@NAME"). */
static void
put_rules(const char *label, const struct ab_strv *sv, const struct ab_strv *src)
{
	size_t i;

	if (sv->n == 0 || src->n != sv->n) {
		put_list(label, sv);
		return;
	}
	for (i = 0; i < sv->n; i++) {
		printf("  %-*s ", LABEL_WIDTH, i == 0 ? label : "");
		put_value(sv->v[i]);
		fputs("  (", stdout);
		put_value(src->v[i]);
		fputs(")\n", stdout);
	}
}

/* Each credential the session's gateways use, as "[credential:NAME]" then its keys. */
static void
put_creds(const struct ab_policy *p)
{
	size_t i;

	for (i = 0; i < p->ncreds; i++) {
		const struct ab_cred *c = &p->creds[i];
		const char *f[][2] = { { "host", c->host }, { "header", c->header },
		    { "prefix", c->prefix }, { "file", c->file }, { "env", c->env },
		    { "base_url_env", c->base_url_env }, { "base_path", c->base_path } };

		printf("  [credential:");
		put_value(c->name);
		printf("]\n");
		for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++)
			if (f[j][1] != NULL)
				put_scalar(f[j][0], f[j][1]);
	}
}

/* USER's compiled policy: the digest, then every key in the table's order. */
static int
print_policy(const struct ab_policy *p)
{
	const struct ab_key_info *k;
	const struct ab_strv *sv;
	char hex[2 * AB_DIGEST_LEN + 1], *s;
	size_t i;
	int r;

	ab_digest_hex(p->digest, hex);
	printf("[user:");
	put_value(p->user);
	printf("]\n");
	put_scalar("digest", hex);
	for (i = 0; (k = ab_policy_key(i)) != NULL; i++) {
		if ((k->sections & (AB_SECT_DEFAULTS | AB_SECT_USER)) == 0)
			continue;	/* a [hosts:NAME] or [credential:NAME] key */
		if ((sv = ab_policy_list(p, i)) == &p->allow_host ||
		    sv == &p->deny_host) {
			put_rules(k->name, sv, sv == &p->allow_host ? &p->allow_host_src :
			    &p->deny_host_src);
			continue;
		}
		if (sv != NULL) {
			put_list(k->name, sv);
			continue;
		}
		if ((r = ab_policy_scalar(p, i, &s)) != 0)
			return r;
		put_scalar(k->name, s);
		free(s);
	}
	put_creds(p);
	return 0;
}

static void
print_diag(const struct ab_diag *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		fput_safe(d->msg[i], stderr);
		fputc('\n', stderr);
	}
}

/* Compile and print USER's policy (or, with HOST, its verdict for HOST).  The exit
 * status: 0, or 1 after printing why not (admin_host_decide's with HOST). */
static int
show_user(const char *root, const char *file, const char *user, const char *host)
{
	struct ab_diag diag = { 0 };
	struct ab_policy *p = NULL;
	int r;

	if (file != NULL)
		r = ab_policy_load_file(file, user, &p, &diag);
	else
		r = ab_policy_load(root, user, &p, &diag);
	if (r != 0) {
		print_diag(&diag);
		if (r == -ENOENT)
			fprintf(stderr, "agentbox check: %s is not enrolled (no [user:%s] section)\n",
			    user, user);
		else
			fprintf(stderr, "agentbox check: %s: %s\n", user, strerror(-r));
		ab_diag_free(&diag);
		return 1;
	}
	ab_diag_free(&diag);
	if (host != NULL) {
		r = admin_host_decide(p, host);
		ab_policy_free(p);
		return r;
	}
	if ((r = print_policy(p)) != 0) {
		fprintf(stderr, "agentbox check: %s: %s\n", user, strerror(-r));
		ab_policy_free(p);
		return 1;
	}
	ab_policy_free(p);
	return 0;
}

/* USER's policy as the PAM module would load it: 0 or -errno (*out NULL then). */
static int
load(const char *root, const char *file, const char *user, struct ab_policy **out)
{
	struct ab_diag diag = { 0 };
	int r;

	*out = NULL;
	r = file != NULL ? ab_policy_load_file(file, user, out, &diag) :
	    ab_policy_load(root, user, out, &diag);
	ab_diag_free(&diag);
	return r;
}

/* Does USER's policy still compile, as the PAM module would load it? */
static int
loads(const char *root, const char *file, const char *user)
{
	struct ab_policy *p;
	int r = load(root, file, user, &p);

	ab_policy_free(p);
	return r == 0;
}

/*
 * The check the PAM module cannot make (it never links libpsl): no host rule of any
 * user's policy is a wildcard on a public suffix.  0, or 1 after saying which.  Also
 * warns about credential files agentbox-netd would refuse to read.
 */
static int
check_suffixes(const char *root, const char *file, const struct ab_strv *users)
{
	struct ab_strv reported = { 0 }, files = { 0 };
	struct ab_policy *p;
	size_t i;
	int r = 0, c;

	for (i = 0; i < users->n && r != -ENOENT && r != -ENOMEM; i++) {
		if (load(root, file, users->v[i], &p) != 0)
			continue;	/* valid as a set: only a fact about the host, reported */
		if ((c = admin_hostrules_check(p, &reported)) != 0)
			r = c == -ENOENT || c == -ENOMEM ? c : -EINVAL;
		admin_creds_warn(p, &files);
		ab_policy_free(p);
	}
	ab_strv_free(&files);
	if (r != 0)
		fprintf(stderr, "agentbox check: policy invalid: %zu wildcard host rule%s on "
		    "a public suffix%s\n", reported.n, reported.n == 1 ? "" : "s",
		    r == -ENOENT ? " (or no suffix list to check them against)" : "");
	ab_strv_free(&reported);
	return r != 0;
}

static void
put_names(const struct ab_strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++) {
		fputs(i == 0 ? "" : ", ", stderr);
		fput_safe(sv->v[i], stderr);
	}
}

/*
 * Say whose logins the broken set refuses, as policy.h (ab_policy_load) and
 * pam_module/pam_agentbox.c (open_session) decide it: files that cannot be read
 * safely refuse every login but root's (nobody can tell who is enrolled); a problem in
 * the text, or a missing project in [defaults], refuses every enrolled user (named in
 * a section header, or with agentbox-shell as login shell); a missing project in
 * [user:NAME] refuses NAME only.  Users not enrolled and root are never refused for it.
 */
static void
print_consequence(const char *root, const char *file, int r, const struct ab_strv *users)
{
	struct ab_strv refused = { 0 }, fine = { 0 };
	size_t i;

	if (r == -ENOENT) {	/* the loader reads an absent agentbox.conf as empty */
		fprintf(stderr, "pam_agentbox reads a missing agentbox.conf as empty: users "
		    "enrolled in policy.d log in confined, without the shipped defaults\n");
		return;
	}
	if (r != -EINVAL) {
		fprintf(stderr, "until fixed, pam_agentbox refuses every login except root's "
		    "(it cannot tell who is enrolled)\n");
		return;
	}
	for (i = 0; i < users->n; i++) {
		struct ab_strv *to = loads(root, file, users->v[i]) ? &fine : &refused;
		char **v = reallocarray(to->v, to->n + 1, sizeof(*to->v));
		if (v == NULL)
			break;
		to->v = v;
		to->v[to->n++] = users->v[i];	/* borrowed: freed with USERS */
	}
	if (i < users->n || fine.n == 0 || refused.n == 0) {
		fprintf(stderr, "until fixed, pam_agentbox refuses the login of every enrolled "
		    "user (named in a [user:NAME] header, or whose login shell is "
		    "agentbox-shell); root and users not enrolled are not affected\n");
	} else {
		fprintf(stderr, "until fixed, pam_agentbox refuses the login of ");
		put_names(&refused);
		fprintf(stderr, " (a project of theirs is unusable); ");
		put_names(&fine);
		fprintf(stderr, " log in confined as before\n");
	}
	free(refused.v);
	free(fine.v);
}

int
cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "user", required_argument, NULL, 'u' },
		{ "host", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *opt_root = NULL, *user = NULL, *host = NULL, *root, *file;
	struct ab_diag diag = { 0 };
	struct ab_strv users = { 0 };
	size_t i;
	int c, r, status = 0;

	/* 1. Arguments: --root beats $AGENTBOX_ROOT beats "/". */
	optind = 0;	/* argv[0] is "check"; reset for a dispatcher that already parsed */
	while ((c = getopt_long(argc, argv, "+r:u:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			opt_root = optarg;
			break;
		case 'u':
			user = optarg;
			break;
		case 'H':
			host = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1 || (opt_root != NULL && opt_root[0] == '\0') ||
	    (host != NULL && user == NULL)) {
		usage(stderr);
		return 2;
	}
	file = optind < argc ? argv[optind] : NULL;
	root = admin_policy_root(opt_root);

	/* 2. The whole set, every error at once: one bad line refuses every login. */
	r = ab_policy_check(root, file, &users, &diag);
	if (r != 0) {
		print_diag(&diag);
		fprintf(stderr, "agentbox check: policy %s: %zu problem%s: ",
		    r == -EINVAL ? "invalid" : "unreadable", diag.n, diag.n == 1 ? "" : "s");
		print_consequence(root, file, r, &users);
		ab_diag_free(&diag);
		ab_strv_free(&users);
		return 1;
	}
	ab_diag_free(&diag);
	if (check_suffixes(root, file, &users) != 0) {
		ab_strv_free(&users);
		return 1;
	}

	/* 3. What each enrolled user (or the one asked for) gets. */
	if (user != NULL) {
		status = show_user(root, file, user, host);
	} else if (users.n == 0) {
		printf("policy valid; no user enrolled (no [user:NAME] section)\n");
	} else {
		for (i = 0; i < users.n && status == 0; i++) {
			if (i > 0)
				putchar('\n');
			status = show_user(root, file, users.v[i], NULL);
		}
	}
	ab_strv_free(&users);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "agentbox check: stdout: %s\n", strerror(errno));
		return 1;
	}
	return status;
}
