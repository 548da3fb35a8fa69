/*
 * netd/tls.c: TLS client for the credential gateway (netd/tls.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "tls.h"

long long
ab_netd_tls_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* cannot fail for CLOCK_MONOTONIC */
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
ab_netd_tls_wait(int fd, short events, long long deadline_ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	long long left;
	int r;

	for (;;) {
		left = deadline_ms - ab_netd_tls_now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
		if (r > 0)
			return 0;	/* ready, or POLLERR/POLLHUP: the next call says which */
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

int
ab_netd_tls_ctx_new(const char *cafile, SSL_CTX **out)
{
	static const unsigned char alpn[] = "\x08http/1.1";
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	int r = -EIO;

	if (ctx == NULL) {
		ERR_clear_error();
		return -ENOMEM;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	/* Renegotiation and compression off; TLS 1.2 is the oldest the model APIs speak. */
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
	if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
	    SSL_CTX_set_alpn_protos(ctx, alpn, sizeof(alpn) - 1) != 0)
		goto fail;
	if ((cafile != NULL ? SSL_CTX_load_verify_locations(ctx, cafile, NULL)
			    : SSL_CTX_set_default_verify_paths(ctx)) != 1)
		goto fail;
	*out = ctx;
	return 0;
fail:
	ERR_clear_error();
	SSL_CTX_free(ctx);
	return r;
}

/* HOST must be a DNS name: an IP literal has no SNI and another verification path. */
static bool
is_name(const char *host)
{
	unsigned char a[16];

	return host[0] != '\0' && inet_pton(AF_INET, host, a) != 1 &&
	       inet_pton(AF_INET6, host, a) != 1;
}

/* One SSL_connect step's outcome: 1 done, 0 wait (done in *ev), or -errno. */
static int
step(SSL *ssl, short *ev)
{
	int r = SSL_connect(ssl);

	if (r == 1)
		return 1;
	switch (SSL_get_error(ssl, r)) {
	case SSL_ERROR_WANT_READ:
		*ev = POLLIN;
		return 0;
	case SSL_ERROR_WANT_WRITE:
		*ev = POLLOUT;
		return 0;
	default:
		return SSL_get_verify_result(ssl) != X509_V_OK ? -EPERM : -EPROTO;
	}
}

int
ab_netd_tls_connect(SSL_CTX *ctx, int fd, const char *host, long long deadline_ms,
		    SSL **out)
{
	SSL *ssl;
	short ev = 0;
	int r;

	if (!is_name(host))
		return -EINVAL;
	if ((ssl = SSL_new(ctx)) == NULL) {
		ERR_clear_error();
		return -ENOMEM;
	}
	if (SSL_set_fd(ssl, fd) != 1 || SSL_set_tlsext_host_name(ssl, host) != 1 ||
	    SSL_set1_host(ssl, host) != 1) {
		r = -ENOMEM;
		goto fail;
	}
	/* No partial-wildcard matches ("a*.example"): a name or one whole label. */
	SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
	while ((r = step(ssl, &ev)) == 0)
		if ((r = ab_netd_tls_wait(fd, ev, deadline_ms)) != 0)
			goto fail;
	if (r < 0)
		goto fail;
	*out = ssl;
	return 0;
fail:
	ERR_clear_error();
	SSL_free(ssl);
	return r;
}
