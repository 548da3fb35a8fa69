/*
 * Constants newer than Debian 12's 6.1 UAPI headers, for the attack program.
 * Values from the 6.18 kernel's include/uapi/linux/landlock.h.
 */
#ifndef AB_ESC_COMPAT_H
#define AB_ESC_COMPAT_H

#include <linux/sched.h>	/* struct clone_args */

#ifndef AUDIT_TRUSTED_APP
#define AUDIT_TRUSTED_APP 1121	/* libaudit.h, not in the UAPI header */
#endif

#define AB_LL_LOG_SAME_EXEC_OFF		(1U << 0)
#define AB_LL_LOG_NEW_EXEC_ON		(1U << 1)
#define AB_LL_LOG_SUBDOMAINS_OFF	(1U << 2)

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

#endif
