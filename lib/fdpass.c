/*
 * fdpass.c: one datagram with file descriptors (SCM_RIGHTS) on a unix socket, both
 * ways: the PAM module's hand-offs to agentbox-maskd and agentbox-netd, and the
 * daemon's namespace from its pool.  Hand-written because libc has no call for it; in
 * one place so that the control-buffer arithmetic and the fds a receiver did not ask
 * for (more than it takes, or in a second SCM_RIGHTS message) are got right once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "abutil.h"

union fd_ctl {
	char		buf[CMSG_SPACE(sizeof(int) * AB_FDPASS_MAX)];
	struct cmsghdr	align;
};

int
ab_send_fds(int sock, const void *msg, size_t len, const int *fds, size_t n)
{
	union fd_ctl ctl;
	struct iovec iov = { (void *)msg, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t sent;

	if (n > AB_FDPASS_MAX)
		return -E2BIG;
	if (n > 0) {
		memset(ctl.buf, 0, sizeof(ctl.buf));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	}
	if ((sent = sendmsg(sock, &mh, MSG_NOSIGNAL)) == -1)
		return -errno;
	return (size_t)sent == len ? 0 : -EMSGSIZE;
}

/* Close the N fds at P (unaligned: straight out of a control message). */
static void
close_raw(const unsigned char *p, size_t n)
{
	size_t i;
	int fd;

	for (i = 0; i < n; i++) {
		memcpy(&fd, p + i * sizeof(int), sizeof(int));
		(void)close(fd);
	}
}

ssize_t
ab_recv_fds(int sock, void *buf, size_t len, int *fds, size_t max, size_t *n)
{
	union fd_ctl ctl;
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
	    .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;
	size_t k, take;
	ssize_t got;

	*n = 0;
	if ((got = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) == -1)
		return -errno;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		take = *n == 0 ? (k < max ? k : max) : 0;	/* the first message only */
		memcpy(fds, CMSG_DATA(c), take * sizeof(int));
		close_raw(CMSG_DATA(c) + take * sizeof(int), k - take);
		*n += take;
		if (take < k)
			mh.msg_flags |= MSG_CTRUNC;	/* more than asked for: refused */
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		for (k = 0; k < *n; k++)
			(void)close(fds[k]);
		*n = 0;
		return -E2BIG;
	}
	return got;
}
