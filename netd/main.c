/*
 * agentbox-netd: the host-side egress proxy of `network = proxy` (DESIGN.md "Network by
 * name", netd-spec §3-§5).  PAM hands it, per session, listeners it created inside the
 * session's network namespace; the daemon decides every connection and DNS query by
 * name, dials only checked addresses and writes one audit record per decision.
 *
 * Shape: one epoll loop here owns the control socket, the listeners (accept) and the
 * lifeline pidfds; each accepted connection runs to completion in a worker thread with
 * poll() deadlines (conn.c), and each session's UDP DNS in one thread (dnsserve.c).
 * Threads rather than epoll state machines because lookups (getaddrinfo) and the
 * credential gateway (gateway.c, blocking I/O + deadlines) block anyway, and a thread
 * per connection keeps each phase a straight line that can be read and reviewed; the
 * bounds (256 connections per session, 64 new per second) bound the threads too.
 *
 * If the daemon is gone, a session has no way out at all (its namespace holds only lo
 * and the listeners die with us); a restarted daemon ends the sessions it finds in the
 * registry (session.c), so none runs on cut off and unrecorded.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <libaudit.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cap-ng.h>

#include "daemon.h"
#include "loader.h"
#include "polcache.h"
#include "tls.h"

#define NETD_USER "agentbox-netd"
#define NETD_DIR "/run/agentbox-netd"

struct opts {
	bool foreground, verbose;
	const char *socket, *registry, *rules, *user, *gw_ca;
};

static void
usage(void)
{
	fprintf(stderr, "usage: agentbox-netd [--foreground] [--socket PATH] [--registry DIR]\n"
		"       (tests: [--rules FILE] [--user NAME] [--verbose] [--gateway-ca PEM])\n");
	exit(2);
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "foreground", no_argument, NULL, 'f' }, { "socket", required_argument, NULL, 's' },
		{ "registry", required_argument, NULL, 'r' }, { "rules", required_argument, NULL, 'R' },
		{ "user", required_argument, NULL, 'u' }, { "verbose", no_argument, NULL, 'v' },
		{ "gateway-ca", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .socket = AB_NETD_CONTROL, .registry = AB_NETD_REGISTRY,
			    .user = NETD_USER };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'f': o->foreground = true; break;
		case 's': o->socket = optarg; break;
		case 'r': o->registry = optarg; break;
		case 'R': o->rules = optarg; break;
		case 'u': o->user = optarg; break;
		case 'v': o->verbose = true; break;
		case 'C': o->gw_ca = optarg; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	/* The test flags replace the policy's rules, our user or the gateways' trust: never
	 * on the real socket. */
	if ((o->rules != NULL || strcmp(o->user, NETD_USER) != 0 || o->gw_ca != NULL) &&
	    strcmp(o->socket, AB_NETD_CONTROL) == 0)
		errx(1, "--rules, --user and --gateway-ca are for tests: they need --socket");
}

/* Still root: the control socket, root-owned 0600 in a root-owned 0711 directory. */
static int
control_listen(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strcmp(path, AB_NETD_CONTROL) == 0 && mkdir(NETD_DIR, 0711) != 0 && errno != EEXIST)
		errx(1, "mkdir %s: %s", NETD_DIR, strerror(errno));
	if (strlen(path) >= sizeof(sun.sun_path))
		errx(1, "socket path too long: %s", path);
	strcpy(sun.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		errx(1, "socket: %s", strerror(errno));
	if (unlink(path) != 0 && errno != ENOENT)
		errx(1, "unlink %s: %s", path, strerror(errno));
	/* umask first: the socket never exists with wider modes, not even briefly. */
	mode_t old = umask(0177);

	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0)
		errx(1, "bind %s: %s", path, strerror(errno));
	umask(old);
	if (listen(fd, 16) != 0)
		errx(1, "listen %s: %s", path, strerror(errno));
	return fd;
}

/* The registry must survive us (restart sweep) and be writable by us once we dropped. */
static void
registry_dir(const char *dir, const struct passwd *pw)
{
	struct stat st;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		errx(1, "mkdir %s: %s", dir, strerror(errno));
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		errx(1, "%s: not a directory", dir);
	if (chown(dir, pw->pw_uid, pw->pw_gid) != 0 || chmod(dir, 0700) != 0)
		errx(1, "chown %s: %s", dir, strerror(errno));
}

struct sink {
	int audit_fd;
	bool verbose;
};

static int
audit_sink(void *ctx, const char *msg, bool success)
{
	struct sink *k = ctx;

	if (k->verbose)
		fprintf(stderr, "record: %s res=%s\n", msg, success ? "success" : "failed");
	return audit_log_user_message(k->audit_fd, AUDIT_TRUSTED_APP, msg, NULL, NULL, NULL,
				      success ? 1 : 0) > 0 ? 0 : -EIO;
}

static uint64_t
own_netns_cookie(void)
{
	uint64_t c = 0;
	socklen_t len = sizeof(c);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, 71 /* SO_NETNS_COOKIE */, &c, &len) != 0)
		errx(1, "SO_NETNS_COOKIE: %s (kernel 5.14 or later needed)", strerror(errno));
	close(fd);
	return c;
}

/* Become the daemon's user with CAP_AUDIT_WRITE only, then prove nothing else is left. */
static void
drop_privileges(const struct passwd *pw)
{
	FILE *f;
	char line[256];
	unsigned long long eff = ~0ULL;

	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_AUDIT_WRITE) != 0 ||
	    capng_change_id((int)pw->pw_uid, (int)pw->pw_gid,
			    CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING) != 0)
		errx(1, "drop privileges to %s failed", pw->pw_name);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		errx(1, "prctl(NO_NEW_PRIVS): %s", strerror(errno));
	/* OpenSSH permanently_set_uid: try to get root back; that must fail. */
	if (setuid(0) == 0 || setgid(0) == 0 || geteuid() == 0 || getegid() == 0)
		errx(1, "privileges could be regained after the drop");
	if ((f = fopen("/proc/self/status", "re")) == NULL)
		errx(1, "/proc/self/status: %s", strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	if (eff != 1ULL << CAP_AUDIT_WRITE)
		errx(1, "capabilities left after the drop: %llx", eff);
}

static void
serve_control(struct ab_netd_daemon *d, int lfd)
{
	struct timeval tv = { .tv_sec = 1 };
	const char *why = NULL;
	char msg[AB_NETD_REPLY_MAX];
	int conn, n;

	while ((conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		/* PAM sends right after connecting: a silent peer must not stall the loop. */
		setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (ab_netd_session_open(d, conn, &why) == 0)
			n = snprintf(msg, sizeof(msg), "ok");
		else
			n = snprintf(msg, sizeof(msg), "error %s", why ? why : "refused");
		(void)send(conn, msg, (size_t)n, MSG_NOSIGNAL);
		close(conn);
	}
}

/* Accept what is waiting on a session listener; refuse over the bounds, with a record. */
static void
serve_listener(struct ab_netd_watch *w)
{
	int fd, r;

	while ((fd = accept4(w->fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		if ((r = ab_netd_session_admit(w->s)) != 0) {
			close(fd);
			ab_netd_conn_deny(w->s, w->src == AB_NETD_SRC_DNS_TCP ? "dns"
					  : w->src == AB_NETD_SRC_GATEWAY ? "gateway" : "connect",
					  "?", 0, AB_NETD_R_LIMIT);
			continue;
		}
		ab_netd_conn_start(w->s, fd, w->src,
				   (size_t)(w - w->s->watch) - AB_NETD_FD_GATEWAY);
	}
}

static void
serve(struct ab_netd_daemon *d, int lfd, int sigfd)
{
	struct ab_netd_watch ctl = { .src = AB_NETD_SRC_CONTROL, .fd = lfd };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &ctl }, evs[64];
	int timeout = -1, n, i;

	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, lfd, &ev) != 0)
		errx(1, "epoll_ctl: %s", strerror(errno));
	ev.data.ptr = NULL;	/* the signalfd */
	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, sigfd, &ev) != 0)
		errx(1, "epoll_ctl: %s", strerror(errno));
	for (;;) {
		n = epoll_wait(d->epfd, evs, 64, timeout);
		if (n < 0 && errno != EINTR)
			errx(1, "epoll_wait: %s", strerror(errno));
		for (i = 0; i < n; i++) {
			struct ab_netd_watch *w = evs[i].data.ptr;

			if (w == NULL)
				return;	/* SIGTERM/SIGINT */
			if (w->src == AB_NETD_SRC_LIFELINE) {
				/* W lives in the session, which this frees: nothing of it may
				 * be read after, and the session's other events in evs are
				 * stale (level-triggered, the rest come back next round). */
				ab_netd_session_end(w->s, "exit");
				break;
			}
			if (w->src == AB_NETD_SRC_CONTROL)
				serve_control(d, lfd);
			else
				serve_listener(w);
		}
		/* Workers fold denials while we sleep: wake at least once per window. */
		timeout = ab_netd_record_flush(d->rec, ab_netd_now_ms(), false);
		if (timeout < 0)
			timeout = AB_NETD_FOLD_MS;
	}
}

int
main(int argc, char **argv)
{
	struct ab_netd_daemon d = { 0 };
	struct sink sink = { -1, false };
	struct passwd *pw;
	struct opts o;
	sigset_t sigs;
	int lfd, sigfd;
	pid_t loader;

	parse_args(argc, argv, &o);
	sink.verbose = o.verbose;
	/* 1. Root is needed for the socket, the registry, the sweep and the audit socket. */
	if (geteuid() != 0)
		errx(1, "must be started as root (it drops to %s itself)", o.user);
	if ((pw = getpwnam(o.user)) == NULL)
		errx(1, "no user %s: hint: make install or agentbox enroll --network proxy creates it",
		    o.user);
	signal(SIGPIPE, SIG_IGN);	/* a box that closes early must not kill us */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) != 0 ||
	    (sigfd = signalfd(-1, &sigs, SFD_CLOEXEC)) < 0)
		errx(1, "signalfd: %s", strerror(errno));
	/* 2. The control socket, bound while root: only root may connect (0600). */
	lfd = control_listen(o.socket);
	registry_dir(o.registry, pw);
	/* 3. The audit socket: every decision is a record, so no audit means no daemon. */
	if ((sink.audit_fd = audit_open()) < 0)
		errx(1, "audit_open: %s", strerror(errno));
	if (ab_netd_recorder_new(audit_sink, &sink, &d.rec) != 0 ||
	    ab_netd_polcache_new(&d.pcache) != 0)
		errx(1, "out of memory");
	d.registry = o.registry;
	d.rules_file = o.rules;
	d.verbose = o.verbose;
	/* Credential files: root:agentbox-netd 0640, read by our group after the drop. */
	d.cred_owner = 0;
	d.cred_group = pw->pw_gid;
	d.gw_port = 443;
	/* No trust store: the daemon still serves the proxy; opens with credentials are
	 * refused (session.c), never served without verified TLS. */
	if (ab_netd_tls_ctx_new(o.gw_ca, &d.tls) != 0)
		d.tls = NULL;
	/* 4. Sessions of a previous daemon have no way out any more: end them (root). */
	ab_netd_registry_sweep(&d);
	d.own_netns = own_netns_cookie();
	if (ab_netd_suffixes_open(&d.psl) != 0)
		errx(1, "no public suffix list: hint: apt-get install publicsuffix");
	if ((d.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		errx(1, "epoll_create1: %s", strerror(errno));
	/* Before the loader: it dies with its parent, which must be the daemon for good. */
	if (!o.foreground && daemon(0, 0) != 0)
		errx(1, "daemon: %s", strerror(errno));
	/* 5. The policy loader keeps CAP_DAC_READ_SEARCH (projects in 0700 homes); we keep
	 * CAP_AUDIT_WRITE only, and prove it. */
	if (ab_netd_loader_start(pw->pw_uid, pw->pw_gid, &d.loader_fd, &loader) != 0)
		errx(1, "cannot start the policy loader: %s", strerror(errno));
	drop_privileges(pw);
	/* 6. Serve until SIGTERM; the sessions' registry files stay for the next sweep. */
	serve(&d, lfd, sigfd);
	ab_netd_record_flush(d.rec, ab_netd_now_ms(), true);
	return 0;
}
