/*
 * The libauparse engine: events assembled by libauparse (the audit project's own
 * reference), then handed to the same analysis as the fast path.  Used with
 * --engine=auparse, by the cross-check test (same events from both engines on every
 * fixture) and by bench/review (which measures why the fast path exists).
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
	struct ab_group_stats st;
};

static void
on_event(auparse_state_t *au, auparse_cb_event_t type, void *data)
{
	struct ab_aup *a = data;
	size_t n = 0;

	if (type != AUPARSE_CB_EVENT_READY || auparse_first_record(au) <= 0)
		return;
	a->st.events++;
	do {
		const char *t = auparse_get_record_text(au);

		a->st.records++;
		if (t == NULL)
			continue;
		if (n == AB_EVENT_MAXREC) {
			a->st.dropped++;
			continue;
		}
		/* Copied: libauparse reuses its buffers once we return or move on. */
		free(a->texts[n]);
		if ((a->texts[n] = strdup(t)) == NULL)
			continue;
		if (ab_rec_parse(a->texts[n], strlen(a->texts[n]), &a->recs[n]) == 0)
			n++;
	} while (auparse_next_record(au) > 0);
	if (n > 0)
		a->fn(a->arg, a->recs, n);
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
