/*
 * netd/loader.c: the policy loader, a helper process forked before the daemon drops
 * privileges.
 *
 * Why a separate process: ab_policy_load checks that each project exists (realpath), and
 * projects usually live in homes that are 0700 (Debian 12's adduser default), which the
 * daemon's user cannot search.  The loader keeps CAP_DAC_READ_SEARCH for that, and only
 * that: it runs as agentbox-netd, NO_NEW_PRIVS, dies with the daemon, and its one input
 * is a user name the daemon has validated.  The daemon itself keeps CAP_AUDIT_WRITE only.
 *
 * Protocol on a SOCK_SEQPACKET pair: request "ID USER"; reply messages, each "ID " and:
 * "digest HEX", "learn yes|no", then "allow RULE", "deny RULE", "priv CIDR" (each at most
 * AB_NETD_RULE_TEXT_MAX bytes), then one "cred NAME\tHOST\tHEADER\tPREFIX\tFILE\tENV" per
 * [credential:NAME] in order (PREFIX empty when not written; never the secret: the
 * daemon reads that itself, see session.c), then "end"; or one "error -ERRNO".  The daemon waits at
 * most AB_NETD_LOADER_MS (a login waits on it) and skips replies to requests it gave up
 * on, which the ID tells apart.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cap-ng.h>

#include "loader.h"
#include "policy.h"

/* A cred line holds a path: more room than a rule needs. */
#define LINE_MAX_ 8192

static int
send_line(int fd, unsigned id, const char *kind, const char *text)
{
	char buf[LINE_MAX_];
	int n = snprintf(buf, sizeof(buf), "%u %s %s", id, kind, text);

	if (n < 0 || (size_t)n >= sizeof(buf))
		return -E2BIG;
	return send(fd, buf, (size_t)n, MSG_NOSIGNAL) == n ? 0 : -EIO;
}

static int
send_list(int fd, unsigned id, const char *kind, const struct ab_strv *sv)
{
	size_t i;
	int r;

	for (i = 0; i < sv->n; i++)
		if ((r = send_line(fd, id, kind, sv->v[i])) != 0)
			return r;
	return 0;
}

/* One credential's fields, tab-separated; a tab in any of them is refused (-EINVAL). */
static int
send_cred(int fd, unsigned id, const struct ab_cred *c)
{
	const char *f[6] = { c->name, c->host, c->header, c->prefix ? c->prefix : "", c->file,
			     c->env };
	char text[LINE_MAX_ - 32];
	size_t i, off = 0;
	int n;

	for (i = 0; i < 6; i++) {
		if (strchr(f[i], '\t') != NULL)
			return -EINVAL;
		n = snprintf(text + off, sizeof(text) - off, "%s%s", i ? "\t" : "", f[i]);
		if (n < 0 || (size_t)n >= sizeof(text) - off)
			return -E2BIG;
		off += (size_t)n;
	}
	return send_line(fd, id, "cred", text);
}

static int
send_creds(int fd, unsigned id, const struct ab_policy *p)
{
	size_t i;
	int r;

	for (i = 0; i < p->ncreds; i++)
		if ((r = send_cred(fd, id, &p->creds[i])) != 0)
			return r;
	return 0;
}

static void
serve_one(int fd, unsigned id, const char *user)
{
	struct ab_strv allow = { 0 }, deny = { 0 }, priv = { 0 };
	struct ab_diag diag = { 0 };
	struct ab_policy *p = NULL;
	char hex[2 * AB_DIGEST_LEN + 1], err[32];
	bool learn = false;
	int r;

	if (!ab_user_name_valid(user))
		r = -EINVAL;
	else if ((r = ab_policy_load(NULL, user, &p, &diag)) == 0)
		r = ab_netd_rules_lists(p, &allow, &deny, &priv, &learn);
	ab_diag_free(&diag);
	if (r == 0) {
		ab_digest_hex(p->digest, hex);
		if ((r = send_line(fd, id, "digest", hex)) == 0 &&
		    (r = send_line(fd, id, "learn", learn ? "yes" : "no")) == 0 &&
		    (r = send_list(fd, id, "allow", &allow)) == 0 &&
		    (r = send_list(fd, id, "deny", &deny)) == 0 &&
		    (r = send_list(fd, id, "priv", &priv)) == 0 &&
		    (r = send_creds(fd, id, p)) == 0)
			r = send_line(fd, id, "end", "-");
	}
	if (r != 0) {
		snprintf(err, sizeof(err), "%d", r);
		(void)send_line(fd, id, "error", err);
	}
	ab_policy_free(p);
	ab_strv_free(&allow);
	ab_strv_free(&deny);
	ab_strv_free(&priv);
}

/* In the child: become the loader (see the top of the file), then serve until EOF. */
static void __attribute__((noreturn))
loader_main(int fd, uid_t uid, gid_t gid)
{
	char req[16 + AB_NETD_USER_MAX + 2], user[AB_NETD_USER_MAX + 2];
	unsigned id;
	ssize_t n;

	if (dup2(fd, 3) != 3 || close_range(4, ~0U, 0) != 0)
		_exit(1);
	fd = 3;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() == 1)
		_exit(1);
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED,
			 CAP_DAC_READ_SEARCH) != 0 ||
	    capng_change_id((int)uid, (int)gid, CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING) != 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || setuid(0) == 0)
		_exit(1);
	while ((n = recv(fd, req, sizeof(req) - 1, 0)) > 0) {
		req[n] = '\0';
		if (sscanf(req, "%u %33s", &id, user) == 2)
			serve_one(fd, id, user);
	}
	_exit(0);
}

int
ab_netd_loader_start(uid_t uid, gid_t gid, int *out, pid_t *pid)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -errno;
	if ((*pid = fork()) < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (*pid == 0) {
		close(sv[0]);
		loader_main(sv[1], uid, gid);
	}
	close(sv[1]);
	struct timeval tv = { AB_NETD_LOADER_MS / 1000, (AB_NETD_LOADER_MS % 1000) * 1000 };

	if (setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0) {
		close(sv[0]);
		return -errno;
	}
	*out = sv[0];
	return 0;
}

/*
 * The next reply message to request ID into buf (NUL-terminated, the ID and its blank
 * cut off); replies to requests given up on are skipped.  0, -ETIMEDOUT, -EPIPE, -errno.
 */
static int
recv_line(int fd, unsigned id, char *buf, size_t cap)
{
	for (;;) {
		ssize_t n = recv(fd, buf, cap - 1, 0);
		unsigned got;
		int off = 0;

		if (n <= 0)
			return n == 0 ? -EPIPE : errno == EAGAIN ? -ETIMEDOUT : -errno;
		buf[n] = '\0';
		if (sscanf(buf, "%u %n", &got, &off) == 1 && off > 0 && got == id) {
			memmove(buf, buf + off, (size_t)n - (size_t)off + 1);
			return 0;
		}
	}
}

int
ab_netd_loader_load(int fd, unsigned id, const char *user, char digest[65], bool *learn,
		    struct ab_strv *allow, struct ab_strv *deny, struct ab_strv *priv,
		    struct ab_strv *creds)
{
	char line[LINE_MAX_];
	int r, e, n;

	n = snprintf(line, sizeof(line), "%u %s", id, user);
	if (send(fd, line, (size_t)n, MSG_NOSIGNAL) != n)
		return -EPIPE;
	if ((r = recv_line(fd, id, line, sizeof(line))) != 0)
		return r;
	if (sscanf(line, "error %d", &e) == 1)
		return e < 0 ? e : -EIO;
	if (strncmp(line, "digest ", 7) != 0 || strlen(line + 7) != 64)
		return -EPROTO;
	memcpy(digest, line + 7, 65);
	if ((r = recv_line(fd, id, line, sizeof(line))) != 0)
		return r;
	if (strcmp(line, "learn yes") != 0 && strcmp(line, "learn no") != 0)
		return -EPROTO;
	*learn = strcmp(line, "learn yes") == 0;
	while ((r = recv_line(fd, id, line, sizeof(line))) == 0 && strcmp(line, "end -") != 0) {
		struct ab_strv *sv = strncmp(line, "allow ", 6) == 0 ? allow
				   : strncmp(line, "deny ", 5) == 0 ? deny
				   : strncmp(line, "priv ", 5) == 0 ? priv
				   : strncmp(line, "cred ", 5) == 0 ? creds : NULL;

		if (sv == NULL)
			return -EPROTO;
		if ((r = ab_strv_push(sv, strchr(line, ' ') + 1)) != 0)
			return r;
	}
	return r;
}
