/*
 * The streaming fast path: audit records -> events, one pass, bounded memory.
 *
 * Why not libauparse alone: it is the reference (auparse.c, cross-checked in
 * tests/unit/audit_engines.t) but it tokenises every field of every record and keeps
 * its own copies; bench/review measures the difference.  This path parses only the
 * header of each line and copies it into its event; fields are looked at only for events
 * that hold something agentbox-audit reports.
 *
 * Grouping rules (the kernel's: every record of one event shares node and serial):
 *  - records are grouped by (node, serial) in a set-associative table of open events
 *    (AB_WAYS events per set).  It was direct-mapped: two open events AB_SLOTS serials
 *    apart shared a slot, the first was closed for the second, and its late half came
 *    back as an event of its own that nothing counted (a denial storm showed one Landlock
 *    denial listed without its session plus a dac one, with the report none the wiser);
 *  - an event closes when EOE arrives (kernel versions and auditd configurations that
 *    write it), when it is a user-space or auditd record (always one record), when
 *    AB_WINDOW lines have passed since its first record, at flush, or, when every way of
 *    its set holds an open event, the oldest of them is closed for room and counted
 *    ("evicted": the report says its later records may be listed on their own).  Records of one event are not always written together: a
 *    Landlock or seccomp record is queued during the syscall, its SYSCALL/CWD/PATH at
 *    exit, and when the kernel's backlog is full the exit records wait for room while
 *    other tasks' records go ahead.  Denial storms (tests/e2e/audit_storm.t, two
 *    flooders, backlog 8192) put up to 7,694 lines between the two halves of one denial
 *    (15 in 180,000 denials beyond 2,048 lines, the window this had, each then listed
 *    as a Landlock denial without its session plus a dac one); the window is twice that,
 *    and the table (AB_SLOTS open events) bounds it in any case.  A Landlock event the
 *    window closes before its SYSCALL is counted ("cut"): its later half may find its
 *    slot serving another event by then, where late-detection cannot see it (one in a
 *    million-denial storm at 5,800/s);
 *  - a record whose event has already closed is "late": it is counted, and becomes an
 *    event of its own so whatever it says is still reported.
 * Memory: AB_SLOTS events of at most AB_EVENT_MAXREC records of at most AB_LINE_MAX bytes,
 * in practice a few hundred KiB.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "review.h"

#ifndef AB_SLOTS	/* the fuzzer builds with a small table: more slot reuse, faster runs */
#define AB_SLOTS	16384	/* power of two; every event takes at least one line, so */
#define AB_WINDOW	16384	/* AB_WINDOW open events fit unless a set overflows */
#endif
#define AB_WAYS		4	/* open events per set */
#define AB_SETS		(AB_SLOTS / AB_WAYS)

struct ev {
	int		 open;
	uint64_t	 serial;
	uint64_t	 nodehash;
	uint64_t	 first_line;	/* line number of its first record */
	uint64_t	 sec;		/* to tell a closed serial of an older boot from a late record */
	size_t		 nrec;
	size_t		*off;		/* record i is buf[off[i] .. off[i] + lens[i]) */
	size_t		*lens;
	size_t		 recap;
	char		*buf;
	size_t		 len, cap;
	int		 closed_valid;	/* the slot's last event closed: late-record detection */
	int		 keep;		/* holds something to report: keep every record */
	unsigned	 types;		/* 1 << AB_T_* of every record it had */
};

struct ab_group {
	ab_event_fn	 fn;
	void		*arg;
	struct ev	 slot[AB_SLOTS];
	/* Open events in order of their first record, so the window can close the oldest. */
	uint32_t	 fifo[AB_SLOTS];
	uint64_t	 fifo_serial[AB_SLOTS];
	size_t		 fifo_head, fifo_n;
	struct ab_rec	 recs[AB_EVENT_MAXREC];
	struct ab_group_stats st;
	ab_trouble_fn	 trouble;	/* told the serial of each event not grouped whole */
	void		*trouble_arg;
};

static uint64_t
hash_node(struct ab_str node)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (size_t i = 0; i < node.n; i++)
		h = (h ^ (unsigned char)node.p[i]) * 1099511628211ULL;
	return h;
}

int
ab_group_new(ab_event_fn fn, void *arg, struct ab_group **out)
{
	struct ab_group *g;

	if ((g = calloc(1, sizeof(*g))) == NULL)
		return -ENOMEM;
	g->fn = fn;
	g->arg = arg;
	*out = g;
	return 0;
}

void
ab_group_on_trouble(struct ab_group *g, ab_trouble_fn fn, void *arg)
{
	g->trouble = fn;
	g->trouble_arg = arg;
}

/* An event the window or the table could not keep whole: where it lies, for the spans. */
static void
trouble(struct ab_group *g, uint64_t serial)
{
	if (g->trouble != NULL)
		g->trouble(g->trouble_arg, serial);
}

static void
close_event(struct ab_group *g, struct ev *e)
{
	size_t i, n = 0;

	for (i = 0; i < e->nrec; i++)
		if (ab_rec_parse(e->buf + e->off[i], e->lens[i], &g->recs[n]) == 0)
			n++;
	e->open = 0;
	e->closed_valid = 1;
	e->nrec = 0;
	e->len = 0;
	g->st.events++;
	if (n > 0)
		g->fn(g->arg, g->recs, n);
}

/*
 * Does an event that starts with R hold something agentbox-audit reports?  The kernel
 * writes the record that makes an event interesting first: a Landlock or seccomp record
 * is logged during the syscall, its SYSCALL/CWD/PATH/PROCTITLE at syscall exit; a DAC
 * denial starts with its failed SYSCALL.  Other events keep only their first record (for
 * serial accounting): this is what makes host noise cheap.  Should a reportable record
 * still come later, the event keeps records from then on.
 */
static int
reportable(const struct ab_rec *r)
{
	switch (r->t) {
	case AB_T_LL_ACCESS:
	case AB_T_LL_DOMAIN:
	case AB_T_SECCOMP:
	case AB_T_TRUSTED_APP:
	case AB_T_LOGIN:
		return 1;
	case AB_T_SYSCALL: {
		const char *m = memmem(r->body.p, r->body.n, "success=no ", 11);

		return m != NULL && (m == r->body.p || m[-1] == ' ');
	}
	default:
		return 0;
	}
}

static int
append(struct ab_group *g, struct ev *e, const char *line, size_t len)
{
	if (e->nrec == AB_EVENT_MAXREC) {
		g->st.dropped++;
		return 0;
	}
	if (e->nrec == e->recap) {
		size_t nc = e->recap ? e->recap * 2 : 8;
		size_t *o = realloc(e->off, nc * sizeof(*o)), *l;

		if (o == NULL)
			return -ENOMEM;
		e->off = o;
		if ((l = realloc(e->lens, nc * sizeof(*l))) == NULL)
			return -ENOMEM;
		e->lens = l;
		e->recap = nc;
	}
	if (e->len + len > e->cap) {
		size_t nc = e->cap ? e->cap : 1024;
		char *b;

		while (nc < e->len + len)
			nc *= 2;
		if ((b = realloc(e->buf, nc)) == NULL)
			return -ENOMEM;
		e->buf = b;
		e->cap = nc;
	}
	memcpy(e->buf + e->len, line, len);
	e->off[e->nrec] = e->len;
	e->lens[e->nrec] = len;
	e->nrec++;
	e->len += len;
	return 0;
}

/*
 * A Landlock denial's record comes during the syscall, its SYSCALL at exit (then EOE):
 * an event the window closes with the one and without the other lost its later half
 * to the window, not to the kernel.  When that half comes, its slot may serve another
 * event by then and late-detection cannot see it: count the cut here, so the report
 * accounts for the dac denial it will be listed as (audit_storm.t).
 */
static void
window_close(struct ab_group *g, struct ev *e)
{
	if ((e->types & (1u << AB_T_LL_ACCESS)) && !(e->types & (1u << AB_T_SYSCALL))) {
		g->st.cut++;
		trouble(g, e->serial);
	}
	close_event(g, e);
}

_Static_assert(AB_T_NTYPES <= 32, "ev.types holds one bit per record type");

/* Close events whose window has passed, oldest first. */
static void
expire(struct ab_group *g)
{
	while (g->fifo_n > 0) {
		struct ev *e = &g->slot[g->fifo[g->fifo_head]];

		/* Stale entry: that slot's event closed early (EOE, slot reuse). */
		if (!e->open || e->serial != g->fifo_serial[g->fifo_head]) {
			g->fifo_head = (g->fifo_head + 1) % AB_SLOTS;
			g->fifo_n--;
			continue;
		}
		if (g->st.lines - e->first_line < AB_WINDOW && g->fifo_n < AB_SLOTS)
			break;
		window_close(g, e);
		g->fifo_head = (g->fifo_head + 1) % AB_SLOTS;
		g->fifo_n--;
	}
}

/*
 * The slot for record R (node hash NH) in its set: the open event with its key; else the
 * way that last closed it (so a late record is known as late); else a way with no open
 * event; else, every way being open, the way whose event started first, which the caller
 * closes for room.  SIZE_MAX: R is older than every open event of the full set (a serial
 * below theirs, within seconds): the later half of an event closed for room, which must
 * not close another in turn (each would split the next); the caller reports it alone.
 */
static size_t
find_slot(const struct ab_group *g, const struct ab_rec *r, uint64_t nh)
{
	size_t base = ((r->serial ^ (nh & 0xffff0000)) & (AB_SETS - 1)) * AB_WAYS;
	size_t i, closed = SIZE_MAX, free_way = SIZE_MAX, oldest = base;
	const struct ev *o;

	for (i = base; i < base + AB_WAYS; i++) {
		const struct ev *e = &g->slot[i];
		int same = e->serial == r->serial && e->nodehash == nh;

		if (e->open && same)
			return i;
		if (!e->open && same && e->closed_valid && closed == SIZE_MAX)
			closed = i;
		if (!e->open && free_way == SIZE_MAX)
			free_way = i;
		if (e->open && g->slot[oldest].open && e->first_line < g->slot[oldest].first_line)
			oldest = i;
	}
	if (closed != SIZE_MAX)
		return closed;
	if (free_way != SIZE_MAX)
		return free_way;
	o = &g->slot[oldest];
	if (o->nodehash == nh && r->serial < o->serial && r->sec <= o->sec + 10)
		return SIZE_MAX;
	return oldest;
}

int
ab_group_line(struct ab_group *g, const char *line, size_t len)
{
	struct ab_rec r;
	struct ev *e;
	uint64_t nh;
	size_t idx;
	int rc;

	g->st.lines++;
	if ((rc = ab_rec_parse(line, len, &r)) != 0)
		return rc;
	g->st.records++;
	/* auditd numbers its own DAEMON_* records from its own counter: never group them
	 * with the kernel event that happens to share the serial. */
	if (r.t == AB_T_DAEMON) {
		g->st.events++;
		g->fn(g->arg, &r, 1);
		return 0;
	}
	nh = hash_node(r.node);
	if ((idx = find_slot(g, &r, nh)) == SIZE_MAX) {
		g->st.late++;
		trouble(g, r.serial);
		g->st.events++;
		g->fn(g->arg, &r, 1);
		return 0;
	}
	e = &g->slot[idx];
	if (e->open && (e->serial != r.serial || e->nodehash != nh)) {
		trouble(g, e->serial);
		close_event(g, e);	/* every way of the set open: the oldest goes */
		g->st.evicted++;
	}
	if (!e->open) {
		/* A serial we closed moments ago: this record is late, not a new event. */
		if (e->closed_valid && e->serial == r.serial && e->nodehash == nh &&
		    r.sec <= e->sec + 10) {
			g->st.late++;
			trouble(g, r.serial);
		}
		e->open = 1;
		e->closed_valid = 0;
		e->serial = r.serial;
		e->nodehash = nh;
		e->sec = r.sec;
		e->first_line = g->st.lines;
		e->nrec = 0;
		e->len = 0;
		e->keep = reportable(&r);
		e->types = 0;
		if (g->fifo_n == AB_SLOTS)
			expire(g);
		g->fifo[(g->fifo_head + g->fifo_n) % AB_SLOTS] = (uint32_t)idx;
		g->fifo_serial[(g->fifo_head + g->fifo_n) % AB_SLOTS] = r.serial;
		g->fifo_n++;
	}
	e->types |= 1u << r.t;
	if (!e->keep && e->nrec > 0 && reportable(&r))
		e->keep = 1;
	if (r.t != AB_T_EOE && (e->keep || e->nrec == 0) && (rc = append(g, e, line, len)) != 0)
		return rc;
	/* One-record events close now; EOE ends a kernel event. */
	if (r.t == AB_T_EOE || r.t == AB_T_USER || r.t == AB_T_DAEMON || r.t == AB_T_TRUSTED_APP)
		close_event(g, e);
	expire(g);
	return 0;
}

void
ab_group_flush(struct ab_group *g)
{
	while (g->fifo_n > 0) {
		struct ev *e = &g->slot[g->fifo[g->fifo_head]];

		if (e->open && e->serial == g->fifo_serial[g->fifo_head])
			close_event(g, e);
		g->fifo_head = (g->fifo_head + 1) % AB_SLOTS;
		g->fifo_n--;
	}
}

const struct ab_group_stats *
ab_group_stats(const struct ab_group *g)
{
	return &g->st;
}

void
ab_group_free(struct ab_group *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < AB_SLOTS; i++) {
		free(g->slot[i].off);
		free(g->slot[i].lens);
		free(g->slot[i].buf);
	}
	free(g);
}
