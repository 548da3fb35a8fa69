/*
 * The enforcer's loop (research 2.6, 6): read permission events, drain the tracking
 * group into S before each answer, decide, answer.  An allow adds the verdict cache;
 * a deny is FAN_DENY|FAN_AUDIT|FAN_INFO with the rule number, so the kernel writes
 * type=FANOTIFY in the opener's own audit event (its ses, exe, PATH).
 *
 * The reader must never open anything through a marked mount: it would wait on itself.
 * It reads only /proc/self/fd links, and opens directories of the trees with O_PATH
 * (no permission event) for the ancestor check and open_by_handle_at.
 *
 * Fail closed: once anything goes wrong (a queue overflow on either group, a read
 * error, S full, a malformed event), every event already read and every one still
 * queued is answered FAN_DENY, then ab_maskd_run returns.  The three fail-open modes
 * this cannot close alone are in README.md ("Fail-open modes").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "maskd.h"

/* Debian 12's UAPI headers are 6.1; FAN_INFO and its audit-rule record came in 6.3. */
#ifndef FAN_INFO
#define FAN_INFO			0x20
#define FAN_RESPONSE_INFO_AUDIT_RULE	1
struct fanotify_response_info_header {
	__u8	type;
	__u8	pad;
	__u16	len;
};
struct fanotify_response_info_audit_rule {
	struct fanotify_response_info_header hdr;
	__u32	rule_number;
	__u32	subj_trust;
	__u32	obj_trust;
};
#endif

#define BUF_SIZE	(64 * 1024)
#define TRUST_UNKNOWN	2		/* audit's subj_trust/obj_trust: "unknown" */

struct mnt {
	int	fd;		/* O_RDONLY|O_DIRECTORY: fanotify_mark and open_by_handle_at */
	int32_t	fsid[2];
};

struct ab_maskd {
	const struct ab_maskd_decider	*d;
	struct ab_maskd_history		*h;
	int				 perm, track;
	struct mnt			*m;
	size_t				 nm;
	pid_t				 self;
	int				 track_err;	/* a drain between answers failed */
	struct ab_learn			*learn;		/* a learning session's recorder */
	struct ab_maskrec		*rec;		/* the record of each denial */
	struct ab_maskd_warm		*warm;		/* notes the first files cached */
	/* The warm set being seeded between answers (ab_maskd_warm_seed): the list (the
	 * caller's), how far, and the session's root; seed_root -1 once done. */
	const char			*seed;
	size_t				 seed_len, seed_off;
	int				 seed_root;
	uint32_t			 rec_ses, rec_uid;	/* the session's, if known */
	int				 watch[AB_MASKD_WATCH_MAX];
	size_t				 nwatch;
	struct ab_maskd_stats		 st;
	unsigned char			*buf, *tbuf;	/* permission, tracking reads */
	char				 path[PATH_MAX];	/* the judged event's */
};

static void	seed_stop(struct ab_maskd *e);

void
ab_maskd_free(struct ab_maskd *e)
{
	size_t i;

	if (e == NULL)
		return;
	for (i = 0; i < e->nm; i++)
		(void)close(e->m[i].fd);
	if (e->perm >= 0)
		(void)close(e->perm);
	if (e->track >= 0)
		(void)close(e->track);
	seed_stop(e);
	ab_maskd_history_free(e->h);
	free(e->m);
	free(e->buf);
	free(e->tbuf);
	free(e);
}

/* E with buffers and S, no groups yet.  0 or -ENOMEM. */
static int
alloc(const struct ab_maskd_decider *d, size_t history_max, struct ab_maskd **out)
{
	struct ab_maskd *e;
	int r;

	*out = NULL;
	if ((e = calloc(1, sizeof(*e))) == NULL)
		return -ENOMEM;
	e->d = d;
	e->perm = e->track = -1;
	e->seed_root = -1;
	e->self = getpid();
	e->buf = malloc(BUF_SIZE);
	e->tbuf = malloc(BUF_SIZE);
	if (e->buf == NULL || e->tbuf == NULL)
		r = -ENOMEM;
	else
		r = ab_maskd_history_new(history_max != 0 ? history_max : AB_MASKD_HISTORY_MAX,
		    &e->h);
	if (r != 0) {
		ab_maskd_free(e);
		return r;
	}
	*out = e;
	return 0;
}

int
ab_maskd_new(const struct ab_maskd_decider *d, size_t history_max, struct ab_maskd **out)
{
	struct ab_maskd *e;
	int r;

	if ((r = alloc(d, history_max, &e)) != 0)
		return r;
	if ((r = ab_maskd_group_perm(&e->perm)) != 0 ||
	    (r = ab_maskd_group_track(&e->track)) != 0) {
		ab_maskd_free(e);
		return r;
	}
	*out = e;
	return 0;
}

int
ab_maskd_adopt(const struct ab_maskd_decider *d, size_t history_max, int perm, int track,
    const int *mounts, size_t nmounts, struct ab_maskd **out)
{
	struct ab_maskd *e;
	struct statfs sf;
	size_t i;
	int r;

	if ((r = alloc(d, history_max, &e)) != 0)
		return r;
	if ((e->m = calloc(nmounts != 0 ? nmounts : 1, sizeof(*e->m))) == NULL) {
		ab_maskd_free(e);
		return -ENOMEM;
	}
	for (i = 0; i < nmounts; i++) {
		if (fstatfs(mounts[i], &sf) == -1) {
			r = -errno;
			e->nm = 0;	/* the fds are still the caller's */
			ab_maskd_free(e);
			return r;
		}
		e->m[i].fd = mounts[i];
		memcpy(e->m[i].fsid, &sf.f_fsid, sizeof(e->m[i].fsid));
	}
	e->nm = nmounts;
	e->perm = perm;
	e->track = track;
	*out = e;
	return 0;
}

int
ab_maskd_watch(struct ab_maskd *e, int fd)
{
	if (e->nwatch == AB_MASKD_WATCH_MAX)
		return -E2BIG;
	e->watch[e->nwatch++] = fd;
	return 0;
}

void
ab_maskd_learn(struct ab_maskd *e, struct ab_learn *l)
{
	e->learn = l;
}

void
ab_maskd_record(struct ab_maskd *e, struct ab_maskrec *r, uint32_t ses, uint32_t uid)
{
	e->rec = r;
	e->rec_ses = ses;
	e->rec_uid = uid;
}

int
ab_maskd_fd(const struct ab_maskd *e)
{
	return e->perm;
}

void
ab_maskd_stats(const struct ab_maskd *e, struct ab_maskd_stats *out)
{
	*out = e->st;
	out->tracked = ab_maskd_history_size(e->h);
}

int
ab_maskd_add_mount(struct ab_maskd *e, const char *path)
{
	struct statfs sf;
	struct mnt *m;
	int fd, r;

	if (path[0] != '/')
		return -EINVAL;
	/* Opened before the mark: once marked, this open would wait for us. */
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return -errno;
	if (fstatfs(fd, &sf) == -1 || (m = reallocarray(e->m, e->nm + 1, sizeof(*m))) == NULL) {
		r = -errno;	/* fstatfs's, or reallocarray's ENOMEM */
		(void)close(fd);
		return r;
	}
	e->m = m;
	if ((r = ab_maskd_group_mark(e->perm, e->track, fd)) != 0) {
		(void)close(fd);
		return r;
	}
	e->m[e->nm].fd = fd;
	memcpy(e->m[e->nm].fsid, &sf.f_fsid, sizeof(e->m[e->nm].fsid));
	e->nm++;
	return 0;
}

/* ab_maskd_resolve_fn: NAME in directory DIR of filesystem FSID, as an absolute path. */
static int
resolve(void *arg, const int32_t fsid[2], const struct ab_maskd_key *dir, const char *name,
    char *out, size_t outlen)
{
	const struct ab_maskd *e = arg;
	size_t i, n;
	int r;

	for (i = 0; i < e->nm; i++)
		if (memcmp(e->m[i].fsid, fsid, sizeof(e->m[i].fsid)) == 0)
			break;
	if (i == e->nm)
		return -ENOENT;
	if ((r = ab_maskd_key_path(e->m[i].fd, dir, out, outlen)) != 0)
		return r;
	n = strlen(out);
	if (snprintf(out + n, outlen - n, "%s%s", n == 1 ? "" : "/", name) >= (int)(outlen - n))
		return -ENAMETOOLONG;
	return 0;
}

/*
 * ab_maskd_added_fn: an inode that joins S loses its verdict cache mark, if it has one
 * (a first open's, or the warm set's): its next open is asked, and denied by S.  Without
 * this a cached file renamed or linked to a masked name stayed allowed until written.
 * Between the rename and this drain (the loop polls the tracking group) an open can
 * still pass.  Every key in S is on a tracked filesystem, which has a mount fd here.
 */
static void
uncache(void *arg, const struct ab_maskd_key *k)
{
	const struct ab_maskd *e = arg;
	size_t i;
	int fd;

	for (i = 0; i < e->nm; i++)
		if (memcmp(e->m[i].fsid, k->fsid, sizeof(k->fsid)) == 0)
			break;
	if (i == e->nm || (fd = ab_maskd_key_open(e->m[i].fd, k)) < 0)
		return;		/* gone, or never reachable here: nothing to open it by */
	(void)ab_maskd_group_uncache_fd(e->perm, fd);	/* -ENOENT: it had none */
	(void)close(fd);
}

/* Everything the tracking group queued so far, into S.  0 or -errno (fail closed). */
static int
drain(struct ab_maskd *e)
{
	ssize_t n;
	int r;

	for (;;) {
		if ((n = read(e->track, e->tbuf, BUF_SIZE)) == -1)
			return errno == EAGAIN ? 0 : -errno;
		if ((r = ab_maskd_history_feed(e->h, e->d, e->tbuf, (size_t)n, resolve, uncache,
		    e)) != 0)
			return r;
	}
}

/*
 * Is a directory above PATH in S (a masked directory renamed away: `mv secrets x`)?
 * Only asked when S holds directories.  Each prefix is opened O_PATH (no event); one
 * that cannot be opened is a path that changed under us: 1, deny (the agent retries).
 */
static int
ancestor_in_history(const struct ab_maskd *e, const char *path)
{
	struct ab_maskd_key k;
	char buf[PATH_MAX];
	size_t i, n = strlen(path);
	int fd, r;

	if (n >= sizeof(buf))
		return 1;
	memcpy(buf, path, n + 1);
	for (i = 1; i < n; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		fd = open(buf, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		buf[i] = '/';
		if (fd == -1)
			return 1;
		r = ab_maskd_key_of_fd(fd, &k);
		(void)close(fd);
		if (r != 0 || ab_maskd_history_has(e->h, &k))
			return 1;
	}
	return 0;
}

/* Is the inode KEY, reached at PATH, in S (itself, or a directory above it)? */
static int
in_history(struct ab_maskd *e, const struct ab_maskd_key *k, const char *path)
{
	return ab_maskd_history_has(e->h, k) ||
	    (ab_maskd_history_ndirs(e->h) != 0 && ancestor_in_history(e, path));
}

/*
 * The rule to answer the event on FD of process PID with (0: allow); *CACHE: may be
 * cached if allowed.  The creating-open exception needs all of: the tracking group
 * (drained just before) saw PID create this inode under a masked name, no open of it
 * was judged since, and it is still an empty regular file with one name.  fsnotify
 * queues FAN_CREATE inside the lookup that creates (open_last_lookups) before the same
 * openat's FAN_OPEN_PERM (do_open), so the create is drained before it is missed.
 */
static unsigned int
judge(struct ab_maskd *e, int fd, pid_t pid, int *cache)
{
	struct ab_maskd_query q = { 0 };
	struct ab_maskd_key k;
	char *path = e->path;	/* kept for the record of a denial */
	struct stat st;
	unsigned int rule;

	*cache = 0;
	path[0] = '\0';
	if (fstat(fd, &st) == -1 || ab_fd_path(fd, path, sizeof(e->path)) != 0 ||
	    ab_maskd_key_of_fd(fd, &k) != 0)
		return AB_MASKD_RULE_UNKNOWN;
	q.path = path;
	q.creating = ab_maskd_history_take_fresh(e->h, &k, pid) && S_ISREG(st.st_mode) &&
	    st.st_nlink == 1 && st.st_size == 0;
	q.is_dir = S_ISDIR(st.st_mode);
	q.unlinked = st.st_nlink == 0;
	q.in_history = in_history(e, &k, path);
	rule = ab_maskd_decide(e->d, &q);
	/* A masked name seen at open joins S too: `ln .env y` after a denied open of a
	 * .env that existed before we started is then caught (no tracking event saw it). */
	if (rule != 0 && rule != AB_MASKD_RULE_UNKNOWN && !q.in_history &&
	    ab_maskd_history_add(e->h, &k, q.is_dir) != 0)
		return AB_MASKD_RULE_UNKNOWN;
	/* Never cache a creating open: the next one must be asked. */
	*cache = rule == 0 && S_ISREG(st.st_mode) && !q.creating;
	if (q.creating)
		e->st.created++;
	return rule;
}

/* Monotonic milliseconds: the record's windows must not move with the wall clock. */
static uint64_t
now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * The record of a denial by RULE of the open in MD, judged at E->path: written before the
 * answer, so it is in the log before the opener's own kernel event (FANOTIFY, SYSCALL),
 * which agentbox-audit joins to it.  The opener is still waiting for us: its /proc is
 * there to say its session, comm and executable.
 */
static void
record(struct ab_maskd *e, const struct fanotify_event_metadata *md, unsigned int rule)
{
	const char *pattern = ab_maskd_pattern(e->d, rule);
	char comm[64], exe[PATH_MAX];
	struct ab_maskrec_deny d;

	if (e->rec == NULL || pattern == NULL || e->path[0] == '\0')
		return;
	ab_maskd_proc_line(md->pid, "comm", comm, sizeof(comm));
	ab_maskd_proc_exe(md->pid, exe, sizeof(exe));
	d = (struct ab_maskrec_deny){
		.ses = ab_maskd_proc_num(md->pid, "sessionid", e->rec_ses),
		.uid = e->rec_uid != UINT32_MAX ? e->rec_uid :
		    ab_maskd_proc_num(md->pid, "loginuid", UINT32_MAX),
		.pid = md->pid, .exec = (md->mask & FAN_OPEN_EXEC_PERM) != 0,
		.path = e->path, .pattern = pattern, .comm = comm, .exe = exe,
	};
	ab_maskrec_deny(e->rec, &d, now_ms());
}

/* Answer the event on FD: allow (RULE 0) or deny with audit record and rule number. */
static int
answer(int perm, int fd, unsigned int rule)
{
	struct {
		struct fanotify_response		r;
		struct fanotify_response_info_audit_rule a;
	} __attribute__((packed)) b;
	size_t len = sizeof(b.r);

	memset(&b, 0, sizeof(b));
	b.r.fd = fd;
	b.r.response = FAN_ALLOW;
	if (rule != 0) {
		b.r.response = FAN_DENY | FAN_AUDIT | FAN_INFO;
		b.a.hdr.type = FAN_RESPONSE_INFO_AUDIT_RULE;
		b.a.hdr.len = sizeof(b.a);
		b.a.rule_number = rule;
		b.a.subj_trust = b.a.obj_trust = TRUST_UNKNOWN;
		len = sizeof(b);
	}
	if (write(perm, &b, len) == (ssize_t)len)
		return 0;
	/* A kernel without FAN_INFO (< 6.3) still gets a plain, audited denial. */
	if (rule != 0) {
		b.r.response = FAN_DENY | FAN_AUDIT;
		if (write(perm, &b.r, sizeof(b.r)) == (ssize_t)sizeof(b.r))
			return 0;
	}
	return -errno;
}

/* Note E->path, just cached, in the warm set if it is outside every tree.  A full set
 * is let go: every later cached open of the session would only be refused by it. */
static void
note_warm(struct ab_maskd *e)
{
	if (e->warm == NULL)
		return;
	if (e->warm->n == AB_MASKD_WARM_MAX) {
		e->warm = NULL;
		return;
	}
	if (!ab_maskd_in_tree(e->d, e->path))
		ab_maskd_warm_note(e->warm, e->path);
}

/*
 * The next permission event of BUF[0..LEN) at *OFF into *MD, *OFF past it: 1, 0 at the
 * end, -EPROTO for one that cannot be parsed (nor anything after it).  Permission
 * events carry no info records: the metadata is the whole event.
 */
static int
perm_event_next(const unsigned char *buf, size_t len, size_t *off,
    struct fanotify_event_metadata *md)
{
	if (len - *off < sizeof(*md))
		return 0;
	memcpy(md, buf + *off, sizeof(*md));
	if (md->vers != FANOTIFY_METADATA_VERSION || md->event_len < sizeof(*md) ||
	    md->event_len > len - *off)
		return -EPROTO;
	*off += md->event_len;
	return 1;
}

/*
 * The events in E->buf[0..LEN).  *ERR: 0 while serving; once set (here or by the
 * caller), every later event is denied.  Each event fd is closed after its answer.
 */
static void
serve(struct ab_maskd *e, size_t len, int *err)
{
	struct fanotify_event_metadata md;
	unsigned int rule;
	size_t off = 0;
	int more, cache, r;

	while ((more = perm_event_next(e->buf, len, &off, &md)) != 0) {
		if (more < 0) {
			*err = *err != 0 ? *err : more;
			return;	/* nothing more can be parsed; run() denies what is queued */
		}
		if (md.mask & FAN_Q_OVERFLOW) {
			*err = *err != 0 ? *err : -EOVERFLOW;
			continue;
		}
		if (md.fd < 0)
			continue;
		if (*err == 0 && e->track_err != 0)
			*err = e->track_err;
		if (*err == 0 && (r = drain(e)) != 0)
			*err = r;
		cache = 0;
		if (*err != 0)
			rule = AB_MASKD_RULE_UNKNOWN;
		else if (md.pid == e->self)
			rule = 0;	/* our own O_PATH walk never asks; anything else of ours is ours */
		else
			rule = judge(e, md.fd, md.pid, &cache);
		/* A masked name whose pattern could not be named (no memory): denied, and
		 * every later open too; the session ends (fail closed). */
		if (*err == 0 && (r = ab_maskd_decider_failed(e->d)) != 0)
			*err = r;
		if (rule != 0 && rule != AB_MASKD_RULE_UNKNOWN)
			record(e, &md, rule);
		/* The cache mark before the answer (it is an allow): an exec's open asks
		 * twice, FAN_OPEN_EXEC_PERM then FAN_OPEN_PERM, the second once the first is
		 * answered, and the mark then spares it its round trip.  An optimisation:
		 * failing to add it only costs the next open. */
		if (cache && ab_maskd_group_cache(e->perm, md.fd) != 0)
			cache = 0;
		if ((r = answer(e->perm, md.fd, rule)) != 0 && *err == 0)
			*err = r;
		if (cache && r != 0)	/* no answer went out: nothing may stay cached */
			(void)ab_maskd_group_uncache_fd(e->perm, md.fd);
		else if (cache) {
			e->st.cached++;
			note_warm(e);
		}
		if (rule != 0)
			e->st.denied++;
		else
			e->st.allowed++;
		(void)close(md.fd);
	}
}

/* Fail closed: deny everything still queued, until the queue is empty now. */
static void
deny_queued(struct ab_maskd *e, int *err)
{
	struct pollfd p = { .fd = e->perm, .events = POLLIN };
	ssize_t n;

	while (poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
		if ((n = read(e->perm, e->buf, BUF_SIZE)) <= 0)
			return;
		serve(e, (size_t)n, err);
	}
}

void
ab_maskd_warm_collect(struct ab_maskd *e, struct ab_maskd_warm *w)
{
	e->warm = w;
}

/* The root of the session whose pid 1 PIDFD is, O_PATH (no permission event), or -1. */
static int
session_root(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	char proc[64];
	pid_t pid;
	int root;

	if (ab_pidfd_pid(pidfd, &pid) != 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/%d/root", (int)pid);
	if ((root = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	/* Opened after the pid was read: pid 1 still running says the pid was not reused. */
	if (poll(&p, 1, 0) != 0) {
		(void)close(root);
		return -1;
	}
	return root;
}

int
ab_maskd_warm_seed(struct ab_maskd *e, int pidfd, const char *list, size_t len)
{
	if (len == 0 || e->track_err != 0 || e->seed_root >= 0)
		return -EINVAL;
	if ((e->seed_root = session_root(pidfd)) == -1)
		return -ESRCH;
	e->seed = list;
	e->seed_len = len;
	e->seed_off = 0;
	return 0;
}

/* The seeding stops (done, or the session's end): its root, a path into the box, goes. */
static void
seed_stop(struct ab_maskd *e)
{
	if (e->seed_root >= 0)
		(void)close(e->seed_root);
	e->seed_root = -1;
}

/*
 * One path of the warm set, seeded by the run loop when no open waits: S first as an
 * open now would see it (what the tracking group queued since), then judge's decision
 * for an open of this inode at this path.  A drain that fails has consumed what it read
 * (an overflow event, say): kept as the loop keeps one, so the next answer fails closed,
 * and the seeding stops.  0 once nothing is left to seed.
 */
static int
seed_step(struct ab_maskd *e)
{
	struct ab_maskd_query q;
	struct ab_maskd_key k;
	struct stat st;
	int fd;

	if (e->seed_root < 0)
		return 0;
	if (e->track_err == 0)
		e->track_err = drain(e);
	while (e->track_err == 0 && ab_maskd_warm_next(e->seed, e->seed_len, &e->seed_off,
	    e->path, sizeof(e->path))) {
		if (ab_maskd_in_tree(e->d, e->path) ||
		    (fd = ab_maskd_warm_open(e->seed_root, e->path, &st)) < 0)
			continue;	/* not one to seed: the next, in this step */
		q = (struct ab_maskd_query){ .path = e->path };
		if (ab_maskd_key_of_fd(fd, &k) == 0 && !in_history(e, &k, e->path) &&
		    ab_maskd_decide(e->d, &q) == 0 && ab_maskd_group_cache_fd(e->perm, fd) == 0) {
			e->st.warm++;
			/* Its opens are not asked now: noted here, or the next session's set
			 * would hold only what this one was asked about. */
			note_warm(e);
		}
		(void)close(fd);
		e->path[0] = '\0';
		return 1;
	}
	seed_stop(e);
	e->path[0] = '\0';
	return 0;
}

void
ab_maskd_deny_until_gone(int perm, int pid1)
{
	struct pollfd p[2] = { { .fd = perm, .events = POLLIN }, { .fd = pid1, .events = POLLIN } };
	struct fanotify_event_metadata md;
	unsigned char buf[4096];	/* permission events carry no names: 24 bytes each */
	size_t off;
	ssize_t n;

	for (;;) {
		if (poll(p, 2, -1) == -1 && errno != EINTR)
			continue;	/* nothing better to do than keep denying */
		off = 0;
		if (p[0].revents != 0 && (n = read(perm, buf, sizeof(buf))) > 0)
			while (perm_event_next(buf, (size_t)n, &off, &md) == 1)
				if (md.fd >= 0) {
					(void)answer(perm, md.fd, AB_MASKD_RULE_UNKNOWN);
					(void)close(md.fd);
				}
		if (p[1].revents != 0)
			return;
	}
}

/* The first watched fd that is readable or hung up, or -1. */
static int
watched(const struct pollfd *p, size_t n)
{
	size_t i;

	for (i = 3; i < n; i++)
		if (p[i].revents != 0)
			return p[i].fd;
	return -1;
}

/* Serving stops: the record's repeats written, the seeding let go. */
static void
wind_down(struct ab_maskd *e)
{
	if (e->rec != NULL)
		ab_maskrec_flush(e->rec);
	seed_stop(e);
}

/* One read of the permission group, its events answered (serve). */
static void
take_queued(struct ab_maskd *e, int *err)
{
	ssize_t n;

	if ((n = read(e->perm, e->buf, BUF_SIZE)) == -1) {
		if (errno != EINTR && errno != EAGAIN)
			*err = -errno;
	} else if (n == 0) {
		*err = -EIO;
	} else {
		serve(e, (size_t)n, err);
	}
}

int
ab_maskd_serve_until(struct ab_maskd *e, const int *fds, size_t n, int timeout_ms)
{
	struct pollfd p[1 + AB_MASKD_WATCH_MAX];
	uint64_t end = now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0), now;
	size_t i, np = 1, waiting = 0;
	int err = 0;

	p[0] = (struct pollfd){ .fd = e->perm, .events = POLLIN };
	for (i = 0; i < n && np < 1 + AB_MASKD_WATCH_MAX; i++) {
		p[np++] = (struct pollfd){ .fd = fds[i], .events = POLLIN };	/* -1: ignored */
		waiting += fds[i] >= 0;
	}
	while (err == 0 && waiting != 0 && (now = now_ms()) < end) {
		if (poll(p, np, (int)(end - now)) == -1) {
			if (errno != EINTR)
				err = -errno;
			continue;
		}
		if (p[0].revents != 0)
			take_queued(e, &err);
		for (i = 1; i < np; i++) {
			if (p[i].fd >= 0 && p[i].revents != 0) {
				p[i].fd = -1;	/* said: no longer polled */
				waiting--;
			}
		}
	}
	deny_queued(e, &err);
	wind_down(e);
	return err;
}

int
ab_maskd_run(struct ab_maskd *e)
{
	struct pollfd p[3 + AB_MASKD_WATCH_MAX];
	size_t i, np = 3 + e->nwatch;
	int err = 0, w;

	p[0] = (struct pollfd){ .fd = e->perm, .events = POLLIN };
	/* The tracking group is drained as it fills too, not only before an answer: a
	 * session that opens nothing for hours must not leave the host's creates queued. */
	p[1] = (struct pollfd){ .fd = e->track_err == 0 ? e->track : -1, .events = POLLIN };
	/* A learning session's notifications: read between answers, never before one. */
	p[2] = (struct pollfd){ .fd = e->learn != NULL ? ab_learn_fd(e->learn) : -1,
	    .events = POLLIN };
	for (i = 0; i < e->nwatch; i++)
		p[3 + i] = (struct pollfd){ .fd = e->watch[i], .events = POLLIN };
	while (err == 0) {
		/* A window of repeated denials ends: its count is written then, not only
		 * when the next denial of the same path comes. */
		if (e->rec != NULL)
			ab_maskrec_tick(e->rec, now_ms());
		/* While a warm set is being seeded, poll only looks: a queued open first. */
		if (poll(p, np, e->seed_root >= 0 ? 0 : e->rec != NULL ?
		    ab_maskrec_timeout(e->rec, now_ms()) : -1) == -1) {
			if (errno != EINTR)
				err = -errno;
			continue;
		}
		/* Answer what is queued first: a watched fd (the session's end, the
		 * supervisor's) is no reason to leave an open waiting. */
		if (p[0].revents != 0)
			take_queued(e, &err);
		/* A failure here is kept for the next answer, which then fails closed: the
		 * open that meets it is denied and on the record (fan_info 10001). */
		if (p[1].revents != 0 && e->track_err == 0 &&
		    (e->track_err = drain(e)) != 0)
			p[1].fd = -1;	/* no longer read: polling it would spin */
		/* A recorder that stopped wrote its lost record; the masks go on. */
		if (p[2].revents != 0 && (ab_learn_drain(e->learn) != 0 ||
		    ab_learn_fd(e->learn) == -1))
			p[2].fd = -1;
		/* No open waits: the next path of the warm set.  Its drain failing is kept
		 * as the loop's own is, and the tracking group no longer polled. */
		if (err == 0 && p[0].revents == 0 && seed_step(e) == 0 && e->track_err != 0)
			p[1].fd = -1;
		if (err == 0 && (w = watched(p, np)) >= 0) {
			wind_down(e);
			return w;
		}
	}
	deny_queued(e, &err);
	wind_down(e);
	return err;
}
