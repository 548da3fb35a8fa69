/*
 * `session required pam_agentbox.so` in every PAM stack an agent can log in through.
 *
 * On Debian the pam-auth-update profile /usr/share/pam-configs/agentbox puts it into
 * common-session and common-session-noninteractive (the profile has no
 * Session-Interactive-Only field at all: pam-auth-update 1.5.2 treats the field as
 * "interactive only" whatever its value, even "no"),
 * which sshd, login, su, su-l, sudo, sudo-i, cron and atd include (in sshd and login
 * after pam_loginuid, so the module sees the new loginuid).  Debian 12's runuser (and
 * runuser-l, which includes it) includes neither: those get the line directly, marked
 * so unenroll removes exactly it.  Which stacks need it is computed by expanding each
 * service's session stack, not hard-coded, so a changed distribution file is followed.
 * Where pam-auth-update does not exist, the common files are edited the same way.
 *
 * agentbox run's own service, /etc/pam.d/agentbox-run (AB_PAM_RUN_SERVICE), is written
 * whole: root only (pam_rootok), the usual account and session modules, and
 * pam_agentbox with its `run` argument, which gives every run a box of its own and
 * reads agentbox run's requests (--ephemeral) from the PAM environment.  No pam_env in
 * it: nothing but agentbox run itself can set that environment there.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "admin.h"

#define PAM_AUTH_UPDATE	"/usr/sbin/pam-auth-update"
#define PROFILE		AB_PAM_CONFIGS_DIR "/" AB_PAM_PROFILE_NAME
#define MODULE		"pam_agentbox.so"
#define STACK_DEPTH	8

/* The profile text, generated from admin/agentbox.pam-config by admin/build.mk. */
static const char profile_text[] =
#include "pam_profile.h"
;

const char *const adm_pam_services[] = {
	"sshd", "login", "su", "su-l", "sudo", "sudo-i", "runuser", "runuser-l",
	"cron", "atd", NULL,
};

static const char *const common_stacks[] = {
	"common-session", "common-session-noninteractive", NULL,
};

static const char direct_line[] = AB_PAM_LINE " " AB_PAM_MARK;

static const char run_service_text[] =
	"# " AB_PAM_RUN_SERVICE ": written by agentbox enroll, for `agentbox run` only\n"
	"# (agentbox(8)); removed by the last unenroll.  pam_agentbox's `run` argument: a box\n"
	"# of the run's own, and agentbox run's requests (--ephemeral) read from the PAM\n"
	"# environment, which no module here sets (no pam_env).\n"
	"auth\trequired\tpam_rootok.so\n"
	"account\tinclude\tcommon-account\n"
	"session\toptional\tpam_keyinit.so force revoke\n"
	"session\trequired\tpam_limits.so\n"
	"session\trequired\tpam_unix.so\n"
	"session\trequired\tpam_agentbox.so run\n";

/* Split one stack line into words, keeping a [...] control as one word. */
static size_t
split(char *line, char **w, size_t max)
{
	size_t n = 0;
	char *p = line, *hash;

	if ((hash = strchr(p, '#')) != NULL)
		*hash = '\0';
	while (n < max) {
		p += strspn(p, " \t\r\n");
		if (*p == '\0')
			break;
		w[n++] = p;
		if (*p == '[') {
			char *e = strchr(p, ']');
			p = e != NULL ? e + 1 : p + strlen(p);
		} else {
			p += strcspn(p, " \t\r\n");
		}
		if (*p != '\0')
			*p++ = '\0';
	}
	return n;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

static int
expand(const char *service, struct ab_strv *mods, int depth)
{
	char path[PATH_MAX], *buf, *line, *save = NULL, *w[4];
	int r = 0;

	if (depth > STACK_DEPTH || strchr(service, '/') != NULL)
		return -ELOOP;
	snprintf(path, sizeof(path), AB_PAM_D "/%s", service);
	if ((r = adm_read_file(path, &buf, NULL)) != 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line != NULL && r == 0;
	    line = strtok_r(NULL, "\n", &save)) {
		size_t n = split(line, w, 4);
		if (n >= 2 && strcmp(w[0], "@include") == 0) {
			r = expand(w[1], mods, depth + 1);
			continue;
		}
		if (n < 3 || (strcmp(w[0], "session") != 0 && strcmp(w[0], "-session") != 0))
			continue;
		if (strcmp(w[1], "include") == 0 || strcmp(w[1], "substack") == 0)
			r = expand(w[2], mods, depth + 1);
		else
			r = ab_strv_push(mods, base_name(w[2]));
	}
	free(buf);
	return r;
}

int
adm_pam_session_modules(const char *service, struct ab_strv *mods)
{
	return expand(service, mods, 0);
}

static int
stack_has_module(const char *service)
{
	struct ab_strv mods = { 0 };
	size_t i;
	int r;

	if ((r = expand(service, &mods, 0)) != 0) {
		ab_strv_free(&mods);
		return r;
	}
	for (i = 0, r = 0; i < mods.n && !r; i++)
		r = strcmp(mods.v[i], MODULE) == 0;
	ab_strv_free(&mods);
	return r;
}

/*
 * Insert the marked line into SERVICE's own file: after its last session line that runs
 * pam_loginuid or pam_limits (the module must see the final loginuid and limits), else
 * after its last session line, else at the end.
 */
static int
insert_direct(const char *service)
{
	char path[PATH_MAX], *buf, *copy, *out, *w[4];
	size_t len, at = (size_t)-1, last_session = (size_t)-1, off = 0;
	int r;

	snprintf(path, sizeof(path), AB_PAM_D "/%s", service);
	if ((r = adm_read_file(path, &buf, &len)) != 0)
		return r;
	while (off < len) {
		size_t eol = off + strcspn(buf + off, "\n");
		size_t next = eol < len ? eol + 1 : eol;
		if ((copy = strndup(buf + off, eol - off)) == NULL) {
			free(buf);
			return -ENOMEM;
		}
		size_t n = split(copy, w, 4);
		if (n >= 3 && (strcmp(w[0], "session") == 0 || strcmp(w[0], "-session") == 0)) {
			last_session = next;
			if (strcmp(base_name(w[2]), "pam_loginuid.so") == 0 ||
			    strcmp(base_name(w[2]), "pam_limits.so") == 0)
				at = next;
		}
		free(copy);
		off = next;
	}
	if (at == (size_t)-1)
		at = last_session != (size_t)-1 ? last_session : len;
	if (!act("add '%s' to %s", AB_PAM_LINE, path)) {
		free(buf);
		return 0;
	}
	if (asprintf(&out, "%.*s%s%s\n%s", (int)at, buf,
	    at > 0 && buf[at - 1] != '\n' ? "\n" : "", direct_line, buf + at) == -1) {
		free(buf);
		return -ENOMEM;
	}
	r = adm_write_file(path, out, strlen(out), 0644);
	free(buf);
	free(out);
	return r;
}

static int
remove_direct(const char *path)
{
	return adm_remove_line(path, direct_line, "'" AB_PAM_LINE "'", 0);
}

static int
ensure_profile(void)
{
	int r;

	if (adm_path_exists(PROFILE))
		return 0;
	if (!act("write the pam-auth-update profile %s", PROFILE))
		return 0;
	if ((r = adm_mkdir_p(AB_PAM_CONFIGS_DIR, 0755)) != 0)
		return r;
	return adm_write_file(PROFILE, profile_text, sizeof(profile_text) - 1, 0644);
}

/*
 * pam-auth-update keeps its answers in debconf, whose database a running apt or
 * another pam-auth-update holds locked: retry a few times before giving up.
 */
static int
run_pam_auth_update(const char *const argv[])
{
	int r, tries;

	for (tries = 0; ; tries++) {
		if ((r = adm_run(argv, NULL, tries < 4)) <= 0 || tries == 4)
			return r < 0 ? r : r > 0 ? -EIO : 0;
		sleep(1);
	}
}

static int
enable_common(void)
{
	const char *argv[] = { PAM_AUTH_UPDATE, "--package", "--enable",
		AB_PAM_PROFILE_NAME, NULL };
	size_t i;
	int r, missing = 0;

	for (i = 0; common_stacks[i] != NULL; i++)
		if (stack_has_module(common_stacks[i]) == 0)
			missing = 1;
	if (!missing)
		return 0;
	if (access(PAM_AUTH_UPDATE, X_OK) == 0) {
		if ((r = ensure_profile()) != 0)
			return r;
		if (!act("enable the PAM profile (pam-auth-update --enable %s)",
		    AB_PAM_PROFILE_NAME))
			return 0;
		if ((r = run_pam_auth_update(argv)) != 0)
			return r;
		/* pam-auth-update leaves locally modified files alone: verify. */
		for (i = 0; common_stacks[i] != NULL; i++) {
			char path[PATH_MAX];
			snprintf(path, sizeof(path), AB_PAM_D "/%s", common_stacks[i]);
			if (adm_path_exists(path) && stack_has_module(common_stacks[i]) != 1)
				return -ENOTRECOVERABLE;
		}
		return 0;
	}
	/* No pam-auth-update: edit the common stacks that exist, like runuser below. */
	for (i = 0; common_stacks[i] != NULL; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), AB_PAM_D "/%s", common_stacks[i]);
		if (adm_path_exists(path) && stack_has_module(common_stacks[i]) == 0 &&
		    (r = insert_direct(common_stacks[i])) != 0)
			return r;
	}
	return 0;
}

int
adm_pam_enable(void)
{
	char path[PATH_MAX];
	size_t i;
	int r;

	if ((r = enable_common()) != 0)
		return r;
	/* In order: runuser before runuser-l, which includes it and is then covered. */
	for (i = 0; adm_pam_services[i] != NULL; i++) {
		snprintf(path, sizeof(path), AB_PAM_D "/%s", adm_pam_services[i]);
		if (!adm_path_exists(path))
			continue;
		if ((r = stack_has_module(adm_pam_services[i])) < 0)
			return r;
		if (r == 0 && !adm_dry_run && (r = insert_direct(adm_pam_services[i])) != 0)
			return r;
		if (r == 0 && adm_dry_run)
			act("add '%s' to %s (if the common stacks do not cover it)",
			    AB_PAM_LINE, path);
	}
	r = adm_write_if_changed(AB_PAM_RUN_SERVICE, run_service_text, 0644, NULL, 0,
	    "write %s (the agentbox run service)", AB_PAM_RUN_SERVICE);
	return r < 0 ? r : 0;
}

int
adm_pam_disable(void)
{
	const char *argv[] = { PAM_AUTH_UPDATE, "--package", "--disable",
		AB_PAM_PROFILE_NAME, NULL };
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = 0;

	/* Every marked line, wherever a past enroll put it. */
	if ((d = opendir(AB_PAM_D)) == NULL)
		return -errno;
	while (r == 0 && (errno = 0, de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), AB_PAM_D "/%s", de->d_name);
		r = remove_direct(path);
	}
	if (r == 0 && errno != 0)
		r = -errno;
	closedir(d);
	if (r != 0)
		return r;
	if (adm_path_exists(AB_PAM_RUN_SERVICE) &&
	    act("remove %s (the agentbox run service)", AB_PAM_RUN_SERVICE) &&
	    (r = adm_unlink(AB_PAM_RUN_SERVICE)) != 0)
		return r;
	if (access(PAM_AUTH_UPDATE, X_OK) == 0 && stack_has_module("common-session") == 1) {
		if (!act("disable the PAM profile (pam-auth-update --disable %s)",
		    AB_PAM_PROFILE_NAME))
			return 0;
		if ((r = run_pam_auth_update(argv)) != 0)
			return r;
	}
	return 0;
}
