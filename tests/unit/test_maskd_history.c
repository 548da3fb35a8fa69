/*
 * maskd/history.c: S as a set, and S fed from tracking-group events built here byte for
 * byte as the kernel lays them out (fanotify(7): metadata, then info records).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "maskd.h"
#include "tap.h"

static char *pat_v[] = { ".env", "secrets/" };
static const struct ab_strv patterns = { pat_v, 2 };
static char *proj_v[] = { "/srv/p" };
static const struct ab_strv projects = { proj_v, 1 };

static struct ab_maskd_key
key(int fsid, unsigned char b)
{
	struct ab_maskd_key k;

	memset(&k, 0, sizeof(k));
	k.fsid[0] = fsid;
	k.type = 1;
	k.len = 8;
	memset(k.h, b, k.len);
	return k;
}

/* Directory handles are one byte repeated: 1 is /srv/p, 2 is /srv/p/sub, 9 is gone. */
static int
fake_resolve(void *arg, const int32_t fsid[2], const struct ab_maskd_key *dir,
    const char *name, char *out, size_t outlen)
{
	(void)arg;
	(void)fsid;
	if (dir->h[0] == 9)
		return -ESTALE;
	snprintf(out, outlen, "%s/%s", dir->h[0] == 1 ? "/srv/p" : "/srv/p/sub", name);
	return 0;
}

struct evbuf {
	unsigned char	b[4096];
	size_t		len, start;
};

static void
put(struct evbuf *e, const void *p, size_t n)
{
	memcpy(e->b + e->len, p, n);
	e->len += n;
}

static int32_t ev_pid = 1;	/* the pid the next events report */

static void
ev_begin(struct evbuf *e, uint64_t mask)
{
	struct fanotify_event_metadata md = { .vers = FANOTIFY_METADATA_VERSION,
	    .metadata_len = sizeof(md), .mask = mask, .fd = FAN_NOFD, .pid = ev_pid };

	e->start = e->len;
	put(e, &md, sizeof(md));
}

static void
ev_end(struct evbuf *e)
{
	struct fanotify_event_metadata md;

	memcpy(&md, e->b + e->start, sizeof(md));
	md.event_len = (uint32_t)(e->len - e->start);
	memcpy(e->b + e->start, &md, sizeof(md));
}

/* One FID record (NAME NULL) or DFID_NAME-like record of TYPE for handle byte B. */
static void
ev_fid(struct evbuf *e, uint8_t type, unsigned char b, const char *name)
{
	struct ab_maskd_key k = key(7, b);
	struct fanotify_event_info_fid fid;
	struct file_handle fh = { .handle_bytes = k.len, .handle_type = k.type };
	size_t nlen = name ? strlen(name) + 1 : 0;

	memset(&fid, 0, sizeof(fid));
	fid.hdr.info_type = type;
	fid.hdr.len = (uint16_t)(sizeof(fid) + sizeof(fh) + k.len + nlen);
	memcpy(&fid.fsid, k.fsid, sizeof(k.fsid));
	put(e, &fid, sizeof(fid));
	put(e, &fh, sizeof(fh));
	put(e, k.h, k.len);
	if (name)
		put(e, name, nlen);
}

static void
create(struct evbuf *e, unsigned char dir, const char *name, unsigned char target, int ondir)
{
	ev_begin(e, FAN_CREATE | (ondir ? FAN_ONDIR : 0));
	ev_fid(e, FAN_EVENT_INFO_TYPE_DFID_NAME, dir, name);
	ev_fid(e, FAN_EVENT_INFO_TYPE_FID, target, NULL);
	ev_end(e);
}

/* Is the object with handle byte B (of the fake filesystem 7) in S? */
static int
in_s(const struct ab_maskd_history *h, unsigned char b)
{
	struct ab_maskd_key t = key(7, b);

	return ab_maskd_history_has(h, &t);
}

static int
feed(struct ab_maskd_history *h, const struct ab_maskd_decider *d, const struct evbuf *e)
{
	return ab_maskd_history_feed(h, d, e->b, e->len, fake_resolve, NULL, NULL);
}

static void
set_basics(void)
{
	struct ab_maskd_history *h;
	struct ab_maskd_key a = key(1, 0xaa), b = key(2, 0xaa), c = key(1, 0xab);
	size_t i;
	int r = 0;

	ok(ab_maskd_history_new(3, &h) == 0, "a set of 3");
	ok(ab_maskd_history_add(h, &a, 0) == 0 && ab_maskd_history_add(h, &a, 0) == 0 &&
	    ab_maskd_history_size(h) == 1, "adding twice keeps one");
	ok(ab_maskd_history_has(h, &a) && !ab_maskd_history_has(h, &b) &&
	    !ab_maskd_history_has(h, &c), "fsid and handle bytes both name the inode");
	c.type = 2;
	ok(ab_maskd_history_add(h, &b, 1) == 0 && ab_maskd_history_ndirs(h) == 1,
	    "a directory is counted (ancestor checks)");
	ok(ab_maskd_history_add(h, &c, 0) == 0 && ab_maskd_history_add(h, &(struct
	    ab_maskd_key){ .len = 1 }, 0) == -ENOSPC, "full: -ENOSPC (the enforcer fails closed)");
	ab_maskd_history_free(h);

	ok(ab_maskd_history_new(5000, &h) == 0, "a set of 5000");
	for (i = 0; i < 5000 && r == 0; i++) {
		a = key((int)i, (unsigned char)i);
		a.h[7] = (unsigned char)(i >> 8);
		r = ab_maskd_history_add(h, &a, 0);
	}
	ok(r == 0 && ab_maskd_history_size(h) == 5000, "it grows to its bound");
	a = key(4999, (unsigned char)4999);
	a.h[7] = (unsigned char)(4999 >> 8);
	ok(ab_maskd_history_has(h, &a), "and finds what it holds after growing");
	ab_maskd_history_free(h);
}

static void
keys_of_fds(void)
{
	char dir[] = "/tmp/maskd-hist.XXXXXX", p1[64], p2[64], p3[64];
	struct ab_maskd_key k1, k2, k3;
	int fd1, fd2, fd3;

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(p1, sizeof(p1), "%s/.env", dir);
	snprintf(p2, sizeof(p2), "%s/y", dir);
	snprintf(p3, sizeof(p3), "%s/z", dir);
	fd1 = open(p1, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ok(fd1 >= 0 && link(p1, p2) == 0, "a file and a hard link to it");
	fd2 = open(p2, O_PATH | O_CLOEXEC);
	fd3 = open(p3, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ok(ab_maskd_key_of_fd(fd1, &k1) == 0 && ab_maskd_key_of_fd(fd2, &k2) == 0 &&
	    ab_maskd_key_of_fd(fd3, &k3) == 0, "keys of an fd and an O_PATH fd");
	ok(memcmp(&k1, &k2, sizeof(k1)) == 0, "both names of one inode: one key (`ln .env y`)");
	ok(memcmp(&k1, &k3, sizeof(k1)) != 0, "another file: another key");
	close(fd1);
	close(fd2);
	close(fd3);
	unlink(p1);
	unlink(p2);
	unlink(p3);
	rmdir(dir);
}

static void
feeding(const struct ab_maskd_decider *d)
{
	struct ab_maskd_history *h;
	struct evbuf e = { .len = 0 };

	ok(ab_maskd_history_new(100, &h) == 0, "S for feeding");
	create(&e, 1, ".env", 0x10, 0);
	create(&e, 1, "notes.txt", 0x11, 0);
	create(&e, 2, ".ENV", 0x12, 0);
	create(&e, 1, "secrets", 0x13, 1);
	ok(feed(h, d, &e) == 0, "four creates fed");
	ok(in_s(h, 0x10), "a created .env joins S");
	ok(!in_s(h, 0x11), "notes.txt does not");
	ok(in_s(h, 0x12), ".ENV in a subdirectory does (case folded)");
	ok(in_s(h, 0x13) && ab_maskd_history_ndirs(h) == 1,
	    "a new secrets/ joins S as a directory");

	e.len = 0;
	ev_begin(&e, FAN_RENAME);	/* mv .env x (a .env we had not seen) */
	ev_fid(&e, FAN_EVENT_INFO_TYPE_OLD_DFID_NAME, 1, ".env");
	ev_fid(&e, FAN_EVENT_INFO_TYPE_NEW_DFID_NAME, 1, "x");
	ev_fid(&e, FAN_EVENT_INFO_TYPE_FID, 0x20, NULL);
	ev_end(&e);
	create(&e, 2, "k", 0x21, 0);		/* unremarkable */
	create(&e, 9, "gone", 0x22, 0);		/* its directory vanished: unresolvable */
	ok(feed(h, d, &e) == 0, "rename, create, unresolvable create fed");
	ok(in_s(h, 0x20), "renamed away from .env: the old name counts");
	ok(!in_s(h, 0x21), "k in sub/ does not");
	ok(in_s(h, 0x22), "an entry we cannot place joins S (deny is safe)");

	e.len = 0;
	ev_begin(&e, FAN_Q_OVERFLOW);
	ev_end(&e);
	ok(feed(h, d, &e) == -EOVERFLOW, "a queue overflow: -EOVERFLOW (fail closed)");
	e.len = 0;
	create(&e, 1, ".env", 0x30, 0);
	ok(ab_maskd_history_feed(h, d, e.b, e.len - 1, fake_resolve, NULL, NULL) == -EPROTO,
	    "a truncated event: -EPROTO");
	e.len = 0;		/* the name last, so that it can lose its NUL */
	ev_begin(&e, FAN_CREATE);
	ev_fid(&e, FAN_EVENT_INFO_TYPE_FID, 0x31, NULL);
	ev_fid(&e, FAN_EVENT_INFO_TYPE_DFID_NAME, 1, ".env");
	ev_end(&e);
	e.b[e.len - 1] = 'x';
	ok(feed(h, d, &e) == -EPROTO, "a name without its NUL: -EPROTO");
	e.len = 0;
	ev_begin(&e, FAN_CREATE);
	ev_fid(&e, FAN_EVENT_INFO_TYPE_DFID_NAME, 1, ".env");
	ev_end(&e);
	ok(feed(h, d, &e) == -EPROTO, "a name without the object it names: -EPROTO");
	ab_maskd_history_free(h);
}

/* Would the first open of the object with handle byte B by PID be its creating open? */
static int
fresh(struct ab_maskd_history *h, unsigned char b, pid_t pid)
{
	struct ab_maskd_key t = key(7, b);

	return ab_maskd_history_take_fresh(h, &t, pid);
}

/* The creating-open exception (issue 12: denied "at its next open"). */
static void
creating(const struct ab_maskd_decider *d)
{
	struct ab_maskd_history *h;
	struct evbuf e = { .len = 0 };

	ok(ab_maskd_history_new(100, &h) == 0, "S for creating opens");
	ev_pid = 42;
	create(&e, 1, "new.env.pem", 0x40, 0);	/* not masked here: only .env, secrets/ */
	create(&e, 1, ".env", 0x41, 0);
	create(&e, 2, ".env", 0x42, 0);
	create(&e, 1, "secrets", 0x43, 1);
	ev_begin(&e, FAN_CREATE | FAN_MOVED_TO);	/* merged with a move: not a plain create */
	ev_fid(&e, FAN_EVENT_INFO_TYPE_DFID_NAME, 1, ".env");
	ev_fid(&e, FAN_EVENT_INFO_TYPE_FID, 0x44, NULL);
	ev_end(&e);
	ev_begin(&e, FAN_RENAME);		/* renamed to .env: an old inode */
	ev_fid(&e, FAN_EVENT_INFO_TYPE_OLD_DFID_NAME, 1, "x");
	ev_fid(&e, FAN_EVENT_INFO_TYPE_NEW_DFID_NAME, 1, ".env");
	ev_fid(&e, FAN_EVENT_INFO_TYPE_FID, 0x45, NULL);
	ev_end(&e);
	ok(feed(h, d, &e) == 0, "creates, a merged event and a rename fed");
	ok(!fresh(h, 0x40, 42), "an unmasked create: nothing to except");
	ok(fresh(h, 0x41, 42), "a new .env: its creator's first open is the creating open");
	ok(!fresh(h, 0x41, 42), "...once: the creator's next open is judged (denied)");
	ok(in_s(h, 0x41), "...and the inode stays in S");
	ok(!fresh(h, 0x42, 43), "another pid's first open of a new .env: not excepted");
	ok(!fresh(h, 0x42, 42), "...and that open used the exception up for the creator too");
	ok(!fresh(h, 0x43, 42), "a new secrets/ directory: never excepted");
	ok(!fresh(h, 0x44, 42), "a create merged with a move: not excepted");
	ok(!fresh(h, 0x45, 42), "a rename to .env: not excepted");
	ok(!fresh(h, 0x41, 0) && !fresh(h, 0x46, 42), "pid 0, or an inode not in S: no");

	e.len = 0;
	ev_pid = 0;				/* a creator the reader cannot see */
	create(&e, 1, ".env", 0x47, 0);
	ev_pid = 42;
	create(&e, 1, ".env", 0x45, 0);	/* a link to an inode already in S */
	ok(feed(h, d, &e) == 0, "a create with pid 0 and a link to a known inode fed");
	ok(in_s(h, 0x47) && !fresh(h, 0x47, 0) && !fresh(h, 0x47, 42),
	    "a create by pid 0: in S, never excepted");
	ok(!fresh(h, 0x45, 42), "a new name for an inode already in S: not excepted");
	ev_pid = 1;
	ab_maskd_history_free(h);
}

int
main(void)
{
	struct ab_maskd_decider *d;

	set_basics();
	keys_of_fds();
	ok(ab_maskd_decider_new(&patterns, NULL, &projects, &d) == 0, "decider");
	feeding(d);
	creating(d);
	ab_maskd_decider_free(d);
	return done_testing();
}
