/*
 * The sshd drop-in /etc/ssh/sshd_config.d/agentbox-USER.conf: the agent's ssh logins
 * get no channel that would bypass the confined session (port, socket, agent and X11
 * forwarding, tunnels) and no ~/.ssh/rc run by sshd before the login shell.
 * PermitUserEnvironment is not allowed inside a Match block (sshd_config(5)); it is "no"
 * by default globally and `agentbox doctor` checks the effective value.
 * The drop-in is checked with `sshd -t` and removed again if sshd rejects it; a running
 * sshd (no systemd here) is reloaded with SIGHUP to the pid in /run/sshd.pid.
 *
 * internal-sftp (FINDINGS F8) serves files from inside sshd after the PAM session,
 * never exec'ing the login shell: no read set, no Landlock, no seccomp.  A Match block
 * cannot change Subsystem, so enroll cannot fix it per user; it warns and names the
 * file, doctor fails, and the admin switches to /usr/lib/openssh/sftp-server, which
 * sshd runs through the login shell (agentbox-shell -c ...), confined like any command.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "admin.h"

int
adm_sshd_dropin_path(const char *user, char *buf, size_t len)
{
	if (snprintf(buf, len, AB_SSHD_DROPIN_DIR "/agentbox-%s.conf", user) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static int
sshd_check(void)
{
	const char *argv[] = { AB_SSHD, "-t", NULL };
	int r;

	if (access(AB_SSHD, X_OK) == -1)
		return 0;	/* no sshd installed: nothing to check or reload */
	r = adm_run(argv, NULL, 0);
	return r == 0 ? 0 : r < 0 ? r : -EINVAL;
}

int
adm_sshd_reload(void)
{
	char *buf, comm[64], path[64];
	long pid;
	FILE *f;
	int r;

	if ((r = adm_read_file(AB_SSHD_PID, &buf, NULL)) != 0)
		return r == -ENOENT ? 0 : r;	/* not running: it reads the drop-in at start */
	pid = strtol(buf, NULL, 10);
	free(buf);
	if (pid <= 1)
		return -EINVAL;
	/* A stale pid file must not make us signal whatever reuses the pid. */
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	r = fgets(comm, sizeof(comm), f) != NULL && strncmp(comm, "sshd", 4) == 0;
	fclose(f);
	if (!r)
		return 0;
	if (!act("reload sshd (SIGHUP to pid %ld)", pid))
		return 0;
	return kill((pid_t)pid, SIGHUP) == -1 ? -errno : 0;
}

int
adm_sshd_install(const char *user)
{
	char path[PATH_MAX], *text;
	int r;

	if ((r = adm_sshd_dropin_path(user, path, sizeof(path))) != 0)
		return r;
	if (asprintf(&text,
	    "# Written by agentbox enroll: %s's ssh logins get no channel around the\n"
	    "# confined session and no ~/.ssh/rc.  PermitUserEnvironment cannot be set in a\n"
	    "# Match block; it is \"no\" globally (agentbox doctor checks it).\n"
	    "Match User %s\n"
	    "\tDisableForwarding yes\n"
	    "\tAllowAgentForwarding no\n"
	    "\tAllowTcpForwarding no\n"
	    "\tAllowStreamLocalForwarding no\n"
	    "\tX11Forwarding no\n"
	    "\tPermitTunnel no\n"
	    "\tPermitUserRC no\n", user, user) == -1)
		return -ENOMEM;
	r = adm_write_if_changed(path, text, 0644, AB_SSHD_DROPIN_DIR, 0755,
	    "write the sshd drop-in %s", path);
	free(text);
	if (r <= 0)
		return r;	/* unchanged, --dry-run, or failed */
	if ((r = sshd_check()) != 0) {
		/* Never leave sshd with a configuration it would refuse at its next start. */
		unlink(path);
		return r;
	}
	return adm_sshd_reload();
}

int
adm_sshd_remove(const char *user)
{
	char path[PATH_MAX];
	int r;

	if ((r = adm_sshd_dropin_path(user, path, sizeof(path))) != 0)
		return r;
	if (!adm_path_exists(path))
		return 0;
	if (!act("remove the sshd drop-in %s", path))
		return 0;
	if ((r = adm_unlink(path)) != 0)
		return r;
	return adm_sshd_reload();
}

int
adm_sshd_effective(const char *user, char **out)
{
	char spec[300];
	const char *argv[] = { AB_SSHD, "-T", "-C", spec, NULL };
	int r;

	if (access(AB_SSHD, X_OK) == -1)
		return -ENOENT;
	snprintf(spec, sizeof(spec), "user=%s,host=localhost,addr=127.0.0.1", user);
	if ((r = adm_run(argv, out, 1)) != 0) {
		if (r > 0)
			free(*out);
		return r < 0 ? r : -EINVAL;
	}
	return 0;
}

/* Is WORD (up to a blank or the end) "internal-sftp", in any case? */
static int
is_internal_sftp(const char *word)
{
	static const char name[] = "internal-sftp";
	size_t n = sizeof(name) - 1;

	return strncasecmp(word, name, n) == 0 &&
	    (word[n] == '\0' || word[n] == ' ' || word[n] == '\t' || word[n] == '\n');
}

/* Skip KEY (case-insensitive) and the blanks after it; NULL if LINE does not start so. */
static const char *
after_key(const char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncasecmp(line, key, n) != 0 || (line[n] != ' ' && line[n] != '\t'))
		return NULL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

int
adm_sshd_sftp_inprocess(const char *effective)
{
	const char *line, *v;

	for (line = effective; line != NULL && *line != '\0';
	    line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if ((v = after_key(line, "subsystem")) != NULL &&
		    (v = after_key(v, "sftp")) != NULL && is_internal_sftp(v))
			return 1;
		if ((v = after_key(line, "forcecommand")) != NULL && is_internal_sftp(v))
			return 1;
	}
	return 0;
}

/* Does the config file PATH have a Subsystem/ForceCommand line running internal-sftp? */
static int
file_sets_internal_sftp(const char *path)
{
	char *buf, *line, *save = NULL;
	int found = 0;

	if (adm_read_file(path, &buf, NULL) != 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line != NULL && !found;
	    line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		found = adm_sshd_sftp_inprocess(line);
	}
	free(buf);
	return found;
}

int
adm_sshd_sftp_source(char *buf, size_t len)
{
	const char *main_conf = AB_SSHD_CONFIG;
	struct ab_strv names = { 0 };
	struct dirent *de;
	size_t i;
	DIR *d;
	int r = 0, found = 0;

	if (file_sets_internal_sftp(main_conf)) {
		snprintf(buf, len, "%s", main_conf);
		return 0;
	}
	/* The drop-ins Debian's sshd_config includes, in the order sshd reads them. */
	if ((d = opendir(AB_SSHD_DROPIN_DIR)) != NULL) {
		while (r == 0 && (de = readdir(d)) != NULL) {
			size_t n = strlen(de->d_name);
			if (de->d_name[0] != '.' && n > 5 && strcmp(de->d_name + n - 5, ".conf") == 0)
				r = ab_strv_push(&names, de->d_name);
		}
		closedir(d);
	}
	ab_strv_sort(&names);
	for (i = 0; r == 0 && i < names.n && !found; i++) {
		snprintf(buf, len, AB_SSHD_DROPIN_DIR "/%s", names.v[i]);
		found = file_sets_internal_sftp(buf);
	}
	ab_strv_free(&names);
	if (!found)	/* set where we do not look (another Include): name the root */
		snprintf(buf, len, "%s", main_conf);
	return r;
}
