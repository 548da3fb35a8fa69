/*
 * Landlock UAPI that Debian 12's linux-libc-dev (6.1, Landlock ABI 2) lacks.
 * Values from include/uapi/linux/landlock.h of Linux 6.15 (ABI 7).  Every constant is
 * guarded so newer headers win; the ruleset attribute grew two fields after 6.1, so we
 * use our own struct with the kernel's layout rather than the 6.1 one (the kernel reads
 * only the size we pass, so a shorter size keeps working on older kernels).
 */
#ifndef AB_LANDLOCK_COMPAT_H
#define AB_LANDLOCK_COMPAT_H

#include <linux/landlock.h>
#include <linux/types.h>

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION		(1U << 0)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER			/* ABI 2 */
#define LANDLOCK_ACCESS_FS_REFER		(1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE			/* ABI 3 */
#define LANDLOCK_ACCESS_FS_TRUNCATE		(1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV			/* ABI 5 */
#define LANDLOCK_ACCESS_FS_IOCTL_DEV		(1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP			/* ABI 4 */
#define LANDLOCK_ACCESS_NET_BIND_TCP		(1ULL << 0)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP		(1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET		/* ABI 6 */
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL			(1ULL << 1)
#endif
#ifndef LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF	/* ABI 7 */
#define LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF	(1U << 0)
#endif
#ifndef LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
#define LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON	(1U << 1)
#endif

/* enum landlock_rule_type: LANDLOCK_RULE_NET_PORT is an enumerator, not a macro. */
#define AB_LANDLOCK_RULE_PATH_BENEATH	1
#define AB_LANDLOCK_RULE_NET_PORT	2

/* struct landlock_ruleset_attr as of ABI 6 (handled_access_net: ABI 4, scoped: ABI 6). */
struct ab_landlock_ruleset_attr {
	__u64	handled_access_fs;
	__u64	handled_access_net;
	__u64	scoped;
};

/* struct landlock_path_beneath_attr is packed in the UAPI; 6.1 has it, re-declared here
 * under our name so both rule types come from one place. */
struct ab_landlock_path_beneath_attr {
	__u64	allowed_access;
	__s32	parent_fd;
} __attribute__((packed));

struct ab_landlock_net_port_attr {
	__u64	allowed_access;
	__u64	port;
};

#endif /* AB_LANDLOCK_COMPAT_H */
