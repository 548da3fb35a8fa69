/*
 * netd/tls.h: the gateway's TLS client (OpenSSL 3) toward a credential's host.
 *
 * The secret goes only to a peer that proves it is that host: TLS 1.2 or newer, the
 * chain verified against the system trust store (or a test CA), the name checked with
 * SSL_set1_host, SNI set, ALPN http/1.1 only (the gateway speaks HTTP/1.1). Returns 0 or
 * -errno, never prints; OpenSSL's error queue is cleared before returning.
 */
#ifndef AB_NETD_TLS_H
#define AB_NETD_TLS_H

#include <openssl/ssl.h>

/*
 * A client context for every gateway of the daemon (thread-safe to share). CAFILE: NULL
 * for the system store (the daemon), a PEM file of trusted CAs for tests. 0, -ENOMEM,
 * or -EIO (no trust store).
 */
int ab_netd_tls_ctx_new(const char *cafile, SSL_CTX **out);

/*
 * Handshake over the connected socket FD (blocking or not) as a client of HOST (a DNS
 * name; SNI and the verified name), by the monotonic DEADLINE_MS (ab_netd_tls_now_ms()
 * clock). On success *out owns nothing of FD: SSL_free it, then close FD.
 * -ETIMEDOUT, -EPROTO (handshake failed, e.g. not TLS), -EPERM (the certificate is not
 * valid for HOST or not trusted), -EINVAL (HOST is not a name), -ENOMEM.
 */
int ab_netd_tls_connect(SSL_CTX *ctx, int fd, const char *host, long long deadline_ms,
			SSL **out);

/* CLOCK_MONOTONIC in milliseconds: the clock of every deadline in netd/gateway.c. */
long long ab_netd_tls_now_ms(void);

/*
 * Wait until FD is ready for EVENTS (POLLIN/POLLOUT) or DEADLINE_MS passes: 0,
 * -ETIMEDOUT, or -errno from poll. EINTR is retried.
 */
int ab_netd_tls_wait(int fd, short events, long long deadline_ms);

#endif /* AB_NETD_TLS_H */
