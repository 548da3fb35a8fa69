/*
 * agentbox enroll / unenroll.
 *
 * enroll writes the user's policy and proves the whole policy set still compiles before
 * anything on the host changes; then, in an order where every intermediate state fails
 * closed (the shell refuses to run outside a world the PAM module built, the PAM module
 * refuses a user whose policy is missing), it creates the account, installs the policy,
 * grants project access, wires PAM, sshd, cron/at, the audit rules and auditd.  Every
 * step is idempotent, so running enroll again repairs a half-done enrollment.
 *
 * What enroll did is recorded in /etc/agentbox/enrolled/USER (uid, projects granted, the
 * shell it replaced) so unenroll removes exactly that, even after the policy changed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "admin.h"
#include "cmd.h"
#include "config.h"

#define NOLOGIN "/usr/sbin/nologin"

struct state {
	uid_t		 uid;		/* (uid_t)-1: unknown */
	int		 created;	/* enroll created the account */
	char		*shell_before;	/* login shell enroll replaced, or NULL */
	struct ab_strv	 projects;	/* trees given an ACL entry */
};

static void
state_free(struct state *s)
{
	free(s->shell_before);
	ab_strv_free(&s->projects);
}

static int
state_path(const char *user, char *buf, size_t len)
{
	return snprintf(buf, len, AB_STATE_DIR "/%s", user) >= (int)len ? -ENAMETOOLONG : 0;
}

/* Values are paths without whitespace (enroll refuses others), one "key value" a line. */
static int
state_read(const char *user, struct state *s)
{
	char path[PATH_MAX], *buf, *line, *save = NULL;
	int r;

	memset(s, 0, sizeof(*s));
	s->uid = (uid_t)-1;
	if ((r = state_path(user, path, sizeof(path))) != 0 ||
	    (r = adm_read_file(path, &buf, NULL)) != 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line != NULL && r == 0;
	    line = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(line, ' ');
		if (line[0] == '#' || v == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "uid") == 0)
			s->uid = (uid_t)strtoul(v, NULL, 10);
		else if (strcmp(line, "created") == 0)
			s->created = strcmp(v, "1") == 0;
		else if (strcmp(line, "shell-before") == 0)
			r = (s->shell_before = strdup(v)) == NULL ? -ENOMEM : 0;
		else if (strcmp(line, "project") == 0 && !ab_strv_has(&s->projects, v))
			r = ab_strv_push(&s->projects, v);
	}
	free(buf);
	return r;
}

static int
state_write(const char *user, const struct state *s)
{
	char path[PATH_MAX], *text = NULL;
	size_t len = 0, i;
	FILE *f;
	int r;

	if ((r = state_path(user, path, sizeof(path))) != 0)
		return r;
	if ((f = open_memstream(&text, &len)) == NULL)
		return -errno;
	fprintf(f, "# agentbox enroll: what agentbox unenroll %s undoes\n", user);
	fprintf(f, "uid %u\ncreated %d\n", (unsigned)s->uid, s->created);
	if (s->shell_before != NULL)
		fprintf(f, "shell-before %s\n", s->shell_before);
	for (i = 0; i < s->projects.n; i++)
		fprintf(f, "project %s\n", s->projects.v[i]);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	r = 0;
	if (!adm_dry_run && (r = adm_mkdir_p(AB_STATE_DIR, 0755)) == 0)
		r = adm_write_file(path, text, len, 0644);
	free(text);
	return r;
}

int
adm_enrolled_users(struct ab_strv *users)
{
	struct ab_diag diag = { 0 };
	struct ab_strv pol = { 0 };
	struct dirent *de;
	size_t i;
	DIR *d;
	int r = 0;

	if ((d = opendir(AB_STATE_DIR)) != NULL) {
		while (r == 0 && (de = readdir(d)) != NULL)
			if (de->d_name[0] != '.' && !ab_strv_has(users, de->d_name))
				r = ab_strv_push(users, de->d_name);
		closedir(d);
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (r != 0)
		return r;
	/* Users a hand-written policy enrolls count too. */
	r = ab_policy_check(NULL, NULL, &pol, &diag);
	ab_diag_free(&diag);
	if (r == -ENOENT)
		r = 0;
	for (i = 0; r == 0 && i < pol.n; i++)
		if (!ab_strv_has(users, pol.v[i]))
			r = ab_strv_push(users, pol.v[i]);
	ab_strv_free(&pol);
	return r;
}

/* Trees no agent may be given write access to, whatever the admin typed. */
static int
forbidden_project(const char *p)
{
	static const char *const sys[] = {
		"/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64",
		"/libx32", "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/tmp",
		"/usr", "/var", "/var/tmp", "/var/lib", "/var/log", NULL,
	};
	static const char *const under[] = {
		"/boot/", "/dev/", "/etc/", "/proc/", "/run/", "/sys/", "/usr/", "/var/log/",
		"/var/lib/", "/root/", NULL,
	};
	size_t i;

	for (i = 0; sys[i] != NULL; i++)
		if (strcmp(p, sys[i]) == 0)
			return 1;
	for (i = 0; under[i] != NULL; i++)
		if (strncmp(p, under[i], strlen(under[i])) == 0)
			return 1;
	return 0;
}

/* Trees every session replaces with its own (pam_module): a project there is unreachable. */
static const char *
replaced_tree(const char *p)
{
	static const char *const trees[] = { "/tmp/", "/var/tmp/", "/dev/shm/", "/run/", NULL };
	size_t i;

	for (i = 0; trees[i] != NULL; i++)
		if (strncmp(p, trees[i], strlen(trees[i])) == 0)
			return trees[i];
	return NULL;
}

static char *
canonical_project(const char *arg)
{
	struct stat st;
	char *p;
	size_t i;

	if (arg[0] != '/')
		die("project %s: give an absolute path", arg);
	if ((p = realpath(arg, NULL)) == NULL)
		die_errno(errno, "project %s", arg);
	if (stat(p, &st) == -1)
		die_errno(errno, "project %s", p);
	if (!S_ISDIR(st.st_mode))
		die("project %s: not a directory", p);
	/* The policy separates list values with whitespace and starts comments with ; or #. */
	for (i = 0; p[i] != '\0'; i++)
		if ((unsigned char)p[i] <= ' ' || p[i] == ';' || p[i] == '#' || p[i] == 0x7f)
			die("project %s: whitespace, control characters, ';' and '#' cannot be "
			    "written in a policy file", p);
	if (forbidden_project(p))
		die("project %s: a system directory cannot be an agent's project", p);
	if (replaced_tree(p) != NULL)
		die("project %s: every session gets a private %s, so the agent could never "
		    "reach it", p, replaced_tree(p));
	return p;
}

static char *
policy_text(const char *user, const struct ab_strv *projects, const char *network,
    int learn)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;

	if ((f = open_memstream(&text, &len)) == NULL)
		return NULL;
	fprintf(f, "# Written by agentbox enroll; agentbox unenroll %s removes it.\n"
	    "[user:%s]\n", user, user);
	for (i = 0; i < projects->n; i++)
		fprintf(f, "project = %s\n", projects->v[i]);
	if (network != NULL)
		fprintf(f, "network = %s\n", network);
	if (learn)
		fprintf(f, "# Learning: remove this line once agentbox-audit suggest's lines "
		    "are in.\nlearn = yes\n");
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * Copy a policy file into the scratch root with its owner and mode, and refuse what is
 * not a regular file: the loader's safety checks (root-owned, not group/world-writable,
 * no symlink) must see in the copy exactly what they would see in the original.
 */
static int
copy_file(const char *from, const char *to)
{
	struct stat st;
	char *buf;
	size_t len;
	int r;

	if (lstat(from, &st) == -1)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ELOOP;
	if ((r = adm_read_file(from, &buf, &len)) != 0)
		return r;
	r = adm_write_file(to, buf, len, st.st_mode & 07777);
	free(buf);
	if (r == 0 && chown(to, st.st_uid, st.st_gid) == -1)
		r = -errno;
	return r;
}

/* Remove the scratch tree made by validate(): two directory levels of plain files. */
static void
rm_scratch(const char *root)
{
	static const char *const dirs[] = { "etc/agentbox/policy.d", "etc/agentbox", "etc", "" };
	char path[PATH_MAX];
	struct dirent *de;
	size_t i;
	DIR *d;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		if ((d = opendir(path)) != NULL) {
			while ((de = readdir(d)) != NULL)
				if (de->d_type == DT_REG)
					unlinkat(dirfd(d), de->d_name, 0);
			closedir(d);
		}
		rmdir(path);
	}
}

static void
print_diag(const struct ab_diag *diag)
{
	size_t i;

	for (i = 0; i < diag->n; i++)
		fprintf(stderr, "  %s\n", diag->msg[i]);
}

/*
 * Are all of DIAG's problems the kind that refuse only the user whose section names
 * them: a `project` that is missing, not a directory or behind a symlink (policy.h,
 * ab_policy_load)?  The caller already knows USER's own load passed, which a text
 * problem anywhere would have failed; this is a second, textual check that fails
 * closed: an unrecognised message keeps the enroll refused.
 */
static int
only_project_facts(const struct ab_diag *diag)
{
	size_t i;

	for (i = 0; i < diag->n; i++)
		if (strstr(diag->msg[i], ": project: '") == NULL)
			return 0;
	return diag->n > 0;
}

/*
 * The policy set as it will be after this enroll, compiled in a scratch root: one bad
 * line anywhere would refuse every agent's login, so nothing changes unless it passes.
 * Returns USER's compiled policy (its masks decide the ACL walk).
 */
static struct ab_policy *
validate(const char *user, const char *text, const char *ppath)
{
	char root[] = "/run/agentbox-enroll.XXXXXX", path[PATH_MAX], from[PATH_MAX];
	struct ab_diag diag = { 0 }, check;
	struct ab_policy *pol = NULL;
	struct dirent *de;
	DIR *d;
	int r, r2 = -EINVAL;

	if (mkdtemp(root) == NULL)
		die_errno(errno, "mkdtemp %s", root);
	snprintf(path, sizeof(path), "%s/etc/agentbox/policy.d", root);
	if ((r = adm_mkdir_p(path, 0755)) != 0) {
		rm_scratch(root);
		die_errno(r, "mkdir %s", path);
	}
	snprintf(path, sizeof(path), "%s" AB_POLICY_FILE, root);
	if ((r = copy_file(AB_POLICY_FILE, path)) != 0 && r != -ENOENT) {
		rm_scratch(root);
		if (r == -ELOOP)
			die("%s is not a regular file: the PAM module would refuse every login; "
			    "nothing changed", AB_POLICY_FILE);
		die_errno(r, "read %s", AB_POLICY_FILE);
	}
	if ((d = opendir(AB_POLICY_DIR)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			size_t n = strlen(de->d_name);
			/* What the loader reads: *.conf, no dot files. */
			if (de->d_name[0] == '.' || n < 6 || strcmp(de->d_name + n - 5, ".conf") != 0)
				continue;
			snprintf(from, sizeof(from), AB_POLICY_DIR "/%s", de->d_name);
			if (strcmp(from, ppath) == 0)
				continue;
			snprintf(path, sizeof(path), "%s" AB_POLICY_DIR "/%s", root, de->d_name);
			if ((r = copy_file(from, path)) != 0) {
				closedir(d);
				rm_scratch(root);
				if (r == -ELOOP)
					die("%s is not a regular file: the PAM module would refuse "
					    "every login; nothing changed", from);
				die_errno(r, "read %s", from);
			}
		}
		closedir(d);
	}
	snprintf(path, sizeof(path), "%s%s", root, ppath);
	if ((r = adm_write_file(path, text, strlen(text), 0644)) != 0) {
		rm_scratch(root);
		die_errno(r, "write %s", path);
	}
	r = ab_policy_check(root, NULL, NULL, &diag);
	check = diag;
	diag = (struct ab_diag){ 0 };
	if (r == 0 || r == -EINVAL)
		r2 = ab_policy_load(root, user, &pol, &diag);
	rm_scratch(root);
	if (r == -EINVAL && r2 == 0 && only_project_facts(&check)) {
		/* USER compiles: what is left is another user's project gone from the host,
		 * which refuses only that user's logins (policy.h).  Not ours to block on. */
		adm_warn("enrolling %s although the policy set has problems that refuse only "
		    "other users' logins:", user);
		print_diag(&check);
		r = 0;
	}
	if (r == 0)
		r = r2;
	if (r != 0) {
		fprintf(stderr, "agentbox: the policy would not be valid after enrolling %s "
		    "(%s); nothing changed:\n", user, strerror(-r));
		print_diag(&check);
		print_diag(&diag);
		exit(1);
	}
	ab_diag_free(&check);
	ab_diag_free(&diag);
	return pol;
}

static int
install_policy(const char *ppath, const char *text)
{
	int r = adm_write_if_changed(ppath, text, 0644, AB_POLICY_DIR, 0755,
	    "write the policy %s", ppath);

	return r < 0 ? r : 0;
}

/* On a terminal, a long walk says where it is, so a big tree does not look hung. */
static void
grant_progress(const struct adm_acl_stats *st, const char *path, void *arg)
{
	fprintf(stderr, "agentbox: %s: %lu directories, %lu files so far (at %s)\n",
	    (const char *)arg, st->dirs, st->files, path);
}

/* DIR's index in MASKS's trees (the home, then the policy's projects). */
static size_t
project_tree(const struct ab_policy *pol, const char *dir, const char *user)
{
	size_t i;

	for (i = 0; i < pol->project.n; i++)
		if (strcmp(pol->project.v[i], dir) == 0)
			return i + 1;
	die("enroll %s: %s is not a project of its policy", user, dir);
}

/* HOME: the account's, whose masks reach into a project inside it, as in a session. */
static void
grant_project(const char *dir, uid_t uid, const char *user, const char *home,
    const struct ab_policy *pol)
{
	struct adm_acl_opts opts = { .arg = (void *)dir };
	struct ab_maskset *masks;
	struct adm_acl_stats st;
	char why[PATH_MAX + 64];
	int r;

	if (!act("grant %s rwx on %s (access + default ACL, recursive; masked paths ---)",
	    user, dir))
		return;
	if (isatty(STDERR_FILENO) && !adm_quiet)
		opts.progress = grant_progress;
	opts.tree = project_tree(pol, dir, user);
	if ((r = ab_maskset_new(&pol->mask, home, &pol->project, AB_MASKSET_MASKS, &masks)) != 0)
		die_errno(r, "enroll %s: mask patterns", user);
	opts.masks = masks;
	r = adm_acl_grant(dir, uid, &opts, &st, why, sizeof(why));
	ab_maskset_free(masks);
	if (r != 0)
		die_errno(r, "enroll %s: ACL in %s: %s", user, dir, why);
	if (st.skipped)
		adm_warn("%s: %lu entries left alone (hard-linked files, other mounts)", dir,
		    st.skipped);
	if (st.masked && !adm_quiet)
		printf("%s: %lu masked entr%s denied to %s (user:%u:---)\n", dir, st.masked,
		    st.masked == 1 ? "y" : "ies", user, (unsigned)uid);
}

static int
revoke_project(const char *dir, uid_t uid, const char *user)
{
	struct adm_acl_stats st;
	char why[PATH_MAX + 64];
	int r;

	if (!act("revoke %s's ACL entries under %s", user, dir))
		return 0;
	if ((r = adm_acl_revoke(dir, uid, NULL, &st, why, sizeof(why))) != 0)
		adm_warn("%s: ACL in %s: %s: %s", user, dir, why, strerror(-r));
	return r;
}

/*
 * sshd's internal-sftp never runs the login shell, so the agent's sftp would be
 * unconfined (FINDINGS F8).  A Match block cannot change Subsystem, and the global
 * setting is the admin's to change, not ours: warn, naming the file.
 */
static void
warn_internal_sftp(const char *user)
{
	char file[PATH_MAX], *eff = NULL;

	if (adm_dry_run || adm_sshd_effective(user, &eff) != 0)
		return;
	if (adm_sshd_sftp_inprocess(eff)) {
		adm_sshd_sftp_source(file, sizeof(file));
		adm_warn("%s: sshd serves sftp with internal-sftp, inside sshd: %s's sftp "
		    "sessions skip agentbox-shell and see files outside the policy (no read set, "
		    "Landlock or seccomp)", file, user);
		hint("in %s, replace it with 'Subsystem sftp " AB_SFTP_SERVER "' and reload "
		    "sshd; agentbox doctor fails until then", file);
	}
	free(eff);
}

static void
usage_enroll(FILE *f)
{
	fprintf(f, "usage: agentbox enroll USER --project DIR [--project DIR ...] "
	    "[--network none|loopback|host|tcp:PORT,...|proxy] [--learn] [--kill-running] "
	    "[--dry-run] [--quiet]\n");
}

/* Enroll stops at the first failed step (rerunning it repairs the rest), naming the
 * user and the file(s) it was writing. */
static void
enroll_step(int r, const char *user, const char *what, const char *file)
{
	if (r != 0)
		die_errno(r, "enroll %s: %s (%s)", user, what, file);
}

int
cmd_enroll(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "project", required_argument, NULL, 'p' },
		{ "network", required_argument, NULL, 'n' },
		{ "learn", no_argument, NULL, 'l' },
		{ "kill-running", no_argument, NULL, 'K' },
		{ "dry-run", no_argument, NULL, 'N' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ab_strv args = { 0 }, projects = { 0 };
	struct state old, st = { 0 };
	const char *user, *network = NULL;
	char ppath[PATH_MAX], spath[PATH_MAX], path[PATH_MAX], *text, *p;
	struct ab_policy *pol;
	struct passwd *pw;
	char *home = NULL;	/* the account's: its masks reach into projects inside it */
	size_t i;
	int c, r, created, learn = 0, kill_running = 0;

	while ((c = getopt_long(argc, argv, "p:n:Nqh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (ab_strv_push(&args, optarg) != 0)
				die("out of memory");
			break;
		case 'n': network = optarg; break;
		case 'l': learn = 1; break;
		case 'K': kill_running = 1; break;
		case 'N': adm_dry_run = 1; break;
		case 'q': adm_quiet = 1; break;
		case 'h': usage_enroll(stdout); return 0;
		default: usage_enroll(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage_enroll(stderr);
		return 2;
	}
	user = argv[optind];
	/* 1. Refuse what we cannot do right before touching anything. */
	if (geteuid() != 0)
		die("enroll: must be root (it changes users, PAM, sshd and audit)");
	if (!ab_user_name_valid(user))	/* the policy's rule: lib/names.c */
		die("%s: not a valid user name", user);
	if (args.n == 0)
		die("enroll %s: at least one --project DIR is needed", user);
	/* After the root check: a non-root caller learns that first, not a path error. */
	for (i = 0; i < args.n; i++) {
		p = canonical_project(args.v[i]);
		if (!ab_strv_has(&projects, p) && ab_strv_push(&projects, p) != 0)
			die("out of memory");
		free(p);
	}
	ab_strv_free(&args);
	if (strchr(network ? network : "", '\n') != NULL)
		die("--network: invalid value");
	if (access(AB_SHELL_PATH, X_OK) == -1)
		adm_warn("%s is not installed: %s's logins fail until it is (make install)",
		    AB_SHELL_PATH, user);
	/* Deny by default: say so, or the first session looks broken rather than safe. */
	if (network != NULL && strcmp(network, ab_network_name(AB_NET_PROXY)) == 0)
		adm_warn("network = proxy reaches no host until allow_host lines are added to "
		    AB_POLICY_DIR "/%s.conf (agentbox.conf(5); @NAME names a shipped host set)",
		    user);
	/* Learning is a weaker box: say what it is, every time. */
	if (learn)
		adm_warn("%s learns: files outside its read and write sets%s are allowed and "
		    "recorded, not refused, until learn = yes is removed from "
		    AB_POLICY_DIR "/%s.conf (agentbox-audit suggest --user %s writes the "
		    "lines it needs)", user, network != NULL && strcmp(network,
		    ab_network_name(AB_NET_PROXY)) == 0 ? ", and hosts outside allow_host," : "",
		    user, user);

	/* A process of the user outside a box could hand its sessions what they hide: none
	 * may run (DESIGN invariant 3), and the PAM module refuses logins while one does. */
	if ((pw = getpwnam(user)) != NULL && pw->pw_uid != 0)
		adm_unboxed_refuse(user, pw->pw_uid, kill_running);

	/* 2. The policy set must compile with this user in it, or nothing changes. */
	snprintf(ppath, sizeof(ppath), AB_POLICY_DIR "/%s.conf", user);
	if ((text = policy_text(user, &projects, network, learn)) == NULL)
		die("out of memory");
	pol = validate(user, text, ppath);
	state_path(user, spath, sizeof(spath));

	/* 3. The account, with agentbox-shell as its login shell (fails closed alone). */
	if ((r = state_read(user, &old)) != 0 && r != -ENOENT)
		die_errno(r, "enroll %s: read the enrollment state %s", user, spath);
	errno = 0;
	if ((pw = getpwnam(user)) != NULL && pw->pw_uid == 0)
		die("%s has uid 0: root cannot be confined", user);
	if (pw != NULL && strcmp(pw->pw_shell, AB_SHELL_PATH) != 0 &&
	    old.shell_before == NULL)
		st.shell_before = strdup(pw->pw_shell);
	else if (old.shell_before != NULL)
		st.shell_before = strdup(old.shell_before);
	enroll_step(adm_user_ensure(user, AB_SHELL_PATH, &created), user,
	    "create or update the account (useradd/usermod)", "/etc/passwd");
	st.created = created || old.created;
	/* Kept OUT of /etc/shells on purpose: util-linux su -m/-p run the caller's $SHELL
	 * instead of a listed ("unrestricted") passwd shell, and non-root callers may use
	 * su -s only for unrestricted ones.  Remove a listing an older enroll made. */
	enroll_step(adm_shells_remove(AB_SHELL_PATH), user,
	    "remove agentbox-shell from /etc/shells", "/etc/shells");
	errno = 0;
	if ((pw = getpwnam(user)) == NULL) {
		if (!adm_dry_run)
			die("user %s does not exist after useradd", user);
		st.uid = (uid_t)-1;
	} else {
		st.uid = pw->pw_uid;
		if ((home = strdup(pw->pw_dir)) == NULL)
			die("out of memory");
	}

	/* 4. Its policy: from now on the PAM module confines it. */
	enroll_step(install_policy(ppath, text), user, "write the policy", ppath);
	free(text);

	/* 5. Record before granting, so a crash half way is still undone by unenroll. */
	if (ab_strv_append(&st.projects, &old.projects) != 0 ||
	    ab_strv_append(&st.projects, &projects) != 0 || ab_strv_uniq(&st.projects) != 0)
		die("out of memory");	/* a project left out would never be revoked */
	enroll_step(state_write(user, &st), user, "write the enrollment state", spath);

	/* 6. Project access; trees dropped from the list since the last enroll lose it. */
	for (i = 0; i < projects.n; i++)
		if (st.uid != (uid_t)-1 || adm_dry_run)
			grant_project(projects.v[i], st.uid, user, home, pol);
	for (i = 0; i < old.projects.n; i++)
		if (!ab_strv_has(&projects, old.projects.v[i]) && st.uid != (uid_t)-1)
			revoke_project(old.projects.v[i], st.uid, user);
	ab_strv_free(&st.projects);
	if (ab_strv_append(&st.projects, &projects) != 0)
		die("out of memory");
	enroll_step(state_write(user, &st), user, "write the enrollment state", spath);

	/* 7. Every entry path runs pam_agentbox. */
	if ((r = adm_pam_enable()) == -ENOTRECOVERABLE) {
		hint("pam-auth-update keeps locally modified common-session files: "
		    "review them, then run pam-auth-update --force --enable agentbox");
		die("enroll %s: PAM: pam_agentbox.so is still missing from "
		    AB_PAM_D "/common-session*", user);
	}
	enroll_step(r, user, "add pam_agentbox to the PAM stacks",
	    AB_PAM_CONFIGS_DIR "/" AB_PAM_PROFILE_NAME ", " AB_PAM_D "/*");

	/* 8. ssh: no forwarding around the session, no ~/.ssh/rc. */
	adm_sshd_dropin_path(user, path, sizeof(path));
	if ((r = adm_sshd_install(user)) == -EINVAL)
		die("enroll %s: sshd -t rejected the configuration with the drop-in %s; it was "
		    "removed", user, path);
	enroll_step(r, user, "install the sshd drop-in", path);

	warn_internal_sftp(user);

	/* 9. No jobs that outlive a session. */
	enroll_step(adm_deny_add(user), user, "deny cron and at",
	    "/etc/cron.deny, /etc/at.deny");

	/* 10. Every denial on the record, and auditd keeping the record. */
	snprintf(path, sizeof(path), AB_AUDIT_RULES_DIR "/agentbox-%s.rules", user);
	if (st.uid != (uid_t)-1 || adm_dry_run)
		enroll_step(adm_audit_rules_install(user, st.uid), user,
		    "install and load the audit rules", path);
	/* The rest of the host pays nothing for them (auditscope.c). */
	enroll_step(adm_audit_scope_update(), user, "rebuild the audit scope rule",
	    "the kernel's audit rules");
	enroll_step(adm_audit_backlog_install(), user, "set the kernel audit backlog",
	    AB_AUDIT_BACKLOG_RULES);
	enroll_step(adm_auditd_tune(), user, "tune auditd", AB_AUDITD_CONF);

	if (!adm_dry_run && !adm_quiet)
		printf("enrolled %s (uid %u)\n", user, (unsigned)st.uid);
	ab_policy_free(pol);
	free(home);
	state_free(&st);
	state_free(&old);
	ab_strv_free(&projects);
	return 0;
}

static void
usage_unenroll(FILE *f)
{
	fprintf(f, "usage: agentbox unenroll USER [--remove-user] [--dry-run] [--quiet]\n");
}

/* Unenroll warns about a failed step and carries on: leave as little behind as it can. */
#define UNENROLL_TRY(expr, what) do { int r_ = (expr); \
	if (r_ != 0) { adm_warn("%s: %s", (what), strerror(r_ < 0 ? -r_ : r_)); failed = 1; } \
	} while (0)

int
cmd_unenroll(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "remove-user", no_argument, NULL, 'r' },
		{ "dry-run", no_argument, NULL, 'N' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ab_strv users = { 0 };
	char ppath[PATH_MAX], spath[PATH_MAX];
	int c, r, remove_user = 0, failed = 0, last;
	const char *user;
	struct passwd *pw;
	struct state st;
	size_t i;

	while ((c = getopt_long(argc, argv, "rNqh", opts, NULL)) != -1) {
		switch (c) {
		case 'r': remove_user = 1; break;
		case 'N': adm_dry_run = 1; break;
		case 'q': adm_quiet = 1; break;
		case 'h': usage_unenroll(stdout); return 0;
		default: usage_unenroll(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage_unenroll(stderr);
		return 2;
	}
	user = argv[optind];
	if (geteuid() != 0)
		die("unenroll: must be root (it changes users, PAM, sshd and audit)");
	if (!ab_user_name_valid(user))	/* the policy's rule: lib/names.c */
		die("%s: not a valid user name", user);
	if ((r = state_read(user, &st)) != 0 && r != -ENOENT)
		die_errno(r, "read the enrollment state of %s", user);
	errno = 0;
	if ((pw = getpwnam(user)) != NULL)
		st.uid = pw->pw_uid;

	/* Nothing of a box outlives it, nor the enrollment: a persist = yes box (or a login
	 * still open) ends first, so its pid 1 cannot go on under a later user of the uid. */
	if (st.uid != (uid_t)-1 && act("end the running boxes of %s", user)) {
		unsigned n;

		UNENROLL_TRY(adm_boxes_stop(st.uid, NULL, &n), "end the running boxes");
	}
	/* In the reverse order of enroll: the confinement goes last. */
	UNENROLL_TRY(adm_audit_rules_remove(user, st.uid), "remove the audit rules");
	UNENROLL_TRY(adm_audit_scope_update(), "rebuild the audit scope rule");
	UNENROLL_TRY(adm_deny_remove(user), "remove the cron/at deny entries");
	UNENROLL_TRY(adm_sshd_remove(user), "remove the sshd drop-in");
	for (i = 0; i < st.projects.n && st.uid != (uid_t)-1; i++)
		if (adm_path_exists(st.projects.v[i]))
			UNENROLL_TRY(revoke_project(st.projects.v[i], st.uid, user),
			    "revoke project ACLs");
	if (pw != NULL && !remove_user && strcmp(pw->pw_shell, AB_SHELL_PATH) == 0) {
		/* Back to the shell it had, or no login at all for an account we made. */
		const char *sh = st.shell_before ? st.shell_before : NOLOGIN;
		const char *argv2[] = { "/usr/sbin/usermod", "--shell", sh, "--", user, NULL };
		if (act("set the login shell of %s back to %s", user, sh))
			UNENROLL_TRY(adm_run(argv2, NULL, 0), "reset the login shell");
	}
	snprintf(ppath, sizeof(ppath), AB_POLICY_DIR "/%s.conf", user);
	if (adm_path_exists(ppath) && act("remove the policy %s", ppath))
		UNENROLL_TRY(adm_unlink(ppath), "remove the policy file");
	if (state_path(user, spath, sizeof(spath)) == 0 && adm_path_exists(spath) &&
	    act("forget the enrollment state %s", spath))
		UNENROLL_TRY(adm_unlink(spath), "remove the enrollment state");

	/* The last agent gone: the host-wide pieces go too. */
	if ((r = adm_enrolled_users(&users)) != 0) {
		adm_warn("cannot tell whether other users are enrolled (%s): PAM and auditd "
		    "settings stay", strerror(-r));
		failed = 1;
		last = 0;
	} else {
		last = users.n == 0 || (users.n == 1 && adm_dry_run &&
		    strcmp(users.v[0], user) == 0);
	}
	if (users.n > 0 && !last && !adm_quiet)
		printf("still enrolled: %zu user(s); PAM and auditd settings stay\n", users.n);
	ab_strv_free(&users);
	if (last) {
		UNENROLL_TRY(adm_pam_disable(), "remove pam_agentbox from the PAM stacks");
		UNENROLL_TRY(adm_auditd_restore(), "restore the auditd settings");
		UNENROLL_TRY(adm_audit_backlog_remove(), "remove the backlog rules file");
	}
	if (remove_user)
		UNENROLL_TRY(adm_user_remove(user), "remove the user");
	state_free(&st);
	if (!failed && !adm_dry_run && !adm_quiet)
		printf("unenrolled %s\n", user);
	return failed;
}
