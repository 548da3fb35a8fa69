/*
 * tests/netd-box: play the PAM side of a proxy-mode login for agentbox-netd's tests
 * (netd-spec §3), without the PAM module: fork an init stand-in in a new network
 * namespace with lo up, create the listeners inside it, send the open message with the
 * fds over the control socket, print "PID REPLY" and exit 0 for "ok", 1 otherwise.  The
 * stand-in keeps running (its namespace is the box's): kill PID ends the session.
 * Standard error says how long the open took (connect to reply).
 *
 *   netd-box SOCKET USER SES [MODE]
 *   MODE: good (default), hostns (listeners in our own namespace), otherns (in a third
 *   namespace, neither ours nor init's), splitns (the UDP listener in init's, the TCP
 *   ones in a third), port (the proxy listener on the wrong port), digest (a digest
 *   that is not the policy's), notroot (send as uid 65534), fds (one fd short)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "policy.h"
#include "proto.h"

static void __attribute__((noreturn))
fail(const char *what)
{
	fprintf(stderr, "netd-box: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Bring lo up in the current network namespace: 0 or -1. */
static int
lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo", .ifr_flags = IFF_UP };
	int s, r;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	r = ioctl(s, SIOCSIFFLAGS, &ifr);
	close(s);
	return r == 0 ? 0 : -1;
}

/* The init stand-in: its own network namespace with lo up, then wait to be killed. */
static pid_t
spawn_init(void)
{
	int sync[2];
	char c = 0;
	pid_t pid;

	if (pipe2(sync, O_CLOEXEC) != 0)
		fail("pipe");
	if ((pid = fork()) < 0)
		fail("fork");
	if (pid == 0) {
		int nul;

		if (unshare(CLONE_NEWNET) != 0 || lo_up() != 0)
			_exit(1);
		/* Detach from the test's pipes, or $(netd-box ...) never returns. */
		if ((nul = open("/dev/null", O_RDWR)) < 0 || dup2(nul, 0) < 0 ||
		    dup2(nul, 1) < 0 || dup2(nul, 2) < 0)
			_exit(1);
		setsid();
		if (write(sync[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(sync[1]);
	if (read(sync[0], &c, 1) != 1)
		fail("init stand-in");
	close(sync[0]);
	return pid;
}

static int
listener(int type, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    (type == SOCK_STREAM && listen(fd, 128) != 0))
		fail("listener");
	return fd;
}

/* The proxy's, DNS's and each credential's gateway listener (3129 + i), in the box. */
static void
make_listeners(pid_t init, const char *mode, int *fds, size_t ncred)
{
	size_t i;
	char path[64];
	int self, box;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)init);
	if ((self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0 ||
	    (box = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		fail("open netns");
	if (strcmp(mode, "hostns") != 0 && setns(box, CLONE_NEWNET) != 0)
		fail("setns box");
	if (strcmp(mode, "otherns") == 0 && (unshare(CLONE_NEWNET) != 0 || lo_up() != 0))
		fail("a third namespace");
	fds[2] = listener(SOCK_DGRAM, 53);
	if (strcmp(mode, "splitns") == 0 && (unshare(CLONE_NEWNET) != 0 || lo_up() != 0))
		fail("a third namespace");
	fds[1] = listener(SOCK_STREAM, strcmp(mode, "port") == 0 ? 3127 : 3128);
	fds[3] = listener(SOCK_STREAM, 53);
	for (i = 0; i < ncred; i++)
		fds[AB_NETD_FD_GATEWAY + i] = listener(SOCK_STREAM,
						       (uint16_t)(AB_NETD_PORT_GATEWAY + i));
	if (setns(self, CLONE_NEWNET) != 0)
		fail("setns back");
	close(self);
	close(box);
}

static int
send_open(const char *sock, const char *msg, size_t len, const int *fds, size_t nfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * AB_NETD_NFDS_MAX)];
		struct cmsghdr align;
	} cbuf;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct iovec iov = { (void *)msg, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf,
			     .msg_controllen = CMSG_SPACE(sizeof(int) * nfd) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	struct timeval tv = { .tv_sec = 2 };
	int fd;

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * nfd);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * nfd);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sock);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0)
		fail("socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 || sendmsg(fd, &mh, 0) < 0)
		fail("connect/send");
	return fd;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 4 ? argv[4] : "good";
	struct ab_netd_open m = { .ncred = 0, .user = argv[2] };
	struct ab_policy *p = NULL;
	struct ab_diag diag = { 0 };
	char msg[AB_NETD_MSG_MAX], reply[256];
	int fds[AB_NETD_NFDS_MAX], fd;
	size_t len;
	struct timespec t0, t1;
	ssize_t n;
	pid_t init;

	if (argc < 4)
		return fprintf(stderr, "usage: netd-box SOCKET USER SES [MODE]\n"), 2;
	if (ab_policy_load(NULL, argv[2], &p, &diag) != 0)
		return fprintf(stderr, "netd-box: policy of %s does not load\n", argv[2]), 2;
	memcpy(m.digest, p->digest, sizeof(m.digest));
	if (strcmp(mode, "digest") == 0)
		m.digest[0] ^= 1;
	m.ses = (uint32_t)strtoul(argv[3], NULL, 10);
	m.uid = 4242;
	init = spawn_init();
	m.init_pid = init;
	if ((fds[0] = (int)syscall(SYS_pidfd_open, init, 0)) < 0)
		fail("pidfd_open");
	m.ncred = (uint32_t)p->ncreds;
	make_listeners(init, mode, fds, p->ncreds);
	if (ab_netd_proto_open_encode(&m, msg, sizeof(msg), &len) != 0)
		fail("encode");
	if (strcmp(mode, "notroot") == 0 && (setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0))
		fail("setuid");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = send_open(argv[1], msg, len, fds, AB_NETD_NFDS(m.ncred) - (strcmp(mode, "fds") == 0));
	/* As PAM does: our copies of the listeners go, whatever the reply. */
	for (size_t i = 1; i < AB_NETD_NFDS(m.ncred); i++)
		close(fds[i]);
	n = recv(fd, reply, sizeof(reply) - 1, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	reply[n > 0 ? n : 0] = '\0';
	printf("%d %s\n", (int)init, n > 0 ? reply : "(no reply)");
	/* What the daemon adds to a login: connect, send, its checks, the reply. */
	fprintf(stderr, "netd-box: open answered in %ld us\n",
		(long)((t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000));
	return strcmp(reply, "ok") == 0 ? 0 : 1;
}
