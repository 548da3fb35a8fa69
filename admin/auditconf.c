/*
 * auditd.conf so that evidence is not lost to a denial storm, and the host is never
 * silently blind.  The original values of the keys we set are saved once (the first
 * enroll) in /etc/agentbox/auditd.conf.orig and put back by the unenroll of the last
 * enrolled user; other keys are never touched.  auditd re-reads its file on SIGHUP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"

const struct adm_auditd_setting adm_auditd_settings[] = {
	{ "max_log_file", "64", "64 MiB per file: fewer rotations in a storm" },
	{ "num_logs", "20", "20 files kept when an admin switches to rotate" },
	/*
	 * keep_logs rotates at max_log_file but never deletes: with "rotate", an agent that
	 * provokes enough denials pushes the record of its earlier ones out of the last
	 * file.  The price is disk use, watched by the space_left actions below.
	 */
	{ "max_log_file_action", "keep_logs", "rotation never deletes evidence" },
	{ "space_left", "10%", "warn while a tenth of the disk is left" },
	{ "space_left_action", "syslog", "the warning lands in the system log" },
	{ "admin_space_left", "5%", "last chance before the disk is full" },
	/*
	 * suspend (Debian's default) keeps the host running while auditd silently stops
	 * writing: every later denial is lost with no trace.  single stops the sessions
	 * (and the agents) instead and keeps what was written, which is what an audit
	 * trail is for; the CIS benchmarks make the same choice.
	 */
	{ "admin_space_left_action", "single", "stop the host's sessions, never write blind" },
	{ "disk_full_action", "single", "never keep running without a record" },
	{ "disk_error_action", "syslog", "a failing disk is reported, not hidden" },
	{ NULL, NULL, NULL },
};

/* Find KEY's line: returns a pointer to its start and sets *end past its newline. */
static const char *
find_key(const char *conf, const char *key, const char **end)
{
	const char *p = conf, *k, *e;
	size_t kl = strlen(key);

	while (*p != '\0') {
		e = strchrnul(p, '\n');
		k = p + strspn(p, " \t");
		if (strncmp(k, key, kl) == 0) {
			const char *q = k + kl;
			q += strspn(q, " \t");
			if (*q == '=') {
				*end = *e == '\n' ? e + 1 : e;
				return p;
			}
		}
		p = *e == '\n' ? e + 1 : e;
	}
	return NULL;
}

char *
adm_auditd_get(const char *conf, const char *key)
{
	const char *line, *end, *v;
	size_t n;

	if ((line = find_key(conf, key, &end)) == NULL)
		return NULL;
	v = strchr(line, '=') + 1;
	v += strspn(v, " \t");
	n = (size_t)(end - v);
	while (n > 0 && strchr(" \t\r\n", v[n - 1]) != NULL)
		n--;
	return strndup(v, n);
}

/* A new text with KEY set to VALUE (VALUE NULL: the line removed). */
static char *
set_key(const char *conf, const char *key, const char *value)
{
	const char *line, *end;
	char *out;
	int r;

	if ((line = find_key(conf, key, &end)) != NULL) {
		if (value == NULL)
			r = asprintf(&out, "%.*s%s", (int)(line - conf), conf, end);
		else
			r = asprintf(&out, "%.*s%s = %s\n%s", (int)(line - conf), conf,
			    key, value, end);
	} else if (value != NULL) {
		size_t len = strlen(conf);
		r = asprintf(&out, "%s%s%s = %s\n", conf,
		    len > 0 && conf[len - 1] != '\n' ? "\n" : "", key, value);
	} else {
		r = (out = strdup(conf)) == NULL ? -1 : 0;
	}
	return r == -1 ? NULL : out;
}

int
adm_auditd_reload(void)
{
	int pid = 0, r;

	if ((r = adm_audit_status(NULL, &pid, NULL, NULL)) != 0)
		return r;
	if (pid <= 0)
		return 0;	/* auditd not running: it reads the file when it starts */
	if (!act("reload auditd (SIGHUP to pid %d)", pid))
		return 0;
	return kill(pid, SIGHUP) == -1 ? -errno : 0;
}

/* Save the original values of our keys, once: a second enroll must not save ours. */
static int
save_backup(const char *conf)
{
	char *text = NULL, *v;
	size_t len = 0, i;
	FILE *f;
	int r;

	if (adm_path_exists(AB_AUDITD_BACKUP))
		return 0;
	if ((f = open_memstream(&text, &len)) == NULL)
		return -errno;
	fprintf(f, "# auditd.conf values before agentbox enroll; restored by the last unenroll.\n");
	for (i = 0; adm_auditd_settings[i].key != NULL; i++) {
		if ((v = adm_auditd_get(conf, adm_auditd_settings[i].key)) != NULL)
			fprintf(f, "%s = %s\n", adm_auditd_settings[i].key, v);
		else
			fprintf(f, "#absent %s\n", adm_auditd_settings[i].key);
		free(v);
	}
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	r = 0;
	if (act("save the original auditd settings in %s", AB_AUDITD_BACKUP) &&
	    (r = adm_mkdir_p("/etc/agentbox", 0755)) == 0)
		r = adm_write_file(AB_AUDITD_BACKUP, text, len, 0600);
	free(text);
	return r;
}

int
adm_auditd_tune(void)
{
	char *conf, *next, *v;
	size_t i;
	int r, changed = 0;

	if ((r = adm_read_file(AB_AUDITD_CONF, &conf, NULL)) != 0)
		return r;
	if ((r = save_backup(conf)) != 0)
		goto out;
	for (i = 0; adm_auditd_settings[i].key != NULL; i++) {
		const struct adm_auditd_setting *s = &adm_auditd_settings[i];
		v = adm_auditd_get(conf, s->key);
		int same = v != NULL && strcasecmp(v, s->value) == 0;
		free(v);
		if (same)
			continue;
		if ((next = set_key(conf, s->key, s->value)) == NULL) {
			r = -ENOMEM;
			goto out;
		}
		free(conf);
		conf = next;
		changed = 1;
	}
	if (!changed)
		goto out;
	if (act("tune %s (keep_logs, 64 MiB x 20, single when the disk is nearly full)",
	    AB_AUDITD_CONF)) {
		if ((r = adm_write_file(AB_AUDITD_CONF, conf, strlen(conf), 0640)) != 0)
			goto out;
	}
	r = adm_auditd_reload();
out:
	free(conf);
	return r;
}

int
adm_auditd_restore(void)
{
	char *conf = NULL, *backup = NULL, *next, *v;
	size_t i;
	int r;

	if ((r = adm_read_file(AB_AUDITD_BACKUP, &backup, NULL)) != 0)
		return r == -ENOENT ? 0 : r;
	if ((r = adm_read_file(AB_AUDITD_CONF, &conf, NULL)) != 0)
		goto out;
	for (i = 0; adm_auditd_settings[i].key != NULL; i++) {
		const char *key = adm_auditd_settings[i].key;
		/* Only keys still holding our value: an admin's later change stays. */
		v = adm_auditd_get(conf, key);
		int ours = v != NULL && strcasecmp(v, adm_auditd_settings[i].value) == 0;
		free(v);
		if (!ours)
			continue;
		v = adm_auditd_get(backup, key);
		if ((next = set_key(conf, key, v)) == NULL) {
			free(v);
			r = -ENOMEM;
			goto out;
		}
		free(v);
		free(conf);
		conf = next;
	}
	if (act("restore the original auditd settings from %s", AB_AUDITD_BACKUP)) {
		if ((r = adm_write_file(AB_AUDITD_CONF, conf, strlen(conf), 0640)) != 0 ||
		    (r = adm_unlink(AB_AUDITD_BACKUP)) != 0)
			goto out;
	}
	r = adm_auditd_reload();
out:
	free(conf);
	free(backup);
	return r;
}
