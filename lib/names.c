/* The user-name rule: one for the policy, the session plan and the admin tool. */
#include <string.h>

#include "abutil.h"

static int
is_alpha_(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/*
 * POSIX portable user names (useradd accepts these; NAME_REGEX in adduser.conf is
 * stricter).  Kept narrow on purpose: the name ends up in paths, audit records, logs
 * and useradd's command line (a leading '-' would be an option there).
 */
int
ab_user_name_valid(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > 32 || !is_alpha_((unsigned char)name[0]))
		return 0;
	for (i = 1; i < n; i++) {
		int c = (unsigned char)name[i];

		if (!is_alpha_(c) && !(c >= '0' && c <= '9') && c != '.' && c != '-')
			return 0;
	}
	return 1;
}
