/*
 * The hand-off of a `network = proxy` session from pam_agentbox (root, inside the login's
 * process) to agentbox-netd (netd-spec.md section 3).  Shared by both sides so the bytes
 * one writes are the bytes the other reads; pure code, no I/O, no allocation, 0 / -errno.
 *
 * Control socket: AB_NETD_CONTROL, AF_UNIX SOCK_SEQPACKET, root-only.  One message from
 * PAM, at most AB_NETD_MSG_MAX bytes, every line ended by '\n' (the last one too):
 *
 *   agentbox-netd 1\n op=open\n ses=N\n uid=N\n user=NAME\n digest=HEX64\n
 *   init_pid=N\n ncred=N\n
 *
 * (no blanks: they only separate the lines here), numbers in decimal without leading
 * zeros, the digest as 64 lower-case hex digits, and with it SCM_RIGHTS fds in the order
 * of enum ab_netd_fd.  One reply: "ok", or "error REASON" (REASON one printable line).
 */
#ifndef AB_NETD_PROTO_H
#define AB_NETD_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define AB_NETD_CONTROL		"/run/agentbox-netd/control"
#define AB_NETD_PROTO_MAGIC	"agentbox-netd 1"
#define AB_NETD_MSG_MAX		1024
#define AB_NETD_REPLY_MAX	512	/* "error " and a reason a person can read */
#define AB_NETD_TIMEOUT_MS	2000	/* PAM's wait for the reply (SO_RCVTIMEO) */

/* The box's endpoints (section 2), all on 127.0.0.1 in the session's namespace. */
#define AB_NETD_PORT_PROXY	3128	/* TCP: HTTP proxy */
#define AB_NETD_PORT_DNS	53	/* UDP and TCP: DNS answerer */
#define AB_NETD_PORT_GATEWAY	3129	/* TCP: credential i's gateway is 3129 + i */
#define AB_NETD_CRED_MAX	16
#define AB_NETD_BACKLOG		128

/* The SCM_RIGHTS fds, in this order; credential i's gateway is AB_NETD_FD_GATEWAY + i. */
enum ab_netd_fd {
	AB_NETD_FD_LIFELINE = 0,	/* pidfd of the box's agentbox-init */
	AB_NETD_FD_PROXY,		/* TCP 3128 */
	AB_NETD_FD_DNS_UDP,		/* UDP 53 */
	AB_NETD_FD_DNS_TCP,		/* TCP 53 */
	AB_NETD_FD_GATEWAY,		/* TCP 3129 + i, i < ncred */
};
#define AB_NETD_NFDS(ncred)	((size_t)AB_NETD_FD_GATEWAY + (ncred))
#define AB_NETD_NFDS_MAX	AB_NETD_NFDS(AB_NETD_CRED_MAX)

/* The daemon's registry of running sessions (netd-spec section 3, restart sweep). */
#define AB_NETD_REGISTRY	"/run/agentbox-netd/sessions"

/* What an `open` says; DIGEST is the policy's SHA-256 (struct ab_policy's digest). */
struct ab_netd_open {
	uint32_t	 ses;		/* audit session id */
	uint32_t	 uid;
	const char	*user;		/* 1 to 256 bytes, each '!' to '~' */
	unsigned char	 digest[32];
	int32_t		 init_pid;	/* host pid of agentbox-init, > 0 */
	uint32_t	 ncred;		/* <= AB_NETD_CRED_MAX */
};

/*
 * Write M as the `open` message into BUF (SIZE bytes), *len its length (no NUL counted;
 * a NUL is written after it when it fits).  -EINVAL for a user that is empty, longer
 * than 256 bytes or holds a byte outside '!' to '~' (a space, a control, UTF-8), a pid
 * <= 0, or ncred > AB_NETD_CRED_MAX; -EMSGSIZE when the message would not fit in SIZE
 * (AB_NETD_MSG_MAX is always enough).
 */
int	ab_netd_proto_open_encode(const struct ab_netd_open *m, char *buf, size_t size,
	    size_t *len);

/*
 * Read a reply of LEN bytes from BUF.  0 for "ok"; -EACCES for "error REASON", with
 * REASON copied (NUL-terminated, cut to fit) into WHY (WHYSIZE bytes, may be 0); -EBADMSG
 * for anything else (empty, another word, a control byte, a reason that is empty or not
 * one printable line, more than AB_NETD_REPLY_MAX bytes).
 */
int	ab_netd_proto_reply_parse(const char *buf, size_t len, char *why, size_t whysize);

/*
 * The daemon's side: parse exactly what ab_netd_proto_open_encode writes, into *m, with
 * m->user pointing into USER (USERSIZE bytes).  The header, the six keys in order, each
 * once, decimals without sign or leading zero and in range, 64 lower-case hex digits,
 * every line ended by '\n' and nothing after the last; on top of what the encoder
 * refuses, ses 4294967295 (no audit session: traffic nobody could attribute) and
 * init_pid 1 (the host's init, never a box's).  Anything else: -EBADMSG.
 */
int	ab_netd_proto_open_decode(const char *buf, size_t len, struct ab_netd_open *m,
	    char *user, size_t usersize);

#endif /* AB_NETD_PROTO_H */
