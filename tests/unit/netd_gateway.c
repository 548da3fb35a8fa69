/*
 * netd/gateway.c: the base-URL credential gateway against a fake upstream (issue 11
 * item 4). The upstream is a TLS server on 127.0.0.1 with a certificate from a test CA
 * made at run time with the openssl CLI; the box is one end of a socketpair, the gateway
 * runs on the other end in a thread. Shows: the upstream gets the real key and never
 * the placeholder, the box never gets the key (echoed in a header and in a body split
 * across chunks), SSE events arrive one by one, Host is rewritten, credential headers
 * are stripped, smuggling and oversized heads are refused, the body cap, the slow-client
 * deadline, and that an upstream with another name's certificate gets no request.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "gateway.h"
#include "http.h"
#include "tap.h"
#include "tls.h"

#define SECRET "sk-ant-api03-REAL-SECRET-0123456789"
#define PLACEHOLDER "agentbox-anthropic-7-placeholder"
#define HOST "api.gw.test"

static char dir[] = "/tmp/ab-gw-XXXXXX";
static char cafile[300];
static SSL_CTX *client_ctx;

/* ---- The test CA and two leaves, made with the openssl CLI. ---- */

static int
make_certs(void)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd),
		 "set -e; cd %s; exec >log 2>&1;"
		 "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
		 " -keyout ca.key -out ca.pem -days 2 -subj /CN=agentbox-test-ca"
		 " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign;"
		 "for n in " HOST " other.gw.test; do"
		 " openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $n.key"
		 "  -out $n.csr -subj /CN=$n;"
		 " printf 'subjectAltName=DNS:%%s\\n' $n > $n.ext;"
		 " openssl x509 -req -in $n.csr -CA ca.pem -CAkey ca.key -CAcreateserial"
		 "  -out $n.pem -days 2 -extfile $n.ext; done;"
		 "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
		 " -keyout self.key -out self.pem -days 2 -subj /CN=" HOST
		 " -addext subjectAltName=DNS:" HOST, dir);
	snprintf(cafile, sizeof(cafile), "%s/ca.pem", dir);
	return system(cmd);
}

/* ---- The fake upstream: one TLS server, scripted per test. ---- */

struct srv;
typedef void (*srv_fn)(struct srv *s, SSL *ssl);

struct srv {
	int lfd;
	uint16_t port;
	SSL_CTX *ctx;
	srv_fn fn;
	pthread_t t;
	atomic_int accepted;		/* TLS handshakes completed */
	atomic_int requests;		/* request heads received */
	char seen[65536];		/* what the upstream got, all requests */
	size_t seen_len;
	atomic_int box_got_first;	/* SSE: the box has the first event */
	atomic_int sse_waited_out;	/* SSE: the box did not get it in time */
};

/* Read one request (head + Content-Length or chunked body) into s->seen; 0 or -1. */
static int
srv_read_request(struct srv *s, SSL *ssl)
{
	size_t start = s->seen_len, head = 0;
	const char *cl;
	int n;

	for (;;) {
		if (head == 0) {
			char *e = memmem(s->seen + start, s->seen_len - start, "\r\n\r\n", 4);

			if (e != NULL) {
				head = (size_t)(e + 4 - s->seen);
				s->requests++;
			}
		}
		if (head != 0) {
			cl = strcasestr(s->seen + start, "\r\ncontent-length: ");
			if (cl != NULL && cl < s->seen + head &&
			    s->seen_len - head >= strtoul(cl + 18, NULL, 10))
				return 0;
			if (cl == NULL && (strcasestr(s->seen + start, "chunked") == NULL ||
					   memmem(s->seen + head, s->seen_len - head, "0\r\n\r\n", 5)))
				return 0;
		}
		n = SSL_read(ssl, s->seen + s->seen_len, (int)(sizeof(s->seen) - 1 - s->seen_len));
		if (n <= 0)
			return -1;
		s->seen_len += (size_t)n;
		s->seen[s->seen_len] = '\0';
	}
}

static void
srv_write(SSL *ssl, const char *s)
{
	if (SSL_write(ssl, s, (int)strlen(s)) <= 0)
		diag("upstream: write failed");
}

static void *
srv_main(void *arg)
{
	struct srv *s = arg;
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
	SSL *ssl;

	if (fd < 0)
		return NULL;
	ssl = SSL_new(s->ctx);
	SSL_set_fd(ssl, fd);
	if (SSL_accept(ssl) == 1) {
		s->accepted++;
		s->fn(s, ssl);
		SSL_shutdown(ssl);
	}
	SSL_free(ssl);
	close(fd);
	return NULL;
}

static int
srv_start(struct srv *s, const char *certname, srv_fn fn)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	char cert[400], key[400];

	memset(s, 0, sizeof(*s));
	s->fn = fn;
	snprintf(cert, sizeof(cert), "%s/%s.pem", dir, certname);
	snprintf(key, sizeof(key), "%s/%s.key", dir, certname);
	s->ctx = SSL_CTX_new(TLS_server_method());
	if (s->ctx == NULL || SSL_CTX_use_certificate_file(s->ctx, cert, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_use_PrivateKey_file(s->ctx, key, SSL_FILETYPE_PEM) != 1)
		return -1;
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(s->lfd, 4) != 0 || getsockname(s->lfd, (struct sockaddr *)&a, &alen) != 0)
		return -1;
	s->port = ntohs(a.sin_port);
	return pthread_create(&s->t, NULL, srv_main, s) == 0 ? 0 : -1;
}

static void
srv_stop(struct srv *s)
{
	shutdown(s->lfd, SHUT_RDWR);	/* wakes accept() when nobody came */
	pthread_join(s->t, NULL);
	close(s->lfd);
	SSL_CTX_free(s->ctx);
}

/* ---- The gateway, serving one end of a socketpair in a thread. ---- */

struct run {
	int fds[2];		/* [0] the box, [1] the gateway's */
	struct sockaddr_in addr;
	struct ab_netd_gw gw;
	struct ab_netd_gw_stats st;
	int r;
	pthread_t t;
};

static void *
gw_main(void *arg)
{
	struct run *g = arg;

	g->r = ab_netd_gateway_serve(g->fds[1], &g->gw, &g->st);
	shutdown(g->fds[1], SHUT_RDWR);	/* the daemon closes it: the box sees EOF */
	return NULL;
}

static int
gw_start(struct run *g, const struct srv *s)
{
	memset(g, 0, sizeof(*g));
	g->addr.sin_family = AF_INET;
	g->addr.sin_port = htons(s->port);
	g->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	g->gw = (struct ab_netd_gw){
		.host = HOST, .port = s->port, .addr = (struct sockaddr *)&g->addr,
		.addrlen = sizeof(g->addr), .tls = client_ctx, .header = "x-api-key",
		.secret = SECRET, .secret_len = strlen(SECRET), .head_ms = 2000,
		.idle_ms = 5000, .dial_ms = 5000,
	};
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, g->fds) != 0)
		return -1;
	return 0;
}

static int
gw_go(struct run *g)
{
	return pthread_create(&g->t, NULL, gw_main, g) == 0 ? 0 : -1;
}

static void
gw_stop(struct run *g)
{
	shutdown(g->fds[0], SHUT_WR);	/* the box is done */
	pthread_join(g->t, NULL);
	close(g->fds[0]);
	close(g->fds[1]);
}

/* A fake upstream with CERTNAME's certificate, and a gateway toward it (not started). */
static bool
setup(struct srv *s, const char *certname, srv_fn fn, struct run *g)
{
	if (srv_start(s, certname, fn) == 0 && gw_start(g, s) == 0)
		return true;
	ok(0, "setup: %m");
	return false;
}

static void
finish(struct srv *s, struct run *g)
{
	gw_stop(g);
	srv_stop(s);
}

/* ---- The box's side. ---- */

static void
box_send(struct run *g, const char *s, size_t len)
{
	if (write(g->fds[0], s, len) != (ssize_t)len)
		diag("box: write failed: %m");
}

/*
 * Read into BUF until it holds MARK (after the head, for a chunked end), EOF, or
 * TIMEOUT_MS; returns the length.
 */
static size_t
box_read(struct run *g, char *buf, size_t cap, size_t have, const char *mark, int timeout_ms)
{
	struct pollfd p = { .fd = g->fds[0], .events = POLLIN };
	long long end = ab_netd_tls_now_ms() + timeout_ms;
	ssize_t n;

	while (have + 1 < cap) {
		buf[have] = '\0';
		if (mark != NULL && strstr(buf, mark) != NULL)
			break;
		if (poll(&p, 1, (int)(end - ab_netd_tls_now_ms())) <= 0)
			break;
		if ((n = read(g->fds[0], buf + have, cap - 1 - have)) <= 0)
			break;
		have += (size_t)n;
	}
	buf[have] = '\0';
	return have;
}

/* The decoded body of a chunked response in BUF (test code: trusts its input). */
static void
dechunk(const char *buf, char *out, size_t cap)
{
	const char *p = strstr(buf, "\r\n\r\n");
	size_t o = 0, n;

	out[0] = '\0';
	if (p == NULL)
		return;
	for (p += 4; (n = strtoul(p, NULL, 16)) > 0 && o + n < cap; o += n) {
		p = strstr(p, "\r\n") + 2;
		memcpy(out + o, p, n);
		p += n + 2;
	}
	out[o] = '\0';
}

static int
count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* ---- 1. Credentials: stripped, injected, never echoed to the box. ---- */

static void
echo_twice(struct srv *s, SSL *ssl)
{
	/* Chunked, with the secret split inside a chunk boundary and whole in another. */
	if (srv_read_request(s, ssl) != 0)
		return;
	srv_write(ssl, "HTTP/1.1 200 OK\r\nX-Echo: " SECRET "\r\nX-Echo-Bearer: Bearer " SECRET
		  "x\r\nTransfer-Encoding: chunked\r\n\r\n");
	srv_write(ssl, "7\r\nkey=sk-\r\n");
	srv_write(ssl, "3\r\nant\r\n");
	srv_write(ssl, "20\r\n-api03-REAL-SECRET-0123456789;2=\r\n");
	srv_write(ssl, "24\r\n" SECRET ".\r\n0\r\n\r\n");
	/* Keep-alive: the second request, a Content-Length body holding the secret. */
	if (srv_read_request(s, ssl) != 0)
		return;
	srv_write(ssl, "HTTP/1.1 200 OK\r\nContent-Length: 41\r\n\r\n<" SECRET "____>");
}

static void
test_credentials(void)
{
	static const char req[] =
		"POST /v1/messages?beta=true HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n"
		"X-Api-Key: " PLACEHOLDER "\r\nAuthorization: Bearer " PLACEHOLDER "\r\n"
		"Proxy-Authorization: Basic cA==\r\nCookie: session=" PLACEHOLDER "\r\n"
		"x-goog-api-key: " PLACEHOLDER "\r\napi-key: " PLACEHOLDER "\r\n"
		"Accept-Encoding: gzip, br\r\nanthropic-version: 2023-06-01\r\n"
		"Connection: keep-alive, X-Hop\r\nX-Hop: 1\r\n"
		"Content-Length: 13\r\n\r\n{\"model\":\"x\"}";
	static const char req2[] = "GET /v1/models HTTP/1.1\r\nHost: localhost:3129\r\n\r\n";
	char buf[8192], body[4096], hostline[64];
	struct srv s;
	struct run g;
	size_t n;

	if (!setup(&s, HOST, echo_twice, &g) || gw_go(&g) != 0)
		return;
	box_send(&g, req, sizeof(req) - 1);
	n = box_read(&g, buf, sizeof(buf), 0, "\r\n0\r\n\r\n", 5000);
	ok(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17) == 0, "the box gets the upstream's 200");
	ok(strstr(buf, "sk-ant") == NULL && strstr(buf, "REAL-SECRET") == NULL,
	   "the box never sees the key (headers and chunked body)");
	ok(strstr(buf, "\r\nX-Echo: [redacted]\r\n") != NULL &&
	   strstr(buf, "\r\nX-Echo-Bearer: Bearer [redacted]x\r\n") != NULL,
	   "the key echoed in response headers is redacted");
	dechunk(buf, body, sizeof(body));
	ok(strcmp(body, "key=[redacted];2=[redacted].") == 0,
	   "the key split across chunks is redacted: '%s'", body);
	box_send(&g, req2, sizeof(req2) - 1);
	n = box_read(&g, buf, sizeof(buf), 0, "\r\n0\r\n\r\n", 5000);
	dechunk(buf, body, sizeof(body));
	ok(n > 0 && strcmp(body, "<[redacted]____>") == 0 &&
	   strcasestr(buf, "content-length") == NULL &&
	   strstr(buf, "Transfer-Encoding: chunked\r\n") != NULL,
	   "keep-alive: a second request; its Content-Length body re-framed, redacted: '%s'",
	   body);
	finish(&s, &g);
	snprintf(hostline, sizeof(hostline), "\r\nHost: " HOST ":%u\r\n", s.port);
	ok(s.requests == 2 && s.accepted == 1, "two requests over one upstream connection");
	ok(count(s.seen, "x-api-key: " SECRET "\r\n") == 2, "the upstream gets the real key");
	ok(strstr(s.seen, PLACEHOLDER) == NULL, "the upstream never sees the placeholder");
	ok(count(s.seen, hostline) == 2 && strstr(s.seen, "127.0.0.1:3129") == NULL &&
	   strstr(s.seen, "localhost") == NULL, "Host is the credential's host");
	ok(strcasestr(s.seen, "authorization") == NULL && strcasestr(s.seen, "cookie") == NULL &&
	   strcasestr(s.seen, "goog") == NULL && strcasestr(s.seen, "\r\napi-key") == NULL &&
	   count(s.seen, "x-api-key") == 2, "every credential header from the box is stripped");
	ok(strcasestr(s.seen, "x-hop") == NULL && strcasestr(s.seen, "connection:") == NULL &&
	   strstr(s.seen, "gzip") == NULL && count(s.seen, "Accept-Encoding: identity") == 2,
	   "hop-by-hop fields dropped; identity encoding asked (so redaction sees the bytes)");
	ok(strstr(s.seen, "POST /v1/messages?beta=true HTTP/1.1\r\n") == s.seen &&
	   strstr(s.seen, "anthropic-version: 2023-06-01\r\n") != NULL &&
	   strstr(s.seen, "\r\n\r\n{\"model\":\"x\"}GET /v1/models HTTP/1.1\r\n") != NULL,
	   "request line, other fields and the body pass unchanged");
	ok(g.r == 0 && g.st.requests == 2 && g.st.status == 200 &&
	   g.st.bytes_up == sizeof(req) - 1 + sizeof(req2) - 1 && g.st.bytes_down > 0 &&
	   g.st.reason == NULL, "stats: 2 requests, %llu bytes up, %llu down",
	   (unsigned long long)g.st.bytes_up, (unsigned long long)g.st.bytes_down);
}

/* ---- 2. SSE: each event reaches the box before the upstream sends the next. ---- */

static void
sse(struct srv *s, SSL *ssl)
{
	long long end;

	if (srv_read_request(s, ssl) != 0)
		return;
	srv_write(ssl, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
		  "Transfer-Encoding: chunked\r\n\r\nb\r\ndata: one\n\n\r\n");
	/* The next event only once the box has the first (or after 3 s: a failure). */
	end = ab_netd_tls_now_ms() + 3000;
	while (!s->box_got_first && ab_netd_tls_now_ms() < end)
		usleep(1000);
	s->sse_waited_out = !s->box_got_first;
	srv_write(ssl, "b\r\ndata: two\n\n\r\n0\r\n\r\n");
}

static void
test_sse(void)
{
	static const char req[] = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n"
				  "X-Custom-Auth: Token " PLACEHOLDER "\r\n"
				  "Accept: text/event-stream\r\nContent-Length: 2\r\n\r\n{}";
	char buf[4096], body[1024];
	struct srv s;
	struct run g;
	size_t n;

	if (!setup(&s, HOST, sse, &g))
		return;
	g.gw.header = "x-custom-auth";	/* a credential header of the policy's own */
	g.gw.prefix = "Token ";
	if (gw_go(&g) != 0)
		return;
	box_send(&g, req, sizeof(req) - 1);
	n = box_read(&g, buf, sizeof(buf), 0, "data: one\n\n", 2500);
	s.box_got_first = strstr(buf, "data: one\n\n") != NULL && strstr(buf, "two") == NULL;
	ok(s.box_got_first, "the first event reaches the box while the upstream holds the next");
	n = box_read(&g, buf, sizeof(buf), n, "\r\n0\r\n\r\n", 5000);
	dechunk(buf, body, sizeof(body));
	ok(strcmp(body, "data: one\n\ndata: two\n\n") == 0, "then the second, and the end");
	finish(&s, &g);
	ok(!s.sse_waited_out, "the upstream did not have to send the next event first");
	ok(count(s.seen, "x-custom-auth: Token " SECRET "\r\n") == 1 &&
	   strcasestr(s.seen, "x-custom-auth") == strstr(s.seen, "x-custom-auth") &&
	   strstr(s.seen, PLACEHOLDER) == NULL,
	   "the credential's own header from the box is replaced, prefix put before the key");
}

/* ---- 3. Refusals: answered by the gateway, the upstream never asked. ---- */

static void
no_request(struct srv *s, SSL *ssl)
{
	(void)srv_read_request(s, ssl);	/* counts a head if one came */
}

#define R "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n"

static const struct {
	const char *name, *req;
	const char *status;
	const char *reason;
} refusals[] = {
	{ "CL+TE (smuggling)", R "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	  "HTTP/1.1 400 ", "bad-request" },
	{ "TE+CL (smuggling)", R "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
	  "HTTP/1.1 400 ", "bad-request" },
	{ "two Content-Lengths", R "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
	  "HTTP/1.1 400 ", "bad-request" },
	{ "Transfer-Encoding: chunked, identity",
	  R "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n", "HTTP/1.1 400 ", "bad-request" },
	{ "obs-fold", R "X-A: a\r\n b\r\n\r\n", "HTTP/1.1 400 ", "bad-request" },
	{ "bare LF", "GET / HTTP/1.1\nHost: a\n\n", "HTTP/1.1 400 ", "bad-request" },
	{ "absolute-form (a proxy request)",
	  "GET http://evil.example/ HTTP/1.1\r\nHost: evil.example\r\n\r\n", "HTTP/1.1 400 ",
	  "bad-request" },
	{ "CONNECT", "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n",
	  "HTTP/1.1 400 ", "bad-request" },
	{ "TRACE", "TRACE / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "HTTP/1.1 405 ", "bad-request" },
	{ "TRACK", "TRACK / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "HTTP/1.1 405 ", "bad-request" },
	{ "WebSocket upgrade", "GET /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	  "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n",
	  "HTTP/1.1 501 ", "bad-request" },
	{ "h2c upgrade", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: h2c\r\n\r\n",
	  "HTTP/1.1 501 ", "bad-request" },
	{ "Expect other than 100-continue", R "Expect: 200-ok\r\nContent-Length: 2\r\n\r\n{}",
	  "HTTP/1.1 417 ", "bad-request" },
	{ "a body on GET", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}",
	  "HTTP/1.1 400 ", "bad-request" },
	{ "Content-Length over the cap", R "Content-Length: 1025\r\n\r\n", "HTTP/1.1 413 ",
	  "limit" },
};

static void
test_refusals(void)
{
	char buf[4096];
	struct srv s;
	struct run g;

	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		if (!setup(&s, HOST, no_request, &g))
		return;
		g.gw.body_max = 1024;
		gw_go(&g);
		box_send(&g, refusals[i].req, strlen(refusals[i].req));
		box_read(&g, buf, sizeof(buf), 0, NULL, 5000);	/* to EOF: the gateway closes */
		finish(&s, &g);
		ok(strncmp(buf, refusals[i].status, strlen(refusals[i].status)) == 0 &&
		   strstr(buf, "Connection: close\r\n") != NULL && s.accepted == 0 &&
		   g.r < 0 && g.st.reason != NULL && strcmp(g.st.reason, refusals[i].reason) == 0,
		   "%s: %.12s, upstream not dialled, reason %s", refusals[i].name, buf,
		   g.st.reason != NULL ? g.st.reason : "(none)");
	}
}

/* An oversized head (431), and a chunked body over the cap (413, request left unfinished). */
static void
test_bounds(void)
{
	char *big = malloc(AB_HTTP_HEAD_MAX + 64), buf[4096], chunk[1024];
	struct srv s;
	struct run g;
	size_t n;

	if (big == NULL || !setup(&s, HOST, no_request, &g)) {
		free(big);
		return;
	}
	gw_go(&g);
	n = (size_t)sprintf(big, R "X-Big: ");
	memset(big + n, 'a', AB_HTTP_HEAD_MAX + 64 - n);
	box_send(&g, big, AB_HTTP_HEAD_MAX + 64);
	box_read(&g, buf, sizeof(buf), 0, NULL, 5000);
	finish(&s, &g);
	ok(strncmp(buf, "HTTP/1.1 431 ", 13) == 0 && s.accepted == 0 && g.r == -EMSGSIZE,
	   "a head over 16 KiB: 431, upstream not dialled (%.12s)", buf);
	free(big);

	if (!setup(&s, HOST, no_request, &g))
		return;
	g.gw.body_max = 1024;
	gw_go(&g);
	box_send(&g, R "Transfer-Encoding: chunked\r\n\r\n", strlen(R) + 30);
	memset(chunk, 'b', sizeof(chunk));
	memcpy(chunk, "320\r\n", 5);			/* 800 bytes, twice */
	memcpy(chunk + 5 + 800, "\r\n", 2);
	box_send(&g, chunk, 807);
	box_send(&g, chunk, 807);
	box_read(&g, buf, sizeof(buf), 0, NULL, 5000);
	finish(&s, &g);
	ok(strncmp(buf, "HTTP/1.1 413 ", 13) == 0 && g.r == -EFBIG &&
	   strcmp(g.st.reason, "limit") == 0 && strstr(s.seen, "\r\n0\r\n\r\n") == NULL,
	   "a chunked body over the cap: 413, the upstream never gets a complete request");
}

/* ---- 4. Deadlines. ---- */

static void
test_slow_client(void)
{
	char buf[4096];
	struct srv s;
	struct run g;
	long long t0;

	if (!setup(&s, HOST, no_request, &g))
		return;
	g.gw.head_ms = 300;
	gw_go(&g);
	t0 = ab_netd_tls_now_ms();
	box_send(&g, "POST /v1/messages HTTP/1.1\r\nHo", 30);	/* and nothing more */
	box_read(&g, buf, sizeof(buf), 0, NULL, 5000);
	t0 = ab_netd_tls_now_ms() - t0;
	finish(&s, &g);
	ok(strncmp(buf, "HTTP/1.1 408 ", 13) == 0 && g.r == -ETIMEDOUT &&
	   strcmp(g.st.reason, "timeout") == 0 && t0 >= 250 && t0 < 2000 && s.accepted == 0,
	   "a head that stalls: 408 after head_ms (%lld ms)", t0);

	/* Idle between requests: the connection just ends, no answer, no reason. */
	if (!setup(&s, HOST, no_request, &g))
		return;
	g.gw.idle_ms = 200;
	gw_go(&g);
	box_read(&g, buf, sizeof(buf), 0, NULL, 5000);
	finish(&s, &g);
	ok(buf[0] == '\0' && g.r == 0 && g.st.reason == NULL,
	   "an idle connection ends quietly after idle_ms");
}

/* An upstream that answers only after 1.5 s. */
static void
silent(struct srv *s, SSL *ssl)
{
	if (srv_read_request(s, ssl) != 0)
		return;
	usleep(1500 * 1000);
	srv_write(ssl, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
}

/* The stop fd (the daemon's session ended) ends a connection waiting on the upstream. */
static void
test_stop(void)
{
	static const char req[] = "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n\r\n";
	uint64_t one = 1;
	char buf[4096];
	struct srv s;
	struct run g;
	long long t0;
	int stop = eventfd(0, EFD_CLOEXEC);

	if (stop < 0 || !setup(&s, HOST, silent, &g))
		return;
	g.gw.stop_fd = &stop;
	gw_go(&g);
	box_send(&g, req, sizeof(req) - 1);
	usleep(200 * 1000);
	t0 = ab_netd_tls_now_ms();
	if (write(stop, &one, sizeof(one)) != sizeof(one))
		diag("eventfd write: %m");
	box_read(&g, buf, sizeof(buf), 0, NULL, 5000);	/* until the gateway hangs up */
	t0 = ab_netd_tls_now_ms() - t0;
	finish(&s, &g);
	close(stop);
	ok(t0 < 1000 && g.r < 0 && strstr(buf, "ok") == NULL,
	   "the stop fd ends a connection waiting on a silent upstream (%lld ms)", t0);
}

/* ---- 5. The upstream must be the credential's host. ---- */

static void
test_wrong_cert(void)
{
	static const char req[] = R "Content-Length: 2\r\n\r\n{}";
	static const struct {
		const char *cert, *name;
	} rows[] = {
		{ "other.gw.test", "a certificate for another name (from the trusted CA)" },
		{ "self", "a self-signed certificate for the right name" },
	};
	char buf[4096];
	struct srv s;
	struct run g;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (!setup(&s, rows[i].cert, no_request, &g))
			return;
		gw_go(&g);
		box_send(&g, req, sizeof(req) - 1);
		box_read(&g, buf, sizeof(buf), 0, NULL, 5000);
		finish(&s, &g);
		ok(strncmp(buf, "HTTP/1.1 502 ", 13) == 0 && s.accepted == 0 && s.seen_len == 0 &&
		   g.r == -EPERM && strcmp(g.st.reason, "dial-failed") == 0 &&
		   g.st.requests == 0, "%s: 502, no request sent (%d, %.12s)", rows[i].name, g.r,
		   buf);
	}
}

/* A compressed body would hide the key from redaction: refused. */
static void
gzip_reply(struct srv *s, SSL *ssl)
{
	if (srv_read_request(s, ssl) == 0)
		srv_write(ssl, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n"
			  "\r\nabcd");
}

/* An HTTP/1.0 upstream, body to EOF: the box still gets HTTP/1.1, chunked. */
static void
http10_reply(struct srv *s, SSL *ssl)
{
	if (srv_read_request(s, ssl) == 0)
		srv_write(ssl, "HTTP/1.0 200 OK\r\nX-A: b\r\n\r\nto the end " SECRET);
}

static void
test_http10(void)
{
	static const char req[] = R "Content-Length: 2\r\n\r\n{}";
	char buf[4096], body[1024];
	struct srv s;
	struct run g;

	if (!setup(&s, HOST, http10_reply, &g) || gw_go(&g) != 0)
		return;
	box_send(&g, req, sizeof(req) - 1);
	box_read(&g, buf, sizeof(buf), 0, "\r\n0\r\n\r\n", 5000);
	finish(&s, &g);
	dechunk(buf, body, sizeof(body));
	ok(strncmp(buf, "HTTP/1.1 200 OK\r\nX-A: b\r\nTransfer-Encoding: chunked\r\n\r\n",
		   55) == 0 && strcmp(body, "to the end [redacted]") == 0,
	   "an HTTP/1.0 body to EOF: HTTP/1.1 chunked to the box, redacted: '%s'", body);
}

/* Expect: 100-continue is the gateway's to answer; the upstream gets a plain request. */
static void
no_content(struct srv *s, SSL *ssl)
{
	if (srv_read_request(s, ssl) == 0)
		srv_write(ssl, "HTTP/1.1 204 No Content\r\nX-A: b\r\n\r\n");
}

static void
test_expect(void)
{
	static const char head[] = R "Expect: 100-continue\r\nContent-Length: 2\r\n\r\n";
	char buf[4096];
	struct srv s;
	struct run g;
	size_t n;

	if (!setup(&s, HOST, no_content, &g) || gw_go(&g) != 0)
		return;
	box_send(&g, head, sizeof(head) - 1);
	n = box_read(&g, buf, sizeof(buf), 0, "\r\n\r\n", 5000);
	ok(strcmp(buf, "HTTP/1.1 100 Continue\r\n\r\n") == 0, "100 Continue before the body");
	box_send(&g, "{}", 2);
	box_read(&g, buf, sizeof(buf), 0, "X-A: b\r\n\r\n", 5000);
	finish(&s, &g);
	ok(n > 0 && strcmp(buf, "HTTP/1.1 204 No Content\r\nX-A: b\r\n\r\n") == 0 &&
	   strcasestr(s.seen, "expect") == NULL && strstr(s.seen, "\r\n\r\n{}") != NULL,
	   "then the response; the upstream got the body and no Expect");
}

/* A response framed two ways: refused, not guessed. */
static void
cl_te_reply(struct srv *s, SSL *ssl)
{
	if (srv_read_request(s, ssl) == 0)
		srv_write(ssl, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n"
			  "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
}

static void
test_bad_responses(void)
{
	static const char req[] = R "Content-Length: 2\r\n\r\n{}";
	static const struct {
		const char *name;
		srv_fn fn;
	} rows[] = { { "Content-Encoding: gzip", gzip_reply }, { "CL+TE", cl_te_reply } };
	char buf[4096];
	struct srv s;
	struct run g;

	for (size_t i = 0; i < 2; i++) {
		if (!setup(&s, HOST, rows[i].fn, &g))
		return;
		gw_go(&g);
		box_send(&g, req, sizeof(req) - 1);
		box_read(&g, buf, sizeof(buf), 0, NULL, 5000);
		finish(&s, &g);
		ok(strncmp(buf, "HTTP/1.1 502 ", 13) == 0 && strstr(buf, "abcd") == NULL &&
		   g.r < 0, "an upstream response with %s: 502 (%.12s)", rows[i].name, buf);
	}
}

int
main(void)
{
	char cmd[400];

	signal(SIGPIPE, SIG_IGN);	/* as the daemon does (gateway.h) */
	if (mkdtemp(dir) == NULL || make_certs() != 0 ||
	    ab_netd_tls_ctx_new(cafile, &client_ctx) != 0) {
		ok(0, "test CA in %s (openssl CLI)", dir);
		return done_testing();
	}
	test_credentials();
	test_sse();
	test_refusals();
	test_bounds();
	test_slow_client();
	test_stop();
	test_wrong_cert();
	test_bad_responses();
	test_http10();
	test_expect();
	SSL_CTX_free(client_ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
