/*
 * netd/gwconn.c: one connection on a credential's gateway listener (127.0.0.1:3129+i in
 * the box), in its worker thread: resolve the credential's host on the host, check each
 * address against the session's address policy (resolve.c, addr.c), and hand the first
 * checked one to ab_netd_gateway_serve (gateway.c), which adds the secret and speaks TLS
 * to that host only.  Records proto=gateway (netd-spec §5): open once the address is
 * checked, close with bytes and duration; a refused address is one deny.
 *
 * The gateway's waits also watch the session's stopfd (gw.stop_fd), so the end of the
 * session ends the connection at once, even one waiting on a silent upstream.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon.h"
#include "gateway.h"

/* The gateway's reason words (gateway.h) as the record's reason. */
static enum ab_netd_reason
gw_reason(const char *why)
{
	static const struct {
		const char *word;
		enum ab_netd_reason r;
	} map[] = {
		{ "bad-request", AB_NETD_R_BAD_REQUEST }, { "timeout", AB_NETD_R_TIMEOUT },
		{ "limit", AB_NETD_R_LIMIT }, { "dial-failed", AB_NETD_R_DIAL_FAILED },
	};
	size_t i;

	for (i = 0; why != NULL && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(why, map[i].word) == 0)
			return map[i].r;
	return AB_NETD_R_NONE;
}

static void
bad_gateway(int fd)
{
	static const char msg[] = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n"
				  "Connection: close\r\n\r\n";

	(void)send(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL);
}

void
ab_netd_gateway_conn(struct ab_netd_session *s, int fd, size_t i)
{
	const struct ab_netd_gwcred *c = &s->cred[i];
	struct sockaddr_storage addrs[1], refused = { 0 };
	struct ab_netd_gw_stats st = { 0 };
	enum ab_netd_reason why;
	char addr[INET6_ADDRSTRLEN] = "";
	uint64_t t0 = ab_netd_now_ms();
	size_t n = 0;
	struct ab_netd_event ev = {
		.ses = s->ses, .uid = s->uid, .user = s->user, .proto = "gateway",
		.host = c->host, .port = s->d->gw_port, .rule = c->name,
	};

	if (ab_netd_resolve(s, c->host, AF_UNSPEC, addrs, 1, &n, &why, &refused) != 0)
		why = AB_NETD_R_RESOLVE_FAILED;
	if (why != AB_NETD_R_NONE) {
		if (refused.ss_family != 0)
			ab_netd_addr_text(&refused, addr, sizeof(addr));
		bad_gateway(fd);
		ev.event = "deny", ev.reason = why, ev.addr = addr[0] ? addr : NULL;
		ab_netd_record(s->d->rec, &ev, ab_netd_now_ms());
		return;
	}
	ab_netd_set_port(&addrs[0], s->d->gw_port);
	ab_netd_addr_text(&addrs[0], addr, sizeof(addr));
	struct ab_netd_gw gw = {
		.host = c->host, .port = s->d->gw_port, .addr = (struct sockaddr *)&addrs[0],
		.addrlen = addrs[0].ss_family == AF_INET ? sizeof(struct sockaddr_in)
							 : sizeof(struct sockaddr_in6),
		.tls = s->d->tls, .header = c->header, .prefix = c->prefix,
		.secret = c->secret, .secret_len = c->secret_len, .stop_fd = &s->stopfd,
	};

	ev.event = "open", ev.allowed = true, ev.addr = addr;
	ab_netd_record(s->d->rec, &ev, ab_netd_now_ms());
	ab_netd_gateway_serve(fd, &gw, &st);
	ev.event = "close", ev.reason = gw_reason(st.reason);
	ev.bytes_up = st.bytes_up, ev.bytes_down = st.bytes_down;
	ev.dur_ms = ab_netd_now_ms() - t0;
	ab_netd_record(s->d->rec, &ev, ab_netd_now_ms());
}
