/*
 * agentbox-audit internals: one audit log line (logline.c), records grouped into events
 * (group.c: the streaming fast path; auparse.c: libauparse, the reference), events turned
 * into denials, sessions and completeness facts (analyze.c, complete.c; agentbox-netd's
 * network records: net.c), and printed (output.c), or turned into a policy drop-in
 * (suggest.c).  Library-style: functions return 0 or -errno, never print, never exit;
 * only main.c, output.c and suggest.c write, and those two only to the FILE given.
 */
#ifndef AB_REVIEW_H
#define AB_REVIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest line we accept.  The kernel's records are under 9 KiB (MAX_AUDIT_MESSAGE_LENGTH
 * 8970) and the enriched suffix adds at most a few KiB: anything longer is corrupt or
 * hostile, is skipped with a warning, and counts against completeness. */
#define AB_LINE_MAX	(64 * 1024)

/* A length-delimited byte string: decoded audit values may hold any byte, NUL included. */
struct ab_str {
	const char	*p;
	size_t		 n;
};

/* Record types we tell apart; everything else is AB_T_OTHER. */
enum ab_type {
	AB_T_OTHER = 0,
	AB_T_SYSCALL,
	AB_T_PATH,
	AB_T_CWD,
	AB_T_PROCTITLE,
	AB_T_SOCKADDR,
	AB_T_OBJ_PID,
	AB_T_EOE,
	AB_T_LL_ACCESS,		/* LANDLOCK_ACCESS, or UNKNOWN[1423] from older auditd */
	AB_T_LL_DOMAIN,		/* LANDLOCK_DOMAIN, or UNKNOWN[1424] */
	AB_T_SECCOMP,
	AB_T_TRUSTED_APP,
	AB_T_LOGIN,
	AB_T_DAEMON,		/* auditd's own DAEMON_* records: not kernel serials */
	AB_T_USER,		/* other user-space records (1100-1299, 2100-2999): one per event */
	AB_T_FANOTIFY,		/* FANOTIFY (1331): a fanotify permission answer (agentbox-maskd) */
	AB_T_NTYPES
};

/* One parsed line.  Pointers point into the caller's line; nothing is copied. */
struct ab_rec {
	const char	*line;
	size_t		 len;
	struct ab_str	 node;		/* empty without a node= prefix */
	struct ab_str	 type;		/* as printed: "SYSCALL", "UNKNOWN[1423]" */
	enum ab_type	 t;
	uint64_t	 sec;		/* msg=audit(SEC.MS:SERIAL) */
	uint32_t	 ms;
	uint64_t	 serial;
	struct ab_str	 body;		/* the fields to the end of the line, including the
					 * enriched part (after 0x1d, log_format = ENRICHED) that
					 * ab_rec_field() stops at and ab_rec_enriched() reads */
};

/*
 * Parse the header of LINE (no newline).  Returns 0, or -EINVAL when the line is not an
 * audit record (no type=, no msg=audit(...), numbers out of range).  Fields are found on
 * demand with ab_rec_field(), which is what keeps the fast path fast.
 */
int	ab_rec_parse(const char *line, size_t len, struct ab_rec *r);

/* Classify a type name ("SYSCALL", "UNKNOWN[1423]", "LANDLOCK_ACCESS", ...). */
enum ab_type ab_type_of(const char *name, size_t n);

/*
 * Find field KEY in the record body; *v is the raw value (quotes kept, hex not decoded).
 * User-space records carry their own fields inside msg='...': with INNER those are
 * searched first, otherwise the outer ones are; with AB_INNER_ONLY only those (a field
 * the message lacks is then never the sender's header field of the same name).
 * Returns 0 or -ENOENT.
 */
#define AB_INNER_ONLY	2
int	ab_rec_field(const struct ab_rec *r, const char *key, int inner, struct ab_str *v);
/* The same for the enriched translations (UID="root", SYSCALL=openat, ...). */
int	ab_rec_enriched(const struct ab_rec *r, const char *key, struct ab_str *v);
/* Field KEY as an unsigned decimal (or hex with BASE 16).  -ENOENT, -EINVAL, -ERANGE. */
int	ab_rec_num(const struct ab_rec *r, const char *key, int inner, int base, uint64_t *out);
/*
 * A field of a daemon's own message (inside msg='...' only: the header's ses, uid and
 * auid are the daemon's, never a stand-in for a missing one), the contracts of
 * agentbox-netd's and agentbox-maskd's records.  _str: decoded into BUF, its length
 * returned, *TRUNC (if given) set when it did not fit.  _num: an unsigned decimal into
 * *OUT, else *OUT = UNSET; 0, -ENOENT (absent or "?"), -EINVAL (not a number).
 */
size_t	ab_rec_inner_str(const struct ab_rec *r, const char *key, char *buf, size_t cap,
	    int *trunc);
int	ab_rec_inner_num(const struct ab_rec *r, const char *key, uint64_t unset, uint64_t *out);

/*
 * Decode a raw value into OUT (capacity CAP, always NUL-terminated; *outn is the decoded
 * length, which may include NUL bytes).  "quoted" loses its quotes; an unquoted value of
 * a field the kernel or libaudit may hex-encode (path, name, cwd, exe, comm, proctitle,
 * key, user, ...) that is all upper-case hex of even length is decoded; "(null)" and "?"
 * give an empty string and return 1.  Returns 0, 1 (empty/unset), or -ENOSPC when CAP
 * was too small (OUT then holds the truncated prefix).
 */
int	ab_val_decode(const char *key, struct ab_str raw, char *out, size_t cap, size_t *outn);

/* ---- events ------------------------------------------------------------------------ */

/* A complete event: its records in arrival order (all with one node and serial). */
typedef void (*ab_event_fn)(void *arg, const struct ab_rec *recs, size_t n);

struct ab_group_stats {
	uint64_t	 lines;
	uint64_t	 records;
	uint64_t	 events;
	uint64_t	 late;		/* records that arrived after their event was closed */
	uint64_t	 dropped;	/* records beyond AB_EVENT_MAXREC in one event */
	uint64_t	 evicted;	/* open events closed for room in the grouping table */
	uint64_t	 cut;		/* Landlock events the window closed before their SYSCALL */
};

#define AB_EVENT_MAXREC	512

struct ab_group;
/* The streaming fast path: bounded memory, one pass.  See group.c for the rules. */
int	ab_group_new(ab_event_fn fn, void *arg, struct ab_group **out);
/* FN(ARG, SERIAL) for each record late, event evicted and Landlock event cut by the
 * window (the stats' late, evicted, cut): the review judges them on the spans. */
typedef void (*ab_trouble_fn)(void *arg, uint64_t serial);
void	ab_group_on_trouble(struct ab_group *g, ab_trouble_fn fn, void *arg);
/* One line (no newline).  Returns 0 or -EINVAL (not an audit record: the caller warns). */
int	ab_group_line(struct ab_group *g, const char *line, size_t len);
/* Close every open event (end of input, or --follow idle). */
void	ab_group_flush(struct ab_group *g);
const struct ab_group_stats *ab_group_stats(const struct ab_group *g);
void	ab_group_free(struct ab_group *g);

/* The libauparse engine: same callback, events assembled by libauparse. */
struct ab_aup;
int	ab_aup_new(ab_event_fn fn, void *arg, struct ab_aup **out);
int	ab_aup_feed(struct ab_aup *a, const char *data, size_t len);
void	ab_aup_flush(struct ab_aup *a);
const struct ab_group_stats *ab_aup_stats(const struct ab_aup *a);
void	ab_aup_free(struct ab_aup *a);

/* ---- the review ---------------------------------------------------------------------- */

/* AB_KIND_NET: a network decision of agentbox-netd (net.c); only its denied ones are
 * denials, the allowed ones are listed with --kind net and counted in the net view. */
enum ab_kind { AB_KIND_LANDLOCK = 0, AB_KIND_SECCOMP, AB_KIND_DAC, AB_KIND_NET, AB_KIND_N };
extern const char *const ab_kind_name[AB_KIND_N];
#define AB_KIND_LEARN_BIT	(1 << AB_KIND_N)

#define AB_UNSET32	4294967295ULL	/* auid/ses "unset" */

/* ---- network records (net.c) ----------------------------------------------------------- */

#define AB_NET_NONE	UINT64_MAX	/* a number the record does not give */

/* One op=agentbox-net record, decoded (docs/audit-records.md).  ses/uid/user are the
 * body's: the header's are the daemon's own. */
struct ab_net {
	uint64_t	 ses, uid;	/* AB_UNSET32 when absent */
	uint64_t	 port, count, bytes_up, bytes_down, dur_ms;	/* AB_NET_NONE: absent */
	uint64_t	 attempts;	/* count, or 1 */
	int		 allowed;	/* decision=allowed (and not event=deny) */
	int		 learn;		/* an allowed open with reason=learn: a would-be denial
					 * of a learning session (docs/audit-records.md) */
	int		 malformed;	/* not what the contract says: see ab_net_parse */
	int		 host_truncated;
	struct ab_str	 proto, host, addr, rule, reason;	/* rule, reason: empty for "-" */
	char		 b_user[64], b_proto[16], b_event[16], b_decision[16];
	char		 b_host[1024], b_addr[64], b_rule[512], b_reason[64];
};

/*
 * R as a network decision.  Returns 1 when R is not an op=agentbox-net record; 0; or
 * -EINVAL when it is one that does not say what the contract says (no ses or uid, no
 * host, a decision or event outside their values, a number that is not one): N is then
 * filled as far as it could be, malformed set, and anything not plainly allowed is read
 * as denied.
 */
int	ab_net_parse(const struct ab_rec *r, struct ab_net *n);
/* op=agentbox-net-session (event=open|end) or op=agentbox-net-session-end: 1 not one;
 * 0; -EINVAL without a session or with another event. */
int	ab_net_session_parse(const struct ab_rec *r, uint64_t *ses, char *event, size_t ecap,
	    char *reason, size_t rcap);

/* ---- learning records (learn.c) ------------------------------------------------------- */

/* One op=agentbox-learn record of agentbox-maskd, decoded: a would-be Landlock denial of
 * a learn = yes session.  ses/uid/pid/comm are the message's (the header is the
 * daemon's).  access is the Landlock right (fs.read_file, fs.read_dir, fs.execute,
 * fs.write_file), or the record's own value when it is not one of the contract's. */
struct ab_learn {
	uint64_t	 ses, uid, pid;	/* AB_UNSET32 when absent */
	int		 malformed;
	struct ab_str	 access, path, comm;
	char		 b_raw_access[32], b_comm[64], b_path[8192];
};
/*
 * R as a learning record.  Returns 1 when R is not op=agentbox-learn; 0; or -EINVAL when
 * it does not say what the contract says (no ses, uid, path or access; an access outside
 * read|list|execute|write; a path that is not absolute or was cut; a pid that is not a
 * number): L is filled as far as it could be and malformed set.
 */
int	ab_learn_parse(const struct ab_rec *r, struct ab_learn *l);
/* op=agentbox-learn-lost: 1 not one; 0; -EINVAL without ses or uid, or with a reason
 * outside table-full|overflow|read-error (*SES is then AB_UNSET32 when it had none). */
int	ab_learn_lost_parse(const struct ab_rec *r, uint64_t *ses, uint64_t *uid, char *reason,
	    size_t rcap);

/* ---- live-mask records (learn.c) ------------------------------------------------------ */

/* One op=agentbox-mask record of agentbox-maskd, decoded: a live-mask denial (EPERM) of
 * an open or exec, by a mask pattern or by the history of names ("history"), standing
 * for 1 + repeats denials.  ses/uid/pid/comm/prog are the message's. */
struct ab_mask {
	uint64_t	 ses, uid, pid;	/* AB_UNSET32 when absent */
	uint64_t	 repeats;	/* 0 when absent */
	int		 malformed;
	struct ab_str	 access, path, pattern, comm, prog;
	char		 b_access[16], b_comm[64], b_prog[4096 + 8], b_pattern[1024];
	char		 b_path[8192];
};
/*
 * R as a live-mask record.  Returns 1 when R is not op=agentbox-mask; 0; or -EINVAL when
 * it does not say what the contract says (no ses, uid or pattern; an access other than
 * open|exec; a path that is not absolute or was cut; a pid or repeats that is not a
 * number): M is filled as far as it could be and malformed set.
 */
int	ab_mask_parse(const struct ab_rec *r, struct ab_mask *m);
/* op=agentbox-mask-lost: 1 not one; 0; -EINVAL without ses, uid or count, or with a
 * reason other than write-error (*SES is then AB_UNSET32 when it had none). */
int	ab_mask_lost_parse(const struct ab_rec *r, uint64_t *ses, uint64_t *count);
/* op=agentbox-mask-end: agentbox-maskd ended session *SES, REASON one of failed-closed,
 * reader-gone, supervisor-gone, cannot-start ("?" when it says another).  1: not such a
 * record; 0; -EINVAL: malformed (no session, no uid, or an unknown reason). */
int	ab_mask_end_parse(const struct ab_rec *r, uint64_t *ses, char *reason, size_t len);

/* The net view: one row per session (or user), protocol, host, port, decision, reason. */
struct ab_netrow {
	uint64_t	 hash;
	char		*node, *user, *proto, *host, *reason, *rule;	/* rule: the first seen */
	uint64_t	 ses, uid, port;
	int		 allowed;
	uint64_t	 count;		/* connections opened / attempts denied */
	uint64_t	 closes;	/* close records (allowed) */
	uint64_t	 bytes_up, bytes_down;
	uint64_t	 first_sec, last_sec;
	uint32_t	 first_ms, last_ms;
};
struct ab_netview;
struct ab_denial;
int	ab_netview_new(int by_user, struct ab_netview **out);
/* Count D (a network decision: d->net set).  0; -ENOSPC past the table's rows; -ENOMEM. */
int	ab_netview_add(struct ab_netview *v, const struct ab_denial *d);
const struct ab_netrow *ab_netview_row(const struct ab_netview *v, size_t i);
int	ab_netview_by_user(const struct ab_netview *v);
void	ab_netview_free(struct ab_netview *v);

/* One denial, everything decoded.  Strings are valid until the callback returns. */
struct ab_denial {
	uint64_t	 sec;
	uint32_t	 ms;
	uint64_t	 serial;
	struct ab_str	 node;
	uint64_t	 ses;		/* AB_UNSET32: none */
	const char	*user;		/* name, or NULL */
	uint64_t	 uid, auid, pid;	/* AB_UNSET32 when unknown */
	struct ab_str	 exe, comm;
	enum ab_kind	 kind;
	struct ab_str	 access;	/* fs.read_file / net.connect_tcp / syscall / EACCES */
	struct ab_str	 path;		/* as the process saw it (absolute when CWD allowed) */
	struct ab_str	 dir;		/* Landlock fs.make_*, fs.remove_*: the directory its
					 * record names (path may name the entry in it) */
	const char	*host_path_note;	/* NULL: same as path; else why it differs */
	struct ab_str	 addr;		/* net: "127.0.0.1:443"; signal: "pid 12 (comm)" */
	const char	*syscall;	/* name from libaudit, or NULL */
	long		 exit;		/* syscall return, 0 if unknown */
	int		 has_exit;
	struct ab_str	 domain;	/* Landlock domain id (hex) */
	char		 rule[64];	/* "landlock domain 1d5..", "seccomp errno(1)", "audit key agentbox" */
	const struct ab_net *net;	/* kind net: the decision (its rule is net->rule) */
	int		 learn;		/* a would-be denial of a learning session: an
					 * op=agentbox-learn record (kind landlock) or a net
					 * open with reason=learn (kind net) */
	int		 malformed;	/* a learning or live-mask record not as the contract
					 * says */
	struct ab_str	 pattern;	/* a live mask's pattern (op=agentbox-mask), or empty */
	uint64_t	 repeats;	/* denials more that this one stands for (its
					 * repeats=N): counts add 1 + repeats */
};

/* ---- completeness (complete.c) ----------------------------------------------------- */

struct ab_complete;
int	ab_complete_new(struct ab_complete **out);
void	ab_complete_free(struct ab_complete *c);
/*
 * One kernel event seen (DAEMON_* records excluded: auditd numbers those itself).
 * Returns 0; -ENOSPC when the event's node or boot is beyond the tables (AB_MAX_NODES
 * nodes, node names beyond AB_NODE_BYTES, AB_MAX_SEGS boots on one node); -ENOMEM.
 * On error the serial is not tracked: the caller must not report completeness.
 */
int	ab_complete_serial(struct ab_complete *c, struct ab_str node, uint64_t serial, uint64_t sec);

struct ab_gap {
	struct ab_str	 node;		/* points into the completeness state */
	uint64_t	 lo, hi;	/* missing serials lo..hi inclusive */
};
/* Totals: missing serials over every node and boot, the number of boots (segments), and
 * up to MAX example gaps (largest first).  Returns the number of missing serials. */
uint64_t ab_complete_gaps(const struct ab_complete *c, struct ab_gap *ex, size_t max,
	    size_t *nex, size_t *nsegments, uint64_t *serials_seen);

/*
 * Serials missing on node NAME from LO to HI inclusive (HI = UINT64_MAX: to the last one
 * read), in the boot whose serials cover LO: a session's span.  0 and *missing; -ENOENT
 * when no serial read on NAME covers LO; -ERANGE when it cannot be told (the span reaches
 * runs folded for memory, or two boots' serials cover LO).
 */
int	ab_complete_missing_in(const struct ab_complete *c, struct ab_str name, uint64_t lo,
	    uint64_t hi, uint64_t *missing);

/* Kernel status over netlink (needs CAP_AUDIT_CONTROL): lost records since boot and the
 * backlog limit.  Returns 0 or -errno. */
int	ab_kernel_status(uint64_t *lost, uint64_t *backlog_limit);

/* ---- the analysis (analyze.c) -------------------------------------------------------- */

struct ab_filter {
	int		 have_session;
	uint64_t	 session;
	const char	*user;		/* name or decimal uid */
	int		 have_since, have_until;
	uint64_t	 since, until;	/* epoch seconds */
	int		 kinds;		/* bit mask of 1 << ab_kind, and AB_KIND_LEARN_BIT
					 * (--kind learn: the would-be denials, file and net);
					 * a denial passes when any bit selects it; 0 = all */
	const char	*path;		/* prefix (directory boundary) or glob */
	int		 net_decisions;	/* hand FN the allowed network decisions too (--kind
					 * net, the net view), not only the denied ones */
};

typedef void (*ab_denial_fn)(void *arg, const struct ab_denial *d);

struct ab_top;

struct ab_session {
	uint64_t	 nodehash;
	uint64_t	 ses;
	char		 node[64];
	char		 user[64];
	uint64_t	 uid;
	char		 service[64];
	char		 tty[64];
	char		 rhost[128];
	char		 digest[72];
	char		 network[16];
	char		 box[16];	/* persist = yes: the box the login built or joined */
	int		 learn;		/* learn=yes in a start record: a learning session */
	uint64_t	 learn_lost;	/* op=agentbox-learn-lost records: its learning record
					 * is incomplete from the first one on */
	uint64_t	 mask_records;	/* op=agentbox-mask records read: the kernel's events
					 * of its live-mask denials are joined to them */
	uint64_t	 mask_lost;	/* op=agentbox-mask-lost: denials not on the record */
	char		 mask_end[24];	/* op=agentbox-mask-end: why agentbox-maskd ended it */
	char		 learn_lost_reason[32];	/* the first one's reason */
	uint64_t	 init_pid;
	uint64_t	 start_sec, end_sec;
	uint32_t	 start_ms, end_ms;
	int		 have_start, have_end;
	int		 shared;	/* new_ses=no: the caller's ses, not one of its own */
	uint64_t	 logins;	/* start records seen for this ses */
	uint64_t	 ends;		/* end records seen for this ses */
	char		 end_reason[32];
	uint64_t	 first_sec;	/* earliest record of the session seen (session record
					 * or denial), 0 before the first */
	uint64_t	 last_sec;	/* latest one */
	uint64_t	 denials_all;	/* every denial of the session in the records read */
	uint64_t	 denials;	/* those that pass the filters; by_kind, paths and
					 * progs count these too */
	uint64_t	 by_kind[AB_KIND_N];
	struct ab_top	*paths, *progs;	/* summary: counts by path and by executable */
	/* Network decisions (network = proxy): connections opened and attempts denied that
	 * pass the filters, and every one of the session's records before filters. */
	uint64_t	 net_allowed, net_denied, net_records_all;
	char		 net_end[32];	/* op=agentbox-net-session end: its reason */
	/* The kernel's lost counter the session records carry (lost=, docs/audit-records.md):
	 * the lowest of its starts and the highest of its ends.  AB_LOST_NONE: no record
	 * said (older module, or the record not read); AB_LOST_BAD: one said something that
	 * is not a 32-bit count, or one start or end said and another did not. */
	int		 lost_start_st, lost_end_st;
	uint64_t	 lost_start, lost_end;
	/* Serials of its first start record and its last end record: the span in which
	 * a missing serial may have been one of its events (the serial-gap check). */
	uint64_t	 serial_start, serial_end;
	/* Landlock domains of its own (their denials carry its ses) that the kernel says
	 * denied more than the log holds: how many, and the records missing. */
	uint64_t	 ll_short, ll_missing;
};

enum { AB_LOST_NONE = 0, AB_LOST_OK, AB_LOST_BAD };

/* op=agentbox-session-refused: a login the PAM module refused (invariant 1). */
struct ab_refusal {
	uint64_t	 sec;
	uint32_t	 ms;
	char		 user[64];
	char		 service[64];
	char		 reason[200];
};

struct ab_review_stats {
	uint64_t	 denials;		/* after filters */
	uint64_t	 denials_all;		/* before filters */
	uint64_t	 refused;		/* op=agentbox-session-refused */
	uint64_t	 refused_selected;	/* those the filters select */
	uint64_t	 daemon_start, daemon_end, daemon_abort, daemon_err, daemon_rotate;
	uint64_t	 domains_checked, domains_short, domains_records_missing;
	uint64_t	 domains_partial, domains_open;
	uint64_t	 domains_unowned;	/* of short and partial: no session known */
	uint64_t	 oldest_sec, newest_sec;
	char		 short_example[160];
	char		 partial_example[160];
	/* Bookkeeping that failed (a table full, out of memory): what was not tracked may
	 * hide a serial gap, a denial or a session, so the completeness report turns each
	 * nonzero one into an INCOMPLETE line. */
	int		 err;			/* the first such error (-errno), sticky; 0 none */
	uint64_t	 oom;			/* allocations that failed, all kinds */
	uint64_t	 serials_untracked;	/* events never checked for serial gaps */
	uint64_t	 sessions_untracked;	/* session records and denials whose session
						 * the table could not hold */
	uint64_t	 domains_untracked;	/* Landlock records of a domain not held */
	uint64_t	 counts_lost;		/* per-session path/program counts not kept */
	uint64_t	 refusals_lost;		/* refused logins not kept for the list */
	/* Network records (net.c). */
	uint64_t	 net_records;		/* op=agentbox-net records read */
	uint64_t	 net_allowed, net_denied;	/* of those, by decision */
	uint64_t	 net_shown;		/* decisions handed to FN */
	uint64_t	 net_malformed;		/* not what the contract says (counted, listed
						 * when not plainly allowed) */
	/* Learning records (learn.c). */
	uint64_t	 learn_records;		/* op=agentbox-learn read */
	uint64_t	 learn_malformed;	/* learn and learn-lost records not as the
						 * contract says (listed, never vouched for) */
	uint64_t	 learn_lost_unattributed;	/* learn-lost without a session: any
						 * session's learning record may be short */
	/* Live-mask records (learn.c, analyze.c). */
	uint64_t	 mask_records;		/* op=agentbox-mask read */
	uint64_t	 mask_repeats;		/* the repeats they carry */
	uint64_t	 mask_malformed;	/* mask and mask-lost records not as the
						 * contract says (listed, never vouched for) */
	uint64_t	 mask_joined;		/* kernel events of live-mask denials not
						 * listed: their session's records stand for them */
	uint64_t	 mask_lost;		/* denials agentbox-maskd could not record */
	uint64_t	 mask_lost_unattributed;	/* mask-lost records of no session */
};

/* ---- troubles by serial (span.c) -------------------------------------------------------- */

/* AB_MARK_UNREADABLE: a line skipped as unreadable; AB_MARK_DOMAIN: a Landlock domain
 * of no known session that ended with fewer records in the log than its denials;
 * AB_MARK_GROUPING: a record late, an event evicted or cut by the reading window. */
enum ab_mark { AB_MARK_UNREADABLE = 0, AB_MARK_DOMAIN, AB_MARK_GROUPING, AB_MARK_N };
struct ab_marks;
int	ab_marks_new(struct ab_marks **out);
void	ab_marks_free(struct ab_marks *m);
/* PLACED 0: the serial is unknown (counted against every span). */
void	ab_marks_add(struct ab_marks *m, enum ab_mark k, int placed, uint64_t serial);
void	ab_marks_sort(struct ab_marks *m);	/* once, at the end of input */
uint64_t ab_marks_in(const struct ab_marks *m, enum ab_mark k, uint64_t lo, uint64_t hi);
/* In the union of N spans [lo, hi] (sorted in place), each counted once. */
uint64_t ab_marks_in_union(const struct ab_marks *m, enum ab_mark k, uint64_t (*spans)[2],
	    size_t n);
uint64_t ab_marks_unplaced(const struct ab_marks *m, enum ab_mark k);
uint64_t ab_marks_total(const struct ab_marks *m, enum ab_mark k);
/* The serial of msg=audit(SECONDS:SERIAL) in a line the parser refused: 0, -ENOENT
 * (none), -ERANGE. */
int	ab_line_serial(const char *line, size_t len, uint64_t *serial);

struct ab_review;
/* FN gets every denial that passes FILTER (may be NULL: sessions/summary only). */
int	ab_review_new(const struct ab_filter *filter, ab_denial_fn fn, void *arg,
	    struct ab_review **out);
/* The ab_event_fn to give an engine, with the review as its argument. */
void	ab_review_event(void *review, const struct ab_rec *recs, size_t n);
/* End of input: domains still open, sessions without a start. */
void	ab_review_finish(struct ab_review *rv);
const struct ab_review_stats *ab_review_stats(const struct ab_review *rv);
struct ab_complete *ab_review_complete(struct ab_review *rv);
/* Sessions in order of first appearance; NULL past the end. */
const struct ab_session *ab_review_session(const struct ab_review *rv, size_t i);
/* The filters the review was made with; whether any is set. */
const struct ab_filter *ab_review_filter(const struct ab_review *rv);
int	ab_review_filtering(const struct ab_review *rv);
/*
 * Whether the session-selecting filters (--session, --user, --since, --until) select S:
 * its id; its user (name, or uid when the filter is a number); its time span overlapping
 * [since, until], both ends inclusive, where a session whose start is not in the records
 * read began at an unknown earlier time and one without an end for every start is still
 * open.  --kind and --path do not select sessions: they narrow the counts.
 */
int	ab_session_selected(const struct ab_review *rv, const struct ab_session *s);
/*
 * What the kernel lost during S's span, judged from the counter its own records carry
 * (DESIGN invariant 5: the counter counts since boot, so only its change over the span is
 * the session's).  A session still open is judged against the counter now, when
 * KERNEL_CHECKED > 0 (KERNEL_LOST).  Returns AB_SPAN_HOST when S's start says nothing
 * (older records: only the host-wide counter can judge), else one of the others; *LOST is
 * the records lost during the span for AB_SPAN_LOST.
 */
enum ab_span {
	AB_SPAN_HOST,		/* no lost= at its start: judged by the host-wide counter */
	AB_SPAN_CLEAN,		/* the counter did not move during the span */
	AB_SPAN_LOST,		/* it rose by *LOST */
	AB_SPAN_BAD,		/* a value is malformed, or the counter fell (another boot) */
	AB_SPAN_OPEN,		/* still open and the counter now was not read */
};
enum ab_span ab_session_span_lost(const struct ab_session *s, int kernel_checked,
	    uint64_t kernel_lost, uint64_t *lost);
/*
 * What else lies inside S's span (from its first start record to its last end record,
 * or to the end of the input while it is open): serials missing (SERIALS_KNOWN 0 when
 * they cannot be told: runs folded for memory, two boots), its own Landlock domains
 * short of records, domains of no known session that ended during it short of records
 * (they may be its own), and lines skipped as unreadable.  -ENOENT when S's start was
 * not read (no span).  Unreadable lines and unknown domains whose serial could not be
 * read are not counted here: ab_review_unplaced says how many, against every span.
 */
struct ab_span_trouble {
	uint64_t	 serials_missing;
	int		 serials_known;
	uint64_t	 ll_short, ll_missing;
	uint64_t	 ll_unknown;
	uint64_t	 unreadable;
	uint64_t	 grouping;	/* records late, events evicted or cut by the window */
};
int	ab_session_trouble(const struct ab_review *rv, const struct ab_session *s,
	    struct ab_span_trouble *t);
/* S's span as serials [*LO, *HI]; -ENOENT without a start.  HI is UINT64_MAX while open. */
int	ab_session_serials(const struct ab_session *s, uint64_t *lo, uint64_t *hi);
/* Troubles of each kind (IN[AB_MARK_*]) inside the union of the selected sessions'
 * spans, each counted once; ab_review_unplaced: those whose serial could not be read. */
void	ab_review_trouble_selected(const struct ab_review *rv, uint64_t in[AB_MARK_N]);
uint64_t ab_review_unplaced(const struct ab_review *rv, enum ab_mark k);
/* A line the reader skipped as unreadable (malformed, too long, a NUL byte): kept by
 * the serial it names, when one can be read (ab_line_serial). */
void	ab_review_unreadable(struct ab_review *rv, const char *line, size_t len);
/* The ab_trouble_fn of the fast engine (ab_group_on_trouble), with the review as ARG. */
void	ab_review_grouping(void *review, uint64_t serial);
/* Refused logins the filters select (by user name and time; none under --session: they
 * have no session), in log order: the first AB_REFUSALS_MAX; all are counted. */
#define AB_REFUSALS_MAX	1024
const struct ab_refusal *ab_review_refusal(const struct ab_review *rv, size_t i);
void	ab_review_free(struct ab_review *rv);

/* Top-N counting with bounded memory (analyze.c): at most AB_TOP_MAX distinct keys,
 * the rest counted as "other". */
#define AB_TOP_MAX	1024
struct ab_top_item {
	char		*key;
	uint64_t	 count;
};
size_t	ab_top_list(const struct ab_top *t, struct ab_top_item *out, size_t max,
	    uint64_t *other);

/* Parse --since/--until: epoch, @epoch, YYYY-MM-DD[ HH:MM[:SS]] (local time, T allowed),
 * now, today, yesterday, or N[smhd] ago.  UPPER (--until): a day or a minute means its
 * last second.  Returns 0 or -EINVAL. */
int	ab_parse_time(const char *s, uint64_t now, int upper, uint64_t *out);

/* ---- output (output.c) ---------------------------------------------------------------- */

struct ab_out {
	FILE		*f;
	int		 json;
	int		 tty;		/* aligned, truncated columns; else tab-separated */
	int		 utc;		/* table times in UTC rather than local time */
	int		 header_done;
};

void	ab_out_denial(void *out, const struct ab_denial *d);
void	ab_out_sessions(struct ab_out *o, const struct ab_review *rv);
void	ab_out_summary(struct ab_out *o, const struct ab_review *rv);
void	ab_out_net(struct ab_out *o, const struct ab_netview *v, const struct ab_review *rv);

/* Everything the completeness report says, gathered by main. */
struct ab_facts {
	uint64_t	 lines, records, events, late, dropped, evicted, cut;
	uint64_t	 malformed, overlong, nul_lines, truncated_last;
	size_t		 files_read, files_failed;
	const char	*oldest_file;
	int		 kernel_checked;	/* 1 ok, 0 not asked (--input), -errno failed */
	uint64_t	 kernel_lost, backlog_limit;
	const struct ab_review_stats *rs;
	struct ab_complete *cp;
	const struct ab_review *rv;
	int		 filtered;
	int		 utc;		/* times in UTC (--utc) */
	uint64_t	 net_rows_lost;	/* net view: decisions its table could not hold */
	uint64_t	 suggest_dropped;	/* suggest: denials not judged */
};
/* Print the report to F (text, or one JSON object); returns 1 if the record is not
 * known to be complete, else 0. */
int	ab_out_completeness(FILE *f, int json, const struct ab_facts *x);

/* ---- suggest (suggest.c) ------------------------------------------------------------------ */

/*
 * `agentbox-audit suggest`: a policy drop-in for one user from the denials the filters
 * select.  ab_suggest_add is the review's ab_denial_fn; ab_suggest_print loads the user's
 * policy (POLICY_ROOT as ab_policy_load's root; NULL: /), judges every distinct denial
 * against it and writes the drop-in (or, with JSON, one object per line and per reason
 * not suggested) to F.  USER: --user (a name or uid), NULL for the only user the denials
 * name; HOME: the user's home when passwd here does not say (records of another host).
 * Returns 0, or -errno with ERR set to one line for a person.  Same records, same policy:
 * same output, byte for byte.
 */
#define AB_SUGGEST_ERR	256
struct ab_suggest;
struct ab_suggest_opts {
	const char	*policy_root;
	const char	*user;
	const char	*home;
	int		 json;
};
int	ab_suggest_new(struct ab_suggest **out);
void	ab_suggest_add(void *sg, const struct ab_denial *d);
int	ab_suggest_print(struct ab_suggest *sg, FILE *f, const struct ab_suggest_opts *o,
	    char *err, size_t errlen);
/* Session SES (uid UID, user USER) is selected and its learning record is incomplete
 * (op=agentbox-learn-lost, REASON): the drop-in's header says so when it is the user's. */
void	ab_suggest_learn_lost(struct ab_suggest *sg, uint64_t ses, uint64_t uid,
	    const char *user, const char *reason);
/* Denials not judged: distinct ones beyond the table, or lost to out of memory. */
uint64_t ab_suggest_dropped(const struct ab_suggest *sg);
void	ab_suggest_free(struct ab_suggest *sg);

#endif /* AB_REVIEW_H */
