/*
 * The libauparse engine: events assembled by libauparse (the audit project's own
 * reference), then handed to the same analysis as the fast path.  Used with
 * --engine=auparse, by the cross-check test (same events from both engines on every
 * fixture) and by bench/review (which measures why the fast path exists).
 *
 * libauparse 3.0.9 ends an event early at record types it takes for standalone ones:
 * LOGIN, and LANDLOCK_ACCESS/LANDLOCK_DOMAIN by name (it predates them), although the
 * kernel emits those inside the syscall's event, with its serial.  So consecutive events
 * with the same node and serial are joined here before the analysis sees them.  EOE
 * records carry nothing and are dropped, as the fast path does.
 */
#define _GNU_SOURCE
#include <auparse.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "review.h"

struct ab_aup {
	auparse_state_t	*au;
	ab_event_fn	 fn;
	void		*arg;
	struct ab_rec	 recs[AB_EVENT_MAXREC];
	char		*texts[AB_EVENT_MAXREC];
	size_t		 n;		/* records of the pending event */
	struct ab_group_stats st;
};

static int
same_event(const struct ab_rec *a, const struct ab_rec *b)
{
	return a->serial == b->serial && a->node.n == b->node.n &&
	    memcmp(a->node.p, b->node.p, a->node.n) == 0;
}

static void
emit_pending(struct ab_aup *a)
{
	if (a->n == 0)
		return;
	a->st.events++;
	a->fn(a->arg, a->recs, a->n);
	a->n = 0;
}

static void
on_event(auparse_state_t *au, auparse_cb_event_t type, void *data)
{
	struct ab_aup *a = data;
	int first = 1;

	if (type != AUPARSE_CB_EVENT_READY || auparse_first_record(au) <= 0)
		return;
	do {
		const char *t = auparse_get_record_text(au);
		struct ab_rec r;
		char *copy;

		a->st.records++;
		if (t == NULL || (copy = strdup(t)) == NULL)
			continue;
		/* Copied: libauparse reuses its buffers once we return or move on. */
		if (ab_rec_parse(copy, strlen(copy), &r) != 0 || r.t == AB_T_EOE) {
			free(copy);
			continue;
		}
		if (first && a->n > 0 && !same_event(&a->recs[0], &r))
			emit_pending(a);
		first = 0;
		if (a->n == AB_EVENT_MAXREC) {
			a->st.dropped++;
			free(copy);
			continue;
		}
		free(a->texts[a->n]);
		a->texts[a->n] = copy;
		a->recs[a->n++] = r;
	} while (auparse_next_record(au) > 0);
}

int
ab_aup_new(ab_event_fn fn, void *arg, struct ab_aup **out)
{
	struct ab_aup *a;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return -ENOMEM;
	if ((a->au = auparse_init(AUSOURCE_FEED, NULL)) == NULL) {
		free(a);
		return -errno ? -errno : -ENOMEM;
	}
	a->fn = fn;
	a->arg = arg;
	auparse_add_callback(a->au, on_event, a, NULL);
	*out = a;
	return 0;
}

int
ab_aup_feed(struct ab_aup *a, const char *data, size_t len)
{
	return auparse_feed(a->au, data, len) == 0 ? 0 : -EIO;
}

void
ab_aup_flush(struct ab_aup *a)
{
	auparse_flush_feed(a->au);
	emit_pending(a);
}

const struct ab_group_stats *
ab_aup_stats(const struct ab_aup *a)
{
	return &a->st;
}

void
ab_aup_free(struct ab_aup *a)
{
	if (a == NULL)
		return;
	auparse_destroy(a->au);
	for (size_t i = 0; i < AB_EVENT_MAXREC; i++)
		free(a->texts[i]);
	free(a);
}
