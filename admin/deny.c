/*
 * No cron or at jobs for the agent: a job runs outside any login the agent started, so
 * it would be work that outlives the session (invariant 4).  The cron and atd PAM
 * stacks do run pam_agentbox, so a job would be confined anyway; the deny entries keep
 * it from being scheduled at all.  When an allow file exists the deny file is ignored
 * by cron and at; `agentbox doctor` reports a user listed there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"

const char *const adm_deny_files[] = { "/etc/cron.deny", "/etc/at.deny", NULL };

static int
add_one(const char *path, const char *user)
{
	char *buf = NULL, *nb;
	size_t len = 0;
	int r;

	if ((r = adm_read_file(path, &buf, &len)) != 0 && r != -ENOENT)
		return r;
	if (buf != NULL && adm_has_line(buf, user)) {
		free(buf);
		return 0;
	}
	if (!act("add %s to %s", user, path)) {
		free(buf);
		return 0;
	}
	if (asprintf(&nb, "%s%s%s\n", buf ? buf : "",
	    len > 0 && buf[len - 1] != '\n' ? "\n" : "", user) == -1) {
		free(buf);
		return -ENOMEM;
	}
	r = adm_write_file(path, nb, strlen(nb), 0644);
	free(buf);
	free(nb);
	return r;
}

/*
 * An empty cron.deny means what no cron.deny means (everyone may use cron), so the file
 * enroll created goes.  An empty at.deny is NOT the same as none (without either file
 * only root may use at): it stays.
 */
static int
remove_one(const char *path, const char *user)
{
	return adm_remove_line(path, user, user, strcmp(path, "/etc/cron.deny") == 0);
}

int
adm_deny_add(const char *user)
{
	size_t i;
	int r;

	for (i = 0; adm_deny_files[i] != NULL; i++)
		if ((r = add_one(adm_deny_files[i], user)) != 0)
			return r;
	return 0;
}

int
adm_deny_remove(const char *user)
{
	size_t i;
	int r;

	for (i = 0; adm_deny_files[i] != NULL; i++)
		if ((r = remove_one(adm_deny_files[i], user)) != 0)
			return r;
	return 0;
}
