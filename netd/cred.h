/*
 * netd/cred.h: reading a credential file for the base-URL gateway (issue 11 item 4).
 *
 * The secret never enters the box; the daemon reads it on the host when a session opens.
 * Returns 0 or -errno and never prints.
 */
#ifndef AB_NETD_CRED_H
#define AB_NETD_CRED_H

#include <stddef.h>
#include <sys/types.h>

#define AB_NETD_CRED_MIN 8	/* shorter: redacting it would mangle responses */
#define AB_NETD_SECRET_MAX 4096

/*
 * Read the secret in PATH (absolute) into BUF (SIZE bytes, at least AB_NETD_SECRET_MAX + 1),
 * NUL-terminated, its length in *len. The file must be a regular file reached without
 * any symlink on the way, owned by OWNER (root; tests pass their own uid), group GROUP
 * (agentbox-netd) or root, mode at most 0640, and hold one line: the secret, at most
 * surrounding whitespace, AB_NETD_CRED_MIN..AB_NETD_SECRET_MAX visible ASCII characters
 * (so it can go into a header unchanged). Returns 0, or:
 *   -ELOOP   a symlink in PATH;  -EPERM  wrong owner, group or mode;
 *   -EINVAL  not absolute, not a regular file, empty, two lines, bad characters, too short;
 *   -EFBIG   too long;  other -errno from openat2/fstat/read.
 * On failure BUF is wiped.
 */
int ab_netd_cred_read(const char *path, uid_t owner, gid_t group, char *buf, size_t size,
		      size_t *len);

#endif /* AB_NETD_CRED_H */
