/*
 * The walk plan (maskd/walkindex.h): agentbox-maskd keeps, per user and policy, the
 * directories of the trees that hold something the mask walk masks or protects, and
 * the login's walk (mask.c) reads only those, not the whole project: its cost follows
 * what there is to mask, not how big the project is (issue 12 item 4, issue 14).
 *
 * Asked host side, before step 3 (the world hides the control socket), and its answer
 * read at step 5, where the walk needs it: the daemon works out the plan while steps
 * 3 and 4 run (it used to be a round trip in the login's path).  Never decides
 * whether a login opens: no daemon, no index, a refusal, a malformed or late reply, and
 * the login walks all of its trees, as it did before there was an index.  What it gets
 * it trusts as it trusts the daemon's hand-off answer: root's, on a root-only socket.
 *
 * A plan cannot see mounts inside the trees (another filesystem sends the index no
 * events): the walk enters each such mount, and every directory on the way to it,
 * whole (ab_walkplan_enter).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "handoff.h"
#include "module.h"

#include <security/pam_ext.h>
#include <syslog.h>

/* The request: this user's trees and patterns, the index's key. */
static int
encode(const struct ab_sess *s, char *buf, size_t len, size_t *n)
{
	struct ab_walkplan_req q = { .uid = (uint32_t)s->uid, .home = (char *)s->home,
	    .projects = s->pol->project, .masks = s->pol->mask, .protects = s->pol->protect };

	return ab_walkplan_req_encode(&q, buf, len, n);
}

void
ab_walkplan_ask(struct ab_sess *s)
{
	static char buf[AB_MASKD_MSG_MAX];
	size_t n;
	int conn;

	if (s->maskd_path == NULL || s->ephemeral || s->pol->mask.n == 0 ||
	    encode(s, buf, AB_MASKD_MSG_MAX, &n) != 0 || (conn = ab_maskd_dial(s)) < 0)
		return;
	if (send(conn, buf, n, MSG_NOSIGNAL) != (ssize_t)n) {
		(void)close(conn);
		return;
	}
	s->plan_ask = conn;
}

void
ab_walkplan_connect(struct ab_sess *s)
{
	/* The check after the walk needs a connection made now, while /run is the host's
	 * (after the hand-off's own, which must not wait for a slot behind it), before the
	 * answer says whether there is a plan to check: one without it walks everything,
	 * and reports it. */
	if (s->plan_ask >= 0 && (s->plan_fd = ab_maskd_dial(s)) < 0)
		s->plan_fd = -1;
}

void
ab_walkplan_take(struct ab_sess *s)
{
	static char buf[AB_WALKPLAN_REPLY_MAX];
	struct ab_walkplan_reply *p;
	ssize_t got;
	int r;

	if (s->plan_ask < 0)
		return;
	got = recv(s->plan_ask, buf, sizeof(buf), 0);
	(void)close(s->plan_ask);
	s->plan_ask = -1;
	if (got > 0 && !(got >= 8 && strncmp(buf, "refused ", 8) == 0) &&
	    (p = calloc(1, sizeof(*p))) != NULL) {
		if ((r = ab_walkplan_reply_parse(buf, (size_t)got, p)) == 0) {
			s->plan = p;
		} else {
			pam_syslog(s->pamh, LOG_WARNING, "agentbox-maskd sent a malformed walk "
			    "plan (%s): walking every tree", strerror(-r));
			ab_walkplan_reply_free(p);
			free(p);
		}
	}
	/* A plan to prune by needs its check's connection; anything else needs none. */
	if (s->plan != NULL && s->plan->prune && s->plan_fd < 0)
		s->plan->prune = 0;
	if ((s->plan == NULL || !s->plan->prune) && s->plan_fd >= 0) {
		(void)close(s->plan_fd);
		s->plan_fd = -1;
	}
}

int
ab_walkplan_check(struct ab_sess *s)
{
	char msg[64], reply[16];
	ssize_t n = -1;
	int len;

	if (s->plan_fd < 0)
		return 0;
	len = snprintf(msg, sizeof(msg), "walkcheck %u %u", s->plan->id, s->plan->gen);
	if (send(s->plan_fd, msg, (size_t)len, MSG_NOSIGNAL) == len)
		n = recv(s->plan_fd, reply, sizeof(reply) - 1, 0);
	(void)close(s->plan_fd);
	s->plan_fd = -1;
	if (n <= 0)
		return 0;
	reply[n] = '\0';
	return strcmp(reply, "same") == 0;
}

/*
 * Mounts strictly inside a tree (mountinfo: this namespace's, the world's included), as
 * "full" for the walk: the index is told nothing about their filesystems.  They go in
 * the report too: what lies under a mount was never seen, and its unmount makes no
 * event, so the index keeps each as "full".
 */
static int
mount_in_tree(struct ab_sess *s, void *ctx, dev_t dev, const char *path)
{
	size_t i, n;
	const char *t;

	(void)ctx;
	(void)dev;
	for (i = 0; i < ab_trees_n(&s->pol->project); i++) {
		if ((t = ab_trees_path(s->home, &s->pol->project, i)) == NULL)
			continue;
		n = strcmp(t, "/") == 0 ? 0 : strlen(t);
		if (strncmp(path, t, n) == 0 && path[n] == '/' && path[n + 1] != '\0')
			return ab_strv_push(&s->plan_mounts, path) == 0 ? 0 :
			    ab_sess_fail(s, -ENOMEM, "out of memory");
	}
	return 0;
}

int
ab_walkplan_mounts(struct ab_sess *s)
{
	if (s->plan == NULL)
		return 0;
	return ab_each_mount(s, mount_in_tree, NULL);
}

int
ab_walkplan_enter(const struct ab_sess *s, const char *path, int *full)
{
	size_t i, n = strlen(path);
	const char *m;

	*full = ab_strv_sorted_has(&s->plan->fulls, path);
	if (*full || ab_strv_sorted_has(&s->plan->dirs, path))
		return 1;
	for (i = 0; i < s->plan_mounts.n; i++) {
		m = s->plan_mounts.v[i];
		if (strcmp(m, path) == 0)
			return *full = 1;
		if (strncmp(m, path, n) == 0 && m[n] == '/')
			return 1;	/* on the way to one */
	}
	return 0;
}

void
ab_walkplan_free(struct ab_sess *s)
{
	if (s->plan != NULL)
		ab_walkplan_reply_free(s->plan);
	free(s->plan);
	s->plan = NULL;
	ab_strv_free(&s->plan_mounts);
	ab_strv_free(&s->walk_found);
}
