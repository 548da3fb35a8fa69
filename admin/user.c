/*
 * The agent account: created with shadow-utils, login shell set to agentbox-shell,
 * the shell kept out of /etc/shells (see enroll.c: su -m and -s).
 *
 * Why shell out to useradd/usermod/userdel: they take the shadow lock (lckpwdf), keep
 * passwd, shadow, group and gshadow consistent, pick a free uid from login.defs, create
 * the home from /etc/skel, and tell nscd.  Re-implementing that in C would be more
 * code and more bugs than the one fork it costs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"

#define SHELLS "/etc/shells"

const char *const adm_privileged_groups[] = {
	"root", "sudo", "wheel", "admin", "adm", "docker", "lxd", "lxc", "incus",
	"incus-admin", "kvm", "libvirt", "libvirt-qemu", "disk", "shadow",
	"systemd-journal", "video", "input", "tty", "staff", "sys", "lpadmin", NULL,
};

int
adm_user_ensure(const char *user, const char *shell, int *created)
{
	struct passwd *pw;
	int r;

	*created = 0;
	errno = 0;
	if ((pw = getpwnam(user)) == NULL) {
		if (errno != 0 && errno != ENOENT && errno != ESRCH)
			return -errno;
		/*
		 * A system account (no password aging, uid from the system range) with a
		 * real home under /home: agents keep their tool state there.  No password:
		 * it is reached by ssh keys or by root's su/sudo.
		 */
		const char *argv[] = { "/usr/sbin/useradd", "--system", "--create-home",
			"--home-dir", NULL, "--shell", shell, "--user-group",
			"--comment", "agentbox agent", "--", user, NULL };
		char home[300];

		snprintf(home, sizeof(home), "/home/%s", user);
		argv[4] = home;
		if (!act("create user %s (useradd --system, home %s, shell %s)", user, home, shell))
			return 0;
		if ((r = adm_run(argv, NULL, 0)) != 0)
			return r < 0 ? r : -EIO;
		*created = 1;
		return 0;
	}
	if (strcmp(pw->pw_shell, shell) == 0)
		return 0;
	const char *argv[] = { "/usr/sbin/usermod", "--shell", shell, "--", user, NULL };
	if (!act("set the login shell of %s to %s (was %s)", user, shell, pw->pw_shell))
		return 0;
	if ((r = adm_run(argv, NULL, 0)) != 0)
		return r < 0 ? r : -EIO;
	return 0;
}

int
adm_user_remove(const char *user)
{
	const char *argv[] = { "/usr/sbin/userdel", "--remove", "--", user, NULL };
	int r;

	errno = 0;
	if (getpwnam(user) == NULL)
		return errno != 0 && errno != ENOENT && errno != ESRCH ? -errno : 0;
	if (!act("remove user %s and its home (userdel --remove)", user))
		return 0;
	/* userdel exits 12 when it could not remove the home or mail spool. */
	if ((r = adm_run(argv, NULL, 0)) != 0 && r != 12)
		return r < 0 ? r : -EIO;
	return 0;
}

int
adm_shells_remove(const char *shell)
{
	return adm_remove_line(SHELLS, shell, shell, 0);
}
