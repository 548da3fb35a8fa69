/*
 * Printing: the denial table (aligned on a terminal, tab-separated when piped), JSON
 * lines, the sessions and summary tables, and the completeness report.
 *
 * Everything printed comes from a log the agent could write into (file names, comm,
 * proctitle): on a terminal, control characters, invalid UTF-8 and bidirectional
 * overrides are shown as \xNN / \u{NNNN}, so a hostile name cannot move the cursor,
 * rewrite earlier lines or reorder what the reader sees.  In JSON, strings are escaped
 * per RFC 8259 and invalid UTF-8 bytes become U+FFFD; the exact bytes of a path that is
 * not valid UTF-8 are kept in "path_hex".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abutil.h"
#include "review.h"

/* The text helpers are lib/'s (abutil.h); these adapt them to struct ab_str. */
static int
valid_utf8(struct ab_str s)
{
	return ab_utf8_valid(s.p, s.n);
}

/* Terminal-safe text, at most WIDTH characters (0: no limit); returns columns used.
 * '\' is doubled too, so a name cannot fake one of our escapes. */
static size_t
put_safe(FILE *f, struct ab_str s, size_t width)
{
	return ab_text_put_safe(f, s.p, s.n, width, AB_TEXT_ESC_BACKSLASH);
}

static void
put_col(FILE *f, struct ab_str s, size_t width)
{
	size_t c = put_safe(f, s, width);

	for (; c < width + 1; c++)
		fputc(' ', f);
}

/* A C string as an ab_str; NULL as the empty string. */
static struct ab_str
str_of_cstr(const char *s)
{
	return (struct ab_str){ s ? s : "", s ? strlen(s) : 0 };
}

static void
json_str(FILE *f, struct ab_str s)
{
	ab_text_put_json(f, s.p, s.n);
}

static void
json_str_or_null(FILE *f, struct ab_str s)
{
	if (s.n == 0)
		fputs("null", f);
	else
		json_str(f, s);
}

/* V, or null when it is NONE (the value that stands for "not in the record"). */
static void
json_u64_unless(FILE *f, uint64_t v, uint64_t none)
{
	if (v == none)
		fputs("null", f);
	else
		fprintf(f, "%ju", (uintmax_t)v);
}

static void
json_u64(FILE *f, uint64_t v)
{
	json_u64_unless(f, v, AB_UNSET32);
}

static void
fmt_time(char *buf, size_t cap, uint64_t sec, uint32_t ms, int utc, int iso)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if ((utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)) == NULL) {
		snprintf(buf, cap, "@%ju", (uintmax_t)sec);
		return;
	}
	if (iso)
		snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
	else
		strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

/* A number a network record may leave out (AB_NET_NONE): null then.  Not json_u64: a
 * byte count may well be 4294967295. */
static void
json_num(FILE *f, uint64_t v)
{
	json_u64_unless(f, v, AB_NET_NONE);
}

/* ,"KEY":"value" (or null when empty), and ,"KEY":number (or null when not given): the
 * network objects' fields, one call each. */
static void
kv_str(FILE *f, const char *key, struct ab_str v)
{
	fprintf(f, ",\"%s\":", key);
	json_str_or_null(f, v);
}

static void
kv_num(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, ",\"%s\":", key);
	json_num(f, v);
}

/* The fields a network decision adds (DESIGN.md: host port addr decision rule bytes_up
 * bytes_down; and proto, event, count, reason, dur_ms). */
static void
net_json(FILE *f, const struct ab_net *n)
{
	kv_str(f, "proto", n->proto);
	kv_str(f, "event", str_of_cstr(n->b_event));
	kv_str(f, "host", n->host);
	if (n->host_truncated)
		fputs(",\"host_truncated\":true", f);
	kv_num(f, "port", n->port);
	fprintf(f, ",\"decision\":\"%s\"", n->allowed ? "allowed" : "denied");
	kv_str(f, "reason", n->reason);
	kv_num(f, "count", n->count);
	kv_num(f, "bytes_up", n->bytes_up);
	kv_num(f, "bytes_down", n->bytes_down);
	kv_num(f, "dur_ms", n->dur_ms);
	if (n->malformed)
		fputs(",\"malformed\":true", f);
}

static void
denial_json(FILE *f, const struct ab_denial *d)
{
	char t[64];

	fmt_time(t, sizeof(t), d->sec, d->ms, 1, 1);
	fprintf(f, "{\"v\":1,\"time\":\"%s\",\"serial\":%ju,\"node\":", t, (uintmax_t)d->serial);
	json_str_or_null(f, d->node);
	fputs(",\"session\":", f);
	json_u64(f, d->ses);
	fputs(",\"user\":", f);
	json_str_or_null(f, str_of_cstr(d->user));
	fputs(",\"uid\":", f);
	json_u64(f, d->uid);
	fputs(",\"auid\":", f);
	json_u64(f, d->auid);
	fputs(",\"pid\":", f);
	json_u64(f, d->pid);
	fputs(",\"exe\":", f);
	json_str_or_null(f, d->exe);
	fputs(",\"comm\":", f);
	json_str_or_null(f, d->comm);
	fprintf(f, ",\"kind\":\"%s\",\"access\":", ab_kind_name[d->kind]);
	json_str_or_null(f, d->access);
	fputs(",\"path\":", f);
	json_str_or_null(f, d->path);
	if (d->path.n > 0 && !valid_utf8(d->path)) {
		fputs(",\"path_hex\":\"", f);
		for (size_t i = 0; i < d->path.n; i++)
			fprintf(f, "%02x", (unsigned char)d->path.p[i]);
		fputc('"', f);
	}
	fputs(",\"host_path\":", f);
	if (d->host_path_note == NULL)
		json_str_or_null(f, d->path);
	else {
		fputs("null,\"host_path_note\":", f);
		json_str(f, str_of_cstr(d->host_path_note));
	}
	fputs(",\"addr\":", f);
	json_str_or_null(f, d->addr);
	fputs(",\"syscall\":", f);
	json_str_or_null(f, str_of_cstr(d->syscall));
	fputs(",\"exit\":", f);
	if (d->has_exit)
		fprintf(f, "%ld", d->exit);
	else
		fputs("null", f);
	fputs(",\"domain\":", f);
	json_str_or_null(f, d->domain);
	fputs(",\"rule\":", f);
	if (d->net != NULL) {
		json_str_or_null(f, d->net->rule);
		net_json(f, d->net);
	} else
		json_str(f, str_of_cstr(d->rule));
	/* A live mask's pattern (op=agentbox-mask), and the denials more it stands for. */
	fputs(",\"pattern\":", f);
	json_str_or_null(f, d->pattern);
	fprintf(f, ",\"repeats\":%ju", (uintmax_t)d->repeats);
	/* A would-be denial of a learning session (docs/audit-records.md). */
	fprintf(f, ",\"learn\":%s", d->learn ? "true" : "false");
	if (d->malformed && d->net == NULL)
		fputs(",\"malformed\":true", f);
	fputs("}\n", f);
}

/* The object of a network decision's row, raw (the caller escapes it): host:port, the
 * address dialled, and what the record adds (reason, count, bytes, rule). */
static struct ab_str
net_object(char *buf, size_t cap, const struct ab_net *n)
{
	size_t o;

	o = (size_t)snprintf(buf, cap, memchr(n->host.p, ':', n->host.n) ? "[%.*s]" : "%.*s",
	    (int)(n->host.n ? n->host.n : 1), n->host.n ? n->host.p : "?");
	if (n->host_truncated && o < cap)
		o += (size_t)snprintf(buf + o, cap - o, "...(host truncated)");
	if (n->port != AB_NET_NONE && o < cap)
		o += (size_t)snprintf(buf + o, cap - o, ":%ju", (uintmax_t)n->port);
	if (n->addr.n > 0 && o < cap)
		o += (size_t)snprintf(buf + o, cap - o, " addr=%s", n->b_addr);
	if (n->reason.n > 0 && o < cap)
		o += (size_t)snprintf(buf + o, cap - o, " reason=%s", n->b_reason);
	if (n->count != AB_NET_NONE && n->count > 1 && o < cap)
		o += (size_t)snprintf(buf + o, cap - o, " count=%ju", (uintmax_t)n->count);
	if (strcmp(n->b_event, "close") == 0 && o < cap)
		o += (size_t)snprintf(buf + o, cap - o, " up=%ju down=%ju ms=%ju",
		    (uintmax_t)(n->bytes_up == AB_NET_NONE ? 0 : n->bytes_up),
		    (uintmax_t)(n->bytes_down == AB_NET_NONE ? 0 : n->bytes_down),
		    (uintmax_t)(n->dur_ms == AB_NET_NONE ? 0 : n->dur_ms));
	if (n->rule.n > 0 && o < cap)
		o += (size_t)snprintf(buf + o, cap - o, " rule=%s", n->b_rule);
	return (struct ab_str){ buf, o < cap ? o : cap - 1 };
}

/* After a live-mask denial's object: the pattern, and how many more it stands for. */
static void
mask_note(FILE *f, const struct ab_denial *d)
{
	if (d->pattern.n == 0)
		return;
	fputs("  (mask ", f);
	put_safe(f, d->pattern, 0);
	if (d->repeats > 0)
		fprintf(f, ", %ju repeats", (uintmax_t)d->repeats);
	fputc(')', f);
}

static const size_t W_TIME = 19, W_SES = 6, W_USER = 10, W_KIND = 8, W_ACC = 18, W_SYS = 10,
    W_PROG = 14;

void
ab_out_denial(void *arg, const struct ab_denial *d)
{
	struct ab_out *o = arg;
	FILE *f = o->f;
	char t[64], ses[24], nobj[2048], nacc[40];
	struct ab_str obj = d->path.n > 0 ? d->path : d->addr, prog = d->comm, acc = d->access;
	/* A learning session's would-be denial reads "learn" in the kind column: it was
	 * let through, and the access column tells a file (fs.*) from a connection. */
	const char *kind = d->learn ? "learn" : ab_kind_name[d->kind];

	if (d->net != NULL) {	/* access "connect deny", "dns open", ...; object host:port... */
		obj = net_object(nobj, sizeof(nobj), d->net);
		snprintf(nacc, sizeof(nacc), "%s %s", d->net->b_proto[0] ? d->net->b_proto : "?",
		    d->net->b_event[0] ? d->net->b_event : "?");
		acc = str_of_cstr(nacc);
		prog = str_of_cstr("-");	/* the daemon's, not the agent's: not known */
	}
	if (o->json) {
		denial_json(f, d);
		return;
	}
	if (!o->header_done) {
		o->header_done = 1;
		if (o->tty)
			fprintf(f, "%-*s %-*s %-*s %-*s %-*s %-*s %-*s %s\n", (int)W_TIME, "TIME",
			    (int)W_SES, "SES", (int)W_USER, "USER", (int)W_KIND, "KIND",
			    (int)W_ACC, "ACCESS", (int)W_SYS, "SYSCALL", (int)W_PROG, "PROGRAM",
			    "OBJECT");
		else
			fputs("#time\tserial\tsession\tuser\tkind\taccess\tsyscall\tprogram\tobject\n", f);
	}
	fmt_time(t, sizeof(t), d->sec, d->ms, o->utc, 0);
	if (d->ses == AB_UNSET32)
		snprintf(ses, sizeof(ses), "-");
	else
		snprintf(ses, sizeof(ses), "%ju", (uintmax_t)d->ses);
	if (d->exe.n > 0 && d->net == NULL) {
		const char *slash = memrchr(d->exe.p, '/', d->exe.n);

		prog = slash ? (struct ab_str){ slash + 1, d->exe.n - (slash + 1 - d->exe.p) } : d->exe;
	}
	if (d->learn && prog.n == 0)
		prog = str_of_cstr("-");	/* a learning record without comm */
	if (o->tty) {
		put_col(f, str_of_cstr(t), W_TIME);
		put_col(f, str_of_cstr(ses), W_SES);
		put_col(f, str_of_cstr(d->user ? d->user : "?"), W_USER);
		put_col(f, str_of_cstr(kind), W_KIND);
		put_col(f, acc, W_ACC);
		put_col(f, str_of_cstr(d->syscall ? d->syscall : "-"), W_SYS);
		put_col(f, prog, W_PROG);
		put_safe(f, obj.n ? obj : str_of_cstr("-"), 0);
		if (d->host_path_note != NULL && d->path.n > 0)
			fprintf(f, "  (%s)", d->host_path_note);
		mask_note(f, d);
	} else {
		fprintf(f, "%s\t%ju\t%s\t", t, (uintmax_t)d->serial, ses);
		put_safe(f, str_of_cstr(d->user ? d->user : "?"), 0);
		fprintf(f, "\t%s\t", kind);
		put_safe(f, acc, 0);
		fprintf(f, "\t%s\t", d->syscall ? d->syscall : "-");
		put_safe(f, prog, 0);
		fputc('\t', f);
		put_safe(f, obj.n ? obj : str_of_cstr("-"), 0);
		mask_note(f, d);
	}
	fputc('\n', f);
}

/* What the session's own records say the kernel lost during it (ab_session_span_lost;
 * an open one is judged in the completeness report, against the counter now). */
static void
lost_json(FILE *f, const struct ab_session *s)
{
	uint64_t n;
	enum ab_span v = ab_session_span_lost(s, 0, 0, &n);

	fputs(",\"lost_during\":", f);
	if (v == AB_SPAN_CLEAN || v == AB_SPAN_LOST)
		fprintf(f, "%ju", (uintmax_t)n);
	else
		fputs("null", f);
	fprintf(f, ",\"lost_judged\":\"%s\"", v == AB_SPAN_HOST ? "host" : v == AB_SPAN_OPEN ?
	    "open" : v == AB_SPAN_BAD ? "unreadable" : "span");
}

/* The sessions row's mark for a session whose span lost records or cannot be judged,
 * and for what else its span holds that may hide one of its denials. */
static void
lost_mark(FILE *f, const struct ab_review *rv, const struct ab_session *s)
{
	struct ab_span_trouble t;
	uint64_t n;
	enum ab_span v = ab_session_span_lost(s, 0, 0, &n);

	if (v == AB_SPAN_LOST)
		fprintf(f, " [%ju audit record(s) lost during it]", (uintmax_t)n);
	else if (v == AB_SPAN_BAD)
		fputs(" [lost counter in its records unreadable]", f);
	if (ab_session_trouble(rv, s, &t) != 0)
		return;
	if (t.serials_missing > 0)
		fprintf(f, " [%ju serial(s) missing during it]", (uintmax_t)t.serials_missing);
	if (t.ll_short + t.ll_unknown > 0)
		fprintf(f, " [Landlock: %ju record(s) of its own missing%s]",
		    (uintmax_t)t.ll_missing, t.ll_unknown ? ", and domains of no known session "
		    "short during it" : "");
	if (t.unreadable > 0)
		fprintf(f, " [%ju unreadable line(s) during it]", (uintmax_t)t.unreadable);
	if (t.grouping > 0)
		fprintf(f, " [%ju event(s) not grouped whole during it]", (uintmax_t)t.grouping);
}

/* The span checks of the session's object: null where its span is unknown. */
static void
trouble_json(FILE *f, const struct ab_review *rv, const struct ab_session *s)
{
	struct ab_span_trouble t;

	fputs(",\"span\":", f);
	if (ab_session_trouble(rv, s, &t) != 0) {
		fputs("null", f);
		return;
	}
	fputs("{\"serials_missing\":", f);
	if (t.serials_known)
		fprintf(f, "%ju", (uintmax_t)t.serials_missing);
	else
		fputs("null", f);
	fprintf(f, ",\"landlock_domains_short\":%ju,\"landlock_records_missing\":%ju,"
	    "\"landlock_domains_unknown_short\":%ju,\"unreadable_lines\":%ju,"
	    "\"ungrouped_events\":%ju}",
	    (uintmax_t)t.ll_short, (uintmax_t)t.ll_missing, (uintmax_t)t.ll_unknown,
	    (uintmax_t)t.unreadable, (uintmax_t)t.grouping);
}

static void
session_json(FILE *f, const struct ab_review *rv, const struct ab_session *s)
{
	char t[64];

	fprintf(f, "{\"v\":1,\"session\":%ju,\"node\":", (uintmax_t)s->ses);
	json_str_or_null(f, str_of_cstr(s->node));
	fputs(",\"user\":", f);
	json_str_or_null(f, str_of_cstr(s->user));
	fputs(",\"uid\":", f);
	json_u64(f, s->uid);
	fputs(",\"service\":", f);
	json_str_or_null(f, str_of_cstr(s->service));
	fputs(",\"tty\":", f);
	json_str_or_null(f, str_of_cstr(s->tty));
	fputs(",\"rhost\":", f);
	json_str_or_null(f, str_of_cstr(s->rhost));
	fputs(",\"start\":", f);
	if (s->have_start) {
		fmt_time(t, sizeof(t), s->start_sec, s->start_ms, 1, 1);
		fprintf(f, "\"%s\"", t);
	} else
		fputs("null", f);
	fputs(",\"end\":", f);
	if (s->have_end) {
		fmt_time(t, sizeof(t), s->end_sec, s->end_ms, 1, 1);
		fprintf(f, "\"%s\"", t);
	} else
		fputs("null", f);
	fputs(",\"digest\":", f);
	json_str_or_null(f, str_of_cstr(s->digest));
	fputs(",\"network\":", f);
	json_str_or_null(f, str_of_cstr(s->network));
	fputs(",\"box\":", f);
	json_str_or_null(f, str_of_cstr(s->box));
	fprintf(f, ",\"learn\":%s,\"learn_lost\":", s->learn ? "true" : "false");
	if (s->learn_lost > 0)
		json_str(f, str_of_cstr(s->learn_lost_reason));
	else
		fputs("null", f);
	fprintf(f, ",\"new_ses\":%s,\"logins\":%ju", s->shared ? "false" : "true",
	    (uintmax_t)s->logins);
	fprintf(f, ",\"denials\":%ju,\"landlock\":%ju,\"seccomp\":%ju,\"dac\":%ju,\"net\":%ju,"
	    "\"denials_before_filters\":%ju,\"start_seen\":%s", (uintmax_t)s->denials,
	    (uintmax_t)s->by_kind[AB_KIND_LANDLOCK], (uintmax_t)s->by_kind[AB_KIND_SECCOMP],
	    (uintmax_t)s->by_kind[AB_KIND_DAC], (uintmax_t)s->by_kind[AB_KIND_NET],
	    (uintmax_t)s->denials_all, s->have_start ? "true" : "false");
	fprintf(f, ",\"connections_allowed\":%ju,\"connections_denied\":%ju,\"net_end\":",
	    (uintmax_t)s->net_allowed, (uintmax_t)s->net_denied);
	json_str_or_null(f, str_of_cstr(s->net_end));
	lost_json(f, s);
	trouble_json(f, rv, s);
	fputs(",\"mask_end\":", f);
	json_str_or_null(f, str_of_cstr(s->mask_end));
	fputs("}\n", f);
}

/* A session with network records (network = proxy): its connection counts, after the
 * filters like the denial counts.  Sessions without any print nothing here. */
static void
net_counts(FILE *f, const struct ab_session *s)
{
	if (s->net_records_all == 0 && s->net_end[0] == '\0')
		return;
	fprintf(f, "; connections %ju allowed, %ju denied", (uintmax_t)s->net_allowed,
	    (uintmax_t)s->net_denied);
	if (s->net_end[0] != '\0') {
		fputs(" (proxy ended: ", f);
		put_safe(f, str_of_cstr(s->net_end), 0);
		fputc(')', f);
	}
}

/* A session's denial count: with filters, "N of M", so that the count of what matched
 * is never taken for everything the session was denied. */
static void
denial_counts(FILE *f, const struct ab_session *s, int filtered, const char *noun)
{
	if (filtered)
		fprintf(f, "%ju of %ju%s match the filters", (uintmax_t)s->denials,
		    (uintmax_t)s->denials_all, noun);
	else
		fprintf(f, "%ju%s", (uintmax_t)s->denials, noun);
	fprintf(f, " (landlock %ju, seccomp %ju, dac %ju", (uintmax_t)s->by_kind[AB_KIND_LANDLOCK],
	    (uintmax_t)s->by_kind[AB_KIND_SECCOMP], (uintmax_t)s->by_kind[AB_KIND_DAC]);
	/* net only where the session has network records: other modes read as before. */
	if (s->net_records_all > 0)
		fprintf(f, ", net %ju", (uintmax_t)s->by_kind[AB_KIND_NET]);
	fputc(')', f);
}

/* Said in words when no row is printed: an empty selection is not "no denials". */
static void
no_sessions(struct ab_out *o, const struct ab_review *rv)
{
	if (!o->json)
		fputs(ab_review_filtering(rv) ? "no session matches the filters\n" :
		    "no agentbox session in the records read\n", o->f);
}

static void refusals(struct ab_out *o, const struct ab_review *rv);
static void boxes(struct ab_out *o, const struct ab_review *rv);

/* learn = yes: the row says so, and whether its learning record is whole. */
static void
maskd_marks(FILE *f, const struct ab_session *s)
{
	if (s->learn)
		fputs(" [learning]", f);
	if (s->learn_lost > 0) {
		fputs(" [learning record incomplete: ", f);
		put_safe(f, str_of_cstr(s->learn_lost_reason), 0);
		fputc(']', f);
	}
	if (s->mask_end[0] != '\0') {
		fputs(" [ended by agentbox-maskd: ", f);
		put_safe(f, str_of_cstr(s->mask_end), 0);
		fputc(']', f);
	}
}

void
ab_out_sessions(struct ab_out *o, const struct ab_review *rv)
{
	const struct ab_session *s;
	char st[64], en[64], ses[24], dg[16], from[200];
	int filtered = ab_review_filtering(rv);
	size_t shown = 0;

	if (!o->json)
		fprintf(o->f, o->tty ? "%-6s %-10s %-12s %-16s %-19s %-19s %-12s %s\n" :
		    "#%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", "SES", "USER", "SERVICE", "FROM",
		    "START", "END", "DIGEST", "DENIALS");
	for (size_t i = 0; (s = ab_review_session(rv, i)) != NULL; i++) {
		if (!ab_session_selected(rv, s))
			continue;
		shown++;
		if (o->json) {
			session_json(o->f, rv, s);
			continue;
		}
		snprintf(ses, sizeof(ses), "%ju", (uintmax_t)s->ses);
		if (s->have_start)
			fmt_time(st, sizeof(st), s->start_sec, 0, o->utc, 0);
		else
			snprintf(st, sizeof(st), "(before the logs)");
		if (s->have_end)
			fmt_time(en, sizeof(en), s->end_sec, 0, o->utc, 0);
		else
			snprintf(en, sizeof(en), "(no end seen)");
		snprintf(dg, sizeof(dg), "%.12s", s->digest[0] ? s->digest : "-");
		snprintf(from, sizeof(from), "%s%s%s", s->rhost[0] && strcmp(s->rhost, "?") ?
		    s->rhost : "", s->rhost[0] && strcmp(s->rhost, "?") && s->tty[0] ? " " : "",
		    s->tty);
		if (o->tty) {
			put_col(o->f, str_of_cstr(ses), 6);
			put_col(o->f, str_of_cstr(s->user[0] ? s->user : "?"), 10);
			put_col(o->f, str_of_cstr(s->service[0] ? s->service : "?"), 12);
			put_col(o->f, str_of_cstr(from[0] ? from : "-"), 16);
			put_col(o->f, str_of_cstr(st), 19);
			put_col(o->f, str_of_cstr(en), 19);
			put_col(o->f, str_of_cstr(dg), 12);
		} else {
			fprintf(o->f, "%s\t", ses);
			put_safe(o->f, str_of_cstr(s->user[0] ? s->user : "?"), 0);
			fputc('\t', o->f);
			put_safe(o->f, str_of_cstr(s->service[0] ? s->service : "?"), 0);
			fputc('\t', o->f);
			put_safe(o->f, str_of_cstr(from[0] ? from : "-"), 0);
			fprintf(o->f, "\t%s\t%s\t%s\t", st, en, dg);
		}
		denial_counts(o->f, s, filtered, "");
		net_counts(o->f, s);
		lost_mark(o->f, rv, s);
		if (s->shared || s->logins > 1)
			fprintf(o->f, " [ses shared: %ju login(s)%s]", (uintmax_t)s->logins,
			    s->shared ? ", loginuid immutable" : "");
		if (s->box[0] != '\0') {
			fputs(" [box ", o->f);
			put_safe(o->f, str_of_cstr(s->box), 0);
			fputc(']', o->f);
		}
		maskd_marks(o->f, s);
		fputc('\n', o->f);
	}
	if (shown == 0)
		no_sessions(o, rv);
	else if (!o->json)
		boxes(o, rv);
	refusals(o, rv);
}

/*
 * persist = yes: the logins grouped by the box they built or joined, one line per box
 * ("box ID (USER): logins SES SES ..."), in the order the boxes' first logins come.
 * Quadratic in the sessions shown, which the review's table bounds.
 */
static void
boxes(struct ab_out *o, const struct ab_review *rv)
{
	const struct ab_session *s, *t;
	int header = 0;

	for (size_t i = 0; (s = ab_review_session(rv, i)) != NULL; i++) {
		size_t j;

		if (s->box[0] == '\0' || !ab_session_selected(rv, s))
			continue;
		for (j = 0; j < i; j++) {	/* printed with an earlier login of its box */
			t = ab_review_session(rv, j);
			if (ab_session_selected(rv, t) && strcmp(t->box, s->box) == 0 &&
			    strcmp(t->node, s->node) == 0)
				break;
		}
		if (j < i)
			continue;
		if (!header++)
			fputs(o->tty ? "\nboxes (persist = yes):\n" : "#boxes\n", o->f);
		fputs("box ", o->f);
		put_safe(o->f, str_of_cstr(s->box), 0);
		fputs(" (", o->f);
		put_safe(o->f, str_of_cstr(s->user[0] ? s->user : "?"), 0);
		fputs("): logins", o->f);
		for (j = i; (t = ab_review_session(rv, j)) != NULL; j++)
			if (ab_session_selected(rv, t) && strcmp(t->box, s->box) == 0 &&
			    strcmp(t->node, s->node) == 0)
				fprintf(o->f, " %ju", (uintmax_t)t->ses);
		fputc('\n', o->f);
	}
}

static void
refusals(struct ab_out *o, const struct ab_review *rv)
{
	const struct ab_refusal *f;
	char t[64];

	for (size_t i = 0; (f = ab_review_refusal(rv, i)) != NULL; i++) {
		if (o->json) {
			fmt_time(t, sizeof(t), f->sec, f->ms, 1, 1);
			fprintf(o->f, "{\"v\":1,\"refused\":true,\"time\":\"%s\",\"user\":", t);
			json_str_or_null(o->f, str_of_cstr(f->user));
			fputs(",\"service\":", o->f);
			json_str_or_null(o->f, str_of_cstr(f->service));
			fputs(",\"reason\":", o->f);
			json_str_or_null(o->f, str_of_cstr(f->reason));
			fputs("}\n", o->f);
			continue;
		}
		fmt_time(t, sizeof(t), f->sec, 0, o->utc, 0);
		fprintf(o->f, "refused %s  user ", t);
		put_safe(o->f, str_of_cstr(f->user[0] ? f->user : "?"), 0);
		fputs("  service ", o->f);
		put_safe(o->f, str_of_cstr(f->service[0] ? f->service : "?"), 0);
		fputs(": ", o->f);
		put_safe(o->f, str_of_cstr(f->reason), 0);
		fputc('\n', o->f);
	}
	if (!o->json && ab_review_stats(rv)->refused_selected > AB_REFUSALS_MAX)
		fprintf(o->f, "refused: %ju more not listed (only the first %d are kept)\n",
		    (uintmax_t)(ab_review_stats(rv)->refused_selected - AB_REFUSALS_MAX),
		    AB_REFUSALS_MAX);
}

static void
top_print(FILE *f, int json, const char *what, const struct ab_top *t, int filtered)
{
	struct ab_top_item it[5];
	uint64_t other;
	size_t n = ab_top_list(t, it, 5, &other);

	if (json) {
		fprintf(f, ",\"%s\":[", what);
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "%s{\"name\":", i ? "," : "");
			json_str(f, str_of_cstr(it[i].key));
			fprintf(f, ",\"count\":%ju}", (uintmax_t)it[i].count);
		}
		fprintf(f, "],\"%s_other\":%ju", what, (uintmax_t)other);
		return;
	}
	fprintf(f, "  top %s%s:\n", what, filtered ? " (of the matching denials)" : "");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "    %8ju  ", (uintmax_t)it[i].count);
		put_safe(f, str_of_cstr(it[i].key), 0);
		fputc('\n', f);
	}
	if (other > 0)
		fprintf(f, "    %8ju  (others)\n", (uintmax_t)other);
}

void
ab_out_summary(struct ab_out *o, const struct ab_review *rv)
{
	const struct ab_session *s;
	int filtered = ab_review_filtering(rv);
	size_t shown = 0;

	/* The sessions the sessions command would list, so the two always agree. */
	for (size_t i = 0; (s = ab_review_session(rv, i)) != NULL; i++) {
		if (!ab_session_selected(rv, s))
			continue;
		shown++;
		if (o->json) {
			fprintf(o->f, "{\"v\":1,\"session\":%ju,\"user\":", (uintmax_t)s->ses);
			json_str_or_null(o->f, str_of_cstr(s->user));
			fprintf(o->f, ",\"denials\":%ju,\"kinds\":{\"landlock\":%ju,\"seccomp\":%ju,"
			    "\"dac\":%ju,\"net\":%ju},\"denials_before_filters\":%ju,\"start_seen\":%s",
			    (uintmax_t)s->denials, (uintmax_t)s->by_kind[AB_KIND_LANDLOCK],
			    (uintmax_t)s->by_kind[AB_KIND_SECCOMP], (uintmax_t)s->by_kind[AB_KIND_DAC],
			    (uintmax_t)s->by_kind[AB_KIND_NET], (uintmax_t)s->denials_all,
			    s->have_start ? "true" : "false");
			top_print(o->f, 1, "paths", s->paths, filtered);
			top_print(o->f, 1, "programs", s->progs, filtered);
			/* Which sessions the completeness report's troubles touch, as in
			 * the sessions view. */
			lost_json(o->f, s);
			trouble_json(o->f, rv, s);
			fputs("}\n", o->f);
			continue;
		}
		fprintf(o->f, "session %ju", (uintmax_t)s->ses);
		if (s->user[0]) {
			fputs(" user ", o->f);
			put_safe(o->f, str_of_cstr(s->user), 0);
		}
		if (!s->have_start)
			fputs(" (started before the records read)", o->f);
		fputs(": ", o->f);
		denial_counts(o->f, s, filtered, " denials");
		net_counts(o->f, s);
		lost_mark(o->f, rv, s);
		fputc('\n', o->f);
		top_print(o->f, 0, "paths", s->paths, filtered);
		top_print(o->f, 0, "programs", s->progs, filtered);
	}
	if (shown == 0)
		no_sessions(o, rv);
}

/* ---- the net view ------------------------------------------------------------------- */

static void
netrow_json(FILE *f, const struct ab_netrow *w, int by_user)
{
	char t[64];

	fputs("{\"v\":1,\"session\":", f);
	json_u64(f, by_user ? AB_UNSET32 : w->ses);
	kv_str(f, "node", str_of_cstr(by_user ? NULL : w->node));
	kv_str(f, "user", str_of_cstr(w->user));
	kv_num(f, "uid", w->uid == AB_UNSET32 ? AB_NET_NONE : w->uid);
	kv_str(f, "proto", str_of_cstr(w->proto));
	kv_str(f, "host", str_of_cstr(w->host));
	kv_num(f, "port", w->port);
	fprintf(f, ",\"decision\":\"%s\"", w->allowed ? "allowed" : "denied");
	kv_str(f, "reason", str_of_cstr(w->reason));
	kv_str(f, "rule", str_of_cstr(w->rule));
	fprintf(f, ",\"count\":%ju,\"closed\":%ju,\"bytes_up\":%ju,\"bytes_down\":%ju",
	    (uintmax_t)w->count, (uintmax_t)w->closes, (uintmax_t)w->bytes_up,
	    (uintmax_t)w->bytes_down);
	fmt_time(t, sizeof(t), w->first_sec, w->first_ms, 1, 1);
	fprintf(f, ",\"first\":\"%s\"", t);
	fmt_time(t, sizeof(t), w->last_sec, w->last_ms, 1, 1);
	fprintf(f, ",\"last\":\"%s\"}\n", t);
}

/* One row's cells after the session/user ones, table or tab-separated. */
static void
netrow_text(struct ab_out *o, const struct ab_netrow *w)
{
	char host[1100], cnt[24], first[64], last[64], detail[700];
	FILE *f = o->f;

	snprintf(host, sizeof(host), strchr(w->host, ':') ? "[%s]" : "%s", w->host[0] ? w->host : "?");
	if (w->port != AB_NET_NONE)
		snprintf(host + strlen(host), sizeof(host) - strlen(host), ":%ju", (uintmax_t)w->port);
	snprintf(cnt, sizeof(cnt), "%ju", (uintmax_t)w->count);
	fmt_time(first, sizeof(first), w->first_sec, 0, o->utc, 0);
	fmt_time(last, sizeof(last), w->last_sec, 0, o->utc, 0);
	if (w->allowed)
		snprintf(detail, sizeof(detail), "up %ju down %ju%s%s%s%s", (uintmax_t)w->bytes_up,
		    (uintmax_t)w->bytes_down,
		    /* a DNS answer has no connection to close */
		    w->closes < w->count && strcmp(w->proto, "dns") != 0 ? " (not all closed)" : "",
		    /* a learning session's host no allow_host matched: a would-be denial */
		    strcmp(w->reason, "learn") == 0 ? " (learn: no allow_host)" : "",
		    w->rule[0] ? "  rule " : "", w->rule);
	else
		snprintf(detail, sizeof(detail), "%s%s%s", w->reason[0] ? w->reason : "-",
		    w->rule[0] ? "  rule " : "", w->rule);
	if (o->tty) {
		put_col(f, str_of_cstr(w->allowed ? "allowed" : "denied"), 8);
		put_col(f, str_of_cstr(w->proto[0] ? w->proto : "?"), 8);
		put_col(f, str_of_cstr(host), 30);
		fprintf(f, "%7s %-19s %-19s ", cnt, first, last);
	} else {
		fprintf(f, "%s\t", w->allowed ? "allowed" : "denied");
		put_safe(f, str_of_cstr(w->proto[0] ? w->proto : "?"), 0);
		fputc('\t', f);
		put_safe(f, str_of_cstr(host), 0);
		fprintf(f, "\t%s\t%s\t%s\t", cnt, first, last);
	}
	put_safe(f, str_of_cstr(detail), 0);
	fputc('\n', f);
}

void
ab_out_net(struct ab_out *o, const struct ab_netview *v, const struct ab_review *rv)
{
	const struct ab_netrow *w;
	int by_user = ab_netview_by_user(v);
	char who[32];
	size_t i;

	if (!o->json)
		fprintf(o->f, o->tty ? "%-6s %-10s %-8s %-8s %-30s %7s %-19s %-19s %s\n" :
		    "#%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", by_user ? "UID" : "SES", "USER",
		    "DECISION", "PROTO", "HOST", "COUNT", "FIRST", "LAST", "REASON/BYTES");
	for (i = 0; (w = ab_netview_row(v, i)) != NULL; i++) {
		if (o->json) {
			netrow_json(o->f, w, by_user);
			continue;
		}
		if ((by_user ? w->uid : w->ses) == AB_UNSET32)
			snprintf(who, sizeof(who), "-");
		else
			snprintf(who, sizeof(who), "%ju", (uintmax_t)(by_user ? w->uid : w->ses));
		if (o->tty) {
			put_col(o->f, str_of_cstr(who), 6);
			put_col(o->f, str_of_cstr(w->user[0] ? w->user : "?"), 10);
		} else {
			fprintf(o->f, "%s\t", who);
			put_safe(o->f, str_of_cstr(w->user[0] ? w->user : "?"), 0);
			fputc('\t', o->f);
		}
		netrow_text(o, w);
	}
	if (i == 0 && !o->json)
		fputs(ab_review_filtering(rv) ? "no network decisions in the records read match "
		    "the filters\n" : "no network decisions in the records read\n", o->f);
}

/* ---- completeness ---------------------------------------------------------------------- */

#define NODE_SHOWN	64	/* bytes of a node name in the list of gaps */

struct problems {
	FILE	*f;
	int	 json;
	int	 n;
};

static void __attribute__((format(printf, 2, 3)))
problem(struct problems *p, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (p->json) {
		fputs(p->n ? "," : "", p->f);
		json_str(p->f, str_of_cstr(buf));
	} else {
		/* Node names and file names come from the logs: escaped for the terminal. */
		fputs("  INCOMPLETE: ", p->f);
		put_safe(p->f, str_of_cstr(buf), 0);
		fputc('\n', p->f);
	}
	p->n++;
}

/* What the review could not keep track of (ab_review_stats: err and its counters). */
static void
bookkeeping_problems(struct problems *p, const struct ab_review_stats *rs)
{
	if (rs->err != 0)
		problem(p, "the review's bookkeeping failed (first error: %s): what it could not "
		    "track is not checked", rs->err == -ENOSPC ? "a table is full" :
		    rs->err == -ENOMEM ? "out of memory" : strerror(-rs->err));
	if (rs->oom > 0)
		problem(p, "out of memory %ju time(s) while reviewing", (uintmax_t)rs->oom);
	if (rs->serials_untracked > 0)
		problem(p, "%ju event(s) not checked for serial gaps (node or boot table full, or "
		    "out of memory): serials missing on their node are not ruled out",
		    (uintmax_t)rs->serials_untracked);
	if (rs->sessions_untracked > 0)
		problem(p, "%ju session record(s) or denial(s) whose session could not be tracked "
		    "(session table full, or out of memory): the sessions and summary views miss "
		    "them", (uintmax_t)rs->sessions_untracked);
	if (rs->domains_untracked > 0)
		problem(p, "%ju Landlock record(s) of a domain the table could not hold: their "
		    "denial counts are not checked", (uintmax_t)rs->domains_untracked);
	if (rs->counts_lost > 0)
		problem(p, "%ju per-session path/program count(s) lost (out of memory): the summary "
		    "undercounts", (uintmax_t)rs->counts_lost);
	if (rs->refusals_lost > 0)
		problem(p, "%ju refused login(s) not kept for the sessions list (out of memory)",
		    (uintmax_t)rs->refusals_lost);
}

/* Network records the review could not read as the contract says, or not count. */
static void
net_problems(struct problems *p, const struct ab_facts *x)
{
	if (x->rs->net_malformed > 0)
		problem(p, "%ju agentbox-netd record(s) malformed (no session, no host, a decision, "
		    "event or number the contract does not have): listed as denials unless plainly "
		    "allowed, their attribution not vouched for", (uintmax_t)x->rs->net_malformed);
	if (x->net_rows_lost > 0)
		problem(p, "%ju network decision(s) not counted in the net view (its table is full, "
		    "or out of memory)", (uintmax_t)x->net_rows_lost);
	if (x->rs->learn_malformed > 0)
		problem(p, "%ju learning record(s) of agentbox-maskd malformed (no session, uid, "
		    "path or access, or a value the contract does not have): listed, their "
		    "attribution not vouched for, never suggested", (uintmax_t)x->rs->learn_malformed);
	if (x->rs->learn_lost_unattributed > 0)
		problem(p, "%ju agentbox-learn-lost record(s) name no session: any learning "
		    "session's record may be incomplete", (uintmax_t)x->rs->learn_lost_unattributed);
	if (x->rs->mask_malformed > 0)
		problem(p, "%ju live-mask record(s) of agentbox-maskd malformed (no session, uid, "
		    "pattern or whole absolute path, or a value the contract does not have): "
		    "listed, their attribution not vouched for", (uintmax_t)x->rs->mask_malformed);
	if (x->rs->mask_lost_unattributed > 0)
		problem(p, "%ju agentbox-mask-lost record(s) name no session (or one the table "
		    "could not hold): live-mask denials are missing",
		    (uintmax_t)x->rs->mask_lost_unattributed);
	if (x->suggest_dropped > 0)
		problem(p, "%ju denial(s) not judged by suggest (more distinct ones than its "
		    "table holds, or out of memory): the drop-in does not cover them",
		    (uintmax_t)x->suggest_dropped);
}

/*
 * With filters, one line says which, and how much of what was read they kept: the
 * checks of the report are about every record read, whatever the filters, and a count
 * after filters must not read as the whole.
 */
static void
filter_line(FILE *f, const struct ab_facts *x, size_t nses, size_t nsel)
{
	const struct ab_filter *fl = ab_review_filter(x->rv);
	char t[64];

	fputs("  filters:", f);
	if (fl->have_session)
		fprintf(f, " session %ju", (uintmax_t)fl->session);
	if (fl->user != NULL) {
		fputs(" user ", f);
		put_safe(f, str_of_cstr(fl->user), 0);
	}
	if (fl->have_since) {
		fmt_time(t, sizeof(t), fl->since, 0, x->utc, 0);
		fprintf(f, " since %s", t);
	}
	if (fl->have_until) {
		fmt_time(t, sizeof(t), fl->until, 0, x->utc, 0);
		fprintf(f, " until %s", t);
	}
	if (fl->kinds != 0) {
		int first = 1;

		fputs(" kind", f);
		for (int k = 0; k < AB_KIND_N; k++)
			if (fl->kinds & (1 << k)) {
				fprintf(f, "%s%s", first ? " " : ",", ab_kind_name[k]);
				first = 0;
			}
		if (fl->kinds & AB_KIND_LEARN_BIT)
			fprintf(f, "%slearn", first ? " " : ",");
	}
	if (fl->path != NULL) {
		fputs(" path ", f);
		put_safe(f, str_of_cstr(fl->path), 0);
	}
	fprintf(f, "; they select %zu of %zu session(s) and %ju of %ju denial(s); the checks "
	    "here are about every record read\n", nsel, nses, (uintmax_t)x->rs->denials,
	    (uintmax_t)x->rs->denials_all);
}

/* What the report says about serials and sessions, computed once for either printer. */
struct report {
	struct ab_gap	 ex[5];		/* example gaps, largest first */
	size_t		 nex, nseg;
	uint64_t	 seen, missing;
	size_t		 no_start;	/* sessions with denials, their start not read */
	size_t		 nses, nsel;	/* sessions read; those the filters select */
	int		 by_span;	/* --session/--user, and every selected session's start
					 * carries lost=: losses are judged on their spans, the
					 * host-wide counter is a note */
	uint64_t	 span_lost;	/* records lost during the selected sessions' spans */
	size_t		 span_hit;	/* selected sessions whose span lost records or cannot
					 * be judged */
	size_t		 span_unjudged;	/* of those, the ones that cannot be judged */
	/* by_span: the serial and rotation checks are judged on the selected sessions too,
	 * and what lies outside their spans becomes a note. */
	uint64_t	 span_missing;	/* serials missing inside the selected sessions' spans */
	size_t		 span_gap_hit;	/* selected sessions with such serials */
	size_t		 span_gap_unknown; /* selected sessions whose span's serials cannot
					 * be told (runs folded for memory, two boots) */
	size_t		 learn_lost_others; /* sessions not selected whose learning record
					 * is incomplete (a note) */
	/* by_span: Landlock domains and unreadable lines judged on the spans too. */
	uint64_t	 span_ll_short;	/* the selected sessions' own short domains */
	uint64_t	 span_ll_unknown; /* domains of no known session ended in a span */
	uint64_t	 span_unreadable; /* unreadable lines inside a span */
	uint64_t	 span_grouping;	/* events not grouped whole inside a span */
	size_t		 span_trouble_hit; /* selected sessions with any of the three */
};

/* --session or --user: the review is about those sessions, so is its verdict. */
static int
selects_sessions(const struct ab_facts *x)
{
	const struct ab_filter *fl = ab_review_filter(x->rv);

	return fl->have_session || fl->user != NULL;
}

static void
report_compute(const struct ab_facts *x, struct report *r)
{
	const struct ab_session *s;

	memset(r, 0, sizeof(*r));
	r->missing = ab_complete_gaps(x->cp, r->ex, 5, &r->nex, &r->nseg, &r->seen);
	for (size_t i = 0; (s = ab_review_session(x->rv, i)) != NULL; i++) {
		/* About the input, not the selection: denials before filters. */
		if (!s->have_start && s->denials_all > 0)
			r->no_start++;
		r->nses++;
		r->nsel += ab_session_selected(x->rv, s) != 0;
	}
	r->by_span = selects_sessions(x) && r->nsel > 0;
	for (size_t i = 0; (s = ab_review_session(x->rv, i)) != NULL; i++)
		r->learn_lost_others += s->learn_lost > 0 && !ab_session_selected(x->rv, s);
	for (size_t i = 0; r->by_span && (s = ab_review_session(x->rv, i)) != NULL; i++) {
		struct ab_span_trouble t;
		uint64_t n;
		enum ab_span v;

		if (!ab_session_selected(x->rv, s))
			continue;
		v = ab_session_span_lost(s, x->kernel_checked, x->kernel_lost, &n);
		r->by_span = v != AB_SPAN_HOST;
		r->span_lost += n;
		r->span_hit += v != AB_SPAN_CLEAN;
		r->span_unjudged += v == AB_SPAN_BAD || v == AB_SPAN_OPEN;
		/* A missing serial inside the span may have been one of its denials; one
		 * outside cannot.  The same for a short domain and an unreadable line. */
		if (ab_session_trouble(x->rv, s, &t) != 0 || !t.serials_known)
			r->span_gap_unknown++;
		r->span_missing += t.serials_missing;
		r->span_gap_hit += t.serials_missing > 0;
		r->span_ll_short += t.ll_short;
		r->span_trouble_hit += t.ll_short + t.ll_unknown + t.unreadable + t.grouping > 0;
	}
	if (r->by_span) {
		uint64_t in[AB_MARK_N];

		ab_review_trouble_selected(x->rv, in);
		r->span_ll_unknown = in[AB_MARK_DOMAIN];
		r->span_unreadable = in[AB_MARK_UNREADABLE];
		r->span_grouping = in[AB_MARK_GROUPING];
	}
}

#define SPAN_LINES	10	/* sessions named one by one; the rest are counted */

/* One problem() per selected session whose own span lost records or cannot be judged. */
static void
span_problems(struct problems *p, const struct ab_facts *x, const struct report *r)
{
	const struct ab_session *s;
	size_t shown = 0;

	for (size_t i = 0; (s = ab_review_session(x->rv, i)) != NULL; i++) {
		uint64_t n;
		enum ab_span v;

		if (!ab_session_selected(x->rv, s))
			continue;
		v = ab_session_span_lost(s, x->kernel_checked, x->kernel_lost, &n);
		if (v == AB_SPAN_CLEAN || shown++ == SPAN_LINES)
			continue;
		if (v == AB_SPAN_LOST)
			problem(p, "session %ju: %ju audit record(s) lost during this session%s "
			    "(the kernel does not say whose they were: this session's denials may be "
			    "among them)", (uintmax_t)s->ses, (uintmax_t)n, s->have_end &&
			    s->ends >= s->logins ? "" : " so far (still open)");
		else if (v == AB_SPAN_OPEN)
			problem(p, "session %ju is still open (no end record) and the kernel's lost "
			    "counter was not read (--kernel-status): losses since its start are not "
			    "ruled out", (uintmax_t)s->ses);
		else
			problem(p, "session %ju: the lost counter in its records cannot be read as "
			    "a count (malformed, or lower at its end than at its start): losses "
			    "during it are not ruled out", (uintmax_t)s->ses);
	}
	if (shown > SPAN_LINES)
		problem(p, "%zu more selected session(s) lost records or cannot be judged",
		    r->span_hit - SPAN_LINES);
}

/* One problem() per selected session with a short Landlock domain or an unreadable line
 * in its span; the ones whose serial cannot be read count against every span. */
static void
trouble_problems(struct problems *p, const struct ab_facts *x, const struct report *r)
{
	const struct ab_session *s;
	struct ab_span_trouble t;
	size_t shown = 0;
	uint64_t n;

	for (size_t i = 0; (s = ab_review_session(x->rv, i)) != NULL; i++) {
		if (!ab_session_selected(x->rv, s) || ab_session_trouble(x->rv, s, &t) != 0 ||
		    t.ll_short + t.ll_unknown + t.unreadable + t.grouping == 0 ||
		    shown++ >= SPAN_LINES)
			continue;
		if (t.ll_short > 0)
			problem(p, "session %ju: %ju Landlock domain(s) of its own counted more "
			    "denials than the log holds (%ju record(s) missing)", (uintmax_t)s->ses,
			    (uintmax_t)t.ll_short, (uintmax_t)t.ll_missing);
		if (t.ll_unknown > 0)
			problem(p, "session %ju: %ju Landlock domain(s) of no known session ended "
			    "during it with denials missing from the log (they may be its own)",
			    (uintmax_t)s->ses, (uintmax_t)t.ll_unknown);
		if (t.unreadable > 0)
			problem(p, "session %ju: %ju line(s) skipped as unreadable inside its span",
			    (uintmax_t)s->ses, (uintmax_t)t.unreadable);
		if (t.grouping > 0)
			problem(p, "session %ju: %ju event(s) inside its span the review could not "
			    "group whole (a record late, an event closed for room, or a Landlock "
			    "event cut by the reading window: its halves are reported on their own)",
			    (uintmax_t)s->ses, (uintmax_t)t.grouping);
	}
	if (shown > SPAN_LINES)
		problem(p, "%zu more selected session(s) with a short Landlock domain, an "
		    "unreadable line or an event not grouped whole in their span",
		    r->span_trouble_hit - SPAN_LINES);
	if ((n = ab_review_unplaced(x->rv, AB_MARK_UNREADABLE)) > 0)
		problem(p, "%ju line(s) skipped as unreadable name no serial: where they lie, "
		    "and whose they were, cannot be told", (uintmax_t)n);
	if ((n = ab_review_unplaced(x->rv, AB_MARK_DOMAIN)) > 0)
		problem(p, "%ju Landlock domain(s) of no known session ended short of records "
		    "where the review could not keep their place", (uintmax_t)n);
}

/*
 * One problem() per selected session whose learning record is incomplete
 * (op=agentbox-learn-lost): what it tried after that was not recorded, so neither the
 * would-be denials nor a suggestion from them cover it.  Other sessions' are a note.
 */
static void
learn_problems(struct problems *p, const struct ab_facts *x)
{
	const struct ab_session *s;
	size_t shown = 0;

	for (size_t i = 0; (s = ab_review_session(x->rv, i)) != NULL; i++) {
		if (s->learn_lost == 0 || !ab_session_selected(x->rv, s))
			continue;
		if (shown++ < SPAN_LINES)
			problem(p, "session %ju: its learning record is incomplete (%s, %ju "
			    "agentbox-learn-lost record(s)): would-be denials after that were not "
			    "recorded", (uintmax_t)s->ses, s->learn_lost_reason,
			    (uintmax_t)s->learn_lost);
	}
	if (shown > SPAN_LINES)
		problem(p, "%zu more selected session(s) with an incomplete learning record",
		    shown - SPAN_LINES);
	shown = 0;
	for (size_t i = 0; (s = ab_review_session(x->rv, i)) != NULL; i++) {
		if (s->mask_lost == 0 || !ab_session_selected(x->rv, s))
			continue;
		if (shown++ < SPAN_LINES)
			problem(p, "session %ju: %ju live-mask denial(s) not on the record "
			    "(agentbox-maskd could not write them: agentbox-mask-lost)",
			    (uintmax_t)s->ses, (uintmax_t)s->mask_lost);
	}
	if (shown > SPAN_LINES)
		problem(p, "%zu more selected session(s) with live-mask denials not on the "
		    "record", shown - SPAN_LINES);
}

/* One problem() per reason the record may not be complete, in the report's order. */
static void
report_problems(struct problems *p, const struct ab_facts *x, const struct report *r)
{
	if (x->events == 0)
		problem(p, "no audit records in the input: nothing was seen, so nothing is vouched for");
	if (x->files_failed > 0)
		problem(p, "%zu input file(s) could not be read", x->files_failed);
	if (r->by_span)
		span_problems(p, x, r);
	else if (x->kernel_checked < 0)
		problem(p, "kernel lost counter unreadable (%s): run as root", strerror(-x->kernel_checked));
	else if (x->kernel_checked > 0 && x->kernel_lost > 0)
		problem(p, "the kernel dropped %ju audit records since boot (backlog limit %ju): "
		    "denials may be missing", (uintmax_t)x->kernel_lost, (uintmax_t)x->backlog_limit);
	if (r->by_span) {
		if (r->span_missing > 0)
			problem(p, "%ju serial(s) missing inside the spans of %zu selected "
			    "session(s): events that reached no log file, their denials may be "
			    "among them", (uintmax_t)r->span_missing, r->span_gap_hit);
		if (r->span_gap_unknown > 0)
			problem(p, "%zu selected session(s): the serials of their span cannot be "
			    "checked (runs folded for memory, or two boots' serials)",
			    r->span_gap_unknown);
	} else if (r->missing > 0) {
		char ranges[512] = "";
		size_t off = 0;

		/* A node name may be as long as a line: its first NODE_SHOWN bytes name it. */
		for (size_t i = 0; i < r->nex && off < sizeof(ranges) - 40; i++)
			off += (size_t)snprintf(ranges + off, sizeof(ranges) - off, "%s%.*s%s%s%ju..%ju",
			    i ? ", " : "", (int)(r->ex[i].node.n < NODE_SHOWN ? r->ex[i].node.n : NODE_SHOWN),
			    r->ex[i].node.p, r->ex[i].node.n > NODE_SHOWN ? "..." : "",
			    r->ex[i].node.n ? ":" : "", (uintmax_t)r->ex[i].lo, (uintmax_t)r->ex[i].hi);
		problem(p, "%ju serial(s) missing inside the range read (%s%s): events that "
		    "reached no log file", (uintmax_t)r->missing, ranges, r->nex < 5 ? "" : ", ...");
	}
	if (r->by_span)
		trouble_problems(p, x, r);
	if (!r->by_span && x->rs->domains_short > 0)
		problem(p, "%ju Landlock domain(s) counted more denials than the log holds "
		    "(%ju record(s) missing; %s)", (uintmax_t)x->rs->domains_short,
		    (uintmax_t)x->rs->domains_records_missing, x->rs->short_example);
	if (!r->by_span && x->malformed + x->overlong + x->nul_lines > 0)
		problem(p, "%ju line(s) skipped as unreadable (%ju malformed, %ju longer than %d "
		    "bytes, %ju with NUL bytes)", (uintmax_t)(x->malformed + x->overlong),
		    (uintmax_t)x->malformed, (uintmax_t)x->overlong, AB_LINE_MAX,
		    (uintmax_t)x->nul_lines);
	/* by_span: the fast engine placed each of these by its serial (trouble_problems). */
	if (!r->by_span && x->late > 0)
		problem(p, "%ju record(s) arrived after their event was closed (reported on their own)",
		    (uintmax_t)x->late);
	if (!r->by_span && x->evicted > 0)
		problem(p, "%ju event(s) closed for room before their last record (any later "
		    "record of theirs is reported on its own)", (uintmax_t)x->evicted);
	if (!r->by_span && x->cut > 0)
		problem(p, "%ju Landlock event(s) closed by the reading window before their "
		    "SYSCALL record (a later one is reported on its own, as a dac denial)",
		    (uintmax_t)x->cut);
	if (x->dropped > 0)
		problem(p, "%ju record(s) beyond %d in one event were ignored", (uintmax_t)x->dropped,
		    AB_EVENT_MAXREC);
	if (x->rs->daemon_abort + x->rs->daemon_err > 0)
		problem(p, "auditd reported %ju error(s)/abort(s) (DAEMON_ERR/DAEMON_ABORT)",
		    (uintmax_t)(x->rs->daemon_err + x->rs->daemon_abort));
	/* by_span: every selected session's start was read (its lost= made it so). */
	if (!r->by_span && r->no_start > 0)
		problem(p, "%zu session(s) with denials started before the oldest record read "
		    "(their start, and maybe earlier denials, are in rotated-away logs%s%s)",
		    r->no_start, x->oldest_file ? ": oldest file " : "", x->oldest_file ? x->oldest_file : "");
	bookkeeping_problems(p, x->rs);
	net_problems(p, x);
	learn_problems(p, x);
	if (!r->by_span && x->rs->domains_partial > 0)
		problem(p, "%ju Landlock domain(s) created before the oldest record read have "
		    "denials outside the logs read (%s)", (uintmax_t)x->rs->domains_partial,
		    x->rs->partial_example);
}

static void
report_text_head(FILE *f, const struct ab_facts *x, const struct report *r)
{
	char t1[64], t2[64];

	fmt_time(t1, sizeof(t1), x->rs->oldest_sec, 0, x->utc, 0);
	fmt_time(t2, sizeof(t2), x->rs->newest_sec, 0, x->utc, 0);
	fprintf(f, "completeness: %zu file(s), %ju lines, %ju events, serials seen %ju in "
	    "%zu run(s)%s%s%s%s%s\n", x->files_read, (uintmax_t)x->lines,
	    (uintmax_t)x->events, (uintmax_t)r->seen, r->nseg, x->rs->oldest_sec ? ", " : "",
	    x->rs->oldest_sec ? t1 : "", x->rs->oldest_sec ? " .. " : "",
	    x->rs->oldest_sec ? t2 : "", "");
}

/* by_span: what the report judged on the spans and found outside them. */
static void
span_notes(FILE *f, const struct ab_facts *x, const struct report *r)
{
	uint64_t bad = x->rs->domains_short + x->rs->domains_partial;
	uint64_t mine = r->span_ll_short + r->span_ll_unknown +
	    ab_review_unplaced(x->rv, AB_MARK_DOMAIN);
	uint64_t lines = x->malformed + x->overlong + x->nul_lines;
	uint64_t in = r->span_unreadable + ab_review_unplaced(x->rv, AB_MARK_UNREADABLE);

	if (bad > mine)
		fprintf(f, "  note: %ju Landlock domain(s) of other sessions counted more denials "
		    "than the logs read hold: not the selected session(s)' own\n",
		    (uintmax_t)(bad - mine));
	if (lines > in)
		fprintf(f, "  note: %ju line(s) skipped as unreadable outside the selected "
		    "session(s)' spans\n", (uintmax_t)(lines - in));
	if (x->late + x->evicted + x->cut > r->span_grouping)
		fprintf(f, "  note: %ju event(s) the review could not group whole lie outside the "
		    "selected session(s)' spans (late, closed for room, or cut by the reading "
		    "window)\n", (uintmax_t)(x->late + x->evicted + x->cut - r->span_grouping));
}

/* After the problems: the notes, the filters, and the verdict. */
static void
report_text_tail(FILE *f, const struct ab_facts *x, const struct report *r, int nproblems)
{
	if (r->by_span) {
		fprintf(f, "  losses: judged on the selected session(s)' own spans (the lost "
		    "counter in their start and end records): %ju lost during them",
		    (uintmax_t)r->span_lost);
		if (r->span_unjudged > 0)
			fprintf(f, "; %zu session(s) could not be judged", r->span_unjudged);
		fputc('\n', f);
	}
	if (r->by_span && r->missing > r->span_missing)
		fprintf(f, "  note: %ju serial(s) missing in the range read outside the selected "
		    "session(s)' spans: not their events\n", (uintmax_t)(r->missing - r->span_missing));
	if (r->by_span && r->no_start > 0)
		fprintf(f, "  note: %zu other session(s) with denials started before the oldest "
		    "record read\n", r->no_start);
	if (r->by_span)
		span_notes(f, x, r);
	if (r->by_span && x->kernel_checked > 0 && x->kernel_lost > 0)
		fprintf(f, "  note: the kernel dropped %ju audit records since boot (backlog limit "
		    "%ju), not during the selected session(s) unless said above\n",
		    (uintmax_t)x->kernel_lost, (uintmax_t)x->backlog_limit);
	else if (r->by_span && x->kernel_checked < 0)
		fprintf(f, "  note: kernel lost counter unreadable (%s): not needed for the "
		    "selected session(s)\n", strerror(-x->kernel_checked));
	else if (!r->by_span && x->kernel_checked == 0)
		fprintf(f, "  note: kernel lost counter not checked (--input: the log may come from "
		    "another host; --kernel-status checks this one)\n");
	else if (x->kernel_checked > 0)
		fprintf(f, "  kernel: 0 records lost since boot (backlog limit %ju)\n",
		    (uintmax_t)x->backlog_limit);
	fprintf(f, "  Landlock: %ju domain(s) checked against their denial counts, %ju still open\n",
	    (uintmax_t)x->rs->domains_checked, (uintmax_t)x->rs->domains_open);
	if (x->rs->net_records > 0)
		fprintf(f, "  network: %ju agentbox-netd decision record(s) read (%ju allowed, "
		    "%ju denied)\n", (uintmax_t)x->rs->net_records, (uintmax_t)x->rs->net_allowed,
		    (uintmax_t)x->rs->net_denied);
	if (x->rs->learn_records > 0)
		fprintf(f, "  learning: %ju would-be denial record(s) of agentbox-maskd read\n",
		    (uintmax_t)x->rs->learn_records);
	if (r->learn_lost_others > 0)
		fprintf(f, "  note: %zu session(s) not selected have an incomplete learning record\n",
		    r->learn_lost_others);
	if (x->rs->mask_records > 0)
		fprintf(f, "  live masks: %ju agentbox-maskd record(s) read (%ju repeats in them; "
		    "%ju kernel event(s) of the same denials joined to them)\n",
		    (uintmax_t)x->rs->mask_records, (uintmax_t)x->rs->mask_repeats,
		    (uintmax_t)x->rs->mask_joined);
	if (x->rs->refused > 0)
		fprintf(f, "  note: %ju login(s) refused by pam_agentbox (see the sessions command)\n",
		    (uintmax_t)x->rs->refused);
	if (x->rs->daemon_start > 1)
		fprintf(f, "  note: auditd started %ju times in this range\n",
		    (uintmax_t)x->rs->daemon_start);
	if (x->filtered)
		filter_line(f, x, r->nses, r->nsel);
	if (nproblems == 0)
		fprintf(f, "  COMPLETE: every serial in the %s is present; %ju denial(s)%s\n",
		    r->by_span ? "selected session(s)' spans" : "range",
		    (uintmax_t)x->rs->denials, x->filtered ? " match the filters" : "");
	else
		fprintf(f, "  => the record is NOT known to be complete: %ju denial(s) shown%s; "
		    "more may have happened\n", (uintmax_t)x->rs->denials,
		    x->filtered ? " (after filters)" : "");
}

/* After the problems: the counts, one JSON object in all. */
static void
report_json_tail(FILE *f, const struct ab_facts *x, const struct report *r, int nproblems)
{
	fprintf(f, "],\"complete\":%s,\"files\":%zu,\"lines\":%ju,\"events\":%ju,"
	    "\"serials_seen\":%ju,\"serials_missing\":%ju,\"boots\":%zu,\"kernel_lost\":",
	    nproblems ? "false" : "true", x->files_read, (uintmax_t)x->lines, (uintmax_t)x->events,
	    (uintmax_t)r->seen, (uintmax_t)r->missing, r->nseg);
	if (x->kernel_checked > 0)
		fprintf(f, "%ju", (uintmax_t)x->kernel_lost);
	else
		fputs("null", f);
	/* Which counter judged losses: the host's since boot, or the sessions' spans. */
	fprintf(f, ",\"lost_judged_on\":\"%s\",\"lost_during_sessions\":", r->by_span ?
	    "sessions" : "host");
	if (r->by_span)
		fprintf(f, "%ju", (uintmax_t)r->span_lost);
	else
		fputs("null", f);
	/* The serial check of the selected sessions' spans (null: judged on the range). */
	fputs(",\"serials_missing_in_sessions\":", f);
	if (r->by_span)
		fprintf(f, "%ju", (uintmax_t)r->span_missing);
	else
		fputs("null", f);
	/* The same for short Landlock domains and unreadable lines (null: not by span). */
	if (r->by_span)
		fprintf(f, ",\"landlock_short_in_sessions\":%ju,\"unreadable_in_sessions\":%ju,"
		    "\"ungrouped_in_sessions\":%ju",
		    (uintmax_t)(r->span_ll_short + r->span_ll_unknown),
		    (uintmax_t)(r->span_unreadable +
		    ab_review_unplaced(x->rv, AB_MARK_UNREADABLE)),
		    (uintmax_t)r->span_grouping);
	else
		fputs(",\"landlock_short_in_sessions\":null,\"unreadable_in_sessions\":null,"
		    "\"ungrouped_in_sessions\":null", f);
	fprintf(f, ",\"landlock_domains_checked\":%ju,\"landlock_domains_open\":%ju,"
	    "\"denials\":%ju,\"denials_before_filters\":%ju,\"filtered\":%s,"
	    "\"sessions\":%zu,\"sessions_before_filters\":%zu,\"net_records\":%ju,"
	    "\"net_allowed\":%ju,\"net_denied\":%ju,\"net_malformed\":%ju,"
	    "\"learn_records\":%ju,\"learn_malformed\":%ju,\"mask_records\":%ju,"
	    "\"mask_repeats\":%ju,\"mask_malformed\":%ju,\"mask_joined\":%ju,"
	    "\"mask_lost\":%ju}}\n",
	    (uintmax_t)x->rs->domains_checked, (uintmax_t)x->rs->domains_open,
	    (uintmax_t)x->rs->denials, (uintmax_t)x->rs->denials_all,
	    x->filtered ? "true" : "false", r->nsel, r->nses, (uintmax_t)x->rs->net_records,
	    (uintmax_t)x->rs->net_allowed, (uintmax_t)x->rs->net_denied,
	    (uintmax_t)x->rs->net_malformed, (uintmax_t)x->rs->learn_records,
	    (uintmax_t)x->rs->learn_malformed, (uintmax_t)x->rs->mask_records,
	    (uintmax_t)x->rs->mask_repeats, (uintmax_t)x->rs->mask_malformed,
	    (uintmax_t)x->rs->mask_joined, (uintmax_t)x->rs->mask_lost);
}

int
ab_out_completeness(FILE *f, int json, const struct ab_facts *x)
{
	struct problems p = { .f = f, .json = json };
	struct report r;

	report_compute(x, &r);
	if (json)
		fputs("{\"v\":1,\"completeness\":{\"problems\":[", f);
	else
		report_text_head(f, x, &r);
	report_problems(&p, x, &r);
	if (json)
		report_json_tail(f, x, &r, p.n);
	else
		report_text_tail(f, x, &r, p.n);
	return p.n > 0;
}
