/*
 * netd/dnsserve.c: the box's DNS at 127.0.0.1:53 (UDP and TCP), answered with dns.c.
 * A name is decided first (rules.c, in host.c's spelling) and resolved on the host only
 * when allowed; a denied name gets REFUSED and one (folded) record, and causes no lookup
 * anywhere.  UDP runs in one thread per session (lookups block), TCP connections in the
 * conn.c workers.
 *
 * An answered name has no record of its own, allowed by a rule or, in a learning session,
 * by learning (rules.c): the connection that follows is the decision on the record (its
 * open says reason=learn), and a record per answer would flood the trail with every
 * resolver's retries.  A name refused in a learning session (a deny_host) is recorded as
 * in enforcing mode.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon.h"
#include "dns.h"

static int
dns_allowed(void *ctx, const char *name)
{
	struct ab_netd_session *s = ctx;
	enum ab_netd_reason why;
	const char *rule;

	return ab_netd_decide_dns_name(&s->rules, name, &why, &rule) ? 1 : 0;
}

static int
dns_resolve(void *ctx, const char *name, int family, struct sockaddr_storage *out,
	    size_t max, size_t *n)
{
	enum ab_netd_reason why;

	return ab_netd_resolve(ctx, name, family, out, max, n, &why, NULL);
}

/* A refused name's record, with the deny rule that refused it, if one did. */
static void
record_refusal(struct ab_netd_session *s, const struct ab_netd_dns_verdict *v)
{
	struct ab_netd_event ev = {
		.ses = s->ses, .uid = s->uid, .user = s->user, .proto = "dns",
		.event = "deny", .host = v->name[0] ? v->name : "?",
		.port = AB_NETD_PORT_DNS, .reason = AB_NETD_R_NO_RULE,
	};

	if (v->name[0] != '\0')
		(void)ab_netd_decide_dns_name(&s->rules, v->name, &ev.reason, &ev.rule);
	ab_netd_record(s->d->rec, &ev, ab_netd_now_ms());
}

/* One query: the reply into out, and the record of a refusal. */
static int
answer(struct ab_netd_session *s, const uint8_t *in, size_t len, bool tcp, uint8_t *out,
       size_t cap, size_t *outlen)
{
	const struct ab_netd_dns_hooks hooks = { dns_allowed, dns_resolve, s };
	struct ab_netd_dns_verdict v;
	int r;

	memset(&v, 0, sizeof(v));
	r = ab_netd_dns_answer(&hooks, in, len, tcp, out, cap, outlen, &v);
	if (r == 0 && v.rcode == AB_NETD_DNS_REFUSED && (!v.decided || !v.allowed))
		record_refusal(s, &v);
	return r;
}

struct udp {
	struct ab_netd_session *s;
	int fd;
};

static void *
udp_thread(void *arg)
{
	struct udp *u = arg;
	uint8_t in[AB_NETD_DNS_QUERY_MAX + 1], out[AB_NETD_DNS_UDP_MAX + 2];

	for (;;) {
		struct pollfd p[2] = { { .fd = u->fd, .events = POLLIN },
				       { .fd = u->s->stopfd, .events = POLLIN } };
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		size_t outlen = 0;
		ssize_t n;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents != 0)
			break;
		if ((p[0].revents & POLLIN) == 0)
			continue;
		n = recvfrom(u->fd, in, sizeof(in), MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&from, &fl);
		if (n < 0 || (size_t)n > AB_NETD_DNS_QUERY_MAX)
			continue;	/* oversized: no reply (dns.c never reads it) */
		if (answer(u->s, in, (size_t)n, false, out, sizeof(out), &outlen) == 0 &&
		    outlen > 0)
			(void)sendto(u->fd, out, outlen, MSG_DONTWAIT | MSG_NOSIGNAL,
				     (struct sockaddr *)&from, fl);
	}
	close(u->fd);
	ab_netd_session_unref(u->s);
	free(u);
	return NULL;
}

int
ab_netd_dns_udp_start(struct ab_netd_session *s, int fd)
{
	struct udp *u = malloc(sizeof(*u));
	pthread_attr_t attr;
	pthread_t t;
	int r;

	if (u == NULL)
		return -ENOMEM;
	*u = (struct udp){ s, fd };
	pthread_mutex_lock(&s->lock);
	s->refs++;
	pthread_mutex_unlock(&s->lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	r = pthread_create(&t, &attr, udp_thread, u);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		ab_netd_session_unref(s);
		free(u);
		return -r;
	}
	return 0;
}

/* One DNS-over-TCP connection: messages in order, each answered; idle 10 s: closed. */
void
ab_netd_dns_tcp_serve(struct ab_netd_session *s, int fd)
{
	uint8_t buf[2 + AB_NETD_DNS_QUERY_MAX], out[2 + AB_NETD_DNS_UDP_MAX + 2];
	size_t have = 0;

	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = s->stopfd, .events = POLLIN } };
		const uint8_t *msg;
		size_t msglen, used, outlen = 0;
		ssize_t n;
		int r;

		r = ab_netd_dns_tcp_next(buf, have, &msg, &msglen, &used);
		if (r == -EAGAIN) {
			if (poll(p, 2, AB_NETD_DNS_TCP_MS) <= 0 || p[1].revents != 0)
				return;
			n = recv(fd, buf + have, sizeof(buf) - have, MSG_DONTWAIT);
			if (n <= 0)
				return;
			have += (size_t)n;
			continue;
		}
		if (r != 0)
			return;
		if (answer(s, msg, msglen, true, out, sizeof(out), &outlen) != 0 ||
		    (outlen > 0 && ab_io_write_all(fd, out, outlen) != 0))
			return;
		memmove(buf, buf + used, have - used);
		have -= used;
	}
}
