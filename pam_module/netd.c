/*
 * network = proxy: hand the session's way out to agentbox-netd (DESIGN step 7,
 * netd-spec.md sections 2 and 3).  Still root, in the session's network namespace (only
 * lo, up) and mount namespace, after pid 1 exists.
 *
 * The listeners are made here, not by the daemon: a socket keeps the network namespace
 * it was created in, so the daemon accepts, from the host's namespace, connections that
 * can only come from this box; no process of the box relays anything, and a connection's
 * session is the listener's, which the box cannot forge.  The pidfd of the box's pid 1
 * goes with them: the session ends for the daemon when it becomes readable.
 *
 * Sent (ab_netd_send) before agentbox-maskd's hand-off and answered (ab_netd_await) after
 * it, so that the two daemons take the session at the same time (bench/README.md).
 *
 * The control socket is connected before the world is built (ab_netd_connect): the world
 * replaces /run, and its path with it.  The socket carries SO_SNDTIMEO and SO_RCVTIMEO,
 * so neither a full backlog, a stuck send nor a silent daemon holds a login longer than
 * AB_NETD_TIMEOUT_MS; each of them refuses it (invariant 1: without the daemon's "ok",
 * no session).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "module.h"
#include "proto.h"

#define WHO	"agentbox-netd"

_Static_assert(AB_NETD_NFDS_MAX <= AB_FDPASS_MAX, "an open message fits one datagram's fds");
_Static_assert(sizeof(((struct ab_netd_open *)0)->digest) == AB_DIGEST_LEN,
    "the open message carries the policy digest whole");

/* Every fd the open message carries; [0] (the pidfd) is not ours to close. */
struct handoff {
	int	fds[AB_NETD_NFDS(AB_NETD_CRED_MAX)];
	size_t	nfds;
};

static void
handoff_close(struct handoff *h)
{
	size_t i;

	for (i = AB_NETD_FD_PROXY; i < h->nfds; i++)
		if (h->fds[i] != -1)
			close(h->fds[i]);
	h->nfds = 0;
}

int
ab_netd_connect(struct ab_sess *s)
{
	struct timeval tv = { AB_NETD_TIMEOUT_MS / 1000, (AB_NETD_TIMEOUT_MS % 1000) * 1000 };
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = AB_NETD_CONTROL };
	int fd;

	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1)
		return ab_sess_fail(s, -errno, WHO ": socket: %s", strerror(errno));
	/* Before connect: a connect to a full backlog waits for SO_SNDTIMEO. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1) {
		close(fd);
		return ab_sess_fail(s, -errno, WHO ": setsockopt: %s", strerror(errno));
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		int e = errno;

		close(fd);
		return ab_sess_fail(s, -e, WHO " is not taking sessions: connect %s: %s",
		    AB_NETD_CONTROL, strerror(e));
	}
	s->netd_fd = fd;
	return 0;
}

/* One listener on 127.0.0.1:PORT of TYPE (SOCK_STREAM listens, SOCK_DGRAM is bound). */
static int
listener(struct ab_sess *s, int type, uint16_t port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET, .sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd, one = 1;

	if ((fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1)
		return ab_sess_fail(s, -errno, WHO ": socket for port %u: %s", port,
		    strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    (type == SOCK_STREAM && listen(fd, AB_NETD_BACKLOG) == -1)) {
		int e = errno;

		close(fd);
		return ab_sess_fail(s, -e, WHO ": listener on 127.0.0.1:%u: %s", port,
		    strerror(e));
	}
	return fd;
}

/* The fds of the open message, in the order of enum ab_netd_fd. */
static int
make_listeners(struct ab_sess *s, struct handoff *h)
{
	size_t i, ncred = s->pol->ncreds;
	int fd;

	if (ncred > AB_NETD_CRED_MAX)
		return ab_sess_fail(s, -E2BIG, WHO ": %zu credentials, at most %d", ncred,
		    AB_NETD_CRED_MAX);
	h->fds[AB_NETD_FD_LIFELINE] = s->init_pidfd;
	h->nfds = 1;
	for (i = AB_NETD_FD_PROXY; i < AB_NETD_NFDS(ncred); i++) {
		if (i == AB_NETD_FD_PROXY)
			fd = listener(s, SOCK_STREAM, AB_NETD_PORT_PROXY);
		else if (i == AB_NETD_FD_DNS_UDP)
			fd = listener(s, SOCK_DGRAM, AB_NETD_PORT_DNS);
		else if (i == AB_NETD_FD_DNS_TCP)
			fd = listener(s, SOCK_STREAM, AB_NETD_PORT_DNS);
		else
			fd = listener(s, SOCK_STREAM,
			    (uint16_t)(AB_NETD_PORT_GATEWAY + i - AB_NETD_FD_GATEWAY));
		if (fd < 0)
			return fd;
		h->fds[h->nfds++] = fd;
	}
	return 0;
}

static int
send_open(struct ab_sess *s, const struct handoff *h)
{
	struct ab_netd_open m = {
		.ses = s->ses, .uid = (uint32_t)s->uid, .user = s->user,
		.init_pid = (int32_t)s->init_pid, .ncred = (uint32_t)s->pol->ncreds,
	};
	char msg[AB_NETD_MSG_MAX + 1];
	size_t len;
	int r;

	memcpy(m.digest, s->pol->digest, sizeof(m.digest));
	if ((r = ab_netd_proto_open_encode(&m, msg, sizeof(msg), &len)) != 0)
		return ab_sess_fail(s, r, WHO ": cannot build the open message: %s",
		    strerror(-r));
	if ((r = ab_send_fds(s->netd_fd, msg, len, h->fds, h->nfds)) != 0)
		return ab_sess_fail(s, r, WHO ": send the open message: %s", strerror(-r));
	return 0;
}

/* The daemon's one reply, within the socket's SO_RCVTIMEO. */
static int
await_ok(struct ab_sess *s)
{
	char reply[AB_NETD_REPLY_MAX + 1], why[256];
	ssize_t n;
	int r;

	n = recv(s->netd_fd, reply, sizeof(reply), MSG_TRUNC);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return ab_sess_fail(s, -ETIMEDOUT, WHO " did not answer within %d ms",
		    AB_NETD_TIMEOUT_MS);
	if (n == -1)
		return ab_sess_fail(s, -errno, WHO ": read the reply: %s", strerror(errno));
	if (n == 0)
		return ab_sess_fail(s, -ECONNRESET, WHO " closed the connection without a reply");
	/* MSG_TRUNC: n is the real length; a longer reply (over AB_NETD_REPLY_MAX, like
	 * sizeof(reply)) is malformed, not cut short. */
	r = ab_netd_proto_reply_parse(reply, (size_t)n > sizeof(reply) ? sizeof(reply) :
	    (size_t)n, why, sizeof(why));
	if (r == -EACCES)
		return ab_sess_fail(s, r, WHO " refused the session: %s", why);
	if (r != 0)
		return ab_sess_fail(s, r, WHO " sent a malformed reply");
	return 0;
}

int
ab_netd_send(struct ab_sess *s)
{
	struct handoff h = { .nfds = 0 };
	int r;

	if (s->netd_fd == -1)
		return ab_sess_fail(s, -ENOTCONN, WHO ": not connected");
	if ((r = make_listeners(s, &h)) == 0)
		r = send_open(s, &h);
	/* The daemon holds its own copies now (or the session is refused): ours go. */
	handoff_close(&h);
	return r;
}

int
ab_netd_await(struct ab_sess *s)
{
	int r;

	if (s->netd_fd == -1)
		return ab_sess_fail(s, -ENOTCONN, WHO ": not connected");
	r = await_ok(s);
	close(s->netd_fd);
	s->netd_fd = -1;
	return r;
}
