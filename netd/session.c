/*
 * netd/session.c: a proxy-mode session from the daemon's side: the open message and its
 * fds checked, the policy reloaded and compared, the registry file, the lifeline, the end.
 *
 * Why /proc/PID/net/{tcp,udp} and not SIOCGSKNS vs PIDFD_GET_NET_NAMESPACE (netd-spec
 * §3): both ioctls need CAP_NET_ADMIN / ptrace access, which the daemon gave up before
 * any session opens (it keeps CAP_AUDIT_WRITE only).  /proc/PID/net lists the sockets of
 * PID's network namespace with their inode numbers to any reader, so a listener whose
 * inode is listed there (bound to 127.0.0.1:PORT, in the right state) is in the box's
 * namespace; the pidfd, still not readable after the read, proves PID was still the box's
 * init (no pid reuse).  SO_NETNS_COOKIE (no privilege) tells the listeners apart from
 * our own namespace.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "loader.h"
#include "polcache.h"
#include "policy.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

uint64_t
ab_netd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* CLOCK_MONOTONIC in microseconds: the hand-off's clock (--verbose). */
static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Field 22 of /proc/PID/stat: when PID started, so a reused pid is never taken for it. */
static int
start_time(pid_t pid, unsigned long long *out)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((n = ab_read_small(path, buf, sizeof(buf))) <= 0)
		return n == 0 ? -EIO : (int)n;
	/* comm may hold spaces and ')': fields start after the last ')'. */
	if ((p = strrchr(buf, ')')) == NULL)
		return -EIO;
	for (i = 2; i < 22 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%llu", out) != 1)
		return -EIO;
	return 0;
}

static bool
pidfd_alive(int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 0;
}

/* Is socket fd, of the given type, bound to 127.0.0.1:port (and listening, for TCP)? */
static int
check_listener(int fd, int type, uint16_t port, ino_t *ino)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int dom = 0, t = 0, acc = 0;
	socklen_t il = sizeof(int);
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &il) != 0 || dom != AF_INET ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &il) != 0 || t != type ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &il) != 0 ||
	    acc != (type == SOCK_STREAM))
		return -EPROTOTYPE;
	if (getsockname(fd, (struct sockaddr *)&sin, &len) != 0 || len != sizeof(sin) ||
	    sin.sin_addr.s_addr != htonl(INADDR_LOOPBACK) || ntohs(sin.sin_port) != port)
		return -EADDRNOTAVAIL;
	*ino = st.st_ino;
	return 0;
}

/* A listener to find in init's namespace. */
struct want {
	ino_t ino;
	uint16_t port;
	bool found;
};

/*
 * Find every WANT (bound to 127.0.0.1:port, that inode) in /proc/PID/net/FILE, reading no
 * further than needed.  Only for udp: a read of tcp fills the kernel's page by walking
 * the whole established hash, however little is asked (check_fds).  0 when all were
 * found, -EXDEV when not, -errno.
 */
static int
ns_find(pid_t pid, const char *file, struct want *want, size_t n)
{
	char path[64], line[512];
	size_t left = n, i;
	unsigned lines = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)pid, file);
	if ((f = fopen(path, "re")) == NULL)
		return -errno;
	setvbuf(f, NULL, _IOFBF, 256);	/* small reads: the kernel stops early */
	/* A fresh namespace holds a handful of sockets: a long list is not the box's. */
	while (left > 0 && lines++ < 4096 && fgets(line, sizeof(line), f) != NULL) {
		unsigned long long ino;
		unsigned port;

		if (sscanf(line, " %*s 0100007F:%x %*s %*s %*s %*s %*s %*s %*s %llu", &port,
		    &ino) != 2)
			continue;
		for (i = 0; i < n; i++)
			if (!want[i].found && want[i].ino == (ino_t)ino && want[i].port == port)
				want[i].found = true, left--;
	}
	fclose(f);
	return left == 0 ? 0 : -EXDEV;
}

static int
netns_cookie(int fd, uint64_t *cookie)
{
	socklen_t len = sizeof(*cookie);

	return getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len) == 0 ? 0 : -errno;
}

static const struct {
	int type;
	uint16_t port;
} fd_kinds[] = {
	[AB_NETD_FD_PROXY] = { SOCK_STREAM, AB_NETD_PORT_PROXY },
	[AB_NETD_FD_DNS_UDP] = { SOCK_DGRAM, AB_NETD_PORT_DNS },
	[AB_NETD_FD_DNS_TCP] = { SOCK_STREAM, AB_NETD_PORT_DNS },
};

/* Every listener: the right socket, in the lifeline's namespace, not in ours. */
static int
check_fds(struct ab_netd_daemon *d, int pidfd, pid_t pid, const int *fds, size_t nfd,
	  const char **why)
{
	struct want udp[1];
	size_t i, nudp = 0;
	uint64_t first = 0, c;
	pid_t got;

	if (ab_pidfd_pid(pidfd, &got) != 0 || got != pid)
		return *why = "fd 0 is not the pidfd of init_pid", -EBADF;
	for (i = 1; i < nfd; i++) {
		bool gw = i >= AB_NETD_FD_GATEWAY;
		int type = gw ? SOCK_STREAM : fd_kinds[i].type;
		uint16_t port = gw ? (uint16_t)(AB_NETD_PORT_GATEWAY + i - AB_NETD_FD_GATEWAY)
				   : fd_kinds[i].port;
		ino_t ino;

		if (check_listener(fds[i], type, port, &ino) != 0)
			return *why = "a listener is not the expected socket", -EBADF;
		if (netns_cookie(fds[i], &c) != 0 || (i > 1 && c != first) || c == d->own_netns)
			return *why = "listeners not in one session namespace", -EXDEV;
		first = c;
		if (type == SOCK_DGRAM && nudp < 1)
			udp[nudp++] = (struct want){ ino, port, false };
	}
	/*
	 * In init's namespace: every listener shares one netns cookie (above), so finding
	 * the UDP one in init's /proc/PID/net/udp places them all there.  Not the TCP
	 * table: its first read walks the whole established hash (262,144 buckets here:
	 * 4.3 ms, most of a proxy login's hand-off, bench/README.md), the UDP table's
	 * stops at the socket's slot (45 us).
	 */
	if (nudp != 1 || ns_find(pid, "udp", udp, nudp) != 0)
		return *why = "a listener is not in init's namespace", -EXDEV;
	if (!pidfd_alive(pidfd))
		return *why = "init exited", -ESRCH;
	return 0;
}

/*
 * Split one loader cred line into C (which takes it).  The policy compiler checked each
 * field; the fields are only counted here.
 */
static int
cred_split(char *line, struct ab_netd_gwcred *c)
{
	const char **f[6] = { &c->name, &c->host, &c->header, &c->prefix, &c->file, &c->env };
	char *p = line;
	size_t i;

	c->line = line;
	for (i = 0; i < 6; i++) {
		*f[i] = p;
		p = strchr(p, '\t');
		if ((p == NULL) != (i == 5))
			return -EPROTO;
		if (p != NULL)
			*p++ = '\0';
	}
	if (c->prefix[0] == '\0')
		c->prefix = NULL;
	return 0;
}

/* Why a credential file was refused, in the words of the open's `error` reply. */
static const char *
cred_why(int r)
{
	switch (r) {
	case -EPERM: return "not owned by root, group agentbox-netd, mode 0640 or stricter";
	case -ELOOP: return "reached through a symlink";
	case -EINVAL: return "not one line holding the secret";
	case -EFBIG: return "secret too long";
	default: return strerror(-r);
	}
}

/*
 * The session's credentials: the fields from the loader, the secrets read here.  Why the
 * daemon and not the loader reads them: the files are root:agentbox-netd 0640, which
 * the daemon's user reads by its group with no capability, and so the secret never
 * crosses the loader's socket; the loader (CAP_DAC_READ_SEARCH) could read any file.
 */
static int
load_creds(struct ab_netd_session *s, struct ab_strv *lines, uint32_t ncred,
	   const char **why)
{
	struct ab_netd_daemon *d = s->d;
	size_t i;
	int r;

	if (lines->n != ncred)
		return *why = "credentials changed", -ESTALE;
	if (ncred == 0)
		return 0;
	if (d->tls == NULL)
		return *why = "no TLS trust store for the credential gateway", -EIO;
	if ((s->cred = calloc(ncred, sizeof(*s->cred))) == NULL)
		return *why = "out of memory", -ENOMEM;
	for (i = 0; i < ncred; i++) {
		struct ab_netd_gwcred *c = &s->cred[i];

		if ((r = cred_split(lines->v[i], c)) != 0)
			return *why = "policy loader protocol", r;
		lines->v[i] = NULL;	/* c->line owns it now */
		s->ncred = i + 1;
		r = ab_netd_cred_read(c->file, d->cred_owner, d->cred_group, c->secret,
				      sizeof(c->secret), &c->secret_len);
		if (r != 0) {
			snprintf(d->why, sizeof(d->why), "credential %s: %s: %s", c->name, c->file,
				 cred_why(r));
			return *why = d->why, r;
		}
	}
	return 0;
}

/* Wipe and free the session's credentials. */
static void
creds_free(struct ab_netd_session *s)
{
	size_t i;

	for (i = 0; i < s->ncred; i++) {
		explicit_bzero(s->cred[i].secret, sizeof(s->cred[i].secret));
		free(s->cred[i].line);
	}
	free(s->cred);
	s->cred = NULL;
	s->ncred = 0;
}

/*
 * The policy the daemon reads itself (through the loader) must be the one PAM confined
 * the session with.
 */
static int
load_policy(struct ab_netd_session *s, const struct ab_netd_open *m, const char **why,
	    uint64_t *t_loaded)
{
	struct ab_netd_daemon *d = s->d;
	struct ab_netd_pol pol;
	char digest[65], sent[65];
	int r;

	ab_digest_hex(m->digest, sent);
	/* The policy of the digest PAM sent, remembered (polcache.c), or the loader's. */
	if (ab_netd_polcache_get(d->pcache, m->user, sent, &pol) == 0) {
		memcpy(digest, sent, sizeof(digest));
		r = 0;
	} else {
		r = ab_netd_loader_load(d->loader_fd, ++d->loader_id, m->user, digest,
					&pol.learn, &pol.allow, &pol.deny, &pol.priv, &pol.creds);
		/* Not remembered, the next login asks the loader again: only slower. */
		if (r == 0 && strcmp(digest, sent) == 0)
			(void)ab_netd_polcache_put(d->pcache, m->user, digest, &pol);
	}
	*t_loaded = now_us();
	if (r != 0)
		*why = "policy does not load";
	else if (strcmp(digest, sent) != 0)
		r = -ESTALE, *why = "policy changed";
	else if (d->rules_file != NULL)
		r = ab_netd_rules_load_file(d->rules_file, d->psl, &s->rules);
	else
		r = ab_netd_rules_build(&pol.allow, &pol.deny, &pol.priv, d->psl, &s->rules);
	/* The policy's learn is the session's, whatever a test's rules file says too. */
	if (r == 0 && pol.learn)
		s->rules.learn = true;
	if (r != 0 && *why == NULL)
		*why = "policy rules invalid";
	if (r == 0)
		r = load_creds(s, &pol.creds, m->ncred, why);
	ab_netd_pol_free(&pol);
	return r;
}

static int
registry_write(struct ab_netd_session *s)
{
	char path[4096], buf[128];
	int fd, n, r;

	snprintf(path, sizeof(path), "%s/%" PRIu32, s->d->registry, s->ses);
	n = snprintf(buf, sizeof(buf), "%d %llu %" PRIu32 " %s\n", (int)s->init_pid, s->start,
	    s->uid, s->user);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return -errno;
	r = ab_io_write_all(fd, buf, (size_t)n);
	if (close(fd) != 0 && r == 0)
		r = -errno;
	return r;
}

static void
registry_remove(const struct ab_netd_daemon *d, uint32_t ses)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%" PRIu32, d->registry, ses);
	unlink(path);
}

/* One control message: the text and its fds (at most AB_NETD_NFDS_MAX). */
static int
recv_open(int conn, char *buf, size_t *len, int *fds, size_t *nfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * AB_NETD_NFDS_MAX)];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { buf, AB_NETD_MSG_MAX };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf,
			     .msg_controllen = sizeof(cbuf.buf) };
	struct cmsghdr *c;
	ssize_t n;

	*nfd = 0;
	if ((n = recvmsg(conn, &mh, MSG_CMSG_CLOEXEC)) < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds + *nfd, CMSG_DATA(c), k * sizeof(int));
		*nfd += k;
	}
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0)
		return -EMSGSIZE;
	*len = (size_t)n;
	return 0;
}

static int
watch(struct ab_netd_session *s, size_t i, int fd, enum ab_netd_src src)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &s->watch[i] };

	s->watch[i] = (struct ab_netd_watch){ .src = src, .s = s, .fd = fd };
	return epoll_ctl(s->d->epfd, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : -errno;
}

/* Hand the listeners to the loop and the UDP answerer; the session is live after this. */
static int
session_start(struct ab_netd_session *s)
{
	size_t i;
	int r;

	for (i = 1; i < s->nfd; i++)
		if (fcntl(s->fd[i], F_SETFL, O_NONBLOCK) != 0)
			return -errno;
	if ((r = watch(s, AB_NETD_FD_LIFELINE, s->pidfd, AB_NETD_SRC_LIFELINE)) != 0 ||
	    (r = watch(s, AB_NETD_FD_PROXY, s->fd[AB_NETD_FD_PROXY], AB_NETD_SRC_PROXY)) != 0 ||
	    (r = watch(s, AB_NETD_FD_DNS_TCP, s->fd[AB_NETD_FD_DNS_TCP],
		       AB_NETD_SRC_DNS_TCP)) != 0)
		return r;
	for (i = AB_NETD_FD_GATEWAY; i < s->nfd; i++)
		if ((r = watch(s, i, s->fd[i], AB_NETD_SRC_GATEWAY)) != 0)
			return r;
	return ab_netd_dns_udp_start(s, s->fd[AB_NETD_FD_DNS_UDP]);
}

static struct ab_netd_session *
session_new(struct ab_netd_daemon *d, const struct ab_netd_open *m, int *fds, size_t nfd)
{
	struct ab_netd_session *s = calloc(1, sizeof(*s));
	size_t i;

	if (s == NULL)
		return NULL;
	if ((s->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		free(s);
		return NULL;
	}
	s->d = d;
	s->ses = m->ses;
	s->uid = m->uid;
	snprintf(s->user, sizeof(s->user), "%s", m->user);
	s->init_pid = m->init_pid;
	s->pidfd = fds[0];
	for (i = 0; i < nfd; i++)
		s->fd[i] = fds[i];
	s->nfd = nfd;
	s->refs = 1;
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

/* --verbose: where a hand-off's time went, one line, as the PAM module's debug line says
 * its own (bench/session-start reads both). */
static void
log_handoff(const struct ab_netd_daemon *d, uint32_t ses, const uint64_t t[6])
{
	if (!d->verbose)
		return;
	fprintf(stderr, "agentbox-netd: hand-off ses %" PRIu32 ": checks %" PRIu64 " us, loader "
		"%" PRIu64 " us, rules %" PRIu64 " us, register %" PRIu64 " us, start %" PRIu64
		" us, total %" PRIu64 " us\n", ses, t[1] - t[0], t[2] - t[1], t[3] - t[2],
		t[4] - t[3], t[5] - t[4], t[5] - t[0]);
}

static int
open_checked(struct ab_netd_daemon *d, const struct ab_netd_open *m, int *fds, size_t nfd,
	     const char **why)
{
	struct ab_netd_session *s;
	uint64_t t[6];
	int r;

	t[0] = now_us();
	if ((r = check_fds(d, fds[0], m->init_pid, fds, nfd, why)) != 0)
		return r;
	if ((s = session_new(d, m, fds, nfd)) == NULL)
		return *why = "out of memory", -ENOMEM;
	t[1] = now_us();
	if ((r = load_policy(s, m, why, &t[2])) != 0 ||
	    (t[3] = now_us(), r = start_time(s->init_pid, &s->start)) != 0 ||
	    (r = registry_write(s)) != 0 || (t[4] = now_us(), r = session_start(s)) != 0) {
		if (*why == NULL)
			*why = "cannot register the session";
		/* Not yet live: end it here, the caller closes nothing twice. */
		registry_remove(d, m->ses);
		s->nfd = 0;
		s->pidfd = -1;
		ab_netd_session_end(s, NULL);
		return r;
	}
	s->next = d->sessions;
	d->sessions = s;
	ab_netd_record_session(d->rec, s->ses, s->uid, s->user, "open", "-");
	t[5] = now_us();
	log_handoff(d, s->ses, t);
	return 0;
}

/*
 * Serve one control connection: SO_PEERCRED uid 0, one message, one reply.  *why is
 * the refusal's reason (NULL on success).  The caller closes conn.
 */
int
ab_netd_session_open(struct ab_netd_daemon *d, int conn, const char **why)
{
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	char buf[AB_NETD_MSG_MAX + 1], user[AB_NETD_USER_MAX + 1];
	int fds[AB_NETD_NFDS_MAX];
	struct ab_netd_open m;
	size_t len = 0, nfd = 0, i;
	int r;

	*why = NULL;
	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 || cr.uid != 0)
		return *why = "not root", -EPERM;
	r = recv_open(conn, buf, &len, fds, &nfd);
	/* The policy's user-name rule too: a name it refuses has no policy to apply. */
	if (r == 0 && (ab_netd_proto_open_decode(buf, len, &m, user, sizeof(user)) != 0 ||
		       !ab_user_name_valid(user)))
		r = -EBADMSG, *why = "bad message";
	else if (r == 0 && nfd != AB_NETD_FD_GATEWAY + m.ncred)
		r = -EBADMSG, *why = "wrong number of fds";
	else if (r != 0)
		*why = "bad message";
	if (r == 0)
		r = open_checked(d, &m, fds, nfd, why);
	if (r != 0)
		for (i = 0; i < nfd; i++)
			close(fds[i]);
	return r;
}

void
ab_netd_session_unref(struct ab_netd_session *s)
{
	unsigned refs;

	pthread_mutex_lock(&s->lock);
	refs = --s->refs;
	pthread_mutex_unlock(&s->lock);
	if (refs > 0)
		return;
	close(s->stopfd);
	ab_netd_rules_free(&s->rules);
	creds_free(s);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/*
 * The box's init exited (or the open failed): no process of the session is left, so
 * close its listeners, wake its workers (they close their tunnels and write the close
 * records), forget it.  REASON NULL: never opened, no record.
 */
void
ab_netd_session_end(struct ab_netd_session *s, const char *reason)
{
	struct ab_netd_session **pp;
	uint64_t one = 1;
	size_t i;

	for (pp = &s->d->sessions; *pp != NULL; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	if (s->pidfd >= 0) {
		epoll_ctl(s->d->epfd, EPOLL_CTL_DEL, s->pidfd, NULL);
		close(s->pidfd);
	}
	for (i = 1; i < s->nfd; i++) {
		epoll_ctl(s->d->epfd, EPOLL_CTL_DEL, s->fd[i], NULL);
		/* The UDP socket belongs to its thread, which closes it when woken. */
		if (i != AB_NETD_FD_DNS_UDP)
			close(s->fd[i]);
	}
	if (write(s->stopfd, &one, sizeof(one)) != sizeof(one))
		abort();	/* an eventfd write of 1 cannot fail: workers would leak */
	if (reason != NULL) {
		ab_netd_record_session(s->d->rec, s->ses, s->uid, s->user, "end", reason);
		registry_remove(s->d, s->ses);
	}
	ab_netd_session_unref(s);
}

/*
 * A token bucket, not calendar seconds: a burst that straddles a second boundary must
 * not get twice the rate.  Tokens in thousandths; full at AB_NETD_RATE_MAX.
 */
int
ab_netd_session_admit(struct ab_netd_session *s)
{
	const uint64_t full = AB_NETD_RATE_MAX * 1000ULL;
	uint64_t now = ab_netd_now_ms();
	int r = 0;

	pthread_mutex_lock(&s->lock);
	if (s->rate_ms == 0)
		s->tokens = full;
	else if ((now - s->rate_ms) * AB_NETD_RATE_MAX >= full - s->tokens)
		s->tokens = full;
	else
		s->tokens += (now - s->rate_ms) * AB_NETD_RATE_MAX;
	s->rate_ms = now;
	if (s->tokens < 1000)
		r = -EAGAIN;
	else if (s->active >= AB_NETD_CONNS_MAX)
		r = -EMFILE;
	else {
		s->tokens -= 1000;
		s->active++;
		s->refs++;
	}
	pthread_mutex_unlock(&s->lock);
	return r;
}

void
ab_netd_session_release(struct ab_netd_session *s)
{
	pthread_mutex_lock(&s->lock);
	s->active--;
	pthread_mutex_unlock(&s->lock);
	ab_netd_session_unref(s);
}

/* One registry file: end its session if its init still runs (same start time). */
static void
sweep_one(struct ab_netd_daemon *d, int dirfd, const char *name)
{
	char buf[256], user[AB_NETD_USER_MAX + 1] = "?";
	unsigned long long start, now;
	unsigned ses, uid = 0;
	ssize_t n;
	int fd, pid, pidfd;

	if (sscanf(name, "%u", &ses) != 1)
		return;
	if ((fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (sscanf(buf, "%d %llu %u %32s", &pid, &start, &uid, user) >= 2 && pid > 1 &&
	    (pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) >= 0) {
		/* Still root.  Checked after pidfd_open: the pidfd pins this process. */
		if (start_time(pid, &now) == 0 && now == start)
			syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		close(pidfd);
	}
	ab_netd_record_session(d->rec, ses, uid, user, "end", "daemon-restart");
	unlinkat(dirfd, name, 0);
}

/*
 * Still root, before serving: sessions registered by a previous daemon lost their
 * listeners with it, so they have no way out; end them (SIGKILL to the box's pid 1 ends
 * its whole pid namespace) rather than leave them running cut off without a record.
 */
void
ab_netd_registry_sweep(struct ab_netd_daemon *d)
{
	struct dirent *e;
	DIR *dir;

	if ((dir = opendir(d->registry)) == NULL)
		return;
	while ((e = readdir(dir)) != NULL)
		if (e->d_name[0] != '.')
			sweep_one(d, dirfd(dir), e->d_name);
	closedir(dir);
}
