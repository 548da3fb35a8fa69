/*
 * netd/gateway.h: the base-URL credential gateway (issue 11 item 4, netd-spec §4).
 *
 * In the box, 127.0.0.1:(3129+i) is the plain-HTTP endpoint of the user's i-th
 * credential (the agent's ANTHROPIC_BASE_URL etc.). Each connection accepted there is
 * served here, on the host, in one of the daemon's worker threads: every credential
 * header the box sent is dropped, the real one is added, Host becomes the credential's
 * host, and the request goes over verified TLS to that host only. Responses stream back
 * unbuffered (SSE), with every occurrence of the secret replaced by "[redacted]": the
 * box never holds the secret, not even by echo.
 */
#ifndef AB_NETD_GATEWAY_H
#define AB_NETD_GATEWAY_H

#include <stdint.h>
#include <sys/socket.h>

#include <openssl/ssl.h>

#define AB_NETD_GW_BODY_MAX (32u << 20)	/* request body cap */
#define AB_NETD_GW_HEAD_MS 10000		/* a request head, from its first byte */
#define AB_NETD_GW_IDLE_MS 300000		/* between requests; silence of a stream */
#define AB_NETD_GW_DIAL_MS 10000		/* TCP connect + TLS handshake */

struct ab_netd_gw {
	const char *host;		/* the credential's host: SNI, verified name, Host */
	uint16_t port;			/* 443; tests: their fake upstream's */
	/* The address dialled: the caller resolved HOST and checked the address
	 * (netd/addr.c); the gateway dials exactly this one. */
	const struct sockaddr *addr;
	socklen_t addrlen;
	SSL_CTX *tls;			/* ab_netd_tls_ctx_new(): trust store, TLS 1.2+ */
	const char *header;		/* the field the secret goes in, e.g. "x-api-key" */
	const char *prefix;		/* put before the secret, e.g. "Bearer "; or NULL */
	const char *secret;		/* visible ASCII (netd/cred.c), never sent to the box */
	size_t secret_len;
	int head_ms, idle_ms, dial_ms;	/* 0: the AB_NETD_GW_* defaults */
	uint64_t body_max;		/* 0: AB_NETD_GW_BODY_MAX */
	/* NULL, or an fd that becomes readable when the connection must end now (the
	 * daemon's session ended): every wait on the box or the upstream also watches it. */
	const int *stop_fd;
};

struct ab_netd_gw_stats {
	uint64_t bytes_up;		/* bytes read from the box */
	uint64_t bytes_down;		/* bytes written to the box */
	unsigned requests;		/* requests sent upstream */
	int status;			/* the last status line sent to the box, or 0 */
	const char *reason;		/* why the gateway ended the connection, in the
					 * audit record's words (netd-spec §5), or NULL */
};

/*
 * Serve CLIENT_FD (a connected stream socket from the box; blocking or not) until the box
 * closes it, stays idle past idle_ms, or a request is refused. Several requests per
 * connection (HTTP/1.1 keep-alive); one upstream connection, opened at the first
 * request, reopened when the upstream closes it. Refusals answer the box and end the
 * connection: 400 malformed or ambiguous (CL+TE, ...), 431 head too large, 408 head
 * too slow, 405 TRACE/TRACK, 501 Upgrade (WebSocket), 417 an Expect other than
 * 100-continue, 413 body over body_max, 502 upstream unreachable, not the credential's
 * host (certificate), or a response that cannot be relayed safely (framing, or a
 * Content-Encoding that would hide the secret from redaction).
 * The caller ignores SIGPIPE (OpenSSL writes to the upstream socket with write(2)), and
 * keeps CLIENT_FD open until this returns; CLIENT_FD is not closed here.
 * Returns 0 (the box ended the connection, or idle), or -errno with st->reason set:
 * -EBADMSG/-EMSGSIZE "bad-request", -ETIMEDOUT "timeout", -EFBIG "limit",
 * -ECONNREFUSED/-EPERM/-EPROTO... "dial-failed" (before a request went upstream),
 * -EPROTO "bad-response". ST is zeroed first and filled in any case.
 */
int ab_netd_gateway_serve(int client_fd, const struct ab_netd_gw *gw,
			  struct ab_netd_gw_stats *st);

#endif /* AB_NETD_GATEWAY_H */
