/*
 * Completeness: can the reader trust that "no denial" means none happened?
 *
 * Serials.  The kernel numbers every event it emits with a serial that is global to the
 * host and counts up from boot (kernel/audit.c audit_serial()); every record of the event
 * carries it, whatever the event is about.  So in a log that holds everything auditd
 * received, the serials of one boot form a contiguous run, and a hole inside the range
 * read means events that reached no file: dropped by the kernel's rate limit, by auditd
 * (queue overflow, disk errors), or deleted.  Holes before the first or after the last
 * serial read are not counted (rotation and "not yet"): those are reported as the range.
 * Not gaps: auditd's own DAEMON_* records (auditd numbers them itself), and events the
 * kernel never emits (dropped at the backlog limit before a serial is given; those are in
 * the kernel's lost counter, ab_kernel_status()).
 * Boots: serials restart.  The kernel takes an event's time and serial together
 * (audit_get_stamp), so within one boot a lower serial never carries a later time: a
 * serial below the highest seen whose time is later than that serial's (by more than a
 * second, for clock slew) starts a new segment, and so does one far below the highest
 * (more than AB_REORDER: far beyond any interleaving of CPUs).  Each node (node= prefix,
 * audisp-remote) has its own serials.
 * Memory: a sorted list of runs per segment; when it grows past AB_RUNS_MAX the oldest
 * half is folded into a count, so a log full of holes cannot exhaust memory.
 * Node names are kept whole (a prefix or a hash would let two hosts share one run of
 * serials, and one host's events fill the other's holes), within AB_NODE_BYTES in all.
 * A serial that cannot be tracked (table full, out of memory) is an error for the caller
 * to report: its node's gaps are then unknown, never "none".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libaudit.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "review.h"

#define AB_REORDER	100000
#define AB_RUNS_MAX	8192
#define AB_MAX_NODES	1024
#define AB_MAX_SEGS	4096
#define AB_NODE_BYTES	(1024 * 1024)	/* all node names together */

struct run {
	uint64_t lo, hi;
};

struct segment {
	struct run	*run;
	size_t		 n, cap;
	uint64_t	 folded_missing;	/* holes among runs already folded */
	uint64_t	 folded_hi;		/* highest serial folded (0: none) */
	uint64_t	 seen;			/* distinct serials */
	uint64_t	 max_sec;		/* time of the highest serial */
	uint64_t	 first;			/* lowest serial seen (0: none yet) */
	struct ab_gap	 biggest_folded;
};

struct node {
	char		*name;		/* whole, as in the log (may hold any byte) */
	size_t		 namelen;
	struct segment	*seg;
	size_t		 nseg;
};

struct ab_complete {
	struct node	*node;
	size_t		 nnode;
	size_t		 namebytes;	/* sum of namelen: bounded by AB_NODE_BYTES */
	size_t		 last;		/* node of the previous call: the usual case */
};

int
ab_complete_new(struct ab_complete **out)
{
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return -ENOMEM;
	return 0;
}

void
ab_complete_free(struct ab_complete *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nnode; i++) {
		for (size_t j = 0; j < c->node[i].nseg; j++)
			free(c->node[i].seg[j].run);
		free(c->node[i].seg);
		free(c->node[i].name);
	}
	free(c->node);
	free(c);
}

static int
node_is(const struct node *n, struct ab_str name)
{
	return n->namelen == name.n && (name.n == 0 || memcmp(n->name, name.p, name.n) == 0);
}

/* The node named NAME, added if new.  -ENOSPC: more than AB_MAX_NODES nodes, or names
 * beyond AB_NODE_BYTES; -ENOMEM. */
static int
node_get(struct ab_complete *c, struct ab_str name, struct node **out)
{
	struct node *n;
	char *copy;

	if (c->last < c->nnode && node_is(&c->node[c->last], name)) {
		*out = &c->node[c->last];
		return 0;
	}
	for (size_t i = 0; i < c->nnode; i++)
		if (node_is(&c->node[i], name)) {
			c->last = i;
			*out = &c->node[i];
			return 0;
		}
	if (c->nnode == AB_MAX_NODES || name.n > AB_NODE_BYTES - c->namebytes)
		return -ENOSPC;
	if ((copy = malloc(name.n + 1)) == NULL)
		return -ENOMEM;
	if ((n = realloc(c->node, (c->nnode + 1) * sizeof(*n))) == NULL) {
		free(copy);
		return -ENOMEM;
	}
	c->node = n;
	n = &c->node[c->nnode];
	memset(n, 0, sizeof(*n));
	if (name.n > 0)
		memcpy(copy, name.p, name.n);
	copy[name.n] = '\0';
	n->name = copy;
	n->namelen = name.n;
	c->namebytes += name.n;
	c->last = c->nnode++;
	*out = n;
	return 0;
}

/* A new boot on node N.  -ENOSPC past AB_MAX_SEGS: folding it into the last segment
 * would let its serials fill the previous boot's holes. */
static int
segment_new(struct node *n, struct segment **out)
{
	struct segment *s;

	if (n->nseg == AB_MAX_SEGS)
		return -ENOSPC;
	if ((s = realloc(n->seg, (n->nseg + 1) * sizeof(*s))) == NULL)
		return -ENOMEM;
	n->seg = s;
	s = &n->seg[n->nseg++];
	memset(s, 0, sizeof(*s));
	*out = s;
	return 0;
}

/* Fold the oldest half of the runs, and the holes between them, into counts.  A serial
 * that turns up later inside the folded part is ignored (it was counted missing). */
static void
fold(struct segment *s)
{
	size_t half = s->n / 2;

	for (size_t i = 0; i < half; i++) {
		uint64_t lo = s->run[i].hi + 1, hi = s->run[i + 1].lo - 1;

		s->folded_missing += hi - lo + 1;
		if (s->biggest_folded.hi == 0 ||
		    hi - lo > s->biggest_folded.hi - s->biggest_folded.lo) {
			s->biggest_folded.lo = lo;
			s->biggest_folded.hi = hi;
		}
	}
	s->folded_hi = s->run[half].lo - 1;
	memmove(s->run, s->run + half, (s->n - half) * sizeof(*s->run));
	s->n -= half;
}

static int
insert(struct segment *s, uint64_t v)
{
	size_t lo = 0, hi = s->n, i;

	if (s->n > 0) {
		struct run *last = &s->run[s->n - 1];

		if (v == last->hi + 1) {		/* the usual case: next serial */
			last->hi = v;
			s->seen++;
			return 0;
		}
		if (v >= last->lo && v <= last->hi)
			return 0;
	}
	if (s->folded_hi != 0 && v <= s->folded_hi)
		return 0;	/* inside the folded past: already accounted */
	while (lo < hi) {			/* first run with lo > v */
		size_t mid = (lo + hi) / 2;

		if (s->run[mid].lo > v)
			hi = mid;
		else
			lo = mid + 1;
	}
	i = lo;
	if (i > 0 && v <= s->run[i - 1].hi)
		return 0;			/* duplicate (a late record's own event) */
	s->seen++;
	if (i > 0 && s->run[i - 1].hi + 1 == v) {
		s->run[i - 1].hi = v;
		if (i < s->n && s->run[i].lo == v + 1) {
			s->run[i - 1].hi = s->run[i].hi;
			memmove(s->run + i, s->run + i + 1, (s->n - i - 1) * sizeof(*s->run));
			s->n--;
		}
		return 0;
	}
	if (i < s->n && s->run[i].lo == v + 1) {
		s->run[i].lo = v;
		return 0;
	}
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		struct run *r = realloc(s->run, nc * sizeof(*r));

		if (r == NULL)
			return -ENOMEM;
		s->run = r;
		s->cap = nc;
	}
	memmove(s->run + i + 1, s->run + i, (s->n - i) * sizeof(*s->run));
	s->run[i].lo = s->run[i].hi = v;
	s->n++;
	if (s->n > AB_RUNS_MAX)
		fold(s);
	return 0;
}

int
ab_complete_serial(struct ab_complete *c, struct ab_str name, uint64_t serial, uint64_t sec)
{
	struct node *n;
	struct segment *s;
	int r;

	if ((r = node_get(c, name, &n)) != 0)
		return r;
	s = n->nseg > 0 ? &n->seg[n->nseg - 1] : NULL;
	if (s == NULL || (s->n > 0 && serial < s->run[s->n - 1].hi &&
	    (sec > s->max_sec + 1 || serial + AB_REORDER < s->run[s->n - 1].hi)))
		if ((r = segment_new(n, &s)) != 0)
			return r;
	if (s->n == 0 || serial > s->run[s->n - 1].hi)
		s->max_sec = sec;
	if (s->first == 0 || serial < s->first)
		s->first = serial;
	return insert(s, serial);
}

/* Holes of segment S inside LO..HI, or -ERANGE when LO..HI reaches the folded past. */
static int
segment_missing_in(const struct segment *s, uint64_t lo, uint64_t hi, uint64_t *missing)
{
	*missing = 0;
	if (s->folded_missing > 0 && lo <= s->folded_hi)
		return -ERANGE;
	for (size_t r = 0; r + 1 < s->n; r++) {
		uint64_t a = s->run[r].hi + 1, b = s->run[r + 1].lo - 1;

		if (a < lo)
			a = lo;
		if (b > hi)
			b = hi;
		if (a <= b)
			*missing += b - a + 1;
	}
	return 0;
}

int
ab_complete_missing_in(const struct ab_complete *c, struct ab_str name, uint64_t lo,
    uint64_t hi, uint64_t *missing)
{
	const struct segment *found = NULL;

	*missing = 0;
	for (size_t i = 0; i < c->nnode; i++) {
		const struct node *n = &c->node[i];

		if (!node_is(n, name))
			continue;
		for (size_t j = 0; j < n->nseg; j++) {
			const struct segment *s = &n->seg[j];

			if (s->n == 0 || lo < s->first || lo > s->run[s->n - 1].hi)
				continue;
			if (found != NULL)
				return -ERANGE;	/* two boots' serials cover LO */
			found = s;
		}
	}
	return found == NULL ? -ENOENT : segment_missing_in(found, lo, hi, missing);
}

uint64_t
ab_complete_gaps(const struct ab_complete *c, struct ab_gap *ex, size_t max, size_t *nex,
    size_t *nsegments, uint64_t *serials_seen)
{
	uint64_t total = 0;
	size_t k = 0;

	*nsegments = 0;
	*serials_seen = 0;
	for (size_t i = 0; i < c->nnode; i++) {
		const struct node *n = &c->node[i];

		for (size_t j = 0; j < n->nseg; j++) {
			const struct segment *s = &n->seg[j];

			(*nsegments)++;
			*serials_seen += s->seen;
			total += s->folded_missing;
			if (s->folded_missing > 0 && k < max) {
				ex[k] = s->biggest_folded;
				ex[k].node.p = n->name;
				ex[k].node.n = n->namelen;
				k++;
			}
			for (size_t r = 0; r + 1 < s->n; r++) {
				uint64_t lo = s->run[r].hi + 1, hi = s->run[r + 1].lo - 1;

				total += hi - lo + 1;
				if (k < max) {
					ex[k].node.p = n->name;
					ex[k].node.n = n->namelen;
					ex[k].lo = lo;
					ex[k].hi = hi;
					k++;
				}
			}
		}
	}
	*nex = k;
	return total;
}

int
ab_kernel_status(uint64_t *lost, uint64_t *backlog_limit)
{
	struct audit_reply rep;
	int fd, r, tries;

	if ((fd = audit_open()) < 0)
		return -errno ? -errno : -EIO;
	if (audit_request_status(fd) <= 0) {
		r = -errno ? -errno : -EIO;
		audit_close(fd);
		return r;
	}
	for (tries = 0; tries < 16; tries++) {
		r = audit_get_reply(fd, &rep, GET_REPLY_BLOCKING, 0);
		if (r <= 0)
			break;
		if (rep.type == AUDIT_GET && rep.status != NULL) {
			*lost = rep.status->lost;
			*backlog_limit = rep.status->backlog_limit;
			audit_close(fd);
			return 0;
		}
		if (rep.type == NLMSG_ERROR && rep.error != NULL && rep.error->error != 0) {
			audit_close(fd);
			return rep.error->error;
		}
	}
	audit_close(fd);
	return -EIO;
}
