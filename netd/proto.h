/*
 * netd/proto.h: the one message the PAM module sends agentbox-netd when a proxy-mode
 * session opens (netd-spec §3), shared by the sender (pam_module/netd.c) and the daemon
 * so both sides use one spelling.  Pure: no I/O, no allocation; 0 or -errno.
 *
 * Text, one "key=value\n" per line after the "agentbox-netd 1\n" header, keys in this
 * exact order, each once, at most AB_NETD_MSG_MAX bytes, with SCM_RIGHTS fds:
 * [0] pidfd of agentbox-init, [1] TCP 3128, [2] UDP 53, [3] TCP 53, [4..4+ncred) gateways.
 */
#ifndef AB_NETD_PROTO_H
#define AB_NETD_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define AB_NETD_CONTROL		"/run/agentbox-netd/control"
#define AB_NETD_REGISTRY	"/run/agentbox-netd/sessions"
#define AB_NETD_MSG_MAX		1024
#define AB_NETD_CRED_MAX	16
#define AB_NETD_FD_LIFELINE	0
#define AB_NETD_FD_PROXY	1
#define AB_NETD_FD_DNS_UDP	2
#define AB_NETD_FD_DNS_TCP	3
#define AB_NETD_FD_GATEWAY	4	/* + i for the i-th credential */
#define AB_NETD_NFDS_MAX	(AB_NETD_FD_GATEWAY + AB_NETD_CRED_MAX)
#define AB_NETD_PORT_PROXY	3128
#define AB_NETD_PORT_DNS	53
#define AB_NETD_PORT_GATEWAY	3129	/* + i */
#define AB_NETD_USER_MAX	32

struct ab_netd_open {
	uint32_t ses;			/* audit session id (never 4294967295, "unset") */
	uint32_t uid;
	char user[AB_NETD_USER_MAX + 1];	/* ab_user_name_valid */
	char digest[64 + 1];		/* lower-case hex SHA-256 of the policy files */
	int32_t init_pid;		/* host pid of agentbox-init, >= 2 */
	uint32_t ncred;			/* 0..AB_NETD_CRED_MAX */
};

/*
 * Write M as the open message into BUF (no NUL added); *len its length.  0, -EINVAL when
 * a field is out of range (the decoder would refuse it), -ENOBUFS when cap is too small.
 */
int ab_netd_proto_encode(const struct ab_netd_open *m, char *buf, size_t cap, size_t *len);

/*
 * Parse exactly the message the encoder writes: the header, the six keys in order, each
 * once, decimals without sign or leading zero and in range, a valid user name, 64
 * lower-case hex digits, every line ending in "\n", nothing after the last.  Anything
 * else (a NUL, a CR, an unknown or repeated key, over AB_NETD_MSG_MAX bytes): -EBADMSG.
 */
int ab_netd_proto_decode(const char *buf, size_t len, struct ab_netd_open *m);

#endif /* AB_NETD_PROTO_H */
