/*
 * The watcher of processes outside a box (unboxed.h): no process of an enrolled user
 * may run outside a box while a login of that user is let in (DESIGN invariant 3).  One
 * that does could hand a session fds of the host's tree, through a socket in the
 * agent's home: masks are per mount namespace, and the enrolment's deny ACLs cannot
 * deny a file's owner (tests/escape/FINDINGS.md F7).
 *
 * Why the process events connector (CN_IDX_PROC) and not a walk of /proc at each login:
 * a walk grows with the host (thousands of processes: milliseconds per login) and a
 * login must know in a fraction of that.  The kernel sends PROC_EVENT_UID from
 * commit_creds for every change of a task's real, effective, saved or fs uid, whoever
 * makes it (setuid, setpriv, start-stop-daemon, a service manager, the exec of a
 * set-user-ID file) and whatever the process does to hide (non-dumpable, renamed, its
 * own namespaces): the change is seen as it happens, and the process is placed then.
 * Since Linux 6.6 the kernel filters the events for us (proc_input); before, every
 * fork, exec and exit of the host wakes us, and we drop all but the uid changes.
 *
 * What one process outside a box leaves behind: its children, which no event names
 * (they inherit the uid).  So each such process is held by a pidfd; when it ends, /proc
 * is read again for its uid, which finds the children.  Also read again: every watched
 * uid when the kernel dropped events (ENOBUFS: a storm of them), and the one uid whose
 * process was gone before it could be placed (it may have forked first).  Those walks
 * are the daemon's, never a login's.
 *
 * The state files are written before anything else learns of them (rename over), so a
 * reader sees the old list or the new, never half of one.  Left open: the moment
 * between a uid change and its event being read here (microseconds; a login that falls
 * in it is let in), and the threads of a process whose uids differ from its main
 * thread's (raw setresuid in one thread: placed at its event, not by the walks).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <unistd.h>
#include <dirent.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <linux/cn_proc.h>

#include "abutil.h"
#include "unboxed.h"

#define NL_RCVBUF	(4 << 20)	/* room for a burst of events between two reads */
#define NAME_MAX_LEN	64

struct held {
	int		 pid;
	unsigned	 uid;
	int		 pidfd;
	char		 name[NAME_MAX_LEN];
};

struct watched {
	unsigned	 uid;
	unsigned	 more;		/* outside a box, but not held: the table was full */
	int		 more_pid;	/* one of them, for the file */
};

struct ab_unboxed {
	int		 dir, lock, nl, ep;
	ino_t		 host_pidns;
	int		 filtered;	/* the kernel sends only PROC_EVENT_UID */
	struct watched	 w[AB_UNBOXED_UIDS_MAX];
	size_t		 nw;
	struct held	 h[AB_UNBOXED_TRACK_MAX];
	size_t		 nh;
};

/* ---- the state files ------------------------------------------------------------- */

static struct watched *
watched(struct ab_unboxed *u, unsigned uid)
{
	size_t i;

	for (i = 0; i < u->nw; i++)
		if (u->w[i].uid == uid)
			return &u->w[i];
	return NULL;
}

/* DIR/UID: "PID NAME" per process of UID outside a box, written whole, then renamed. */
static int
write_state(struct ab_unboxed *u, const struct watched *w)
{
	char name[32], tmp[40];
	size_t i;
	FILE *f;
	int fd, e = 0;

	snprintf(name, sizeof(name), "%u", w->uid);
	snprintf(tmp, sizeof(tmp), "%u.new", w->uid);
	if ((fd = openat(u->dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    0600)) == -1)
		return -errno;
	if ((f = fdopen(fd, "w")) == NULL) {
		e = errno;
		(void)close(fd);
		return -e;
	}
	for (i = 0; i < u->nh; i++)
		if (u->h[i].uid == w->uid)
			fprintf(f, "%d %s\n", u->h[i].pid, u->h[i].name);
	if (w->more > 0)
		fprintf(f, "%d (and %u more not held: the table is full)\n", w->more_pid,
		    w->more - 1);
	if (fflush(f) != 0 || ferror(f))
		e = errno != 0 ? errno : EIO;
	if (fclose(f) != 0 && e == 0)
		e = errno;
	if (e == 0 && renameat(u->dir, tmp, u->dir, name) == -1)
		e = errno;
	return -e;
}

/* Whatever an earlier daemon left: it may be stale, so no module may read it. */
static int
clear_state(int dir)
{
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	if ((fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -errno;
	if ((d = fdopendir(fd)) == NULL) {
		r = -errno;
		(void)close(fd);
		return r;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, AB_UNBOXED_LOCK) == 0)
			continue;
		if (unlinkat(dir, de->d_name, 0) == -1 && errno != ENOENT && r == 0)
			r = -errno;
	}
	(void)closedir(d);
	return r;
}

/* ---- processes held -------------------------------------------------------------- */

static void
release(struct ab_unboxed *u, size_t i)
{
	(void)epoll_ctl(u->ep, EPOLL_CTL_DEL, u->h[i].pidfd, NULL);
	(void)close(u->h[i].pidfd);
	u->h[i] = u->h[--u->nh];
}

/* The index of held process PID, or -1. */
static ssize_t
held_index(const struct ab_unboxed *u, int pid)
{
	size_t i;

	for (i = 0; i < u->nh; i++)
		if (u->h[i].pid == pid)
			return (ssize_t)i;
	return -1;
}

/* Hold PID (of W's uid, outside a box): a pidfd that says when it ends.  -ESRCH if it
 * is gone already; a full table counts it in W->more instead (the file still says so,
 * and every end is followed by a walk that finds it again). */
static int
hold(struct ab_unboxed *u, struct watched *w, int pid, const char *name)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct held *h;
	int fd;

	if (held_index(u, pid) >= 0)
		return 0;
	if (u->nh == AB_UNBOXED_TRACK_MAX) {
		if (w->more++ == 0)
			w->more_pid = pid;
		return 0;
	}
	if ((fd = pidfd_open(pid, 0)) == -1)
		return -errno;
	ev.data.fd = fd;
	if (epoll_ctl(u->ep, EPOLL_CTL_ADD, fd, &ev) == -1) {
		int e = errno;

		(void)close(fd);
		return -e;
	}
	h = &u->h[u->nh++];
	*h = (struct held){ .pid = pid, .uid = w->uid, .pidfd = fd };
	snprintf(h->name, sizeof(h->name), "%s", name);
	return 0;
}

struct walk_ctx {
	struct ab_unboxed	*u;
	struct watched		*w;
};

static int
walk_one(void *ctx, int pid, const char *name)
{
	struct walk_ctx *c = ctx;
	int r = hold(c->u, c->w, pid, name);

	return r == -ESRCH ? 0 : r;
}

/* Read /proc again for W's uid: who of it runs outside a box now. */
static int
rewalk(struct ab_unboxed *u, struct watched *w)
{
	struct walk_ctx c = { u, w };
	size_t i;
	int r;

	for (i = u->nh; i-- > 0;)
		if (u->h[i].uid == w->uid)
			release(u, i);
	w->more = 0;
	if ((r = ab_proc_unboxed_each(w->uid, walk_one, &c)) != 0)
		return r;
	return write_state(u, w);
}

static int
rewalk_all(struct ab_unboxed *u)
{
	size_t i;
	int r;

	for (i = 0; i < u->nw; i++)
		if ((r = rewalk(u, &u->w[i])) != 0)
			return r;
	return 0;
}

/* ---- the process events ---------------------------------------------------------- */

/* A held process changed its uids: if it is no longer its user's, it is let go. */
static int
held_changed(struct ab_unboxed *u, size_t i, int tid)
{
	char status[4096];
	struct watched *w;
	unsigned uid = u->h[i].uid;

	if (ab_proc_status(tid, status, sizeof(status)) != 0 ||
	    ab_status_is_uid(status, uid) != 0)
		return 0;	/* still its user's, or gone (its pidfd says so) */
	release(u, i);
	if ((w = watched(u, uid)) == NULL)
		return 0;
	return write_state(u, w);
}

/* A uid change of thread TID of process TGID: place the process if its real and
 * effective uid are a watched user's (ab_status_is_uid); let a held one go if they are
 * no longer. */
static int
uid_changed(struct ab_unboxed *u, int tid, int tgid, unsigned ruid, unsigned euid)
{
	char status[4096], name[NAME_MAX_LEN];
	struct watched *w;
	ssize_t i;
	int b, r;

	if ((i = held_index(u, tgid)) >= 0)
		return held_changed(u, (size_t)i, tid);
	if (ruid != euid || (w = watched(u, ruid)) == NULL)
		return 0;
	/* The thread's own status: credentials are per thread. */
	if (ab_proc_status(tid, status, sizeof(status)) != 0)
		return rewalk(u, w);	/* gone: it may have forked first */
	if (ab_status_is_uid(status, w->uid) == 0)
		return 0;		/* changed again since */
	if ((b = ab_proc_boxed(tgid, u->host_pidns)) == 1)
		return 0;
	if (b == -ESRCH)
		return rewalk(u, w);
	if (ab_status_field(status, "Name", name, sizeof(name)) != 0)
		snprintf(name, sizeof(name), "?");
	if ((r = hold(u, w, tgid, name)) == -ESRCH)
		return rewalk(u, w);
	if (r != 0)
		return r;
	syslog(LOG_WARNING, "uid %u: process %d (%s) runs outside a box: logins of uid %u "
	    "are refused while it does", w->uid, tgid, name, w->uid);
	return write_state(u, w);
}

static int
take_events(struct ab_unboxed *u)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlmsghdr *nh;
	const struct cn_msg *cn;
	const struct proc_event *ev;
	ssize_t n;
	int r;

	for (;;) {
		if ((n = recv(u->nl, buf, sizeof(buf), MSG_DONTWAIT)) == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			if (errno != ENOBUFS)
				return -errno;
			/* The kernel dropped events: what they said is learnt again. */
			syslog(LOG_WARNING, "process events lost: reading /proc again");
			if ((r = rewalk_all(u)) != 0)
				return r;
			continue;
		}
		for (nh = (const struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		    nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type != NLMSG_DONE ||
			    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(*ev)))
				continue;
			cn = NLMSG_DATA(nh);
			if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
				continue;
			ev = (const struct proc_event *)cn->data;
			if (ev->what != PROC_EVENT_UID)
				continue;
			if ((r = uid_changed(u, ev->event_data.id.process_pid,
			    ev->event_data.id.process_tgid, ev->event_data.id.r.ruid,
			    ev->event_data.id.e.euid)) != 0)
				return r;
		}
	}
}

/* Linux 6.6 or later: the listen message may carry the events wanted. */
static int
kernel_filters(void)
{
	struct utsname un;
	unsigned maj = 0, min = 0;

	if (uname(&un) == -1 || sscanf(un.release, "%u.%u", &maj, &min) != 2)
		return 0;
	return maj > 6 || (maj == 6 && min >= 6);
}

static int
send_listen(int nl, const uint32_t *in, size_t len)
{
	char buf[NLMSG_SPACE(sizeof(struct cn_msg) + 8)] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct cn_msg *cn;

	memset(buf, 0, sizeof(buf));
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + len);
	nh->nlmsg_type = NLMSG_DONE;
	cn = NLMSG_DATA(nh);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = (uint16_t)len;
	memcpy(cn->data, in, len);
	if (send(nl, buf, nh->nlmsg_len, 0) != (ssize_t)nh->nlmsg_len)
		return -errno;
	return 0;
}

/* The kernel's answer to a listen request: a PROC_EVENT_NONE event with its error.  A
 * request it ignores (a daemon outside the initial user and pid namespaces, where the
 * events would name the wrong pids) gets none: then we hear nothing, and say so. */
static int
await_ack(int nl)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct timeval tv = { 1, 0 }, none = { 0, 0 };
	const struct nlmsghdr *nh;
	const struct proc_event *ev;
	ssize_t n;
	int r = -ETIMEDOUT;

	if (setsockopt(nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1)
		return -errno;
	while (r == -ETIMEDOUT) {
		if ((n = recv(nl, buf, sizeof(buf), 0)) == -1) {
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			r = errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
			break;
		}
		for (nh = (const struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		    nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(*ev)))
				continue;
			ev = (const struct proc_event *)((const struct cn_msg *)NLMSG_DATA(nh))->data;
			if (ev->what == PROC_EVENT_NONE)
				r = -(int)ev->event_data.ack.err;
		}
	}
	if (setsockopt(nl, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none)) == -1 && r == 0)
		r = -errno;
	return r;
}

/* Listen, see the kernel agree, then (Linux 6.6 or later) ask for uid changes only:
 * struct proc_input, the op then the events, not in Debian 12's headers.  The kernel
 * acknowledges only the plain form, hence two requests. */
static int
subscribe(struct ab_unboxed *u)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	const uint32_t in[2] = { PROC_CN_MCAST_LISTEN, PROC_EVENT_UID };
	int size = NL_RCVBUF, r;

	if ((u->nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR)) == -1)
		return -errno;
	if (setsockopt(u->nl, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) == -1 ||
	    bind(u->nl, (struct sockaddr *)&sa, sizeof(sa)) == -1)
		return -errno;
	if ((r = send_listen(u->nl, in, sizeof(in[0]))) != 0 || (r = await_ack(u->nl)) != 0)
		return r == -ETIMEDOUT ? -ENOPROTOOPT : r;
	u->filtered = kernel_filters();
	return u->filtered ? send_listen(u->nl, in, sizeof(in)) : 0;
}

/* ---- the interface --------------------------------------------------------------- */

int
ab_unboxed_open(const char *path, struct ab_unboxed **out)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct ab_unboxed *u;
	struct stat st;
	int r;

	*out = NULL;
	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -ENOMEM;
	u->dir = u->lock = u->nl = u->ep = -1;
	if (stat("/proc/self/ns/pid", &st) == -1) {
		r = -errno;
		goto fail;
	}
	u->host_pidns = st.st_ino;
	if ((mkdir(path, 0700) == -1 && errno != EEXIST) ||
	    (u->dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    (u->lock = openat(u->dir, AB_UNBOXED_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1) {
		r = -errno;
		goto fail;
	}
	/* Shared while the state is rebuilt: a module's LOCK_SH succeeds, so it refuses. */
	if (flock(u->lock, LOCK_SH | LOCK_NB) == -1) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		goto fail;
	}
	if ((r = clear_state(u->dir)) != 0 || (r = subscribe(u)) != 0)
		goto fail;
	if ((u->ep = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		r = -errno;
		goto fail;
	}
	ev.data.fd = u->nl;
	if (epoll_ctl(u->ep, EPOLL_CTL_ADD, u->nl, &ev) == -1 ||
	    flock(u->lock, LOCK_EX | LOCK_NB) == -1) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		goto fail;
	}
	*out = u;
	return 0;
fail:
	ab_unboxed_free(u);
	return r;
}

/*
 * close() only, never an epoll_ctl or a flock: in a forked child the epoll set, the lock
 * and the socket are the parent's too (one open file each), and closing our copies
 * changes nothing for it.  In the daemon, the lock goes last: it says the files were
 * true until then.
 */
static void
close_all(struct ab_unboxed *u)
{
	size_t i;

	for (i = 0; i < u->nh; i++)
		(void)close(u->h[i].pidfd);
	if (u->ep >= 0)
		(void)close(u->ep);
	if (u->nl >= 0)
		(void)close(u->nl);
	if (u->dir >= 0)
		(void)close(u->dir);
	if (u->lock >= 0)
		(void)close(u->lock);
	free(u);
}

void
ab_unboxed_free(struct ab_unboxed *u)
{
	if (u != NULL)
		close_all(u);
}

int
ab_unboxed_fd(const struct ab_unboxed *u)
{
	return u->ep;
}

int
ab_unboxed_serve(struct ab_unboxed *u)
{
	struct epoll_event ev[16];
	struct watched *w;
	int i, n, r = 0;
	size_t k;

	if ((n = epoll_wait(u->ep, ev, 16, 0)) == -1)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < n && r == 0; i++) {
		if (ev[i].data.fd == u->nl) {
			r = take_events(u);
			continue;
		}
		/* A held process ended: walk its uid for the children it may leave. */
		for (k = 0; k < u->nh; k++)
			if (u->h[k].pidfd == ev[i].data.fd)
				break;
		if (k == u->nh)
			continue;	/* released by a walk of this round */
		w = watched(u, u->h[k].uid);
		release(u, k);
		if (w != NULL)
			r = rewalk(u, w);
	}
	return r;
}

int
ab_unboxed_watch(struct ab_unboxed *u, unsigned uid)
{
	struct watched *w;

	if ((w = watched(u, uid)) == NULL) {
		if (u->nw == AB_UNBOXED_UIDS_MAX)
			return -ENOSPC;
		w = &u->w[u->nw++];
		*w = (struct watched){ .uid = uid };
	}
	return rewalk(u, w);
}
