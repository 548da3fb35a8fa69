/*
 * Session records for the audit trail (docs/audit-records.md is the contract):
 * AUDIT_TRUSTED_APP messages sent with libaudit, carrying the session's own audit
 * session id (the kernel adds ses= auid= to the record header from our credentials).
 * Values a user could influence (user, service, tty, rhost, reason) are encoded with
 * audit_encode_nv_string, so they cannot forge fields.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libaudit.h>

#include "maskd.h"
#include "module.h"

/*
 * Open the audit socket now, in the host's network namespace, and ask the kernel
 * whether audit is on: with audit disabled it drops user messages silently, so a
 * required audit trail needs to know.  The kernel answers AUDIT_GET from a kernel thread
 * it creates per request (audit_send_reply): the send pays the thread's creation, and
 * the answer arrives once that thread is scheduled.  We read it in ab_auditrec_enabled,
 * after the world is built, so that wait overlaps our work instead of adding to it.
 * Returns the fd or -errno.
 */
int
ab_auditrec_open(void)
{
	int fd = audit_open();

	if (fd < 0)
		return -errno;
	/* libaudit sets it; made sure of here, as su/sshd fork and exec while we hold it. */
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
		audit_close(fd);
		return -errno;
	}
	(void)audit_request_status(fd);	/* an error shows up as "unknown" below */
	return fd;
}

/*
 * The answer to ab_auditrec_open's question: 1 audit on, 0 off, -1 unknown (only the
 * initial pid namespace may ask, e.g. not sshd in a container, or no answer within
 * a second): then we rely on the send succeeding.  The same answer holds the kernel's
 * lost counter, put in *LOST (-1 unknown): read before the session's first record, so
 * a loss in between counts against the session, never for it.
 */
#define STATUS_WAIT_MS 1000

int
ab_auditrec_enabled(int fd, struct ab_audit_state *st)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct audit_reply rep;
	int i, rc;

	*st = (struct ab_audit_state){ -1, -1, -1 };
	for (i = 0; i < STATUS_WAIT_MS / 10; i++) {
		rc = audit_get_reply(fd, &rep, GET_REPLY_NONBLOCKING, 0);
		if (rc > 0) {
			if (rep.type == AUDIT_GET) {
				st->lost = rep.status->lost;
				st->backlog = rep.status->backlog;
				st->backlog_limit = rep.status->backlog_limit;
				return rep.status->enabled != 0;
			}
			if (rep.type == NLMSG_ERROR && rep.error->error != 0)
				return -1;	/* EPERM outside the initial pid namespace */
			continue;		/* the ack, or someone else's message */
		}
		if (poll(&pfd, 1, 10) == -1 && errno != EINTR)
			return -1;
	}
	return -1;
}

/* "lost=N backlog=N backlog_limit=N", "?" for what the kernel did not say (the reader
 * then cannot judge the session's span and falls back on the host-wide counter's
 * verdict).  The backlog says how near the queue was to dropping records. */
#define STATE_STR	96

static void
state_str(char buf[STATE_STR], const struct ab_audit_state *st)
{
	char l[24] = "?", b[24] = "?", m[24] = "?";

	if (st->lost >= 0)
		snprintf(l, sizeof(l), "%lld", st->lost);
	if (st->backlog >= 0)
		snprintf(b, sizeof(b), "%lld", st->backlog);
	if (st->backlog_limit >= 0)
		snprintf(m, sizeof(m), "%lld", st->backlog_limit);
	snprintf(buf, STATE_STR, "lost=%s backlog=%s backlog_limit=%s", l, b, m);
}

/* "name=value" encoded, or NULL on allocation failure. */
static char *
nv(const char *name, const char *value)
{
	return audit_encode_nv_string(name, value != NULL ? value : "", 0);
}

int
ab_auditrec_start(int fd, const struct ab_sess *s, const char *service, const char *tty,
    const char *rhost)
{
	char hex[2 * AB_DIGEST_LEN + 1], lost[STATE_STR], *u, *sv, *t, *rh;
	int r = -ENOMEM;

	ab_digest_hex(s->pol->digest, hex);
	state_str(lost, &s->audit_st);
	u = nv("user", s->user);
	sv = nv("service", service);
	t = nv("tty", tty);
	rh = nv("rhost", rhost);
	if (u != NULL && sv != NULL && t != NULL && rh != NULL)
		r = ab_maskd_audit_send(fd, 1, "op=agentbox-session-start ses=%u %s uid=%u %s %s %s "
		    "digest=%s network=%s masks=%u protects=%u init_pid=%d new_ses=%s %s%s%s%s%s",
		    s->ses, u, (unsigned)s->uid, sv, t, rh, hex, ab_network_name(s->pol->network),
		    s->masks, s->protects, (int)s->init_pid, s->ses_fresh ? "yes" : "no", lost,
		    s->box_id[0] ? " box=" : "", s->box_id,
		    s->box_id[0] ? (s->joined ? " box_op=join" : " box_op=build") : "",
		    s->pol->learn == AB_YES ? " learn=yes" : "");
	free(u);
	free(sv);
	free(t);
	free(rh);
	return r;
}

int
ab_auditrec_end(int fd, uint32_t ses, const char *user, uid_t uid, const char *service,
    pid_t init_pid, const char *box_id)
{
	char *u = nv("user", user), *sv = nv("service", service), lost[STATE_STR];
	struct ab_audit_state st = { -1, -1, -1 };
	int r = -ENOMEM;

	/* Asked after every process of the session is gone: what they logged was counted
	 * by then if the backlog dropped it (a record dropped later, inside the kernel's
	 * queue, already had its serial: the review's serial-gap check sees it). */
	if (audit_request_status(fd) > 0)
		(void)ab_auditrec_enabled(fd, &st);
	state_str(lost, &st);
	if (u != NULL && sv != NULL)
		r = ab_maskd_audit_send(fd, 1, "op=agentbox-session-end ses=%u %s uid=%u %s init_pid=%d "
		    "reason=logout %s%s%s", ses, u, (unsigned)uid, sv, (int)init_pid, lost,
		    box_id[0] ? " box=" : "", box_id);
	free(u);
	free(sv);
	return r;
}

int
ab_auditrec_refused(int fd, const char *user, const char *service, const char *reason)
{
	char *u = nv("user", user), *sv = nv("service", service), *why = nv("reason", reason);
	int r = -ENOMEM;

	if (u != NULL && sv != NULL && why != NULL)
		r = ab_maskd_audit_send(fd, 0, "op=agentbox-session-refused %s %s %s", u, sv, why);
	free(u);
	free(sv);
	free(why);
	return r;
}
